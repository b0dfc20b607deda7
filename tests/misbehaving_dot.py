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

"""DNS-over-TLS servers that misbehave, for the tests of ``edns-addon check``.

A ``HostileDotServer`` is a real TLS server (Python's ``ssl``) in a thread of
the test process, listening in the network it is given (a ``lab.dotlab``
``PrivateNetwork``, on one of the lab's hosts, so that a kickstart may name
it), with a certificate from ``lab.certs``; after each TLS handshake it does
what its ``behaviour`` says: answer with an RCODE, reset the connection, send a
TLS record larger than TLS allows. The
certificates carry what an attacker can put in them: control characters in
names, thousands of alternative names, a malformed iPAddress entry that
``cryptography`` cannot read (``certs.subject_alternative_names_der``).

Nothing here needs pytest; ``start``/``stop`` by hand or use it as a context manager.
"""

import socket
import ssl
import struct
import threading
import time
from dataclasses import dataclass
from ipaddress import ip_address
from pathlib import Path
from typing import Callable

from lab import certs
from lab.dotlab import HOST_NETWORK, lab_port
from org_edns_addon.model import DotServer

# How long a connection of a hostile server waits for its client before giving up.
CONNECTION_SECONDS = 10.0
# The largest payload TLS allows in one record (RFC 8446 5.1).
TLS_MAX_PLAINTEXT = 2 ** 14
_TLS_APPLICATION_DATA = 0x17


# ---------------------------------------------------------------------------
# Behaviours: what a server does with a connection once the TLS handshake is done


def dns_answer(rcode, delay=0.0):
    """A behaviour: read one query, wait DELAY seconds, answer it with RCODE and no records."""
    def behave(tls):
        import dns.message

        query = dns.message.from_wire(_read_dns_message(tls))
        time.sleep(delay)
        response = dns.message.make_response(query)
        response.set_rcode(rcode)
        wire = response.to_wire()
        tls.sendall(struct.pack("!H", len(wire)) + wire)
        _wait_for_close(tls)
    return behave


def reset_after_handshake(tls):
    """A behaviour: reset the TCP connection (RST) at once, without a TLS close."""
    tls.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def oversized_tls_record(tls):
    """A behaviour: read the query, then send a TLS record header announcing more than
    TLS allows (the bytes go around TLS, straight onto the TCP connection)."""
    _read_dns_message(tls)
    length = TLS_MAX_PLAINTEXT + 2048 + 1
    # socket.socket's own sendall writes to the TCP connection, not through TLS.
    socket.socket.sendall(tls, struct.pack("!BHH", _TLS_APPLICATION_DATA, 0x0303, length) +
                          b"\0" * length)
    _wait_for_close(tls)


def _read_exactly(tls, count):
    data = b""
    while len(data) < count:
        chunk = tls.recv(count - len(data))
        if not chunk:
            raise EOFError("the client closed the connection")
        data += chunk
    return data


def _read_dns_message(tls):
    return _read_exactly(tls, struct.unpack("!H", _read_exactly(tls, 2))[0])


def _wait_for_close(tls):
    try:
        while tls.recv(4096):
            pass
    except OSError:
        pass


# ---------------------------------------------------------------------------


@dataclass
class HostileDotServer:
    """A TLS server on ADDRESS (port 853 in a private network, else a free port: lab_port) in
    NETWORK presenting CERTIFICATE, in threads
    of this process, doing BEHAVIOUR(tls_socket) after each handshake."""
    directory: Path
    certificate: certs.Issued
    behaviour: Callable
    address: str = "127.0.0.6"
    # Seconds each connection waits before its TLS handshake.
    handshake_delay: float = 0.0
    network: object = HOST_NETWORK

    def __post_init__(self):
        self.directory = Path(self.directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        cert_path, key_path = self.certificate.write(self.directory, "hostile")
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert_path, key_path)
        self.listener = self.network.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((self.address, lab_port(self.address, self.network)))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.handshakes = 0
        self.errors = []
        self._stop = threading.Event()
        self._threads = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    def server_line(self, tls_name="dot.test"):
        return DotServer(ip_address(self.address), self.port, tls_name).uri()

    def _accept(self):
        self.listener.settimeout(0.1)
        while not self._stop.is_set():
            try:
                raw, _ = self.listener.accept()
            except OSError:
                continue
            thread = threading.Thread(target=self._serve, args=(raw,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, raw):
        raw.settimeout(CONNECTION_SECONDS)
        time.sleep(self.handshake_delay)
        try:
            with self.context.wrap_socket(raw, server_side=True) as tls:
                self.handshakes += 1
                self.behaviour(tls)
        except (OSError, EOFError) as error:
            # A client giving up, or refusing the certificate, is part of the attack.
            self.errors.append(error)
        finally:
            raw.close()

    def stop(self):
        self._stop.set()
        self._accepting.join()
        self.listener.close()
        for thread in self._threads:
            thread.join(CONNECTION_SECONDS)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.stop()
