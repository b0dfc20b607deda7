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

"""`edns-addon check` against hostile DNS-over-TLS servers on the lab's hosts, in the
lab's own network namespace (``lab_network``): whatever a server does, each server gets
one true line, nothing it sends can steer the terminal, and no traceback reaches stderr."""

import re
import socket
from ipaddress import ip_address

import dns.rcode
import pytest

from lab.kickstarts import edns_kickstart
from lab.dotlab import TLS_NAME, lab_host, lab_port
from lab import certs
from org_edns_addon.constants import CHECK_MAX_PARALLEL
from org_edns_addon.model import DotServer, EdnsConfig
from org_edns_addon.probe.check import check_servers
from org_edns_addon.probe.result import Outcome, printable
from tests.conftest import run_cli
from tests.misbehaving_dot import (HostileDotServer, dns_answer, oversized_tls_record,
                                   reset_after_handshake)

# A line an attacker would like to draw over its real failure.
FAKE_OK = "\x1b[2K\r\ndns+tls://127.0.0.2#dot.test: ok, 9 ms"
TERMINAL_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def hostile(tmp_path, lab_network):
    """Factory: ``hostile(certificate, behaviour, **options)`` -> a running HostileDotServer
    on the lab's host 198.51.100.6 in ``lab_network``, stopped at teardown."""
    started = []

    def start(certificate, behaviour=None, **options):
        behaviour = dns_answer(dns.rcode.NOERROR) if behaviour is None else behaviour
        server = HostileDotServer(tmp_path / ("hostile%d" % len(started)), certificate,
                                  behaviour, address=lab_host(6), network=lab_network,
                                  **options)
        started.append(server)
        return server
    yield start
    for server in started:
        server.stop()


def check_one(write_ks, server, ca_pem, *options):
    """`edns-addon check`, in SERVER's network, of a kickstart naming SERVER alone; asserts
    the one-line, no-traceback promise and returns (exit code, the line without its
    server)."""
    line = server.server_line(TLS_NAME)
    result = run_cli("check", write_ks(edns_kickstart(ca_pem, servers=[line], commands="")),
                     "--timeout", "5", *options, prefix=server.network.command([]))
    assert result.stderr == ""
    assert result.stdout.count("\n") == 1 and result.stdout.startswith(line + ": "), \
        result.stdout
    return result.returncode, result.stdout[len(line) + 2:-1]


@pytest.mark.root
def test_a_reset_right_after_the_handshake_is_a_lost_connection(write_ks, dot_pki, hostile):
    server = hostile(certs.make_server(dot_pki.ca, (TLS_NAME,)), reset_after_handshake)
    code, said = check_one(write_ks, server, dot_pki.ca.pem)
    assert server.handshakes >= 1
    assert code == 1
    assert re.fullmatch(r"connection lost: the server (closed|reset) the connection right "
                        r"after the TLS handshake, without answering; see the server's log "
                        r"for why", said), said


@pytest.mark.root
def test_an_unreadable_ip_address_name_is_a_mismatch_that_says_so(write_ks, dot_pki, hostile):
    # A 5-byte iPAddress: cryptography refuses to read the certificate's names at all.
    certificate = certs.make_server(dot_pki.ca, alternative_names_der=(
        certs.subject_alternative_names_der(["other.test"], [b"\x01\x02\x03\x04\x05"])))
    code, said = check_one(write_ks, hostile(certificate), dot_pki.ca.pem)
    assert code == 1
    assert said.startswith("name mismatch: the server's certificate does not name dot.test, "
                           "and its names cannot be read (")
    assert said.endswith("); write a name it has after '#', or give the server a "
                         "certificate for dot.test")


@pytest.mark.root
def test_an_issuer_with_escape_and_line_breaks_is_printed_escaped(write_ks, dot_pki, hostile,
                                                                  unknown_issuer_said):
    evil_ca = certs.make_ca("Evil" + FAKE_OK)
    code, said = check_one(write_ks, hostile(certs.make_server(evil_ca, (TLS_NAME,))),
                           dot_pki.ca.pem)
    assert code == 1
    assert not TERMINAL_CONTROLS.search(said)
    evil = "CN=Evil\\x1b[2K\\r\\ndns\\+tls://127.0.0.2#dot.test: ok\\, 9 ms"
    assert said == ("unknown CA: the server's certificate is not authenticated by a CA of the "
                    "kickstart's --ca bundle: %s" % unknown_issuer_said(evil))


@pytest.mark.root
def test_the_result_the_dbus_module_and_the_text_ui_show_is_escaped_too(dot_pki, hostile):
    evil_ca = certs.make_ca("Evil" + FAKE_OK)
    server = hostile(certs.make_server(evil_ca, (TLS_NAME,)))
    [result] = server.network.run(
        check_servers, EdnsConfig(servers=(DotServer.parse_uri(server.server_line()),)),
        dot_pki.ca.pem.encode("ascii"))
    assert result.outcome is Outcome.UNKNOWN_CA
    assert "CN=Evil\\x1b[2K\\r\\n" in result.reason
    assert not TERMINAL_CONTROLS.search(result.reason)


