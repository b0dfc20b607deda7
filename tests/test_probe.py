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

"""`edns-addon check KICKSTART`: one line per server, for every outcome, against
real Unbound DoT upstreams on the lab's hosts, with the check run in the lab's own
network namespace (``lab_network``)."""

import re
import socket
import threading
import time

import pytest

from lab.kickstarts import (CA_DIRECTORY_OPTION, CA_FILENAME, anchor_options, anchor_section,
                            certificate_section, edns_kickstart)
from lab.bus import wait_for
from lab import certs
from lab.dotlab import (CLOSED_LAB_HOST, REFUSED_ZONE, TLS_NAME, WITHOUT_INTERNET,
                        forward_zone_config, lab_host, lab_port, start_dot_upstream)
from org_edns_addon import constants as c
from org_edns_addon.probe.check import check_staging_input
from org_edns_addon.probe.result import Outcome
from tests.conftest import run_cli
from tests.ks_fixtures import parse


class SilentPort(int):
    """A port of the lab's host 198.51.100.4 (the int itself) that accepts TCP
    connections and never sends a byte; ``held`` is, for each connection the peer has
    closed, how long it stayed open (seconds): how long a check waited, whatever the time
    its process took to start."""
    held = ()


def _port(port):
    """":PORT" as a server line names it, or nothing for DoT's own port."""
    return "" if port == c.DOT_PORT else ":%d" % port


@pytest.fixture
def silent_port(lab_network):
    listener = lab_network.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((lab_host(4), lab_port(lab_host(4), lab_network)))
    listener.listen()
    port = SilentPort(listener.getsockname()[1])
    port.held = []
    connections = []
    stop = threading.Event()

    def hold(connection):
        accepted = time.monotonic()
        connection.settimeout(None)
        try:
            while connection.recv(4096):
                pass
        except OSError:
            return
        port.held.append(time.monotonic() - accepted)

    def accept():
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                connection = listener.accept()[0]
            except OSError:
                continue
            connections.append(connection)
            threading.Thread(target=hold, args=(connection,), daemon=True).start()
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield port
    stop.set()
    thread.join()
    for connection in connections:
        connection.close()
    listener.close()


@pytest.fixture
def check(write_ks, lab_network):
    """Factory: ``check(server_lines, ca_pem, *options, header_options=…,
    certificate_options=…)``, `edns-addon check` run in ``lab_network`` of a kickstart
    holding only CA_PEM (as %certificate dns-ca.pem with CERTIFICATE_OPTIONS) and
    SERVER_LINES under HEADER_OPTIONS."""
    def run(server_lines, ca_pem, *options, header_options="--ca=" + CA_FILENAME,
            certificate_options=CA_DIRECTORY_OPTION):
        text = edns_kickstart(ca_pem, header_options, server_lines, commands="",
                              certificates=(certificate_section(ca_pem,
                                                                options=certificate_options)))
        return run_cli("check", write_ks(text), *options, prefix=lab_network.command([]))
    return run


@pytest.mark.root
def test_a_good_server_is_ok_with_its_handshake_and_query_times(check, dot_upstream, dot_pki):
    result = check([dot_upstream.server_line()], dot_pki.ca.pem)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.fullmatch(r"%s: ok, [\d.]+ ms \(TCP and TLS handshakes [\d.]+ ms, query [\d.]+ "
                        r"ms; dot\.test A: NOERROR, 1 record\)\n"
                        % re.escape(dot_upstream.server_line()), result.stdout)


@pytest.mark.root
def test_name_option_is_the_name_asked(check, dot_upstream, dot_pki):
    result = check([dot_upstream.server_line()], dot_pki.ca.pem,
                   "--name", "Name-Option.zone.test.")
    assert result.returncode == 0, result.stdout
    assert "; name-option.zone.test A: NXDOMAIN, 0 records)" in result.stdout
    assert "name-option.zone.test. A IN" in dot_upstream.log()


@pytest.mark.root
def test_a_routed_server_is_asked_for_its_domain(check, dot_upstream, dot_pki):
    # (A routed domain in test., which Unbound answers itself: the unbound backend opens it,
    # dnsconfd cannot.)
    result = check([dot_upstream.server_line(),
                    dot_upstream.server_line("resolver.test") + " domain=routed.zone.test"],
                   dot_pki.ca.pem, header_options="--ca=%s --backend=unbound" % CA_FILENAME)
    assert result.returncode == 0, result.stdout
    assert "; routed.zone.test A: NXDOMAIN, 0 records)" in result.stdout.splitlines()[1]


