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

"""The DoT tax: what encrypting the upstream costs the staged Unbound backend.

The forwarder is the one `edns-addon apply --root` writes for --backend=unbound
(``/etc/unbound/conf.d/edns-forward.conf``, staged with the installer's own
code), run as the installed system would (``lab.dotlab.start_staged_resolver``:
Unbound on 127.0.0.55:53, the staged /etc over /etc). The baseline is the same
staged tree with only the forward-zone turned to plaintext
(``forward-tls-upstream: no``, the upstream's port 53). The upstream is the same
dnsdist for both (``lab.dnsdist``), answering every query itself at once,
DoT on 198.51.100.2:853 and plaintext on 198.51.100.2:53 (one of the lab's hosts:
the resolver never queries loopback), so the difference is the forwarder's TLS
alone. Everything runs in a private network namespace.

Each round starts each forwarder afresh (DoT and plaintext interleaved, the
order alternating) and measures:
  - the cold first query: one uncached name, asked once the forwarder answers
    (Unbound accepts queries before it is done starting), timed by the client;
    for DoT it includes opening the first TLS connection;
  - dnsperf resolving NAMES names never asked before (up to 100 outstanding):
    queries per second and each query's latency (p50, p99);
  - the forwarder's CPU time during the dnsperf run, per name:
    the cost of TLS that other load on the machine disturbs least;
  - the TCP connections the namespace opened meanwhile (the kernel's
    Tcp ActiveOpens): for DoT, the TLS connections to the upstream.
Prints medians over the rounds, DoT beside plaintext, with the median and the
range of the ratios taken round by round. Never fails on a time; it fails only
when an answer is missing or wrong.

    PYTHONPATH=. python3 benchmarks/dot_tax.py [--names N] [--rounds N]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import dns.message
import dns.query
import dns.rdata

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.paired import as_installed

from lab.kickstarts import edns_kickstart
from lab.dnsdist import ANSWER_ADDRESS, start_dnsdist_upstream
from lab.dotlab import (TLS_NAME, DotPki, PrivateNetwork, lab_host, stage_kickstart,
                        start_staged_resolver)
from org_edns_addon import constants as c
from org_edns_addon.model import Backend

UPSTREAM_ADDRESS = lab_host(2)
NAME_SUFFIX = "zone.test"
DNSPERF_OUTSTANDING = 100
DNSPERF_TIMEOUT_SECONDS = 5
MODES = ("DoT", "plaintext")
# The lab logs every query (verbosity 2); an installed Unbound logs none (verbosity 1).
QUIET_SETTINGS = ("verbosity: 1", "log-queries: no")


def plaintext_forwarder(tls_text):
    """The staged forwarder configuration TLS_TEXT with its upstream in plaintext instead:
    the same upstream's port 53, no TLS name, forward-tls-upstream: no."""
    plain, swaps = re.subn(r"forward-addr: %s@%d#%s\n" % (re.escape(UPSTREAM_ADDRESS),
                                                         c.DOT_PORT, re.escape(TLS_NAME)),
                           "forward-addr: %s@%d\n" % (UPSTREAM_ADDRESS, c.PLAIN_DNS_PORT),
                           tls_text)
    plain, tls_swaps = re.subn(r"forward-tls-upstream: yes\n", "forward-tls-upstream: no\n",
                               plain)
    if (swaps, tls_swaps) != (1, 1):
        raise SystemExit("benchmark: the staged forwarder no longer has one forward-addr "
                         "%s@%d#%s and one forward-tls-upstream: yes:\n%s"
                         % (UPSTREAM_ADDRESS, c.DOT_PORT, TLS_NAME, tls_text))
    return plain


def stage_roots(scratch, pki):
    """Roots staged for the DoT forwarder and for its plaintext twin: {mode: root}."""
    kickstart = scratch / "unbound.ks"
    kickstart.write_text(edns_kickstart(pki.ca.pem, "--ca=dns-ca.pem --backend=unbound",
                                        ["dns+tls://%s#%s" % (UPSTREAM_ADDRESS, TLS_NAME)],
                                        commands=""))
    roots = {}
    for mode in MODES:
        root = scratch / mode / "root"
        root.mkdir(parents=True)
        stage_kickstart(kickstart, root)
        roots[mode] = root
    forwarder = roots["plaintext"] / c.UNBOUND_CONF_PATH.lstrip("/")
    forwarder.write_text(plaintext_forwarder(forwarder.read_text()))
    return roots


def tcp_active_opens(network):
    """The TCP connections this namespace has opened so far (/proc/net/snmp Tcp ActiveOpens)."""
    text = subprocess.run(network.command(["cat", "/proc/net/snmp"]), capture_output=True,
                          text=True, check=True).stdout
    header, values = [line.split() for line in text.splitlines() if line.startswith("Tcp:")]
    return int(values[header.index("ActiveOpens")])


def run_dnsperf(network, names_file, names):
    """(queries per second, [latency s, ...]) of dnsperf asking the forwarder every name."""
    result = subprocess.run(network.command([
        "dnsperf", "-s", c.UNBOUND_LISTEN_ADDRESS, "-p", str(c.PLAIN_DNS_PORT),
        "-d", str(names_file), "-n", "1", "-q", str(DNSPERF_OUTSTANDING),
        "-t", str(DNSPERF_TIMEOUT_SECONDS), "-v"]), capture_output=True, text=True)
    latencies = [float(found) for found in
                 re.findall(r"^> NOERROR \S+ A ([\d.]+)$", result.stdout, re.MULTILINE)]
    qps = re.search(r"Queries per second:\s+([\d.]+)", result.stdout)
    if result.returncode != 0 or len(latencies) != names or qps is None:
        raise SystemExit("benchmark: dnsperf did not get %d NOERROR answers (exit %d):\n%s%s"
                         % (names, result.returncode, result.stdout[-3000:],
                            result.stderr[-2000:]))
    return float(qps.group(1)), latencies


