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

"""One server's check as a state machine the loop drives (``ServerProbe``): the TCP
connection, TLS over ``ssl.MemoryBIO``, the DNS query, built and read with dnspython; the
name it asks (``query_name``)."""

import enum
import errno
import os
import selectors
import socket
import ssl
import time

from org_edns_addon.fileio import error_text
from org_edns_addon.i18n import _
from org_edns_addon.constants import CHECK_QUERY_TYPE, CHECK_SELF_ANSWERED_NAME
from org_edns_addon.probe.loop import received
from org_edns_addon.probe.reasons import (EXPIRED_CODE, HOSTNAME_MISMATCH_CODE,
                                          NOT_YET_VALID_CODE, OVERSIZED_RECORD_REASONS,
                                          REJECTED_CODE, UNKNOWN_ISSUER_CODES, chain_reason,
                                          handshake_error_reason, issuer_clause, judge_answer,
                                          names_sentence, no_socket_reason, os_error_text,
                                          sent_chain, validity_failure)
from org_edns_addon.probe.result import Failed, Outcome, ServerCheck, printable

_DNS_LENGTH_BYTES = 2
# A raw read: at most this many bytes (one TLS flight, or more of a large one).
_READ_BYTES = 65536
# Errors of this process, not of the server: no socket could be made for the check.
_LOCAL_RESOURCE_ERRNOS = frozenset((errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM))
# The connection ended under the check (a reset, or a close without TLS's close_notify).
_CONNECTION_ENDED = (ConnectionError, ssl.SSLEOFError, ssl.SSLZeroReturnError)


def query_name(server):
    """The name the check asks SERVER when the user names none: its first routed domain,
    else its TLS name; for a TLS name that is an IP address (``#192.0.2.12``), or none,
    ``CHECK_SELF_ANSWERED_NAME``, which a caching server answers itself (RFC 6761 6.3;
    Unbound's default local zone): an internal resolver without the Internet answers
    SERVFAIL for a name it must look up, the address's own A query included, and the
    root's NS too (Unbound cannot prime its root hints then)."""
    if server.domains:
        return server.domains[0]
    if server.name and not _is_address(server.name):
        return server.name
    return CHECK_SELF_ANSWERED_NAME


def _is_address(name):
    import ipaddress

    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class _Stage(enum.Enum):
    CONNECTING = 1
    WAITING_FOR_SLOT = 2
    HANDSHAKING = 3
    ASKING = 4
    ASKING_UDP = 5
    EXPLAINING = 6      # a second connection, unverified, to read a refused certificate