def test_printable_escapes_every_character_that_could_steer_a_terminal():
    assert printable("a\x00b\x1b[31mc\r\n\x7f\x9b\u202e\u2028\ufeff d\\e") == \
        "a\\x00b\\x1b[31mc\\r\\n\\x7f\\x9b\\u202e\\u2028\\ufeff d\\e"
    assert printable(b"caf\xc3\xa9 \xff") == "caf\u00e9 \\xff"
    assert printable("x" * 250, limit=100) == "x" * 100 + "... (150 more characters)"
    # Escapes count towards the limit: the result stays bounded whatever the input.
    assert len(printable("\x1b" * 10000, limit=100)) < 140


@pytest.mark.root
def test_names_with_control_characters_are_printed_escaped(write_ks, dot_pki, hostile):
    certificate = certs.make_server(dot_pki.ca, dns_names=["a" + FAKE_OK, "b\x07\x7f.test"])
    code, said = check_one(write_ks, hostile(certificate), dot_pki.ca.pem)
    assert code == 1
    assert not TERMINAL_CONTROLS.search(said)
    assert said.startswith("name mismatch: the server's certificate is for a\\x1b[2K\\r\\n"
                           "dns+tls://127.0.0.2#dot.test: ok, 9 ms, b\\x07\\x7f.test, "
                           "not dot.test;")


@pytest.mark.root
def test_a_long_issuer_is_cut_saying_how_much_more_there_was(write_ks, dot_pki, hostile):
    evil_ca = certs.make_ca("Long", organization="L" * 60000)
    code, said = check_one(write_ks, hostile(certs.make_server(evil_ca, (TLS_NAME,))),
                           dot_pki.ca.pem)
    assert code == 1
    # RFC 4514 writes the name's last attribute first: "O=LLL...,CN=Long".
    assert "its issuer 'O=%s... (59910 more characters)'" % ("L" * 98) in said
    # The sentence around it (what to do in chain words) and the name cut to about 100
    # characters: bounded, whatever the 60 000 characters of the name.
    assert len(said) < 500


@pytest.mark.root
def test_ten_thousand_names_list_ten_and_count_the_rest(write_ks, dot_pki, hostile):
    certificate = certs.make_server(dot_pki.ca,
                                    dns_names=["n%d.t" % i for i in range(10000)])
    code, said = check_one(write_ks, hostile(certificate), dot_pki.ca.pem)
    assert code == 1
    assert said.startswith("name mismatch: the server's certificate is for n0.t, n1.t, n2.t, "
                           "n3.t, n4.t, n5.t, n6.t, n7.t, n8.t, n9.t and 9990 more, not "
                           "dot.test;")


@pytest.mark.root
def test_servfail_is_the_server_failing_not_a_refusal(write_ks, dot_pki, hostile):
    server = hostile(certs.make_server(dot_pki.ca, (TLS_NAME,)), dns_answer(dns.rcode.SERVFAIL))
    code, said = check_one(write_ks, server, dot_pki.ca.pem)
    assert code == 1
    assert said == ("DNS error: the server answered SERVFAIL to dot.test A; it is "
                    "authenticated and reachable, but failed to resolve that name itself (its "
                    "own upstream or DNSSEC validation failed); see the server's log, or ask a "
                    "name it can resolve")


@pytest.mark.root
def test_an_oversized_certificate_is_reported_as_oversized(write_ks, dot_pki, hostile):
    # About 300 KB of names: more than the 100 KiB chain OpenSSL's client accepts.
    certificate = certs.make_server(dot_pki.ca, dns_names=[TLS_NAME] + [
        "name%05d.example.test" % i for i in range(12000)])
    code, said = check_one(write_ks, hostile(certificate), dot_pki.ca.pem)
    assert code == 1
    assert said == ("TLS handshake failed: the server's certificate chain is larger than the "
                    "100 KiB a TLS client accepts (EXCESSIVE_MESSAGE_SIZE); a DNS server's "
                    "chain takes a few KiB: check the certificate file the server uses")


@pytest.mark.root
def test_an_oversized_tls_record_is_reported_as_oversized(write_ks, dot_pki, hostile):
    server = hostile(certs.make_server(dot_pki.ca, (TLS_NAME,)), oversized_tls_record)
    code, said = check_one(write_ks, server, dot_pki.ca.pem)
    assert code == 1
    assert re.fullmatch(r"bad answer: the server sent a TLS record longer than TLS allows "
                        r"\([A-Z_]+\); it does not speak TLS correctly", said), said


