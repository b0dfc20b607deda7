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

"""dnsconfd's own cases (and those of NetworkManager's dnsconfd plugin), and what we make
of each.

With ``--backend=dnsconfd`` and in every initramfs, a server reaches Unbound
this way: NetworkManager's dnsconfd plugin (src/core/dns/nm-dns-dnsconfd.c)
sends each ``[global-dns-domain-D]`` server to dnsconfd over D-Bus as its
address bytes, protocol, name, routing domain D and, from NetworkManager 1.54
only, its port (``server_builder_append_base``; 1.52 leaves "port" out and
dnsconfd asks the protocol's default port: ``lines.PORT_TO_DNSCONFD``, and the
lines without it are those of ``lines.py``); dnsconfd
(src/dns_managers/unbound_manager.c) sorts each zone's servers by priority
and protocol and hands Unbound only the best of them. dnsconfd is not
packaged for Debian, so the rows are its own unit tests and sources; an
accepted row gives the ``servers=`` value NetworkManager passes on. The last
section restates dnsconfd's two Unbound files and lets Unbound's own reader
show what they would do beside the unbound backend.
"""

import ctypes
import ctypes.util
import subprocess

import pytest

from lab.kickstarts import edns_kickstart, edns_section
from org_edns_addon import constants as c
from org_edns_addon.initrd import BootOptionsError, check_initramfs_servers
from org_edns_addon.model import DotServer

from tests.conftest import run_cli
from tests.peer_fixtures import Row, keyfile_servers
from tests.staging_fixtures import require_tools
from tests.ks_fixtures import parse

PLUGIN = "NetworkManager src/core/dns/nm-dns-dnsconfd.c parse_global_config"
USED_SERVERS = "dnsconfd unittests/test_unbound_manager.c "
BACKUP = "--resolve-mode=backup"
PREFER = "--resolve-mode=prefer"
NO_INTERFACE = ("cannot be used with --backend=dnsconfd: NetworkManager hands [global-dns] "
                "servers to dnsconfd without their interface, so dnsconfd's Unbound cannot "
                "reach fe80::53")
LINK_LOCAL = "dns+tls://[fe80::53%eth0]#dot.corp.example"
GOOD = "dns+tls://192.0.2.53#dot.corp.example"
BEHIND_DOT = "the plaintext server %s is never used by dnsconfd for %s, which the DoT " \
    "server %s serves too: in each zone it uses only the servers of the best protocol, so " \
    "there is no fallback to plaintext"
LISTEN = "dnsconfd src/dns_managers/unbound_manager.c generate_listen_address"
FORWARD_ZONES = "dnsconfd src/dns_managers/unbound_manager.c generate_forward_zones"
CONFIGURATION = "dnsconfd src/dns_managers/unbound_manager.c write_configuration"
LOOPBACK = ("dnsconfd's Unbound never queries the loopback server dns+tls://%s#dot.corp.example: "
            "dnsconfd writes 'do-not-query-address: 127.0.0.1/8'")
NO_DNS = ("%s would have no DNS: the only server for them, %s, is on loopback, which dnsconfd's "
          "Unbound never queries (dnsconfd writes 'do-not-query-address: 127.0.0.1/8' and "
          "Unbound's default 'do-not-query-localhost: yes' also excludes ::1); give the "
          "server's own address on the network instead")
NO_DNS_PLAINTEXT_UNUSED = (
    "%s would have no DNS: dnsconfd uses only the DoT servers of a zone that has any, never "
    "its plaintext ones, and the DoT server for them, %s, is on loopback")
LAB = "dns+tls://192.0.2.60#dot.lab.example domain=lab.example"

