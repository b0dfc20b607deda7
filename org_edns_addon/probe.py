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

"""Pre-flight check of DNS servers: reachable, authenticated, answering.

For each server of an ``EdnsConfig``: a TLS handshake that verifies the
certificate against the DoT CA bundle (or the system trust store, as the
installation would) with the server's TLS name as SNI and as the name to match,
then one DNS query, built and read with dnspython. Each result says either how
long the handshake and the answer took or, in words a user can act on, why it
failed. The CLI, the text UI and the D-Bus module all call ``check_servers``.

What a server can make a result say is bounded: every exception of a check is a
result with its reason, and text that comes from the network (certificate names,
error details) is escaped and cut (``printable``) before it enters a reason.
At most ``CHECK_MAX_PARALLEL`` servers are checked at once.

dnspython and cryptography are imported only when a check runs, so importing
this module costs little in the installer's processes.
"""

import enum
import errno
import math
import resource
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import List, Optional

from org_edns_addon.fileio import error_text
from org_edns_addon.i18n import N_, P_, _
from org_edns_addon.constants import (CHECK_MAX_PARALLEL, CHECK_QUERY_TYPE, CHECK_SHOWN_NAMES,
                                      CHECK_SHOWN_TEXT_CHARS, CHECK_TIMEOUT_SECONDS)
from org_edns_addon.model import DotServer, EdnsConfig

# OpenSSL's X509_V_ERR_* verification results that mean "issuer not trusted".
_UNKNOWN_ISSUER_CODES = frozenset((2, 18, 19, 20, 21))
_NOT_YET_VALID_CODE = 9
_EXPIRED_CODE = 10
_HOSTNAME_MISMATCH_CODE = 62
# Extra time, beyond the per-server timeout, for a check to report before it is given up.
_JOIN_GRACE_SECONDS = 1.0
_DNS_LENGTH_BYTES = 2
# OpenSSL's default limit on the certificate chain a client accepts (SSL_MAX_CERT_LIST_DEFAULT).
_MAX_CERTIFICATE_CHAIN_KIB = 100
# OpenSSL's reasons for a record longer than TLS allows.
_OVERSIZED_RECORD_REASONS = frozenset((
    "PACKET_LENGTH_TOO_LONG", "ENCRYPTED_LENGTH_TOO_LONG", "DATA_LENGTH_TOO_LONG",
    "RECORD_LENGTH_MISMATCH", "TLSV1_ALERT_RECORD_OVERFLOW", "RECORD_OVERFLOW"))
# Errors of this process, not of the server: no socket could be made for the check.
_LOCAL_RESOURCE_ERRNOS = frozenset((errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM))
# The connection ended under the check (a reset, or a close without TLS's close_notify).
_CONNECTION_ENDED = (ConnectionError, ssl.SSLEOFError, ssl.SSLZeroReturnError)


class Outcome(str, enum.Enum):
    """What a check found; the value is the short label shown to users."""
    OK = "ok"
    UNKNOWN_CA = N_("unknown CA")
    NAME_MISMATCH = N_("name mismatch")
    EXPIRED = N_("certificate expired")
    NOT_YET_VALID = N_("certificate not yet valid")
    CERTIFICATE_REJECTED = N_("certificate rejected")
    CONNECTION_REFUSED = N_("connection refused")
    TIMEOUT = N_("timeout")
    TLS_FAILED = N_("TLS handshake failed")
    UNREACHABLE = N_("unreachable")
    CONNECTION_LOST = N_("connection lost")
    BAD_ANSWER = N_("bad answer")
    DNS_ERROR = N_("DNS error")
    # The check could not be made (this machine's limits, or a bug): nothing about the server.
    NOT_CHECKED = N_("not checked")


@dataclass(frozen=True)
class ServerCheck:
    """The result of checking one server.

    ``reason`` is a sentence: what was asked and answered when ``ok``, else
    why the check failed and what to do about it. When ``ok``, ``rtt_ms`` is
    the time from the first byte sent (the TCP connection's) to the whole
    answer, and ``handshake_ms`` (TLS only) the part until the TLS handshake
    was done; neither includes building or reading the DNS messages.
    """
    server: DotServer
    outcome: Outcome
    reason: str
    rtt_ms: Optional[float] = None
    handshake_ms: Optional[float] = None

    @property
    def ok(self):
        return self.outcome is Outcome.OK

    def describe(self):
        """One line for users: the server, then ok with the times, or the failure."""
        if not self.ok:
            return "%s: %s: %s" % (self.server.uri(), _(self.outcome.value), self.reason)
        if self.handshake_ms is None:
            return _("%s: ok, %.1f ms (%s)") % (self.server.uri(), self.rtt_ms, self.reason)
        return _("%s: ok, %.1f ms (TCP and TLS handshakes %.1f ms, query %.1f ms; %s)") % (
            self.server.uri(), self.rtt_ms, self.handshake_ms,
            self.rtt_ms - self.handshake_ms, self.reason)


