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

"""A ``%certificate`` section as one validated value, and the PEM checks behind it.

A ``KickstartCertificate`` is built once, at an edge (the kickstart reader, the
module's ``AddCertificate``, the text UI), from its file name, directory,
type and PEM text; everything after that (rules, staging, the pre-flight
check, the overlay, D-Bus) uses the value and its parsed blocks and never
reads the PEM text again.

A body may hold several PEM blocks (a bundle). Every block must be a
certificate; a private key pasted by mistake is refused loudly, because the
kickstart would then publish it to every installed host.

``cryptography`` loads when a certificate is first parsed: the rules about
names and places, and the value itself, cost nothing to import.

Where a certificate may land (``landing_problem``) is one rule, judged where a
certificate is validated (the kickstart reader with our section, ``validate``,
the module's ``AddCertificate`` and the text UI), so that ``apply`` and
``overlay``, which take only validated input, never meet a placement they must
refuse. Anaconda itself refuses no ``--dir``: its Security module joins it to
the root and writes there (``pyanaconda/modules/security/certificates/
installation.py`` ``_dump_certificate``), and the initramfs does the same at
``/`` and below ``/run/install/certificates/path/`` (``dracut/parse-kickstart``
``_dump_certificate``, ``process_certificates``); Anaconda's own tests place
one at ``--dir=/cert_dir``. So the rule does not list where a certificate may
go (that would refuse what Anaconda takes); it refuses, by category, the
places where a PEM file would break what the addon writes or what the
initramfs and the system need to start:

1. what this addon writes or moves a file to (``constants.ADDON_WRITTEN_PATHS``,
   derived from the paths it names: the DoT CA bundle, the copy the FreeIPA
   handover unit puts back; the state directory of apply's record): on one,
   below one as if it were a directory (it must stay a file), or where one
   needs a directory; nor below a file of the system's trust store of any line
   (``SYSTEM_TRUST_STORE_FILES``) as a directory;
2. the top of the file system (``--dir=/``): the initramfs's ``/init`` and
   ``/shutdown``, the top-level directories and their usr-merge symlinks;
   nor below ``/init`` or ``/shutdown`` as directories;
3. the trees of the system's programs, libraries, kernel and boot loader, and
   the kernel's own file systems (``/usr``, ``/bin``, ``/sbin``, ``/lib*``,
   ``/boot``, ``/efi``, ``/proc``, ``/sys``, ``/dev``), but for the trust-store
   trees below ``/usr`` (``/usr/share/pki/``, ``/usr/share/ca-certificates/``,
   ``/usr/local/share/ca-certificates/``), where p11-kit and ca-certificates
   read certificates;
4. directly in ``/etc``, among the system's own tables (``passwd``,
   ``shadow``, ``fstab``, ``hosts``, ...), nor below one of those as if it
   were a directory;
5. the directories whose every file is read as configuration at boot or at
   login (units and drop-ins: ``/etc/systemd``, ``/etc/pam.d``,
   ``/etc/NetworkManager/conf.d``, ``/etc/unbound/conf.d``, ..., and the
   initramfs's dracut hooks in ``/var/lib/dracut/hooks``), where a PEM is a
   configuration file that does not parse.
"""

import datetime
import enum
import posixpath
import re
from dataclasses import dataclass, field
from typing import Optional, Tuple

from org_edns_addon import constants as c
from org_edns_addon import terms
from org_edns_addon.constants import (CERT_TYPE_ANCHOR, CERT_TYPE_DIRS, MAX_FILE_NAME_BYTES,
                                      MAX_PATH_BYTES, MAX_PEM_BYTES)
from org_edns_addon.echo import named
from org_edns_addon.i18n import N_, _


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


def load_pem_certificates(text):
    """The certificate blocks of TEXT (``read_pem``)."""
    return read_pem(text).blocks


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
        raise _no_certificate()
    return PemText(tuple(blocks), tuple(passed_over), tuple(indented))


