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

"""Which certificates authenticate the DNS servers, and the rules about them.

The trust of a configuration (``dot_trust``) is decided here once, and
staging, the pre-flight check and the rules all take it from here:

- with ``--ca``, the named certificates alone, in ``--ca`` order, form the
  DoT CA bundle at ``DOT_CA_BUNDLE_PATH`` (NetworkManager's
  ``certification-authority``, Unbound's ``tls-cert-bundle``). When ``--ca``
  names a single certificate that its ``--dir``/``--filename`` already place
  at that path, that file is the bundle.
- without ``--ca``, a ``%certificate`` placed at ``DOT_CA_BUNDLE_PATH`` alone
  authenticates the servers: dnsconfd reads that file before the system
  store (its ``DEFAULT_CA_BUNDLE`` search order), so the unbound backend uses
  it too, and validation says so.
- otherwise the system trust store plus every anchor (``KickstartCertificate.is_anchor``).

What every phase stages from, the pre-flight check asks with and the overlay packs is a
``StagingInput``: a validated configuration, its certificates and that trust, built
once by the edge that validated them (``ParsedKickstart.staging_input``,
``EdnsState.staging_input``).
"""

from dataclasses import dataclass, replace
from typing import Optional, Tuple

from org_edns_addon import constants as c
from org_edns_addon import terms
from org_edns_addon.certificates import chains
from org_edns_addon.certificates.authority import (authentication_problem, can_authenticate,
                                                   passed_over_warning, validity_problem)
from org_edns_addon.certificates.kickstart import KickstartCertificate
from org_edns_addon.certificates.pem import CertificateBlock, build_bundle
from org_edns_addon.certificates.placement import directory_needed_problem, landing_problem
from org_edns_addon.echo import named
from org_edns_addon.i18n import P_, _
from org_edns_addon.model import EdnsConfig
from org_edns_addon.problems import Problem, Severity


@dataclass(frozen=True)
class DotTrust:
    """What authenticates the DNS servers.

    ``path`` is the CA file the resolver reads; ``bundle`` the bytes staging
    writes at ``DOT_CA_BUNDLE_PATH`` (None: nothing to write there);
    ``blocks`` the certificates that alone authenticate (empty: the system
    store plus ``anchors``); ``names`` the ``%certificate --filename``s that give
    it: the ``--ca`` names, the certificate placed at the bundle path, or the anchors.
    """
    path: str
    bundle: Optional[bytes] = None
    blocks: Tuple[CertificateBlock, ...] = ()
    anchors: Tuple[CertificateBlock, ...] = ()
    names: Tuple[str, ...] = ()

    @property
    def explicit(self):
        """True when the kickstart's certificates alone authenticate the servers."""
        return self.path != c.SYSTEM_CA_BUNDLE_PATH

    def describe(self, now=None):
        """What authenticates the servers, and for a bundle alone what each of its
        certificates is in a chain (``chains.role``: root CA, intermediate CA, or why it
        authenticates nothing), in whole sentences: every user interface that names the
        trust says this."""
        values = {"names": ", ".join(self.names), "path": self.path, "mark": terms.CA_MARK}
        if not self.explicit:
            if not self.names:
                return _("The system trust store authenticates the DNS servers.")
            return P_("The system trust store and the anchor %(names)s authenticate the DNS "
                      "servers.",
                      "The system trust store and the anchors %(names)s authenticate the "
                      "DNS servers.", len(self.names)) % values
        found = chains.links(self.blocks, now)
        if not any(link.authenticates for link in found.values()):
            said = _("%(names)s cannot authenticate the DNS servers: no chain in the bundle "
                     "%(path)s ends at a root CA that OpenSSL trusts.") % values
        elif self.bundle is None:
            said = _("%(names)s alone authenticates the DNS servers; it is placed at "
                     "%(path)s.") % values
        else:
            # TRANSLATORS: %(mark)s is " (--ca)" for a kickstart's reader, nothing on a
            # screen.
            said = P_("%(names)s%(mark)s alone authenticates the DNS servers, as the bundle "
                      "%(path)s.",
                      "%(names)s%(mark)s alone authenticate the DNS servers, as the bundle "
                      "%(path)s.", len(self.names)) % values
        if not found:
            return said
        return said + " " + _("In it: %s.") % "; ".join(
            chains.role(link, now) for link in found.values())


