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

"""`edns-addon check` against a DoT upstream that answers at once, versus kdig.

The upstream is dnsdist on the lab's hosts (``lab.dnsdist``; documentation addresses
that the benchmark's own private network namespace has on its loopback: a kickstart
names a server on loopback as one the resolvers never query): unlike
the lab's Unbound it answers a small query over TLS at once, without waiting for the
client's delayed ACK. Whole processes, paired and interleaved rounds, one run:

    kdig +tls-ca=CA +tls-hostname=NAME NAME A   the C reference client (the baseline)
    edns-addon check KS-1                        one server: read and validate the
                                                 kickstart, then the check
    edns-addon check KS-10                       ten servers (ten addresses)
    check, no site hooks                         the same one-server check under
                                                 python3 -S: without this interpreter's
                                                 .pth start-up hooks (site-packages on
                                                 PYTHONPATH instead)
    probe only                                   check_servers on one server, no kickstart
    python3 -c pass / python3 -S -c pass         the interpreter's start-up floor
First, at 1, 10 and 100 servers (dnsdist on as many of the lab's hosts): `check`
and `validate` of the same kickstart, paired and interleaved, and kdig once per
server and round. Goals: check - validate - the slowest server's printed time
<= 30 ms at every size (the check costs no more than reading the kickstart plus
the network), and each server's printed time within 20 % of kdig's for that
server (the printed times are the network's, not this process's queue).
Python runs with its bytecode cache on (as installed, where .pyc files exist),
and every command runs once before the counted rounds. Then the ratios (goal:
check <= 5x kdig; ten servers <= 1.5x one), and where a check's time goes,
in-process: the phases of ``cli.commands.run_check`` (medians), and the times `check`
itself prints (TCP + TLS handshake, query), beside kdig's own query time.
Prints figures; never fails on a time. Needs root, for the namespace.

    PYTHONPATH=. python3 benchmarks/check.py [--rounds N] [--scale-rounds N] [--scale-only]
"""

import argparse
import os
import re
import site
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.paired import (as_installed, installed_env, median_ms, paired_ratio,
                               print_table, run_once, run_rounds)
from lab.kickstarts import edns_kickstart
from lab.dnsdist import ANSWER_ADDRESS, start_dnsdist_upstream
from lab.dotlab import TLS_NAME, DotPki, PrivateNetwork, lab_host
from org_edns_addon.constants import DOT_PORT

SERVERS = 10
# The sizes of the scale figures, and the lab's hosts of dnsdist's DoT listeners.
SCALE_SIZES = (1, 10, 100)
ADDRESSES = tuple(lab_host(20 + index) for index in range(max(SCALE_SIZES)))
# Set in the run of this benchmark inside its own network namespace.
IN_LAB_NETWORK = "EDNS_BENCH_IN_LAB_NETWORK"
GOAL_VERSUS_KDIG = 5.0
GOAL_TEN_VERSUS_ONE = 1.5
# check - validate - the slowest server's time, at every size (ms).
GOAL_FLOOR_GAP_MS = 30.0
# Every printed time within this fraction of kdig's for the same server.
GOAL_PRINTED_VERSUS_KDIG = 0.20
PRINTED_OK = re.compile(r"^(\S+): ok, ([\d.]+) ms ", re.MULTILINE)
PROBE_ONLY = """
import sys
from org_edns_addon.model import DotServer, EdnsConfig
from org_edns_addon.probe.check import check_servers
with open(sys.argv[2], "rb") as ca_file:
    checks = check_servers(EdnsConfig(servers=(DotServer.parse_uri(sys.argv[1]),)), ca_file.read())
sys.exit(0 if checks[0].ok else 1)
"""
# The steps of cli.commands.run_check, each timed; printed as "phase milliseconds" lines.
PHASES = """
import sys, time
marks = [("start", time.perf_counter())]
def mark(name):
    marks.append((name, time.perf_counter()))
from org_edns_addon import cli
mark("import the command line")
from org_edns_addon.ks.reader import parse_kickstart
mark("import the kickstart reader")
parsed = parse_kickstart(sys.argv[1])
mark("read and validate the kickstart")
data = parsed.staging_input()
mark("staging input (CA bundle)")
from org_edns_addon.probe import check as probe
import dns.message, dns.rcode
mark("import the probe and dnspython")
[check] = probe.check_staging_input(data)
mark("the check (network, TLS, DNS)")
assert check.ok, check.describe()
for (_, before), (name, after) in zip(marks, marks[1:]):
    print("%s\\t%.3f" % (name, (after - before) * 1000))
handshake_ms = getattr(check, "handshake_ms", None)   # not printed before 2026-12
if handshake_ms is not None:
    print("printed: TCP and TLS handshakes\\t%.3f" % handshake_ms)
    print("printed: query\\t%.3f" % (check.rtt_ms - handshake_ms))
else:
    print("printed: the whole round trip\\t%.3f" % check.rtt_ms)
"""


def kdig_query_ms(text):
    """The ";; Received ... in N ms"-style query time kdig prints, in ms."""
    found = re.search(r"in ([\d.]+) ms", text)
    return float(found.group(1)) if found else float("nan")


