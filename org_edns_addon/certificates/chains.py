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

"""The chains OpenSSL builds through a CA bundle, and where each one ends.

Unbound (1.17.1 in Debian 12, 1.26 in Debian 13 and forky; util/net_help.c
``connect_sslctx_create``) loads ``tls-cert-bundle`` with
``SSL_CTX_load_verify_locations`` and verifies with ``SSL_VERIFY_PEER``; no
version sets ``X509_V_FLAG_PARTIAL_CHAIN`` (nor a purpose or trust of its own).
dnsconfd hands NetworkManager's ``certification-authority`` to it unchanged
(src/dns_managers/unbound_manager.c, ``tls-cert-bundle``). So OpenSSL's
``X509_verify_cert`` (crypto/x509/x509_vfy.c, OpenSSL 3.0 to 3.5 alike) decides,
for the chain a server sends:

- ``build_chain`` looks for each certificate's issuer in the bundle first
  (``X509_V_FLAG_TRUSTED_FIRST``, the default), and from the first certificate
  of the bundle on, only in the bundle (``search &= ~S_DOUNTRUSTED``): what the
  server sends above that point is never used. Among certificates of the same
  name it takes one valid now, else the one that expires last
  (``X509_STORE_CTX_get1_issuer``), and an issuer is matched by name and key
  identifier, not by signature (``check_issued`` -> ``ossl_x509_likely_issued``);
- ``check_trust`` judges each certificate of the bundle as it joins the chain,
  nearest the server first (``X509_check_trust`` for an SSL server,
  ``authority.server_auth_trust``): trust settings that trust end the chain
  trusted, settings that reject end it refused, and without settings a
  self-signed certificate is trusted (``trust_compat``) and any other goes on to
  its issuer;
- a chain that stops at a certificate of the bundle whose issuer is not there is
  refused (X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT): an intermediate CA alone
  authenticates nothing; only ``X509_V_FLAG_PARTIAL_CHAIN``, which Unbound never
  sets, would accept it;
- then every certificate of the chain, its trusted end included, must be valid
  now (``internal_verify``, ``check_cert_time``) and each issuer a CA
  (``check_extensions``).

``links`` follows that walk from every certificate of a bundle: a ``Link`` says
whether chains that enter the bundle there end trusted, and if not, where and
why they stop. ``refusal_reason`` says the same of a server's own chain for the
pre-flight check. Words are a PKI admin's: root CA (self-signed), intermediate
CA, chain.
"""

import datetime
import enum
import re
from dataclasses import dataclass
from typing import Optional, Tuple

from org_edns_addon import terms
from org_edns_addon.certificates.authority import (ServerTrust, authentication_problem,
                                                   ca_problem, server_auth_trust,
                                                   trust_settings_problem, validity_problem)
from org_edns_addon.i18n import _


class Status(enum.Enum):
    """Where the chains that enter a bundle at a certificate end."""
    TRUSTED = "trusted"          # at a root CA, or at a CA its trust settings trust
    OWN_PROBLEM = "own"          # itself cannot (certificates.authentication_problem)
    BAD_ISSUER = "bad issuer"    # at an issuer of the bundle that cannot
    NO_ISSUER = "no issuer"      # at a CA of the bundle whose issuer is not there
    LOOP = "loop"                # CAs that issued each other, never a root CA


# OpenSSL's whitespace (ossl_isspace): ASCII only.
_SPACES = re.compile(r"[ \t\n\v\f\r]+")


def _canonical(name):
    """NAME (cryptography's x509.Name) as OpenSSL compares names (crypto/x509/x_name.c
    ``x509_name_canon`` -> ``asn1_string_canon``: a string's outer spaces cut, each inner
    run of spaces made one, ASCII letters lowered)."""
    def value(text):
        if not isinstance(text, str):
            return text
        text = _SPACES.sub(" ", text).strip(" ")
        return "".join(char.lower() if char.isascii() else char for char in text)
    return tuple(tuple((attribute.oid.dotted_string, value(attribute.value))
                       for attribute in rdn) for rdn in name.rdns)


