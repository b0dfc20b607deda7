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

"""parse -> __str__ -> parse is the identity, for both spellings of the section.

The section prints itself back as ``%addon org_edns_addon`` (the form stock
Anaconda accepts, and what GenerateKickstart returns); reading that text again
gives the same configuration, and printing it again gives the same text.
"""

import ipaddress
import os
import tempfile

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from lab.kickstarts import ADDON, certificate_section, edns_section
from org_edns_addon.ks.convert import fixed_by_conversion
from tests.conftest import REPO
from tests.ks_fixtures import parse

EXAMPLES = REPO / "data" / "examples"


def read_back(text):
    """Parse TEXT as a kickstart file; fail on any error. (Printing is the same for every
    installer line: TEXT is judged for one that takes a server's port, Fedora 43, so that
    servers on ports of their own round-trip too; what the older lines do with those is
    test_line_rules.py's.)"""
    fd, path = tempfile.mkstemp(suffix=".ks")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        result = parse(path, line="fedora-43")
    finally:
        os.unlink(path)
    # A top-level %edns is an error that printing fixes: it prints as %addon.
    errors = [problem for problem in result.errors if problem not in fixed_by_conversion(result)]
    assert errors == [], "\n".join(map(str, errors)) + "\n" + text
    return result


def certificate_sections(result):
    return "".join(certificate_section(c.pem + "\n", c.filename) for c in result.certificates)


def assert_round_trip(text):
    """TEXT parsed, printed and parsed again gives the same config and the same text."""
    first = read_back(text)
    printed = certificate_sections(first) + str(first.edns)
    second = read_back(printed)
    assert second.errors == []
    assert second.config == first.edns.to_config()
    assert [s.kickstart_line() for s in second.config.servers] == \
        [s.kickstart_line() for s in first.edns.to_config().servers]
    assert str(second.edns) == str(first.edns)
    return first, printed


def test_the_bundled_addon_example_round_trips():
    first, printed = assert_round_trip((EXAMPLES / "corp-dot.ks").read_text())
    assert str(first.edns) == (
        "\n%addon org_edns_addon --resolve-mode=exclusive --backend=dnsconfd "
        "--ca=corp-dns-ca.pem\n"
        "dns+tls://192.0.2.53#dot.corp.example\n"
        "dns+tls://[2001:db8::53]#dot.corp.example\n"
        "dns+tls://192.0.2.54#dot2.corp.example\n"
        "dns+tls://198.51.100.60#dot.lab.example domain=lab.example,test.lab.example\n"
        "%end\n")


def test_the_bundled_edns_example_round_trips_into_the_addon_spelling():
    edns, _ = assert_round_trip((EXAMPLES / "corp-dot-edns.ks").read_text())
    addon, _ = assert_round_trip((EXAMPLES / "corp-dot.ks").read_text())
    assert edns.edns.to_config() == addon.config
    assert str(edns.edns) == str(addon.edns)


def test_idna_and_plaintext_servers_print_in_a_form_that_reads_back(pems):
    text = certificate_section(pems.ca.pem, "a.pem") + edns_section(
        "dns+tls://[2001:DB8::53]:8853#Dot.Bücher.example",
        "192.0.2.54#ドメイン.example domain=Straße.example",
        "dns+udp://[2001:db8::99]",
        options="--resolve-mode=backup --backend=dnsconfd --search=пример.example --ca=a.pem",
        spelling="%edns")
    first, printed = assert_round_trip(text)
    assert str(first.edns) == (
        "\n%addon org_edns_addon --resolve-mode=backup --backend=dnsconfd "
        "--search=xn--e1afmkfd.example --ca=a.pem\n"
        "dns+tls://[2001:db8::53]:8853#dot.xn--bcher-kva.example\n"
        "dns+tls://192.0.2.54#xn--eckwd4c7c.example domain=xn--strae-oqa.example\n"
        "dns+udp://[2001:db8::99]\n"
        "%end\n")


def test_link_local_servers_print_in_a_form_that_reads_back():
    first, printed = assert_round_trip(edns_section(
        "dns+tls://[FE80::53%eth0]:8853#Dot.Bücher.example",
        "[fe80::54%br0.100]#dot.example domain=lab.example",
        options="--backend=unbound"))
    assert str(first.edns).splitlines()[2:4] == [
        "dns+tls://[fe80::53%eth0]:8853#dot.xn--bcher-kva.example",
        "dns+tls://[fe80::54%br0.100]#dot.example domain=lab.example"]


# --- the property ---------------------------------------------------------------------

UNICODE_LABELS = ["bücher", "ドメイン", "straße", "пример", "Corp", "DOT", "éé"]
label = st.one_of(st.from_regex(r"\A[a-z0-9]{1,8}(-[a-z0-9]{1,8})?\Z"),
                  st.sampled_from(UNICODE_LABELS))
dns_name = st.lists(label, min_size=1, max_size=3).map(lambda labels: ".".join(
    labels + ["example"]))