ROWS = [
    # dnsconfd's Unbound configuration holds no local-zone (write_configuration), so a
    # routed domain in a zone Unbound answers itself never reaches its server
    # (test_peer_unbound_local_zones.py asks dnsconfd's Unbound of our keyfile).
    Row(CONFIGURATION, "dns+tls://192.0.2.60#dot.lab.example domain=corp.home.arpa",
        refuses="the names in corp.home.arpa never reach dns+tls://192.0.2.60#dot.lab.example:"
        " home.arpa is a zone Unbound answers itself"),
    Row(CONFIGURATION, "dns+tls://192.0.2.60#dot.lab.example domain=1.168.192.in-addr.arpa",
        refuses="168.192.in-addr.arpa is a zone Unbound answers itself"),
    Row(CONFIGURATION, "dns+tls://192.0.2.60#dot.lab.example domain=172.in-addr.arpa",
        warns="the names in 16.172.in-addr.arpa, 17.172.in-addr.arpa"),
    # The plugin sends a [global-dns] server as address bytes only (no "interface"), so
    # the scope of a link-local server is lost in every mode ...
    Row(PLUGIN, LINK_LOCAL, refuses=NO_INTERFACE),
    Row(PLUGIN, LINK_LOCAL, BACKUP, refuses=NO_INTERFACE),
    # ... and even a server that kept its interface would be skipped by dnsconfd in
    # exclusive mode, and for "." in prefer mode.
    Row(USED_SERVERS + "test_get_used_servers_interface_exclusive", LINK_LOCAL,
        refuses=NO_INTERFACE),
    Row(USED_SERVERS + "test_get_used_servers_interface_exclusive_nonroot",
        LINK_LOCAL + " domain=example.com", refuses=NO_INTERFACE),
    Row(USED_SERVERS + "test_get_used_servers_interface_prefer_root", LINK_LOCAL, PREFER,
        refuses=NO_INTERFACE),
    # A server by its global address is passed on as written: with its port from 1.54
    # (Fedora 43 and later) ...
    Row(PLUGIN, "dns+tls://[2001:db8::53]:8853#dot.corp.example",
        accepts="dns+tls://[2001:db8::53]:8853#dot.corp.example", installer="fedora-43"),
    Row(PLUGIN, "dns+tls://[2001:db8::53]:8853#dot.corp.example",
        accepts="dns+tls://[2001:db8::53]:8853#dot.corp.example", installer="main"),
    # ... and without it before (EL9, EL10, Fedora 42: 1.52), where dnsconfd would ask 853.
    Row(PLUGIN, "dns+tls://[2001:db8::53]:8853#dot.corp.example", installer="fedora-42",
        refuses="dns+tls://[2001:db8::53]:8853#dot.corp.example is on port 8853, but on "
        "Fedora 42 NetworkManager's dnsconfd plugin (before 1.54) does not pass a server's "
        "port to dnsconfd, which then asks port 853 in the installer's initramfs and in the "
        "installed system"),
    Row(PLUGIN, "dns+tls://[2001:db8::53]:8853#dot.corp.example",
        refuses="on EL9, EL10, Fedora 42 NetworkManager's dnsconfd plugin (before 1.54)"),
    Row(PLUGIN, "dns+udp://192.0.2.55:5353", BACKUP, beside=(GOOD,), installer="el9",
        refuses="dns+udp://192.0.2.55:5353 is on port 5353, but on EL9 NetworkManager's "
        "dnsconfd plugin (before 1.54) does not pass a server's port to dnsconfd, which then "
        "asks port 53"),
    Row(PLUGIN, "dns+tls://192.0.2.60#dot.lab.example domain=lab.example",
        accepts="dns+tls://192.0.2.60#dot.lab.example"),
    # dnsconfd writes "do-not-query-address: 127.0.0.1/8" into its Unbound's
    # configuration, and leaves do-not-query-localhost at its default (yes), which
    # excludes ::1 too: a loopback server is passed on and never asked. (dnsconfd itself
    # writes "forward-addr: 127.0.0.1" for "." when nothing serves it: no DNS at all.)
    # Alone in its zone, all names or a routed domain, that zone has no DNS: refused.
    Row(LISTEN, "dns+tls://127.0.0.2#dot.corp.example",
        refuses=NO_DNS % ("all names", "dns+tls://127.0.0.2#dot.corp.example")),
    Row(LISTEN, "dns+tls://[::1]#dot.corp.example",
        refuses=NO_DNS % ("all names", "dns+tls://[::1]#dot.corp.example")),
    # On another port too: Unbound's do-not-query list holds addresses, not ports.
    Row(LISTEN, "dns+tls://[::1]:8853#dot.corp.example", installer="fedora-43",
        refuses=NO_DNS % ("all names", "dns+tls://[::1]:8853#dot.corp.example")),
    Row(FORWARD_ZONES, "dns+tls://127.0.0.2#dot.lab.example domain=lab.example",
        refuses=NO_DNS % ("the names in lab.example", "dns+tls://127.0.0.2#dot.lab.example")),
    # Beside a server of its zone that is asked, it is only warned about.
    Row(LISTEN, "dns+tls://127.0.0.2#dot.corp.example", beside=(GOOD,),
        warns=LOOPBACK % "127.0.0.2", accepts=GOOD + ",dns+tls://127.0.0.2#dot.corp.example"),
    Row(LISTEN, "dns+tls://[::1]#dot.corp.example", beside=(GOOD,), warns=LOOPBACK % "[::1]",
        accepts=GOOD + ",dns+tls://[::1]#dot.corp.example"),
    Row(FORWARD_ZONES, "dns+tls://127.0.0.2#dot.corp.example domain=lab.example",
        beside=(GOOD, LAB), warns=LOOPBACK % "127.0.0.2",
        accepts="dns+tls://192.0.2.60#dot.lab.example,dns+tls://127.0.0.2#dot.corp.example"),
    # A routed domain has its own forward zone, which the servers for all names do not
    # serve: a loopback server alone there is refused, a usable server for all names
    # beside it or not.
    Row(FORWARD_ZONES, "dns+tls://[::1]#dot.corp.example domain=lab.example",
        beside=(GOOD,),
        refuses=NO_DNS % ("the names in lab.example", "dns+tls://[::1]#dot.corp.example")),
    # In each zone dnsconfd hands Unbound only the servers of the best protocol
    # (TLS above UDP at equal priority, and NetworkManager gives all [global-dns]
    # servers one priority): a plaintext server beside a DoT server is never used.
    Row(USED_SERVERS + "test_get_used_servers_protocol", "dns+udp://192.0.2.99", BACKUP,
        beside=(GOOD,), warns=BEHIND_DOT % ("dns+udp://192.0.2.99", "all names", GOOD),
        accepts=GOOD + ",dns+udp://192.0.2.99"),
    Row("dnsconfd tests/prioritize_encrypted_protocols/test.sh", "dns+udp://192.168.6.4",
        BACKUP, beside=("dns+tls://192.168.6.3#named",),
        warns=BEHIND_DOT % ("dns+udp://192.168.6.4", "all names",
                            "dns+tls://192.168.6.3#named")),
    Row(USED_SERVERS + "test_get_used_servers_protocol",
        "dns+udp://192.0.2.98 domain=lab.example,other.example", BACKUP,
        beside=(GOOD, "dns+tls://192.0.2.60#dot.lab.example domain=lab.example"),
        warns=BEHIND_DOT % ("dns+udp://192.0.2.98", "lab.example",
                            "dns+tls://192.0.2.60#dot.lab.example")),
    # So a loopback DoT server with a usable plaintext server beside it leaves its zone
    # with no DNS, for all names or a routed domain: refused.
    Row(USED_SERVERS + "test_get_used_servers_protocol", "dns+tls://127.0.0.2#dot.corp.example",
        BACKUP, beside=("dns+udp://192.0.2.99",),
        refuses=NO_DNS_PLAINTEXT_UNUSED % ("all names", "dns+tls://127.0.0.2#dot.corp.example")),
    Row(USED_SERVERS + "test_get_used_servers_protocol",
        "dns+tls://[::1]#dot.lab.example domain=lab.example", BACKUP,
        beside=(GOOD, "dns+udp://192.0.2.98 domain=lab.example"),
        refuses=NO_DNS_PLAINTEXT_UNUSED % ("the names in lab.example",
                                           "dns+tls://[::1]#dot.lab.example")),
    # Alone in its zone, a plaintext server is used (forward-tls-upstream: no).
    Row("dnsconfd src/dns_managers/unbound_manager.c generate_forward_zones",
        "dns+udp://192.0.2.98 domain=lab.example", BACKUP, accepts="dns+udp://192.0.2.98"),
    # dnsconfd refuses a routing domain holding ".." (src/dbus_server.c save_domains);
    # "." is the root, which a server for all names serves already.
    Row("dnsconfd src/dbus_server.c save_domains", "dns+tls://192.0.2.60#dot.lab.example "
        "domain=..", refuses="'..' is not a valid DNS domain (Empty Label)"),
    Row("NetworkManager src/core/dns/nm-dns-dnsconfd.c parse_global_config",
        "dns+tls://192.0.2.60#dot.lab.example domain=.",
        refuses="domain=. would be the root, which a server without domain= serves already"),
    # dnsconfd's own command-line and tests/uri_parsing syntax ('?' parameters) is not
    # NetworkManager's, and not ours.
    Row("dnsconfd tests/uri_parsing/test.sh", "dns+udp://192.168.6.3?interface=eth0", BACKUP,
        refuses="'192.168.6.3?interface=eth0' is not an IPv4 or IPv6 address"),
    Row("dnsconfd tests/uri_parsing/test.sh",
        "dns+tls://[2001:0DB8::1]:9000?domain=example.com&domain=example.org&validation=yes",
        refuses="port '9000?domain=example.com&domain=example.org&validation=yes' is out of "
                "range"),
    Row("dnsconfd tests/uri_parsing/test.sh", "dns+udp://1.1.1.1.1.1.1.1?interface=eth0",
        BACKUP, refuses="is not an IPv4 or IPv6 address"),
]


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_dnsconfd_case(write_ks, row):
    accepted = row.check(write_ks)
    if row.accepts is not None:
        server, config = accepted
        assert keyfile_servers(config, server) == row.accepts