def _no_certificate():
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


def _now(now):
    return now if now is not None else datetime.datetime.now(datetime.timezone.utc)


def validity_problem(block, now=None):
    """A sentence if BLOCK is expired or not yet valid at NOW, else None."""
    now = _now(now)
    if now > block.not_after:
        return _("the certificate %s expired on %s; replace it with a current one") % (
            block.subject, block.not_after.strftime("%Y-%m-%d %H:%M:%S UTC"))
    if now < block.not_before:
        return _("the certificate %s is not valid before %s; check the clock or the "
                 "certificate") % (block.subject,
                                   block.not_before.strftime("%Y-%m-%d %H:%M:%S UTC"))
    return None


def _extension(cert, kind):
    from cryptography import x509
    try:
        return cert.extensions.get_extension_for_class(kind).value
    except x509.ExtensionNotFound:
        return None


def ca_problem(block):
    """A sentence if BLOCK cannot act as a CA, else None.

    The rule is OpenSSL's own (``check_ca()`` in ``crypto/x509/v3_purp.c``):
    keyUsage, when present, must allow certificate signing; basicConstraints,
    when present, decides; without it a self-signed X.509 v1 certificate is a
    CA (old roots, and the anchors of rhinstaller/kickstart-tests), and so is
    one whose keyUsage allows certificate signing.
    """
    from cryptography import x509
    cert = block.certificate
    constraints = _extension(cert, x509.BasicConstraints)
    usage = _extension(cert, x509.KeyUsage)
    if constraints is not None:
        is_ca = constraints.ca
    else:
        self_signed_v1 = cert.version == x509.Version.v1 and cert.issuer == cert.subject
        is_ca = self_signed_v1 or usage is not None
    if not is_ca:
        return _("Not a valid CA certificate: %s (basicConstraints CA:TRUE is missing); give "
                 "the CA that issued the DNS servers' certificates") % block.subject
    if usage is not None and not usage.key_cert_sign:
        return _("Not a valid CA certificate: %s (keyUsage lacks keyCertSign)") % block.subject
    return None


# The purposes a TRUSTED CERTIFICATE's trust settings name, by OID, as OpenSSL names them
# (crypto/objects/objects.txt short names; `openssl x509 -addtrust` takes these).
SERVER_AUTH = "1.3.6.1.5.5.7.3.1"
ANY_PURPOSE = "2.5.29.37.0"
_PURPOSE_NAMES = {SERVER_AUTH: "serverAuth", "1.3.6.1.5.5.7.3.2": "clientAuth",
                  "1.3.6.1.5.5.7.3.3": "codeSigning", "1.3.6.1.5.5.7.3.4": "emailProtection",
                  "1.3.6.1.5.5.7.3.8": "timeStamping", "1.3.6.1.5.5.7.3.9": "OCSPSigning",
                  ANY_PURPOSE: "anyExtendedKeyUsage"}


class ServerTrust(enum.Enum):
    """What a certificate's own trust settings say of server authentication."""
    TRUSTED = "trusted"
    REJECTED = "rejected"
    NEUTRAL = "neutral"


def server_auth_trust(block):
    """What BLOCK's trust settings say of authenticating a TLS server, as OpenSSL's
    ``X509_check_trust(x, X509_TRUST_SSL_SERVER, 0)`` decides it (crypto/x509/x509_trust.c
    ``trust_1oidany`` -> ``obj_trust``): a rejected serverAuth or anyExtendedKeyUsage
    rejects, else a trusted one trusts, else a list of trusted purposes without either
    rejects; without lists, NEUTRAL (OpenSSL then trusts a self-signed certificate, which
    ``chains`` says). libssl asks for that trust when a client verifies a server
    (ssl/ssl_cert.c ``ssl_verify_cert_chain``: ``X509_STORE_CTX_set_default`` of
    "ssl_server"), and Unbound's tls-cert-bundle keeps a TRUSTED CERTIFICATE's settings
    (``SSL_CTX_load_verify_locations`` -> crypto/pem/pem_info.c ``PEM_X509_INFO_read_bio``
    reads it with ``d2i_X509_AUX``)."""
    wanted = (SERVER_AUTH, ANY_PURPOSE)
    if block.rejected_for is not None and any(oid in wanted for oid in block.rejected_for):
        return ServerTrust.REJECTED
    if block.trusted_for is not None:
        if any(oid in wanted for oid in block.trusted_for):
            return ServerTrust.TRUSTED
        return ServerTrust.REJECTED
    return ServerTrust.NEUTRAL


