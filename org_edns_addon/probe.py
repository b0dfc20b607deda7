"""Pre-flight check of DNS servers: reachable, authenticated, answering.

For each server of an ``EdnsConfig``, concurrently: a TLS handshake that
verifies the certificate against the DoT CA bundle (or the system trust store,
as the installation would) with the server's TLS name as SNI and as the name to
match, then one DNS query. Each result says either how long the answer took or,
in words a user can act on, why it failed. The CLI, the text UI and the D-Bus
module all call ``check_servers``.

dnspython and cryptography are imported only when needed, so importing this
module costs little in the installer's processes.
"""

import enum
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import List, Optional

from org_edns_addon.constants import CHECK_QUERY_TYPE, CHECK_TIMEOUT_SECONDS
from org_edns_addon.model import DotServer, EdnsConfig

# OpenSSL's X509_V_ERR_* verification results that mean "issuer not trusted".
_UNKNOWN_ISSUER_CODES = frozenset((2, 18, 19, 20, 21))
_NOT_YET_VALID_CODE = 9
_EXPIRED_CODE = 10
_HOSTNAME_MISMATCH_CODE = 62
# Extra time, beyond the per-server timeout, for a thread to report before it is given up.
_JOIN_GRACE_SECONDS = 1.0
_DNS_LENGTH_BYTES = 2
# A socket timeout: on Python 3.9 (EL9) socket.timeout is an OSError but not yet a
# TimeoutError (one class from 3.10 on).
_SOCKET_TIMEOUT = (TimeoutError, socket.timeout)


class Outcome(str, enum.Enum):
    """What a check found; the value is the short label shown to users."""
    OK = "ok"
    UNKNOWN_CA = "unknown CA"
    NAME_MISMATCH = "name mismatch"
    EXPIRED = "certificate expired"
    NOT_YET_VALID = "certificate not yet valid"
    CERTIFICATE_REJECTED = "certificate rejected"
    CONNECTION_REFUSED = "connection refused"
    TIMEOUT = "timeout"
    TLS_FAILED = "TLS handshake failed"
    UNREACHABLE = "unreachable"
    BAD_ANSWER = "bad answer"
    DNS_ERROR = "DNS error"


@dataclass(frozen=True)
class ServerCheck:
    """The result of checking one server.

    ``reason`` is a sentence: what was asked and answered when ``ok``, else
    why the check failed and what to do about it. ``rtt_ms`` is the time from
    connecting to the answer (TCP and TLS handshakes included), when ``ok``.
    """
    server: DotServer
    outcome: Outcome
    reason: str
    rtt_ms: Optional[float] = None

    @property
    def ok(self):
        return self.outcome is Outcome.OK

    def describe(self):
        """One line for users: the server, then ok with the time, or the failure."""
        if self.ok:
            return "%s: ok, %.0f ms (%s)" % (self.server.uri(), self.rtt_ms, self.reason)
        return "%s: %s: %s" % (self.server.uri(), self.outcome.value, self.reason)


class _Failed(Exception):
    def __init__(self, outcome, reason):
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


def check_servers(config: EdnsConfig, ca_bundle: Optional[bytes] = None,
                  qname: Optional[str] = None, timeout: float = CHECK_TIMEOUT_SECONDS,
                  anchors: Optional[bytes] = None) -> List[ServerCheck]:
    """Check every server of CONFIG at once; results in the order of the servers.

    CA_BUNDLE (PEM) alone authenticates the DoT servers when given; otherwise
    the system trust store plus ANCHORS (PEM) does. QNAME is the name asked
    (default: the server's first routed domain, else its TLS name). Each server
    gets TIMEOUT seconds for everything.
    """
    context = _verifying_context(ca_bundle, anchors)
    trusted_by = ("a CA of the kickstart's --ca bundle" if ca_bundle is not None else
                  "a CA the system trusts (or a %certificate --type=anchor)")
    results: List[Optional[ServerCheck]] = [None] * len(config.servers)

    def check(index, server):
        results[index] = _ServerProbe(server, context, trusted_by, timeout).run(qname)

    threads = [threading.Thread(target=check, args=item, daemon=True)
               for item in enumerate(config.servers)]
    give_up = time.monotonic() + timeout + _JOIN_GRACE_SECONDS
    for thread in threads:
        thread.start()
    # Load dnspython while the connections and TLS handshakes are under way. An
    # installer image may lack it: then say so (dependencies.Unusable), not "timeout".
    from org_edns_addon.dependencies import load
    load("dns.message", "the pre-flight check of the DNS servers")
    for thread in threads:
        thread.join(max(0.0, give_up - time.monotonic()))
    return [result or ServerCheck(server, Outcome.TIMEOUT,
                                  "no result within %g s" % timeout)
            for server, result in zip(config.servers, list(results))]


