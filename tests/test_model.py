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

"""The model: what a server line means, and how it is written into config files.

Whatever text reaches DotServer or normalize_dns_name (from a kickstart, D-Bus
or the text UI), it is either refused with ModelError or becomes values that
cannot break a NetworkManager keyfile or an Unbound config line.
"""

import ipaddress

import pytest
from hypothesis import given, settings, strategies as st

from org_edns_addon.constants import DOT_PORT
from org_edns_addon.ks.edns import parse_server_line
from org_edns_addon.model import DotServer, EdnsConfig, ResolveMode
from org_edns_addon.names import normalize_dns_name
from org_edns_addon.problems import ModelError

# Characters that end or split a keyfile value, an Unbound line or a URI.
BREAKING = set("\n\r,;#[]\"' \t\\=")


@pytest.mark.parametrize("text, uri, forward_addr", [
    ("dns+tls://192.0.2.53#dot.corp.example", "dns+tls://192.0.2.53#dot.corp.example",
     "192.0.2.53@853#dot.corp.example"),
    ("dns+tls://192.0.2.53:8853#dot.corp.example", "dns+tls://192.0.2.53:8853#dot.corp.example",
     "192.0.2.53@8853#dot.corp.example"),
    ("dns+tls://[2001:DB8:0::53]:853#dot.corp.example",
     "dns+tls://[2001:db8::53]#dot.corp.example", "2001:db8::53@853#dot.corp.example"),
    ("192.0.2.54#dot2.corp.example", "dns+tls://192.0.2.54#dot2.corp.example",
     "192.0.2.54@853#dot2.corp.example"),
    ("2001:db8::54#dot2.corp.example", "dns+tls://[2001:db8::54]#dot2.corp.example",
     "2001:db8::54@853#dot2.corp.example"),
    ("dns+tls://[fe80::1%eth0]#dot.corp.example", "dns+tls://[fe80::1%eth0]#dot.corp.example",
     "fe80::1%eth0@853#dot.corp.example"),
    ("dns+udp://192.0.2.99", "dns+udp://192.0.2.99", "192.0.2.99@53"),
    ("192.0.2.99", "dns+udp://192.0.2.99", "192.0.2.99@53"),
    ("dns+udp://[2001:db8::99]:5353", "dns+udp://[2001:db8::99]:5353", "2001:db8::99@5353"),
])
def test_a_server_is_written_as_a_networkmanager_uri_and_an_unbound_forward_addr(
        text, uri, forward_addr):
    server = DotServer.parse_uri(text)
    assert server.uri() == uri
    assert server.unbound_forward_addr() == forward_addr
    assert DotServer.parse_uri(uri) == server


def test_freeipa_form_is_the_same_server_as_the_uri_form():
    assert DotServer.parse_uri("192.0.2.54#dot2.corp.example") == \
        DotServer.parse_uri("dns+tls://192.0.2.54:853#dot2.corp.example")
    assert DotServer.parse_uri("192.0.2.54#dot2.corp.example").port == DOT_PORT


def test_a_server_line_carries_its_routing_domains_in_order():
    server = parse_server_line("dns+tls://192.0.2.60#dot.lab.example "
                                  "domain=test.lab.example,Lab.Example.")
    assert server.domains == ("test.lab.example", "lab.example")
    assert server.kickstart_line() == ("dns+tls://192.0.2.60#dot.lab.example "
                                       "domain=test.lab.example,lab.example")


def test_where_a_server_was_read_does_not_make_it_a_different_server():
    here = parse_server_line("192.0.2.54#dot.example", lineno=3, filename="a.ks")
    there = parse_server_line("192.0.2.54#dot.example", lineno=9, filename="b.ks")
    assert here == there


@pytest.mark.parametrize("name", ["dot\ncorp.example", "dot.corp.example\n", "dot,corp.example",
                                  "dot#corp.example", "[dot.corp.example]", "dot corp.example",
                                  'dot"corp.example', "dot'corp.example", "dot;corp.example",
                                  "", ".", "dot..corp.example", "-dot.corp.example",
                                  "dot\x00corp.example"])