def cold_query(network, name):
    """(milliseconds, response) of asking the forwarder NAME once over UDP; the socket and
    the query are made before the clock starts."""
    query = dns.message.make_query(name, "A")
    # dnspython loads the code for A records when it first reads one: not in the clock.
    dns.rdata.from_text("IN", "A", ANSWER_ADDRESS)
    with network.socket() as sock:
        sock.setblocking(False)
        started = time.perf_counter()
        response = dns.query.udp(query, c.UNBOUND_LISTEN_ADDRESS, port=c.PLAIN_DNS_PORT,
                                 timeout=DNSPERF_TIMEOUT_SECONDS, sock=sock)
        return (time.perf_counter() - started) * 1000, response


def measure(mode, root, network, workdir, names_file, names, cold_name):
    """One round of MODE: a fresh forwarder; its cold first query, dnsperf, connections."""
    resolver = start_staged_resolver(workdir, root, Backend.UNBOUND, network,
                                     settings=QUIET_SETTINGS)
    try:
        # Unbound accepts connections before it is done starting (its first answer can take
        # 50-250 ms in both modes): wait for an answer it gives itself, upstream untouched.
        cold_query(network, "localhost.")
        opened_before = tcp_active_opens(network)
        cold_ms, answer = cold_query(network, cold_name)
        if ANSWER_ADDRESS not in answer.to_text():
            raise SystemExit("benchmark: the %s forwarder answered %s:\n%s"
                             % (mode, answer.to_text(), resolver.log()))
        cpu_before = process_cpu_seconds(resolver.process.pid)
        qps, latencies = run_dnsperf(network, names_file, names)
        cpu = process_cpu_seconds(resolver.process.pid) - cpu_before
        opened = tcp_active_opens(network) - opened_before
    finally:
        resolver.stop()
    return {"qps": qps, "p50": percentile(latencies, 50) * 1000,
            "p99": percentile(latencies, 99) * 1000, "cold": cold_ms, "connections": opened,
            "cpu": cpu / names * 1e6}


def process_cpu_seconds(pid):
    """CPU seconds all threads of process PID have run so far, to the nanosecond (the
    scheduler's own account, /proc/PID/task/*/schedstat; /proc/PID/stat counts ticks)."""
    total_ns = 0
    for task in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/schedstat" % (pid, task)) as schedstat:
            total_ns += int(schedstat.read().split()[0])
    return total_ns / 1e9


def percentile(values, percent):
    """The PERCENT-th percentile of VALUES (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * percent // 100) - 1)]


def main():
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=2000, help="uncached names per run")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each forwarder")
    options = parser.parse_args()

    results = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory(prefix="edns-dot-tax-") as scratch:
        scratch = Path(scratch)
        pki = DotPki.create(scratch / "pki")
        roots = stage_roots(scratch, pki)
        network = PrivateNetwork.create()
        try:
            cert, key = pki.files("server")
            upstream = start_dnsdist_upstream(scratch / "dnsdist", cert, key, (UPSTREAM_ADDRESS,),
                                              tls_port=c.DOT_PORT, plain_port=c.PLAIN_DNS_PORT,
                                              network=network)
            try:
                for number in range(options.rounds):
                    order = MODES if number % 2 == 0 else MODES[::-1]
                    for mode in order:
                        # Names nobody asked before: no cache anywhere holds them.
                        names_file = scratch / ("names-%d-%s" % (number, mode))
                        names_file.write_text("".join(
                            "n%d.r%d.%s.%s A\n" % (index, number, mode.lower(), NAME_SUFFIX)
                            for index in range(options.names)))
                        results[mode].append(measure(
                            mode, roots[mode], network, scratch / ("run-%d-%s" % (number, mode)),
                            names_file, options.names,
                            "cold.r%d.%s.%s" % (number, mode.lower(), NAME_SUFFIX)))
            finally:
                upstream.stop()
        finally:
            network.stop()

    print("DoT tax of the staged Unbound forwarder: %d uncached names, up to %d outstanding, "
          "%d rounds, medians (load average %.1f)"
          % (options.names, DNSPERF_OUTSTANDING, options.rounds, os.getloadavg()[0]))
    print("  %-26s %12s %12s %10s %s" % ("", "DoT", "plaintext", "DoT/plain",
                                            "(per-round ratios: median, min-max)"))
    for key, label, unit in (("qps", "throughput", "q/s"), ("p50", "latency p50", "ms"),
                             ("p99", "latency p99", "ms"), ("cold", "cold first query", "ms"),
                             ("cpu", "forwarder CPU per query", "us"),
                             ("connections", "TCP connections opened", "")):
        dot = statistics.median(run[key] for run in results["DoT"])
        plain = statistics.median(run[key] for run in results["plaintext"])
        ratios = [a[key] / b[key] for a, b in zip(results["DoT"], results["plaintext"])
                  if b[key]]
        paired = ("%6.2fx, %.2f-%.2f" % (statistics.median(ratios), min(ratios), max(ratios))
                  if ratios else "-")
        print("  %-26s %8.1f %-3s %8.1f %-3s %s" % (label, dot, unit, plain, unit, paired))
    print("  (TCP connections: for DoT, the TLS connections the forwarder opened to the "
          "upstream; for plaintext, UDP needs none. Forwarder CPU: the time Unbound ran "
          "during the dnsperf run, per name)")


if __name__ == "__main__":
    main()
