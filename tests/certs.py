"""Real certificates, made fresh for each test run (nothing checked in that expires)."""

import datetime
import ipaddress
import subprocess
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

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


def _name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def make_ca(common_name="Test DNS CA", not_before=None, not_after=None, ca=True,
            key_cert_sign=True):
    """A self-signed CA (or, with ca=False, a self-signed non-CA) certificate."""
    key = ec.generate_private_key(ec.SECP256R1())
    not_before = not_before or now() - DAY
    not_after = not_after or now() + 30 * DAY
    builder = (x509.CertificateBuilder()
               .subject_name(_name(common_name)).issuer_name(_name(common_name))
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


def make_server(issuer, dns_names=("dot.test",), ip_addresses=(), not_before=None,
                not_after=None):
    """A TLS server certificate for DNS_NAMES/IP_ADDRESSES signed by ISSUER."""
    key = ec.generate_private_key(ec.SECP256R1())
    not_before = not_before or now() - DAY
    not_after = not_after or now() + 30 * DAY
    names = [x509.DNSName(n) for n in dns_names]
    names += [x509.IPAddress(ipaddress.ip_address(a)) for a in ip_addresses]
    builder = (x509.CertificateBuilder()
               .subject_name(_name(dns_names[0] if dns_names else "server"))
               .issuer_name(issuer.cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.SubjectAlternativeName(names), critical=False)
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
