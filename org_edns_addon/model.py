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

"""The validated model of an encrypted DNS configuration: its servers (``DotServer``) and
the whole configuration (``EdnsConfig``) with the rules that need nothing else.

Everything that reaches a config file passes through here first: addresses
through ``ipaddress``, names through ``names`` (IDNA and a strict label check), so a
newline, ``,``, ``#``, ``[``, ``]``, a space or a quote can never be smuggled
into a NetworkManager keyfile or an Unbound config line.
"""

import enum
import ipaddress
import re
from dataclasses import dataclass, field
from typing import Optional, Tuple

from org_edns_addon.constants import DOT_PORT, PHASE_INSTALLER, PHASE_TARGET, PLAIN_DNS_PORT
from org_edns_addon import terms
from org_edns_addon.i18n import P_, _
from org_edns_addon.names import (UNBOUND_LOOPBACK_ZONES, normalize_domains,
                                  normalize_tls_name, unbound_zone_of, unbound_zones_below)
from org_edns_addon.problems import ModelError, Problem, Severity


class ResolveMode(str, enum.Enum):
    EXCLUSIVE = "exclusive"
    PREFER = "prefer"
    BACKUP = "backup"


class Backend(str, enum.Enum):
    DNSCONFD = "dnsconfd"
    UNBOUND = "unbound"


class Phase(str, enum.Enum):
    """Where staging writes: the installer's own root (also the initrd overlay's content),
    or the installed system's root (``conf.target.system_root``)."""
    INSTALLER = PHASE_INSTALLER
    TARGET = PHASE_TARGET


TLS_SCHEME = "dns+tls"
PLAIN_SCHEME = "dns+udp"
# An interface name as Linux takes one (net/core/dev.c dev_valid_name, which
# NetworkManager's nm_utils_ifname_valid_kernel in src/libnm-glib-aux/nm-shared-utils.c
# follows): not empty, shorter than IFNAMSIZ (16), not "." or "..", no '/', ':' or
# whitespace. Of the bytes the kernel allows we take only these, which no config line
# we write reads as syntax. A name of '-' alone is one the kernel takes
# ("ip link add name - type veth" succeeds), so it is accepted too.
_IFACE = re.compile(r"^[A-Za-z0-9_.-]{1,15}\Z")
_RESERVED_IFACES = (".", "..")
_URI = re.compile(r"^(?P<scheme>[A-Za-z0-9+.-]+)://(?P<rest>.*)\Z")
# ASCII digits only: str.isdigit() also accepts '²' and other scripts' digits.
_PORT = re.compile(r"^[0-9]{1,5}\Z")
# What str.isspace() calls space, in one compiled search (a server line is checked often).
_SPACE = re.compile(r"\s")
_THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")
# A word that reads as a host name (ASCII letters, digits, '-' and '.', with a letter):
# what a user who names a server by its name writes where its address goes.
_HOST_NAME = re.compile(r"^(?=.{1,253}\.?\Z)(?=.*[A-Za-z])[A-Za-z0-9-]{1,63}"
                        r"(\.[A-Za-z0-9-]{1,63})*\.?\Z")


