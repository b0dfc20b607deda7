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

"""The names Unbound keeps to itself, on running Unbounds.

Unbound answers its default local zones itself (services/localzone.c
local_zone_enter_defaults): special-use names (test., home.arpa., onion., ...), the
reverse zones of private and reserved addresses (AS112, util/as112.c) and the host's own
loopback names, whatever forward zone names them. ``names.UNBOUND_DEFAULT_ZONES`` is that
list, held here against Debian 12's Unbound (1.17) and Debian 13's (1.26, from the
trixie tree). Then a routed ``domain=`` under such a zone, with a DoT upstream in the
lab serving it: with ``--backend=unbound`` our file's transparent local zone lets its
names through, and nothing else of the zone; with dnsconfd, whose Unbound configuration
holds no local zone (InfrastructureServices/dnsconfd src/dns_managers/unbound_manager.c,
2.2.2), they get NXDOMAIN from Unbound itself, and validate says so on the line.
"""

import dns.flags
import dns.rcode
import pytest

from lab.dotlab import ask, free_port, start_forwarder, start_staged_resolver
from lab.kickstarts import CA_FILENAME, edns_kickstart
from lab.vmlab import debian_tree
from org_edns_addon.names import (UNBOUND_AS112_ZONES, UNBOUND_DEFAULT_ZONES,
                                  UNBOUND_LOOPBACK_ZONES, UNBOUND_SPECIAL_USE_ZONES)
from org_edns_addon.staging import apply as staging_apply
from org_edns_addon.trust import StagingInput
from tests.dot_fixtures import PRIVATE_ANSWERS, PRIVATE_ZONES
from tests.ks_fixtures import line_of, parse

# Added in Unbound 1.24 (services/localzone.c default_zones_special_array).
SINCE_1_24 = ("resolver.arpa", "service.arpa")
# A name of no default zone: the resolver asks its upstream.
NOT_UNBOUNDS = ("corp.example", "arpa", "in-addr.arpa", "172.in-addr.arpa", "ip6.arpa")


def trixie_unbound():
    """Debian 13's Unbound binary, run on this machine with the tree's own libraries."""
    try:
        tree = debian_tree.ensure_tree("trixie")
    except debian_tree.TreeUnavailable as error:
        pytest.skip("no trixie tree (Unbound 1.26): %s" % error)
    libraries = ":".join(str(tree / path) for path in ("lib/x86_64-linux-gnu",
                                                        "usr/lib/x86_64-linux-gnu"))
    return (str(tree / "lib64/ld-linux-x86-64.so.2"), "--library-path", libraries,
            str(tree / "usr/sbin/unbound"))


def zones_answered_locally(tmp_path, unbound, names):
    """Those of NAMES whose SOA the Unbound UNBOUND answers itself (the AA flag of a local
    zone's answer), with its every other query forwarded to a second Unbound on loopback
    that answers all names (and its answer relayed without AA)."""
    upstream = start_forwarder(tmp_path / "upstream", 'server:\n  local-zone: "." static\n',
                               "127.0.0.1", plain_zones=())
    resolver = None
    try:
        resolver = start_forwarder(
            tmp_path / "resolver", 'server:\n  module-config: "iterator"\nforward-zone:\n'
            '  name: "."\n  forward-addr: 127.0.0.1@%d\n' % upstream.port, "127.0.0.1",
            free_port("127.0.0.1"), plain_zones=(), unbound=unbound)
        local = set()
        for name in names:
            response = ask(resolver.address, resolver.port, name + ".", "SOA")
            assert response.rcode() in (dns.rcode.NOERROR, dns.rcode.NXDOMAIN), response
            if response.flags & dns.flags.AA:
                local.add(name)
        return local
    finally:
        for process in (resolver, upstream):
            if process is not None:
                process.stop()


@pytest.mark.parametrize("release", ["1.17 (Debian 12)", "1.26 (Debian 13)"])
def test_the_zones_unbound_answers_itself_are_our_list(tmp_path, release):
    unbound = ("unbound",) if release.startswith("1.17") else trixie_unbound()
    expected = set(UNBOUND_DEFAULT_ZONES) - (set(SINCE_1_24) if release.startswith("1.17")
                                             else set())
    assert zones_answered_locally(tmp_path, unbound,
                                  UNBOUND_DEFAULT_ZONES + NOT_UNBOUNDS) == expected
    assert len(UNBOUND_AS112_ZONES) == 95 and len(UNBOUND_SPECIAL_USE_ZONES) == 6
    assert len(UNBOUND_LOOPBACK_ZONES) == 3


def kickstart(backend, servers, ca_pem):
    return edns_kickstart(ca_pem, "--ca=%s --backend=%s" % (CA_FILENAME, backend), servers,
                          commands="")


def routed_private_servers(dot_lab, private_zone_upstream):
    return [dot_lab.upstream.server_line(),
            private_zone_upstream.server_line() + " domain=" + ",".join(PRIVATE_ZONES)]


def answers(response):
    return [rdata.to_text() for rrset in response.answer for rdata in rrset]


@pytest.mark.root
def test_with_the_unbound_backend_routed_private_names_resolve_and_no_other(
        dot_lab, dot_pki, private_zone_upstream, staged_resolver):
    offset = private_zone_upstream.log_offset()
    resolver, _root = staged_resolver(kickstart(
        "unbound", routed_private_servers(dot_lab, private_zone_upstream), dot_pki.ca.pem))
    for (name, kind), value in PRIVATE_ANSWERS.items():
        response = ask(resolver.address, resolver.port, name, kind, network=dot_lab.network)
        assert (response.rcode(), answers(response)) == (dns.rcode.NOERROR, [value])
    # The rest of home.arpa stays Unbound's: NXDOMAIN at once, never asked of a server.
    other = ask(resolver.address, resolver.port, "printer.home.arpa", network=dot_lab.network)
    assert other.rcode() == dns.rcode.NXDOMAIN
    asked = private_zone_upstream.log_since(offset)
    assert "host.corp.home.arpa. A IN" in asked and "printer.home.arpa" not in asked


@pytest.mark.root
def test_with_dnsconfd_they_get_nxdomain_from_unbound_as_validate_says(
        dot_lab, dot_pki, private_zone_upstream, write_ks, tmp_path):
    text = kickstart("dnsconfd", routed_private_servers(dot_lab, private_zone_upstream),
                     dot_pki.ca.pem)
    parsed = parse(write_ks(text))
    line = line_of(text, "domain=")
    assert [(problem.lineno, problem.message[:problem.message.index(": ")])
            for problem in parsed.errors] == [
        (line, "the names in %s never reach %s" % (zone, private_zone_upstream.server_line()))
        for zone in PRIVATE_ZONES]
    assert all(problem.message.endswith("use --backend=unbound, whose Unbound file lifts it "
                                        "for the routed domains") for problem in parsed.errors)
    # What the refused kickstart would give: dnsconfd's Unbound on its keyfile.
    root = tmp_path / "root"
    root.mkdir()
    staging_apply.stage(StagingInput.of(parsed.edns.to_config(), parsed.certificates), "target",
                        str(root))
    offset = private_zone_upstream.log_offset()
    resolver = start_staged_resolver(tmp_path / "resolver", root, "dnsconfd", dot_lab.network)
    try:
        for name, kind in PRIVATE_ANSWERS:
            response = ask(resolver.address, resolver.port, name, kind,
                           network=dot_lab.network)
            assert (response.rcode(), response.answer) == (dns.rcode.NXDOMAIN, [])
    finally:
        resolver.stop()
    assert "home.arpa" not in private_zone_upstream.log_since(offset)
