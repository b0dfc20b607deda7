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

"""Rules by line: what a configuration does on the installer lines it is judged for.

A kickstart does not say which line installs it, so ``validate`` judges it for
every line of ``lines.LINES`` (or the one ``--line`` names), and the installer
module for its own (``lines.detect_line``). Where one of those lines would do
something other than the kickstart asks, the problem names the lines; a line
that honours it is never named. The facts come from ``lines.py`` alone.
"""

from org_edns_addon import constants as c
from org_edns_addon import terms
from org_edns_addon.i18n import _
from org_edns_addon.lines import GLOBAL_SEARCHES_REPLACE, LINES, PORT_TO_DNSCONFD, \
    lines_with, lines_without, names
from org_edns_addon.model import Backend
from org_edns_addon.problems import Problem, Severity


def _default_port(server):
    return c.DOT_PORT if server.tls else c.PLAIN_DNS_PORT


def _port_problems(config, lines):
    """A server on a port of its own where dnsconfd reads it, on lines whose NetworkManager
    drops the port: NetworkManager before 1.54 (src/core/dns/nm-dns-dnsconfd.c
    server_builder_append_base) sends dnsconfd no "port", and dnsconfd
    (src/dbus_server.c) then uses the protocol's default. dnsconfd reads every server in
    the installer's initramfs (NetworkManager's initramfs speaks DoT only through it), and
    in the installed system with --backend=dnsconfd."""
    dropping = lines_without(PORT_TO_DNSCONFD, lines)
    if not dropping:
        return []
    found = []
    for server in config.servers:
        default = _default_port(server)
        if server.port == default:
            continue
        if server.is_link_local:
            # No initramfs uses it (the plugin drops its interface: model.py refuses it
            # with dnsconfd, and boot-args and overlay leave it out); with the unbound
            # backend our own Unbound asks it on its port.
            continue
        values = {"server": server.uri(), "port": server.port, "default": default,
                  "lines": names(dropping), "or_line": terms.OR_VALIDATE_FOR_A_LINE}
        if config.backend == Backend.DNSCONFD:
            where = _("in the installer's initramfs and in the installed system")
        else:
            where = _("in the installer's initramfs")
        values["where"] = where
        found.append(Problem(Severity.ERROR, _(
            "%(server)s is on port %(port)d, but on %(lines)s NetworkManager's dnsconfd "
            "plugin (before 1.54) does not pass a server's port to dnsconfd, which then asks "
            "port %(default)d %(where)s; serve it on port %(default)d%(or_line)s") % values,
            server.lineno, server.filename))
    return found


def _search_problems(config, lines):
    """--search where NetworkManager 1.56 and later (src/core/dns/nm-dns-manager.c
    _collect_resolv_conf_data, commit 1cba0a3cca) let [global-dns] searches replace the
    connections' own search domains, which older releases add them to."""
    if not config.searches:
        return []
    replacing = lines_with(GLOBAL_SEARCHES_REPLACE, lines)
    if not replacing:
        return []
    adding = [line for line in lines if line not in replacing]
    values = {"replacing": names(replacing),
              "search": terms.SEARCH_VALUE(",".join(config.searches)),
              "connection": terms.CONNECTION_SEARCH, "in_search": terms.IN_SEARCH}
    if adding:
        values["adding"] = names(adding)
        message = _("%(search)s: on %(replacing)s (NetworkManager 1.56 and later) "
                    "these become the only search domains, replacing those of the "
                    "connections (DHCP's, %(connection)s), while on %(adding)s they are "
                    "added to them; list every search domain the system needs "
                    "%(in_search)s") % values
    else:
        message = _("%(search)s: on %(replacing)s (NetworkManager 1.56 and later) "
                    "these become the only search domains, replacing those of the "
                    "connections (DHCP's, %(connection)s); list every search domain the "
                    "system needs %(in_search)s") % values
    return [Problem(Severity.WARNING, message)]


def _anchor_problems(trust, lines):
    """Anchors that authenticate the servers (no --ca): Anaconda's initramfs adds them to the
    system store only on some lines (dracut/parse-kickstart _append_to_ca_bundle, anaconda
    main and rhel-10); elsewhere the initramfs authenticates with the system store alone."""
    if trust is None or trust.explicit or not trust.names:
        return []
    without = tuple(line for line in lines if line.initramfs_anchors.value is not True)
    if not without:
        return []
    return [Problem(Severity.WARNING, _(
        "the anchors %(anchors)s authenticate the DNS servers, but on %(lines)s the "
        "installer's initramfs does not add anchors to the system trust store "
        "(dracut/parse-kickstart), so there the servers are authenticated by the system "
        "store alone until the installer starts; %(select)s to have them authenticate the "
        "servers from the first packet on every line") % {
            "anchors": ", ".join(trust.names), "lines": names(without),
            "select": terms.SELECT_THEM})]


def line_problems(config, trust=None, lines=LINES):
    """The problems of CONFIG (an ``EdnsConfig``) with TRUST (its ``DotTrust``, None when
    not decided) on LINES (``lines.Line``s): a server's problem located where it was
    read, the others without a location (the section's header)."""
    return _port_problems(config, lines) + _search_problems(config, lines) + \
        _anchor_problems(trust, lines)