def _keeping(store):
    """An ``accept`` for ``run_once`` that keeps every finished process in STORE."""
    def keep(done):
        store.append(done)
        return True
    return keep


def scale_figures(rounds, directory, env, pki, upstream, kdig_for):
    """At each of SCALE_SIZES servers: `check` and `validate` of the same kickstart as
    paired, interleaved processes, the times `check` prints, and kdig's time for each
    server (one kdig process per server and round). Printed as a table."""
    validate = [sys.executable, "-m", "org_edns_addon.cli", "validate"]
    check = [sys.executable, "-m", "org_edns_addon.cli", "check"]
    lines = [upstream.server_line(address) for address in ADDRESSES]
    kickstarts = {}
    for size in SCALE_SIZES:
        kickstarts[size] = directory / ("scale-%d.ks" % size)
        kickstarts[size].write_text(edns_kickstart(pki.ca.pem, servers=lines[:size],
                                                   commands=""))
    printed = {size: [] for size in SCALE_SIZES}     # per round: {server line: ms}
    walls = {size: [] for size in SCALE_SIZES}       # per round: (validate s, check s)
    kdig = {line: [] for line in lines}
    for size in SCALE_SIZES if rounds > 1 else ():   # warm-up, uncounted (not in a smoke run)
        run_once(validate + [str(kickstarts[size])], env)
        run_once(check + [str(kickstarts[size])], env)
    for number in range(rounds):
        for size in SCALE_SIZES:
            pair = [("validate", validate), ("check", check)]
            if number % 2:
                pair.reverse()
            seen, outputs = {}, []
            for name, argv in pair:
                seen[name] = run_once(argv + [str(kickstarts[size])], env,
                                      accept=_keeping(outputs))[0]
            result = outputs[[name for name, _ in pair].index("check")]
            if result.returncode != 0 or outputs[0].returncode != 0:
                sys.exit("benchmark: a command of %d servers failed:\n%s%s"
                         % (size, result.stdout[-2000:], result.stderr[-2000:]))
            times = {line: float(ms) for line, ms in PRINTED_OK.findall(result.stdout)}
            if len(times) != size:
                sys.exit("benchmark: check of %d servers gave:\n%s%s"
                         % (size, result.stdout[-2000:], result.stderr[-2000:]))
            printed[size].append(times)
            walls[size].append((seen["validate"], seen["check"]))
        for line in lines:
            kdig[line].append(kdig_query_ms(subprocess.run(
                kdig_for(line), capture_output=True, text=True, check=True).stdout))
    print("check at scale: %d paired rounds per size against dnsdist, kdig once per server "
          "and round (load average %.1f)" % (rounds, os.getloadavg()[0]))
    print("  %7s %9s %9s %9s %9s %11s | %-37s" % (
        "servers", "validate", "check", "check-val", "slowest", "floor gap", "printed / kdig, "
        "per server (goal within %d %%)" % (GOAL_PRINTED_VERSUS_KDIG * 100)))
    for size in SCALE_SIZES:
        gaps = [(check_s - validate_s) * 1000 - max(times.values())
                for (validate_s, check_s), times in zip(walls[size], printed[size])]
        ratios = [statistics.median(times[line] for times in printed[size]) /
                  statistics.median(kdig[line]) for line in lines[:size]]
        within = sum(1 for ratio in ratios if abs(ratio - 1) <= GOAL_PRINTED_VERSUS_KDIG)
        print("  %7d %7.1f ms %6.1f ms %6.1f ms %6.1f ms %7.1f ms%s | median %.2fx, %.2f-%.2fx,"
              " %d of %d within" % (
                  size, statistics.median(v for v, _ in walls[size]) * 1000,
                  statistics.median(c for _, c in walls[size]) * 1000,
                  statistics.median((c - v) * 1000 for v, c in walls[size]),
                  statistics.median(max(times.values()) for times in printed[size]),
                  statistics.median(gaps), " (goal <= %g)" % GOAL_FLOOR_GAP_MS,
                  statistics.median(ratios), min(ratios), max(ratios), within, size))
    print("  (floor gap: check - validate - the slowest printed time, median of the rounds; "
          "kdig's median for one server: %.2f ms)" % statistics.median(kdig[lines[0]]))


def in_lab_network():
    """Run this benchmark again inside a private network namespace of its own
    (``lab.dotlab.PrivateNetwork``: only loopback, where the lab's hosts are local), and
    exit with its status; return at once when already there. Every process it times
    inherits the namespace: no packet leaves this machine."""
    if os.environ.get(IN_LAB_NETWORK):
        return
    network = PrivateNetwork.create()
    try:
        result = subprocess.run(network.command([sys.executable] + sys.argv),
                                env=dict(os.environ, **{IN_LAB_NETWORK: "1"}))
    finally:
        network.stop()
    sys.exit(result.returncode)


