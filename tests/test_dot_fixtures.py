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

"""The DoT test parts themselves: the upstream speaks TLS only, and a forwarder
resolves through it only when the CA and the TLS name are right; both on the lab's hosts,
in the lab's own network namespace."""

import subprocess

import dns.exception
import dns.message
import dns.query
import dns.rcode
import pytest

from lab.dotlab import (ANSWER_ADDRESS, ANSWER_NAME, TLS_NAME, ask, forward_zone_config,
                        start_forwarder)


def kdig(upstream, ca_path, tls_name, name):
    """kdig, in UPSTREAM's network, asking UPSTREAM over TLS."""
    return subprocess.run(upstream.network.command([
        "kdig", "@%s" % upstream.address, "-p", str(upstream.port), "+tls-ca=%s" % ca_path,
        "+tls-hostname=%s" % tls_name, "+timeout=5", "+retry=0", "+short", name, "A"]),
        capture_output=True, text=True, timeout=30)


@pytest.mark.root
def test_upstream_answers_over_tls_with_its_ca_and_name(dot_upstream, dot_pki):
    result = kdig(dot_upstream, dot_pki.ca_path, TLS_NAME, ANSWER_NAME)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [ANSWER_ADDRESS]


@pytest.mark.root
@pytest.mark.parametrize("ca, tls_name", [("other_ca_path", TLS_NAME),
                                          ("ca_path", "wrong.test")])
def test_kdig_refuses_the_upstream_with_another_ca_or_name(dot_upstream, dot_pki, ca,
                                                           tls_name):
    result = kdig(dot_upstream, getattr(dot_pki, ca), tls_name, ANSWER_NAME)
    assert result.returncode != 0
    assert "handshake failed" in result.stderr
    assert ANSWER_ADDRESS not in result.stdout


@pytest.mark.root
def test_upstream_does_not_answer_plain_dns(dot_upstream):
    query = dns.message.make_query(ANSWER_NAME, "A")
    inside = dot_upstream.network.run
    with pytest.raises((OSError, EOFError, dns.exception.DNSException)):
        inside(dns.query.tcp, query, dot_upstream.address, port=dot_upstream.port, timeout=2)
    with pytest.raises(dns.exception.Timeout):
        inside(dns.query.udp, query, dot_upstream.address, port=dot_upstream.port, timeout=1)


def forwarder_to(unbound_forwarder, upstream, ca_path, tls_name=TLS_NAME):
    return unbound_forwarder(forward_zone_config(
        ca_path, [(upstream.address, upstream.port, tls_name)]))


@pytest.mark.root
def test_forwarder_resolves_through_the_upstream_over_tls(unbound_forwarder, dot_upstream,
                                                          dot_pki):
    forwarder = forwarder_to(unbound_forwarder, dot_upstream, dot_pki.ca_path)
    response = ask(forwarder.address, forwarder.port, "forwarded." + ANSWER_NAME,
                   network=forwarder.network)
    assert response.rcode() == dns.rcode.NXDOMAIN
    response = ask(forwarder.address, forwarder.port, ANSWER_NAME, network=forwarder.network)
    assert response.rcode() == dns.rcode.NOERROR
    assert [rdata.address for rrset in response.answer for rdata in rrset] == [ANSWER_ADDRESS]
    assert "forwarded.%s. A IN" % ANSWER_NAME in dot_upstream.log()


@pytest.mark.root
@pytest.mark.parametrize("ca, tls_name", [("other_ca_path", TLS_NAME),
                                          ("ca_path", "wrong.test")])
def test_forwarder_fails_closed_with_another_ca_or_name(unbound_forwarder, dot_upstream,
                                                        dot_pki, ca, tls_name):
    forwarder = forwarder_to(unbound_forwarder, dot_upstream, getattr(dot_pki, ca), tls_name)
    name = "refused-%s.%s" % (tls_name.split(".")[0], ANSWER_NAME)
    response = ask(forwarder.address, forwarder.port, name, network=forwarder.network)
    assert response.rcode() == dns.rcode.SERVFAIL
    assert not response.answer
    assert "certificate verify failed" in forwarder.log()
    assert name not in dot_upstream.log()


def test_a_forwarder_that_cannot_start_raises_with_unbounds_words(tmp_path):
    with pytest.raises(RuntimeError, match="(?s)unbound exited.*unknown keyword .no-such-option."):
        start_forwarder(tmp_path, "server:\n  no-such-option: yes\n", "127.0.0.10")


@pytest.mark.root
def test_stop_ends_the_unbound_process(tmp_path, dot_upstream, dot_pki):
    forwarder = start_forwarder(tmp_path, forward_zone_config(
        dot_pki.ca_path, [(dot_upstream.address, dot_upstream.port, TLS_NAME)]), "127.0.0.10",
        network=dot_upstream.network)
    forwarder.stop()
    assert forwarder.process.returncode is not None
    with pytest.raises(dns.exception.Timeout):
        ask(forwarder.address, forwarder.port, ANSWER_NAME, timeout=1, network=forwarder.network)