def purpose_names(oids):
    """OIDS (dotted) as OpenSSL's short names where it has one, for a sentence."""
    return ", ".join(_PURPOSE_NAMES.get(oid, oid) for oid in oids)


_PLAIN_FIX = N_("paste the certificate without trust settings instead (openssl x509 -in FILE "
                "prints it as a plain CERTIFICATE), or give it -addtrust serverAuth and no "
                "-addreject serverAuth")


def trust_settings_problem(block):
    """A sentence if BLOCK's trust settings exclude server authentication
    (``server_auth_trust``): every chain that reaches it is then refused (crypto/x509/
    x509_vfy.c ``check_trust``, X509_V_ERR_CERT_REJECTED), whatever else the bundle holds."""
    if server_auth_trust(block) is not ServerTrust.REJECTED:
        return None
    values = {"subject": block.subject, "fix": _(_PLAIN_FIX)}
    rejected = [oid for oid in block.rejected_for or () if oid in (SERVER_AUTH, ANY_PURPOSE)]
    if rejected:
        values["purposes"] = purpose_names(rejected)
        return _("the trust settings of the TRUSTED CERTIFICATE %(subject)s reject server "
                 "authentication (%(purposes)s): OpenSSL, and so Unbound, refuses every DNS "
                 "server whose chain reaches it; %(fix)s") % values
    values["purposes"] = purpose_names(block.trusted_for)
    return _("the trust settings of the TRUSTED CERTIFICATE %(subject)s trust it only for "
             "%(purposes)s, not for server authentication (serverAuth): OpenSSL, and so "
             "Unbound, refuses every DNS server whose chain reaches it; %(fix)s") % values


def authentication_problem(block, now=None):
    """A sentence unless BLOCK can authenticate DNS servers: a CA (``ca_problem``) valid at
    NOW whose trust settings do not exclude server authentication
    (``trust_settings_problem``). The one rule for every certificate named by ``--ca`` or
    standing in for it, and for every certificate added in the installer; whether a
    chain through it reaches a root is ``chains``' rule."""
    return ca_problem(block) or validity_problem(block, now) or trust_settings_problem(block)


def can_authenticate(blocks, now=None):
    """Whether one of BLOCKS can authenticate DNS servers at NOW."""
    return any(authentication_problem(block, now) is None for block in blocks)


def passed_over_warning(problem):
    """PROBLEM (a sentence about one certificate of what authenticates the DNS servers) as
    the warning it is when another certificate there can authenticate them.

    Unbound loads its ``tls-cert-bundle`` with ``SSL_CTX_load_verify_locations``
    (util/net_help.c ``connect_sslctx_create``), which takes every certificate of the
    file (crypto/x509/by_file.c ``X509_load_cert_crl_file``) and judges none: an
    expired one, or one that is no CA, is simply never an issuer when a chain is built,
    and a block OpenSSL cannot see is not loaded. So such a certificate beside a good
    one costs nothing; alone, nothing authenticates the servers, and that is an error."""
    return _("%s; only a warning, as another certificate of what authenticates the DNS "
             "servers can authenticate them and OpenSSL (Unbound's tls-cert-bundle) verifies "
             "through that one: remove this one from the bundle") % problem


