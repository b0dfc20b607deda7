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

"""The words both user interfaces show: the hub's status line, a server, the modes and
backends, a certificate's title.

Every text here is a whole sentence (or a whole label) for translators, with
named placeholders they may reorder: no sentence is glued together from
translated pieces. The values of the choices (``exclusive``, ``dnsconfd``) stay as
the controls show them. A rule's sentence reaches a screen as ``screen_sentence``
renders it (``problem_line`` for a listed problem).
"""

import re

from org_edns_addon.constants import UNBOUND_LISTEN_ADDRESS
from org_edns_addon.i18n import N_, P_, _
from org_edns_addon.model import Backend, ResolveMode, mode_plaintext_warning
from org_edns_addon.problems import Problem, Severity
from org_edns_addon.terms import for_screens

# What each mode does, as NetworkManager.conf(5) says of [global-dns] resolve-mode and
# dnsconfd does it (src/dns_managers/unbound_manager.c, get_used_servers: a connection's
# servers, bound to its interface, are left out in exclusive mode, and for the root zone
# "." in prefer mode; in backup mode they are used beside these, for every zone). Neither
# mode is a failover: nothing waits for these servers to fail. docs/kickstart.md says the same.
RESOLVE_MODE_TEXT = {
    ResolveMode.EXCLUSIVE: N_("only these servers answer, for every name (default)"),
    ResolveMode.PREFER: N_("these servers answer every name, but a name in a connection's "
                           "own domains may also go to that connection's DNS servers (from "
                           "DHCP, in plaintext)"),
    ResolveMode.BACKUP: N_("these servers and every connection's own DNS servers (from DHCP, "
                           "in plaintext) answer side by side, for every name: not a fallback "
                           "when these fail; the only mode that allows plaintext servers here"),
}
BACKEND_TEXT = {
    Backend.DNSCONFD: N_("dnsconfd configures Unbound from NetworkManager (default)"),
    Backend.UNBOUND: N_("a standalone Unbound forwarder on %s, NetworkManager dns=none"),
}


def resolve_mode_text(mode):
    """What the resolve mode MODE (a ``ResolveMode``) does, translated."""
    return _(RESOLVE_MODE_TEXT[mode])


def backend_text(backend):
    """What the backend BACKEND (a ``Backend``) is, translated."""
    text = _(BACKEND_TEXT[backend])
    return text % UNBOUND_LISTEN_ADDRESS if backend is Backend.UNBOUND else text


@for_screens
def mode_warning(mode, backend):
    """What plaintext MODE lets out with BACKEND, as a screen shows it beside the mode
    (the rule's own warning, ``model.mode_plaintext_warning``), or None for exclusive."""
    warning = mode_plaintext_warning(mode, backend)
    return screen_sentence(warning) if warning else None


def status_line(config, errors):
    """The short line a hub shows: "2 DoT servers, exclusive", "Not configured", "1 error
    to fix" (the spoke says which: a hub's line is too short for a sentence)."""
    if not config.servers:
        return _("Not configured")
    if errors:
        return P_("%d error to fix", "%d errors to fix", len(errors)) % len(errors)
    dot = sum(1 for server in config.servers if server.tls)
    plain = len(config.servers) - dot
    values = {"count": dot, "plain": plain, "mode": config.resolve_mode.value}
    if not plain:
        # TRANSLATORS: the hub's status of encrypted DNS; %(mode)s is the kickstart's
        # resolve mode (exclusive, prefer or backup), not translated.
        return P_("%(count)d DoT server, %(mode)s", "%(count)d DoT servers, %(mode)s",
                  dot) % values
    # TRANSLATORS: the hub's status of encrypted DNS with %(plain)d plaintext servers
    # beside the DoT ones; %(mode)s is the kickstart's resolve mode, not translated.
    return P_("%(count)d DoT server + %(plain)d plaintext, %(mode)s",
              "%(count)d DoT servers + %(plain)d plaintext, %(mode)s", dot) % values


def routes(server):
    """Which names SERVER answers, as a table's cell: "every name", "only lab.example"."""
    if not server.domains:
        return _("every name")
    return _("only %s") % ", ".join(server.domains)


