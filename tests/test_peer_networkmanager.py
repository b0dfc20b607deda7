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

"""NetworkManager's own server cases, and what we make of each.

Every server we accept ends up in a ``[global-dns-domain-*]`` ``servers=``
list that NetworkManager reads with ``nm_dns_uri_parse`` (and
``nm_dns_uri_normalize``), dropping what it cannot parse without a word
(src/core/nm-config-data.c, load_global_dns). The rows are the cases of
NetworkManager's own tests: an accepted row gives the ``servers=`` value we
write, which must be what NetworkManager reads as the server meant. Reading
those files back with a running NetworkManager 1.52 is the business of the
trixie read-back; Debian 12's NetworkManager 1.42 drops every URI in
``servers=`` (it takes plain addresses only), so it proves nothing here.
"""

import shutil
import subprocess

import pytest

from org_edns_addon import initrd
from org_edns_addon.model import parse_address
from org_edns_addon.problems import ModelError
from tests.peer_fixtures import Row, judged_where_ports_pass, keyfile_servers

TEST_GENERAL = "NetworkManager src/libnm-core-impl/tests/test-general.c"
URI_PARSE = TEST_GENERAL + " test_dns_uri_parse"
URI_NORMALIZE = TEST_GENERAL + " test_dns_uri_normalize"
URI_PARSER = "NetworkManager src/libnm-core-aux-intern/nm-libnm-core-utils.c nm_dns_uri_parse"
CONFIG_DATA = "NetworkManager src/core/nm-config-data.c load_global_dns"
CMDLINE_READER = ("NetworkManager src/nm-initrd-generator/tests/test-cmdline-reader.c "
                  "test_global_dns")
KICKSTART_TESTS = "rhinstaller/kickstart-tests "
BACKUP = "--resolve-mode=backup"
UNBOUND = "--backend=unbound"
NO_NAME = "has no TLS name, so it cannot be authenticated"
PLAINTEXT = "is refused with --resolve-mode=exclusive"
NEEDS_INTERFACE = "needs its interface"
BRACKETS_ONLY = "is written only inside brackets"
LOOPBACK = "dnsconfd's Unbound never queries the loopback server"
# The zone (here all names) whose every server is on loopback: an error, on its first line.
NO_DNS = ("all names would have no DNS: the only server for them, %s, is on loopback, which "
          "dnsconfd's Unbound never queries")
# A server for all names that is asked, beside the row's (the row's then only warns).
USABLE = "dns+tls://192.0.2.53#dot.corp.example"
USABLE_PLAIN = "dns+udp://192.0.2.53"
# A link-local server's zone id is an interface name: Linux's (net/core/dev.c
# dev_valid_name), which NetworkManager follows in nm_utils_ifname_valid_kernel.
IFNAME_KERNEL = "NetworkManager src/libnm-glib-aux/nm-shared-utils.c nm_utils_ifname_valid_kernel"
IFNAME_NAMES = TEST_GENERAL + " test_connection_normalize_infiniband (iface_name)"
RESERVED = "cannot be an interface name: Linux reserves '.' and '..'"
LINK_LOCAL_UNBOUND = "is used by this addon's Unbound forwarder"
DOT_ON_53 = "is on port 53, plaintext DNS's port"

