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

"""NetworkManager 1.52 (Debian 13) judges every keyfile `edns-addon apply` writes.

The real daemon of the trixie tree reads the conf.d (lab/vmlab/networkmanager.py):
a key it does not know is a `<warn> config: unknown key`, and a value it cannot
parse is missing from the GlobalDnsConfiguration it publishes on D-Bus. So each
test asserts both: no configuration warning, and NetworkManager's own reading is
exactly what the kickstart says.
"""

import gzip
import subprocess

import pytest

from lab.kickstarts import edns_kickstart
from lab.vmlab import networkmanager
from org_edns_addon import constants as c
from tests.conftest import run_cli
from tests.staging_fixtures import require_namespaces

pytestmark = pytest.mark.root

KEYFILE_NAME = c.NM_KEYFILE_PATH.rsplit("/", 1)[1]
# How NetworkManager 1.52 reads our keyfile and boot options is how 1.54 reads them; the
# server's port it then drops on its way to dnsconfd (lines.PORT_TO_DNSCONFD) is what
# validate refuses on the 1.52 lines (test_line_rules.py). The kickstarts here have servers
# on ports of their own, so they are judged for the first line that keeps them.
JUDGED_FOR = "--line=fedora-43"

# (kickstart options, server lines, what NetworkManager must read: {domain: servers})
ACCEPTED_FORMS = {
    "ipv4-ipv6-ports-freeipa-routed": (
        "--ca=dns-ca.pem --search=corp.example,lab.example",
        ("dns+tls://192.0.2.53#dot.corp.example",
         "dns+tls://[2001:db8::53]:8853#dot.corp.example",
         "192.0.2.54#dot2.corp.example",
         "dns+tls://198.51.100.60:8853#dot.lab.example  domain=lab.example,test.lab.example"),
        {"*": ["dns+tls://192.0.2.53#dot.corp.example",
               "dns+tls://[2001:db8::53]:8853#dot.corp.example",
               "dns+tls://192.0.2.54#dot2.corp.example"],
         "lab.example": ["dns+tls://198.51.100.60:8853#dot.lab.example"],
         "test.lab.example": ["dns+tls://198.51.100.60:8853#dot.lab.example"]}),
    "ipv6-only-explicit-853-prefer-system-store": (
        "--resolve-mode=prefer",
        ("dns+tls://[2001:db8::53]:853#dot.corp.example",
         "dns+tls://[2001:db8:0:0::54]#dot2.corp.example"),
        {"*": ["dns+tls://[2001:db8::53]#dot.corp.example",
               "dns+tls://[2001:db8::54]#dot2.corp.example"]}),
    "backup-with-plaintext-and-idna": (
        "--resolve-mode=backup --ca=dns-ca.pem --search=bücher.example",
        ("dns+tls://192.0.2.53#dot.bücher.example",
         "dns+udp://192.0.2.99",
         "dns+tls://198.51.100.61#dot.bücher.example domain=bücher.example"),
        # NetworkManager writes a plaintext server back as a bare address.
        {"*": ["dns+tls://192.0.2.53#dot.xn--bcher-kva.example", "192.0.2.99"],
         "xn--bcher-kva.example": ["dns+tls://198.51.100.61#dot.xn--bcher-kva.example"]}),
}


@pytest.fixture(autouse=True)
def _namespaces():
    require_namespaces("--net", "--mount", "--pid", "--fork")


def applied_conf_d(write_ks, tmp_path, text, name="root"):
    """{file name: bytes} of the conf.d that `edns-addon apply KICKSTART --root` writes."""
    root = tmp_path / name
    root.mkdir()
    result = run_cli("apply", write_ks(text), "--root", root, JUDGED_FOR)
    assert result.returncode == 0, result.stderr
    conf_d = root / c.NM_CONF_DIR.lstrip("/")
    return {path.name: path.read_bytes() for path in sorted(conf_d.iterdir())}


def expected_global_dns(options, domains):
    mode = "exclusive"
    for option in options.split():
        if option.startswith("--resolve-mode="):
            mode = option.split("=", 1)[1]
    expected = {"domains": {domain: {"servers": servers} for domain, servers in domains.items()}}
    if mode != "backup":   # NetworkManager publishes no resolve-mode for its default, backup
        expected["resolve-mode"] = mode
    if "--ca=" in options:
        expected["certification-authority"] = c.DOT_CA_BUNDLE_PATH
    if "--search=" in options:
        searches = options.split("--search=", 1)[1].split()[0].split(",")
        expected["searches"] = [s.encode("idna").decode() for s in searches]
    return expected


@pytest.mark.parametrize("form", sorted(ACCEPTED_FORMS))
def test_networkmanager_152_reads_the_dnsconfd_keyfile_silently_and_exactly(
        trixie, write_ks, test_ca, tmp_path, form):
    options, servers, domains = ACCEPTED_FORMS[form]
    conf_d = applied_conf_d(write_ks, tmp_path, edns_kickstart(test_ca.pem, options, servers))
    assert list(conf_d) == [KEYFILE_NAME]

    reading = networkmanager.read_config(trixie, conf_d)

    assert reading.config_warnings == []
    assert "/run/edns-stage/conf.d/%s" % KEYFILE_NAME in reading.read_files
    assert reading.dns_mode == "dnsconfd"
    assert reading.global_dns == expected_global_dns(options, domains)