def parse_address(text):
    """Parse an IP address, with an optional ``%iface`` scope for link-local IPv6."""
    if not isinstance(text, str):
        raise ModelError(_("%r is not an IPv4 or IPv6 address") % (text,))
    scope = None
    if "%" in text:
        text, scope = text.split("%", 1)
        if scope in _RESERVED_IFACES:
            raise ModelError(_("%r cannot be an interface name: Linux reserves '.' and '..' "
                               "(no interface has them); give the interface of the "
                               "link-local address, like eth0") % scope)
        if not _IFACE.match(scope):
            raise ModelError(_("%r is not a valid interface name for a link-local address") % scope)
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise ModelError(_("%r is not an IPv4 or IPv6 address") % text) from None
    if scope is not None:
        if address.version != 6 or not address.is_link_local:
            raise ModelError(_("only a link-local IPv6 address (fe80::/10) may carry "
                             "'%%%s'") % scope)
        address = ipaddress.IPv6Address("%s%%%s" % (address, scope))
    elif address.version == 6 and address.is_link_local:
        raise ModelError(_("the link-local address %s needs its interface: write it as "
                         "[%s%%eth0]") % (address, address))
    if address.is_unspecified:
        raise ModelError(_("%s cannot be a DNS server's address (it is the unspecified "
                         "address); give the server's own unicast address") % address)
    if address.is_multicast or address == ipaddress.IPv4Address("255.255.255.255"):
        raise ModelError(_("%s cannot be a DNS server's address (it is multicast or "
                         "broadcast); give the server's own unicast address") % address)
    # Unbound (iterator/iter_donotq.c, donotq_apply_cfg, since 1.25.2) never queries
    # 0.0.0.0/8 nor ::ffff:0:0/96 while do-not-query-localhost is yes, its default.
    if address.version == 4 and address in _THIS_NETWORK:
        raise ModelError(_("%s cannot be a DNS server's address: 0.0.0.0/8 means 'this "
                         "network' (RFC 6890) and is never a destination, and Unbound never "
                         "queries it; give the server's own unicast address") % address)
    if address.version == 6 and address.ipv4_mapped is not None:
        # Quoted as written: Python 3.13 prints such an address in its dotted form
        # (::ffff:192.0.2.53), older ones in hexadecimal (::ffff:c000:235).
        raise ModelError(_("%s is an IPv4-mapped IPv6 address (::ffff:0:0/96), which Unbound "
                         "never queries; write the IPv4 address %s itself")
                         % (text, address.ipv4_mapped))
    return address


def _server_address(text, address_text, port_text, name, tls, bare):
    """ADDRESS_TEXT of the server TEXT as an address (``parse_address``); a host name
    there is refused with the line that would work.

    NetworkManager reads a [global-dns] server as an address (nm_dns_uri_parse), Unbound
    a forward-addr as one (forward-host would ask for the name in plaintext first), and
    FreeIPA's ADDR#NAME the same (IPAddressDoTForwarder): the name goes after '#', where
    it is the name the server's certificate must hold."""
    try:
        return parse_address(address_text)
    except ModelError:
        if not _HOST_NAME.match(address_text) or address_text.rpartition(".")[2].isdigit():
            raise
    port = ":" + port_text if port_text is not None else ""
    if bare:
        fixed = "ADDR%s#%s" % (port, name or address_text)
    elif tls:
        fixed = "%s://ADDR%s#%s" % (TLS_SCHEME, port, name or address_text)
    else:
        fixed = "%s://ADDR%s" % (PLAIN_SCHEME, port)
    raise ModelError(_("%(server)r names the server by a host name, %(host)s, and "
                       "NetworkManager, Unbound and FreeIPA take a DNS server by its IP "
                       "address only (the TLS name goes after '#'); %(fix)s") % {
                           "server": text, "host": address_text,
                           "fix": terms.HOST_NAME_FIX({"fixed": fixed, "host": address_text})}) \
        from None


def _is_ipv6(text):
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _parse_port(text):
    if not _PORT.match(text):
        _refuse_port(text)
    return check_port(int(text))


def _refuse_port(value):
    raise ModelError(_("port %r is out of range; use a number from 1 to 65535") % value)


def check_port(number):
    """Return NUMBER if it is a TCP/UDP port (1-65535), else raise ModelError."""
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 65535:
        _refuse_port(number)
    return number