@pytest.mark.root
def test_a_refused_query_is_a_dns_error(check, dot_upstream, dot_pki):
    name = "www." + REFUSED_ZONE
    result = check([dot_upstream.server_line()], dot_pki.ca.pem, "--name", name)
    assert result.returncode == 1
    assert result.stdout == (
        "%s: DNS error: the server answered REFUSED to %s A; it is authenticated, but does "
        "not resolve that name for this client; ask a name it serves\n"
        % (dot_upstream.server_line(), name))


@pytest.mark.root
def test_a_certificate_from_another_ca_is_an_unknown_ca(check, dot_upstream, dot_pki,
                                                         unknown_issuer_said):
    result = check([dot_upstream.server_line()], dot_pki.other_ca.pem)
    assert result.returncode == 1
    assert result.stdout == (
        "%s: unknown CA: the server's certificate is not authenticated by a CA of the "
        "kickstart's --ca bundle: %s\n"
        % (dot_upstream.server_line(), unknown_issuer_said("CN=Test DNS CA")))


# --- a company's two-tier PKI: what a refusal says, in chain words --------------------

@pytest.mark.root
def test_the_root_alone_authenticates_a_server_that_sends_its_intermediate(
        check, two_tier_upstream, chain_pki):
    result = check([two_tier_upstream.server_line()], chain_pki.bundle("root"))
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith(two_tier_upstream.server_line() + ": ok, ")


@pytest.mark.root
@pytest.mark.parametrize("upstream, forms, reason", [
    # The server sends its certificate alone: the intermediate is neither in the bundle
    # nor sent (said as this Python can say it, unknown_issuer_said).
    ("leaf_only_upstream", ("root",), None),
    # validate warns (another root authenticates); the check names the root CA missing
    # above the intermediate, which OpenSSL takes from the bundle and never from the server.
    # (The intermediate issued the server's certificate: no need of what the server sent.)
    ("two_tier_upstream", ("intermediate", "other root"),
     "it chains to the intermediate CA 'CN=Corp Issuing CA' of the kickstart's "
     "certificates, but 'CN=Corp Root CA', the CA that issued the end of that chain, is not "
     "there, and OpenSSL (Unbound) accepts no chain that ends below a root CA; add the root "
     "CA 'CN=Corp Root CA' to the bundle"),
    # Loaded as Unbound loads its tls-cert-bundle: the TRUSTED CERTIFICATE keeps its trust
    # settings (Python's cadata would have read the certificate alone, and said ok). The
    # root is reached through what the server sent, which Python before 3.10 cannot tell.
    ("two_tier_upstream", ("root -addreject serverAuth", "other root"),
     "it chains to 'CN=Corp Root CA' of the kickstart's certificates, and its chain ends at "
     "'CN=Corp Root CA', which cannot end it: its trust settings exclude server "
     "authentication"),
], ids=["the server sends no intermediate", "an intermediate without its root",
        "trust settings that reject serverAuth"])
def test_a_refusal_names_what_the_bundle_lacks_never_a_ca_it_holds(
        request, check, chain_pki, unknown_issuer_said, upstream, forms, reason):
    server = request.getfixturevalue(upstream)
    if reason is None or (not unknown_issuer_said.shows_chain and "root" in forms[0]):
        reason = unknown_issuer_said("CN=Corp Issuing CA")
    result = check([server.server_line()], chain_pki.bundle(*forms))
    assert (result.returncode, result.stdout) == (1, (
        "%s: unknown CA: the server's certificate is not authenticated by a CA of the "
        "kickstart's --ca bundle: %s\n" % (server.server_line(), reason)))


# --- a server named by its address ------------------------------------------------------

@pytest.fixture(scope="module")
def address_named_upstream(tmp_path_factory, dot_pki, lab_network):
    """An internal resolver without the Internet (it answers SERVFAIL for every name it
    does not serve), with a certificate for its address alone, on 198.51.100.14."""
    directory = tmp_path_factory.mktemp("address-named")
    address = lab_host(14)
    certificate = certs.make_server(dot_pki.ca, dns_names=(), ip_addresses=(address,))
    cert_path, key_path = certificate.write(directory, "server")
    upstream = start_dot_upstream(directory, address, cert_path, key_path, network=lab_network,
                                  settings=WITHOUT_INTERNET)
    yield upstream
    upstream.stop()


