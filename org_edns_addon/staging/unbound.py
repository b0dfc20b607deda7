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

"""What the standalone Unbound forwarder reads (``--backend=unbound``), and resolv.conf.

Unbound listens on 127.0.0.55 and forwards every zone over TLS only
(``forward-tls-upstream: yes``), authenticating the servers with the DoT
trust's CA file; NetworkManager keeps out of resolv.conf (``dns=none``).
"""

from org_edns_addon import constants as c
from org_edns_addon.staging.networkmanager import GENERATED_HEADER


def _forward_zone(name, servers):
    lines = ["forward-zone:",
             '    name: "%s"' % name,
             "    forward-tls-upstream: yes",
             # Never fall back to resolving by itself, in plaintext.
             "    forward-first: no"]
    lines += ["    forward-addr: %s" % s.unbound_forward_addr() for s in servers]
    return lines


def unbound_conf(data):
    """The Unbound conf.d file of DATA (a ``StagingInput``; every server is DoT)."""
    config = data.config
    lines = [GENERATED_HEADER,
             "server:",
             "    interface: %s" % c.UNBOUND_LISTEN_ADDRESS,
             "    tls-cert-bundle: %s" % data.trust.path,
             # No DNSSEC validation, as dnsconfd (its default dnssec_enabled: no): Fedora's
             # unbound.conf validates, and a private zone under a signed public parent
             # would then be bogus (SERVFAIL) with this backend and resolve with dnsconfd.
             # The DoT servers are authenticated by the kickstart's CA instead.
             '    module-config: "iterator"']
    # Unbound answers its default zones itself, forward zone or not (services/localzone.c
    # local_zone_enter_defaults): a routed domain among them is opened by a local zone of
    # its own, which holds no data (EdnsConfig.unbound_zones_lifted).
    lines += ['    local-zone: "%s." transparent' % zone for zone in config.unbound_zones_lifted()]
    lines.append("")
    lines += _forward_zone(".", config.default_servers)
    for domain, servers in config.routed_domains().items():
        lines.append("")
        lines += _forward_zone(domain + ".", servers)
    return ("\n".join(lines) + "\n").encode("ascii")


def resolv_conf(config):
    """resolv.conf pointing at the local Unbound forwarder."""
    lines = [GENERATED_HEADER, "nameserver %s" % c.UNBOUND_LISTEN_ADDRESS]
    if config.searches:
        lines.append("search %s" % " ".join(config.searches))
    return ("\n".join(lines) + "\n").encode("ascii")
