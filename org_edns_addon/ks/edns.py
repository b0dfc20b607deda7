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

"""The ``%edns`` / ``%addon org_edns_addon`` kickstart section.

``EdnsData`` is the one data object for both spellings. It has the methods
Anaconda's ``AddonSection`` drives (``handle_header``, ``handle_line``,
``handle_end``, ``__str__``), so the Anaconda module can register it as the
``org_edns_addon`` addon; the kickstart reader's ``EdnsSection``
(``ks/sections.py``) drives it for a top-level ``%edns``. Options are declared
once, in ``option_parser()``.
"""

import re
import shlex

from pykickstart.errors import KickstartParseError
from pykickstart.ko import KickstartObject
from pykickstart.options import KSOptionParser, commaSplit
from pykickstart.version import DEVEL

from org_edns_addon import terms
from org_edns_addon.i18n import _
from org_edns_addon.constants import ADDON_NAME, ADDON_SECTION_OPEN
from org_edns_addon.certificates.placement import file_name_problem
from org_edns_addon.model import Backend, DotServer, EdnsConfig, ResolveMode
from org_edns_addon.names import normalize_domains
from org_edns_addon.problems import ModelError

# A comment starts at a '#' that begins the line or follows whitespace; a '#'
# inside a server word is the TLS name separator.
_COMMENT = re.compile(r"(^|\s)#.*$")


def parse_server_line(line, lineno=None, filename=None):
    """One server line of the section's body, ``SERVER [domain=D[,D]]``, as a ``DotServer``
    (``DotServer.parse_uri`` reads SERVER); ModelError otherwise. Kickstart syntax: the
    screens take a server's address and its routed domains in inputs of their own."""
    words = line.split()
    if not words:
        raise ModelError(_("empty server line"))
    domains = ()
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if key != "domain" or not sep:
            raise ModelError(_("unexpected %r after the server; the only option of a "
                               "server line is domain=DOMAIN[,DOMAIN]") % word)
        if domains:
            raise ModelError(_("domain= is given twice; list all domains in one "
                               "domain=A,B"))
        domains = tuple(value.split(","))
        if not value or "" in domains:
            raise ModelError(_("domain= needs a comma-separated list of domains"))
        if "." in domains:
            raise ModelError(_("domain=. would be the root, which a server without "
                               "domain= serves already; drop domain=."))
    domains = tuple(normalize_domains(domains))
    if len(set(domains)) != len(domains):
        raise ModelError(_("domain= lists a domain twice; list each domain once"))
    return DotServer.parse_uri(words[0], domains, lineno=lineno, filename=filename)


class _EdnsOptionParser(KSOptionParser):
    """``KSOptionParser`` whose errors also say which option a typo meant."""

    def parse_args(self, args=None, namespace=None, lineno=None):
        # The unknown words as a list (never read back out of argparse's message, which
        # its own translation may change), each with the option it probably meant.
        import difflib

        namespace, extras = self.parse_known_args(args, namespace, lineno=lineno)
        if not extras:
            return namespace
        known = sorted(option for action in self._actions for option in action.option_strings)
        hints = []
        for word in extras:
            option = word.split("=", 1)[0]
            if not option.startswith("-"):
                hints.append(_("unexpected %r") % word)
                continue
            close = difflib.get_close_matches(option, known, n=1)
            hints.append(_("unknown option %s%s") % (
                option, _(" (did you mean %s?)") % close[0] if close else ""))
        self.error(_("%s; the options are %s") % ("; ".join(hints), ", ".join(known)))


def option_parser():
    """The options of the section header, with their user documentation."""
    op = _EdnsOptionParser(prog=ADDON_SECTION_OPEN, version=DEVEL, description="""
        Configure system-wide encrypted DNS (DNS over TLS) for the installer,
        the installed system and its initramfs. The body lists one server per
        line: ``dns+tls://ADDR[:PORT]#NAME`` (IPv6 in brackets), or FreeIPA's
        ``ADDR#NAME``, optionally followed by ``domain=DOMAIN[,DOMAIN]`` to
        route only those domains to that server. At least one server must
        serve all other names (no ``domain=``).""")
    op.add_argument("--resolve-mode", dest="resolve_mode", version=DEVEL,
                    default=ResolveMode.EXCLUSIVE.value,
                    choices=[mode.value for mode in ResolveMode], help="""
                    NetworkManager's ``resolve-mode``: ``exclusive`` never uses a
                    connection's own DNS servers (from DHCP, in plaintext); ``prefer``
                    uses them for the names in that connection's domains, ``backup``
                    for every name (NetworkManager.conf(5); dnsconfd's
                    ``unbound_manager.c`` ``get_used_servers``): neither is a
                    failover. Plaintext servers are allowed only with ``backup``.
                    With ``prefer`` or ``backup``, ``edns-addon validate`` warns on
                    the header line what plaintext the mode lets out.""")
    op.add_argument("--backend", dest="backend", version=DEVEL,
                    default=Backend.DNSCONFD.value,
                    choices=[backend.value for backend in Backend], help="""
                    The local resolver: ``dnsconfd`` (NetworkManager
                    ``dns=dnsconfd``) or ``unbound`` (a standalone Unbound forwarder
                    on 127.0.0.55, NetworkManager ``dns=none``).""")
    op.add_argument("--search", dest="searches", version=DEVEL, type=commaSplit,
                    default=[], metavar="DOMAINS", help="""
                    Comma-separated search domains (NetworkManager ``searches``).
                    From NetworkManager 1.56 they replace the connections' own
                    search domains instead of being added to them.""")
    op.add_argument("--ca", dest="ca_names", version=DEVEL, type=commaSplit,
                    default=[], metavar="NAMES", help="""
                    Comma-separated ``%%certificate --filename`` names whose
                    certificates alone form the CA bundle that authenticates
                    the DNS servers. Without it, a ``%%certificate`` placed at
                    dnsconfd's bundle path authenticates them alone, and else
                    the system trust store plus every anchor does
                    (``%%certificate --type=anchor``, or
                    ``--dir=/etc/pki/ca-trust/source/anchors/`` where pykickstart
                    has no ``--type``).""")
    return op


