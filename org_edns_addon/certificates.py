"""PEM checks and CA bundle building with ``cryptography``.

A ``%certificate`` body may hold several PEM blocks (a bundle). Every block
must be a certificate; a private key pasted by mistake is refused loudly,
because the kickstart would then publish it to every installed host.
"""

import datetime
import re
from dataclasses import dataclass, field
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization


class CertificateError(ValueError):
    """A certificate problem; ``line`` is the 0-based line in the PEM text, if known."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.message = message
        self.line = line


_PRIVATE_KEY = "PRIVATE KEY"
_PEM_BLOCK = re.compile(
    r"-----BEGIN (?P<label>[A-Z0-9 ]+)-----(?P<body>.*?)-----END (?P=label)-----",
    re.DOTALL)


@dataclass(frozen=True)
class PemCertificate:
    """One parsed certificate and where its PEM block starts in the text."""
    fingerprint: str
    der: bytes = field(repr=False)
    subject: str
    not_before: datetime.datetime
    not_after: datetime.datetime
    line: int = field(compare=False)
    certificate: x509.Certificate = field(compare=False, repr=False)

    def to_pem(self):
        return self.certificate.public_bytes(serialization.Encoding.PEM)


def _line_of(text, offset):
    """0-based line of OFFSET, counting line breaks as pykickstart does (str.splitlines)."""
    return len((text[:offset] + "x").splitlines()) - 1


def _line_at(text, offset):
    """The line holding OFFSET (TEXT[OFFSET] is not a line break), stripped and shortened."""
    start = offset - len((text[:offset] + "x").splitlines()[-1]) + 1
    return text[start:].splitlines()[0].strip()[:64]


def load_pem_certificates(text):
    """Parse every PEM block of TEXT; refuse keys, garbage and empty input."""
    if isinstance(text, bytes):
        try:
            text = text.decode("ascii")
        except UnicodeDecodeError:
            raise CertificateError("the certificate is not PEM text (it holds non-ASCII "
                                   "bytes); paste the -----BEGIN CERTIFICATE----- block") from None
    # Looked for before anything else, wherever it hides (between, inside or
    # after certificates): a key in a kickstart is copied to every installed host.
    key_at = text.find(_PRIVATE_KEY)
    if key_at >= 0:
        raise CertificateError(
            "a private key is pasted here (%r); never put a private key in a kickstart: "
            "remove it and paste only the CA certificate" % _line_at(text, key_at),
            _line_of(text, key_at))
    certificates = []
    position = 0
    for match in _PEM_BLOCK.finditer(text):
        _check_between(text, position, match.start())
        position = match.end()
        line = _line_of(text, match.start())
        label = match.group("label")
        if label != "CERTIFICATE":
            raise CertificateError("a PEM block of type %r is not a certificate; paste only "
                                   "-----BEGIN CERTIFICATE----- blocks" % label, line)
        try:
            cert = x509.load_pem_x509_certificate(match.group(0).encode("ascii"))
            der = cert.public_bytes(serialization.Encoding.DER)
        except ValueError as error:
            raise CertificateError("the certificate cannot be decoded (%s); paste it again "
                                   "from the original file" % error, line) from None
        certificates.append(PemCertificate(
            fingerprint=cert.fingerprint(hashes.SHA256()).hex(),
            der=der,
            subject=cert.subject.rfc4514_string(),
            not_before=cert.not_valid_before_utc,
            not_after=cert.not_valid_after_utc,
            line=line,
            certificate=cert,
        ))
    _check_between(text, position, len(text))
    if not certificates:
        raise CertificateError("no -----BEGIN CERTIFICATE----- block is found; paste the "
                               "CA certificate in PEM form", 0)
    return certificates


def _check_between(text, start, end):
    """Refuse anything but whitespace between PEM blocks."""
    between = text[start:end]
    stripped = between.strip()
    if not stripped:
        return
    offset = start + between.find(stripped[0])
    begin = between.find("-----BEGIN ")
    if begin >= 0:
        raise CertificateError("%r has no matching -----END line; paste the whole block"
                               % _line_at(text, start + begin),
                               _line_of(text, start + begin))
    raise CertificateError("unexpected text %r outside a PEM block; a %%certificate body "
                           "holds only -----BEGIN CERTIFICATE----- blocks"
                           % stripped.splitlines()[0][:40], _line_of(text, offset))


def _now(now):
    return now if now is not None else datetime.datetime.now(datetime.timezone.utc)


def validity_problem(cert, now=None):
    """A sentence if CERT is expired or not yet valid at NOW, else None."""
    now = _now(now)
    if now > cert.not_after:
        return "the certificate %s expired on %s; replace it with a current one" % (
            cert.subject, cert.not_after.strftime("%Y-%m-%d %H:%M:%S UTC"))
    if now < cert.not_before:
        return "the certificate %s is not valid before %s; check the clock or the " \
               "certificate" % (cert.subject, cert.not_before.strftime("%Y-%m-%d %H:%M:%S UTC"))
    return None


def ca_problem(cert):
    """A sentence if CERT cannot act as a CA, else None (as FreeIPA checks)."""
    try:
        constraints = cert.certificate.extensions.get_extension_for_class(
            x509.BasicConstraints).value
    except x509.ExtensionNotFound:
        constraints = None
    if constraints is None or not constraints.ca:
        return "Not a valid CA certificate: %s (basicConstraints CA:TRUE is missing); " \
               "give the CA that issued the DNS servers' certificates" % cert.subject
    try:
        usage = cert.certificate.extensions.get_extension_for_class(x509.KeyUsage).value
    except x509.ExtensionNotFound:
        usage = None
    if usage is not None and not usage.key_cert_sign:
        return "Not a valid CA certificate: %s (keyUsage lacks keyCertSign)" % cert.subject
    return None


def check_ca_certificate(cert, now=None):
    """Raise CertificateError unless CERT is a CA valid at NOW."""
    problem = ca_problem(cert) or validity_problem(cert, now)
    if problem:
        raise CertificateError(problem, cert.line)


def load_ca_certificates(text, now=None):
    """``load_pem_certificates`` of TEXT, refusing any block that is not a CA valid at NOW:
    the checks of a ``%certificate`` that authenticates DNS servers (``--ca``)."""
    blocks = load_pem_certificates(text)
    for block in blocks:
        check_ca_certificate(block, now)
    return blocks


def build_bundle(certificates):
    """A PEM bundle of CERTIFICATES in the given order, duplicates (by fingerprint) removed."""
    seen = set()
    chunks = []
    for cert in certificates:
        if cert.fingerprint in seen:
            continue
        seen.add(cert.fingerprint)
        chunks.append(cert.to_pem())
    return b"".join(chunks)