def main():
    in_lab_network()
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21,
                        help="interleaved rounds (1: a smoke run that only proves it works)")
    parser.add_argument("--scale-rounds", type=int, default=None,
                        help="rounds of the figures at 1, 10 and 100 servers (default 11; "
                        "1 with --rounds 1)")
    parser.add_argument("--scale-only", action="store_true",
                        help="only the figures at 1, 10 and 100 servers")
    args = parser.parse_args()
    rounds = args.rounds
    scale_rounds = args.scale_rounds or (1 if rounds == 1 else 11)

    with tempfile.TemporaryDirectory(prefix="edns-bench-") as scratch:
        scratch = Path(scratch)
        env = installed_env(dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep +
                                 os.environ.get("PYTHONPATH", "")), scratch / "pycache")
        bare_env = dict(env, PYTHONPATH=os.pathsep.join(
            [str(REPO)] + site.getsitepackages() + [os.environ.get("PYTHONPATH", "")]))
        pki = DotPki.create(scratch / "pki")
        cert, key = pki.files("server")
        # DoT's own port, free in this private network: the kickstarts are then valid for
        # every installer line (before NetworkManager 1.54 dnsconfd never sees a port).
        upstream = start_dnsdist_upstream(scratch / "dnsdist", cert, key, ADDRESSES,
                                          tls_port=DOT_PORT)
        try:
            def kdig_for(line):
                address, port = re.match(r"dns\+tls://([\d.]+)(?::(\d+))?#", line).groups()
                return ["kdig", "@%s" % address, "-p", port or str(DOT_PORT),
                        "+tls-ca=%s" % pki.ca_path,
                        "+tls-hostname=%s" % TLS_NAME, TLS_NAME, "A"]
            scale_figures(scale_rounds, scratch, env, pki, upstream, kdig_for)
            if args.scale_only:
                return
            one, ten = scratch / "one.ks", scratch / "ten.ks"
            one.write_text(edns_kickstart(pki.ca.pem, servers=[upstream.server_line()],
                                          commands=""))
            ten.write_text(edns_kickstart(pki.ca.pem, servers=[
                upstream.server_line(a) for a in ADDRESSES[:SERVERS]], commands=""))
            kdig = ["kdig", "@%s" % upstream.address, "-p", str(upstream.tls_port),
                    "+tls-ca=%s" % pki.ca_path, "+tls-hostname=%s" % TLS_NAME, TLS_NAME, "A"]
            check = [sys.executable, "-m", "org_edns_addon.cli", "check"]
            commands = {
                "kdig +tls": kdig,
                "check, 1 server": check + [str(one)],
                "check, %d servers" % SERVERS: check + [str(ten)],
                "check, no site hooks": [sys.executable, "-S"] + check[1:] + [str(one)],
                "probe only": [sys.executable, "-c", PROBE_ONLY, upstream.server_line(),
                               str(pki.ca_path)],
                "python3 -c pass": [sys.executable, "-c", "pass"],
                "python3 -S -c pass": [sys.executable, "-S", "-c", "pass"],
            }
            answered = {"kdig +tls": lambda r: r.returncode == 0 and ANSWER_ADDRESS in r.stdout}
            times = run_rounds(commands, rounds, env, answered,
                               envs={"check, no site hooks": bare_env})
            phases = {}
            kdig_ms = []
            for _ in range(rounds):
                result = subprocess.run([sys.executable, "-c", PHASES, str(one)], env=env,
                                        capture_output=True, text=True, check=True)
                for line in result.stdout.splitlines():
                    name, value = line.split("\t")
                    phases.setdefault(name, []).append(float(value))
                kdig_ms.append(kdig_query_ms(subprocess.run(
                    kdig, capture_output=True, text=True, check=True).stdout))
        finally:
            upstream.stop()

    print_table(times, "%d paired, interleaved rounds against dnsdist (answers at once)"
                % rounds)
    kdig_median = median_ms(times["kdig +tls"])
    print("ratios (median of the per-round ratios; CPU is less disturbed by other load):")
    ten = "check, %d servers" % SERVERS
    for name, baseline, goal in (
            ("check, 1 server", "kdig +tls", GOAL_VERSUS_KDIG),
            ("check, no site hooks", "kdig +tls", None), ("probe only", "kdig +tls", None),
            ("python3 -c pass", "kdig +tls", None), ("python3 -S -c pass", "kdig +tls", None),
            (ten, "check, 1 server", GOAL_TEN_VERSUS_ONE)):
        print("  %-20s / %-15s wall %6.2fx, CPU %6.2fx%s"
              % (name, baseline, paired_ratio(times, name, baseline),
                 paired_ratio(times, name, baseline, which=1),
                 " (goal <= %gx)" % goal if goal else ""))
    print("  check, 1 server - python3 -c pass: %.1f ms (= %.2fx kdig +tls)"
          % (median_ms(times["check, 1 server"]) - median_ms(times["python3 -c pass"]),
             (median_ms(times["check, 1 server"]) - median_ms(times["python3 -c pass"]))
             / kdig_median))
    print("where one check's time goes, in-process (medians of %d runs):" % rounds)
    for name, values in phases.items():
        print("  %-40s %7.2f ms" % (name, statistics.median(values)))
    print("  %-40s %7.2f ms" % ("kdig's own printed query time", statistics.median(kdig_ms)))


if __name__ == "__main__":
    main()
