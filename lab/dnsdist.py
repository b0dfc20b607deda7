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

"""dnsdist as a DNS upstream that answers at once, for benchmarks that time resolution.

Unbound as a DoT server (``lab.dotlab.start_dot_upstream``) holds a small TLS
reply back until the client's delayed ACK comes (Nagle's algorithm: about
40 ms on Linux), a stall no real resolver pays; it is fine for correctness
tests, not for timing. dnsdist answers every query itself at once
(``SpoofAction``: every A query gets ``ANSWER_ADDRESS``, nothing is cached or
forwarded), over TLS on one port and in plaintext (UDP and TCP) on another, so
a forwarder can reach the same upstream either way.

dnsdist's security-status poll, a DNS query to the Internet at start, is
turned off; it listens only where told: on loopback, or on the lab's hosts inside
a ``PrivateNetwork`` (where a kickstart may name it). Started with SIGTERM as its
parent-death signal and stopped by its PID.
"""

import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from lab.dotlab import (HOST_NETWORK, LAB_HOSTS, STARTUP_SECONDS, TLS_NAME, _accepts,
                        _die_with_parent, lab_port, stop_process)
from org_edns_addon.constants import DOT_PORT, PLAIN_DNS_PORT

DNSDIST = "dnsdist"
ANSWER_ADDRESS = "192.0.2.80"


@dataclass
class DnsdistUpstream:
    """A running dnsdist: DoT on each of ADDRESSES at TLS_PORT, plaintext at PLAIN_PORT."""
    process: subprocess.Popen
    addresses: Sequence[str]
    tls_port: int
    plain_port: int
    workdir: Path
    network: object = field(default=HOST_NETWORK, repr=False)

    @property
    def address(self):
        return self.addresses[0]

    def server_line(self, address=None, tls_name=TLS_NAME):
        """How a kickstart names this upstream's DoT service on ADDRESS (default: the first)."""
        port = "" if self.tls_port == DOT_PORT else ":%d" % self.tls_port
        return "dns+tls://%s%s#%s" % (address or self.address, port, tls_name)

    def log(self):
        return (self.workdir / "dnsdist.log").read_text(errors="replace")

    def stop(self):
        stop_process(self.process)


def dnsdist_config(addresses, tls_port, plain_port, cert_path, key_path):
    """dnsdist's Lua configuration for ``start_dnsdist_upstream``."""
    lines = ['setSecurityPollSuffix("")',   # no status query to the Internet
             # dnsdist 1.7 drops some of ten simultaneous connections, "because we have too
             # many queued already", even under a limit of 10 000; 0 turns the limit off.
             "setMaxTCPQueuedConnections(0)",
             # Its default ACL takes private and loopback clients only; the lab's hosts,
             # which are the clients' addresses too, are documentation addresses.
             'addACL("%s")' % LAB_HOSTS]
    for index, address in enumerate(addresses):
        local = "setLocal" if index == 0 else "addLocal"
        lines.append('%s("%s:%d")' % (local, address, plain_port))
        lines.append('addTLSLocal("%s:%d", "%s", "%s")' % (address, tls_port, cert_path,
                                                           key_path))
    lines.append('addAction(AllRule(), SpoofAction("%s"))' % ANSWER_ADDRESS)
    return "\n".join(lines) + "\n"


def start_dnsdist_upstream(workdir, cert_path, key_path, addresses=("127.0.0.5",),
                           tls_port=None, plain_port=None, network=HOST_NETWORK):
    """Start dnsdist answering on ADDRESSES (free ports unless given); return once every
    address accepts TLS connections. RuntimeError with its log if it does not."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    # DoT's and DNS's own ports in a private network, where they are free (lab_port).
    tls_port = tls_port or lab_port(addresses[0], network)
    plain_port = plain_port or lab_port(addresses[0], network, PLAIN_DNS_PORT)
    config = workdir / "dnsdist.conf"
    config.write_text(dnsdist_config(addresses, tls_port, plain_port, cert_path, key_path))
    with open(workdir / "dnsdist.log", "wb") as log:
        process = subprocess.Popen(
            network.command([DNSDIST, "--supervised", "--disable-syslog", "-C", str(config)]),
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=_die_with_parent)
    upstream = DnsdistUpstream(process, tuple(addresses), tls_port, plain_port, workdir,
                               network)
    deadline = time.monotonic() + STARTUP_SECONDS
    try:
        for address in addresses:
            while not _accepts(network, address, tls_port):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("dnsdist does not listen on %s:%d:\n%s"
                                       % (address, tls_port, upstream.log()))
                time.sleep(0.02)
    except BaseException:
        upstream.stop()
        raise
    return upstream
