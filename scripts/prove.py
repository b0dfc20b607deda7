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

"""The end of `make demo`: the bundled example, pointed at DoT upstreams on the lab's
hosts, resolves names through the files staging writes, encrypted; with another CA it
fails.

    PYTHONPATH=. python3 scripts/prove.py [OUT_DIR [KICKSTART]]

The example's CA has no private key anywhere and its servers' addresses must
never get traffic, so a fresh CA and server certificate are made now, and a
copy of the kickstart names them and the lab's hosts instead (documentation
addresses, 198.51.100.0/24: a server on loopback is one the resolvers never
query). Everything runs in a private network namespace that has only loopback,
where the lab's hosts are local addresses, with the code the end-to-end tests
use (lab/dotlab.py); every process is stopped by its PID at the end. Exit
status 1 if any step does not show what it should.
"""

import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from ipaddress import ip_address
from pathlib import Path

import dns.exception
import dns.name
import dns.rcode

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lab import certs
from lab.dotlab import (LoopbackCapture, PrivateNetwork, ask, lab_host, resolve_with_libc,
                        stage_kickstart, start_dot_upstream, start_staged_resolver)
from org_edns_addon import constants as c
from org_edns_addon.ks.reader import parse_kickstart
from org_edns_addon.model import Backend

EXAMPLE = REPO / "data" / "examples" / "corp-dot.ks"
FIRST_LAB_HOST = ip_address(lab_host(2))
# What the upstreams answer: www.ZONE, one documentation address per zone.
FIRST_ANSWER = ip_address("192.0.2.80")
VERIFY_FAILED = "certificate verify failed"


class ProofFailed(Exception):
    """A step did not show what it should; the message says which."""


def shown(path):
    """PATH as the user would type it from here."""
    return os.path.relpath(path) if str(path).startswith(os.getcwd()) else str(path)


def server_zone(server):
    """The zone an upstream answers: its routed domain, else its TLS name's parent."""
    return server.domains[0] if server.domains else server.name.split(".", 1)[1]


def lab_kickstart(text, parsed, ca_pem, backend):
    """TEXT with CA_PEM in each --ca %certificate, servers on the lab's hosts port 853,
    BACKEND.

    Returns the new text and [(server, its copy on a lab host)].
    """
    edits = {}   # first line index -> (number of lines replaced, new lines)
    for cert in parsed.certificates:
        if cert.filename in parsed.config.ca_names:
            body = cert.origin.end_lineno - cert.origin.lineno - 1
            edits[cert.origin.lineno] = (body, ca_pem.splitlines())
    moved = []
    for index, server in enumerate(parsed.config.servers):
        lab = replace(server, address=FIRST_LAB_HOST + index, port=c.DOT_PORT)
        edits[server.lineno - 1] = (1, [lab.kickstart_line()])
        moved.append((server, lab))
    lines = text.splitlines()
    header = parsed.edns_places[0].lineno - 1
    edits[header] = (1, [re.sub(r"\s--backend=\S+", "", lines[header]) + " --backend=" + backend])
    # From the bottom up, so that the line numbers of the edits above stay right.
    for start in sorted(edits, reverse=True):
        count, new_lines = edits[start]
        lines[start:start + count] = new_lines
    return "\n".join(lines) + "\n", moved


