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

"""The one loop every server's check runs on: one thread, one selector, non-blocking
sockets, handshakes a few at a time, each printed time its own."""

import collections
import heapq
import os
import selectors
import socket
import struct
import time

from org_edns_addon.constants import CHECK_HANDSHAKES_AT_ONCE, CHECK_MAX_PARALLEL

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
# SO_TIMESTAMPNS (asm-generic/socket.h: SO_TIMESTAMPNS_OLD), which Python does not name;
# on these architectures only (alpha, mips, parisc and sparc number it otherwise).
_SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
_TIMESTAMP_MACHINES = frozenset(("x86_64", "i386", "i486", "i586", "i686", "aarch64",
                                 "armv7l", "armv8l", "ppc64le", "ppc64", "s390x", "riscv64"))
_TIMESPEC = struct.Struct("@ll")


class ProbeLoop:
    """Runs ``ServerProbe``s to their end, each within its deadline."""

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


def received(sock, count, timestamps):
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