def check_authenticates(blocks, now=None, passed_over=()):
    """Raise ``CertificateError`` (at the block's line) with the first problem of BLOCKS
    (``authentication_problem``) when none of them can authenticate DNS servers; else
    the ``CertificateError``s of those that cannot and of the blocks OpenSSL passes over
    (PASSED_OVER, ``PassedOver``s), each a warning (``passed_over_warning``)."""
    problems = [CertificateError(problem, block.line) for block in blocks
                for problem in (authentication_problem(block, now),) if problem]
    problems += [CertificateError(note.message, note.line) for note in passed_over]
    problems.sort(key=lambda error: error.line)
    if not can_authenticate(blocks, now):
        raise problems[0] if problems else _no_certificate()
    return [CertificateError(passed_over_warning(error.message), error.line)
            for error in problems]


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


def _has_control_character(text):
    return any(ord(char) < 0x20 or ord(char) == 0x7f for char in text)


def file_name_problem(name, option=terms.FILE_NAME):
    """A sentence unless NAME can be a ``%certificate --filename`` that ``--ca`` can name;
    OPTION is how the user gave it, a ``terms.Term`` taking the name (a ``--ca`` name,
    ``terms.CA_NAME``, must be such a file name too)."""
    shown = option(name)
    if not name or name in (".", "..") or "/" in name:
        return _("%s must be a plain file name, without '/'") % shown
    if "," in name:
        return _("%s holds ',', which separates the names in %s; choose a file name "
                 "without it") % (shown, terms.CA_LIST)
    if _has_control_character(name):
        return _("%s holds a control character; use a plain file name like "
                 "corp-ca.pem") % option(repr(name))
    if len(name.encode("utf-8", "surrogateescape")) > MAX_FILE_NAME_BYTES:
        return _("%s is longer than a file name may be (%d bytes); choose a shorter "
                 "name") % (option(name[:70] + "..."), MAX_FILE_NAME_BYTES)
    return None


def directory_problem(directory):
    """A sentence unless DIRECTORY can be a ``--dir`` below a root."""
    shown = directory[:80] + ("..." if len(directory) > 80 else "")
    if not posixpath.isabs(directory):
        return _("%s must be an absolute path, like /etc/pki/dns/") % terms.DIRECTORY_VALUE(shown)
    parts = directory.split("/")
    if ".." in parts:
        return _("%s must not contain '..'; give the directory itself, like "
                 "/etc/pki/dns/") % terms.DIRECTORY_VALUE(shown)
    if _has_control_character(directory):
        return _("%s holds a control character; give a plain directory like "
                 "/etc/pki/dns/") % terms.DIRECTORY_VALUE(repr(shown))
    encoded = directory.encode("utf-8", "surrogateescape")
    if any(len(part.encode("utf-8", "surrogateescape")) > MAX_FILE_NAME_BYTES
           for part in parts):
        return _("%s has a directory name longer than %d bytes; choose shorter names") \
            % (terms.DIRECTORY_VALUE(shown), MAX_FILE_NAME_BYTES)
    if len(encoded) > MAX_PATH_BYTES:
        return _("%s is longer than a path may be (%d bytes); choose a shorter "
                 "directory") % (terms.DIRECTORY_VALUE(shown), MAX_PATH_BYTES)
    return None


# Rule 2: what the initramfs has at its top as files (dracut's modules.d/99base).
_TOP_LEVEL_FILES = ("/init", "/shutdown")
# Rule 3: the system's programs, libraries, kernel, boot loader; the kernel's file systems.
_SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot",
                 "/efi", "/proc", "/sys", "/dev")
# ... but where p11-kit (trust-paths: /usr/share/pki/ca-trust-source) and
# ca-certificates (/usr/share/ca-certificates, /usr/local/share/ca-certificates) read.
_TRUST_TREES = ("/usr/share/pki", "/usr/share/ca-certificates",
                "/usr/local/share/ca-certificates")