ROWS = [
    # test_dns_uri_parse, the accepted ones (t_dns_1)
    Row(URI_PARSE, "dns+tls://8.8.8.8", refuses=NO_NAME),
    Row(URI_PARSE, "dns+tls://1.2.3.4#name", accepts="dns+tls://1.2.3.4#name"),
    Row(URI_PARSE, "dns+tls://1.2.3.4#a.b.c", accepts="dns+tls://1.2.3.4#a.b.c"),
    Row(URI_PARSE, "dns+tls://1.2.3.4:53", refuses=NO_NAME),
    # NetworkManager takes DoT on 53; RFC 7858 forbids it, and we warn (test_ks_rules.py).
    Row(URI_PARSE, "dns+tls://1.2.3.4:53#foobar", accepts="dns+tls://1.2.3.4:53#foobar",
        warns=DOT_ON_53),
    Row(URI_PARSE, "dns+tls://192.168.120.250:99", refuses=NO_NAME),
    Row(URI_PARSE, "dns+udp://8.8.8.8:65535", refuses=PLAINTEXT),
    Row(URI_PARSE, "dns+udp://8.8.8.8:65535", BACKUP, accepts="dns+udp://8.8.8.8:65535"),
    Row(URI_PARSE, "dns+udp://[fd01::1]", BACKUP, accepts="dns+udp://[fd01::1]"),
    Row(URI_PARSE, "dns+tls://[fd01::2]:5353", refuses=NO_NAME),
    Row(URI_PARSE, "dns+tls://[::2]:65535#name", accepts="dns+tls://[::2]:65535#name"),
    # Loopback and IPv4-mapped: tests/test_peer_unbound.py and test_peer_dnsconfd.py say
    # why. A loopback server alone for all names leaves no DNS: refused; beside a server
    # that is asked, it is only warned about.
    Row(URI_PARSE, "dns+tls://[::1]#name", refuses=NO_DNS % "dns+tls://[::1]#name"),
    Row(URI_PARSE, "dns+tls://[::1]#name", beside=(USABLE,), warns=LOOPBACK,
        accepts="dns+tls://192.0.2.53#dot.corp.example,dns+tls://[::1]#name"),
    Row(URI_PARSE, "dns+udp://[::ffff:1.2.3.4]", BACKUP,
        refuses="write the IPv4 address 1.2.3.4 itself"),
    Row(URI_PARSE, "dns+tls://[fe80::1%eth0]", UNBOUND, refuses=NO_NAME),
    # NetworkManager parses the interface, but its dnsconfd plugin never passes it on.
    Row(URI_PARSE, "dns+tls://[fe80::2%en1]:53#a",
        refuses="cannot be used with --backend=dnsconfd: NetworkManager hands [global-dns] "
                "servers to dnsconfd without their interface"),
    Row(URI_PARSE, "dns+tls://[fe80::1%en3456789012345]", UNBOUND, refuses=NO_NAME),
    Row(URI_PARSE, "1.2.3.4", refuses=PLAINTEXT),
    # NetworkManager reads a bare ADDR#NAME as a plain server (NM_DNS_URI_SCHEME_NONE),
    # which its dnsconfd plugin hands over without "dns+tls": plaintext on port 53.
    # The name means DoT (FreeIPA's form), so we write the dns+tls:// URI.
    Row(URI_PARSE, "1.2.3.4#foo", accepts="dns+tls://1.2.3.4#foo"),
    Row(URI_PARSE, "1::#x", accepts="dns+tls://[1::]#x"),
    Row(URI_PARSE, "1::0#x", accepts="dns+tls://[1::]#x"),
    Row(URI_PARSE, "192.168.0.1", BACKUP, accepts="dns+udp://192.168.0.1"),
    Row(URI_PARSE, "192.168.0.1#tst.com", accepts="dns+tls://192.168.0.1#tst.com"),
    # NetworkManager takes a bare link-local address without a scope; nothing can
    # reach it then, so we ask for the interface.
    Row(URI_PARSE, "fe80::18", BACKUP, refuses=NEEDS_INTERFACE),
    Row(URI_PARSE, "fe80::18#foo.com", refuses=NEEDS_INTERFACE),
    # test_dns_uri_parse, the refused ones (t_dns_0)
    Row(URI_PARSE, "http://8.8.8.8", refuses="unknown scheme 'http'"),
    Row(URI_PARSE, "dns+udp://1.2.3.4#name", BACKUP, refuses="cannot carry a TLS name"),
    Row(URI_PARSE, "dns+tls://1.2.3", refuses="'1.2.3' is not an IPv4 or IPv6 address"),
    Row(URI_PARSE, "dns+tls://fd01::1", refuses="must be in brackets"),
    Row(URI_PARSE, "dns+tls://[fd13:a:aaaa]", refuses="is not an IPv4 or IPv6 address"),
    Row(URI_PARSE, "dns+tls://1.2.3.4:1:1",
        refuses="'1.2.3.4:1:1' is neither an address with a port nor an IPv6 address in "
                "brackets"),
    Row(URI_PARSE, "dns+tls://1.2.3.4#name#name",
        refuses="'name#name' is not a valid DNS TLS name"),
    Row(URI_PARSE, "dns+tls://1.2.3.4%eth0", refuses="only a link-local IPv6 address"),
    Row(URI_PARSE, "dns+tls://[2001::1%eth0]", refuses="only a link-local IPv6 address"),
    Row(URI_PARSE, "dns+tls://[fe80::1%en34567890123456]",
        refuses="'en34567890123456' is not a valid interface name"),
    Row(IFNAME_KERNEL, "dns+tls://[fe80::1%.]#dot.corp.example", UNBOUND,
        refuses="'.' " + RESERVED),
    Row(IFNAME_KERNEL, "dns+tls://[fe80::1%..]#dot.corp.example", UNBOUND,
        refuses="'..' " + RESERVED),
    Row(IFNAME_KERNEL, "dns+tls://[fe80::1%]#dot.corp.example", UNBOUND,
        refuses="'' is not a valid interface name"),
    Row(IFNAME_KERNEL, "dns+tls://[fe80::1%a:b]#dot.corp.example", UNBOUND,
        refuses="'a:b' is not a valid interface name"),
    # '-' alone is not reserved: dev_valid_name and nm_utils_ifname_valid_kernel take it.
    # (With --backend=unbound the server reaches Unbound's forward-addr, not the keyfile.)
    Row(IFNAME_KERNEL, "dns+tls://[fe80::1%-]#dot.corp.example", UNBOUND,
        warns=LINK_LOCAL_UNBOUND),
    Row(IFNAME_NAMES, "dns+tls://[fe80::1%x2345678901234.]#dot.corp.example", UNBOUND,
        warns=LINK_LOCAL_UNBOUND),
    Row(IFNAME_NAMES, "dns+tls://[fe80::1%foo.000f]#dot.corp.example", UNBOUND,
        warns=LINK_LOCAL_UNBOUND),
    Row(URI_PARSE, "1.2.3.4#", refuses="has an empty TLS name after '#'"),
    Row(URI_PARSE, "1::0#", refuses="has an empty TLS name after '#'"),
    # A bare ADDR:PORT is not NetworkManager's (nor FreeIPA's) spelling; we read it
    # and write the URI NetworkManager reads.
    Row(URI_PARSE, "192.168.0.1:53", BACKUP, accepts="dns+udp://192.168.0.1"),
    Row(URI_PARSE, "192.168.0.1:53#example.com", accepts="dns+tls://192.168.0.1:53#example.com",
        warns=DOT_ON_53),
    Row(URI_PARSE, "fe80::18%19", BACKUP, refuses=BRACKETS_ONLY),
    Row(URI_PARSE, "fe80::18%lo", BACKUP, refuses=BRACKETS_ONLY),
    Row(URI_PARSE, "[fe80::18]:53", BACKUP, refuses=NEEDS_INTERFACE),
    Row(URI_PARSE, "[fe80::18]:53%19", BACKUP, refuses=NEEDS_INTERFACE),
    Row(URI_PARSE, "fe80::18%19#hoge.com", refuses=BRACKETS_ONLY),
    Row(URI_PARSE, "[fe80::18]:53#hoge.com", refuses=NEEDS_INTERFACE),
    Row(URI_PARSE, "[fe80::18]:53%19#hoge.com", refuses=NEEDS_INTERFACE),
    Row(URI_PARSE, "[fe80::18]:53%lo#hoge.com", refuses=NEEDS_INTERFACE),
    # test_dns_uri_normalize: we write the form NetworkManager normalizes to.
    Row(URI_NORMALIZE, "dns+tls://[2001:0:0::1234]:999#name",
        accepts="dns+tls://[2001::1234]:999#name"),
    Row(URI_NORMALIZE, "dns+udp://[0::1]:0123", BACKUP, refuses=NO_DNS % "dns+udp://[::1]:123"),
    Row(URI_NORMALIZE, "dns+udp://[0::1]:0123", BACKUP, beside=(USABLE_PLAIN,), warns=LOOPBACK,
        accepts="dns+udp://192.0.2.53,dns+udp://[::1]:123"),
    Row(URI_NORMALIZE, "8.8.8.888", refuses="'8.8.8.888' is not an IPv4 or IPv6 address"),
    # nm_dns_uri_parse takes whatever follows the last '#' as the server name, and
    # load_global_dns takes a [global-dns-domain-D] group's D as written.
    Row(URI_PARSER, "dns+tls://192.0.2.53#192.0.2.53", accepts="dns+tls://192.0.2.53#192.0.2.53"),
    Row(URI_PARSER, "dns+tls://[2001:db8::53]#2001:DB8::0053",
        accepts="dns+tls://[2001:db8::53]#2001:db8::53"),
    Row(CONFIG_DATA, "dns+tls://192.0.2.60#dot.corp.example domain=_msdcs.Corp.example",
        accepts="dns+tls://192.0.2.60#dot.corp.example"),
    # nm-initrd-generator's rd.net.dns= cases
    Row(CMDLINE_READER, "dns+tls://8.8.8.8", refuses=NO_NAME),
    Row(CMDLINE_READER, "1.1.1.1", refuses=PLAINTEXT),
    Row(CMDLINE_READER, "foobar", refuses="'foobar' names the server by a host name, foobar"),
    Row(CMDLINE_READER, "dns+tls://[fd01::1]:35#name", accepts="dns+tls://[fd01::1]:35#name"),
    # Anaconda's own end-to-end tests boot with these rd.net.dns= values.
    Row(KICKSTART_TESTS + "dns-global-exclusive-tls.sh",
        "dns+tls://10.0.196.143#edns-idmops.psi.redhat.com",
        accepts="dns+tls://10.0.196.143#edns-idmops.psi.redhat.com"),
    Row(KICKSTART_TESTS + "dns-global-exclusive-tls-2.sh", "dns+tls://1.1.1.1#one.one.one.one",
        accepts="dns+tls://1.1.1.1#one.one.one.one"),
    # kickstart-tests pairs a plaintext server with rd.net.dns-resolve-mode=exclusive,
    # which NetworkManager and dnsconfd allow; this addon never sends plaintext there.
    Row(KICKSTART_TESTS + "dns-global-bootopts.sh", "10.0.2.3", refuses=PLAINTEXT),
]

