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
At most ``CHECK_MAX_PARALLEL`` servers are checked at once, all in one thread
(``_ProbeLoop``), each printed time its own.

dnspython and cryptography are imported only when a check runs, so importing
this module costs little in the installer's processes.
"""

import collections
import enum
import errno
import heapq
import os
import resource
import selectors
import socket
import ssl
import struct
import time
from dataclasses import dataclass
from typing import List, Optional

from org_edns_addon import terms
from org_edns_addon.fileio import error_text
from org_edns_addon.i18n import N_, P_, _
from org_edns_addon.constants import (CHECK_HANDSHAKES_AT_ONCE, CHECK_MAX_PARALLEL,
                                      CHECK_QUERY_TYPE, CHECK_SELF_ANSWERED_NAME,
                                      CHECK_SHOWN_NAMES,
                                      CHECK_SHOWN_TEXT_CHARS, CHECK_TIMEOUT_SECONDS)
from org_edns_addon.model import DotServer, EdnsConfig

# OpenSSL's X509_V_ERR_* verification results that mean "issuer not trusted".
_UNKNOWN_ISSUER_CODES = frozenset((2, 18, 19, 20, 21))
_NOT_YET_VALID_CODE = 9
_EXPIRED_CODE = 10
_HOSTNAME_MISMATCH_CODE = 62
# X509_V_ERR_CERT_REJECTED: trust settings of the bundle exclude server authentication.
_REJECTED_CODE = 28
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

    def result(self):
        """What the check found, for users: ok with the times, or the failure and why. The
        one sentence of every place that shows a check (``describe``, the screens)."""
        if not self.ok:
            return "%s: %s" % (_(self.outcome.value), self.reason)
        if self.handshake_ms is None:
            return _("ok, %.1f ms (%s)") % (self.rtt_ms, self.reason)
        return _("ok, %.1f ms (TCP and TLS handshakes %.1f ms, query %.1f ms; %s)") % (
            self.rtt_ms, self.handshake_ms, self.rtt_ms - self.handshake_ms, self.reason)

    def describe(self):
        """One line for users: the server, then what the check found (``result``)."""
        return "%s: %s" % (self.server.uri(), self.result())


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
                  anchors: Optional[bytes] = None,
                  within: Optional[float] = None, authorities=()) -> List[ServerCheck]:
    """Check every server of CONFIG; results in the order of the servers.

    CA_BUNDLE (PEM, as staging writes it) alone authenticates the DoT servers when
    given, loaded as Unbound loads its tls-cert-bundle; otherwise the system trust
    store plus ANCHORS (PEM) does. AUTHORITIES are the ``CertificateBlock``s of that
    bundle or of those anchors: a refused server is explained in chain words from them
    (``chains.refusal_reason``). QNAME is the name asked (default: ``query_name``).
    Each server gets TIMEOUT seconds for everything, from its connection's start. Up
    to ``CHECK_MAX_PARALLEL`` servers are connected at once (more wait for a free
    socket); WITHIN, when given, bounds the whole check: no server is checked past it,
    and one whose turn has not come by then is not checked.
    """
    # Loaded here, before any check's clock starts and before sockets hold descriptors.
    # An installer image may lack dnspython: then say so (dependencies.Unusable).
    from org_edns_addon.dependencies import load
    load("dns.message", _("the pre-flight check of the DNS servers"))
    load("dns.rcode", _("the pre-flight check of the DNS servers"))

    context = _verifying_context(ca_bundle, anchors)
    trust = _Trust(str(terms.CA_OF_BUNDLE) if ca_bundle is not None else
                   _("a CA the system trusts (or %s)") % terms.ANCHOR,
                   tuple(authorities), ca_bundle is not None)
    queries = {}     # one query (and its wire) for each name asked
    probes = [_ServerProbe(server, context, trust, qname, queries)
              for server in config.servers]
    _ProbeLoop(probes, timeout, within).run()
    return [probe.result for probe in probes]


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


def check_staging_input(data, qname=None, timeout=CHECK_TIMEOUT_SECONDS, within=None):
    """``check_servers`` with the trust the installation will use for a StagingInput
    (``data.trust``: the kickstart's certificates alone, or the system store plus
    every ``%certificate --type=anchor``)."""
    from org_edns_addon.certificates.pem import build_bundle

    trust = data.trust
    if trust.explicit:
        # Each block as staging writes it: a TRUSTED CERTIFICATE keeps its trust settings.
        return check_servers(data.config, build_bundle(trust.blocks, as_read=True), qname,
                             timeout, within=within, authorities=trust.blocks)
    return check_servers(data.config, None, qname, timeout, build_bundle(trust.anchors) or None,
                         within=within, authorities=trust.anchors)


@dataclass(frozen=True)
class _Trust:
    """What authenticates the servers, for explaining a refusal: ``said`` in words, the
    kickstart's ``authorities`` (``CertificateBlock``s), ``explicit`` when they alone do."""
    said: str
    authorities: tuple
    explicit: bool