# Rule 4: files every system has directly in /etc, which must stay files.
_ETC_FILES = ("passwd", "shadow", "group", "gshadow", "fstab", "crypttab", "hosts",
              "hostname", "machine-id", "os-release", "nsswitch.conf", "resolv.conf",
              "ld.so.cache", "ld.so.conf", "localtime", "sudoers", "login.defs",
              "locale.conf", "vconsole.conf", "environment")
# Rule 5: directories whose every file is configuration read at boot or at login.
_CONFIGURATION_DIRS = ("/etc/systemd", "/etc/pam.d", "/etc/security", "/etc/selinux",
                       "/etc/sudoers.d", "/etc/modprobe.d", "/etc/modules-load.d",
                       "/etc/sysctl.d", "/etc/tmpfiles.d", "/etc/udev", "/etc/ld.so.conf.d",
                       "/etc/dracut.conf.d", "/etc/kernel", "/etc/default",
                       "/etc/NetworkManager/conf.d", "/etc/NetworkManager/system-connections",
                       "/etc/NetworkManager/dispatcher.d", "/etc/unbound/conf.d",
                       "/etc/unbound/local.d",
                       # dracut-ng 110 and later source the initramfs's hooks from here
                       # alone (the overlay's pre-pivot hook is there too, initrd.py).
                       "/var/lib/dracut/hooks")


def _below(path, tree):
    return path.startswith(tree + "/")


def directory_needed_problem(path, written):
    """The sentence refusing a certificate at PATH when WRITTEN, a file something writes,
    must be below it: PATH must then be a directory."""
    return _("%s place this certificate at %s, but %s must be written below that path, as a "
             "directory; choose another %s") % (terms.DIRECTORY_AND_FILE_NAME, path, written,
                                                terms.DIRECTORY_OR_FILE_NAME)


def landing_problem(path):
    """A sentence unless a certificate may be written at PATH (below a root): the rule
    of the module's docstring, the same for every edge."""
    values = {"path": path, "dir": terms.DIRECTORY, "another": terms.DIRECTORY_NOUN,
              "both": terms.DIRECTORY_AND_FILE_NAME, "either": terms.DIRECTORY_OR_FILE_NAME,
              "own": terms.DIRECTORY_VALUE(c.DOT_CA_DIR)}
    # Rule 1: every file the addon writes or moves one to (constants.ADDON_WRITTEN_PATHS,
    # derived from the paths staging names: the copy the FreeIPA handover unit puts back
    # too, where a certificate would be replaced, or would be put into conf.d as ours).
    for written in c.ADDON_WRITTEN_PATHS:
        if path == written and written != c.DOT_CA_BUNDLE_PATH:
            return _("%(both)s place this certificate at %(path)s, a file this addon writes; "
                     "choose another %(either)s") % values
        if _below(path, written):
            return _("%(dir)s places this certificate at %(path)s, below %(file)s, a file "
                     "this addon writes, which must stay a file; choose another %(another)s") \
                % dict(values, file=written)
        if _below(written, path):
            return directory_needed_problem(path, written)
    if _below(path, c.APPLY_STATE_DIR):
        return _("%(dir)s places this certificate at %(path)s, in %(state)s, where edns-addon "
                 "keeps the record of what it wrote; choose another %(another)s") \
            % dict(values, state=c.APPLY_STATE_DIR)
    if path.count("/") == 1:
        return _("%(top)s places this certificate at %(path)s, at the top of the file system, "
                 "where the initramfs has /init and the system its top-level directories; "
                 "give it a directory of its own, like %(own)s") \
            % dict(values, top=terms.DIRECTORY_VALUE("/"))
    for store in c.SYSTEM_TRUST_STORE_FILES:
        if _below(path, store):
            return _("%(dir)s places this certificate at %(path)s, below %(file)s, the "
                     "system's trust store, which must stay a file; choose another "
                     "%(another)s") % dict(values, file=store)
    for top in _TOP_LEVEL_FILES:
        if _below(path, top):
            return _("%(dir)s places this certificate at %(path)s, below %(file)s, a file the "
                     "initramfs needs to start, which must stay a file; choose another "
                     "%(another)s") % dict(values, file=top)
    if not any(_below(path, tree) for tree in _TRUST_TREES):
        for tree in _SYSTEM_TREES:
            if _below(path, tree):
                return _("%(dir)s places this certificate at %(path)s, in %(tree)s, which "
                         "holds the system's programs, libraries, kernel or boot files (or is "
                         "a kernel file system); place it below /etc/pki/ or /usr/share/pki/ "
                         "instead") % dict(values, tree=tree)
    if path.count("/") == 2 and path.startswith("/etc/"):
        return _("%(etc)s places this certificate at %(path)s, among the system's own "
                 "configuration files (passwd, fstab, hosts, ...); give it a directory of "
                 "its own, like %(own)s") % dict(values, etc=terms.DIRECTORY_VALUE("/etc"))
    for name in _ETC_FILES:
        if _below(path, "/etc/" + name):
            return _("%(dir)s places this certificate at %(path)s, below /etc/%(name)s, a "
                     "file the system needs to start, which must stay a file; choose another "
                     "%(another)s") % dict(values, name=name)
    for directory in _CONFIGURATION_DIRS:
        if _below(path, directory) or path == directory:
            return _("%(dir)s places this certificate at %(path)s, in %(directory)s, whose "
                     "every file is read as configuration at boot or at login; choose another "
                     "%(another)s, like %(dns)s") % dict(values, directory=directory,
                                                         dns=c.DOT_CA_DIR)
    return None