def test_a_name_that_could_break_a_config_line_is_refused_whatever_its_source(name):
    with pytest.raises(ModelError):
        normalize_dns_name(name)


def test_a_newline_in_a_server_given_through_the_api_is_refused():
    with pytest.raises(ModelError, match="a server must be one word"):
        DotServer.parse_uri("dns+tls://192.0.2.53#dot.corp.example\n[evil]")
    with pytest.raises(ModelError):
        parse_server_line("dns+tls://192.0.2.53#dot.corp.example domain=a.example\nb")


def test_rules_find_every_problem_of_a_config_at_once():
    servers = (parse_server_line("dns+tls://192.0.2.53", lineno=2),
               parse_server_line("192.0.2.99", lineno=3),
               parse_server_line("dns+tls://192.0.2.53:853", lineno=4))
    config = EdnsConfig(servers=servers, resolve_mode=ResolveMode.PREFER,
                        searches=("a.example", "a.example"))
    assert [(p.lineno, p.message.split(";")[0]) for p in config.problems(header_lineno=1)] == [
        (2, "the DoT server dns+tls://192.0.2.53 has no TLS name, so it cannot be "
            "authenticated"),
        (3, "the plaintext server dns+udp://192.0.2.99 is refused with --resolve-mode=prefer"),
        (4, "the DoT server dns+tls://192.0.2.53 has no TLS name, so it cannot be "
            "authenticated"),
        (4, "the server dns+tls://192.0.2.53 is given twice (first on line 2)"),
        (1, "--resolve-mode=prefer lets plaintext DNS leave the host: dnsconfd also sends "
            "each name in a connection's own domains to that connection's own DNS servers "
            "(from DHCP or router advertisements, in plaintext), and only other names go to "
            "these servers alone"),
        (1, "--search lists a name twice"),
    ]


def test_a_problem_names_the_server_it_is_about_and_none_for_the_section():
    # The editor tells a server's errors from the section's by it, with no line numbers.
    servers = (parse_server_line("dns+tls://192.0.2.53"), parse_server_line("192.0.2.99"))
    config = EdnsConfig(servers=servers, searches=("a.example", "a.example"))
    assert [(p.server, p.message.split(" ")[1]) for p in config.problems()] == [
        (servers[0], "DoT"), (servers[1], "plaintext"), (None, "lists")]


SERVER_PIECES = st.sampled_from(
    list("dns+tlup:/[]#%.,=0123456789abcdefx \t\"';-_\\") +
    ["dns+tls://", "dns+udp://", "domain=", "fe80::", "xn--", "192.0.2.1", "::", "%eth0",
     "\n", "\r", "\u2028", "\x00", "²", "\u0663", "ü", "İ", "\u200d", "\ufeff", "ß", "。"])


@settings(max_examples=1500, deadline=None)
@given(st.lists(SERVER_PIECES, max_size=16).map("".join))
def test_any_text_is_refused_or_becomes_a_server_that_cannot_break_a_config_line(text):
    try:
        server = parse_server_line(text)
    except ModelError:
        return
    for value in (server.name or "", *server.domains, str(server.address)):
        assert not BREAKING & set(value), (text, value)
        assert value.isascii() and value.isprintable(), (text, value)
    assert isinstance(server.address, (ipaddress.IPv4Address, ipaddress.IPv6Address))
    assert 1 <= server.port <= 65535
    assert parse_server_line(server.kickstart_line()) == server


@settings(max_examples=2000, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_refused_or_becomes_a_plain_ascii_dns_name(text):
    try:
        name = normalize_dns_name(text)
    except ModelError:
        return
    assert name.isascii() and name == name.lower()
    assert not BREAKING & set(name)
    assert all(0 < len(label) <= 63 for label in name.split("."))
    assert normalize_dns_name(name) == name