def _at_bundle_path(certificates):
    return [cert for cert in certificates if cert.path == c.DOT_CA_BUNDLE_PATH]


def dot_trust(config, certificates):
    """The ``DotTrust`` of CONFIG with CERTIFICATES (validated ``KickstartCertificate``s)."""
    by_name = {cert.filename: cert for cert in certificates}
    named = [by_name[name] for name in config.ca_names if name in by_name]
    if config.ca_names:
        # (A --ca name without its %certificate is an error of trust_problems: the others
        # alone would authenticate, never the system store.)
        blocks = tuple(block for cert in named for block in cert.blocks)
        if [cert.path for cert in named] == [c.DOT_CA_BUNDLE_PATH]:
            return DotTrust(c.DOT_CA_BUNDLE_PATH, None, blocks, names=config.ca_names)
        # Unbound reads the bundle with OpenSSL (tls-cert-bundle): each block as given.
        return DotTrust(c.DOT_CA_BUNDLE_PATH, build_bundle(blocks, as_read=True), blocks,
                        names=config.ca_names)
    placed = _at_bundle_path(certificates)
    if placed:
        return DotTrust(c.DOT_CA_BUNDLE_PATH, None, placed[0].blocks,
                        names=(placed[0].filename,))
    anchors = [cert for cert in certificates if cert.is_anchor]
    return DotTrust(c.SYSTEM_CA_BUNDLE_PATH, None, (),
                    tuple(block for cert in anchors for block in cert.blocks),
                    tuple(cert.filename for cert in anchors))


@dataclass(frozen=True)
class StagingInput:
    """A validated configuration, the certificates staging writes, and the DoT trust
    (decided from every certificate, also those another writer places)."""
    config: EdnsConfig
    certificates: Tuple[KickstartCertificate, ...]
    trust: DotTrust

    @classmethod
    def of(cls, config, certificates):
        """The input for CONFIG with CERTIFICATES, both already validated together."""
        return cls(config, tuple(certificates), dot_trust(config, certificates))

    def writing_only(self, filenames):
        """This input writing only the certificates named FILENAMES (Anaconda's Security
        module writes the others); the trust stays as it is."""
        return replace(self, certificates=tuple(cert for cert in self.certificates
                                                if cert.filename in filenames))



def is_dns_trust(cert, ca_names):
    """Whether CERT (a ``KickstartCertificate``) would authenticate the DNS servers of a
    configuration with CA_NAMES: named by ``--ca``, or without ``--ca`` an anchor or the
    certificate placed at the DoT CA bundle path (``dot_trust``)."""
    if ca_names:
        return cert.filename in ca_names
    return cert.is_anchor or cert.path == c.DOT_CA_BUNDLE_PATH


def _chosen(ca_names, certificates):
    """(the certificates that authenticate the DNS servers of a configuration with
    CA_NAMES, as ``dot_trust`` chooses them, whether they alone do)."""
    if ca_names:
        return [cert for cert in certificates if cert.filename in ca_names], True
    placed = _at_bundle_path(certificates)
    if placed:
        return placed, True
    return [cert for cert in certificates if cert.is_anchor], False


def trust_can_authenticate(ca_names, certificates, now=None):
    """Whether what authenticates the DNS servers of a configuration with CA_NAMES (as
    ``dot_trust`` chooses it: the ``--ca`` certificates, else the one placed at the bundle
    path, else the anchors) can at NOW: a bundle alone through a chain that OpenSSL
    trusts (``chains.can_authenticate``: it must reach a root CA of the bundle), anchors
    each beside the system store (``authentication_problem``). Then the others there
    that cannot are warnings, as Unbound's tls-cert-bundle loading takes them beside it
    (``certificates.passed_over_warning``); else each is an error, since nothing would
    authenticate the servers."""
    chosen, explicit = _chosen(ca_names, certificates)
    blocks = [block for cert in chosen for block in cert.blocks]
    return chains.can_authenticate(blocks, now) if explicit else can_authenticate(blocks, now)