def _key_identifier(cert, kind):
    from cryptography import x509
    try:
        value = cert.extensions.get_extension_for_class(kind).value
    except x509.ExtensionNotFound:
        return None
    return getattr(value, "key_identifier", None) if kind is x509.AuthorityKeyIdentifier \
        else value.digest


def issued_by(cert, issuer):
    """Whether OpenSSL takes ISSUER as the issuer of CERT (both cryptography certificates):
    the names match and, when both are given, the key identifiers do
    (``ossl_x509_likely_issued`` -> ``X509_check_akid``)."""
    from cryptography import x509
    if _canonical(cert.issuer) != _canonical(issuer.subject):
        return False
    authority = _key_identifier(cert, x509.AuthorityKeyIdentifier)
    subject = _key_identifier(issuer, x509.SubjectKeyIdentifier)
    return authority is None or subject is None or authority == subject


def is_root(block):
    """Whether BLOCK is a root CA: self-signed as OpenSSL means it (``EXFLAG_SS``: issuer
    and subject match, and so do its key identifiers)."""
    return issued_by(block.certificate, block.certificate)


def _valid_at(block, now):
    return block.not_before <= now <= block.not_after


def bundle_issuer(block, blocks, now):
    """The certificate of BLOCKS OpenSSL takes as BLOCK's issuer: the first that issued it
    and is valid at NOW, else the one of them that expires last; None if none did.
    BLOCKS is a list, or a ``{canonical subject: [blocks]}`` index of one (``_index``)."""
    if not isinstance(blocks, dict):
        blocks = _index(blocks)
    candidates = [other for other in blocks.get(_canonical(block.certificate.issuer), ())
                  if other.fingerprint != block.fingerprint and
                  issued_by(block.certificate, other.certificate)]
    for other in candidates:
        if _valid_at(other, now):
            return other
    return max(candidates, key=lambda other: other.not_after, default=None)


def _index(blocks):
    """{canonical subject: [blocks of that subject, in order]}: a bundle as OpenSSL's store
    looks issuers up, by name (``X509_STORE_CTX_get1_issuer``)."""
    index = {}
    for block in blocks:
        index.setdefault(_canonical(block.certificate.subject), []).append(block)
    return index


@dataclass(frozen=True)
class Link:
    """Where the chains that enter a bundle at ``block`` end: ``path`` is the chain
    OpenSSL builds from it in the bundle, its last certificate where it ends (trusted
    when ``status`` is TRUSTED); ``missing`` the issuer's name when it ends for lack of
    an issuer (NO_ISSUER)."""
    block: object
    status: Status
    path: Tuple[object, ...]
    missing: Optional[str] = None

    @property
    def authenticates(self):
        return self.status is Status.TRUSTED

    @property
    def end(self):
        return self.path[-1]


def _walk(block, blocks, now):
    path = [block]
    while True:
        current = path[-1]
        if authentication_problem(current, now):
            return Link(block, Status.OWN_PROBLEM if current is block else Status.BAD_ISSUER,
                        tuple(path))
        if server_auth_trust(current) is ServerTrust.TRUSTED or is_root(current):
            return Link(block, Status.TRUSTED, tuple(path))
        issuer = bundle_issuer(current, blocks, now)
        if issuer is None:
            return Link(block, Status.NO_ISSUER, tuple(path),
                        current.certificate.issuer.rfc4514_string())
        if any(issuer.fingerprint == seen.fingerprint for seen in path):
            return Link(block, Status.LOOP, tuple(path))
        path.append(issuer)