@pytest.mark.parametrize("command", [["boot-args"], ["overlay", "-o", "overlay.img"]])
def test_the_initramfs_refuses_a_link_local_server_even_with_the_unbound_backend(
        write_ks, tmp_path, command):
    # NetworkManager's initramfs speaks DoT only through its dnsconfd plugin.
    path = write_ks(edns_section(LINK_LOCAL, options="--backend=unbound"))
    result = run_cli(command[0], path, *command[1:], cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == (
        "%s: no %s: the initramfs cannot use the link-local server %s: it speaks DoT only "
        "through NetworkManager's dnsconfd plugin, which drops the interface; give the "
        "initramfs a server by its global address" % (
            path, "boot options" if command[0] == "boot-args" else "overlay written",
            LINK_LOCAL))
    assert not (tmp_path / "overlay.img").exists()


# dnsconfd reads each routing domain NetworkManager sends with libidn2
# (src/dbus_server.c save_domains: idn2_lookup_u8(..., IDN2_NFC_INPUT), and refuses a
# domain holding ".."), then names an Unbound forward zone after what it returns.
SAVE_DOMAINS = "dnsconfd src/dbus_server.c save_domains"
IDN2_NFC_INPUT = 1
DOMAINS = [
    # (source, domain as written, what we write, or None where we refuse)
    (SAVE_DOMAINS, "_msdcs.corp.example", "_msdcs.corp.example"),
    (SAVE_DOMAINS, "_ldap._tcp.dc._msdcs.CORP.example", "_ldap._tcp.dc._msdcs.corp.example"),
    (SAVE_DOMAINS, "lab_x.example", "lab_x.example"),
    ("dnsconfd tests/idna/test.sh", "čočka.org", "xn--oka-eqab.org"),
    (SAVE_DOMAINS, "Straße.example", "xn--strae-oqa.example"),
    (SAVE_DOMAINS, "-a.example", None),
    (SAVE_DOMAINS, "xn--zz.example", None),
    (SAVE_DOMAINS, "a..b.example", None),
    # libidn2 passes these ASCII labels through; they could break a keyfile or an
    # Unbound line, so we refuse them.
    (SAVE_DOMAINS, "a#b.example", None),
    (SAVE_DOMAINS, 'a"b.example', None),
    (SAVE_DOMAINS, "*.example", None),
]


def _idn2_lookup(domain):
    """libidn2's reading of DOMAIN as dnsconfd does it, or None where it refuses it."""
    library = ctypes.util.find_library("idn2")
    if library is None:
        pytest.skip("libidn2 is not installed (Debian: libidn2-0)")
    idn2 = ctypes.CDLL(library)
    idn2.idn2_lookup_u8.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                    ctypes.c_int]
    idn2.idn2_free.argtypes = [ctypes.c_void_p]
    output = ctypes.c_void_p()
    if idn2.idn2_lookup_u8(domain.encode("utf-8"), ctypes.byref(output), IDN2_NFC_INPUT):
        return None
    try:
        return ctypes.string_at(output).decode("ascii")
    finally:
        idn2.idn2_free(output)


