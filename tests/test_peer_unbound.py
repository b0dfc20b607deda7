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

"""Unbound's own rules for the servers it forwards to, and what we make of each.

With ``--backend=unbound`` our file is Unbound's configuration; with dnsconfd,
dnsconfd writes one for Unbound from the same servers. The rows come from
Unbound's sources; an accepted row gives the ``forward-addr:`` we write for the
server's zone. Unbound itself (Debian's 1.17) then proves the rows that matter
on a real process: unbound-checkconf reads every accepted row's file without
an error, and a running forwarder shows what it does with the addresses it
never queries.
"""

import pytest

from lab.kickstarts import edns_section
from lab import dotlab
from lab import certs
from org_edns_addon import constants as c
from org_edns_addon.model import Backend, DotServer, EdnsConfig
from org_edns_addon.trust import StagingInput
from org_edns_addon.staging.unbound import unbound_conf
from org_edns_addon.trust import DotTrust
from tests.peer_fixtures import Row, judged_where_ports_pass, unbound_forward_addrs
from tests.staging_fixtures import require_tools, unbound_checkconf
from tests.ks_fixtures import parse

DONOTQ = "unbound iterator/iter_donotq.c donotq_apply_cfg"
LOCAL_ZONES = "unbound services/localzone.c local_zone_enter_defaults"
CHECKCONF = "unbound smallapp/unbound-checkconf.c donotquerylocalhostcheck"
AUTH_NAME = "unbound util/net_help.c authextstrtoaddr, set_auth_name_on_ssl"
UNBOUND = "--backend=unbound"
NAME = "#dot.corp.example"
DEFAULT = "unbound util/config_file.c config_create (donotquery_localhost = 1)"
EXAMPLE = "unbound doc/example.conf.in do-not-query-localhost"
NEVER_QUERIED = "Unbound never queries the loopback server"
NO_DNS = ("%s would have no DNS: the only server for them, %s, is on loopback, which Unbound "
          "never queries while 'do-not-query-localhost' is yes, its default")
USABLE = "dns+tls://192.0.2.53" + NAME