def _verifying_context(ca_bundle, anchors):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)   # verifies chain and host name
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    # Unbound never accepts a chain that ends below a root CA (certificates/chains.py);
    # Python 3.13's create_default_context would, and this context must not.
    context.verify_flags &= ~getattr(ssl, "VERIFY_X509_PARTIAL_CHAIN", 0)
    if ca_bundle is not None:
        _load_as_unbound(context, ca_bundle)
    else:
        context.load_default_certs()
        if anchors:
            context.load_verify_locations(cadata=anchors.decode("ascii"))
    return context


def _load_as_unbound(context, ca_bundle):
    """Load CA_BUNDLE (PEM bytes) into CONTEXT as Unbound loads its tls-cert-bundle: as a
    file, through ``SSL_CTX_load_verify_locations`` (util/net_help.c
    ``connect_sslctx_create``), which keeps a TRUSTED CERTIFICATE's trust settings; Python's
    ``cadata`` reads CERTIFICATE blocks alone (``PEM_read_bio_X509``) and would pass over
    it."""
    import tempfile

    with tempfile.NamedTemporaryFile(prefix="edns-check-", suffix=".pem") as bundle:
        bundle.write(ca_bundle)
        bundle.flush()
        context.load_verify_locations(cafile=bundle.name)


# How a check runs. One thread, one selector, every socket non-blocking, TLS through
# ssl.MemoryBIO: every server is connected as soon as a socket is free (up to
# CHECK_MAX_PARALLEL at once), so a server that never answers holds nothing but its own
# socket until its deadline. A connected server's TLS handshake starts when one of
# CHECK_HANDSHAKES_AT_ONCE slots is free; a slot is held until the handshake is done, or
# for _SLOT_SECONDS at most (a slow or silent server then goes on outside the pool), so
# the handshakes of fast servers never queue behind a silent one, and the client's and
# the servers' CPU is not shared among all handshakes at once.
#
# Each server's printed time is its own: its clock starts when its connect() is issued
# and stops when its whole answer has been read, less the time it waited for this
# process (its data had arrived, or it had connected, while another server was being
# handled, or it waited for a handshake slot). When its data arrived is the kernel's
# receive timestamp (SO_TIMESTAMPNS), else the moment the selector reported it.

# Seconds a TLS handshake holds its slot at most.
_SLOT_SECONDS = 0.05
# A raw read: at most this many bytes (one TLS flight, or more of a large one).
_READ_BYTES = 65536
# SO_TIMESTAMPNS (asm-generic/socket.h: SO_TIMESTAMPNS_OLD), which Python does not name;
# on these architectures only (alpha, mips, parisc and sparc number it otherwise).
_SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
_TIMESTAMP_MACHINES = frozenset(("x86_64", "i386", "i486", "i586", "i686", "aarch64",
                                 "armv7l", "armv8l", "ppc64le", "ppc64", "s390x", "riscv64"))
_TIMESPEC = struct.Struct("@ll")


