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

"""End to end: a kickstart staged with the installer's code makes names resolve over
DNS over TLS, authenticated by the kickstart's CA, and fail closed otherwise.

Each test writes a kickstart naming the lab's DoT upstreams (``dot_lab``: a
private network namespace with only loopback, where the lab's hosts are local,
upstreams on two of them on port 853), stages it
into a fresh root with ``staging_apply.stage`` (phase target), and runs the local
resolver as the installed system would: Unbound on the staged files, with the
staged /etc over /etc (``lab/dotlab.py``: ``start_staged_resolver``). The
unbound backend runs on the generated /etc/unbound/conf.d file itself and
listens on 127.0.0.55:53; the dnsconfd backend runs on the forwarding dnsconfd
makes of the generated NetworkManager keyfile and listens on 127.0.0.1:53.
"""

import socket
from pathlib import Path

import dns.message
import dns.name
import dns.rcode
import pytest

from lab.kickstarts import CA_FILENAME, edns_kickstart
from lab.dotlab import (ANSWER_ADDRESS, ANSWER_NAME, LoopbackCapture, ask,
                        dnsconfd_unbound_config, resolve_with_libc)
from org_edns_addon import constants as c
from org_edns_addon.staging import networkmanager
from org_edns_addon.ks.edns import parse_server_line
from org_edns_addon.model import Backend, EdnsConfig
from org_edns_addon.trust import DotTrust, StagingInput
from tests.dot_fixtures import ROUTED_ANSWER_ADDRESS, ROUTED_ANSWER_NAME, ROUTED_ZONE

BACKENDS = [backend.value for backend in Backend]
VERIFY_FAILED = "certificate verify failed"


def kickstart(backend, server_lines, ca_pem):
    return edns_kickstart(ca_pem, "--ca=%s --backend=%s" % (CA_FILENAME, backend), server_lines,
                          commands="")


def addresses(response):
    return [rdata.address for rrset in response.answer for rdata in rrset]


def ask_resolver(lab, resolver, name):
    return ask(resolver.address, resolver.port, name, network=lab.network)


@pytest.mark.root
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_test_name_resolves_through_the_local_resolver(backend, dot_lab, dot_pki,
                                                           staged_resolver):
    offset = dot_lab.upstream.log_offset()
    resolver, _ = staged_resolver(kickstart(backend, [dot_lab.upstream.server_line()],
                                            dot_pki.ca.pem))
    response = ask_resolver(dot_lab, resolver, ANSWER_NAME)
    assert response.rcode() == dns.rcode.NOERROR
    assert addresses(response) == [ANSWER_ADDRESS]
    assert "%s. A IN" % ANSWER_NAME in dot_lab.upstream.log_since(offset)


@pytest.mark.root
def test_unbound_backend_listens_where_the_staged_resolv_conf_points(dot_lab, dot_pki,
                                                                      staged_resolver):
    host_resolv_conf = Path(c.RESOLV_CONF_PATH).read_bytes()
    resolver, root = staged_resolver(kickstart("unbound", [dot_lab.upstream.server_line()],
                                               dot_pki.ca.pem))
    staged = Path(root, c.RESOLV_CONF_PATH.lstrip("/")).read_text().splitlines()
    assert "nameserver 127.0.0.55" in staged
    assert (resolver.address, resolver.port) == ("127.0.0.55", 53)
    # A program of the installed system: the C library reads the staged resolv.conf.
    looked_up = resolve_with_libc(resolver, ANSWER_NAME)
    assert looked_up.returncode == 0, looked_up.stderr
    assert looked_up.stdout.split() == [ANSWER_ADDRESS, ANSWER_NAME]
    assert Path(c.RESOLV_CONF_PATH).read_bytes() == host_resolv_conf
    assert not Path(c.UNBOUND_CONF_PATH).exists()


@pytest.mark.root
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("wrong", ["unrelated CA", "wrong TLS name"])
def test_resolution_fails_closed_when_the_upstream_is_not_authenticated(
        backend, wrong, dot_lab, dot_pki, staged_resolver):
    ca_pem = dot_pki.other_ca.pem if wrong == "unrelated CA" else dot_pki.ca.pem
    tls_name = "wrong.test" if wrong == "wrong TLS name" else None
    name = "closed-%s-%s.zone.test" % (backend, wrong.split()[0])
    offset = dot_lab.upstream.log_offset()
    resolver, _ = staged_resolver(kickstart(backend, [dot_lab.upstream.server_line(tls_name)],
                                            ca_pem))
    response = ask_resolver(dot_lab, resolver, name)
    assert response.rcode() == dns.rcode.SERVFAIL
    assert not response.answer
    assert VERIFY_FAILED in resolver.log()
    assert name not in dot_lab.upstream.log_since(offset)