# NetworkManager's own cases with a port of their own are about how it reads a URI.
ROWS = judged_where_ports_pass(ROWS)


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_networkmanager_case(write_ks, row):
    accepted = row.check(write_ks)
    if row.accepts is not None:
        server, config = accepted
        assert keyfile_servers(config, server) == row.accepts


@pytest.mark.parametrize("row", [row for row in ROWS if row.accepts and not row.options
                                 and "domain=" not in row.line and not row.beside], ids=str)
def test_an_accepted_server_is_the_same_boot_option_nm_initrd_generator_reads(write_ks, row):
    server, config = row.check(write_ks)
    assert str(initrd.boot_args(config)[0][0]) == "rd.net.dns=" + row.accepts


# Each zone id is also put to the kernel itself: a veth pair by that name in a network
# namespace of its own (dev_valid_name refuses with EINVAL). We take a subset of the
# kernel's names (no byte a config line reads as syntax), so a name we accept must be one
# it takes; on these, the names the issue and NetworkManager's tests name, we agree.
ZONE_IDS = [".", "..", "-", "a:b", "x2345678901234.", "foo.000f", "en34567890123456",
            "x23456789012345"]


def _kernel_takes(name):
    ip = shutil.which("ip")
    if ip is None:
        pytest.skip("iproute2 is not installed (Debian: iproute2)")
    result = subprocess.run(["unshare", "--net", ip, "link", "add", "name", name, "type",
                             "veth", "peer", "name", "edns-peer0"],
                            capture_output=True, text=True, timeout=60)
    return result.returncode == 0


@pytest.mark.root
@pytest.mark.parametrize("name", ZONE_IDS)
def test_a_zone_id_is_accepted_exactly_when_the_kernel_takes_it_as_an_interface_name(name):
    try:
        parse_address("fe80::1%" + name)
    except ModelError:
        accepted = False
    else:
        accepted = True
    assert accepted == _kernel_takes(name)
