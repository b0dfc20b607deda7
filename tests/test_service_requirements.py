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

"""The module's pure rules: requirements per backend and boot options against the kickstart."""

from org_edns_addon.model import Backend, DotServer, EdnsConfig, ResolveMode
from org_edns_addon.service.requirements import boot_option_differences, required_packages
from org_edns_addon.staging.networkmanager import boot_options

CONFIG = EdnsConfig(servers=(DotServer.parse_uri("dns+tls://192.0.2.53#dot.example"),))


def names(packages):
    return [name for name, _ in packages]


def test_dnsconfd_dracut_is_asked_for_only_where_the_installer_has_its_module(tmp_path):
    assert names(required_packages(CONFIG, str(tmp_path))) == ["dnsconfd", "ca-certificates"]
    (tmp_path / "usr/lib/dracut/modules.d/99dnsconfd").mkdir(parents=True)
    packages = required_packages(CONFIG, str(tmp_path))
    assert names(packages) == ["dnsconfd", "dnsconfd-dracut", "ca-certificates"]
    assert all("encrypted DNS" in reason for _, reason in packages)


def test_unbound_backend_asks_for_unbound(tmp_path):
    config = EdnsConfig(servers=CONFIG.servers, backend=Backend.UNBOUND)
    assert names(required_packages(config, str(tmp_path))) == ["unbound", "ca-certificates"]


def test_matching_boot_options_say_nothing():
    present = dict(boot_options(CONFIG))
    assert boot_option_differences(boot_options(CONFIG), present) == []


def test_each_differing_boot_option_is_named_and_the_kickstart_wins():
    config = EdnsConfig(servers=CONFIG.servers, resolve_mode=ResolveMode.PREFER)
    present = {"rd.net.dns": "dns+tls://198.51.100.9#other.example",
               "rd.net.dns-resolve-mode": "exclusive", "rd.net.dns-backend": "dnsconfd"}
    assert boot_option_differences(boot_options(config), present) == [
        "the boot option rd.net.dns=dns+tls://198.51.100.9#other.example differs from the "
        "kickstart (rd.net.dns=dns+tls://192.0.2.53#dot.example); the kickstart wins",
        "the boot option rd.net.dns-resolve-mode=exclusive differs from the kickstart "
        "(rd.net.dns-resolve-mode=prefer); the kickstart wins"]