class ServerProbe:
    """One server's check, as a state machine the loop drives; ``result`` when done."""

    def __init__(self, server, context, trust, qname, queries):
        self.server = server
        self.queries = queries
        self.context = context
        self.trust = trust
        self.name = qname or query_name(server)
        self.result = None
        self.loop = None
        self.sock = None
        self.tls = None
        self.stage = None
        self.allowed = None
        self.deadline = None
        self.started = None      # perf_counter() when the connect (or UDP send) was issued
        self.excluded = 0.0      # seconds spent waiting for this process, not the network
        self.paused_at = None
        self.handshake_ms = None
        self.outgoing_bytes = b""
        self.answer = b""
        self.answer_waited = 0.0  # how long the last read while asking had waited here
        self.refusal = None      # the verification error, while its certificate is read

    # The loop's calls.

    def guarded(self, step, *arguments):
        """STEP(*ARGUMENTS); any failure becomes this server's result."""
        try:
            step(*arguments)
        except Failed as failure:
            self._finish(ServerCheck(self.server, failure.outcome, failure.reason))
        except Exception as error:  # noqa: BLE001 (a bug must not pass for the server's fault)
            self._finish(ServerCheck(self.server, Outcome.NOT_CHECKED, _(
                "the check itself failed (%s: %s); this is a bug in edns-addon, please "
                "report it") % (type(error).__name__, printable(error))))

    def start(self, now, deadline):
        import dns.message

        self.deadline = deadline
        self.allowed = round(deadline - now, 1)
        if self.name not in self.queries:
            query = dns.message.make_query(self.name, CHECK_QUERY_TYPE)
            self.queries[self.name] = (query, query.to_wire())
        self.query, self.wire = self.queries[self.name]
        if not self.server.tls:
            self._start_udp()
            return
        self.stage = _Stage.CONNECTING
        self.sock = self._socket(socket.SOCK_STREAM)
        self.started = time.perf_counter()
        self._connect(self.sock)

    def never_begun(self, seconds, at_once):
        self.result = ServerCheck(self.server, Outcome.NOT_CHECKED, _(
            "the %g s given to the whole check ran out before this server's turn came (%d "
            "servers are checked at once); check fewer servers, or allow more time")
            % (round(seconds, 1), at_once))

    def on_ready(self, events, ready_at):
        now = time.perf_counter()
        if self.stage is _Stage.CONNECTING:
            self._exclude(now - ready_at)
            self._connected()
        elif self.stage is _Stage.EXPLAINING and self.tls is None:
            self._explain_connected()
        elif self.stage is _Stage.ASKING_UDP:
            self._udp_answer(now, ready_at)
        else:
            if events & selectors.EVENT_WRITE:
                self._flush()
            if events & selectors.EVENT_READ:
                self._read_raw(now, ready_at)
            if self.result is None:
                self._advance()

    def expire(self):
        if self.stage is _Stage.CONNECTING:
            raise self._timeout(_("no connection"), _("; check the address, the routing and "
                                "firewalls"))
        if self.stage in (_Stage.WAITING_FOR_SLOT, _Stage.HANDSHAKING):
            raise self._timeout(_("the port accepts connections but no TLS handshake "
                                "completed"), _("; is it a DNS over TLS server?"))
        if self.stage is _Stage.ASKING:
            raise self._timeout(_("TLS works, but no DNS answer came"))
        if self.stage is _Stage.ASKING_UDP:
            raise self._timeout(_("no plaintext (UDP) DNS answer"))
        self._explained(None)

    def pause(self, now):
        self.paused_at = now

    def resume(self, now):
        if self.paused_at is not None:
            self._exclude(now - self.paused_at)
            self.paused_at = None

    def close(self):
        if self.sock is not None:
            self.loop.close_socket(self.sock)
            self.sock = None

    # The steps.

    def _exclude(self, seconds):
        if self.started is not None:
            self.excluded += max(0.0, min(seconds, time.perf_counter() - self.started -
                                          self.excluded))

    def _elapsed_ms(self):
        return (time.perf_counter() - self.started - self.excluded) * 1000

    def _finish(self, result):
        self.result = result
        self.close()
        if self.loop is not None:
            self.loop.leave_slot(self)

    def _timeout(self, what, advice=""):
        return Failed(Outcome.TIMEOUT, _("%s within %g s%s") % (what, self.allowed, advice))

    def _socket(self, kind):
        """A new non-blocking socket of KIND for the server's address family."""
        family = socket.AF_INET6 if self.server.address.version == 6 else socket.AF_INET
        try:
            return self.loop.open_socket(family, kind)
        except OSError as error:
            if error.errno in _LOCAL_RESOURCE_ERRNOS:
                raise Failed(Outcome.NOT_CHECKED, no_socket_reason(error)) from None
            raise

    def _connect(self, sock):
        code = sock.connect_ex((str(self.server.address), self.server.port))
        if code in (0, errno.EINPROGRESS):
            self.loop.watch(self, sock, selectors.EVENT_WRITE)
            return
        self._connect_failed(code)

    def _connect_failed(self, code):
        if code == errno.ECONNREFUSED:
            raise Failed(Outcome.CONNECTION_REFUSED, _("nothing accepts connections on this "
                          "address and port; check both"))
        if code in (errno.ETIMEDOUT,):
            raise self._timeout(_("no connection"), _("; check the address, the routing and "
                                "firewalls"))
        raise Failed(Outcome.UNREACHABLE, _("cannot connect: %s; check the address and "
                      "the network") % os_error_text(OSError(code, os.strerror(code))))

    def _connected(self):
        code = self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if code:
            self._connect_failed(code)
        self.stage = _Stage.WAITING_FOR_SLOT
        self.loop.unwatch(self.sock)   # what the server sends meanwhile waits in the kernel
        self.loop.want_slot(self)

    def begin_handshake(self):
        self.stage = _Stage.HANDSHAKING
        self._wrap(self.context)
        self._advance()

    def _wrap(self, context):
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing,
                                    server_hostname=self.server.name)

    def _read_raw(self, now, ready_at):
        """Give what the socket has to TLS (its end too); count how long it waited here."""
        try:
            data, waited = received(self.sock, _READ_BYTES, self.loop.timestamps)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            self._broken(error)
            return
        waited = now - ready_at if waited is None else waited
        if self.stage is _Stage.ASKING:
            # What waits here while the answer is awaited (TLS 1.3 session tickets) is not
            # late on the server's account: only the read that completes the answer is.
            self.answer_waited = waited
        else:
            self._exclude(waited)
        if data:
            self.incoming.write(data)
        else:
            self.incoming.write_eof()

    def _flush(self):
        """Send what TLS has written; wait for the socket when it takes no more now."""
        self.outgoing_bytes += self.outgoing.read()
        while self.outgoing_bytes:
            try:
                sent = self.sock.send(self.outgoing_bytes)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as error:
                self._broken(error)
                return
            self.outgoing_bytes = self.outgoing_bytes[sent:]
        self.loop.watch(self, self.sock, selectors.EVENT_READ |
                        (selectors.EVENT_WRITE if self.outgoing_bytes else 0))

    def _broken(self, error):
        """The socket failed with ERROR (a reset, a broken pipe) in the current stage."""
        if self.stage is _Stage.EXPLAINING:
            self._explained(None)
        elif self.stage is _Stage.ASKING:
            raise self._connection_failure(error, len(self.answer))
        elif isinstance(error, ConnectionError):
            raise Failed(Outcome.TLS_FAILED, _("the server closed the connection during the "
                          "TLS handshake; is it a DNS over TLS server?"))
        else:
            raise Failed(Outcome.TLS_FAILED, _("the TLS handshake broke off: %s; is it a DNS "
                          "over TLS server?") % os_error_text(error))

    def _advance(self):
        if self.stage in (_Stage.HANDSHAKING, _Stage.EXPLAINING):
            self._handshake_step()
        if self.stage is _Stage.ASKING and self.result is None:
            self._read_answer()

    def _handshake_step(self):
        try:
            self.tls.do_handshake()
        except ssl.SSLWantReadError:
            self._flush()
            return
        except ssl.SSLCertVerificationError as error:
            if self.stage is _Stage.EXPLAINING:
                self._explained(None)
                return
            self._flush()
            self._explain(error)
            return
        except _CONNECTION_ENDED:
            if self.stage is _Stage.EXPLAINING:
                self._explained(None)
                return
            raise Failed(Outcome.TLS_FAILED, _("the server closed the connection during the "
                          "TLS handshake; is it a DNS over TLS server?")) from None
        except ssl.SSLError as error:
            if self.stage is _Stage.EXPLAINING:
                self._explained(None)
                return
            raise Failed(Outcome.TLS_FAILED, handshake_error_reason(error)) from None
        if self.stage is _Stage.EXPLAINING:
            self._explained(self.tls.getpeercert(binary_form=True), sent_chain(self.tls))
            return
        self.handshake_ms = self._elapsed_ms()
        self.loop.leave_slot(self)
        self.stage = _Stage.ASKING
        self.tls.write(len(self.wire).to_bytes(_DNS_LENGTH_BYTES, "big") + self.wire)
        self._flush()

    def _read_answer(self):
        while True:
            try:
                chunk = self.tls.read(_READ_BYTES)
            except ssl.SSLWantReadError:
                self._flush()   # TLS may have something to say (a key update)
                return
            except OSError as error:
                raise self._connection_failure(error, len(self.answer)) from None
            if not chunk:
                raise self._connection_failure(None, len(self.answer))
            self.answer += chunk
            if len(self.answer) >= _DNS_LENGTH_BYTES:
                length = int.from_bytes(self.answer[:_DNS_LENGTH_BYTES], "big")
                if len(self.answer) >= _DNS_LENGTH_BYTES + length:
                    self._exclude(self.answer_waited)
                    rtt_ms = self._elapsed_ms()
                    wire = self.answer[_DNS_LENGTH_BYTES:_DNS_LENGTH_BYTES + length]
                    self._finish(judge_answer(self.server, self.query, wire, self.name,
                                               rtt_ms, self.handshake_ms))
                    return

    def _connection_failure(self, error, received):
        """A Failed for ERROR (None: a clean close) after the TLS handshake, when the server
        had sent RECEIVED bytes of its answer."""
        if isinstance(error, ssl.SSLError) and error.reason in OVERSIZED_RECORD_REASONS:
            return Failed(Outcome.BAD_ANSWER, _("the server sent a TLS record longer than TLS "
                           "allows (%s); it does not speak TLS correctly")
                           % printable(error.reason))
        when = (_("right after the TLS handshake, without answering") if received == 0 else
                _("in the middle of its answer (after %d bytes)") % received)
        if error is None or isinstance(error, _CONNECTION_ENDED):
            how = _("reset") if isinstance(error, (ConnectionResetError, BrokenPipeError)) else \
                _("closed")
            return Failed(Outcome.CONNECTION_LOST, _("the server %s the connection %s; see the "
                           "server's log for why") % (how, when))
        if isinstance(error, ssl.SSLError):
            return Failed(Outcome.CONNECTION_LOST, _("the TLS connection failed %s: %s")
                           % (when, printable(error.reason or error_text(error))))
        return Failed(Outcome.CONNECTION_LOST, _("the connection broke %s: %s")
                       % (when, os_error_text(error)))

    def _start_udp(self):
        self.stage = _Stage.ASKING_UDP
        self.sock = self._socket(socket.SOCK_DGRAM)
        try:
            self.sock.connect((str(self.server.address), self.server.port))
            self.started = time.perf_counter()
            self.sock.send(self.wire)
        except OSError as error:
            self._udp_failed(error)
        self.loop.watch(self, self.sock, selectors.EVENT_READ)

    def _udp_answer(self, now, ready_at):
        try:
            answer, waited = received(self.sock, 65535, self.loop.timestamps)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            self._udp_failed(error)
        self._exclude(now - ready_at if waited is None else waited)
        self._finish(judge_answer(self.server, self.query, answer, self.name,
                                   self._elapsed_ms(), None))

    def _udp_failed(self, error):
        if isinstance(error, ConnectionRefusedError):
            raise Failed(Outcome.CONNECTION_REFUSED, _("nothing answers on this address "
                          "and UDP port; check both")) from None
        raise Failed(Outcome.UNREACHABLE, _("cannot reach the server: %s")
                      % os_error_text(error)) from None

    # A refused certificate: read it again, unverified, only to say why it was refused.

    def _explain(self, error):
        self.refusal = error
        self.loop.leave_slot(self)
        self.close()
        self.tls = None
        self.outgoing_bytes = b""
        self.stage = _Stage.EXPLAINING
        try:
            self.sock = self._socket(socket.SOCK_STREAM)
        except Failed:
            self._explained(None)
            return
        if self.sock.connect_ex((str(self.server.address), self.server.port)) not in (
                0, errno.EINPROGRESS):
            self._explained(None)
            return
        self.loop.watch(self, self.sock, selectors.EVENT_WRITE)

    def _explain_connected(self):
        if self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
            self._explained(None)
            return
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        self._wrap(context)
        self._advance()

    def _explained(self, der, sent=()):
        chain = []
        for each in (der, *sent[1:]) if der else ():
            try:
                from cryptography import x509

                chain.append(x509.load_der_x509_certificate(each))
            except Exception:  # noqa: BLE001 (only details of a known refusal are lost)
                break
        raise self._certificate_failure(self.refusal, chain, bool(sent))

    def _certificate_failure(self, error, chain, chain_known=False):
        """A Failed saying why the server's certificate was refused, with its details from
        CHAIN (what the server sent, cryptography certificates, its own first; its own
        alone unless CHAIN_KNOWN)."""
        code = error.verify_code
        name = self.server.name
        certificate = chain[0] if chain else None
        if code == HOSTNAME_MISMATCH_CODE:
            return Failed(Outcome.NAME_MISMATCH, _("the server's certificate %s; write a name "
                           "it has after '#', or give the server a certificate for %s")
                           % (names_sentence(certificate, name), name))
        if code in (EXPIRED_CODE, NOT_YET_VALID_CODE):
            return validity_failure(code, certificate)
        if code in UNKNOWN_ISSUER_CODES or code == REJECTED_CODE:
            reason = chain_reason(chain, self.trust, chain_known)
            if reason is not None:   # (which names the CA it is about)
                return Failed(Outcome.UNKNOWN_CA, _("the server's certificate is not "
                               "authenticated by %s: %s") % (self.trust.said, reason))
        if code in UNKNOWN_ISSUER_CODES:
            return Failed(Outcome.UNKNOWN_CA, _("the server's certificate%s is not signed by "
                           "%s; add the CA that issued it")
                           % (issuer_clause(certificate), self.trust.said))
        return Failed(Outcome.CERTIFICATE_REJECTED, _("the server's certificate is refused: %s")
                       % printable(error.verify_message))