@pytest.mark.root
def test_the_handshake_and_the_query_are_timed_apart(write_ks, dot_pki, hostile):
    server = hostile(certs.make_server(dot_pki.ca, (TLS_NAME,)),
                     dns_answer(dns.rcode.NOERROR, delay=0.1), handshake_delay=0.6)
    code, said = check_one(write_ks, server, dot_pki.ca.pem)
    assert code == 0, said
    match = re.fullmatch(r"ok, ([\d.]+) ms \(TCP and TLS handshakes ([\d.]+) ms, query "
                         r"([\d.]+) ms; dot\.test A: NOERROR, 0 records\)", said)
    assert match, said
    total, handshake, query = map(float, match.groups())
    assert handshake >= 600 and query >= 100
    # The handshake's wait is not counted in the query.
    assert query < 600
    assert abs(total - handshake - query) < 0.2


@pytest.fixture
def silent_listener(lab_network):
    """A port of the lab's host 198.51.100.7 in ``lab_network`` whose connections the
    kernel accepts (a deep backlog) and nobody ever serves: every client waits for a TLS
    handshake that never comes."""
    with lab_network.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((lab_host(7), lab_port(lab_host(7), lab_network)))
        listener.listen(4096)
        yield listener.getsockname()[1]


def check_many(write_ks, dot_pki, network, port, count, nofile):
    lines = [DotServer(ip_address(lab_host(7)), port, "s%d.test" % index).uri()
             for index in range(count)]
    result = run_cli("check", write_ks(edns_kickstart(dot_pki.ca.pem, servers=lines, commands="")),
                     "--timeout", "1",
                     prefix=network.command(["prlimit", "--nofile=%d" % nofile, "--"]))
    printed = result.stdout.splitlines()
    assert result.returncode == 1
    assert result.stderr == ""
    assert len(printed) == count
    for line, server in zip(printed, lines):
        assert line.startswith(server + ": ")
    return [line.split(": ", 1)[1] for line in printed]


@pytest.mark.root
def test_1100_servers_under_1024_descriptors_get_1100_results(write_ks, dot_pki, lab_network,
                                                              silent_listener):
    said = check_many(write_ks, dot_pki, lab_network, silent_listener, 1100, nofile=1024)
    # Each its own true reason: none given up ("no result"), none out of descriptors.
    assert set(said) == {"timeout: the port accepts connections but no TLS handshake "
                         "completed within 1 s; is it a DNS over TLS server?"}


@pytest.mark.root
def test_running_out_of_descriptors_is_not_checked_not_the_servers_fault(
        write_ks, dot_pki, lab_network, silent_listener):
    said = check_many(write_ks, dot_pki, lab_network, silent_listener, 100, nofile=40)
    refused = [line for line in said if line.startswith("not checked: ")]
    assert refused and len(refused) < len(said)
    assert set(refused) == {
        "not checked: this process cannot open a socket: Too many open files (its limit is "
        "40 open files); check fewer servers at once, or raise the limit (ulimit -n)"}
    assert all(line.startswith(("timeout: ", "not checked: ")) for line in said)


@pytest.mark.root
def test_a_check_bounded_by_within_says_which_servers_it_never_began(dot_pki, lab_network,
                                                                     silent_listener):
    # More servers than are checked at once, each given 30 s, the whole check 1 s: those
    # begun wait for their handshake until the bound (and say so), the rest never begin.
    servers = tuple(DotServer.parse_uri("dns+tls://%s:%d#s%d.test" % (lab_host(7),
                                                                       silent_listener, index))
                    for index in range(CHECK_MAX_PARALLEL + 3))
    results = lab_network.run(check_servers, EdnsConfig(servers=servers),
                              dot_pki.ca.pem.encode("ascii"), timeout=30, within=1)
    assert [result.server for result in results] == list(servers)
    # The servers begun come first: all CHECK_MAX_PARALLEL of them on an idle machine, fewer
    # where starting them took longer than the bound (a loaded one); those beyond
    # CHECK_MAX_PARALLEL never begin, since the begun ones hold their sockets to the bound.
    begun = [result for result in results if result.outcome != Outcome.NOT_CHECKED]
    assert 0 < len(begun) <= CHECK_MAX_PARALLEL and results[:len(begun)] == begun
    # Each says the time it had: the bound, less the moment its connection started after
    # the check's (0.9 s for one begun a tenth of a second late).
    for result in begun:
        assert re.fullmatch(r"timeout: the port accepts connections but no TLS handshake "
                            r"completed within (1|0|0\.\d) s; is it a DNS over TLS server\?",
                            result.describe().split(": ", 1)[1]), result.describe()
    assert {result.reason for result in results[len(begun):]} == {
        "the 1 s given to the whole check ran out before this server's turn came (%d servers "
        "are checked at once); check fewer servers, or allow more time" % CHECK_MAX_PARALLEL}
    assert {result.outcome for result in results[len(begun):]} == {Outcome.NOT_CHECKED}