@pytest.mark.parametrize("source, domain, written", DOMAINS,
                         ids=["%s: %s" % (source, domain) for source, domain, _ in DOMAINS])
def test_a_routing_domain_is_what_dnsconfd_reads_or_is_refused(write_ks, source, domain,
                                                             written):
    path = write_ks(edns_section(GOOD, "dns+tls://192.0.2.60#dot.lab.example domain=" + domain))
    parsed = parse(path)
    dnsconfd_reads = None if ".." in domain else _idn2_lookup(domain)
    if written is None:
        assert len(parsed.errors) == 1 and parsed.errors[0].lineno == 3, parsed.errors
        # The reason in the brackets is idna's, in its version's words.
        message = parsed.errors[0].message
        assert message.startswith("%r is not a valid DNS domain (" % domain), message
        assert message.endswith("); use letters, digits, '-' and '_', and '.' between labels")
        return
    assert parsed.errors == []
    assert parsed.config.servers[1].domains == (written,)
    # What dnsconfd makes of the name NetworkManager hands it is the name itself.
    assert _idn2_lookup(written) == written
    assert dnsconfd_reads is not None and dnsconfd_reads.lower() == written


# What each --resolve-mode lets a connection's own (DHCP, plaintext) servers do, in
# dnsconfd's own cases (src/dns_managers/unbound_manager.c get_used_servers: a server
# bound to an interface is skipped in MODE_EXCLUSIVE, and for "." in MODE_PREFER) and
# NetworkManager.conf(5) on resolve-mode (man/NetworkManager.conf.xml). validate says it on
# the section's header line.
INTERFACE_CASES = USED_SERVERS + "test_get_used_servers_interface_"
PREFER_SAYS = ("--resolve-mode=prefer lets plaintext DNS leave the host: dnsconfd also sends "
               "each name in a connection's own domains to that connection's own DNS servers "
               "(from DHCP or router advertisements, in plaintext), and only other names go "
               "to these servers alone; use --resolve-mode=exclusive for no plaintext query "
               "at all")
