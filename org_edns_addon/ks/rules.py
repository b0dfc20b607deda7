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

"""The rules of a whole kickstart: its sections, certificates and configuration together.

The kickstart reader (``ks/reader.py``) and the Anaconda module's part
(``ks/module.py``) both end here, so a kickstart is judged the same way by
``edns-addon validate`` and by the installer.
"""

import re
from dataclasses import dataclass
from typing import Callable

from pykickstart.constants import KS_SCRIPT_POST

from org_edns_addon.certificates.authority import passed_over_warning
from org_edns_addon.certificates.kickstart import KickstartCertificate
from org_edns_addon.certificates.pem import CertificateError, read_pem
from org_edns_addon.certificates.placement import (indented_anchor_warning, is_anchor_place,
                                                   placement_problems)
from org_edns_addon import constants as c
from org_edns_addon.constants import ADDON_SECTION_OPEN, SECTION_OPEN
from org_edns_addon.i18n import _
from org_edns_addon.line_rules import line_problems
from org_edns_addon.lines import LINES
from org_edns_addon.model import Backend, EdnsConfig
from org_edns_addon.problems import Problem, Severity
from org_edns_addon.trust import dot_trust, is_dns_trust, trust_can_authenticate, \
    trust_problems


def certificate_value(data, place, body_places, add, unread=None):
    """The ``KickstartCertificate`` of pykickstart's ``Certificate`` DATA read at PLACE (a
    ``SectionPlace``; BODY_PLACES the (file, line) of each body line, a sequence that is
    not changed afterwards), or None after reporting its problems with
    ADD(severity, message, (file, line)).

    A PEM problem that only matters when the certificate authenticates the DNS servers
    is kept in UNREAD (a list, ``ParsedKickstart.unread``) as an ``UnreadCertificate``
    for ``check_rules``, which knows by then what it is for (without UNREAD: an error)."""
    header = (place.filename, place.lineno)
    # pykickstart before 3.73 (EL9, Fedora 43) has no --type: no attribute either.
    cert_type = getattr(data, "type", None)
    problems = placement_problems(data.filename, data.dir, cert_type)
    for message in problems:
        add(Severity.ERROR, message, header)
    # Read as what reads the file there reads it: p11-kit an anchor, OpenSSL any other.
    anchor = not problems and is_anchor_place(data.dir, cert_type)
    try:
        read = read_pem(data.cert, anchor=anchor)
    except CertificateError as error:
        inside = error.line is not None and 0 <= error.line < len(body_places)
        where = body_places[error.line] if inside else header
        if error.always or unread is None or problems:
            add(Severity.ERROR, error.message, where)
        else:
            unread.append(UnreadCertificate(
                KickstartCertificate(data.filename, data.cert, (), data.dir, cert_type,
                                     origin=place), error.message,
                lambda severity, message: add(severity, message, where), error.empty))
        return None
    if problems:
        return None
    for line in read.indented:
        add(Severity.WARNING, indented_anchor_warning(), body_places[line])
    return KickstartCertificate(data.filename, data.cert, read.blocks, data.dir, cert_type,
                                origin=place, body_places=body_places,
                                passed_over=read.passed_over)


@dataclass(frozen=True)
class UnreadCertificate:
    """A ``%certificate`` whose PEM text OpenSSL would not load: ``cert`` (without
    blocks) says where it goes, ``report(severity, message)`` says a sentence where it was
    read; ``empty`` (``CertificateError.empty``): OpenSSL would load nothing of it without
    failing."""
    cert: KickstartCertificate
    message: str
    report: Callable
    empty: bool = False


def _report_unread(result, config, configured, now=None):
    """Say each of RESULT's unread certificates: an error where it would authenticate the
    DNS servers (Unbound's tls-cert-bundle loading, util/net_help.c connect_sslctx_create
    -> SSL_CTX_load_verify_locations, loads nothing of a file OpenSSL cannot read), else a
    warning: such a certificate is the Security module's, which writes it as it is, and
    p11-kit's update-ca-trust passes over what it cannot read. A text with no
    certificate OpenSSL reads, but nothing it fails on, takes nothing from the DoT bundle:
    beside a certificate that can authenticate the servers, it is a warning too."""
    ca_names = config.ca_names if configured else ()
    for unread in result.unread:
        strict = configured and is_dns_trust(unread.cert, ca_names)
        # (The unread one, without blocks, takes its place among them: at the bundle
        # path it alone would be the trust.)
        if strict and unread.empty and trust_can_authenticate(
                ca_names, [*result.certificates, unread.cert], now):
            unread.report(Severity.WARNING, passed_over_warning(unread.message))
        else:
            unread.report(Severity.ERROR if strict else Severity.WARNING, unread.message)