def server_line(server):
    """One line for SERVER: its URI and which names it answers."""
    if not server.domains:
        return _("%(uri)s (every name)") % {"uri": server.uri()}
    return _("%(uri)s (only %(domains)s)") % {"uri": server.uri(),
                                             "domains": ", ".join(server.domains)}


def describe_server(server):
    """What SERVER is, in two lines: its URI, then its TLS name and the names it answers."""
    values = {"uri": server.uri(), "name": server.name, "domains": ", ".join(server.domains)}
    if server.tls and server.name:
        if server.domains:
            text = _("%(uri)s\n   TLS name: %(name)s; serves only %(domains)s")
        else:
            text = _("%(uri)s\n   TLS name: %(name)s; serves every name")
    elif server.tls:
        if server.domains:
            text = _("%(uri)s\n   no TLS name; serves only %(domains)s")
        else:
            text = _("%(uri)s\n   no TLS name; serves every name")
    elif server.domains:
        text = _("%(uri)s\n   plaintext, no TLS; serves only %(domains)s")
    else:
        text = _("%(uri)s\n   plaintext, no TLS; serves every name")
    return text % values


def tls_name(server):
    """SERVER's TLS name as a table's cell ("plaintext" for a server without TLS)."""
    if not server.tls:
        return _("plaintext, no TLS")
    return server.name or _("no TLS name")


def certificate_title(cert, source):
    """A certificate in a list: its file name, whether it is an anchor, and SOURCE (where
    it comes from, ``EdnsEditor.source``)."""
    values = {"filename": cert.filename, "source": source}
    if cert.is_anchor:
        return _("%(filename)s (anchor; %(source)s)") % values
    return _("%(filename)s (%(source)s)") % values


def search_domains_line(searches):
    """The search domains SEARCHES as a line: "Search domains: corp.example"."""
    if not searches:
        return _("Search domains: none")
    return _("Search domains: %s") % ", ".join(searches)


# A sentence's first word when it is a word of the sentence (letters, maybe a hyphen
# inside): not a value the sentence begins with (an address, a path, a quoted value, a
# domain, a program's name with its "'s"), which stays as it is.
_SENTENCE_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*(?=[\s,:;]|\Z)")


def screen_sentence(message):
    """MESSAGE (a rule's sentence, which begins in lower case and has no full stop, as
    ``validate`` prints it after "error:") as a screen shows a sentence alone: its first
    word capitalised unless it is a value, and a full stop at its end."""
    message = message.strip()
    if message[:1].islower() and _SENTENCE_WORD.match(message):
        message = message[0].upper() + message[1:]
    if message and message[-1] not in ".!?…":
        message += "."
    return message


def problem_line(problem):
    """A ``Problem`` as a screen lists it: "Error: The DoT server … has no TLS name; …"."""
    if problem.severity is Severity.ERROR:
        return _("Error: %s") % screen_sentence(problem.message)
    return _("Warning: %s") % screen_sentence(problem.message)


def refusal_line(message):
    """An input refused (MESSAGE, its sentence), as a screen says it beside the input."""
    return problem_line(Problem(Severity.ERROR, message))


def failed_apply(failure, done, pressed=False):
    """What a spoke says after applying its configuration to the installer failed:
    FAILURE (the module's sentences: what failed, what it means), then the person's
    choice. DONE is the control that leaves the spoke ("Done", "c"), which the person
    presses twice to go on that way, as Anaconda asks for a weak password; PRESSED: once
    already."""
    if pressed:
        choice = _("Press %(done)s again to go on without encrypted DNS in the installer, or "
                   "change the configuration and press %(done)s to try again.")
    else:
        choice = _("Press %(done)s twice to go on without encrypted DNS in the installer, or "
                   "change the configuration and press %(done)s to try again.")
    return "%s %s" % (failure, choice % {"done": done})


def checking(count):
    """What a user reads while COUNT servers are being checked."""
    return P_("Checking %d server…", "Checking %d servers…", count) % count