class _ProbeLoop:
    """Runs _ServerProbes to their end, each within its deadline."""

    def __init__(self, probes, timeout, within):
        self.probes = probes
        self.timeout = timeout
        self.selector = selectors.DefaultSelector()
        self.begun = time.perf_counter()
        self.end = None if within is None else self.begun + within
        self.waiting = collections.deque(probes)
        self.sockets = 0
        self.deadlines = []          # heap of (deadline, sequence, probe)
        self.slot_queue = collections.deque()
        self.in_slots = {}           # probe -> when its slot was taken
        self.timestamps = os.uname().machine in _TIMESTAMP_MACHINES

    def run(self):
        try:
            while self.waiting or self.deadlines:
                started = self._start_next()
                self._grant_slots()
                timeout = 0 if started else self._wait_seconds()
                events = self.selector.select(timeout) if self.selector.get_map() else \
                    time.sleep(max(0.0, timeout or 0.0)) or []
                ready_at = time.perf_counter()
                for key, mask in events:
                    probe = key.data
                    if probe.result is None:
                        probe.guarded(probe.on_ready, mask, ready_at)
                self._expire(time.perf_counter())
        finally:
            for probe in self.probes:
                probe.close()
            self.selector.close()

    def _start_next(self):
        """Start the next waiting server if a socket is free; whether one was started."""
        if not self.waiting or self.sockets >= CHECK_MAX_PARALLEL:
            return False
        now = time.perf_counter()
        probe = self.waiting.popleft()
        if self.end is not None and now >= self.end:
            probe.never_begun(self.end - self.begun, CHECK_MAX_PARALLEL)
            for rest in self.waiting:
                rest.never_begun(self.end - self.begun, CHECK_MAX_PARALLEL)
            self.waiting.clear()
            return False
        deadline = now + self.timeout if self.end is None else min(now + self.timeout,
                                                                    self.end)
        probe.loop = self
        probe.guarded(probe.start, now, deadline)
        if probe.result is None:
            heapq.heappush(self.deadlines, (deadline, id(probe), probe))
        return True

    def _wait_seconds(self):
        """How long the selector may wait: until the next deadline or slot to give back."""
        moments = []
        while self.deadlines and self.deadlines[0][2].result is not None:
            heapq.heappop(self.deadlines)
        if self.deadlines:
            moments.append(self.deadlines[0][0])
        if self.in_slots:
            moments.append(min(self.in_slots.values()) + _SLOT_SECONDS)
        if self.waiting and self.end is not None:
            moments.append(self.end)
        if not moments:
            return None
        return max(0.0, min(moments) - time.perf_counter())

    def _expire(self, now):
        while self.deadlines and (self.deadlines[0][2].result is not None or
                                  self.deadlines[0][0] <= now):
            _deadline, _sequence, probe = heapq.heappop(self.deadlines)
            if probe.result is None:
                probe.guarded(probe.expire)
        for probe, taken in list(self.in_slots.items()):
            if now - taken >= _SLOT_SECONDS:
                self.leave_slot(probe)

    # What a probe asks of the loop.

    def open_socket(self, family, kind):
        sock = socket.socket(family, kind)
        sock.setblocking(False)
        if self.timestamps:
            try:
                sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
            except OSError:
                pass
        self.sockets += 1
        return sock

    def close_socket(self, sock):
        self.unwatch(sock)
        sock.close()
        self.sockets -= 1

    def watch(self, probe, sock, events):
        try:
            self.selector.modify(sock, events, probe)
        except KeyError:
            self.selector.register(sock, events, probe)

    def unwatch(self, sock):
        try:
            self.selector.unregister(sock)
        except (KeyError, ValueError):
            pass

    def want_slot(self, probe):
        probe.pause(time.perf_counter())
        self.slot_queue.append(probe)

    def leave_slot(self, probe):
        self.in_slots.pop(probe, None)

    def _grant_slots(self):
        while self.slot_queue and len(self.in_slots) < CHECK_HANDSHAKES_AT_ONCE:
            probe = self.slot_queue.popleft()
            if probe.result is None:
                now = time.perf_counter()
                self.in_slots[probe] = now
                probe.resume(now)
                probe.guarded(probe.begin_handshake)


def _received(sock, count, timestamps):
    """(bytes, seconds since they arrived or None) of one read of SOCK."""
    if not timestamps:
        return sock.recv(count), None
    data, ancillary, _flags, _address = sock.recvmsg(count, socket.CMSG_SPACE(_TIMESPEC.size))
    for level, kind, value in ancillary:
        if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and \
                len(value) == _TIMESPEC.size:
            seconds, nanoseconds = _TIMESPEC.unpack(value)
            return data, max(0.0, (time.time_ns() - seconds * 10 ** 9 - nanoseconds) / 1e9)
    return data, None


class _Stage(enum.Enum):
    CONNECTING = 1
    WAITING_FOR_SLOT = 2
    HANDSHAKING = 3
    ASKING = 4
    ASKING_UDP = 5
    EXPLAINING = 6      # a second connection, unverified, to read a refused certificate