BACKUP_SAYS = ("--resolve-mode=backup lets plaintext DNS leave the host for every name: "
               "dnsconfd may use each connection's own DNS servers (from DHCP or router "
               "advertisements, in plaintext) beside these servers, for any name; use "
               "--resolve-mode=exclusive for no plaintext query at all")
UNBOUND_PREFER_SAYS = ("--resolve-mode=prefer lets plaintext DNS leave the installer's "
                       "initramfs, which speaks through dnsconfd with either backend")
UNBOUND_BACKUP_SAYS = ("--resolve-mode=backup lets plaintext DNS leave the installer's "
                       "initramfs for every name: it speaks through dnsconfd with either "
                       "backend")
MODES = [
    (INTERFACE_CASES + "exclusive, _exclusive_nonroot", "--resolve-mode=exclusive", None),
    (INTERFACE_CASES + "prefer_root, _prefer_nonroot", PREFER, PREFER_SAYS),
    (INTERFACE_CASES + "backup", BACKUP, BACKUP_SAYS),
    (INTERFACE_CASES + "prefer_nonroot (the initramfs)", PREFER + " --backend=unbound",
     UNBOUND_PREFER_SAYS),
    (INTERFACE_CASES + "backup (the initramfs)", BACKUP + " --backend=unbound",
     UNBOUND_BACKUP_SAYS),
]


@pytest.mark.parametrize("source, options, says", MODES, ids=[m[0] + " " + m[1] for m in MODES])
def test_validate_says_on_the_header_line_what_plaintext_the_mode_lets_out(write_ks, source,
                                                                          options, says):
    path = write_ks(edns_section(GOOD, options=options))
    result = run_cli("validate", path)
    assert result.returncode == 0, result.stdout
    lines = result.stdout.splitlines()
    if says is None:
        assert lines == ["%s: 0 errors, 0 warnings" % path]
        return
    assert len(lines) == 2 and lines[-1] == "%s: 0 errors, 1 warning" % path
    assert lines[0].startswith("%s:1: warning: %s" % (path, says)), lines[0]


def test_the_initramfs_names_every_link_local_server_it_refuses_in_one_plural_sentence():
    servers = [DotServer.parse_uri(uri) for uri in (
        LINK_LOCAL, GOOD, "dns+tls://[fe80::54%eth0]#dot.corp.example")]
    with pytest.raises(BootOptionsError) as raised:
        check_initramfs_servers(servers)
    assert str(raised.value) == (
        "the initramfs cannot use the link-local servers %s, %s: it speaks DoT only through "
        "NetworkManager's dnsconfd plugin, which drops the interface; give the initramfs "
        "servers by their global addresses" % (servers[0].uri(), servers[2].uri()))


