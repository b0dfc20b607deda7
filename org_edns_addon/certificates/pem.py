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

"""A certificate's PEM text read as OpenSSL's ``PEM_X509_INFO_read_bio`` reads a CA file
(``read_pem``), or as p11-kit reads an anchor, into ``CertificateBlock``s; the bundles
written back (``build_bundle``, ``canonical_pem``).

A body may hold several PEM blocks (a bundle). A private key pasted by mistake is
refused loudly, because the kickstart would then publish it to every installed host.
"""

import datetime
import re
from dataclasses import dataclass, field
from typing import Optional, Tuple

from org_edns_addon import terms
from org_edns_addon.constants import MAX_PEM_BYTES
from org_edns_addon.echo import named
from org_edns_addon.i18n import _


class CertificateError(ValueError):
    """A certificate problem; ``line`` is the 0-based line in the PEM text, if known.

    ``always`` is True for what is refused whatever the certificate is for (a private
    key, a text too large to be one); any other problem is the Security module's
    business for a certificate that authenticates no DNS server. ``empty`` is True when
    OpenSSL would load nothing of the text without failing (no certificate block it
    reads): beside a certificate that can authenticate, such a text takes nothing away
    from the DoT bundle."""

    def __init__(self, message, line=None, always=False, empty=False):
        super().__init__(message)
        self.message = message
        self.line = line
        self.always = always
        self.empty = empty

    def sentence(self, name=None):
        """The problem as a user reads it where no kickstart line shows it: in the PEM
        text of NAME (a ``--filename``, or the file it was read from), at its line."""
        if name is not None:
            name = named(name)
        if name is None:
            if self.line is None:
                return _("the PEM text: %s") % self.message
            return _("the PEM text, line %d: %s") % (self.line + 1, self.message)
        if self.line is None:
            return _("the PEM text of %s: %s") % (name, self.message)
        return _("the PEM text of %s, line %d: %s") % (name, self.line + 1, self.message)


def utc_time(cert, name):
    """The aware UTC datetime of CERT's ``not_valid_before`` or ``not_valid_after`` (NAME)."""
    # cryptography 42 added the *_utc attributes (and deprecated the naive ones);
    # EL9 ships cryptography 36, which only has the naive UTC ones.
    value = getattr(cert, name + "_utc", None)
    if value is None:
        value = getattr(cert, name).replace(tzinfo=datetime.timezone.utc)
    return value


@dataclass(frozen=True)
class CertificateBlock:
    """One parsed X.509 certificate and the line its PEM block starts on (0-based).

    ``trusted`` is the whole DER of a ``TRUSTED CERTIFICATE`` block (the certificate
    followed by OpenSSL's X509_AUX trust settings), else None; ``trusted_for`` and
    ``rejected_for`` are the purposes (dotted OIDs) its trust settings trust and reject,
    each None when the settings hold no such list (``server_auth_trust``)."""
    fingerprint: str
    subject: str
    not_before: datetime.datetime
    not_after: datetime.datetime
    line: int = field(compare=False)
    certificate: object = field(compare=False, repr=False)   # cryptography's x509.Certificate
    trusted: Optional[bytes] = field(default=None, compare=False, repr=False)
    trusted_for: Optional[Tuple[str, ...]] = field(default=None, compare=False, repr=False)
    rejected_for: Optional[Tuple[str, ...]] = field(default=None, compare=False, repr=False)

    def to_pem(self):
        """The certificate alone as a ``CERTIFICATE`` block (what Python's ``ssl`` reads)."""
        from cryptography.hazmat.primitives.serialization import Encoding
        return self.certificate.public_bytes(Encoding.PEM)

    def as_read_pem(self):
        """The block in the form it was given: a ``TRUSTED CERTIFICATE`` keeps its trust
        settings, which OpenSSL (and so Unbound's ``tls-cert-bundle``) honours."""
        if self.trusted is None:
            return self.to_pem()
        import base64
        text = base64.b64encode(self.trusted).decode("ascii")
        lines = [text[start:start + 64] for start in range(0, len(text), 64)]
        return ("-----BEGIN %s-----\n%s\n-----END %s-----\n" % (
            _TRUSTED, "\n".join(lines), _TRUSTED)).encode("ascii")


