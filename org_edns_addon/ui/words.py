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
translated pieces. Kickstart words (``exclusive``, ``dnsconfd``) stay as the
kickstart spells them.
"""

from org_edns_addon.constants import UNBOUND_LISTEN_ADDRESS
from org_edns_addon.i18n import N_, P_, _
from org_edns_addon.model import Backend, ResolveMode

RESOLVE_MODE_TEXT = {
    ResolveMode.EXCLUSIVE: N_("only these servers answer, for every name (default)"),
    ResolveMode.PREFER: N_("these servers first; the connections' DNS servers are also used"),
    ResolveMode.BACKUP: N_("the connections' DNS servers first, these when they fail; "
                           "the only mode that allows plaintext servers"),
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


def status_line(config, errors):
    """The short line a hub shows: "2 DoT servers, exclusive", "Not configured", "Error: …"."""
    if not config.servers:
        return _("Not configured")
    if errors:
        return _("Error: %s") % errors[0]
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


def checking(count):
    """What a user reads while COUNT servers are being checked."""
    return P_("Checking %d server…", "Checking %d servers…", count) % count