@dataclass(frozen=True)
class DotServer:
    """One upstream DNS server.

    ``tls`` False is a plaintext server (``dns+udp://`` or a bare address).
    ``domains`` empty means the server serves every domain (``*``).
    ``lineno`` and ``filename`` only remember where the server was read; they
    are not compared.
    """
    address: ipaddress._BaseAddress
    port: int = DOT_PORT
    name: Optional[str] = None
    domains: Tuple[str, ...] = ()
    tls: bool = True
    lineno: Optional[int] = field(default=None, compare=False, repr=False)
    filename: Optional[str] = field(default=None, compare=False, repr=False)

    @classmethod
    def parse_uri(cls, text, domains=(), lineno=None, filename=None):
        """Parse ``dns+tls://ADDR[:PORT][#NAME]``, ``dns+udp://ADDR[:PORT]``,
        FreeIPA's ``ADDR#NAME`` or a bare ``ADDR``."""
        if not text or _SPACE.search(text):
            raise ModelError(_("a server must be one word, like dns+tls://192.0.2.53#dot.example"))
        match = _URI.match(text)
        if match:
            scheme = match.group("scheme").lower()
            if scheme not in (TLS_SCHEME, PLAIN_SCHEME):
                raise ModelError(_("unknown scheme %r in %r; use dns+tls:// (or dns+udp:// for "
                                 "plaintext)") % (match.group("scheme"), text))
            tls = scheme == TLS_SCHEME
            rest = match.group("rest")
            bare = False
        else:
            tls = "#" in text
            rest = text
            bare = True

        hostport, sep, name = rest.partition("#")
        if sep and not name:
            raise ModelError(_("%r has an empty TLS name after '#'") % text)
        if rest.startswith("["):
            end = hostport.find("]")
            if end < 0:
                raise ModelError(_("%r has '[' without a closing ']'") % text)
            address_text = hostport[1:end]
            after = hostport[end + 1:]
            if after and not after.startswith(":"):
                raise ModelError(_("unexpected %r after the address in %r") % (after, text))
            port_text = after[1:] if after else None
            address = parse_address(address_text)
            if address.version != 6:
                raise ModelError(_("only IPv6 addresses go in brackets: %r") % text)
        else:
            if bare and "%" in hostport:
                # NetworkManager's nm_dns_uri_parse (PLAIN := address ['#' NAME]) and
                # FreeIPA's IPAddressDoTForwarder (ipapython/ipautil.py) read no scope on
                # a bare address; only the bracketed URI form carries one.
                raise ModelError(_("%r: an interface (%%%s) is written only inside brackets, "
                                 "like %s://[%s]%s; NetworkManager and FreeIPA read no "
                                 "interface on a bare address")
                                 % (text, hostport.partition("%")[2],
                                    TLS_SCHEME if name else PLAIN_SCHEME, hostport,
                                    "#" + name if name else ""))
            if hostport.count(":") > 1:
                if not bare and not _is_ipv6(hostport):
                    raise ModelError(_("%r is neither an address with a port nor an IPv6 "
                                       "address in brackets") % hostport)
                if not bare:
                    raise ModelError(_("the IPv6 address in %r must be in brackets, like "
                                     "dns+tls://[2001:db8::53]:853#dot.example") % text)
                address_text, port_text = hostport, None
            else:
                address_text, _colon, port_text = hostport.partition(":")
                if port_text == "" and ":" in hostport:
                    raise ModelError(_("%r has an empty port after ':'") % text)
                port_text = port_text or None
            address = _server_address(text, address_text, port_text, name, tls, bare)
        port = _parse_port(port_text) if port_text is not None else None
        if name and not tls:
            raise ModelError(_("%r is plaintext (dns+udp://) and cannot carry a TLS name; "
                             "use dns+tls://") % text)
        return cls.from_parts(address, port, name, domains, tls, lineno, filename)

    @classmethod
    def from_parts(cls, address, port=None, name=None, domains=(), tls=True, lineno=None,
                   filename=None):
        """A server from separate fields (D-Bus, text UI), each checked as in a URI.

        ADDRESS is text or an ``ipaddress`` object; PORT None means the default
        port; NAME None or "" means no TLS name.
        """
        if not isinstance(address, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
            address = parse_address(address)
        if port is None:
            port = DOT_PORT if tls else PLAIN_DNS_PORT
        if name and not tls:
            raise ModelError(_("a plaintext server cannot carry a TLS name; use DoT or drop "
                             "the name"))
        if isinstance(domains, str):
            raise ModelError(_("domains must be a list of domain names"))
        return cls(
            address=address,
            port=check_port(port),
            name=normalize_tls_name(name) if name else None,
            domains=tuple(normalize_domains(domains)),
            tls=bool(tls),
            lineno=lineno,
            filename=filename,
        )

    @property
    def is_link_local(self):
        """Whether the address is link-local IPv6 (and so carries its interface)."""
        return self.address.version == 6 and self.address.is_link_local

    @property
    def _host(self):
        return "[%s]" % self.address if self.address.version == 6 else str(self.address)

    @property
    def default_port(self):
        return DOT_PORT if self.tls else PLAIN_DNS_PORT

    def uri(self):
        """This server as a NetworkManager ``servers=`` URI."""
        text = "%s://%s" % (TLS_SCHEME if self.tls else PLAIN_SCHEME, self._host)
        if self.port != self.default_port:
            text += ":%d" % self.port
        if self.name:
            text += "#" + self.name
        return text

    def unbound_forward_addr(self):
        """This server as an Unbound ``forward-addr:`` value ``IP@PORT#NAME``."""
        text = "%s@%d" % (self.address, self.port)
        if self.name:
            text += "#" + self.name
        return text

    def kickstart_line(self):
        """This server as a line of the ``%addon org_edns_addon`` body."""
        if self.domains:
            return "%s domain=%s" % (self.uri(), ",".join(self.domains))
        return self.uri()

    @property
    def key(self):
        """What makes two servers the same for duplicate detection."""
        return (str(self.address), self.port, self.name, self.tls, self.domains)


def _problem(severity, message, server, header_lineno):
    """A problem about SERVER, on its line (``Problem.server``), or about the whole section,
    on its header's line (SERVER None)."""
    if server is None:
        return Problem(severity, message, header_lineno)
    return Problem(severity, message, server.lineno, server.filename, server=server)


def _link_local_problem(server, backend, error, warning):
    """Report a link-local SERVER: it keeps its interface only where Unbound reads our file."""
    if backend == Backend.DNSCONFD:
        # NetworkManager's dnsconfd plugin (src/core/dns/nm-dns-dnsconfd.c,
        # parse_global_config -> server_builder_append_base) sends a [global-dns]
        # server as its address bytes only, never its interface; and dnsconfd
        # (src/dns_managers/unbound_manager.c, get_used_servers) never uses a server
        # bound to an interface in exclusive mode, nor for "." in prefer mode.
        error(_("the link-local server %s cannot be used with %s: NetworkManager hands "
              "[global-dns] servers to dnsconfd without their interface, so dnsconfd's "
              "Unbound cannot reach %s; give the server's global address, or use %s")
              % (server.uri(), terms.backend(Backend.DNSCONFD), server.address,
                 terms.backend(Backend.UNBOUND)), server)
    else:
        # Unbound reads ADDR%IFACE in forward-addr (util/net_help.c, ipstrtoaddr:
        # if_nametoindex), but an initramfs speaks DoT only through dnsconfd.
        warning(_("the link-local server %s is used by this addon's Unbound forwarder (the "
                "installer and the installed system) only: the installer's initramfs speaks "
                "DoT through NetworkManager's dnsconfd plugin, which drops the interface, so "
                "'edns-addon boot-args' and 'overlay' refuse it") % server.uri(), server)


def _loopback_warning(server, backend):
    """Why SERVER, on loopback, is never queried by the resolver BACKEND runs."""
    if backend == Backend.DNSCONFD:
        # dnsconfd writes "do-not-query-address: 127.0.0.1/8" into its Unbound
        # configuration (src/dns_managers/unbound_manager.c, generate_listen_address);
        # Unbound's default do-not-query-localhost: yes adds 127.0.0.0/8 and ::1
        # (iterator/iter_donotq.c, donotq_apply_cfg).
        return _("dnsconfd's Unbound never queries the loopback server %s: dnsconfd writes "
                 "'do-not-query-address: 127.0.0.1/8' and Unbound's default "
                 "'do-not-query-localhost: yes' also excludes ::1; give the server's own "
                 "address on the network") % server.uri()
    return _("Unbound never queries the loopback server %s while 'do-not-query-localhost' "
             "is yes, its default, which this addon leaves alone; give the server's own "
             "address on the network, or set 'do-not-query-localhost: no' in Unbound's own "
             "configuration") % server.uri()


def _never_queried(server):
    """Whether the resolver never sends SERVER a query, whatever the rest of the section.

    Loopback: dnsconfd writes "do-not-query-address: 127.0.0.1/8" into its Unbound's
    configuration (src/dns_managers/unbound_manager.c, generate_listen_address; it even
    writes "forward-addr: 127.0.0.1" for "." as the forwarder that answers nothing when
    no server serves it, generate_forward_zones), and Unbound's default
    "do-not-query-localhost: yes" puts 127.0.0.0/8 and ::1 on the do-not-query list
    (iterator/iter_donotq.c, donotq_apply_cfg; doc/example.conf.in, util/config_file.c).
    The other addresses Unbound never queries, 0.0.0.0/8 and ::ffff:0:0/96, are refused
    outright (parse_address), so no server here has one.
    """
    return server.address.is_loopback


def _unserved_zone_error(zone, servers, backend, plaintext_unused=False):
    """Why ZONE, whose every server the resolver uses (SERVERS) is one it never queries,
    has no DNS; PLAINTEXT_UNUSED: the zone's plaintext servers are not among them."""
    uris = ", ".join(server.uri() for server in servers)
    if plaintext_unused:
        return P_("%(zone)s would have no DNS: dnsconfd uses only the DoT servers of a zone "
                  "that has any, never its plaintext ones, and the DoT server for them, "
                  "%(servers)s, is on loopback, which dnsconfd's Unbound never queries "
                  "(dnsconfd writes 'do-not-query-address: 127.0.0.1/8' and Unbound's "
                  "default 'do-not-query-localhost: yes' also excludes ::1); give the "
                  "server's own address on the network instead",
                  "%(zone)s would have no DNS: dnsconfd uses only the DoT servers of a zone "
                  "that has any, never its plaintext ones, and the DoT servers for them, "
                  "%(servers)s, are on loopback, which dnsconfd's Unbound never queries "
                  "(dnsconfd writes 'do-not-query-address: 127.0.0.1/8' and Unbound's "
                  "default 'do-not-query-localhost: yes' also excludes ::1); give the "
                  "servers' own addresses on the network instead",
                  len(servers)) % {"zone": zone, "servers": uris}
    if backend == Backend.DNSCONFD:
        return P_("%(zone)s would have no DNS: the only server for them, %(servers)s, is "
                  "on loopback, which dnsconfd's Unbound never queries (dnsconfd writes "
                  "'do-not-query-address: 127.0.0.1/8' and Unbound's default "
                  "'do-not-query-localhost: yes' also excludes ::1); give the server's own "
                  "address on the network instead",
                  "%(zone)s would have no DNS: the only servers for them, %(servers)s, "
                  "are on loopback, which dnsconfd's Unbound never queries (dnsconfd writes "
                  "'do-not-query-address: 127.0.0.1/8' and Unbound's default "
                  "'do-not-query-localhost: yes' also excludes ::1); give the servers' own "
                  "addresses on the network instead",
                  len(servers)) % {"zone": zone, "servers": uris}
    # The installer's initramfs speaks through dnsconfd whatever --backend says, and this
    # addon leaves Unbound's do-not-query-localhost alone: neither ever asks loopback.
    return P_("%(zone)s would have no DNS: the only server for them, %(servers)s, is on "
              "loopback, which Unbound never queries while 'do-not-query-localhost' is yes, "
              "its default, and which dnsconfd in the installer's initramfs never queries; "
              "give the server's own address on the network instead",
              "%(zone)s would have no DNS: the only servers for them, %(servers)s, are on "
              "loopback, which Unbound never queries while 'do-not-query-localhost' is yes, "
              "its default, and which dnsconfd in the installer's initramfs never queries; "
              "give the servers' own addresses on the network instead",
              len(servers)) % {"zone": zone, "servers": uris}


def mode_plaintext_warning(mode, backend):
    """What plaintext MODE lets out with BACKEND, as a sentence; None for exclusive.

    NetworkManager.conf(5) on resolve-mode: "prefer" forbids a connection's own DNS
    servers only for names outside that connection's domains, "backup" lets them be
    used for every name, "exclusive" for none. dnsconfd does that
    (src/dns_managers/unbound_manager.c, get_used_servers and effective_ca_from_uris: a
    server bound to an interface is skipped in MODE_EXCLUSIVE, and for "." in
    MODE_PREFER; unittests/test_unbound_manager.c test_get_used_servers_interface_backup,
    _prefer_root, _prefer_nonroot, _exclusive). A connection's servers are those its
    DHCP or router advertisements gave, asked in plaintext. The installer's initramfs
    speaks through dnsconfd whatever --backend says (rd.net.dns-resolve-mode); with
    --backend=unbound, NetworkManager hands nothing to a resolver afterwards (dns=none).
    """
    values = {"mode": terms.resolve_mode(mode), "exclusive": terms.resolve_mode(
        ResolveMode.EXCLUSIVE)}
    if mode == ResolveMode.PREFER:
        if backend == Backend.DNSCONFD:
            return _("%(mode)s lets plaintext DNS leave the host: dnsconfd also sends each "
                     "name in a connection's own domains to that connection's own DNS "
                     "servers (from DHCP or router advertisements, in plaintext), and only "
                     "other names go to these servers alone; use %(exclusive)s for no "
                     "plaintext query at all") % values
        return _("%(mode)s lets plaintext DNS leave the installer's initramfs, which speaks "
                 "through dnsconfd with either backend: it also sends each name in a "
                 "connection's own domains to that connection's own DNS servers (from DHCP "
                 "or router advertisements, in plaintext); this addon's Unbound forwarder, "
                 "used afterwards, asks these servers alone; use %(exclusive)s for no "
                 "plaintext query at all") % values
    if mode == ResolveMode.BACKUP:
        if backend == Backend.DNSCONFD:
            return _("%(mode)s lets plaintext DNS leave the host for every name: dnsconfd "
                     "may use each connection's own DNS servers (from DHCP or router "
                     "advertisements, in plaintext) beside these servers, for any name; use "
                     "%(exclusive)s for no plaintext query at all") % values
        return _("%(mode)s lets plaintext DNS leave the installer's initramfs for every "
                 "name: it speaks through dnsconfd with either backend, and may use each "
                 "connection's own DNS servers (from DHCP or router advertisements, in "
                 "plaintext) beside these servers, for any name; this addon's Unbound "
                 "forwarder, used afterwards, asks these servers alone; use %(exclusive)s "
                 "for no plaintext query at all") % values
    return None


def _dot_on_port_53(server):
    """The warning of a DoT SERVER on port 53: DNS over TLS has its own port, 853 (RFC 7858
    section 3.1, which also forbids DoT on 53), and a resolver on 53 speaks plaintext DNS,
    so every TLS handshake fails and the names go unresolved."""
    return _("the DoT server %s is on port 53, plaintext DNS's port: DNS over TLS listens on "
             "853, and RFC 7858 forbids 53 for it, where a DNS server answers in plaintext and "
             "every TLS handshake fails; drop ':53' (853 is the default), unless this server "
             "really speaks TLS on 53") % server.uri()


def _first_on(server):
    if server.lineno is None:
        return ""
    if server.filename is None:
        return _(" (first on line %d)") % server.lineno
    return _(" (first on %s:%d)") % (server.filename, server.lineno)


@dataclass(frozen=True)
class EdnsConfig:
    """An encrypted DNS configuration, as the kickstart asked for it."""
    servers: Tuple[DotServer, ...] = ()
    resolve_mode: ResolveMode = ResolveMode.EXCLUSIVE
    backend: Backend = Backend.DNSCONFD
    searches: Tuple[str, ...] = ()
    ca_names: Tuple[str, ...] = ()

    @property
    def default_servers(self):
        """Servers for ``*`` (no routed domain)."""
        return tuple(s for s in self.servers if not s.domains)

    def routed_domains(self):
        """Routed domains in first-seen order, each with its servers."""
        routes = {}
        for server in self.servers:
            for domain in server.domains:
                routes.setdefault(domain, []).append(server)
        return {domain: tuple(servers) for domain, servers in routes.items()}

    def unbound_zones_lifted(self):
        """The names Unbound's own default zones (``names.UNBOUND_DEFAULT_ZONES``) would keep
        from the routed domains, each to be a ``transparent`` local zone: a routed domain
        in such a zone (the closest local zone then is the domain's own, without data, and
        Unbound resolves its names through the forward zone), and every such zone inside a
        routed domain (the zone's own name replaces its default). Unbound's zones of the
        host's own loopback names are never lifted; names outside the routed domains stay
        Unbound's (RFC 6303: private reverse zones are not asked of public servers)."""
        lifted = []
        for domain in self.routed_domains():
            zone = unbound_zone_of(domain)
            if zone is not None and zone not in UNBOUND_LOOPBACK_ZONES:
                lifted.append(domain)
            lifted += [below for below in unbound_zones_below(domain)
                       if below not in UNBOUND_LOOPBACK_ZONES]
        return tuple(dict.fromkeys(lifted))

    def _local_zone_problems(self, error, warning):
        """Routed domains Unbound keeps to itself (``unbound_zones_lifted``), on the line of
        the first server routing each (with --backend=unbound, one warning a line).

        dnsconfd cannot lift them: the Unbound configuration it writes holds forward zones
        and no local-zone (2.2.2 and every release before, src/dns_managers/
        unbound_manager.c write_configuration), and its distribution/dnsconfd-prepare.sh
        links Fedora's unbound-as112-networks.conf into Unbound's conf.d to "revert
        enablement of as112 domain resolution". Our Unbound file can
        (staging/unbound.py); the installer's initramfs speaks through dnsconfd whatever
        --backend says."""
        lifted = {}
        for domain, servers in self.routed_domains().items():
            first = servers[0]
            zone = unbound_zone_of(domain)
            if zone in UNBOUND_LOOPBACK_ZONES:
                error(_("%s is the host's own loopback names (RFC 6761, 6303), which "
                        "Unbound answers itself with either backend and never forwards; drop "
                        "it from %s") % (terms.ROUTED_DOMAIN(domain), terms.ROUTED_DOMAINS),
                      first)
                continue
            below = [name for name in unbound_zones_below(domain)
                     if name not in UNBOUND_LOOPBACK_ZONES]
            if zone is None and not below:
                continue
            if self.backend == Backend.UNBOUND:
                lifted.setdefault((first.lineno, first.filename), (first, []))[1].extend(
                    [domain] if zone is not None else below)
            elif zone is not None:
                error(_("the names in %(domain)s never reach %(server)s: %(zone)s is a zone "
                        "Unbound answers itself (NXDOMAIN for every name: special-use names "
                        "and the reverse zones of private addresses, RFC 6761, 6303 and 8375), "
                        "and dnsconfd writes no local-zone into Unbound's configuration to "
                        "lift it; use %(unbound)s, whose Unbound file lifts it for the "
                        "routed domains") % {"domain": domain, "server": servers[0].uri(),
                                             "zone": zone,
                                             "unbound": terms.backend(Backend.UNBOUND)},
                      first)
            else:
                warning(_("the names in %(zones)s, inside %(domain)s, never reach "
                          "%(server)s: Unbound answers those zones itself (NXDOMAIN, RFC 6303), "
                          "and dnsconfd writes no local-zone into Unbound's configuration to "
                          "lift them; use %(unbound)s, whose Unbound file lifts them")
                        % {"zones": ", ".join(below), "domain": terms.ROUTED_DOMAIN(domain),
                           "server": servers[0].uri(),
                           "unbound": terms.backend(Backend.UNBOUND)}, first)
        for first, names in lifted.values():
            warning(_("the names in %s, which Unbound keeps to itself by default (special-use "
                      "names and the reverse zones of private addresses, RFC 6761, 6303 and "
                      "8375), are forwarded by this addon's Unbound (it writes a transparent "
                      "local-zone for them); the installer's initramfs, which speaks through "
                      "dnsconfd with either backend, gives them NXDOMAIN: name no host "
                      "there in the installer's boot options (inst.ks=, inst.repo=)")
                    % ", ".join(names), first)

    def _plaintext_behind_dot(self):
        """(plaintext server, the zones where a DoT server shadows it, that DoT server),
        where the resolver is dnsconfd (``_used_servers``)."""
        shadowed = {}
        for listed, _sentence, servers in self._zones():
            used = self._used_servers(servers)
            for server in servers:
                if server not in used:
                    shadowed.setdefault(server, ([], used[0]))[0].append(listed)
        return [(server, names, dot) for server, (names, dot) in shadowed.items()]

    def _zones(self):
        """(a zone's names as a list names them, as a sentence does, its servers): all
        names, then each routed domain, as the resolver's forward zones have them
        (staging/unbound.py; dnsconfd one per domain of [global-dns-domain-*])."""
        zones = [(_("all names"), _("all names"), self.default_servers)]
        zones += [(domain, _("the names in %s") % domain, servers)
                  for domain, servers in self.routed_domains().items()]
        return zones

    def _used_servers(self, servers):
        """Those of a zone's SERVERS that its resolver uses: all of them, but with dnsconfd
        only the DoT servers of a zone that has any. dnsconfd (src/dns_managers/
        unbound_manager.c, get_used_servers; its unittests/test_unbound_manager.c
        test_get_used_servers_protocol and tests/prioritize_encrypted_protocols) sorts a
        zone's servers by priority, then protocol (dns+tls above dns+udp), and hands
        Unbound only those of the first priority and protocol; NetworkManager gives every
        [global-dns] server the same priority."""
        if self.backend == Backend.DNSCONFD:
            return tuple(server for server in servers if server.tls) or servers
        return servers

    def _unserved_zones(self):
        """{(used servers, whether plaintext ones are left unused): [zone, …]} of the zones
        that have servers, none of those their resolver uses ever queried."""
        unserved = {}
        for _listed, zone, servers in self._zones():
            used = self._used_servers(servers)
            if used and all(_never_queried(server) for server in used):
                unserved.setdefault((used, used != servers), []).append(zone)
        return unserved

    def problems(self, header_lineno=None, all_servers_read=True):
        """Check the rules that need nothing but this configuration.

        ALL_SERVERS_READ False (some server lines were refused) skips the rules
        about missing servers, which would only repeat those errors: none at all,
        none for all names, and a zone (all names, or a routed domain) whose every
        server is one the resolver never queries (an error on its first server's
        line, naming the zone; a loopback server beside one that is asked is a
        warning on its own line).
        """
        found = []

        def error(message, server=None):
            found.append(_problem(Severity.ERROR, message, server, header_lineno))

        def warning(message, server=None):
            found.append(_problem(Severity.WARNING, message, server, header_lineno))

        if all_servers_read and not self.servers:
            error(_("no DNS server is given; add %s like dns+tls://192.0.2.53#dot.example")
                  % terms.SERVER_LINE)
        elif all_servers_read and not self.default_servers:
            error(_("every server has %(routed)s; add at least one server without "
                    "%(routed)s to serve all other names") % {"routed": terms.ROUTED_DOMAINS})
        unserved = self._unserved_zones() if all_servers_read else {}
        for (servers, plaintext_unused), zones in unserved.items():
            error(_unserved_zone_error(" and ".join(zones), servers, self.backend,
                                       plaintext_unused), servers[0])
        in_unserved_zone = {server for servers, _unused in unserved for server in servers}
        seen = {}
        for server in self.servers:
            if server.tls and not server.name:
                error(_("the DoT server %s has no TLS name, so it cannot be authenticated; "
                        "append %s as in its certificate, like %s#dot.example")
                      % (server.uri(), terms.TLS_NAME_SUFFIX, server.uri()), server)
            if not server.tls and self.resolve_mode != ResolveMode.BACKUP:
                error(_("the plaintext server %s is refused with %s; use %s (plaintext is "
                        "allowed only with %s)") % (
                            server.uri(), terms.resolve_mode(self.resolve_mode),
                            terms.DOT_SERVER_FORM, terms.resolve_mode(ResolveMode.BACKUP)),
                      server)
            elif not server.tls and self.backend == Backend.UNBOUND:
                # The unbound forwarder sets TLS per forward zone, so one plaintext
                # server would turn TLS off for every server of its zone.
                error(_("the plaintext server %s cannot be used with %s; use %s or %s") % (
                    server.uri(), terms.backend(Backend.UNBOUND), terms.DOT_SERVER_FORM,
                    terms.backend(Backend.DNSCONFD)), server)
            if server.tls and server.port == PLAIN_DNS_PORT:
                warning(_dot_on_port_53(server), server)
            if server.is_link_local:
                _link_local_problem(server, self.backend, error, warning)
            if _never_queried(server) and server not in in_unserved_zone:
                warning(_loopback_warning(server, self.backend), server)
            if server.key in seen:
                error(_("the server %s is given twice%s; remove one")
                      % (server.kickstart_line(), _first_on(seen[server.key])), server)
            else:
                seen[server.key] = server
        if self.backend == Backend.DNSCONFD and self.resolve_mode == ResolveMode.BACKUP:
            for server, zones, dot in self._plaintext_behind_dot():
                warning(_("the plaintext server %s is never used by dnsconfd for %s, which "
                          "the DoT server %s serves too: in each zone it uses only the "
                          "servers of the best protocol, so there is no fallback to "
                          "plaintext; remove it, or give it %s that no DoT server serves")
                        % (server.uri(), " and ".join(zones), dot.uri(),
                           terms.ROUTED_DOMAINS), server)
        self._local_zone_problems(error, warning)
        plaintext = mode_plaintext_warning(self.resolve_mode, self.backend)
        if plaintext is not None:
            warning(plaintext)
        for names, what in ((self.ca_names, terms.CA_LIST), (self.searches, terms.SEARCH)):
            if len(set(names)) != len(names):
                error(_("%s lists a name twice") % what)
        return found