_PRIVATE_KEY = "PRIVATE KEY"
# OpenSSL's PEM reader (crypto/pem/pem_lib.c get_name) starts a block at a line that
# begins "-----BEGIN " and ends "-----", trailing whitespace aside, and passes over every
# other line outside a block: comments ("# Issuer:", "# Label:" in ca-certificates'
# bundles), "openssl x509 -text" output, anything.
_BEGIN = re.compile(r"-----BEGIN (.+)-----\Z")
# The names PEM_X509_INFO_read_bio (crypto/pem/pem_info.c) reads as certificates, and so
# SSL_CTX_load_verify_locations and Unbound's tls-cert-bundle (util/net_help.c
# connect_sslctx_create): PEM_STRING_X509, PEM_STRING_X509_OLD, PEM_STRING_X509_TRUSTED.
_TRUSTED = "TRUSTED CERTIFICATE"
_X509_OLD = "X509 CERTIFICATE"
_CERTIFICATE_LABELS = ("CERTIFICATE", _X509_OLD, _TRUSTED)
# OpenSSL's PEM reader wants the BEGIN and END lines at the start of a line;
# only ASCII whitespace is whitespace to it.
_ASCII_SPACE = " \t\r\n\f\v"
# What OpenSSL 3's sanitize_line (crypto/pem/pem_lib.c) drops from the first line of a
# read, and nothing else non-ASCII: "Other BOMs imply unsupported multibyte encoding".
_BYTE_ORDER_MARK = "\ufeff"
# Lines as pykickstart (Python's universal newlines) numbers them, so that a line here is
# the body line the kickstart reader placed.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _shown(line, limit=64):
    """LINE as quoted in a message: its first LIMIT characters, the quotes kept."""
    return repr(line.strip(_ASCII_SPACE)[:limit])


@dataclass(frozen=True)
class PassedOver:
    """A PEM block OpenSSL's reader never sees, at LINE (0-based) of the PEM text: a
    non-ASCII character hides its BEGIN line. ``message`` says why and how to fix it."""
    line: int
    message: str


@dataclass(frozen=True)
class PemText:
    """What OpenSSL's PEM reader takes of a text: the certificate ``blocks``, and the
    blocks it passes over without a word (``passed_over``, ``PassedOver``s); read as
    p11-kit reads an anchor, ``indented`` are the lines (0-based) of the ``-----BEGIN``
    lines it takes and OpenSSL would not, for their indentation."""
    blocks: Tuple[CertificateBlock, ...]
    passed_over: Tuple[PassedOver, ...] = ()
    indented: Tuple[int, ...] = ()