@pytest.mark.parametrize("form", ["ipv4-ipv6-ports-freeipa-routed",
                                  "ipv6-only-explicit-853-prefer-system-store"])
def test_networkmanager_152_leaves_dns_to_unbound_for_the_unbound_backend(
        trixie, write_ks, test_ca, tmp_path, form):
    options, servers, _ = ACCEPTED_FORMS[form]
    conf_d = applied_conf_d(write_ks, tmp_path, edns_kickstart(
        test_ca.pem, options + " --backend=unbound", servers))

    reading = networkmanager.read_config(trixie, conf_d)

    assert reading.config_warnings == []
    assert reading.dns_mode == "none"
    assert reading.global_dns == {}


def test_the_judge_fails_on_a_key_networkmanager_does_not_know(trixie, write_ks, test_ca,
                                                              tmp_path):
    """Not vacuous: a misspelt key in our file is a configuration warning of 1.52."""
    options, servers, _ = ACCEPTED_FORMS["ipv4-ipv6-ports-freeipa-routed"]
    conf_d = applied_conf_d(write_ks, tmp_path, edns_kickstart(test_ca.pem, options, servers))
    conf_d[KEYFILE_NAME] = conf_d[KEYFILE_NAME].replace(b"resolve-mode=", b"resolve_mode=")

    reading = networkmanager.read_config(trixie, conf_d)

    assert len(reading.config_warnings) == 1
    assert "unknown key 'resolve_mode' in section [global-dns]" in reading.config_warnings[0]
    assert "resolve-mode" not in reading.global_dns


def test_the_judge_sees_a_server_networkmanager_drops(trixie, write_ks, test_ca, tmp_path):
    """Not vacuous: a server URI 1.52 cannot parse is missing from its reading."""
    options, servers, domains = ACCEPTED_FORMS["ipv4-ipv6-ports-freeipa-routed"]
    conf_d = applied_conf_d(write_ks, tmp_path, edns_kickstart(test_ca.pem, options, servers))
    conf_d[KEYFILE_NAME] = conf_d[KEYFILE_NAME].replace(b"[2001:db8::53]", b"2001:db8::53")

    reading = networkmanager.read_config(trixie, conf_d)

    assert reading.servers("*") == [domains["*"][0], domains["*"][2]]
    assert reading.global_dns != expected_global_dns(options, domains)


def overlay_files(write_ks, tmp_path, text):
    """(boot-args options, {path: bytes} of the overlay) from the real CLI."""
    ks = write_ks(text)
    args = run_cli("boot-args", ks, JUDGED_FOR)
    assert args.returncode == 0, args.stderr
    image = tmp_path / "overlay.img"
    made = run_cli("overlay", ks, "-o", image, JUDGED_FOR)
    assert made.returncode == 0, made.stderr
    tree = tmp_path / "overlay"
    tree.mkdir()
    subprocess.run(["cpio", "-idm", "--quiet"], input=gzip.decompress(image.read_bytes()),
                   cwd=tree, check=True, timeout=60)
    return args.stdout.split(), tree


@pytest.mark.parametrize("backend", ["dnsconfd", "unbound"])
def test_initrd_generator_reads_boot_args_as_the_overlay_keyfile_says(
        trixie, write_ks, test_ca, tmp_path, backend):
    options, servers, domains = ACCEPTED_FORMS["ipv4-ipv6-ports-freeipa-routed"]
    boot_args, overlay = overlay_files(write_ks, tmp_path, edns_kickstart(
        test_ca.pem, options + " --backend=" + backend, servers))
    keyfile = (overlay / c.NM_KEYFILE_PATH.lstrip("/")).read_bytes()

    generated = networkmanager.initrd_generator(trixie, boot_args + ["ip=dhcp"])
    # The generator alone, as NetworkManager reads it: servers for all names and the mode.
    from_boot_args = networkmanager.read_config(trixie, {}, run_conf_d={
        name: text.encode() for name, text in generated.items()})
    # The initramfs: the generator's /run files and the overlay's /etc keyfile.
    in_initramfs = networkmanager.read_config(trixie, {KEYFILE_NAME: keyfile}, run_conf_d={
        name: text.encode() for name, text in generated.items()})

    assert {"16-global-dns.conf", "16-dns-backend.conf"} <= set(generated)
    assert from_boot_args.config_warnings == [] and in_initramfs.config_warnings == []
    assert from_boot_args.dns_mode == in_initramfs.dns_mode == "dnsconfd"
    assert from_boot_args.global_dns == {"resolve-mode": "exclusive",
                                         "domains": {"*": {"servers": domains["*"]}}}
    # What the overlay adds, only it can carry: the CA, the routed domains, the searches.
    assert in_initramfs.global_dns == expected_global_dns(options, domains)