class _ServerProbe:
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
        except _Failed as failure:
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
        return _Failed(Outcome.TIMEOUT, _("%s within %g s%s") % (what, self.allowed, advice))

    def _socket(self, kind):
        """A new non-blocking socket of KIND for the server's address family."""
        family = socket.AF_INET6 if self.server.address.version == 6 else socket.AF_INET
        try:
            return self.loop.open_socket(family, kind)
        except OSError as error:
            if error.errno in _LOCAL_RESOURCE_ERRNOS:
                raise _Failed(Outcome.NOT_CHECKED, _no_socket_reason(error)) from None
            raise

    def _connect(self, sock):
        code = sock.connect_ex((str(self.server.address), self.server.port))
        if code in (0, errno.EINPROGRESS):
            self.loop.watch(self, sock, selectors.EVENT_WRITE)
            return
        self._connect_failed(code)

    def _connect_failed(self, code):
        if code == errno.ECONNREFUSED:
            raise _Failed(Outcome.CONNECTION_REFUSED, _("nothing accepts connections on this "
                          "address and port; check both"))
        if code in (errno.ETIMEDOUT,):
            raise self._timeout(_("no connection"), _("; check the address, the routing and "
                                "firewalls"))
        raise _Failed(Outcome.UNREACHABLE, _("cannot connect: %s; check the address and "
                      "the network") % _os_error_text(OSError(code, os.strerror(code))))

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
            data, waited = _received(self.sock, _READ_BYTES, self.loop.timestamps)
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
            raise _Failed(Outcome.TLS_FAILED, _("the server closed the connection during the "
                          "TLS handshake; is it a DNS over TLS server?"))
        else:
            raise _Failed(Outcome.TLS_FAILED, _("the TLS handshake broke off: %s; is it a DNS "
                          "over TLS server?") % _os_error_text(error))

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
            raise _Failed(Outcome.TLS_FAILED, _("the server closed the connection during the "
                          "TLS handshake; is it a DNS over TLS server?")) from None
        except ssl.SSLError as error:
            if self.stage is _Stage.EXPLAINING:
                self._explained(None)
                return
            raise _Failed(Outcome.TLS_FAILED, _handshake_error_reason(error)) from None
        if self.stage is _Stage.EXPLAINING:
            self._explained(self.tls.getpeercert(binary_form=True), _sent_chain(self.tls))
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
                    self._finish(_judge_answer(self.server, self.query, wire, self.name,
                                               rtt_ms, self.handshake_ms))
                    return

    def _connection_failure(self, error, received):
        """A _Failed for ERROR (None: a clean close) after the TLS handshake, when the server
        had sent RECEIVED bytes of its answer."""
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
                           % (when, printable(error.reason or error_text(error))))
        return _Failed(Outcome.CONNECTION_LOST, _("the connection broke %s: %s")
                       % (when, _os_error_text(error)))

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
            answer, waited = _received(self.sock, 65535, self.loop.timestamps)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            self._udp_failed(error)
        self._exclude(now - ready_at if waited is None else waited)
        self._finish(_judge_answer(self.server, self.query, answer, self.name,
                                   self._elapsed_ms(), None))

    def _udp_failed(self, error):
        if isinstance(error, ConnectionRefusedError):
            raise _Failed(Outcome.CONNECTION_REFUSED, _("nothing answers on this address "
                          "and UDP port; check both")) from None
        raise _Failed(Outcome.UNREACHABLE, _("cannot reach the server: %s")
                      % _os_error_text(error)) from None

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
        except _Failed:
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
        """A _Failed saying why the server's certificate was refused, with its details from
        CHAIN (what the server sent, cryptography certificates, its own first; its own
        alone unless CHAIN_KNOWN)."""
        code = error.verify_code
        name = self.server.name
        certificate = chain[0] if chain else None
        if code == _HOSTNAME_MISMATCH_CODE:
            return _Failed(Outcome.NAME_MISMATCH, _("the server's certificate %s; write a name "
                           "it has after '#', or give the server a certificate for %s")
                           % (_names_sentence(certificate, name), name))
        if code in (_EXPIRED_CODE, _NOT_YET_VALID_CODE):
            return _validity_failure(code, certificate)
        if code in _UNKNOWN_ISSUER_CODES or code == _REJECTED_CODE:
            reason = _chain_reason(chain, self.trust, chain_known)
            if reason is not None:   # (which names the CA it is about)
                return _Failed(Outcome.UNKNOWN_CA, _("the server's certificate is not "
                               "authenticated by %s: %s") % (self.trust.said, reason))
        if code in _UNKNOWN_ISSUER_CODES:
            return _Failed(Outcome.UNKNOWN_CA, _("the server's certificate%s is not signed by "
                           "%s; add the CA that issued it")
                           % (_issuer_clause(certificate), self.trust.said))
        return _Failed(Outcome.CERTIFICATE_REJECTED, _("the server's certificate is refused: %s")
                       % printable(error.verify_message))


def _sent_chain(tls):
    """The DER of each certificate the server sent, its own first (Python 3.10 and later
    have it as ``_sslobj.get_unverified_chain``, 3.13 also as ``get_unverified_chain``);
    () where this Python cannot say."""
    read = getattr(tls, "get_unverified_chain", None) or \
        getattr(getattr(tls, "_sslobj", None), "get_unverified_chain", None)
    try:
        chain = (read() if read is not None else None) or ()
        return [each if isinstance(each, bytes) else each.public_bytes(ssl._ssl.ENCODING_DER)
                for each in chain]
    except Exception:  # noqa: BLE001 (only details of a known refusal are lost)
        return ()


def _chain_reason(chain, trust, chain_known):
    """Why CHAIN was refused, in chain words from the kickstart's certificates
    (``chains.refusal_reason``), escaped, or None."""
    from org_edns_addon.certificates.chains import refusal_reason

    try:
        return refusal_reason(chain, trust.authorities, trust.explicit, shown=printable,
                              chain_known=chain_known)
    except ValueError:   # cryptography parses names and extensions lazily
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
    return _("%s; is this a DNS over TLS server?") % printable(reason or error_text(error))


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

    from org_edns_addon.certificates.pem import utc_time

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