@pytest.mark.root
def test_a_server_named_by_its_address_is_asked_a_name_every_resolver_answers(
        check, address_named_upstream, dot_pki):
    line = address_named_upstream.server_line(address_named_upstream.address)
    result = check([line], dot_pki.ca.pem)
    assert result.returncode == 0, result.stdout
    assert re.fullmatch(r"%s: ok, [\d.]+ ms \(TCP and TLS handshakes [\d.]+ ms, query [\d.]+ "
                        r"ms; localhost A: NOERROR, 1 record\)\n" % re.escape(line),
                        result.stdout)
    # What was asked before: the address as a name, which this resolver cannot look up.
    asked = check([line], dot_pki.ca.pem, "--name", address_named_upstream.address)
    assert asked.returncode == 1
    assert asked.stdout == ("%s: DNS error: the server answered SERVFAIL to %s A; it is "
                            "authenticated and reachable, but failed to resolve that name "
                            "itself (its own upstream or DNSSEC validation failed); see the "
                            "server's log, or ask a name it can resolve\n"
                            % (line, address_named_upstream.address))


@pytest.mark.root
def test_without_ca_option_the_system_store_does_not_know_the_test_ca(check, dot_upstream, dot_pki):
    result = check([dot_upstream.server_line()], dot_pki.ca.pem, header_options="")
    assert result.returncode == 1
    assert "unknown CA: " in result.stdout
    assert "not signed by a CA the system trusts (or a %certificate --type=anchor)" \
        in result.stdout


@pytest.mark.root
def test_without_ca_option_an_anchor_certificate_is_trusted(check, dot_upstream, dot_pki):
    result = check([dot_upstream.server_line()], dot_pki.ca.pem, header_options="",
                   certificate_options=anchor_options())
    assert result.returncode == 0, result.stdout
    assert ": ok, " in result.stdout


@pytest.mark.root
def test_without_ca_option_every_anchor_certificate_is_trusted(write_ks, dot_upstream, dot_pki,
                                                               lab_network):
    # Kickstart bodies end without a newline; the anchors must still form one bundle.
    other_anchor = anchor_section(dot_pki.other_ca.pem, "other-root.pem")
    result = run_cli("check", write_ks(other_anchor + edns_kickstart(
        dot_pki.ca.pem, "", [dot_upstream.server_line()], commands="",
        certificates=anchor_section(dot_pki.ca.pem, CA_FILENAME))),
        prefix=lab_network.command([]))
    assert result.returncode == 0, result.stdout + result.stderr
    assert ": ok, " in result.stdout


@pytest.mark.root
def test_a_wrong_tls_name_is_a_name_mismatch_listing_the_certificate_names(check, dot_upstream,
                                                                           dot_pki):
    result = check([dot_upstream.server_line("wrong.test")], dot_pki.ca.pem)
    assert result.returncode == 1
    assert result.stdout == (
        "%s: name mismatch: the server's certificate is for dot.test, resolver.test, not "
        "wrong.test; write a name it has after '#', or give the server a certificate for "
        "wrong.test\n" % dot_upstream.server_line("wrong.test"))


@pytest.mark.root
def test_an_expired_server_certificate_says_when_it_expired(check, expired_upstream, dot_pki):
    expired_on = dot_pki.expired_server.not_after.strftime("%Y-%m-%d %H:%M")
    result = check([expired_upstream.server_line()], dot_pki.ca.pem)
    assert result.returncode == 1
    assert result.stdout == (
        "%s: certificate expired: the server's certificate expired on %s UTC; renew it on the "
        "server\n" % (expired_upstream.server_line(), expired_on))


@pytest.mark.root
def test_a_closed_port_is_connection_refused(check, dot_pki):
    line = "dns+tls://%s#%s" % (lab_host(CLOSED_LAB_HOST), TLS_NAME)
    result = check([line], dot_pki.ca.pem)
    assert result.returncode == 1
    assert result.stdout == ("%s: connection refused: nothing accepts connections on this "
                             "address and port; check both\n" % line)


