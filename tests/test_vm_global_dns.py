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

"""The VM proof's one exact comparison (lab/vmlab/global_dns.py) agrees with what the
real parts make of a kickstart: the keyfile `apply` writes, the 16-global-dns.conf each
tree's nm-initrd-generator writes of `boot-args`, and the GlobalDnsConfiguration each
tree's NetworkManager publishes on D-Bus; and it names every field a defect changes."""

import pytest

from lab.kickstarts import edns_kickstart
from lab.vmlab import global_dns, networkmanager
from org_edns_addon import constants as c
from tests.conftest import run_cli

SERVERS = ("dns+tls://192.0.2.53#dot.corp.example",
           "dns+tls://[2001:db8::53]:8853#dot.corp.example",
           "dns+tls://198.51.100.60#dot.lab.example  domain=lab.example,test.lab.example")
KICKSTART = edns_kickstart("", "--resolve-mode=exclusive --ca=dns-ca.pem", SERVERS,
                           certificates="")


def kickstart_file(tmp_path, test_ca):
    path = tmp_path / "ks.cfg"
    path.write_text(edns_kickstart(test_ca.pem, "--resolve-mode=exclusive --ca=dns-ca.pem",
                                   SERVERS))
    return path


def test_reads_the_kickstart_as_each_road_carries_it():
    keyfile = global_dns.from_kickstart(KICKSTART)
    main = global_dns.Server("192.0.2.53", 853, "dot.corp.example")
    ipv6 = global_dns.Server("2001:db8::53", 8853, "dot.corp.example")
    routed = global_dns.Server("198.51.100.60", 853, "dot.lab.example")
    assert keyfile == global_dns.GlobalDns(
        {"*": (main, ipv6), "lab.example": (routed,), "test.lab.example": (routed,)},
        "exclusive", c.DOT_CA_BUNDLE_PATH)
    assert global_dns.from_kickstart(KICKSTART, global_dns.ROAD_BOOT_OPTIONS) == \
        global_dns.GlobalDns({"*": (main, ipv6)}, "exclusive", None)


@pytest.mark.parametrize("lost, said", [
    ("dns+tls://[2001:db8::53]:8853#dot.corp.example", "domain *: server 2 missing (wanted "
     "[2001:db8::53]:8853#dot.corp.example)"),
])
def test_names_a_lost_server(lost, said):
    expected = global_dns.from_kickstart(KICKSTART)
    observed = global_dns.from_kickstart(KICKSTART.replace(lost + "\n", ""))
    assert global_dns.differences(expected, observed) == [said]


@pytest.mark.parametrize("old, new, said", [
    ("#dot.corp.example\ndns+tls://[", "\ndns+tls://[",
     "domain *: server 1 TLS name None (wanted dot.corp.example)"),
    ("]:8853#", "]#", "domain *: server 2 port 853 (wanted 8853)"),
    ("2001:db8::53", "2001:db8::54", "domain *: server 2 address 2001:db8::54 (wanted "
     "2001:db8::53)"),
    ("--resolve-mode=exclusive", "--resolve-mode=prefer", "resolve-mode prefer (wanted "
     "exclusive)"),
    ("  domain=lab.example,test.lab.example", "  domain=lab.example",
     "domain test.lab.example missing (wanted 198.51.100.60:853#dot.lab.example)"),
])
def test_names_the_field_a_defect_changes(old, new, said):
    assert KICKSTART.count(old) == 1
    expected = global_dns.from_kickstart(KICKSTART)
    observed = global_dns.from_kickstart(KICKSTART.replace(old, new))
    assert global_dns.differences(expected, observed) == [said]


def test_a_missing_ca_is_named():
    observed = global_dns.from_kickstart(KICKSTART, global_dns.ROAD_BOOT_OPTIONS)
    expected = global_dns.from_kickstart(KICKSTART, global_dns.ROAD_BOOT_OPTIONS)
    observed.ca = "/etc/pki/other.pem"
    assert global_dns.differences(expected, observed) == [
        "CA /etc/pki/other.pem (wanted None)"]


def test_the_keyfile_apply_writes_is_the_kickstart(tmp_path, test_ca):
    ks = kickstart_file(tmp_path, test_ca)
    root = tmp_path / "root"
    root.mkdir()
    run_cli("apply", str(ks), "--phase", "installer", "--root", str(root),
            "--line=fedora-43")
    written = (root / c.NM_KEYFILE_PATH.lstrip("/")).read_text()
    assert global_dns.differences(global_dns.from_kickstart(ks.read_text()),
                                  global_dns.from_file(written)) == []


@pytest.mark.root
def test_the_generator_and_networkmanager_of_each_tree_run_the_kickstart(tmp_path, test_ca,
                                                                        stack_tree):
    ks = kickstart_file(tmp_path, test_ca)
    boot_args = run_cli("boot-args", str(ks), "--line=fedora-43").stdout.split()
    generated = networkmanager.initrd_generator(stack_tree.path, boot_args)
    text = ks.read_text()
    boot_road = global_dns.from_kickstart(text, global_dns.ROAD_BOOT_OPTIONS)
    assert global_dns.differences(
        boot_road, global_dns.from_file(generated["16-global-dns.conf"])) == []
    reading = networkmanager.read_config(stack_tree.path, {}, run_conf_d={
        name: content.encode() for name, content in generated.items()})
    assert global_dns.differences(boot_road, global_dns.from_dbus(reading.global_dns)) == []