@pytest.mark.root
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_routed_domain_goes_to_its_own_upstream_and_the_rest_to_the_others(
        backend, dot_lab, dot_pki, staged_resolver):
    main, routed = dot_lab.upstream, dot_lab.routed_upstream
    offsets = main.log_offset(), routed.log_offset()
    resolver, _ = staged_resolver(kickstart(backend, [
        main.server_line(), routed.server_line() + " domain=" + ROUTED_ZONE], dot_pki.ca.pem))
    assert addresses(ask_resolver(dot_lab, resolver, ANSWER_NAME)) == [ANSWER_ADDRESS]
    assert addresses(ask_resolver(dot_lab, resolver, ROUTED_ANSWER_NAME)) == \
        [ROUTED_ANSWER_ADDRESS]
    main_log, routed_log = main.log_since(offsets[0]), routed.log_since(offsets[1])
    assert ANSWER_NAME in main_log and ROUTED_ZONE not in main_log
    assert ROUTED_ANSWER_NAME in routed_log and ANSWER_NAME not in routed_log


@pytest.mark.root
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_upstream_gets_the_query_encrypted_on_its_tls_port_only(backend, dot_lab,
                                                                   dot_pki, staged_resolver):
    upstream = dot_lab.upstream
    resolver, _ = staged_resolver(kickstart(backend, [upstream.server_line()], dot_pki.ca.pem))
    capture = LoopbackCapture(dot_lab.network)
    try:
        response = ask_resolver(dot_lab, resolver, ANSWER_NAME)
        packets = capture.packets()
    finally:
        capture.close()
    assert addresses(response) == [ANSWER_ADDRESS]
    query_name = dns.name.from_text(ANSWER_NAME).to_wire()
    to_resolver = [p for p in packets if p.involves(resolver.address, c.PLAIN_DNS_PORT)]
    to_upstream = [p for p in packets if p.involves(upstream.address)]
    # The name is on the wire in clear to the local resolver, so the search below can find it.
    assert any(query_name in p.data for p in to_resolver)
    assert to_upstream
    assert all(p.protocol == "tcp" and p.involves(upstream.address, c.DOT_PORT)
               for p in to_upstream), [(p.protocol, p.source, p.destination) for p in to_upstream]
    assert not any(query_name in p.data for p in to_upstream)


@pytest.mark.root
def test_the_upstreams_plaintext_port_is_not_even_open(dot_lab):
    address = (dot_lab.upstream.address, c.PLAIN_DNS_PORT)
    with dot_lab.network.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
        with pytest.raises(ConnectionRefusedError):
            tcp.connect(address)
    with dot_lab.network.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.settimeout(5)
        udp.connect(address)
        udp.send(dns.message.make_query(ANSWER_NAME, "A").to_wire())
        with pytest.raises(ConnectionRefusedError):
            udp.recv(512)


def test_dnsconfd_translation_of_a_routed_keyfile(tmp_path):
    config = EdnsConfig(servers=(
        parse_server_line("dns+tls://192.0.2.53#dot.corp.example"),
        parse_server_line("dns+tls://[2001:db8::53]:8853#dot.corp.example"),
        parse_server_line("dns+tls://198.51.100.60#dot.lab.example domain=lab.example")),
        ca_names=("ca.pem",))
    keyfile = networkmanager.nm_keyfile(StagingInput(
        config, (), DotTrust(c.DOT_CA_BUNDLE_PATH, b"bundle")))
    assert dnsconfd_unbound_config(keyfile.decode(), tmp_path).splitlines() == [
        "server:",
        "  interface: 127.0.0.1",
        "  do-not-query-address: 127.0.0.1/8",
        "  tls-cert-bundle: " + c.DOT_CA_BUNDLE_PATH,
        "forward-zone:",
        '  name: "."',
        "  forward-addr: 192.0.2.53@853#dot.corp.example",
        "  forward-addr: 2001:db8::53@8853#dot.corp.example",
        "  forward-tls-upstream: yes",
        "forward-zone:",
        '  name: "lab.example"',
        "  forward-addr: 198.51.100.60@853#dot.lab.example",
        "  forward-tls-upstream: yes",
    ]