@pytest.mark.root
def test_a_port_that_never_answers_times_out_within_the_timeout(check, dot_pki, silent_port):
    line = "dns+tls://%s%s#%s" % (lab_host(4), _port(silent_port), TLS_NAME)
    result = check([line], dot_pki.ca.pem, "--timeout", "1")
    assert result.returncode == 1
    assert result.stdout == ("%s: timeout: the port accepts connections but no TLS "
                             "handshake completed within 1 s; is it a DNS over TLS server?\n"
                             % line)
    # The connection, timed where it is accepted (not the process, whose start a loaded
    # machine slows): closed after about the 1 s asked, well before the default 5 s.
    wait_for(lambda: silent_port.held, what="the check to close its connection")
    [held] = silent_port.held
    assert held < 4, held


@pytest.mark.root
def test_every_server_gets_its_line_in_kickstart_order(check, dot_upstream, dot_pki, silent_port):
    lines = ["dns+tls://%s%s#%s" % (lab_host(4), _port(silent_port), TLS_NAME),
             dot_upstream.server_line(),
             "dns+tls://%s#%s" % (lab_host(CLOSED_LAB_HOST), TLS_NAME)]
    result = check(lines, dot_pki.ca.pem, "--timeout", "1")
    assert result.returncode == 1
    printed = result.stdout.splitlines()
    assert len(printed) == 3
    for line, server, outcome in zip(printed, lines, ["timeout:", "ok,", "connection refused:"]):
        assert line.startswith("%s: %s " % (server, outcome))


@pytest.mark.root
def test_a_plaintext_backup_server_is_asked_over_udp(check, dot_upstream, dot_pki,
                                                     unbound_forwarder):
    forwarder = unbound_forwarder(forward_zone_config(
        dot_pki.ca_path, [(dot_upstream.address, dot_upstream.port, TLS_NAME)]), lab_host(10))
    plain = "dns+udp://%s%s" % (forwarder.address, "" if forwarder.port == c.PLAIN_DNS_PORT
                                else ":%d" % forwarder.port)
    result = check([dot_upstream.server_line(), plain], dot_pki.ca.pem,
                   "--name", "www.zone.test",
                   header_options="--ca=dns-ca.pem --resolve-mode=backup")
    assert result.returncode == 0, result.stdout
    assert re.search(r"^%s: ok, [\d.]+ ms \(www\.zone\.test A: NOERROR, 1 record\)$"
                     % re.escape(plain), result.stdout, re.MULTILINE)


def test_a_kickstart_with_errors_is_not_checked(write_ks, dot_pki):
    path = write_ks(edns_kickstart(dot_pki.ca.pem, servers=["dns+tls://192.0.2.53:853"],
                                   commands=""))
    result = run_cli("check", path)
    assert result.returncode == 1
    assert "error: the DoT server dns+tls://192.0.2.53 has no TLS name" in result.stderr
    assert result.stderr.endswith("%s: not checked: %s has errors; fix them first\n"
                                  % (path, path))
    assert result.stdout == ""


def test_a_kickstart_without_the_section_is_not_checked(write_ks):
    path = write_ks("text\n")
    result = run_cli("check", path)
    assert result.returncode == 1
    assert result.stderr.endswith("%s: not checked: %s has no %%addon org_edns_addon section; "
                                  "nothing to apply\n" % (path, path))


@pytest.mark.parametrize("option", [["--timeout", "0"], ["--timeout", "soon"],
                                    ["--name", "bad name"], ["--name", "a..b"]])
def test_bad_options_are_usage_errors(write_ks, dot_pki, option):
    text = edns_kickstart(dot_pki.ca.pem, servers=["192.0.2.53#dot.test"], commands="")
    result = run_cli("check", write_ks(text), *option)
    assert result.returncode == 2
    assert "error: argument %s" % option[0] in result.stderr


@pytest.mark.root
def test_the_library_reports_outcome_and_round_trip_per_server(write_ks, dot_upstream, dot_pki,
                                                               lab_network):
    parsed = parse(write_ks(edns_kickstart(dot_pki.ca.pem, servers=[
        dot_upstream.server_line(), dot_upstream.server_line("wrong.test")], commands="")))
    good, wrong = lab_network.run(check_staging_input, parsed.staging_input(), timeout=5)
    assert (good.ok, good.outcome, good.server.name) == (True, Outcome.OK, TLS_NAME)
    assert 0 < good.rtt_ms < 5000
    assert (wrong.ok, wrong.outcome, wrong.rtt_ms) == (False, Outcome.NAME_MISMATCH, None)
    assert wrong.describe().startswith(dot_upstream.server_line("wrong.test") +
                                       ": name mismatch: ")
