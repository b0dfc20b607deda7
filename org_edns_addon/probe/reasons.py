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

"""The sentences of a check: why a server was refused (its chain in a PKI admin's words,
its certificate's validity and names), what a failed handshake or a socket error means,
and what the answer said."""

import resource
import ssl

from org_edns_addon.fileio import error_text
from org_edns_addon.i18n import P_, _
from org_edns_addon.constants import CHECK_QUERY_TYPE, CHECK_SHOWN_NAMES
from org_edns_addon.probe.result import Failed, Outcome, ServerCheck, printable

# OpenSSL's X509_V_ERR_* verification results that mean "issuer not trusted".
UNKNOWN_ISSUER_CODES = frozenset((2, 18, 19, 20, 21))
NOT_YET_VALID_CODE = 9
EXPIRED_CODE = 10
HOSTNAME_MISMATCH_CODE = 62
# X509_V_ERR_CERT_REJECTED: trust settings of the bundle exclude server authentication.
REJECTED_CODE = 28
# OpenSSL's default limit on the certificate chain a client accepts (SSL_MAX_CERT_LIST_DEFAULT).
_MAX_CERTIFICATE_CHAIN_KIB = 100
# OpenSSL's reasons for a record longer than TLS allows.
OVERSIZED_RECORD_REASONS = frozenset((
    "PACKET_LENGTH_TOO_LONG", "ENCRYPTED_LENGTH_TOO_LONG", "DATA_LENGTH_TOO_LONG",
    "RECORD_LENGTH_MISMATCH", "TLSV1_ALERT_RECORD_OVERFLOW", "RECORD_OVERFLOW"))


def sent_chain(tls):
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


def chain_reason(chain, trust, chain_known):
    """Why CHAIN was refused, in chain words from the kickstart's certificates
    (``chains.refusal_reason``), escaped, or None."""
    from org_edns_addon.certificates.chains import refusal_reason

    try:
        return refusal_reason(chain, trust.authorities, trust.explicit, shown=printable,
                              chain_known=chain_known)
    except ValueError:   # cryptography parses names and extensions lazily
        return None
def os_error_text(error):
    return printable(error_text(error))


def no_socket_reason(error):
    # resource is imported with this module: no descriptor is left to load it now.
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if limit == resource.RLIM_INFINITY:
        return (_("this process cannot open a socket: %s (it may open any number of "
                  "files); check fewer servers at once") % os_error_text(error))
    return (_("this process cannot open a socket: %s (its limit is %d open files); check "
            "fewer servers at once, or raise the limit (ulimit -n)")
            % (os_error_text(error), limit))


def handshake_error_reason(error):
    """Why the TLS handshake failed, for an OpenSSL ERROR other than verification."""
    reason = error.reason or ""
    if reason == "EXCESSIVE_MESSAGE_SIZE":
        return (_("the server's certificate chain is larger than the %d KiB a TLS client "
                "accepts (EXCESSIVE_MESSAGE_SIZE); a DNS server's chain takes a few KiB: "
                "check the certificate file the server uses") % _MAX_CERTIFICATE_CHAIN_KIB)
    if reason in OVERSIZED_RECORD_REASONS:
        return (_("the server sent a TLS record longer than TLS allows (%s); it does not "
                "speak TLS correctly") % printable(reason))
    return _("%s; is this a DNS over TLS server?") % printable(reason or error_text(error))


def judge_answer(server, query, wire, name, rtt_ms, handshake_ms):
    """The ServerCheck of an answer WIRE to QUERY, which asked NAME."""
    import dns.message
    import dns.rcode

    try:
        response = dns.message.from_wire(wire)
    except Exception as error:  # noqa: BLE001 (hostile bytes break more than DNSException)
        raise Failed(Outcome.BAD_ANSWER, _("the answer is not a valid DNS message (%s)")
                      % printable(error)) from None
    if not query.is_response(response):
        raise Failed(Outcome.BAD_ANSWER, _("the answer does not match the question"))
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


def validity_failure(code, certificate):
    import datetime

    from org_edns_addon.certificates.pem import utc_time

    now = datetime.datetime.now(datetime.timezone.utc)
    if code == EXPIRED_CODE:
        if certificate and utc_time(certificate, "not_valid_after") < now:
            when = utc_time(certificate, "not_valid_after").strftime("%Y-%m-%d %H:%M UTC")
            return Failed(Outcome.EXPIRED, _("the server's certificate expired on %s; renew "
                           "it on the server") % when)
        return Failed(Outcome.EXPIRED, _("a CA certificate in the server's chain has expired; "
                       "renew it"))
    when = (_(" before %s")
            % utc_time(certificate, "not_valid_before").strftime("%Y-%m-%d %H:%M UTC")
            if certificate and utc_time(certificate, "not_valid_before") > now else "")
    return Failed(Outcome.NOT_YET_VALID, _("the server's certificate chain is not valid%s; "
                   "check this machine's clock") % when)


def issuer_clause(certificate):
    """" (issued by ISSUER)", escaped, or "" when it cannot be read."""
    if certificate is None:
        return ""
    try:
        return _(" (issued by %s)") % printable(certificate.issuer.rfc4514_string())
    except ValueError as error:   # cryptography parses names lazily
        return _(" (its issuer cannot be read: %s)") % printable(error)


def names_sentence(certificate, name):
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
