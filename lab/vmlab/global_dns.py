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

"""The proof's one exact comparison: the global DNS NetworkManager runs against the
kickstart's servers, field by field.

Three readings of the same thing are brought to one value (``GlobalDns``): the
kickstart's section as the lab wrote it (read here, not by the addon's parser, so a
defect of the addon cannot change what is expected), NetworkManager's D-Bus
``GlobalDnsConfiguration`` as the guest read it, and a ``[global-dns]`` file
(nm-initrd-generator's ``16-global-dns.conf``, the addon's keyfile) read with
configparser, as NetworkManager's keyfile reader takes the groups
``global-dns`` and ``global-dns-domain-*`` (src/core/nm-config-data.c,
load_global_dns). ``differences`` names every field that is not the same: each
domain's servers (address, port, TLS name, in order), the resolve mode, the CA.
"""

import configparser
import ipaddress
import re
import shlex
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from org_edns_addon import constants as c

# What the boot options can carry (nm-initrd-generator: rd.net.dns and
# rd.net.dns-resolve-mode only, src/nm-initrd-generator/nmi-cmdline-reader.c): the
# servers for all names and the mode; no routed domain, no CA.
ROAD_BOOT_OPTIONS = "boot-options"
# What the addon's keyfile carries: every server, its domains, the mode, the CA.
ROAD_KEYFILE = "keyfile"
ALL_NAMES = "*"
# dns+tls://ADDRESS[:PORT][#NAME], ADDRESS an IPv6 address in brackets.
_URI = re.compile(r"dns\+tls://(?:\[(?P<v6>[^\]]+)\]|(?P<v4>[^:#/\[\]]+))"
                  r"(?::(?P<port>\d+))?(?:#(?P<name>[^\s#]+))?")
_ADDON_HEADER = re.compile(r"^%%addon %s\b(.*)$" % re.escape(c.ADDON_NAME), re.MULTILINE)


@dataclass(frozen=True)
class Server:
    """One DoT server as a resolver uses it: its address (normalised), port and TLS name."""
    address: str
    port: Optional[int]
    name: Optional[str]

    def __str__(self):
        host = "[%s]" % self.address if ":" in self.address else self.address
        return "%s:%s#%s" % (host, self.port, self.name)


def server_of(address, port, name):
    """A Server of fields read elsewhere (dnsconfd's status), its address normalised."""
    try:
        address = str(ipaddress.ip_address(address))
    except ValueError:
        pass
    return Server(address, port, name)


def server(uri):
    """URI as a Server; one that does not parse keeps its text as the address (and then
    differs from every expected server)."""
    match = _URI.fullmatch(uri.strip())
    if not match:
        return Server(uri.strip(), None, None)
    return server_of(match.group("v6") or match.group("v4"),
                     int(match.group("port") or c.DOT_PORT), match.group("name"))


@dataclass
class GlobalDns:
    """A global DNS configuration: the servers of each domain, the mode, the CA."""
    domains: Dict[str, Tuple[Server, ...]] = field(default_factory=dict)
    mode: Optional[str] = None
    ca: Optional[str] = None

    def __str__(self):
        return "mode %s, CA %s, %s" % (self.mode, self.ca, "; ".join(
            "%s: %s" % (domain, ", ".join(map(str, servers)))
            for domain, servers in sorted(self.domains.items())) or "no servers")


def _addon_options(ks_text):
    header = _ADDON_HEADER.search(ks_text)
    if not header:
        raise ValueError("no %%addon %s section" % c.ADDON_NAME)
    options = {}
    for word in shlex.split(header.group(1)):
        key, _, value = word.partition("=")
        options[key] = value
    body = ks_text[header.end():].split("\n%end", 1)[0]
    return options, [line.split() for line in body.splitlines() if line.strip()
                     and not line.strip().startswith("#")]


def from_kickstart(ks_text, road=ROAD_KEYFILE):
    """What the kickstart's section asks NetworkManager to run, as ROAD can carry it: the
    keyfile all of it (the CA at the addon's bundle when --ca is given), the boot options
    the servers for all names and the mode. The lab's kickstarts write their servers as
    URIs and name the mode."""
    options, lines = _addon_options(ks_text)
    domains = {}
    for words in lines:
        routed = [value for word in words[1:] if word.startswith("domain=")
                  for value in word[len("domain="):].split(",") if value]
        if road == ROAD_BOOT_OPTIONS and routed:
            continue
        for domain in routed or [ALL_NAMES]:
            domains.setdefault(domain, ())
            domains[domain] += (server(words[0]),)
    ca = c.DOT_CA_BUNDLE_PATH if road == ROAD_KEYFILE and options.get("--ca") else None
    return GlobalDns(domains, options.get("--resolve-mode"), ca)


def from_dbus(value):
    """NetworkManager's GlobalDnsConfiguration (plain values, lab/vmlab/networkmanager's
    _plain) as a GlobalDns; None or {} is an empty one."""
    value = value or {}
    domains = {domain: tuple(server(uri) for uri in (entry or {}).get("servers", []))
               for domain, entry in (value.get("domains") or {}).items()}
    return GlobalDns(domains, value.get("resolve-mode") or None,
                     value.get("certification-authority") or None)


def from_file(text):
    """A NetworkManager configuration file's [global-dns] groups as a GlobalDns."""
    parser = configparser.ConfigParser(interpolation=None, comment_prefixes=("#", ";"),
                                       strict=False)
    parser.optionxform = str
    parser.read_string(text)
    prefix = "global-dns-domain-"
    domains = {section[len(prefix):]: tuple(server(uri) for uri in parser[section].get(
        "servers", "").split(",") if uri.strip())
        for section in parser.sections() if section.startswith(prefix)}
    top = parser["global-dns"] if parser.has_section("global-dns") else {}
    return GlobalDns(domains, top.get("resolve-mode") or None,
                     top.get("certification-authority") or None)


def differences(expected, observed) -> List[str]:
    """Every field of OBSERVED that is not EXPECTED's, named; [] when they are the same."""
    found = []
    for domain in sorted(set(expected.domains) | set(observed.domains)):
        want, have = expected.domains.get(domain), observed.domains.get(domain)
        if want == have:
            continue
        if have is None:
            found.append("domain %s missing (wanted %s)" % (domain, ", ".join(map(str, want))))
        elif want is None:
            found.append("domain %s not in the kickstart (has %s)" % (
                domain, ", ".join(map(str, have))))
        else:
            found.append("domain %s: %s" % (domain, server_differences(want, have)))
    for label, want, have in (("resolve-mode", expected.mode, observed.mode),
                              ("CA", expected.ca, observed.ca)):
        if want != have:
            found.append("%s %s (wanted %s)" % (label, have, want))
    return found


def server_differences(want, have):
    """What differs between the server lists WANT and HAVE, server by server and field by
    field."""
    said = []
    for index in range(max(len(want), len(have))):
        if index >= len(have):
            said.append("server %d missing (wanted %s)" % (index + 1, want[index]))
        elif index >= len(want):
            said.append("server %d %s not in the kickstart" % (index + 1, have[index]))
        else:
            said.extend("server %d %s %s (wanted %s)" % (index + 1, label, got, wanted)
                        for label, wanted, got in zip(
                            ("address", "port", "TLS name"),
                            (want[index].address, want[index].port, want[index].name),
                            (have[index].address, have[index].port, have[index].name))
                        if wanted != got)
    return "; ".join(said)
