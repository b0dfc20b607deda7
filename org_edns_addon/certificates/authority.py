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

"""What one certificate can do for a TLS server, as OpenSSL judges it: a CA
(``ca_problem``), valid now (``validity_problem``), whose trust settings do not exclude
server authentication (``server_auth_trust``); ``check_authenticates``: one certificate
that can is enough, the others are warnings."""

import datetime
import enum

from org_edns_addon.certificates.pem import CertificateError, no_certificate_error
from org_edns_addon.i18n import N_, _


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
        raise problems[0] if problems else no_certificate_error()
    return [CertificateError(passed_over_warning(error.message), error.line)
            for error in problems]