def _strict_problems(cert, usable, bundle_links, now):
    """[(line, severity, message)] of CERT, a certificate of what authenticates the DNS
    servers; BUNDLE_LINKS are the ``chains.links`` of the bundle that alone authenticates
    them, or None (anchors: the system store may complete their chains)."""
    found, notes = [], []
    for block in cert.blocks:
        # (Without --ca, an anchor beside the certificate placed at the bundle path is
        # judged too, outside that bundle.)
        link = bundle_links.get(block.fingerprint) if bundle_links is not None else None
        if link is not None and link.block is not block:
            if link.block.trusted != block.trusted:
                notes.append((block.line, Severity.WARNING, _(
                    "the same certificate (%s) is earlier in this bundle with other trust "
                    "settings: OpenSSL keeps the first copy and passes over this one, trust "
                    "settings and all (X509_STORE_add_cert); remove one of them")
                    % block.subject))
            continue
        problem = authentication_problem(block, now)
        if problem is not None:
            warning = link is not None and chains.expired_issuer_warning(block, now)
            found.append((block.line, problem, warning))
        elif link is not None:
            problem = chains.link_problem(link, usable, now)
            if problem is not None:
                found.append((block.line, problem, problem))
    found += [(note.line, note.message, None) for note in cert.passed_over]
    found = [(line, Severity.WARNING if usable else Severity.ERROR,
              (warning or passed_over_warning(problem)) if usable else problem)
             for line, problem, warning in found]
    return sorted(found + notes, key=lambda item: item[0])


def _check_one_file_name(certificates, ca_names, add):
    """Two %certificate sections of one --filename are refused only where that breaks
    something: at one path, where Anaconda writes both and the later replaces the earlier
    (pyanaconda/modules/security/certificates/installation.py and dracut/parse-kickstart
    ``_dump_certificate``: "already exists, replacing"), or named by --ca, which then
    does not say which one authenticates the DNS servers. In two directories, neither
    named, Anaconda writes both (and parse-kickstart carries them to stage 2 apart, below
    /run/install/certificates/path/DIR/). Returns {file name: its first certificate}."""
    first = {}
    at = {}
    for cert in certificates:
        earlier = at.get(cert.path) or (first.get(cert.filename)
                                        if cert.filename in ca_names else None)
        if earlier is not None:
            add(Severity.ERROR, _one_file_name_message(cert, earlier, cert.path in at), cert)
        first.setdefault(cert.filename, cert)
        at.setdefault(cert.path, cert)
    return first


def _one_file_name_message(cert, earlier, same_path):
    origin = earlier.origin
    first_on = _(" (first on %(file)s:%(line)d)") % {"file": origin.filename,
                                                     "line": origin.lineno} if origin else ""
    values = {"path": cert.path, "first": first_on, "filename": cert.filename,
              "certificate": terms.CERTIFICATE_SECTION,
              "named": terms.CERTIFICATE(cert.filename), "ca": terms.CA_LIST,
              "name": terms.FILE_NAME_NOUN, "name_or_dir": terms.FILE_NAME_OR_DIRECTORY}
    if same_path:
        return _("a second %(certificate)s at %(path)s%(first)s: Anaconda writes both there, "
                 "the later replacing the earlier; give each certificate its own "
                 "%(name_or_dir)s") % values
    return _("a second %(named)s%(first)s, and %(ca)s names %(filename)s: it does not say "
             "which one authenticates the DNS servers; give each certificate its own "
             "%(name)s") % values