ROWS = [
    # do-not-query-localhost: yes (the default: config_create, and example.conf's
    # "# do-not-query-localhost: yes") puts 127.0.0.0/8 and ::1 on the do-not-query list:
    # Unbound accepts the forward-addr and never uses it. Alone in its forward zone, that
    # zone gets no answer at all (SERVFAIL: test_a_running_unbound_... below): refused.
    Row(DONOTQ, "dns+tls://127.0.0.1" + NAME, UNBOUND,
        refuses=NO_DNS % ("all names", "dns+tls://127.0.0.1" + NAME)),
    Row(DONOTQ, "dns+tls://127.1.2.3:8853" + NAME, UNBOUND,
        refuses=NO_DNS % ("all names", "dns+tls://127.1.2.3:8853" + NAME)),
    Row(DEFAULT, "dns+tls://[::1]" + NAME, UNBOUND,
        refuses=NO_DNS % ("all names", "dns+tls://[::1]" + NAME)),
    Row(EXAMPLE, "dns+tls://127.0.0.1" + NAME + " domain=corp.example", UNBOUND,
        refuses=NO_DNS % ("the names in corp.example", "dns+tls://127.0.0.1" + NAME)),
    # Beside a server of its zone that Unbound queries, it is accepted with a warning.
    Row(DONOTQ, "dns+tls://127.0.0.1" + NAME, UNBOUND, beside=(USABLE,), warns=NEVER_QUERIED,
        accepts="127.0.0.1@853" + NAME),
    Row(DONOTQ, "dns+tls://127.1.2.3:8853" + NAME, UNBOUND, beside=(USABLE,),
        warns=NEVER_QUERIED, accepts="127.1.2.3@8853" + NAME),
    Row(DEFAULT, "dns+tls://[::1]" + NAME, UNBOUND, beside=(USABLE,), warns=NEVER_QUERIED,
        accepts="::1@853" + NAME),
    Row(CHECKCONF, "127.0.0.53" + NAME, UNBOUND, beside=(USABLE,), warns=NEVER_QUERIED,
        accepts="127.0.0.53@853" + NAME),
    Row(EXAMPLE, "dns+tls://127.0.0.1" + NAME + " domain=corp.example", UNBOUND,
        beside=(USABLE, "dns+tls://192.0.2.60" + NAME + " domain=corp.example"),
        warns=NEVER_QUERIED, accepts="127.0.0.1@853" + NAME),
    # Since 1.25.2 the list also holds 0.0.0.0/8, ::, ::ffff:0:0/96 and
    # ::ffff:127.0.0.0/104: never a server, and a mapped address is its IPv4 one.
    Row(DONOTQ, "dns+tls://0.0.0.0" + NAME, UNBOUND,
        refuses="0.0.0.0 cannot be a DNS server's address (it is the unspecified address)"),
    Row(DONOTQ, "dns+tls://0.1.2.3" + NAME, UNBOUND,
        refuses="0.1.2.3 cannot be a DNS server's address: 0.0.0.0/8 means 'this network'"),
    Row(DONOTQ, "dns+tls://[::]" + NAME, UNBOUND,
        refuses=":: cannot be a DNS server's address (it is the unspecified address)"),
    Row(DONOTQ, "dns+tls://[::ffff:192.0.2.53]" + NAME, UNBOUND,
        refuses="::ffff:192.0.2.53 is an IPv4-mapped IPv6 address (::ffff:0:0/96), which "
                "Unbound never queries; write the IPv4 address 192.0.2.53 itself"),
    Row(DONOTQ, "dns+tls://[::ffff:127.0.0.1]" + NAME, UNBOUND,
        refuses="write the IPv4 address 127.0.0.1 itself"),
    Row(DONOTQ, "::ffff:192.0.2.53" + NAME, UNBOUND, refuses="IPv4-mapped"),
    # An IP address as the TLS name is checked against the certificate's IP addresses
    # (util/net_help.c set_auth_name_on_ssl); a zone name may hold '_'.
    Row(AUTH_NAME, "dns+tls://192.0.2.53#192.0.2.53", UNBOUND, accepts="192.0.2.53@853#192.0.2.53"),
    Row(AUTH_NAME, "dns+tls://[2001:db8::53]#2001:DB8::53", UNBOUND,
        accepts="2001:db8::53@853#2001:db8::53"),
    Row(AUTH_NAME, "dns+tls://[2001:db8::53]#fe80::1%eth0", UNBOUND,
        refuses="'fe80::1%eth0' is not a valid DNS TLS name"),
    Row(AUTH_NAME, "dns+tls://192.0.2.53#192.0.2", UNBOUND,
        refuses="'192.0.2' is neither an IPv4 address nor a DNS name"),
    Row("unbound doc/unbound.conf.rst forward-zone name",
        "dns+tls://192.0.2.60#dot.corp.example domain=_msdcs.corp.example", UNBOUND,
        accepts="192.0.2.60@853#dot.corp.example"),
    # A routed domain in a zone Unbound answers itself: our file opens it with a local
    # zone of its own (test_peer_unbound_local_zones.py resolves through it), and the
    # installer's initramfs, which speaks through dnsconfd, still keeps it closed.
    Row(LOCAL_ZONES, "dns+tls://192.0.2.60" + NAME + " domain=corp.home.arpa", UNBOUND,
        accepts="192.0.2.60@853" + NAME, warns="the names in corp.home.arpa, which Unbound "
        "keeps to itself by default"),
    Row(LOCAL_ZONES, "dns+tls://192.0.2.60" + NAME + " domain=10.in-addr.arpa", UNBOUND,
        accepts="192.0.2.60@853" + NAME, warns="the names in 10.in-addr.arpa, which"),
    Row(LOCAL_ZONES, "dns+tls://192.0.2.60" + NAME + " domain=localhost", UNBOUND,
        refuses="domain=localhost is the host's own loopback names (RFC 6761, 6303), which "
        "Unbound answers itself with either backend and never forwards"),
    # Addresses Unbound queries are written as ADDR@PORT#NAME.
    Row(DONOTQ, "dns+tls://192.0.2.53" + NAME, UNBOUND, accepts="192.0.2.53@853" + NAME),
    Row(DONOTQ, "dns+tls://[2001:db8::53]:8853" + NAME, UNBOUND,
        accepts="2001:db8::53@8853" + NAME),
]

# Unbound's own cases with a port of their own (which the initramfs's dnsconfd loses
# before NetworkManager 1.54).
ROWS = judged_where_ports_pass(ROWS)


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_unbound_case(write_ks, row):
    accepted = row.check(write_ks)
    if row.accepts is not None:
        server, config = accepted
        # The row's server comes last in its zone, after those beside it there.
        zone = [other for other in config.servers if other.domains == server.domains]
        addrs = unbound_forward_addrs(config, server)
        assert (addrs[-1], len(addrs)) == (row.accepts, len(zone)), addrs


@pytest.mark.parametrize("row", [row for row in ROWS if row.accepts], ids=str)
def test_unbound_checkconf_reads_the_file_of_every_accepted_row(write_ks, tmp_path, row):
    require_tools("unbound-checkconf")
    _, config = row.check(write_ks)
    root = tmp_path / "root"
    conf = root / c.UNBOUND_CONF_PATH.lstrip("/")
    conf.parent.mkdir(parents=True)
    conf.write_bytes(unbound_conf(StagingInput(config, (), DotTrust(c.SYSTEM_CA_BUNDLE_PATH))))
    result = unbound_checkconf(tmp_path, root)
    assert result.returncode == 0, result.stderr
    # Unbound's own warning and ours agree on which servers it never uses.
    checkconf_warns = "do-not-query-localhost: yes means that the address will not be used" \
        in result.stderr
    assert checkconf_warns == (row.warns == NEVER_QUERIED)