def top_level_section_problem(place):
    """The error of a top-level ``%edns`` read at PLACE (a ``SectionPlace``).

    No installer takes the kickstart: pykickstart's parser, and so ``ksvalidator``
    and every Anaconda line, refuses a section it does not know ("Unknown kickstart
    section", pykickstart/parser.py ``_stateMachine``), and Anaconda's boss routes only
    ``%addon NAME`` to addons. ``edns-addon convert`` rewrites it, and reads past this
    one error (``ks/convert.py``)."""
    return Problem(Severity.ERROR, _(
        "stock Anaconda rejects a top-level %%edns (\"Unknown kickstart section\"), and so "
        "does ksvalidator: no installer takes this kickstart as it is; run 'edns-addon "
        "convert %s' to rewrite it as %s") % (place.filename, ADDON_SECTION_OPEN),
        place.lineno, place.filename)


def check_rules(result, now=None, read_to_end=True, lines=LINES):
    """Add the cross-section rules to RESULT.problems (a ``ParsedKickstart``), and what
    the installer LINES (``lines.Line``s) would do with it (``line_rules``).

    READ_TO_END False: reading stopped early, so a missing section proves nothing.
    """
    def add(severity, message, place, where=None):
        filename, lineno = where or (place.filename, place.lineno)
        result.add_problem(Problem(severity, message, lineno, filename))

    places = result.edns_places
    for place in places[1:]:
        first = places[0]
        if place.spelling != first.spelling:
            message = _("both %(first)s and %(second)s are given; they are two spellings of "
                        "the same section, keep only %(addon)s (first on %(file)s:%(line)d)") % {
                            "first": first.spelling, "second": place.spelling,
                            "addon": ADDON_SECTION_OPEN, "file": first.filename,
                            "line": first.lineno}
        else:
            message = _("a second %(section)s section; only one may appear (first on "
                        "%(file)s:%(line)d)") % {"section": place.spelling,
                                                 "file": first.filename, "line": first.lineno}
        add(Severity.ERROR, message, place)
    for place in places:
        if place.spelling == SECTION_OPEN:
            result.add_problem(top_level_section_problem(place))

    edns = result.edns
    head = places[0] if places else None
    config = edns.to_config() if edns.seen else EdnsConfig()
    _report_unread(result, config, edns.seen, now)
    # Files a %pre script may write, which the installer reads after it (see
    # ks/result.py MissingInclude): what they may hold is not an error here.
    missing = result.missing_includes
    known = list(result.certificate_names)
    if missing and edns.seen:
        for name in dict.fromkeys(config.ca_names):
            if name not in known:
                known.append(name)
                add(Severity.WARNING, _("--ca=%s names no %%certificate of the files read here; "
                                        "the installer takes this kickstart only if a file "
                                        "that is missing here (%s) holds that %%certificate "
                                        "when it is read; check that file separately")
                    % (name, missing_list(missing)), head)
    for problem in trust_problems(config, result.certificates, configured=edns.seen,
                                  known_names=known, now=now):
        if problem.lineno is None and head is not None:
            add(problem.severity, problem.message, head)
        else:
            result.add_problem(problem)

    if not edns.seen:
        if not places and read_to_end and missing:
            result.add_problem(Problem(
                Severity.WARNING, _("no %s section in the files read here; encrypted DNS is "
                                    "configured only if a file that is missing here (%s) "
                                    "holds it when the installer reads it")
                % (ADDON_SECTION_OPEN, missing_list(missing)), None, result.filename))
        elif not places and read_to_end:
            result.add_problem(Problem(
                Severity.WARNING, _("no %s section; encrypted DNS is not configured")
                % ADDON_SECTION_OPEN, None, result.filename))
        return
    # A server may be in an included file that is missing here.
    all_read = not edns.refused_lines and not any(
        item.section in (SECTION_OPEN, ADDON_SECTION_OPEN) for item in missing)
    for problem in config.problems(head.lineno, all_servers_read=all_read) + \
            line_problems(config, dot_trust(config, result.certificates), lines):
        add(problem.severity, problem.message, head,
            (problem.filename or head.filename, problem.lineno or head.lineno))
    _check_freeipa_dns_over_tls(result, add, head, config)