def links(blocks, now=None):
    """{fingerprint: Link} of every certificate of BLOCKS (a bundle, in its order; of the
    same certificate twice OpenSSL keeps the first, ``X509_STORE_add_cert``)."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    kept = {}
    for block in blocks:
        kept.setdefault(block.fingerprint, block)
    index = _index(kept.values())
    return {fingerprint: _walk(block, index, now) for fingerprint, block in kept.items()}


def can_authenticate(blocks, now=None):
    """Whether a chain through one of BLOCKS (a bundle) can end trusted at NOW."""
    return any(link.authenticates for link in links(blocks, now).values())


def _kind(block):
    return _("root CA") if is_root(block) else _("intermediate CA")


def _why_not(block, now):
    """Why BLOCK (with a problem of its own) cannot end a chain, in a few words."""
    if ca_problem(block):
        return _("it is not a CA")
    if trust_settings_problem(block):
        return _("its trust settings exclude server authentication")
    if now > block.not_after:
        return _("it expired on %s") % block.not_after.strftime("%Y-%m-%d")
    return _("it is not valid before %s") % block.not_before.strftime("%Y-%m-%d")


def link_problem(link, usable, now=None):
    """The sentence of LINK when chains through its certificate stop for want of something
    above it in the bundle (NO_ISSUER, BAD_ISSUER, LOOP), else None (a problem of the
    certificate itself is ``certificates.authentication_problem``'s). USABLE: another
    certificate of the bundle can authenticate the servers, so this is a warning that
    names who is refused; else an error, as nothing would authenticate them."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    values = {"subject": link.block.subject, "kind": _kind(link.block),
              "end": link.end.subject, "missing": link.missing}
    if link.status is Status.NO_ISSUER:
        if link.end is link.block:
            said = _("the %(kind)s '%(subject)s' is in this bundle without '%(missing)s', the "
                     "CA that issued it") % values
        else:
            said = _("the chain of the %(kind)s '%(subject)s' in this bundle stops at the "
                     "intermediate CA '%(end)s', without '%(missing)s', the CA that issued "
                     "it") % values
        said += _(": OpenSSL, and so Unbound, accepts only a chain that ends at a "
                  "self-signed root CA of the bundle (it takes no partial chain)")
        if usable:
            return said + _("; servers whose certificates it issued are refused, even when "
                            "they send '%(missing)s' themselves; add the root CA '%(missing)s' "
                            "(with any CA between) to this bundle, or remove '%(subject)s'") \
                % values
        return said + _("; add the root CA '%(missing)s' (with any CA between) to this "
                        "bundle") % values
    if link.status is Status.BAD_ISSUER:
        values["why"] = _why_not(link.end, now)
        said = _("the chain of the %(kind)s '%(subject)s' goes on in this bundle to "
                 "'%(end)s', which cannot end it: %(why)s") % values
        if usable:
            return said + _("; servers whose certificates it issued are refused until "
                            "'%(end)s' is fixed (its own message says how)") % values
        return said + _("; fix '%(end)s' (its own message says how)") % values
    if link.status is Status.LOOP:
        return _("the chain of the %(kind)s '%(subject)s' in this bundle goes round CAs that "
                 "issued each other and never reaches a self-signed root CA; add the root CA "
                 "of this chain") % values
    return None


def expired_issuer_warning(block, now=None):
    """The warning of BLOCK, an intermediate CA not valid at NOW beside a bundle that can
    authenticate, or None: OpenSSL takes the issuer from the bundle before the one a
    server sends, preferring one valid now but taking an expired one when it is the only
    one of its name (``X509_STORE_CTX_get1_issuer``), so a server that sends the renewed
    intermediate of the same name is refused all the same."""
    problem = validity_problem(block, now)
    if problem is None or is_root(block) or ca_problem(block):
        return None
    return _("%s; servers whose certificates it issued are refused even when they send a "
             "current one of the same name, as OpenSSL takes the issuer from the bundle "
             "first: remove it from this bundle (the root CA is enough when the servers "
             "send their intermediate CA)") % problem


