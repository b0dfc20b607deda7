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

"""Paired whole-process timing for the benchmarks that compare a command with `validate`.

A command and its baseline run in turn (A B A B ...) and the ratio is taken
pair by pair, so a drift in the machine's speed during the run hits both
alike; medians are printed, never judged.
"""

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.paired import CommandFailed, as_installed, run_once


def edns_addon(*args):
    """The argv of `edns-addon ARGS` from this checkout."""
    return [sys.executable, "-m", "org_edns_addon.cli", *map(str, args)]


def timed(argv, accept=None):
    """(wall seconds, CPU seconds) of one run of ARGV with this checkout on PYTHONPATH; it
    must succeed (and satisfy ACCEPT, as in ``paired.run_once``) or the benchmark ends."""
    try:
        return run_once(argv, env=dict(os.environ, PYTHONPATH=str(REPO)), accept=accept)
    except CommandFailed as error:
        sys.exit("benchmark: %s" % error)


def paired(command, baseline, runs, before_each=None):
    """Run COMMAND and BASELINE (each an argv, or a function that returns one per run) in
    turn RUNS times after one warm-up pair; BEFORE_EACH() runs untimed before every command
    run. Returns {"command": [(wall, cpu)], "baseline": [...], "ratios": [(wall, cpu)]}."""
    results = {"command": [], "baseline": [], "ratios": []}
    for run in range(runs + 1):
        if before_each:
            before_each()
        ours = timed(command() if callable(command) else command)
        theirs = timed(baseline() if callable(baseline) else baseline)
        if run:   # the first pair warms the page cache and the .pyc files
            results["command"].append(ours)
            results["baseline"].append(theirs)
            results["ratios"].append((ours[0] / theirs[0], ours[1] / theirs[1]))
    return results


def medians(results):
    """{"wall": (command, baseline, ratio), "CPU": (...)}: the medians of RESULTS (from
    ``paired``), the ratio being the median of the pairs' ratios."""
    return {what: tuple(statistics.median(row[index] for row in results[key])
                        for key in ("command", "baseline", "ratios"))
            for index, what in ((0, "wall"), (1, "CPU"))}


def print_paired(label, baseline_label, results, goal):
    """Print the medians of RESULTS (from ``paired``) and the median pair ratios."""
    figures = medians(results)
    runs = len(results["ratios"])
    for index, name in ((0, label), (1, baseline_label)):
        print("  %-40s median %7.3f s wall, %7.3f s CPU over %d runs"
              % (name + ":", figures["wall"][index], figures["CPU"][index], runs))
    print("  ratio, median of the pairs: %.2f wall, %.2f CPU (goal <= %.1f); wall pairs "
          "from %.2f to %.2f" % (figures["wall"][2], figures["CPU"][2], goal,
                                 min(r[0] for r in results["ratios"]),
                                 max(r[0] for r in results["ratios"])))


@contextlib.contextmanager
def certificates_benchmark(description):
    """The set-up apply.py and overlay.py share: their --certificates and --runs, and a
    scratch directory with the kickstart (``certificates_kickstart``) in it, described on
    standard output. Yields (arguments, directory, kickstart path)."""
    as_installed()
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--certificates", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="edns-bench-") as directory:
        kickstart = Path(directory, "bench.ks")
        certificates_kickstart(kickstart, args.certificates)
        print("kickstart: %d %%certificate sections, %d bytes"
              % (args.certificates, kickstart.stat().st_size))
        yield args, directory, kickstart


def certificates_kickstart(path, count):
    """Write a kickstart with COUNT fresh CA certificates to PATH: a tenth anchors, the
    rest in /etc/pki/dns/, the first 20 of those the DoT CAs (--ca)."""
    from lab.kickstarts import many_certificates_kickstart
    from lab import certs

    pems = [certs.make_ca("Benchmark CA %d" % index).pem for index in range(count)]
    Path(path).write_text(many_certificates_kickstart(
        pems, count, ca_names=20, anchors=count // 10,
        servers=("dns+tls://192.0.2.53#dot.corp.example",
                 "dns+tls://[2001:db8::53]:853#dot.corp.example")))
