# Copyright (C) 2026 The org_edns_addon authors
#
# This program is free software: you can redistribute it and/or modify it under
# the terms of the GNU General Public License as published by the Free Software
# Foundation, either version 2 of the License, or (at your option) any later
# version. It is distributed in the hope that it will be useful, but WITHOUT ANY
# WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS FOR A
# PARTICULAR PURPOSE. See the GNU General Public License (the file COPYING).
#
# SPDX-License-Identifier: GPL-2.0-or-later

"""staging/dnsconfd.py: in an initramfs, Unbound waits for dnsconfd's configuration."""

from lab.kickstarts import edns_kickstart
from org_edns_addon import constants as c
from org_edns_addon import initrd
from org_edns_addon.ks.reader import parse_kickstart
from org_edns_addon.staging import plan as staging_plan
from org_edns_addon.staging.dnsconfd import unbound_after_dnsconfd
from tests.staging_fixtures import staging_input


def paths(plan):
    return [planned.path for planned in plan.files]


def test_the_drop_in_only_holds_unbound_back_in_an_initramfs_before_dnsconfd_wrote():
    lines = unbound_after_dnsconfd().decode().splitlines()
    unit = lines[lines.index("[Unit]"):]
    # Triggering conditions (|): either lets Unbound start; nothing else is changed.
    assert unit == ["[Unit]", "ConditionPathExists=|!/etc/initrd-release",
                    "ConditionFileNotEmpty=|/run/dnsconfd/unbound.conf"]
    assert all(line.startswith("#") for line in lines[:lines.index("[Unit]")])


def test_the_dnsconfd_target_and_its_initramfs_carry_it_the_unbound_backend_not(
        write_ks, test_ca, tmp_path):
    for options, carried in (("", True), ("--backend=unbound", False)):
        data = staging_input(write_ks, edns_kickstart(test_ca.pem, options))
        target = staging_plan.build_plan(data, staging_plan.Phase.TARGET, str(tmp_path))
        dropin = {p.path: p.content for p in target.files}[c.DRACUT_CONF_PATH].decode()
        assert (c.UNBOUND_DNSCONFD_DROPIN_PATH in paths(target)) is carried
        assert (c.UNBOUND_DNSCONFD_DROPIN_PATH in dropin) is carried
        installer = staging_plan.build_plan(data, staging_plan.Phase.INSTALLER, "/")
        assert c.UNBOUND_DNSCONFD_DROPIN_PATH not in paths(installer)


def test_the_overlay_carries_it_and_its_pre_pivot_hook_leaves_it_behind(write_ks, test_ca):
    plan = initrd.overlay_plan(parse_kickstart(write_ks(edns_kickstart(test_ca.pem))))
    assert {p.path: p.content for p in plan.files}[c.UNBOUND_DNSCONFD_DROPIN_PATH] == \
        unbound_after_dnsconfd()
    hook = {p.path: p.content for p in plan.files}[initrd.PRE_PIVOT_HOOK_PATHS[0]].decode()
    assert c.UNBOUND_DNSCONFD_DROPIN_PATH not in hook