port = st.one_of(st.none(), st.integers(1, 65535))
interface = st.sampled_from(["eth0", "enp0s3", "wlan-1", "br0.100"])


BROADCAST = ipaddress.IPv4Address("255.255.255.255")
THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")


@st.composite
def address_text(draw, link_local_allowed, loopback_allowed):
    """(is_v6, the address as text, with its interface if link-local)."""
    address = draw(st.one_of(st.ip_addresses(v=4), st.ip_addresses(v=6)).filter(
        lambda a: not (a.is_unspecified or a.is_multicast or a == BROADCAST
                       or (a.version == 4 and a in THIS_NETWORK)
                       or (a.version == 6 and a.ipv4_mapped is not None)
                       or (a.version == 6 and a.is_link_local and not link_local_allowed)
                       or (a.is_loopback and not loopback_allowed))))
    text = str(address)
    if address.version == 6 and address.is_link_local:
        text = "%s%%%s" % (ipaddress.IPv6Address(int(address)), draw(interface))
    return address.version == 6, text


@st.composite
def server_line(draw, plaintext_allowed, default_route, link_local_allowed,
                loopback_allowed=True):
    # A zone whose only servers are on loopback is refused: a routed server (maybe the
    # only one of its domains) is never there, nor the first server for all names.
    is_v6, host = draw(address_text(link_local_allowed,
                                    loopback_allowed and default_route))
    tls = not plaintext_allowed or draw(st.booleans())
    chosen_port = draw(port)
    hostport = "[%s]" % host if is_v6 else host
    if chosen_port is not None:
        hostport += ":%d" % chosen_port
    if tls:
        name = draw(dns_name)
        spelling = draw(st.sampled_from(["uri", "bare", "upper-scheme"]))
        if spelling == "bare":
            # FreeIPA's ADDRESS#NAME, or this addon's shorthand with brackets or a port.
            # A bare address carries no interface: only the bracketed form does.
            unbracketed = is_v6 and chosen_port is None and "%" not in host and \
                draw(st.booleans())
            server = "%s#%s" % (host if unbracketed else hostport, name)
        else:
            scheme = "DNS+TLS" if spelling == "upper-scheme" else "dns+tls"
            server = "%s://%s#%s" % (scheme, hostport, name)
    else:
        bare = chosen_port is None and "%" not in host and draw(st.booleans())
        server = host if bare else "dns+udp://" + hostport
    domains = [] if default_route else draw(st.lists(dns_name, max_size=3, unique_by=str.lower))
    comment = draw(st.sampled_from(["", "   # a comment", "\t"]))
    line = server + (" domain=" + ",".join(domains) if domains else "") + comment
    return host, line, tls and default_route


@st.composite
def kickstart(draw):
    mode = draw(st.sampled_from(["", "exclusive", "prefer", "backup"]))
    backend = draw(st.sampled_from(["", "dnsconfd", "unbound"]))
    searches = draw(st.lists(dns_name, max_size=3, unique_by=lambda n: n.lower()))
    ca_names = draw(st.lists(st.sampled_from(["corp-ca.pem", "lab-ca.pem", "ca.crt"]),
                             max_size=3, unique=True))
    options = []
    if mode:
        options.append("--resolve-mode=" + mode)
    if backend:
        options.append("--backend " + backend)
    if searches:
        options.append("--search=" + ",".join(searches))
    if ca_names:
        options.append("--ca=" + ",".join(ca_names))
    draw(st.randoms()).shuffle(options)
    # Plaintext is allowed only in backup mode, and never with the unbound forwarder.
    plaintext_allowed = mode == "backup" and backend != "unbound"
    # A link-local server keeps its interface only in the unbound forwarder's file.
    link_local_allowed = backend == "unbound"
    servers = [draw(server_line(plaintext_allowed, True, link_local_allowed,
                                loopback_allowed=False))]
    servers += draw(st.lists(server_line(plaintext_allowed, draw(st.booleans()),
                                         link_local_allowed), max_size=4))
    hosts = [host.lower() for host, _, _ in servers]
    assume(len(set(hosts)) == len(hosts))
    # dnsconfd uses only the DoT servers of a zone that has any: all of those on loopback
    # (a plaintext server for all names beside them) leave it with no DNS, refused.
    dot_for_all = [host for host, _, dot_for_all_names in servers if dot_for_all_names]
    assume(backend == "unbound" or not dot_for_all or not all(
        ipaddress.ip_address(host.split("%")[0]).is_loopback for host in dot_for_all))
    spelling = draw(st.sampled_from([ADDON, "%edns"]))
    return ca_names, edns_section(*[line for _, line, _ in servers], options=" ".join(options),
                                  spelling=spelling)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kickstart())
def test_any_valid_section_round_trips(pems, example):
    ca_names, section = example
    text = "".join(certificate_section(pems.ca.pem, name) for name in ca_names) + section
    first, printed = assert_round_trip(text)
    assert printed.count(ADDON) == 1
