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

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def edns_addon(*args):
    """The argv of `edns-addon ARGS` from this checkout."""
    return [sys.executable, "-m", "org_edns_addon.cli", *map(str, args)]


def timed(argv):
    """(wall seconds, CPU seconds) of one run of ARGV, which must succeed."""
    cpu, start = _children_cpu(), time.perf_counter()
    completed = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=dict(os.environ, PYTHONPATH=str(REPO)))
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if completed.returncode != 0:
        sys.exit("benchmark: %s failed (exit %d): %s" % (" ".join(argv), completed.returncode,
                                                        completed.stderr.decode()[-500:]))
    return elapsed, cpu


def paired(command, baseline, runs, before_each=None):
    """Run COMMAND() and BASELINE() (each returns an argv) in turn RUNS times after one
    warm-up pair; BEFORE_EACH() runs untimed before every command run. Returns
    {"command": [(wall, cpu)], "baseline": [...], "ratios": [(wall, cpu)]}."""
    results = {"command": [], "baseline": [], "ratios": []}
    for run in range(runs + 1):
        if before_each:
            before_each()
        ours = timed(command())
        theirs = timed(baseline())
        if run:   # the first pair warms the page cache and the .pyc files
            results["command"].append(ours)
            results["baseline"].append(theirs)
            results["ratios"].append((ours[0] / theirs[0], ours[1] / theirs[1]))
    return results


def print_paired(label, baseline_label, results, goal):
    """Print the medians of RESULTS (from ``paired``) and the median pair ratios."""
    def median(rows, index):
        return statistics.median(row[index] for row in rows)

    runs = len(results["ratios"])
    for name, rows in ((label, results["command"]), (baseline_label, results["baseline"])):
        print("  %-40s median %7.3f s wall, %7.3f s CPU over %d runs"
              % (name + ":", median(rows, 0), median(rows, 1), runs))
    print("  ratio, median of the pairs: %.2f wall, %.2f CPU (goal <= %.1f); wall pairs "
          "from %.2f to %.2f" % (median(results["ratios"], 0), median(results["ratios"], 1),
                                 goal, min(r[0] for r in results["ratios"]),
                                 max(r[0] for r in results["ratios"])))


def certificates_kickstart(path, count, ca_names=20, anchors=0.1):
    """Write a kickstart with COUNT fresh CA certificates to PATH: a tenth anchors, the
    rest in /etc/pki/dns/, the first CA_NAMES of those the DoT CAs (--ca)."""
    sys.path.insert(0, str(REPO))
    from lab.kickstarts import COMMANDS, anchor_section, certificate_section, edns_section
    from lab import certs

    sections = []
    names = []
    for index in range(count):
        pem = certs.make_ca("Benchmark CA %d" % index).pem
        if index < count * anchors:
            sections.append(anchor_section(pem, "anchor-%04d.pem" % index))
        else:
            name = "dns-ca-%04d.pem" % index
            if len(names) < ca_names:
                names.append(name)
            sections.append(certificate_section(pem, name))
    Path(path).write_text(COMMANDS + "".join(sections) + edns_section(
        "dns+tls://192.0.2.53#dot.corp.example", "dns+tls://[2001:db8::53]:853#dot.corp.example",
        options="--ca=" + ",".join(names)))
