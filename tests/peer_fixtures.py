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

"""The peers' own cases, one table per peer (tests/test_peer_*.py).

A row is one input that a peer's own parser, test or documentation was
written for, the file it came from, and what this addon does with it as a
server line of the encrypted DNS section: accept it and write what the peer
reads as meant, refuse it with a sentence that names the reason, or accept it
with a warning where the peer accepts it but ignores it.
"""

import configparser
from dataclasses import dataclass, replace
from typing import Optional, Tuple

from lab.kickstarts import edns_section
from org_edns_addon import constants as c
from org_edns_addon.ks.edns import parse_server_line
from org_edns_addon.problems import ModelError
from org_edns_addon.staging.networkmanager import nm_keyfile
from org_edns_addon.trust import StagingInput
from org_edns_addon.staging.unbound import unbound_conf
from org_edns_addon.trust import DotTrust
from tests.ks_fixtures import parse

# Routed rows also need a server for all other names.
DEFAULT_SERVER = "dns+tls://192.0.2.53#dot.corp.example"


@dataclass(frozen=True)
class Row:
    """One peer case: SOURCE (repository and file) and the server LINE, under OPTIONS.

    Exactly what is expected is given: ``accepts`` (what we write, in the form
    the table's peer reads: see each table), ``refuses`` (a part of the one
    error on the line), ``warns`` (a part of the one warning; with ``accepts``
    too when the rendering matters).
    """
    source: str
    line: str
    options: str = ""
    accepts: Optional[str] = None
    refuses: Optional[str] = None
    warns: Optional[str] = None
    # Server lines before LINE in the section (else a server for all names when LINE
    # is routed).
    beside: Tuple[str, ...] = ()
    # The installer line (lines.py key) the row is judged for; None: every line.
    installer: Optional[str] = None

    def __str__(self):
        return "%s: %s%s%s%s" % (self.source, self.line, " (%s)" % self.options
                                 if self.options else "", " after %s" % ", ".join(self.beside)
                                 if self.beside else "", " on " + self.installer
                                 if self.installer else "")

    def read(self, write_ks):
        """The kickstart of this row, parsed and checked (a ParsedKickstart)."""
        lines = list(self.beside) or ([DEFAULT_SERVER] if "domain=" in self.line else [])
        return parse(write_ks(edns_section(*lines, self.line, options=self.options)),
                     line=self.installer)

    def check(self, write_ks):
        """Assert the errors and warnings of this row; (its server, the config) if accepted."""
        parsed = self.read(write_ks)
        errors = [p.message for p in parsed.errors]
        warnings = [p.message for p in parsed.warnings]
        # prefer and backup say on the header line what plaintext they let out
        # (test_peer_dnsconfd.py holds that rule's own cases).
        for mode in ("prefer", "backup"):
            if "--resolve-mode=" + mode in self.options and not errors:
                header = [p for p in parsed.warnings if p.lineno == 1]
                assert len(header) == 1 and header[0].message.startswith(
                    "--resolve-mode=%s lets plaintext DNS leave" % mode), parsed.warnings
                warnings.remove(header[0].message)
        if self.refuses is not None:
            assert len(errors) == 1 and self.refuses in errors[0], errors
            lines_before = len(self.beside) or (1 if "domain=" in self.line else 0)
            assert parsed.errors[0].lineno == 2 + lines_before, parsed.errors[0]
            return None
        assert errors == [], errors
        if self.warns is not None:
            assert len(warnings) == 1 and self.warns in warnings[0], warnings
        else:
            assert warnings == [], warnings
        return parsed.config.servers[-1], parsed.config


def keyfile_servers(config, server):
    """The ``servers=`` value of SERVER's group in the NetworkManager keyfile we write."""
    group = "global-dns-domain-%s" % (server.domains[0] if server.domains else "*")
    keyfile = configparser.ConfigParser(interpolation=None, delimiters=("=",),
                                        comment_prefixes=("#",))
    keyfile.optionxform = str
    keyfile.read_string(nm_keyfile(StagingInput(config, (), DotTrust(c.SYSTEM_CA_BUNDLE_PATH)))
                        .decode("utf-8"))
    return keyfile.get(group, "servers")


def unbound_forward_addrs(config, server):
    """The ``forward-addr:`` values of SERVER's zone in the Unbound file we write."""
    zone = '"%s"' % ((server.domains[0] + ".") if server.domains else ".")
    text = unbound_conf(StagingInput(config, (), DotTrust(c.SYSTEM_CA_BUNDLE_PATH))).decode("ascii")
    zones = text.split("forward-zone:")[1:]
    found = [z for z in zones if "name: %s\n" % zone in z]
    assert len(found) == 1, text
    return [line.split(":", 1)[1].strip() for line in found[0].splitlines()
            if line.strip().startswith("forward-addr:")]


def _own_port(line):
    """Whether the server LINE names a port other than its protocol's own."""
    try:
        server = parse_server_line(line)
    except ModelError:
        return False
    return server.port != (c.DOT_PORT if server.tls else c.PLAIN_DNS_PORT)


def judged_where_ports_pass(rows):
    """ROWS, those whose server has a port of its own judged for a line whose NetworkManager
    hands that port to dnsconfd (1.54 and later: Fedora 43), as a peer's own cases are
    about the peer: what the older lines do with such a port is test_line_rules.py's."""
    return [replace(row, installer="fedora-43") if _own_port(row.line) and not row.installer
            else row for row in rows]