def trust_problems(config, certificates, configured=True, known_names=None, now=None):
    """Every problem of CERTIFICATES with CONFIG, as ``Problem``s located where each
    certificate was read (no location for a problem of ``--ca`` itself).

    CONFIGURED False (no encrypted DNS section): the certificates belong to
    Anaconda's Security module alone, so nothing here is strict. KNOWN_NAMES are
    every ``--filename`` given, those refused for other reasons included.
    """
    found = []

    def add(severity, message, cert=None, line=None):
        filename, lineno = cert.where(line) if cert is not None else (None, None)
        found.append(Problem(severity, message, lineno, filename))

    ca_names = config.ca_names if configured else ()
    first = _check_one_file_name(certificates, ca_names, add)
    known = set(known_names if known_names is not None else first)
    for name in dict.fromkeys(ca_names):
        if name in known:
            continue
        values = {"ca": terms.CA_NAME(named(name)), "of_name": terms.CERTIFICATE_FILE_NAME,
                  "certificate": terms.CERTIFICATE_SECTION,
                  "known": ", ".join(named(known_name) for known_name in sorted(known))}
        if known:
            add(Severity.ERROR, _("%(ca)s names no %(of_name)s (known: %(known)s); add that "
                                  "%(certificate)s or fix the name") % values)
        else:
            add(Severity.ERROR, _("%(ca)s names no %(of_name)s (there is no %(certificate)s "
                                  "at all); add that %(certificate)s or fix the name") % values)
    if configured:
        _check_places(config, certificates, add)

    # What authenticates DNS servers must hold a CA valid now, and then a certificate
    # there that cannot authenticate is only a warning (trust_can_authenticate); any other
    # certificate is the Security module's business: only a warning when it is out of
    # date.
    usable = configured and trust_can_authenticate(ca_names, certificates, now)
    chosen, explicit = _chosen(ca_names, certificates)
    # A bundle alone authenticates: a chain through it must reach one of its root CAs.
    bundle_links = chains.links([block for cert in chosen for block in cert.blocks], now) \
        if configured and explicit else None
    for cert in certificates:
        strict = configured and is_dns_trust(cert, ca_names)
        if not strict:
            for block in cert.blocks:
                problem = validity_problem(block, now)
                if problem:
                    add(Severity.WARNING, problem, cert, block.line)
            continue
        for line, severity, message in _strict_problems(cert, usable, bundle_links, now):
            add(severity, message, cert, line)
    return found


def _first_below(paths):
    """{directory: the first of PATHS below it} for every directory above one of PATHS."""
    below = {}
    for path in paths:
        for end in range(len(path)):
            if path[end] == "/" and end:
                below.setdefault(path[:end], path)
    return below


def _check_places(config, certificates, add):
    """Certificates must land where the rule lets them (``certificates.landing_problem``),
    and not on each other's way."""
    paths = {cert.path: cert for cert in certificates}
    # One pass over every path, not one per certificate (1 000 certificates: 10^6 tests).
    first_below = _first_below(list(paths))
    for cert in certificates:
        path = cert.path
        problem = landing_problem(path)
        if problem:
            add(Severity.ERROR, problem, cert)
            continue
        blocked = first_below.get(path)
        if blocked:
            add(Severity.ERROR, directory_needed_problem(path, blocked), cert)
            continue
        if path != c.DOT_CA_BUNDLE_PATH:
            continue
        if not config.ca_names:
            add(Severity.WARNING, _("this certificate is placed at %s, which dnsconfd reads "
                                    "before the system trust store: it alone will "
                                    "authenticate the DNS servers; %s to say so, or place it "
                                    "elsewhere") % (path, terms.SELECT_IT), cert)
        elif list(config.ca_names) != [cert.filename]:
            add(Severity.ERROR, _("this certificate is placed at %s, where the DoT CA bundle "
                                  "of %s is written; place it elsewhere (like %s) and %s") % (
                                      path, terms.CA_NAMES(",".join(config.ca_names)),
                                      terms.DIRECTORY_VALUE(c.DOT_CA_DIR), terms.SELECT_IT),
                cert)