def missing_list(missing):
    """The files of the ``MissingInclude``s MISSING, for a sentence (the warning on each
    ``%include`` line says where it is)."""
    return ", ".join(dict.fromkeys(item.path for item in missing))


_IPA_CLIENT_INSTALL = re.compile(r"(^|[\s;&|(/])ipa-client-install(\s|$)")
_DNS_OVER_TLS = re.compile(r"(^|\s)--dns-over-tls(\s|=|$)")


def _runs_freeipa_dns_over_tls(script):
    """Whether the shell SCRIPT runs ``ipa-client-install ... --dns-over-tls``."""
    lines = script.replace("\\\n", " ").splitlines()
    return any(_IPA_CLIENT_INSTALL.search(line) and _DNS_OVER_TLS.search(line)
               for line in lines if not line.lstrip().startswith("#"))


def _check_freeipa_dns_over_tls(result, add, head, config):
    """A %post that enrolls the installed system with FreeIPA's own DoT forwarder.

    Anaconda runs %post after the addons' installation tasks (the boss's
    _prepare_configuration), and FreeIPA's client (ipaclient/install/client.py,
    client_dns) then writes its own Unbound forwarder on 127.0.0.55 for every name
    (/etc/unbound/conf.d/zzz-ipa.conf), NetworkManager dns=none in a conf.d file read
    after ours, and resolv.conf. What it does with ours depends on its branch
    state (staging/freeipa.py, lab/freeipa.py STATES): from bae780843 on (the
    ipa-4-12 tip, 4.13) it first sets every other file of /etc/unbound/conf.d/
    aside; the ipa-4-12 builds with DoT before it do not, and with --backend=unbound
    our handover unit takes ours out when the client restarts Unbound. Either way
    FreeIPA's forwarder then serves every name: a warning.
    """
    # A result made from the module's state, without a handler, has no scripts.
    for script in getattr(result.handler, "scripts", ()):
        if script.type != KS_SCRIPT_POST or not _runs_freeipa_dns_over_tls(script.script):
            continue
        if config.backend == Backend.UNBOUND:
            add(Severity.WARNING, _(
                "the %%post script on line %d of its file runs ipa-client-install "
                "--dns-over-tls, and FreeIPA's client then takes DNS over on the installed "
                "system: its own Unbound on %s forwards every name to the IPA server, so "
                "these servers serve the installation alone; FreeIPA's client sets this "
                "addon's %s aside itself (4.13, and 4.12 from its commit bae780843), or "
                "%s does it when the client restarts Unbound (earlier 4.12 builds); that "
                "unit puts it back once FreeIPA's forwarder is gone; if FreeIPA is not "
                "meant to take DNS over, drop --dns-over-tls or this section")
                % (script.lineno, c.UNBOUND_LISTEN_ADDRESS, c.UNBOUND_CONF_PATH,
                   c.FREEIPA_HANDOVER_UNIT), head)
        else:
            add(Severity.WARNING, _(
                "the %%post script on line %d of its file runs ipa-client-install "
                "--dns-over-tls, and FreeIPA's client then takes DNS over on the installed "
                "system: its own Unbound on %s forwards every name to the IPA server and "
                "NetworkManager gets dns=none, so these servers serve the installation "
                "alone; it disables dnsconfd only where dnsconfd is running, which in "
                "%%post it is not, and a dnsconfd left enabled takes resolv.conf at boot "
                "(4.12 builds before its commit bae780843 also keep dnsconfd's Unbound "
                "include, whose forward zone for '.' then wins over FreeIPA's): add "
                "'systemctl disable dnsconfd.service' after ipa-client-install in that "
                "%%post; if FreeIPA is not meant to take DNS over, drop --dns-over-tls or "
                "this section") % (script.lineno, c.UNBOUND_LISTEN_ADDRESS), head)
        return