def _forwarder_text(workdir, port, config_text, query_localhost):
    """The lab's forwarder settings, with Unbound's default do-not-query-localhost unless
    QUERY_LOCALHOST."""
    settings = dotlab._run_settings(workdir, "127.0.0.10", port)
    lab_line = "  do-not-query-localhost: no\n"
    assert lab_line in settings
    if not query_localhost:
        settings = settings.replace(lab_line, "")
    included = workdir / "edns-forward.conf"
    included.write_text(config_text)
    return settings + '  local-zone: "test." nodefault\n' + 'include: "%s"\n' % included


@pytest.fixture
def loopback_upstream(tmp_path, dot_pki, lab_network):
    """A DoT upstream on loopback (127.0.0.2) in ``lab_network``, as the lab's are on its
    hosts."""
    require_tools("unbound")
    cert_path, key_path = dot_pki.files("server")
    upstream = dotlab.start_dot_upstream(tmp_path / "upstream", "127.0.0.2", cert_path,
                                         key_path, network=lab_network)
    yield upstream
    upstream.stop()


@pytest.mark.root
@pytest.mark.parametrize("query_localhost", [False, True],
                         ids=["Unbound's default", "do-not-query-localhost: no"])
def test_a_running_unbound_never_asks_a_loopback_server_unless_told_to(
        write_ks, tmp_path, dot_pki, lab_network, loopback_upstream, query_localhost):
    path = write_ks(edns_section(loopback_upstream.server_line(), options=UNBOUND))
    parsed = parse(path)
    # Refused: with Unbound's default, nothing would answer (what this test shows next).
    assert [p.message for p in parsed.errors] == [
        "all names would have no DNS: the only server for them, %s, is on loopback, which "
        "Unbound never queries while 'do-not-query-localhost' is yes, its default, and which "
        "dnsconfd in the installer's initramfs never queries; give the server's own address "
        "on the network instead" % loopback_upstream.server_line()]
    assert parsed.warnings == []
    # The file staging would write, had the rule let the server through.
    config = EdnsConfig(servers=(DotServer.parse_uri(loopback_upstream.server_line()),),
                        backend=Backend.UNBOUND)
    data = StagingInput(config, (), DotTrust(c.SYSTEM_CA_BUNDLE_PATH))
    # That file, but for the lab's CA and the lab forwarder's address.
    interface = "    interface: %s\n" % c.UNBOUND_LISTEN_ADDRESS
    config_text = unbound_conf(data).decode("ascii")
    assert interface in config_text
    config_text = config_text.replace(interface, "").replace(
        data.trust.path, str(dot_pki.ca_path))
    workdir = tmp_path / "forwarder"
    workdir.mkdir()
    port = dotlab.free_port("127.0.0.10", lab_network)
    forwarder = dotlab.start_unbound(
        workdir, _forwarder_text(workdir, port, config_text, query_localhost), "127.0.0.10",
        port, network=lab_network)
    try:
        seen = loopback_upstream.log_offset()
        answer = dotlab.ask("127.0.0.10", port, dotlab.ANSWER_NAME, network=lab_network)
    finally:
        forwarder.stop()
    upstream_saw_it = dotlab.ANSWER_NAME in loopback_upstream.log_since(seen)
    if query_localhost:
        assert answer.rcode() == 0 and upstream_saw_it
    else:
        assert answer.rcode() == 2 and not upstream_saw_it   # SERVFAIL, nothing asked


@pytest.mark.root
@pytest.mark.parametrize("san, answered", [
    pytest.param("ip", True, id="certificate with the address as an IP address: answered"),
    pytest.param("dns", False, id="certificate with the address as a DNS name: SERVFAIL"),
])
def test_an_address_as_tls_name_is_checked_against_the_certificates_ip_addresses(
        write_ks, tmp_path, dot_pki, lab_network, unbound_forwarder, san, answered):
    require_tools("unbound")
    address = dotlab.lab_host(6)
    server = certs.make_server(dot_pki.ca, **({"dns_names": (), "ip_addresses": (address,)}
                                              if san == "ip" else {"dns_names": (address,)}))
    server.write(tmp_path, "server")
    upstream = dotlab.start_dot_upstream(tmp_path / "upstream", address, tmp_path / "server.pem",
                                         tmp_path / "server.key", network=lab_network)
    try:
        line = "dns+tls://%s:%d#%s" % (address, upstream.port, address)
        parsed = parse(write_ks(edns_section(line, options=UNBOUND)))
        assert parsed.errors == []
        assert parsed.config.servers[0].unbound_forward_addr() == "%s@%d#%s" % (
            address, upstream.port, address)
        data = StagingInput(parsed.config, (), DotTrust(c.SYSTEM_CA_BUNDLE_PATH))
        config_text = unbound_conf(data).decode("ascii").replace(
            "    interface: %s\n" % c.UNBOUND_LISTEN_ADDRESS, "").replace(
            data.trust.path, str(dot_pki.ca_path))
        forwarder = unbound_forwarder(config_text)
        answer = dotlab.ask(forwarder.address, forwarder.port, dotlab.ANSWER_NAME,
                            network=lab_network)
    finally:
        upstream.stop()
    assert answer.rcode() == (0 if answered else 2)
