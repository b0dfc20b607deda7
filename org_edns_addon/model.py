"""The validated model of an encrypted DNS configuration.

Everything that reaches a config file passes through here first: addresses
through ``ipaddress``, names through ``idna`` and a strict label check, so a
newline, ``,``, ``#``, ``[``, ``]``, a space or a quote can never be smuggled
into a NetworkManager keyfile or an Unbound config line.
"""

import enum
import ipaddress
import re
from dataclasses import dataclass, field
from typing import Optional, Tuple

import idna

from org_edns_addon.constants import DOT_PORT, PLAIN_DNS_PORT


class ModelError(ValueError):
    """A value a user gave is not valid; the message says why and how to fix it."""


class ResolveMode(str, enum.Enum):
    EXCLUSIVE = "exclusive"
    PREFER = "prefer"
    BACKUP = "backup"


class Backend(str, enum.Enum):
    DNSCONFD = "dnsconfd"
    UNBOUND = "unbound"


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One finding about a configuration, with where it was found if known."""
    severity: Severity
    message: str
    lineno: Optional[int] = None
    filename: Optional[str] = None

    def __str__(self):
        where = ""
        if self.filename is not None and self.lineno is not None:
            where = "%s:%d: " % (self.filename, self.lineno)
        elif self.filename is not None:
            where = "%s: " % self.filename
        elif self.lineno is not None:
            where = "line %d: " % self.lineno
        return "%s%s: %s" % (where, self.severity.value, self.message)


@dataclass
class SectionPlace:
    """Where a kickstart section was read: file, header line, the spelling used, last line."""
    filename: str
    lineno: int
    spelling: str = ""
    end_lineno: Optional[int] = None


class ValidationError(ValueError):
    """A configuration with errors cannot be used; ``problems`` are its errors."""

    def __init__(self, problems, message=None):
        self.problems = [problem for problem in problems if problem.severity == Severity.ERROR]
        super().__init__(message or "the encrypted DNS configuration has errors: %s"
                         % "; ".join(problem.message for problem in self.problems))


TLS_SCHEME = "dns+tls"
PLAIN_SCHEME = "dns+udp"
# \Z, not $: "$" also matches before a final newline, which must never pass.
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)\Z")
_IFACE = re.compile(r"^[A-Za-z0-9_.-]{1,15}\Z")
_URI = re.compile(r"^(?P<scheme>[A-Za-z0-9+.-]+)://(?P<rest>.*)\Z")
# ASCII digits only: str.isdigit() also accepts '²' and other scripts' digits.
_PORT = re.compile(r"^[0-9]{1,5}\Z")


def normalize_dns_name(text, what="name"):
    """Return TEXT as a lower-case ASCII DNS name (IDNA A-labels), or raise ModelError."""
    if not isinstance(text, str) or not text:
        raise ModelError("the %s is empty" % what)
    if text.endswith(".") and text != ".":
        text = text[:-1]
    if text.isascii():
        # Most names are plain ASCII: where IDNA would only lower-case them, skip its
        # (costly) per-character tables. Anything else, errors included, takes IDNA's path.
        name = text.lower()
        if len(name) <= 253 and all(_LABEL.match(label) and label[2:4] != "--"
                                    for label in name.split(".")):
            return name
    return _idna_name(text, what)


def _idna_name(text, what):
    try:
        ascii_name = idna.encode(text, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError) as error:
        raise ModelError("%r is not a valid DNS %s (%s); use letters, digits, '-' and '.'"
                         % (text, what, error)) from None
    ascii_name = ascii_name.lower()
    for label in ascii_name.split("."):
        if not _LABEL.match(label):
            raise ModelError("%r is not a valid DNS %s: label %r may hold only letters, "
                             "digits and inner '-'" % (text, what, label))
    return ascii_name


def parse_address(text):
    """Parse an IP address, with an optional ``%iface`` scope for link-local IPv6."""
    if not isinstance(text, str):
        raise ModelError("%r is not an IPv4 or IPv6 address" % (text,))
    scope = None
    if "%" in text:
        text, scope = text.split("%", 1)
        if not _IFACE.match(scope):
            raise ModelError("%r is not a valid interface name for a link-local address" % scope)
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise ModelError("%r is not an IPv4 or IPv6 address" % text) from None
    if scope is not None:
        if address.version != 6 or not address.is_link_local:
            raise ModelError("only a link-local IPv6 address (fe80::/10) may carry "
                             "'%%%s'" % scope)
        address = ipaddress.IPv6Address("%s%%%s" % (address, scope))
    elif address.version == 6 and address.is_link_local:
        raise ModelError("the link-local address %s needs its interface: write it as "
                         "[%s%%eth0]" % (address, address))
    if address.is_unspecified or address.is_multicast or \
            address == ipaddress.IPv4Address("255.255.255.255"):
        raise ModelError("%s cannot be a DNS server's address (it is %s); give the "
                         "server's own unicast address" % (
                             address, "unspecified" if address.is_unspecified
                             else "multicast or broadcast"))
    return address


def _parse_port(text):
    if not _PORT.match(text):
        _refuse_port(text)
    return check_port(int(text))


def _refuse_port(value):
    raise ModelError("port %r is out of range; use a number from 1 to 65535" % value)


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
        if not text or any(c.isspace() for c in text):
            raise ModelError("a server must be one word, like dns+tls://192.0.2.53#dot.example")
        match = _URI.match(text)
        if match:
            scheme = match.group("scheme").lower()
            if scheme not in (TLS_SCHEME, PLAIN_SCHEME):
                raise ModelError("unknown scheme %r in %r; use dns+tls:// (or dns+udp:// for "
                                 "plaintext)" % (match.group("scheme"), text))
            tls = scheme == TLS_SCHEME
            rest = match.group("rest")
            bare = False
        else:
            tls = "#" in text
            rest = text
            bare = True

        hostport, sep, name = rest.partition("#")
        if sep and not name:
            raise ModelError("%r has an empty TLS name after '#'" % text)
        if rest.startswith("["):
            end = hostport.find("]")
            if end < 0:
                raise ModelError("%r has '[' without a closing ']'" % text)
            address_text = hostport[1:end]
            after = hostport[end + 1:]
            if after and not after.startswith(":"):
                raise ModelError("unexpected %r after the address in %r" % (after, text))
            port_text = after[1:] if after else None
            address = parse_address(address_text)
            if address.version != 6:
                raise ModelError("only IPv6 addresses go in brackets: %r" % text)
        else:
            if hostport.count(":") > 1:
                if not bare:
                    raise ModelError("the IPv6 address in %r must be in brackets, like "
                                     "dns+tls://[2001:db8::53]:853#dot.example" % text)
                address_text, port_text = hostport, None
            else:
                address_text, _, port_text = hostport.partition(":")
                if port_text == "" and ":" in hostport:
                    raise ModelError("%r has an empty port after ':'" % text)
                port_text = port_text or None
            address = parse_address(address_text)
        port = _parse_port(port_text) if port_text is not None else None
        if name and not tls:
            raise ModelError("%r is plaintext (dns+udp://) and cannot carry a TLS name; "
                             "use dns+tls://" % text)
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
            raise ModelError("a plaintext server cannot carry a TLS name; use DoT or drop "
                             "the name")
        if isinstance(domains, str):
            raise ModelError("domains must be a list of domain names")
        return cls(
            address=address,
            port=check_port(port),
            name=normalize_dns_name(name, "TLS name") if name else None,
            domains=tuple(normalize_domains(domains)),
            tls=bool(tls),
            lineno=lineno,
            filename=filename,
        )

    @classmethod
    def parse_line(cls, line, lineno=None, filename=None):
        """Parse one ``%edns`` body line: ``SERVER [domain=D[,D]]``."""
        words = line.split()
        if not words:
            raise ModelError("empty server line")
        domains = ()
        for word in words[1:]:
            key, sep, value = word.partition("=")
            if key != "domain" or not sep:
                raise ModelError("unexpected %r after the server; the only option of a "
                                 "server line is domain=DOMAIN[,DOMAIN]" % word)
            if domains:
                raise ModelError("domain= is given twice; list all domains in one "
                                 "domain=A,B")
            domains = tuple(value.split(","))
            if not value or "" in domains:
                raise ModelError("domain= needs a comma-separated list of domains")
        domains = tuple(normalize_domains(domains))
        if len(set(domains)) != len(domains):
            raise ModelError("domain= lists a domain twice; list each domain once")
        return cls.parse_uri(words[0], domains, lineno=lineno, filename=filename)

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


def normalize_domains(domains, what="domain"):
    """Each of DOMAINS through ``normalize_dns_name``, in order."""
    return [normalize_dns_name(domain, what) for domain in domains]


def _first_on(server):
    if server.lineno is None:
        return ""
    if server.filename is None:
        return " (first on line %d)" % server.lineno
    return " (first on %s:%d)" % (server.filename, server.lineno)


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

    def problems(self, header_lineno=None, all_servers_read=True):
        """Check the rules that need nothing but this configuration.

        ALL_SERVERS_READ False (some server lines were refused) skips the rules
        about missing servers, which would only repeat those errors.
        """
        found = []

        def error(message, lineno, filename=None):
            found.append(Problem(Severity.ERROR, message, lineno, filename))

        if all_servers_read and not self.servers:
            error("no DNS server is given; add a line like "
                  "dns+tls://192.0.2.53#dot.example", header_lineno)
        elif all_servers_read and not self.default_servers:
            error("every server is routed with domain=; add at least one server without "
                  "domain= to serve all other names", header_lineno)
        seen = {}
        for server in self.servers:
            where = (server.lineno, server.filename)
            if server.tls and not server.name:
                error("the DoT server %s has no TLS name, so it cannot be authenticated; "
                      "append #NAME as in its certificate, like %s#dot.example"
                      % (server.uri(), server.uri()), *where)
            if not server.tls and self.resolve_mode != ResolveMode.BACKUP:
                error("the plaintext server %s is refused with --resolve-mode=%s; use "
                      "dns+tls://ADDR#NAME (plaintext is allowed only with "
                      "--resolve-mode=backup)" % (server.uri(), self.resolve_mode.value),
                      *where)
            elif not server.tls and self.backend == Backend.UNBOUND:
                # The unbound forwarder sets TLS per forward zone, so one plaintext
                # server would turn TLS off for every server of its zone.
                error("the plaintext server %s cannot be used with --backend=unbound; use "
                      "dns+tls://ADDR#NAME or --backend=dnsconfd" % server.uri(), *where)
            if server.key in seen:
                error("the server %s is given twice%s; remove one"
                      % (server.kickstart_line(), _first_on(seen[server.key])), *where)
            else:
                seen[server.key] = server
        for names, what in ((self.ca_names, "--ca"), (self.searches, "--search")):
            if len(set(names)) != len(names):
                error("%s lists a name twice" % what, header_lineno)
        return found
