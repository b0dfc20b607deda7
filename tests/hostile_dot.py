"""Hostile DNS-over-TLS servers on loopback, for attacking ``edns-addon check``.

A ``HostileDotServer`` is a real TLS server (Python's ``ssl``) in a thread of
the test process, with a certificate made here with ``cryptography``; after
each TLS handshake it does what its ``behaviour`` says: answer with an RCODE,
reset the connection, send a TLS record larger than TLS allows. The
certificates carry what an attacker can put in them: control characters in
names, thousands of alternative names, a malformed iPAddress entry that
``cryptography`` cannot read (built as raw DER).

Nothing here needs pytest; ``start``/``stop`` by hand or use it as a context manager.
"""

import socket
import ssl
import struct
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtensionOID, ExtendedKeyUsageOID, NameOID

from tests import certs

# How long a connection of a hostile server waits for its client before giving up.
CONNECTION_SECONDS = 10.0
# The largest payload TLS allows in one record (RFC 8446 5.1).
TLS_MAX_PLAINTEXT = 2 ** 14
_TLS_APPLICATION_DATA = 0x17


def _name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _der_length(length):
    if length < 0x80:
        return bytes([length])
    encoded = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(encoded)]) + encoded


def _der(tag, content):
    return bytes([tag]) + _der_length(len(content)) + content


def raw_subject_alternative_names(dns_names=(), ip_octets=()):
    """The DER of a SubjectAlternativeName with DNS_NAMES (dNSName, [2]) and IP_OCTETS
    (iPAddress, [7]) taken as raw bytes, so any length can be written: RFC 5280 allows
    only 4 or 16, and ``cryptography`` refuses to read anything else."""
    entries = b"".join(_der(0x82, name.encode("ascii")) for name in dns_names)
    entries += b"".join(_der(0x87, octets) for octets in ip_octets)
    return _der(0x30, entries)


def make_hostile_server(issuer, dns_names=("dot.test",), subject_cn=None,
                        raw_alternative_names: Optional[bytes] = None):
    """A server certificate signed by ISSUER (a ``certs.Issued``).

    Its alternative names are DNS_NAMES, written as given (control characters
    included), or RAW_ALTERNATIVE_NAMES (the extension's DER) when given; its
    subject CN is SUBJECT_CN (default: the first name).
    """
    key = ec.generate_private_key(ec.SECP256R1())
    if raw_alternative_names is not None:
        alternative = x509.UnrecognizedExtension(ExtensionOID.SUBJECT_ALTERNATIVE_NAME,
                                                 raw_alternative_names)
    else:
        alternative = x509.UnrecognizedExtension(ExtensionOID.SUBJECT_ALTERNATIVE_NAME,
                                                 raw_subject_alternative_names(dns_names))
    builder = (x509.CertificateBuilder()
               .subject_name(_name(subject_cn or (dns_names[0] if dns_names else "server")))
               .issuer_name(issuer.cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(certs.now() - certs.DAY)
               .not_valid_after(certs.now() + 30 * certs.DAY)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(alternative, critical=False)
               .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                              critical=False))
    return certs.Issued(builder.sign(issuer.key, hashes.SHA256()), key)


def make_hostile_ca(common_name, organization=None):
    """A self-signed CA whose subject (and so its certificates' issuer) is COMMON_NAME and
    ORGANIZATION, whatever characters they hold; ORGANIZATION may be of any length."""
    key = ec.generate_private_key(ec.SECP256R1())
    attributes = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization is not None:
        attributes.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    name = x509.Name(attributes)
    certificate = (x509.CertificateBuilder()
                   .subject_name(name).issuer_name(name)
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(certs.now() - certs.DAY)
                   .not_valid_after(certs.now() + 30 * certs.DAY)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None),
                                  critical=True)
                   .sign(key, hashes.SHA256()))
    return certs.Issued(certificate, key)


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
    """A TLS server on ADDRESS (a free port) presenting CERTIFICATE, in threads of this
    process, doing BEHAVIOUR(tls_socket) after each handshake."""
    directory: Path
    certificate: certs.Issued
    behaviour: Callable
    address: str = "127.0.0.6"
    # Seconds each connection waits before its TLS handshake.
    handshake_delay: float = 0.0

    def __post_init__(self):
        self.directory = Path(self.directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        cert_path, key_path = self.certificate.write(self.directory, "hostile")
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert_path, key_path)
        self.listener = socket.socket()
        self.listener.bind((self.address, 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.handshakes = 0
        self.errors = []
        self._stop = threading.Event()
        self._threads = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    def server_line(self, tls_name="dot.test"):
        return "dns+tls://%s:%d#%s" % (self.address, self.port, tls_name)

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
