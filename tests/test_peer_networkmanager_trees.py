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

"""NetworkManager of each Debian tree judges every keyfile `edns-addon apply` writes.

Each test runs once per tree (tests/debian_tree_fixtures.py ``stack_tree``): trixie's
NetworkManager 1.52, the EL lines' version, and forky's 1.58, past Fedora 43's 1.54 and
44's 1.56. The real daemon of the tree reads the conf.d (lab/vmlab/networkmanager.py): a
key it does not know is a `<warn> config: unknown key`, and a value it cannot parse is
missing from the GlobalDnsConfiguration it publishes on D-Bus. So each test asserts both:
no configuration warning, and NetworkManager's own reading is exactly what the kickstart
says. What differs between the versions on our files (lab/vmlab/networkmanager.py
SENDS_PORT_TO_DNSCONFD, ...) is asserted as each tree's fact.
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
# How each tree's NetworkManager reads our keyfile and boot options is the test; the
# server's port it drops on its way to dnsconfd before 1.54 (lines.PORT_TO_DNSCONFD) is
# what validate refuses on those lines (test_line_rules.py). The kickstarts here have
# servers on ports of their own, so they are judged for the first line that keeps them.
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


def options_mode(options):
    for option in options.split():
        if option.startswith("--resolve-mode="):
            return option.split("=", 1)[1]
    return "exclusive"


def expected_global_dns(options, domains, tree):
    """What TREE's NetworkManager must publish for the kickstart's OPTIONS and DOMAINS."""
    mode = options_mode(options)
    expected = {"domains": {domain: {"servers": servers} for domain, servers in domains.items()}}
    if mode != "backup":   # NetworkManager publishes no resolve-mode for its default, backup
        expected["resolve-mode"] = mode
    if "--ca=" in options:
        expected["certification-authority"] = c.DOT_CA_BUNDLE_PATH
    if tree.has(networkmanager.PUBLISHES_EMPTY_GLOBAL_LISTS):
        # Our keyfile always has [global-dns] (its resolve-mode), so both lists are there.
        expected["searches"] = []
        expected["options"] = []
    if "--search=" in options:
        searches = options.split("--search=", 1)[1].split()[0].split(",")
        expected["searches"] = [s.encode("idna").decode() for s in searches]
    return expected


@pytest.mark.parametrize("form", sorted(ACCEPTED_FORMS))
def test_networkmanager_reads_the_dnsconfd_keyfile_silently_and_exactly(
        stack_tree, write_ks, test_ca, tmp_path, form):
    options, servers, domains = ACCEPTED_FORMS[form]
    conf_d = applied_conf_d(write_ks, tmp_path, edns_kickstart(test_ca.pem, options, servers))
    assert list(conf_d) == [KEYFILE_NAME]

    reading = networkmanager.read_config(stack_tree.path, conf_d)

    assert reading.config_warnings == []
    assert "/run/edns-stage/conf.d/%s" % KEYFILE_NAME in reading.read_files
    assert reading.dns_mode == "dnsconfd"
    assert reading.dns_plugin == "dnsconfd"
    assert reading.global_dns == expected_global_dns(options, domains, stack_tree)


@pytest.mark.parametrize("form", ["ipv4-ipv6-ports-freeipa-routed",
                                  "ipv6-only-explicit-853-prefer-system-store"])
def test_networkmanager_leaves_dns_to_unbound_for_the_unbound_backend(
        stack_tree, write_ks, test_ca, tmp_path, form):
    options, servers, _ = ACCEPTED_FORMS[form]
    conf_d = applied_conf_d(write_ks, tmp_path, edns_kickstart(
        test_ca.pem, options + " --backend=unbound", servers))

    reading = networkmanager.read_config(stack_tree.path, conf_d)

    assert reading.config_warnings == []
    assert reading.dns_mode == "none"
    assert reading.global_dns == {}


def test_the_judge_fails_on_a_key_networkmanager_does_not_know(stack_tree, write_ks, test_ca,
                                                              tmp_path):
    """Not vacuous: a misspelt key in our file is a configuration warning."""
    options, servers, _ = ACCEPTED_FORMS["ipv4-ipv6-ports-freeipa-routed"]
    conf_d = applied_conf_d(write_ks, tmp_path, edns_kickstart(test_ca.pem, options, servers))
    conf_d[KEYFILE_NAME] = conf_d[KEYFILE_NAME].replace(b"resolve-mode=", b"resolve_mode=")

    reading = networkmanager.read_config(stack_tree.path, conf_d)

    assert len(reading.config_warnings) == 1
    assert "unknown key 'resolve_mode' in section [global-dns]" in reading.config_warnings[0]
    assert "resolve-mode" not in reading.global_dns


def test_print_config_shows_our_keys_and_a_misspelt_one_alike(stack_tree, write_ks, test_ca,
                                                              tmp_path):
    """Why the daemon is the judge: --print-config prints the merged configuration with
    every key of our file, and a misspelt one as readily."""
    options, servers, _ = ACCEPTED_FORMS["ipv4-ipv6-ports-freeipa-routed"]
    conf_d = applied_conf_d(write_ks, tmp_path, edns_kickstart(test_ca.pem, options, servers))
    misspelt = {KEYFILE_NAME: conf_d[KEYFILE_NAME].replace(b"resolve-mode=", b"resolve_mode=")}

    printed = networkmanager.print_config(stack_tree.path, conf_d)
    printed_misspelt = networkmanager.print_config(stack_tree.path, misspelt)

    assert printed["main"]["dns"] == "dnsconfd"
    assert printed["global-dns"] == {"resolve-mode": "exclusive",
                                     "certification-authority": c.DOT_CA_BUNDLE_PATH,
                                     "searches": "corp.example,lab.example"}
    assert printed["global-dns-domain-lab.example"]["servers"] == \
        "dns+tls://198.51.100.60:8853#dot.lab.example"
    assert printed_misspelt["global-dns"]["resolve_mode"] == "exclusive"
    assert "resolve-mode" not in printed_misspelt["global-dns"]


def test_the_judge_sees_a_server_networkmanager_drops(stack_tree, write_ks, test_ca, tmp_path):
    """Not vacuous: a server URI NetworkManager cannot parse is missing from its reading."""
    options, servers, domains = ACCEPTED_FORMS["ipv4-ipv6-ports-freeipa-routed"]
    conf_d = applied_conf_d(write_ks, tmp_path, edns_kickstart(test_ca.pem, options, servers))
    conf_d[KEYFILE_NAME] = conf_d[KEYFILE_NAME].replace(b"[2001:db8::53]", b"2001:db8::53")

    reading = networkmanager.read_config(stack_tree.path, conf_d)

    assert reading.servers("*") == [domains["*"][0], domains["*"][2]]
    assert reading.global_dns != expected_global_dns(options, domains, stack_tree)


def sent_server(address, name, domains, searches, tree, port=None):
    """One server of NetworkManager's Update call to dnsconfd, as TREE's version sends it
    for our keyfile (src/core/dns/nm-dns-dnsconfd.c server_builder_append_base)."""
    server = {"address": address, "protocol": "dns+tls", "name": name,
              "routing_domains": domains, "search_domains": searches,
              "ca": c.DOT_CA_BUNDLE_PATH}
    if port is not None and tree.has(networkmanager.SENDS_PORT_TO_DNSCONFD):
        server["port"] = port
    if tree.has(networkmanager.SENDS_PRIORITY_TO_DNSCONFD):
        server["priority"] = -100     # -NM_DNS_PRIORITY_DEFAULT_NORMAL
    return server


def test_what_networkmanager_sends_dnsconfd_carries_the_port_from_154_on(
        stack_tree, write_ks, test_ca, tmp_path):
    """Each server, field by field, as the tree's NetworkManager sends it to dnsconfd: on
    1.52 without its port (dnsconfd then asks 853: an 8853 server is never reached), from
    1.54 with it."""
    options, servers, _ = ACCEPTED_FORMS["ipv4-ipv6-ports-freeipa-routed"]
    conf_d = applied_conf_d(write_ks, tmp_path, edns_kickstart(test_ca.pem, options, servers))

    update = networkmanager.read_config(stack_tree.path, conf_d,
                                        dnsconfd_update=True).dnsconfd_update

    searches = ["corp.example", "lab.example"]
    everything = ["."]
    assert update is not None, "NetworkManager composed no update for dnsconfd"
    assert update.mode == "exclusive"
    assert update.servers == [
        sent_server("192.0.2.53", "dot.corp.example", everything, searches, stack_tree),
        sent_server("2001:db8::53", "dot.corp.example", everything, searches, stack_tree,
                    port=8853),
        sent_server("192.0.2.54", "dot2.corp.example", everything, searches, stack_tree),
        # One entry per routed domain (parse_global_config: a server of each domain).
        sent_server("198.51.100.60", "dot.lab.example", ["lab.example"], searches, stack_tree,
                    port=8853),
        sent_server("198.51.100.60", "dot.lab.example", ["test.lab.example"], searches,
                    stack_tree, port=8853)]
    ported = [s["address"] for s in update.servers if "port" in s]
    assert ported == ([] if not stack_tree.has(networkmanager.SENDS_PORT_TO_DNSCONFD)
                      else ["2001:db8::53", "198.51.100.60", "198.51.100.60"]), stack_tree


def test_a_connections_own_search_domain_stays_out_of_networkmanagers_resolv_conf(
        stack_tree, write_ks, test_ca, tmp_path):
    """A connection with its own server and search domain beside our keyfile (--search):
    on both versions NetworkManager's own resolv.conf has the global searches alone (our
    global "*" domain leaves the connections out, on 1.52 as from 1.56's change on), and
    dnsconfd is sent the connection's server for its own domain, to use by resolve-mode."""
    options, servers, _ = ACCEPTED_FORMS["ipv4-ipv6-ports-freeipa-routed"]
    conf_d = applied_conf_d(write_ks, tmp_path, edns_kickstart(test_ca.pem, options, servers))
    connection = networkmanager.connection_keyfile("192.0.2.10/24", "192.0.2.99",
                                                   ["dhcp.example"])

    reading = networkmanager.read_config(stack_tree.path, conf_d, connection=connection,
                                         dnsconfd_update=True)

    assert reading.resolv_searches == ["corp.example", "lab.example"], reading.resolv_conf
    from_connection = [s for s in reading.dnsconfd_update.servers if "interface" in s]
    # The global CA goes with it (parse_all_interface_config), though it is plaintext; and,
    # the connection being up, the networks of its routes (get_networks: its prefix route).
    expected = {"address": "192.0.2.99", "interface": networkmanager.CONNECTION_INTERFACE,
                "routing_domains": ["dhcp.example"], "search_domains": ["dhcp.example"],
                "ca": c.DOT_CA_BUNDLE_PATH, "networks": ["192.0.2.0/24"]}
    if stack_tree.has(networkmanager.SENDS_PRIORITY_TO_DNSCONFD):
        expected["priority"] = -100
    assert from_connection == [expected]


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
        stack_tree, write_ks, test_ca, tmp_path, backend):
    options, servers, domains = ACCEPTED_FORMS["ipv4-ipv6-ports-freeipa-routed"]
    boot_args, overlay = overlay_files(write_ks, tmp_path, edns_kickstart(
        test_ca.pem, options + " --backend=" + backend, servers))
    keyfile = (overlay / c.NM_KEYFILE_PATH.lstrip("/")).read_bytes()

    generated = networkmanager.initrd_generator(stack_tree.path, boot_args + ["ip=dhcp"])
    run_conf_d = {name: text.encode() for name, text in generated.items()}
    # The generator alone, as NetworkManager reads it: servers for all names and the mode.
    from_boot_args = networkmanager.read_config(stack_tree.path, {}, run_conf_d=run_conf_d)
    # The initramfs: the generator's /run files and the overlay's /etc keyfile.
    in_initramfs = networkmanager.read_config(stack_tree.path, {KEYFILE_NAME: keyfile},
                                              run_conf_d=run_conf_d)

    assert {"16-global-dns.conf", "16-dns-backend.conf"} <= set(generated)
    assert from_boot_args.config_warnings == [] and in_initramfs.config_warnings == []
    assert from_boot_args.dns_mode == in_initramfs.dns_mode == "dnsconfd"
    expected = {"resolve-mode": "exclusive", "domains": {"*": {"servers": domains["*"]}}}
    if stack_tree.has(networkmanager.PUBLISHES_EMPTY_GLOBAL_LISTS):
        expected.update(searches=[], options=[])
    assert from_boot_args.global_dns == expected
    # What the overlay adds, only it can carry: the CA, the routed domains, the searches.
    assert in_initramfs.global_dns == expected_global_dns(options, domains, stack_tree)