def role(link, now=None):
    """What LINK's certificate is in its bundle, in a few words for the screens: "the root
    CA 'X'", "the intermediate CA 'Y', issued by 'X'", or why it authenticates nothing."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    block = link.block
    values = {"subject": block.subject, "kind": _kind(block), "end": link.end.subject,
              "missing": link.missing}
    if link.status is Status.TRUSTED:
        if is_root(block):
            return _("the root CA '%(subject)s'") % values
        if link.end is block:
            return _("the intermediate CA '%(subject)s', trusted for server authentication by "
                     "its trust settings") % values
        return _("the intermediate CA '%(subject)s', chained to '%(end)s'") % values
    if link.status is Status.OWN_PROBLEM:
        values["why"] = _why_not(block, now)
        return _("'%(subject)s', which authenticates nothing: %(why)s") % values
    if link.status is Status.NO_ISSUER:
        return _("the %(kind)s '%(subject)s', which authenticates nothing without the root CA "
                 "'%(missing)s'") % values
    if link.status is Status.BAD_ISSUER:
        return _("the %(kind)s '%(subject)s', which authenticates nothing: its chain ends at "
                 "'%(end)s'") % values
    return _("the %(kind)s '%(subject)s', which authenticates nothing: its chain reaches no "
             "root CA") % values


def refusal_reason(chain, authorities, explicit, now=None, shown=str, chain_known=True):
    """Why a server whose certificate chain (CHAIN, cryptography certificates, its own
    first, as it sent them) was refused for want of a trusted issuer, in chain words, or
    None when the kickstart's certificates do not tell. AUTHORITIES are the
    ``CertificateBlock``s that authenticate the servers: the whole ``--ca`` bundle when
    EXPLICIT, else the anchors beside the system trust store. The chain is followed as
    ``build_chain`` does: at each step the issuer is looked for among AUTHORITIES first.
    SHOWN makes a certificate's name fit to show (names come from the network).
    CHAIN_KNOWN False: CHAIN is the server's certificate alone because this Python
    cannot tell what else the server sent (before 3.10), so nothing is said of that."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    if not chain:
        return None
    found = links(authorities, now)
    current, sent = chain[0], list(chain[1:])
    for _step in range(len(chain)):
        entry = next((block for block in authorities
                      if issued_by(current, block.certificate)), None)
        if entry is not None:
            return _entry_reason(found[entry.fingerprint], now, shown)
        issuer = next((cert for cert in sent if issued_by(current, cert)), None)
        if issuer is None or issuer is current:
            break
        sent.remove(issuer)
        current = issuer
    if not explicit:
        return None
    values = {"name": shown(current.subject.rfc4514_string()),
              "issuer": shown(current.issuer.rfc4514_string()), "bundle": terms.CA_BUNDLE}
    if issued_by(current, current):
        return _("the server's chain ends at the root CA '%(name)s', which is not in "
                 "%(bundle)s; add it to the bundle if it is your DNS servers' root CA") % values
    if current is chain[0] and not chain_known:
        return _("its issuer '%(issuer)s' is not in the bundle: if it is an intermediate CA "
                 "of a root CA in the bundle, the server must send it (its certificate chain "
                 "file); else add its root CA to the bundle") % values
    if current is chain[0]:
        return _("its issuer '%(issuer)s' is neither in the bundle nor sent by the server: if "
                 "it is an intermediate CA of a root CA in the bundle, have the server send it "
                 "(its certificate chain file); else add its root CA to the bundle") % values
    return _("the server's chain ends at the intermediate CA '%(name)s', and '%(issuer)s', "
             "the CA that issued it, is not in %(bundle)s; add the root CA '%(issuer)s' (with "
             "any CA between) to the bundle") % values


def _entry_reason(link, now, shown):
    """Why a chain that enters the kickstart's certificates at LINK's certificate is
    refused."""
    values = {"subject": shown(link.block.subject), "kind": _kind(link.block),
              "missing": shown(link.missing or ""), "end": shown(link.end.subject),
              "ours": terms.KICKSTART_CERTIFICATES}
    if link.status is Status.NO_ISSUER:
        return _("it chains to the %(kind)s '%(subject)s' of %(ours)s, "
                 "but '%(missing)s', the CA that issued the end of that chain, is not there, "
                 "and OpenSSL (Unbound) accepts no chain that ends below a root CA; add the "
                 "root CA '%(missing)s' to the bundle") % values
    if link.status in (Status.OWN_PROBLEM, Status.BAD_ISSUER):
        values["why"] = _why_not(link.end, now)
        return _("it chains to '%(subject)s' of %(ours)s, and its chain ends at '%(end)s', "
                 "which cannot end it: %(why)s") % values
    if link.status is Status.LOOP:
        return _("it chains to '%(subject)s' of %(ours)s, whose chain never reaches a root "
                 "CA; add the root CA of this chain") % values
    return None