def printable(text, limit=CHECK_SHOWN_TEXT_CHARS):
    """TEXT (from the network) as one line that cannot steer a terminal or a log.

    Every character that is not printable (control characters such as ESC, CR
    and LF, format characters such as bidirectional overrides, separators other
    than the space) is written as its Python escape (``\\x1b``); the result is
    cut after about LIMIT characters, saying how many more there were.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "backslashreplace")
    text = str(text)
    shown = []
    length = 0
    for index, character in enumerate(text):
        if length >= limit:
            return _("%s... (%d more characters)") % ("".join(shown), len(text) - index)
        piece = character if character.isprintable() else \
            character.encode("unicode_escape").decode("ascii")
        shown.append(piece)
        length += len(piece)
    return "".join(shown)


class _Failed(Exception):
    def __init__(self, outcome, reason):
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


def check_servers(config: EdnsConfig, ca_bundle: Optional[bytes] = None,
                  qname: Optional[str] = None, timeout: float = CHECK_TIMEOUT_SECONDS,
                  anchors: Optional[bytes] = None) -> List[ServerCheck]:
    """Check every server of CONFIG; results in the order of the servers.

    CA_BUNDLE (PEM) alone authenticates the DoT servers when given; otherwise
    the system trust store plus ANCHORS (PEM) does. QNAME is the name asked
    (default: the server's first routed domain, else its TLS name). Each server
    gets TIMEOUT seconds for everything; up to ``CHECK_MAX_PARALLEL`` are
    checked at once, so more servers than that may take longer in all.
    """
    # Loaded here, before any check's clock starts and before sockets hold descriptors.
    # An installer image may lack dnspython: then say so (dependencies.Unusable).
    from org_edns_addon.dependencies import load
    load("dns.message", _("the pre-flight check of the DNS servers"))
    load("dns.rcode", _("the pre-flight check of the DNS servers"))

    context = _verifying_context(ca_bundle, anchors)
    trusted_by = (_("a CA of the kickstart's --ca bundle") if ca_bundle is not None else
                  _("a CA the system trusts (or a %certificate --type=anchor)"))
    servers = list(config.servers)
    results: List[Optional[ServerCheck]] = [None] * len(servers)
    begun = [False] * len(servers)
    waiting = iter(range(len(servers)))
    lock = threading.Lock()

    def check_waiting_servers():
        while True:
            with lock:
                index = next(waiting, None)
                if index is None:
                    return
                begun[index] = True
            results[index] = _check_one(servers[index], context, trusted_by, timeout, qname)

    workers = []
    for _worker in range(min(len(servers), CHECK_MAX_PARALLEL)):
        worker = threading.Thread(target=check_waiting_servers, daemon=True)
        try:
            worker.start()
        except RuntimeError:   # "can't start new thread": go on with those that started
            break
        workers.append(worker)
    if not workers and servers:
        check_waiting_servers()
    rounds = math.ceil(len(servers) / max(1, len(workers)))
    give_up = time.monotonic() + rounds * (timeout + _JOIN_GRACE_SECONDS)
    for worker in workers:
        worker.join(max(0.0, give_up - time.monotonic()))
    return [result or _unfinished(server, started, give_up_after=rounds * timeout)
            for server, result, started in zip(servers, list(results), list(begun))]


def _unfinished(server, started, give_up_after):
    """The result of a server whose check has not ended (it never should: every step has
    a deadline), saying so instead of guessing why."""
    if started:
        return ServerCheck(server, Outcome.NOT_CHECKED, _("the check was still running after "
                           "%g s and was given up; this machine may be overloaded") % give_up_after)
    return ServerCheck(server, Outcome.NOT_CHECKED, _("the check never started within %g s; "
                       "this machine may be overloaded") % give_up_after)


def _check_one(server, context, trusted_by, timeout, qname):
    """One server's ServerCheck; every exception becomes a result with its reason."""
    try:
        return _ServerProbe(server, context, trusted_by, timeout).run(qname)
    except Exception as error:  # noqa: BLE001 (a bug must not pass for the server's fault)
        return ServerCheck(server, Outcome.NOT_CHECKED, _("the check itself failed (%s: %s); "
                           "this is a bug in edns-addon, please report it")
                           % (type(error).__name__, printable(error)))


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
        import dns.message

        name = qname or (self.server.domains[0] if self.server.domains
                         else self.server.name) or "."
        # Built before the clock starts: only the network is timed.
        query = dns.message.make_query(name, CHECK_QUERY_TYPE)
        wire = query.to_wire()
        try:
            if self.server.tls:
                answer, handshake_ms, rtt_ms = self._ask_over_tls(wire)
            else:
                answer, handshake_ms, rtt_ms = self._ask_over_udp(wire)
            return _judge_answer(self.server, query, answer, name, rtt_ms, handshake_ms)
        except _Failed as failure:
            return ServerCheck(self.server, failure.outcome, failure.reason)

    def _in_time(self, what):
        """Seconds left for WHAT, or a timeout failure saying WHAT did not happen."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self._timeout(what)
        return left

    def _timeout(self, what, advice=""):
        return _Failed(Outcome.TIMEOUT, _("%s within %g s%s") % (what, self.timeout, advice))

    def _socket(self, kind):
        """A new socket of KIND for the server's address family."""
        family = socket.AF_INET6 if self.server.address.version == 6 else socket.AF_INET
        try:
            return socket.socket(family, kind)
        except OSError as error:
            if error.errno in _LOCAL_RESOURCE_ERRNOS:
                raise _Failed(Outcome.NOT_CHECKED, _no_socket_reason(error)) from None
            raise

    def _connect(self):
        """A TCP connection to the server; the perf_counter() just before its first byte."""
        sock = self._socket(socket.SOCK_STREAM)
        try:
            sock.settimeout(self._in_time(_("no connection")))
            started = time.perf_counter()
            sock.connect((str(self.server.address), self.server.port))
            return sock, started
        except ConnectionRefusedError:
            sock.close()
            raise _Failed(Outcome.CONNECTION_REFUSED, _("nothing accepts connections on this "
                          "address and port; check both")) from None
        except socket.timeout:
            sock.close()
            raise self._timeout(_("no connection"), _("; check the address, the routing and "
                                "firewalls")) from None
        except OSError as error:
            sock.close()
            raise _Failed(Outcome.UNREACHABLE, _("cannot connect: %s; check the address and "
                          "the network") % _os_error_text(error)) from None
        except BaseException:
            sock.close()
            raise

    def _ask_over_tls(self, wire):
        """(answer wire, handshake ms, round trip ms) of sending WIRE over authenticated TLS."""
        sock, started = self._connect()
        no_handshake = _("the port accepts connections but no TLS handshake completed")
        try:
            sock.settimeout(self._in_time(no_handshake))
            tls = self.context.wrap_socket(sock, server_hostname=self.server.name)
        except ssl.SSLCertVerificationError as error:
            raise self._certificate_failure(error) from None
        except socket.timeout:
            raise self._timeout(no_handshake, _("; is it a DNS over TLS server?")) from None
        except _CONNECTION_ENDED:
            raise _Failed(Outcome.TLS_FAILED, _("the server closed the connection during the "
                          "TLS handshake; is it a DNS over TLS server?")) from None
        except ssl.SSLError as error:
            raise _Failed(Outcome.TLS_FAILED, _handshake_error_reason(error)) from None
        except OSError as error:
            raise _Failed(Outcome.TLS_FAILED, _("the TLS handshake broke off: %s; is it a DNS "
                          "over TLS server?") % _os_error_text(error)) from None
        finally:
            sock.close()   # wrap_socket took its descriptor over if it succeeded
        with tls:
            handshake_done = time.perf_counter()
            try:
                tls.settimeout(self._in_time(_("TLS works, but the query could not be sent")))
                tls.sendall(len(wire).to_bytes(_DNS_LENGTH_BYTES, "big") + wire)
            except OSError as error:
                raise self._connection_failure(error, 0) from None
            length = int.from_bytes(self._receive(tls, _DNS_LENGTH_BYTES, 0), "big")
            answer = self._receive(tls, length, _DNS_LENGTH_BYTES)
            answered = time.perf_counter()
        return answer, (handshake_done - started) * 1000, (answered - started) * 1000

    def _receive(self, tls, count, received_before):
        """Exactly COUNT bytes from TLS before the deadline (RECEIVED_BEFORE came already)."""
        no_answer = _("TLS works, but no DNS answer came")
        data = b""
        while len(data) < count:
            try:
                tls.settimeout(self._in_time(no_answer))
                chunk = tls.recv(count - len(data))
            except OSError as error:
                raise self._connection_failure(error, received_before + len(data)) from None
            if not chunk:
                raise self._connection_failure(None, received_before + len(data))
            data += chunk
        return data

    def _connection_failure(self, error, received):
        """A _Failed for ERROR (None: a clean close) after the TLS handshake, when the server
        had sent RECEIVED bytes of its answer."""
        if isinstance(error, socket.timeout):
            return self._timeout(_("TLS works, but no DNS answer came"))
        if isinstance(error, ssl.SSLError) and error.reason in _OVERSIZED_RECORD_REASONS:
            return _Failed(Outcome.BAD_ANSWER, _("the server sent a TLS record longer than TLS "
                           "allows (%s); it does not speak TLS correctly")
                           % printable(error.reason))
        when = (_("right after the TLS handshake, without answering") if received == 0 else
                _("in the middle of its answer (after %d bytes)") % received)
        if error is None or isinstance(error, _CONNECTION_ENDED):
            how = _("reset") if isinstance(error, (ConnectionResetError, BrokenPipeError)) else \
                _("closed")
            return _Failed(Outcome.CONNECTION_LOST, _("the server %s the connection %s; see the "
                           "server's log for why") % (how, when))
        if isinstance(error, ssl.SSLError):
            return _Failed(Outcome.CONNECTION_LOST, _("the TLS connection failed %s: %s")
                           % (when, printable(error.reason or error)))
        return _Failed(Outcome.CONNECTION_LOST, _("the connection broke %s: %s")
                       % (when, _os_error_text(error)))

    def _ask_over_udp(self, wire):
        """(answer wire, None, round trip ms) of sending WIRE in plaintext over UDP."""
        no_answer = _("no plaintext (UDP) DNS answer")
        with self._socket(socket.SOCK_DGRAM) as sock:
            try:
                sock.connect((str(self.server.address), self.server.port))
                sock.settimeout(self._in_time(no_answer))
                started = time.perf_counter()
                sock.send(wire)
                answer = sock.recv(65535)
                return answer, None, (time.perf_counter() - started) * 1000
            except ConnectionRefusedError:
                raise _Failed(Outcome.CONNECTION_REFUSED, _("nothing answers on this address "
                              "and UDP port; check both")) from None
            except socket.timeout:
                raise self._timeout(no_answer) from None
            except OSError as error:
                raise _Failed(Outcome.UNREACHABLE, _("cannot reach the server: %s")
                              % _os_error_text(error)) from None

    def _certificate_failure(self, error):
        """A _Failed saying why the server's certificate was refused, with its details."""
        code = error.verify_code
        certificate = self._unverified_certificate()
        name = self.server.name
        if code == _HOSTNAME_MISMATCH_CODE:
            return _Failed(Outcome.NAME_MISMATCH, _("the server's certificate %s; write a name "
                           "it has after '#', or give the server a certificate for %s")
                           % (_names_sentence(certificate, name), name))
        if code in (_EXPIRED_CODE, _NOT_YET_VALID_CODE):
            return _validity_failure(code, certificate)
        if code in _UNKNOWN_ISSUER_CODES:
            return _Failed(Outcome.UNKNOWN_CA, _("the server's certificate%s is not signed by "
                           "%s; add the CA that issued it")
                           % (_issuer_clause(certificate), self.trusted_by))
        return _Failed(Outcome.CERTIFICATE_REJECTED, _("the server's certificate is refused: %s")
                       % printable(error.verify_message))

    def _unverified_certificate(self):
        """The server's certificate read without verifying it, only to explain a refusal;
        None if it cannot be had."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        try:
            from cryptography import x509

            sock, _started = self._connect()
            with sock:
                sock.settimeout(self._in_time(_("no certificate")))
                with context.wrap_socket(sock, server_hostname=self.server.name) as tls:
                    return x509.load_der_x509_certificate(tls.getpeercert(binary_form=True))
        except Exception:  # noqa: BLE001 (only details of a known refusal are lost)
            return None


def _os_error_text(error):
    return printable(error_text(error))


def _no_socket_reason(error):
    # resource is imported with this module: no descriptor is left to load it now.
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if limit == resource.RLIM_INFINITY:
        return (_("this process cannot open a socket: %s (it may open any number of "
                  "files); check fewer servers at once") % _os_error_text(error))
    return (_("this process cannot open a socket: %s (its limit is %d open files); check "
            "fewer servers at once, or raise the limit (ulimit -n)")
            % (_os_error_text(error), limit))


def _handshake_error_reason(error):
    """Why the TLS handshake failed, for an OpenSSL ERROR other than verification."""
    reason = error.reason or ""
    if reason == "EXCESSIVE_MESSAGE_SIZE":
        return (_("the server's certificate chain is larger than the %d KiB a TLS client "
                "accepts (EXCESSIVE_MESSAGE_SIZE); a DNS server's chain takes a few KiB: "
                "check the certificate file the server uses") % _MAX_CERTIFICATE_CHAIN_KIB)
    if reason in _OVERSIZED_RECORD_REASONS:
        return (_("the server sent a TLS record longer than TLS allows (%s); it does not "
                "speak TLS correctly") % printable(reason))
    return _("%s; is this a DNS over TLS server?") % printable(reason or error)


def _judge_answer(server, query, wire, name, rtt_ms, handshake_ms):
    """The ServerCheck of an answer WIRE to QUERY, which asked NAME."""
    import dns.message
    import dns.rcode

    try:
        response = dns.message.from_wire(wire)
    except Exception as error:  # noqa: BLE001 (hostile bytes break more than DNSException)
        raise _Failed(Outcome.BAD_ANSWER, _("the answer is not a valid DNS message (%s)")
                      % printable(error)) from None
    if not query.is_response(response):
        raise _Failed(Outcome.BAD_ANSWER, _("the answer does not match the question"))
    rcode = response.rcode()
    asked = "%s %s" % (name, CHECK_QUERY_TYPE)
    answered = dns.rcode.to_text(rcode)
    if rcode in (dns.rcode.NOERROR, dns.rcode.NXDOMAIN):
        records = sum(len(rrset) for rrset in response.answer)
        return ServerCheck(server, Outcome.OK, P_("%s: %s, %d record", "%s: %s, %d records",
                                                  records) % (asked, answered, records),
                           rtt_ms, handshake_ms)
    if rcode == dns.rcode.REFUSED:
        meaning = (_("it is authenticated, but does not resolve that name for this client; "
                   "ask a name it serves"))
    elif rcode == dns.rcode.SERVFAIL:
        meaning = (_("it is authenticated and reachable, but failed to resolve that name "
                   "itself (its own upstream or DNSSEC validation failed); see the server's "
                   "log, or ask a name it can resolve"))
    else:
        meaning = _("it is authenticated, but did not answer that query")
    return ServerCheck(server, Outcome.DNS_ERROR, _("the server answered %s to %s; %s")
                       % (printable(answered), asked, meaning))


def _validity_failure(code, certificate):
    import datetime

    from org_edns_addon.certificates import utc_time

    now = datetime.datetime.now(datetime.timezone.utc)
    if code == _EXPIRED_CODE:
        if certificate and utc_time(certificate, "not_valid_after") < now:
            when = utc_time(certificate, "not_valid_after").strftime("%Y-%m-%d %H:%M UTC")
            return _Failed(Outcome.EXPIRED, _("the server's certificate expired on %s; renew "
                           "it on the server") % when)
        return _Failed(Outcome.EXPIRED, _("a CA certificate in the server's chain has expired; "
                       "renew it"))
    when = (_(" before %s")
            % utc_time(certificate, "not_valid_before").strftime("%Y-%m-%d %H:%M UTC")
            if certificate and utc_time(certificate, "not_valid_before") > now else "")
    return _Failed(Outcome.NOT_YET_VALID, _("the server's certificate chain is not valid%s; "
                   "check this machine's clock") % when)


def _issuer_clause(certificate):
    """" (issued by ISSUER)", escaped, or "" when it cannot be read."""
    if certificate is None:
        return ""
    try:
        return _(" (issued by %s)") % printable(certificate.issuer.rfc4514_string())
    except ValueError as error:   # cryptography parses names lazily
        return _(" (its issuer cannot be read: %s)") % printable(error)


def _names_sentence(certificate, name):
    """What CERTIFICATE is for, in words: "is for A, B and N more, not NAME"."""
    if certificate is None:
        return _("does not name %s") % name
    try:
        names = _certificate_names(certificate)
    except ValueError as error:   # e.g. an iPAddress entry that is not 4 or 16 bytes
        return (_("does not name %s, and its names cannot be read (%s)")
                % (name, printable(error)))
    if not names:
        return _("does not name %s") % name
    shown = ", ".join(printable(each) for each in names[:CHECK_SHOWN_NAMES])
    more = len(names) - CHECK_SHOWN_NAMES
    if more > 0:
        shown += _(" and %d more") % more
    return _("is for %s, not %s") % (shown, name)


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