def type_problem(cert_type):
    """A sentence unless CERT_TYPE is None or a ``--type`` Anaconda knows."""
    if cert_type is None or cert_type in CERT_TYPE_DIRS:
        return None
    return _("%s is unknown; the only type is %s") % (terms.CERTIFICATE_TYPE(cert_type),
                                                      CERT_TYPE_ANCHOR)


def placement_problems(filename, directory, cert_type):
    """Every sentence about where a ``%certificate`` would be written."""
    problems = [file_name_problem(filename), type_problem(cert_type)]
    if directory is not None:
        problems.append(directory_problem(directory))
    elif cert_type is None:
        problems.append(_("One of %s or %s must be specified for %s") % (
            terms.DIRECTORY_NOUN, terms.TYPE_NOUN, terms.CERTIFICATE_SECTION))
    return [problem for problem in problems if problem]


def _directory_of(directory, cert_type):
    """The directory a certificate of DIRECTORY (``--dir``) and CERT_TYPE goes to, as one
    absolute path without a trailing '/'."""
    directory = CERT_TYPE_DIRS.get(cert_type) or directory
    return "/" + "/".join(part for part in directory.split("/") if part not in ("", "."))


def is_anchor_place(directory, cert_type):
    """Whether a certificate of DIRECTORY (``--dir``) and CERT_TYPE goes to the anchors
    directory (``KickstartCertificate.is_anchor``), whose files p11-kit reads."""
    return _directory_of(directory, cert_type) == CERT_TYPE_DIRS[CERT_TYPE_ANCHOR]


def indented_anchor_warning():
    """What an anchor's indented PEM block is to the peers that read it."""
    return _("p11-kit reads this indented PEM block into the system trust (update-ca-trust), "
             "but OpenSSL reads a -----BEGIN line only at the start of a line, and "
             "Anaconda's initramfs appends an anchor's text as it is to the CA bundle "
             "OpenSSL reads there (dracut/parse-kickstart on the main and rhel-10 lines): in "
             "the installer's initramfs it authenticates nothing; remove the spaces before "
             "-----BEGIN and -----END")