def strip_comment(line):
    return _COMMENT.sub("", line).strip()


class EdnsData(KickstartObject):
    """Kickstart data of the encrypted DNS section (both spellings)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen = False
        self.header_lineno = None
        self.resolve_mode = ResolveMode.EXCLUSIVE
        self.backend = Backend.DNSCONFD
        self.searches = ()
        self.ca_names = ()
        self.servers = []
        # Server lines refused with an error; the rules on what is left would mislead.
        self.refused_lines = 0

    def handle_header(self, args, line_number=None):
        """Parse the options that follow ``%edns`` or ``%addon org_edns_addon``."""
        ns = option_parser().parse_args(args=args, lineno=line_number)
        try:
            searches = tuple(normalize_domains(ns.searches, _("search domain")))
        except ModelError as error:
            raise KickstartParseError(_("--search: %s") % error, lineno=line_number) from None
        for name in ns.ca_names:
            problem = file_name_problem(name, terms.CA_NAME)
            if problem:
                raise KickstartParseError(problem, lineno=line_number)
        self.seen = True
        self.header_lineno = line_number
        self.resolve_mode = ResolveMode(ns.resolve_mode)
        self.backend = Backend(ns.backend)
        self.searches = searches
        self.ca_names = tuple(ns.ca_names)

    def handle_line(self, line, line_number=None, filename=None):
        """Parse one server line; comments and blank lines are skipped.

        FILENAME, if known, is remembered with the server for later messages.
        """
        text = strip_comment(line)
        if not text:
            return
        try:
            self.servers.append(parse_server_line(text, lineno=line_number,
                                                  filename=filename))
        except ModelError as error:
            self.refused_lines += 1
            raise KickstartParseError(str(error), lineno=line_number) from None

    def handle_end(self):
        pass

    def to_config(self):
        """The section as an ``EdnsConfig`` (rules are checked separately)."""
        return EdnsConfig(
            servers=tuple(self.servers),
            resolve_mode=self.resolve_mode,
            backend=self.backend,
            searches=tuple(self.searches),
            ca_names=tuple(self.ca_names),
        )

    def set_config(self, config):
        """Take the values of CONFIG (from D-Bus or the text UI)."""
        self.seen = True
        self.resolve_mode = config.resolve_mode
        self.backend = config.backend
        self.searches = tuple(config.searches)
        self.ca_names = tuple(config.ca_names)
        self.servers = list(config.servers)
        self.refused_lines = 0

    def header_args(self):
        args = ["--resolve-mode=%s" % self.resolve_mode.value,
                "--backend=%s" % self.backend.value]
        if self.searches:
            args.append("--search=%s" % ",".join(self.searches))
        if self.ca_names:
            args.append("--ca=%s" % ",".join(self.ca_names))
        # A --ca name may hold a space or a quote (it is a file name): quoted as shlex,
        # and so pykickstart, reads it back.
        return [shlex.quote(arg) for arg in args]

    def __str__(self):
        """The ``%addon org_edns_addon`` form, which stock Anaconda accepts."""
        if not self.seen:
            return ""
        lines = ["", " ".join([ADDON_SECTION_OPEN] + self.header_args())]
        lines += [server.kickstart_line() for server in self.servers]
        lines.append("%end")
        return "\n".join(lines) + "\n"


def is_our_addon(args):
    """True if a ``%addon`` header's words name this addon."""
    return len(args) > 1 and args[1] == ADDON_NAME


# How alike (difflib's ratio, case aside) a name must be to ours to be taken for a typo of
# it: org_ends_addon, org_edns-addon, org_dns_addon, ORG_EDNS_ADDON are, and the addons
# people install are far from it (com_redhat_kdump 0.40, org_fedora_oscap 0.53,
# org_fedora_hello_world 0.44).
_TYPO_RATIO = 0.8


def misspelled_addon(args):
    """The error for a ``%addon`` header (ARGS, its words) naming an addon that is not
    ours but close to it, else None.

    Anaconda's boss hands each module only the ``%addon`` sections of the names it
    claims (pyanaconda/modules/boss/kickstart_manager/kickstart_manager.py
    ``_distribute_to_modules``, ``KickstartAddons``) and drops the others without a
    word: the installation would run without encrypted DNS."""
    import difflib

    if len(args) < 2 or args[1] == ADDON_NAME:
        return None
    name = args[1]
    close = difflib.SequenceMatcher(None, name.lower(), ADDON_NAME).ratio() >= _TYPO_RATIO
    if not close and "edns" not in name.lower():
        return None
    return _("%%addon %s is not this addon's name, and Anaconda hands a section only to "
             "the addon it names: it skips this one and installs without encrypted DNS; "
             "did you mean %%addon %s?") % (name, ADDON_NAME)
