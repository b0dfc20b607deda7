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

"""Real certificates, made fresh for each run (nothing checked in that expires): the one
place that builds one, for the tests, the lab, the benchmarks and the proofs.

Names are written as given, whatever characters they hold, so a hostile server's
certificate comes from here too."""

import datetime
import ipaddress
import subprocess
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, ExtensionOID, NameOID

UTC = datetime.timezone.utc
DAY = datetime.timedelta(days=1)


def now():
    return datetime.datetime.now(UTC)


@dataclass
class Issued:
    """A certificate with its private key (the key never goes into a kickstart)."""
    cert: x509.Certificate
    key: ec.EllipticCurvePrivateKey

    @property
    def pem(self):
        return self.cert.public_bytes(serialization.Encoding.PEM).decode("ascii")

    @property
    def not_after(self):
        """The end of its validity, in UTC (cryptography 36, EL9's, has no *_utc)."""
        return getattr(self.cert, "not_valid_after_utc", None) or \
            self.cert.not_valid_after.replace(tzinfo=UTC)

    @property
    def key_pem(self):
        return self.key.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()).decode("ascii")

    def write(self, directory, stem):
        """Write STEM.pem and STEM.key into DIRECTORY; return both paths."""
        cert_path = directory / ("%s.pem" % stem)
        key_path = directory / ("%s.key" % stem)
        cert_path.write_text(self.pem)
        key_path.write_text(self.key_pem)
        return cert_path, key_path


def _name(common_name, organization=None):
    attributes = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization is not None:
        attributes.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    return x509.Name(attributes)


def _der_length(length):
    if length < 0x80:
        return bytes([length])
    encoded = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(encoded)]) + encoded


def _der(tag, content):
    return bytes([tag]) + _der_length(len(content)) + content


def subject_alternative_names_der(dns_names=(), ip_octets=()):
    """The DER of a SubjectAlternativeName with DNS_NAMES (dNSName, [2]) and IP_OCTETS
    (iPAddress, [7]) taken as raw bytes, so any name and any length can be written: RFC
    5280 allows only 4 or 16 octets, and ``cryptography`` refuses to read anything else."""
    entries = b"".join(_der(0x82, name.encode("ascii")) for name in dns_names)
    entries += b"".join(_der(0x87, octets) for octets in ip_octets)
    return _der(0x30, entries)


def make_ca(common_name="Test DNS CA", not_before=None, not_after=None, ca=True,
            key_cert_sign=True, organization=None, key=None):
    """A self-signed CA (or, with ca=False, a self-signed non-CA) certificate; its subject
    is COMMON_NAME and ORGANIZATION (if given), of any characters and length; KEY is its
    key (another certificate of the same root keeps it), new by default."""
    key = key or ec.generate_private_key(ec.SECP256R1())
    not_before = not_before or now() - DAY
    not_after = not_after or now() + 30 * DAY
    name = _name(common_name, organization)
    builder = (x509.CertificateBuilder()
               .subject_name(name).issuer_name(name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               # RFC 5280 wants at least one keyUsage bit; cryptography 36 (EL9) cannot
               # read back the empty bit string it writes for a CA without keyCertSign.
               .add_extension(x509.KeyUsage(
                   digital_signature=not (ca and key_cert_sign), content_commitment=False,
                   key_encipherment=False,
                   data_encipherment=False, key_agreement=False, key_cert_sign=key_cert_sign,
                   crl_sign=key_cert_sign, encipher_only=False, decipher_only=False),
                   critical=True))
    return Issued(builder.sign(key, hashes.SHA256()), key)


def make_intermediate(issuer, common_name="Test Issuing CA", not_before=None, not_after=None,
                      key=None):
    """An intermediate CA: a CA certificate for COMMON_NAME signed by ISSUER (a root or
    another intermediate), with basicConstraints CA:TRUE and keyCertSign as a PKI issues
    one; KEY is its key (a renewal of the same intermediate keeps it), new by default."""
    key = key or ec.generate_private_key(ec.SECP256R1())
    not_before = not_before or now() - DAY
    not_after = not_after or now() + 30 * DAY
    builder = (x509.CertificateBuilder()
               .subject_name(_name(common_name)).issuer_name(issuer.cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
               .add_extension(x509.KeyUsage(
                   digital_signature=False, content_commitment=False, key_encipherment=False,
                   data_encipherment=False, key_agreement=False, key_cert_sign=True,
                   crl_sign=True, encipher_only=False, decipher_only=False), critical=True))
    return Issued(builder.sign(issuer.key, hashes.SHA256()), key)


def with_trust_settings(issued, directory, *options):
    """ISSUED's certificate as `openssl x509 -trustout OPTIONS` writes it (OPTIONS such as
    "-addreject", "serverAuth"): a TRUSTED CERTIFICATE block with OpenSSL's trust
    settings, made by OpenSSL itself in DIRECTORY."""
    path = directory / "trust-settings-input.pem"
    path.write_text(issued.pem)
    return subprocess.run(["openssl", "x509", "-in", str(path), "-trustout", *options],
                          check=True, capture_output=True, text=True, timeout=60).stdout


def make_server(issuer, dns_names=("dot.test",), ip_addresses=(), not_before=None,
                not_after=None, subject_cn=None, alternative_names_der=None):
    """A TLS server certificate for DNS_NAMES/IP_ADDRESSES signed by ISSUER.

    The names are written as given (control characters included), or the extension is
    ALTERNATIVE_NAMES_DER when given; the subject CN is SUBJECT_CN (default: the first
    name).
    """
    key = ec.generate_private_key(ec.SECP256R1())
    not_before = not_before or now() - DAY
    not_after = not_after or now() + 30 * DAY
    if alternative_names_der is None:
        alternative_names_der = subject_alternative_names_der(
            dns_names, [ipaddress.ip_address(a).packed for a in ip_addresses])
    alternative = x509.UnrecognizedExtension(ExtensionOID.SUBJECT_ALTERNATIVE_NAME,
                                             alternative_names_der)
    builder = (x509.CertificateBuilder()
               .subject_name(_name(subject_cn or (dns_names[0] if dns_names else "server")))
               .issuer_name(issuer.cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(alternative, critical=False)
               .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                              critical=False))
    return Issued(builder.sign(issuer.key, hashes.SHA256()), key)


def make_v1_root(common_name, directory):
    """A self-signed X.509 v1 certificate (no extensions at all), as `openssl x509 -req`
    makes one and rhinstaller/kickstart-tests carries one; returns its PEM text."""
    key, csr, pem = (directory / ("v1.%s" % suffix) for suffix in ("key", "csr", "pem"))
    subprocess.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", str(key), "-subj",
                    "/CN=%s" % common_name, "-out", str(csr)], check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", str(csr), "-signkey", str(key),
                    "-days", "30", "-out", str(pem)], check=True, capture_output=True)
    return pem.read_text()
