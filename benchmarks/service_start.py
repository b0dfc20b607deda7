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

"""Start-up cost of the addon's D-Bus service, as Anaconda starts it, against a baseline.

    PYTHONPATH=$PWD python3 benchmarks/service_start.py [--runs N] [--anaconda]

With --anaconda (pyanaconda importable: an anaconda checkout on PYTHONPATH, see
docs/testing.md) the figure that matters: the module as Anaconda's
start-module runs it (``python3 -m org_edns_addon.service``) against an empty
Anaconda module started the same way. Without it, the stand-alone template
service against an empty dasbus service. Each process starts on a private
dbus-daemon until its name is owned, alternating, N times each; prints the
median start time and resident set size (VmRSS once the name is owned) and the
ratios (goal: <= 1.5x: the installer runs from RAM and starts every module at
boot). Not a test.
"""

import argparse
import os
import statistics
import sys
import time

from benchmarks.empty_service import BASELINE_NAME
from benchmarks.paired import as_installed
from lab.bus import (client_bus, kill_pid, python_env, rss_kib, start_bus, start_service,
                     stop_service, template_service_argv, wait_for)
from org_edns_addon.dbus.identifiers import EDNS

BASELINE_MODULE_NAME = "org.fedoraproject.Anaconda.Addons.EdnsBaselineModule"


def measure(argv, bus, name, env):
    """(seconds until NAME is owned, RSS in KiB then) for one start of ARGV."""
    begin = time.monotonic()
    process = start_service(argv, bus, name, env=env)
    elapsed = time.monotonic() - begin
    try:
        return elapsed, rss_kib(process.pid)
    finally:
        stop_service(process)
        wait_for(lambda: not bus.proxy.NameHasOwner(name), what="%s to go" % name)


def main(argv=None):
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="starts of each service")
    parser.add_argument("--anaconda", action="store_true",
                        help="also time the pyanaconda module (needs pyanaconda importable)")
    args = parser.parse_args(argv)
    address, bus_pid = start_bus()
    bus = client_bus(address)
    env = python_env()
    if args.anaconda:
        # As start-module runs a module: python3 -m, on the bus DBUS_STARTER_ADDRESS names.
        module_env = dict(env, DBUS_STARTER_ADDRESS=address)
        candidates = {
            "addon module (org_edns_addon.service)": (
                [sys.executable, "-m", "org_edns_addon.service"], EDNS.service_name,
                module_env),
            "baseline (empty Anaconda module)": (
                [sys.executable, "-m", "benchmarks.empty_anaconda_module"],
                BASELINE_MODULE_NAME, module_env),
        }
    else:
        candidates = {
            "addon (org_edns_addon.dbus.standalone)": (template_service_argv(address),
                                                    EDNS.service_name, env),
            "baseline (empty dasbus service)": (
                [sys.executable, "-m", "benchmarks.empty_service", address], BASELINE_NAME,
                env),
        }
    results = {label: [] for label in candidates}
    try:
        for _ in range(args.runs):
            for label, (command, name, command_env) in candidates.items():
                results[label].append(measure(command, bus, name, command_env))
    finally:
        bus.disconnect()
        kill_pid(bus_pid)
    medians = {label: (statistics.median(t for t, _ in runs),
                       statistics.median(r for _, r in runs)) for label, runs in results.items()}
    print("service start until its D-Bus name is owned: median of %d runs, %s, Python %s"
          % (args.runs, os.uname().machine, sys.version.split()[0]))
    for label, (seconds, rss) in medians.items():
        print("  %-38s %7.1f ms  %8.1f MiB RSS" % (label, seconds * 1000, rss / 1024))
    addon, baseline = list(medians.values())[:2]
    print("  %-38s %7.2fx     %8.2fx RSS   (goal <= 1.5x)"
          % ("ratio addon / baseline", addon[0] / baseline[0], addon[1] / baseline[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