def read_pem(text, anchor=False):
    """Parse every certificate block of TEXT (str or bytes) in one pass, as OpenSSL's
    ``PEM_X509_INFO_read_bio`` reads a CA file, into a ``PemText``: text outside the
    blocks is passed over, ``CERTIFICATE``, ``X509 CERTIFICATE`` and ``TRUSTED
    CERTIFICATE`` blocks are certificates, a block of another type is passed over once
    its base64 reads. Refuse (``CertificateError`` naming the line) a private key
    anywhere, a block that does not end or decode (OpenSSL then loads nothing of the
    file), and a text without any certificate (OpenSSL: "no certificate or crl found").

    A UTF-8 byte order mark on the first line OpenSSL reads for a block (the text's
    first line, or the line after a block's END line) is dropped, as OpenSSL 3's
    ``sanitize_line`` (crypto/pem/pem_lib.c) drops it; a BEGIN line that any other
    non-ASCII character hides is a block OpenSSL passes over (``PassedOver``), and so is
    one that is indented: OpenSSL's ``get_name`` compares the line's start with
    ``-----BEGIN `` (the body's lines may be indented, ``EVP_DecodeUpdate`` skips the
    whitespace; an indented END line ends no block).

    ANCHOR: TEXT goes to the system trust's anchors, which p11-kit reads
    (``update-ca-trust extract``): its PEM parser (common/pem.c ``pem_find_begin``,
    ``pem_find_end``) finds the BEGIN and END lines wherever they start, so an indented
    block is read (its BEGIN line in ``PemText.indented``), and an ``X509 CERTIFICATE``
    block is passed over (trust/parser.c ``on_pem_block``)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise CertificateError(_("the certificate is not PEM text (it holds bytes that "
                                     "are not UTF-8); paste the -----BEGIN CERTIFICATE----- "
                                     "block")) from None
    if len(text) > MAX_PEM_BYTES:
        raise CertificateError(_("the certificate text is larger than %d KiB; that is not a "
                                 "CA certificate or bundle") % (MAX_PEM_BYTES // 1024),
                               always=True)
    lines = _LINE_BREAK.split(text)
    # Looked for before anything else, wherever it hides (between, inside or
    # after certificates): a key in a kickstart is copied to every installed host.
    for number, line in enumerate(lines):
        if _PRIVATE_KEY in line:
            raise CertificateError(_(
                "a private key is pasted here (%s); never put a private key in a kickstart: "
                "remove it and paste only the CA certificate") % _shown(line), number,
                always=True)
    blocks = []
    passed_over = []
    indented = []
    start = None
    # OpenSSL reads a file a block at a time (one PEM_read_bio each): the first line of
    # each read may start with a byte order mark.
    first_of_read = True
    for number, line in enumerate(lines):
        stripped = line.rstrip(_ASCII_SPACE)
        if start is None:
            if first_of_read and stripped.startswith(_BYTE_ORDER_MARK):
                stripped = stripped[len(_BYTE_ORDER_MARK):]
            first_of_read = False
            match = _BEGIN.match(stripped)
            if not match and stripped[:1].isspace() and stripped.isascii() and \
                    _BEGIN.match(stripped.lstrip(_ASCII_SPACE)):
                if anchor:
                    match = _BEGIN.match(stripped.lstrip(_ASCII_SPACE))
                    indented.append(number)
                else:
                    passed_over.append(PassedOver(number, _indented_begin()))
            if match:
                start, label, body = number, match.group(1), []
            elif "-----BEGIN " in stripped and not stripped.isascii():
                # A BEGIN line that a non-ASCII character (a byte order mark not on
                # the first line of a read, a no-break space) hides from OpenSSL, which
                # then passes over the whole block: said as what it is.
                passed_over.append(PassedOver(number, _hidden_begin(stripped)))
        elif not stripped.isascii():
            # Base64 and the END line are ASCII: OpenSSL refuses the block, and with it
            # the file.
            _refuse_non_ascii(stripped, number)
        elif stripped == "-----END %s-----" % label or (
                anchor and stripped.lstrip(_ASCII_SPACE) == "-----END %s-----" % label):
            block = _block(label, start, body)
            # p11-kit takes only CERTIFICATE and TRUSTED CERTIFICATE blocks (trust/parser.c
            # on_pem_block) and passes over an X509 CERTIFICATE one, which OpenSSL reads.
            if block is not None and not (anchor and label == _X509_OLD):
                blocks.append(block)
            start = None
            first_of_read = True
        elif stripped.lstrip(_ASCII_SPACE) == "-----END %s-----" % label:
            raise CertificateError(_("the -----END line of %s is indented, and OpenSSL reads "
                                     "it only at the start of a line (this block never "
                                     "ends); remove the spaces before it")
                                   % _shown(lines[start]), number)
        elif stripped.lstrip(_ASCII_SPACE).startswith("-----"):
            break   # a BEGIN or a foreign END inside the block: this block never ends
        else:
            body.append(stripped.strip(_ASCII_SPACE))
    if start is not None:
        raise CertificateError(_("%s has no matching -----END line; paste the whole block")
                               % _shown(lines[start]), start)
    if not blocks:
        if passed_over:
            raise CertificateError(passed_over[0].message, passed_over[0].line, empty=True)
        raise no_certificate_error()
    return PemText(tuple(blocks), tuple(passed_over), tuple(indented))


def no_certificate_error():
    return CertificateError(_("no -----BEGIN CERTIFICATE----- block is found; paste the CA "
                              "certificate in PEM form"), 0, empty=True)


def _first_non_ascii(line):
    return ord(next(char for char in line if not char.isascii()))


def _hidden_begin(line):
    return _("OpenSSL never reads this PEM block: the non-ASCII character U+%04X hides its "
             "-----BEGIN line (a byte order mark is taken only before the first block and "
             "right after an -----END line); remove that character") % _first_non_ascii(line)


def _indented_begin():
    return _("OpenSSL never reads this PEM block: its -----BEGIN line is indented, and OpenSSL "
             "reads one only at the start of a line; remove the spaces before -----BEGIN "
             "and -----END")


def _refuse_non_ascii(line, number):
    raise CertificateError(_("the certificate text holds the non-ASCII character U+%04X in "
                             "a PEM block; PEM is ASCII: paste it again from the original "
                             "file") % _first_non_ascii(line), number)


def _der_header(der):
    """(header length, whole length) of the DER element at the start of DER (bytes), or
    None if it is not one whole element there."""
    if len(der) < 2:
        return None
    first = der[1]
    if first < 0x80:
        size, header = first, 2
    else:
        count = first & 0x7f
        if not 1 <= count <= 4 or len(der) < 2 + count:
            return None
        size, header = int.from_bytes(der[2:2 + count], "big"), 2 + count
    total = header + size
    return (header, total) if total <= len(der) else None


def _der_length(der):
    """The length of the DER element at the start of DER (bytes), or None if it is not
    one whole element there."""
    found = _der_header(der)
    return found[1] if found else None


def _der_elements(der):
    """(tag, content) of each DER element of DER, one after the other; None if DER is not
    whole elements."""
    elements = []
    while der:
        found = _der_header(der)
        if found is None:
            return None
        header, length = found
        elements.append((der[0], der[header:length]))
        der = der[length:]
    return elements


def _object_identifier(content):
    """The dotted text of an OBJECT IDENTIFIER's CONTENT bytes, or None."""
    if not content or content[-1] & 0x80:
        return None
    arcs, value = [], 0
    for byte in content:
        value = (value << 7) | (byte & 0x7f)
        if not byte & 0x80:
            arcs.append(value)
            value = 0
    first = min(arcs[0] // 40, 2)
    return ".".join(str(arc) for arc in [first, arcs[0] - 40 * first] + arcs[1:])


def _purposes(content):
    """The dotted OIDs of a SEQUENCE OF OBJECT's CONTENT, or None if it is not one."""
    elements = _der_elements(content)
    if elements is None or any(tag != 0x06 for tag, _content in elements):
        return None
    found = tuple(_object_identifier(oid) for _tag, oid in elements)
    return None if None in found else found


def _trust_settings(aux):
    """(trusted purposes, rejected purposes) of the DER X509_CERT_AUX AUX, each None when
    absent, as OpenSSL's d2i_X509_AUX (crypto/x509/x_x509a.c: ``trust`` SEQUENCE OF
    OBJECT, ``reject`` [0] IMPLICIT SEQUENCE OF OBJECT, then alias, keyid, other);
    False when AUX is not one."""
    outer = _der_elements(aux)
    if not outer or len(outer) != 1 or outer[0][0] != 0x30:
        return False
    inner = _der_elements(outer[0][1])
    if inner is None:
        return False
    lists = {0x30: None, 0xa0: None}
    for tag, content in inner:
        if tag in lists:
            lists[tag] = _purposes(content)
            if lists[tag] is None:
                return False
    return lists[0x30], lists[0xa0]


def _trusted_certificate(der, line):
    """(the certificate's DER, trusted purposes, rejected purposes) of a ``TRUSTED
    CERTIFICATE`` block's DER: OpenSSL's ``d2i_X509_AUX`` (crypto/x509/x_x509.c) reads the
    certificate, then, when bytes are left, one X509_CERT_AUX SEQUENCE of trust
    settings."""
    length = _der_length(der) if der[:1] == b"\x30" else None
    rest = der[length:] if length is not None else b""
    settings = _trust_settings(rest) if rest else (None, None)
    if length is None or settings is False:
        raise CertificateError(_("the TRUSTED CERTIFICATE block is not a certificate followed "
                                 "by its trust settings; paste it again from the original "
                                 "file (openssl x509 -trustout writes it)"), line)
    return (der[:length],) + settings


def _block(label, line, body):
    """The ``CertificateBlock`` of a PEM block (LABEL, its first LINE, its BODY lines), or
    None for a block of another type, passed over as OpenSSL passes over it."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes
    except ImportError as error:
        # An installer image may lack it (docs/installation.md): say so on the
        # %certificate, as a kickstart error, instead of failing the whole module.
        from org_edns_addon.dependencies import explain
        raise CertificateError(explain(error, _("checking a %s") % terms.CERTIFICATE_SECTION)) \
            from None
    import base64
    import binascii
    try:
        der = base64.b64decode("".join(body), validate=True)
    except (binascii.Error, ValueError):
        raise CertificateError(_("the PEM block %s is not base64 (OpenSSL would load nothing "
                                 "of this file); paste it again from the original file")
                               % _shown("-----BEGIN %s-----" % label), line) from None
    if label not in _CERTIFICATE_LABELS:
        return None
    trusted = der if label == _TRUSTED else None
    certificate_der, trusted_for, rejected_for = _trusted_certificate(der, line) \
        if trusted is not None else (der, None, None)
    try:
        cert = x509.load_der_x509_certificate(certificate_der)
        # cryptography parses names and extensions lazily: a damaged one must
        # fail here, at the edge, not later in a rule, the probe or staging.
        subject = cert.subject.rfc4514_string()
        cert.issuer.rfc4514_string()
        for _extension in cert.extensions:
            pass
        return CertificateBlock(
            fingerprint=cert.fingerprint(hashes.SHA256()).hex(),
            subject=subject,
            not_before=utc_time(cert, "not_valid_before"),
            not_after=utc_time(cert, "not_valid_after"),
            line=line,
            certificate=cert,
            trusted=trusted,
            trusted_for=trusted_for,
            rejected_for=rejected_for,
        )
    except CertificateError:
        raise
    except Exception as error:  # noqa: BLE001 (see below)
        # Damaged DER fails in many ways inside cryptography (ValueError, InvalidVersion,
        # even KeyError for a mangled name); each is the user's certificate, not a bug.
        raise CertificateError(_("the certificate cannot be decoded (%s); paste it again from "
                                 "the original file") % (str(error) or type(error).__name__)[:200],
                               line) from None


def build_bundle(blocks, as_read=False):
    """A PEM bundle of BLOCKS in the given order, duplicates (by fingerprint) removed;
    AS_READ keeps each block's form (``CertificateBlock.as_read_pem``, for OpenSSL's
    readers), else the certificates alone (for Python's ``ssl``)."""
    seen = set()
    chunks = []
    for block in blocks:
        if block.fingerprint not in seen:
            seen.add(block.fingerprint)
            chunks.append(block.as_read_pem() if as_read else block.to_pem())
    return b"".join(chunks)


def canonical_pem(blocks):
    """BLOCKS as one PEM text (without the final newline), as they print themselves (a
    ``TRUSTED CERTIFICATE`` with its trust settings)."""
    return b"".join(block.as_read_pem() for block in blocks).decode("ascii").rstrip("\n")