@dataclass(frozen=True)
class KickstartCertificate:
    """Any one ``%certificate``, a CA or not: where it goes, its PEM text and its parsed
    blocks.

    ``pem`` is the body as pykickstart keeps it (no final newline) and as
    Anaconda's Security module writes it; ``added`` is True for a certificate
    added in the installer (``AddCertificate``, the text UI) rather than read
    from the kickstart. ``origin`` (a ``SectionPlace``) and ``body_places``
    (the kickstart FILE, LINE of each body line) only say where it was read;
    ``passed_over`` are the blocks of the text OpenSSL never reads (``PassedOver``).
    """
    filename: str
    pem: str = field(repr=False)
    blocks: Tuple[CertificateBlock, ...] = field(repr=False)
    directory: Optional[str] = None
    cert_type: Optional[str] = None
    added: bool = False
    origin: Optional[object] = field(default=None, compare=False, repr=False)
    body_places: Tuple[Tuple[str, int], ...] = field(default=(), compare=False, repr=False)
    passed_over: Tuple[PassedOver, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def from_section(cls, filename, pem, directory=None, cert_type=None, added=False):
        """Check and parse a certificate given outside a kickstart (D-Bus, text UI), kept
        as its blocks print themselves (nothing but PEM reaches a file: a block OpenSSL
        never reads is left out, and ``passed_over`` keeps its line of the text given);
        raises ``CertificateError`` with the first problem."""
        problems = placement_problems(filename, directory, cert_type)
        if problems:
            raise CertificateError(problems[0])
        read = read_pem(pem)
        cert = cls(filename, canonical_pem(read.blocks), read.blocks, directory, cert_type,
                   added, passed_over=read.passed_over)
        problem = landing_problem(cert.path)
        if problem:
            raise CertificateError(problem)
        return cert

    @property
    def is_anchor(self):
        """A system trust anchor: a certificate placed in the anchors directory, by
        ``--type=anchor`` or (where pykickstart has no ``--type``, as on EL9) by a ``--dir``
        that is that directory, the way anchors were placed before ``--type``. Every anchor
        gets ``update-ca-trust extract`` and joins the DoT trust without ``--ca``."""
        return is_anchor_place(self.directory, self.cert_type)

    @property
    def path(self):
        """Where the file goes below a root: the ``--type`` place, else ``--dir``, as
        Anaconda's Security module places it (``certificates/installation.py``)."""
        return _directory_of(self.directory, self.cert_type).rstrip("/") + "/" + self.filename

    def file_content(self):
        """The bytes of the file: the body and one newline, as Anaconda writes it."""
        return (self.pem + "\n").encode("utf-8")

    def where(self, line):
        """(file, line) in the kickstart of line LINE (0-based) of the body."""
        if line is not None and 0 <= line < len(self.body_places):
            return self.body_places[line]
        if self.origin is None:
            return None, None
        return self.origin.filename, self.origin.lineno

    def describe(self):
        """One line: the subject(s) and until when the certificate is valid."""
        return "; ".join(_("%s, valid until %s") % (block.subject,
                                                 block.not_after.strftime("%Y-%m-%d"))
                         for block in self.blocks)

    def kickstart_data(self):
        """This certificate as pykickstart's ``Certificate`` (for generated kickstarts)."""
        from pykickstart.parser import Certificate
        return Certificate(cert=self.pem, filename=self.filename, dir=self.directory,
                           type=self.cert_type)

    def kickstart_section(self):
        """This certificate as a ``%certificate`` section (options quoted only where a
        shell-like split needs it, as pykickstart reads them)."""
        import shlex
        options = ["--filename=%s" % self.filename]
        if self.directory:
            options.append("--dir=%s" % self.directory)
        if self.cert_type:
            options.append("--type=%s" % self.cert_type)
        return "%%certificate %s\n%s\n%%end\n" % (" ".join(map(shlex.quote, options)),
                                                  self.pem)