def check_staging_input(data, qname=None, timeout=CHECK_TIMEOUT_SECONDS):
    """``check_servers`` with the trust the installation will use for a StagingInput
    (``data.trust``: the kickstart's certificates alone, or the system store plus
    every ``%certificate --type=anchor``)."""
    from org_edns_addon.certificates import build_bundle

    trust = data.trust
    if trust.explicit:
        return check_servers(data.config, build_bundle(trust.blocks), qname, timeout)
    return check_servers(data.config, None, qname, timeout, build_bundle(trust.anchors) or None)


def _verifying_context(ca_bundle, anchors):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)   # verifies chain and host name
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if ca_bundle is not None:
        context.load_verify_locations(cadata=ca_bundle.decode("ascii"))
    else:
        context.load_default_certs()
        if anchors:
            context.load_verify_locations(cadata=anchors.decode("ascii"))
    return context


class _ServerProbe:
    """One server's check, within one deadline for everything."""

    def __init__(self, server, context, trusted_by, timeout):
        self.server = server
        self.context = context
        self.trusted_by = trusted_by
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout

    def run(self, qname):
        name = qname or (self.server.domains[0] if self.server.domains
                         else self.server.name) or "."
        started = time.monotonic()
        try:
            if self.server.tls:
                query, wire = self._ask_over_tls(name)
            else:
                query, wire = self._ask_over_udp(name)
            rtt_ms = (time.monotonic() - started) * 1000
            return _judge_answer(self.server, query, wire, name, rtt_ms)
        except _Failed as failure:
            return ServerCheck(self.server, failure.outcome, failure.reason)

    def _in_time(self, what):
        """Seconds left for WHAT, or a timeout failure saying WHAT did not happen."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self._timeout(what)
        return left

    def _timeout(self, what, advice=""):
        return _Failed(Outcome.TIMEOUT, "%s within %g s%s" % (what, self.timeout, advice))

    def _connect(self):
        address = (str(self.server.address), self.server.port)
        try:
            return socket.create_connection(address, timeout=self._in_time("no connection"))
        except ConnectionRefusedError:
            raise _Failed(Outcome.CONNECTION_REFUSED, "nothing accepts connections on this "
                          "address and port; check both") from None
        except _SOCKET_TIMEOUT:
            raise self._timeout("no connection", "; check the address, the routing and "
                                "firewalls") from None
        except OSError as error:
            raise _Failed(Outcome.UNREACHABLE, "cannot connect: %s; check the address and "
                          "the network" % (error.strerror or error)) from None

    def _ask_over_tls(self, name):
        """(query, answer wire) of asking NAME over an authenticated TLS connection."""
        sock = self._connect()
        no_handshake = "the port accepts connections but no TLS handshake completed"
        try:
            sock.settimeout(self._in_time(no_handshake))
            tls = self.context.wrap_socket(sock, server_hostname=self.server.name)
        except ssl.SSLCertVerificationError as error:
            raise self._certificate_failure(error) from None
        except _SOCKET_TIMEOUT:
            raise self._timeout(no_handshake, "; is it a DNS over TLS server?") from None
        except ssl.SSLError as error:
            raise _Failed(Outcome.TLS_FAILED, "%s; is this a DNS over TLS server?"
                          % (error.reason or error)) from None
        except OSError:
            raise _Failed(Outcome.TLS_FAILED, "the server closed the connection during the TLS "
                          "handshake; is it a DNS over TLS server?") from None
        finally:
            sock.close()
        with tls:
            query = _make_query(name)
            wire = query.to_wire()
            tls.sendall(len(wire).to_bytes(_DNS_LENGTH_BYTES, "big") + wire)
            length = int.from_bytes(self._receive(tls, _DNS_LENGTH_BYTES), "big")
            return query, self._receive(tls, length)

    def _receive(self, tls, count):
        """Exactly COUNT bytes from TLS before the deadline."""
        no_answer = "TLS works, but no DNS answer came"
        data = b""
        while len(data) < count:
            tls.settimeout(self._in_time(no_answer))
            try:
                chunk = tls.recv(count - len(data))
            except _SOCKET_TIMEOUT:
                raise self._timeout(no_answer) from None
            except OSError as error:
                raise _Failed(Outcome.BAD_ANSWER, "the connection broke before the answer: "
                              "%s" % error) from None
            if not chunk:
                raise _Failed(Outcome.BAD_ANSWER, "the server closed the connection without "
                              "answering")
            data += chunk
        return data

    def _ask_over_udp(self, name):
        """(query, answer wire) of asking NAME in plaintext over UDP."""
        query = _make_query(name)
        wire = query.to_wire()
        family = socket.AF_INET6 if self.server.address.version == 6 else socket.AF_INET
        no_answer = "no plaintext (UDP) DNS answer"
        with socket.socket(family, socket.SOCK_DGRAM) as sock:
            try:
                sock.connect((str(self.server.address), self.server.port))
                sock.send(wire)
                sock.settimeout(self._in_time(no_answer))
                return query, sock.recv(65535)
            except ConnectionRefusedError:
                raise _Failed(Outcome.CONNECTION_REFUSED, "nothing answers on this address "
                              "and UDP port; check both") from None
            except _SOCKET_TIMEOUT:
                raise self._timeout(no_answer) from None
            except OSError as error:
                raise _Failed(Outcome.UNREACHABLE, "cannot reach the server: %s"
                              % (error.strerror or error)) from None

    def _certificate_failure(self, error):
        """A _Failed saying why the server's certificate was refused, with its details."""
        code = error.verify_code
        certificate = self._unverified_certificate()
        name = self.server.name
        if code == _HOSTNAME_MISMATCH_CODE:
            names = _certificate_names(certificate) if certificate else []
            has = ("is for %s, not %s" % (", ".join(names), name) if names
                   else "does not name %s" % name)
            return _Failed(Outcome.NAME_MISMATCH, "the server's certificate %s; write a name "
                           "it has after '#', or give the server a certificate for %s"
                           % (has, name))
        if code in (_EXPIRED_CODE, _NOT_YET_VALID_CODE):
            return _validity_failure(code, certificate)
        if code in _UNKNOWN_ISSUER_CODES:
            issuer = (" (issued by %s)" % certificate.issuer.rfc4514_string()
                      if certificate else "")
            return _Failed(Outcome.UNKNOWN_CA, "the server's certificate%s is not signed by "
                           "%s; add the CA that issued it" % (issuer, self.trusted_by))
        return _Failed(Outcome.CERTIFICATE_REJECTED, "the server's certificate is refused: %s"
                       % error.verify_message)

    def _unverified_certificate(self):
        """The server's certificate read without verifying it, only to explain a refusal
        (None without cryptography, which an installer image may lack)."""
        try:
            from cryptography import x509
        except ImportError:
            return None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        try:
            with self._connect() as sock:
                sock.settimeout(self._in_time("no certificate"))
                with context.wrap_socket(sock, server_hostname=self.server.name) as tls:
                    return x509.load_der_x509_certificate(tls.getpeercert(binary_form=True))
        except (_Failed, OSError, ValueError):
            return None


