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

"""What NetworkManager reads: its ``conf.d`` keyfile and its initrd generator's boot options.

NetworkManager >= 1.52: ``[global-dns]`` ``resolve-mode`` and
``certification-authority``, ``[global-dns-domain-*]`` ``servers=dns+tls://…``,
``[main] dns=dnsconfd``; ``rd.net.dns*`` for ``nm-initrd-generator``.
"""

import configparser
import io
from typing import NamedTuple

from org_edns_addon import constants as c
from org_edns_addon.model import Backend

GENERATED_HEADER = "# Written by org_edns_addon from the kickstart; changes are overwritten."


def _keyfile(sections):
    """An INI keyfile of SECTIONS [(name, [(key, value)])], as NetworkManager reads it."""
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",),
                                       comment_prefixes=("#",), empty_lines_in_values=False)
    parser.optionxform = str
    for name, items in sections:
        parser.add_section(name)
        for key, value in items:
            parser.set(name, key, value)
    stream = io.StringIO()
    stream.write(GENERATED_HEADER + "\n")
    parser.write(stream, space_around_delimiters=False)
    return (stream.getvalue().rstrip("\n") + "\n").encode("utf-8")


def _nm_list(values):
    # NetworkManager's configuration lists are ','-separated (NM_CONFIG_KEYFILE_LIST_SEPARATOR).
    return ",".join(values)


def nm_keyfile(data):
    """The NetworkManager conf.d file of DATA (a ``StagingInput``)."""
    config = data.config
    if config.backend == Backend.UNBOUND:
        # The standalone Unbound forwarder owns resolv.conf; NM must leave it alone.
        return _keyfile([("main", [("dns", "none")])])
    global_dns = [("resolve-mode", config.resolve_mode.value)]
    if data.trust.explicit:
        global_dns.append(("certification-authority", data.trust.path))
    if config.searches:
        global_dns.append(("searches", _nm_list(config.searches)))
    sections = [("main", [("dns", Backend.DNSCONFD.value)]),
                ("global-dns", global_dns),
                ("global-dns-domain-*", [("servers", _nm_list(
                    s.uri() for s in config.default_servers))])]
    for domain, servers in config.routed_domains().items():
        sections.append(("global-dns-domain-%s" % domain,
                         [("servers", _nm_list(s.uri() for s in servers))]))
    return _keyfile(sections)


class BootOption(NamedTuple):
    """One kernel option, ``NAME=VALUE`` on the command line."""
    name: str
    value: str

    def __str__(self):
        return "%s=%s" % (self.name, self.value)


def boot_options(config):
    """Kernel options for NetworkManager's initrd generator (only servers for all names),
    as ``BootOption``s."""
    options = [BootOption(c.BOOT_OPTION_DNS, server.uri())
               for server in config.default_servers]
    options.append(BootOption(c.BOOT_OPTION_RESOLVE_MODE, config.resolve_mode.value))
    options.append(BootOption(c.BOOT_OPTION_BACKEND, c.INITRD_DNS_BACKEND))
    return options