# --- dnsconfd left enabled beside the unbound backend ------------------------------------
#
# Why the unbound backend's target plan disables dnsconfd.
#
# Anaconda's network module enables dnsconfd in the installed system because of our own
# ``rd.net.dns-backend=dnsconfd`` (tests/test_installer_sequence.py sees it on each line's
# code). Had it stayed enabled beside ``--backend=unbound``, dnsconfd would on every boot
# take resolv.conf (distribution/dnsconfd-prepare.sh, ``dnsconfd config take_resolvconf``)
# and point it at its own listen address (src/dns_managers/unbound_manager.c
# write_resolv_conf: ``nameserver 127.0.0.1``), and write /run/dnsconfd/unbound.conf,
# which the dnsconfd-unbound package's /etc/unbound/conf.d/unbound.conf includes into the
# same Unbound as ours (write_configuration, with no servers from NetworkManager, which
# runs dns=none for this backend). dnsconfd is not packaged for Debian: its two files are
# restated below as those sources write them, and Unbound's own reader shows what then
# wins. The plan's fix is tests/test_staging_plan.py's.

# distribution/unbound-dnsconfd.conf, installed as /etc/unbound/conf.d/unbound.conf.
DNSCONFD_UNBOUND_INCLUDE = "server:\n\tinclude: %s\n"
# write_configuration() and generate_listen_address() with dnssec_enabled no (its
# default), the default listen address 127.0.0.1, no server from NetworkManager, and the
# effective CA of its default certification_authority list that exists (global_options.c:
# /etc/pki/dns/extracted/pem/tls-ca-bundle.pem, then the system's).
DNSCONFD_RUNTIME = ('server:\n\tmodule-config: "ipsecmod iterator"\n\tinterface: 127.0.0.1\n'
                    '\tdo-not-query-address: 127.0.0.1/8\n\ttls-cert-bundle: %s\n'
                    'forward-zone:\n\tname: "."\n\tforward-addr: "127.0.0.1"\n')
SYSTEM_BUNDLE = c.SYSTEM_CA_BUNDLE_PATH


def test_a_dnsconfd_left_enabled_would_rewrite_the_unbound_backends_forwarder(
        write_ks, test_ca, tmp_path):
    require_tools("unbound-checkconf")
    root = tmp_path / "root"
    root.mkdir()
    # Without --ca: our forwarder authenticates with the system trust store.
    applied = run_cli("apply", write_ks(edns_kickstart(test_ca.pem, "--backend=unbound")),
                      "--root", root)
    assert applied.returncode == 0, applied.stderr
    runtime = tmp_path / "dnsconfd-unbound.conf"
    runtime.write_text(DNSCONFD_RUNTIME % SYSTEM_BUNDLE)
    (root / "etc/unbound/conf.d/unbound.conf").write_text(DNSCONFD_UNBOUND_INCLUDE % runtime)
    main = tmp_path / "unbound.conf"
    main.write_text('server:\n    chroot: ""\n    username: ""\n    directory: "%s"\n'
                    '    pidfile: ""\ninclude: "%s/etc/unbound/conf.d/*.conf"\n'
                    % (tmp_path, root))

    def option(name):
        result = subprocess.run(["unbound-checkconf", "-o", name, str(main)],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return result.stdout.split("\n")[:-1]

    # dnsconfd's file is read after ours: its server options win over ours ...
    assert option("tls-cert-bundle") == [SYSTEM_BUNDLE]
    assert option("module-config") == ["ipsecmod iterator"]
    # ... it adds its own listener, where it points resolv.conf ...
    assert option("interface") == [c.UNBOUND_LISTEN_ADDRESS, "127.0.0.1"]
    # ... and a second forward zone for "." (Unbound keeps the first it reads, ours here,
    # by nothing but the file names: "edns-forward.conf" sorts before "unbound.conf").
    with open(root / c.UNBOUND_CONF_PATH.lstrip("/")) as ours:
        assert 'name: "."' in ours.read()
    assert 'name: "."' in runtime.read_text()