def _make_query(name):
    import dns.message

    return dns.message.make_query(name, CHECK_QUERY_TYPE)


def _judge_answer(server, query, wire, name, rtt_ms):
    """The ServerCheck of an answer WIRE to QUERY, which asked NAME."""
    import dns.exception
    import dns.message
    import dns.rcode

    try:
        response = dns.message.from_wire(wire)
    except dns.exception.DNSException as error:
        raise _Failed(Outcome.BAD_ANSWER, "the answer is not a valid DNS message (%s)"
                      % error) from None
    if not query.is_response(response):
        raise _Failed(Outcome.BAD_ANSWER, "the answer does not match the question")
    rcode = response.rcode()
    asked = "%s %s" % (name, CHECK_QUERY_TYPE)
    if rcode in (dns.rcode.NOERROR, dns.rcode.NXDOMAIN):
        records = sum(len(rrset) for rrset in response.answer)
        return ServerCheck(server, Outcome.OK, "%s: %s, %d record%s" % (
            asked, dns.rcode.to_text(rcode), records, "" if records == 1 else "s"), rtt_ms)
    return ServerCheck(server, Outcome.DNS_ERROR, "the server answered %s to %s; it "
                       "is authenticated, but does not resolve that name for this client; "
                       "ask a name it serves" % (dns.rcode.to_text(rcode), asked))


def _validity_failure(code, certificate):
    import datetime

    from org_edns_addon.certificates import utc_time

    now = datetime.datetime.now(datetime.timezone.utc)
    if code == _EXPIRED_CODE:
        not_after = utc_time(certificate, "not_valid_after") if certificate else None
        if not_after and not_after < now:
            when = not_after.strftime("%Y-%m-%d %H:%M UTC")
            return _Failed(Outcome.EXPIRED, "the server's certificate expired on %s; renew "
                           "it on the server" % when)
        return _Failed(Outcome.EXPIRED, "a CA certificate in the server's chain has expired; "
                       "renew it")
    not_before = utc_time(certificate, "not_valid_before") if certificate else None
    when = (" before %s" % not_before.strftime("%Y-%m-%d %H:%M UTC")
            if not_before and not_before > now else "")
    return _Failed(Outcome.NOT_YET_VALID, "the server's certificate chain is not valid%s; "
                   "check this machine's clock" % when)


def _certificate_names(certificate):
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    try:
        alternative = certificate.extensions.get_extension_for_class(
            x509.SubjectAlternativeName).value
        names = alternative.get_values_for_type(x509.DNSName) + \
            [str(address) for address in alternative.get_values_for_type(x509.IPAddress)]
    except x509.ExtensionNotFound:
        names = []
    return names or [attribute.value for attribute in
                     certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