class Proof:
    """The lab of one run: its namespace and every process started in it."""

    def __init__(self, out, example):
        self.out = out
        self.example = example
        self.parsed = None
        self.network = None
        self.started = []

    def run(self):
        self.parsed = parse_kickstart(str(self.example))
        if self.parsed.errors or self.parsed.config is None:
            raise ProofFailed("%s has errors; see edns-addon validate %s"
                              % (self.example, self.example))
        ca_names = ", ".join(self.parsed.config.ca_names)
        tls_names = sorted({server.name for server in self.parsed.config.servers})
        ca = certs.make_ca("Demo DNS CA")
        cert_path, key_path = certs.make_server(ca, tls_names).write(self.out, "server")
        print("Made now: a CA (Demo DNS CA) and a server certificate for %s\n(the example CA's "
              "key does not exist, and its servers' addresses must get no traffic)."
              % ", ".join(tls_names))
        lab_ks, moved = self.kickstart("corp-dot-lab.ks", ca.pem, Backend.DNSCONFD)
        print("%s = %s with that CA as %s, servers moved:"
              % (shown(lab_ks), shown(self.example), ca_names))
        for server, lab in moved:
            print("  %-15s -> %-12s #%s%s" % (server.address, lab.address, server.name,
                                             "  domain=" + ",".join(server.domains)
                                             if server.domains else ""))

        zones = {}
        for server, _ in moved:
            zones.setdefault(server_zone(server), FIRST_ANSWER + len(zones))
        self.network = PrivateNetwork.create()
        upstreams = [self.start(start_dot_upstream(
            self.out / "run" / str(lab.address), str(lab.address), cert_path, key_path,
            records=["www.%s. 300 IN A %s" % (server_zone(server), zones[server_zone(server)])],
            zone=server_zone(server) + ".", tls_name=lab.name, port=c.DOT_PORT,
            network=self.network)) for server, lab in moved]
        print("In a private network namespace with only loopback, the lab's hosts local on it: "
              "%d DoT upstreams (Unbound, TLS on port %d only)." % (len(upstreams), c.DOT_PORT))

        resolver, _ = self.staged_resolver(lab_ks, "dnsconfd",
                                           "dnsconfd backend (the example's)")
        print("  Unbound on what dnsconfd makes of %s, %s:%d"
              % (c.NM_KEYFILE_PATH, resolver.address, resolver.port))
        capture = LoopbackCapture(self.network)
        try:
            for zone, answer in zones.items():
                self.show_answer(resolver, "www." + zone, str(answer), upstreams)
            packets = capture.packets()
        finally:
            capture.close()
            resolver.stop()
        self.show_wire(packets, upstreams, zones)

        unbound_ks, _ = self.kickstart("corp-dot-lab-unbound.ks", ca.pem, Backend.UNBOUND)
        resolver, root = self.staged_resolver(unbound_ks, "unbound",
                                              "unbound backend (--backend=unbound)")
        nameservers = [line for line in (root / c.RESOLV_CONF_PATH.lstrip("/"))
                       .read_text().splitlines() if line.startswith("nameserver")]
        print("  Unbound on %s, %s:%d; %s: %s" % (c.UNBOUND_CONF_PATH, resolver.address,
                                                  resolver.port, c.RESOLV_CONF_PATH,
                                                  "; ".join(nameservers)))
        zone, answer = next(iter(zones.items()))
        looked_up = resolve_with_libc(resolver, "www." + zone)
        resolver.stop()
        print("  $ getent hosts www.%s\n  %s" % (zone, looked_up.stdout.strip() or "(nothing)"))
        if looked_up.stdout.split()[:1] != [str(answer)]:
            raise ProofFailed("getent did not get %s: %s" % (answer, looked_up.stderr.strip()))

        other_ks, _ = self.kickstart("corp-dot-lab-other-ca.ks",
                                     certs.make_ca("Unrelated CA").pem, Backend.DNSCONFD)
        resolver, _ = self.staged_resolver(other_ks, "other-ca",
                                           "An unrelated CA as %s" % ca_names)
        response = ask(resolver.address, resolver.port, "www." + zone, network=self.network)
        rcode = dns.rcode.to_text(response.rcode())
        failures = [line.split("error: ", 1)[-1] for line in resolver.log().splitlines()
                    if VERIFY_FAILED in line]
        print("  www.%s A -> %s, %s; Unbound: %s" % (
            zone, rcode, "no answer" if not response.answer else "AN ANSWER",
            failures[0] if failures else "no verification failure"))
        if response.answer or rcode != "SERVFAIL" or not failures:
            raise ProofFailed("a server that the kickstart's CA did not sign was trusted")

    def kickstart(self, name, ca_pem, backend):
        text, moved = lab_kickstart(self.example.read_text(), self.parsed, ca_pem,
                                    backend.value)
        path = self.out / name
        path.write_text(text)
        return path, moved

    def start(self, process):
        self.started.append(process)
        return process

    def staged_resolver(self, kickstart, name, title):
        """Stage KICKSTART into OUT/NAME (phase target), start its resolver: (resolver, root)."""
        root = self.out / name
        root.mkdir()
        data, _ = stage_kickstart(kickstart, root)
        print("\n%s, staged (phase target) into %s:" % (title, shown(root)))
        return self.start(start_staged_resolver(self.out / "run" / name, root,
                                                data.config.backend, self.network)), root

    def show_answer(self, resolver, name, expected, upstreams):
        offsets = [upstream.log_offset() for upstream in upstreams]
        response = ask(resolver.address, resolver.port, name, network=self.network)
        got = [rdata.address for rrset in response.answer for rdata in rrset]
        asked = ["%s#%s" % (upstream.address, upstream.tls_name)
                 for upstream, offset in zip(upstreams, offsets)
                 if "%s. A IN" % name in upstream.log_since(offset)]
        print("  %-17s A -> %s (%s), over TLS from %s" % (
            name, " ".join(got) or "nothing", dns.rcode.to_text(response.rcode()),
            ", ".join(asked) or "no upstream"))
        if got != [expected]:
            raise ProofFailed("%s did not resolve to %s" % (name, expected))

    def show_wire(self, packets, upstreams, zones):
        addresses = {upstream.address for upstream in upstreams}
        to_upstreams = [p for p in packets if {p.source[0], p.destination[0]} & addresses]
        not_tls = [p for p in to_upstreams
                   if p.protocol != "tcp" or c.DOT_PORT not in (p.source[1], p.destination[1])]
        names = [dns.name.from_text("www." + zone).to_wire() for zone in zones]
        readable = [p for p in to_upstreams if any(name in p.data for name in names)]
        print("  captured on lo: %d packets to/from the upstreams, %s, the names in %s"
              % (len(to_upstreams), "%d NOT on TCP port %d" % (len(not_tls), c.DOT_PORT)
                 if not_tls else "all TCP port %d" % c.DOT_PORT,
                 "%d IN CLEAR" % len(readable) if readable else "none (encrypted)"))
        if not to_upstreams or not_tls or readable:
            raise ProofFailed("the queries did not go encrypted on port %d only" % c.DOT_PORT)

    def stop_all(self):
        for process in reversed(self.started):
            process.stop()
        if self.network is not None:
            self.network.stop()
        print("\nStopped %d processes by their PIDs (upstreams, resolvers, the namespace). "
              "Logs: %s/run/*/unbound.log" % (len(self.started) + (self.network is not None),
                                             shown(self.out)))


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "out").resolve() / "proof"
    example = Path(sys.argv[2]) if len(sys.argv) > 2 else EXAMPLE
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    proof = Proof(out, example)
    try:
        proof.run()
    except (ProofFailed, RuntimeError, ValueError, OSError, subprocess.SubprocessError,
            dns.exception.DNSException) as error:
        print("proof FAILED: %s" % error, file=sys.stderr)
        return 1
    finally:
        proof.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
