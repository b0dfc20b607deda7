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

"""Paired, interleaved timing of whole processes, for the benchmarks.

Every round runs each command once, in an order that rotates from round to
round, so that a machine whose speed drifts (other load, frequency scaling)
slows all commands alike; a ratio is taken round by round (A's run over B's
run in the same round) and its median printed. Wall time is a monotonic clock
around the child; CPU time is the kernel's account of the reaped child (user +
system). Nothing here judges a figure.
"""

import os
import resource
import statistics
import subprocess
import time


class CommandFailed(Exception):
    """A timed command did not succeed: the benchmark measures nothing for it."""


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(argv, env=None, accept=None):
    """(wall s, CPU s) of one run of ARGV. ACCEPT(CompletedProcess) says whether its output
    is right (default: exit 0); CommandFailed otherwise."""
    cpu_before = _children_cpu()
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                            text=True)
    wall = time.perf_counter() - started
    cpu = _children_cpu() - cpu_before
    if not (accept(result) if accept else result.returncode == 0):
        raise CommandFailed("%s gave exit %d:\n%s%s" % (" ".join(argv), result.returncode,
                                                        result.stdout[-2000:],
                                                        result.stderr[-2000:]))
    return wall, cpu


# Compiled once per run, before anything is timed, into one cache every benchmark's
# processes share (``as_installed``): our package and the libraries both sides import.
_COMPILED_PACKAGES = ("org_edns_addon", "pykickstart", "requests", "urllib3", "idna",
                      "charset_normalizer", "certifi", "cryptography", "dns", "dasbus",
                      "simpleline")


def as_installed():
    """Make this benchmark's environment (os.environ, which every command it times
    inherits) run Python as an installed package does, and leave nothing behind:

    - the bytecode cache on (this machine sets PYTHONDONTWRITEBYTECODE), in a scratch
      PYTHONPYCACHEPREFIX shared by both sides of every ratio, filled before the first
      timed run (``compileall`` of ``_COMPILED_PACKAGES``): a package installed by RPM or
      pip has its .pyc files, ours and pykickstart's alike;
    - TMPDIR a scratch directory: ksvalidator leaves a tmp*-ks.cfg copy of every
      kickstart it reads there (``lab.kickstarts.ksvalidator_env``).
    Both are removed when the benchmark ends (the cache is kept when EDNS_BENCH_PYCACHE
    names it). Idempotent."""
    if os.environ.get("EDNS_BENCH_AS_INSTALLED"):
        return
    import atexit
    import compileall
    import importlib.util
    import shutil
    import sys
    import tempfile

    scratch = tempfile.mkdtemp(prefix="edns-bench-")
    atexit.register(shutil.rmtree, scratch, True)
    # EDNS_BENCH_PYCACHE: a cache kept from run to run (the tests' smoke runs share one).
    cache = os.environ.get("EDNS_BENCH_PYCACHE") or os.path.join(scratch, "pycache")
    temporary = os.path.join(scratch, "tmp")
    os.mkdir(temporary)
    os.environ.update(installed_env({}, cache), TMPDIR=temporary, EDNS_BENCH_AS_INSTALLED="1")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = cache
    for name in _COMPILED_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            for location in spec.submodule_search_locations:
                compileall.compile_dir(location, quiet=1, workers=1)
    tempfile.tempdir = None   # tempfile reads TMPDIR again


def installed_env(env, cache_directory):
    """ENV with Python's bytecode cache on, in CACHE_DIRECTORY: as an installed package runs
    (its .pyc files are made at install), also where PYTHONDONTWRITEBYTECODE is set."""
    env = dict(env, PYTHONPYCACHEPREFIX=str(cache_directory))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_rounds(commands, rounds, env=None, accept=None, envs=None):
    """{name: [(wall, CPU), ...]} of COMMANDS ({name: argv}) run ROUNDS times, interleaved,
    after one uncounted warm-up run of each (caches filled); ACCEPT and ENVS ({name: ...})
    give a command its own output check or environment."""
    names = list(commands)
    times = {name: [] for name in names}
    for name in names:
        run_once(commands[name], (envs or {}).get(name, env), (accept or {}).get(name))
    for number in range(rounds):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(run_once(commands[name], (envs or {}).get(name, env),
                                        (accept or {}).get(name)))
    return times


def median_ms(samples, which=0):
    """The median of SAMPLES' wall (WHICH=0) or CPU (1) times, in milliseconds."""
    return statistics.median(sample[which] for sample in samples) * 1000


def paired_ratio(times, numerator, denominator, which=0):
    """The median over rounds of NUMERATOR's time over DENOMINATOR's in the same round."""
    return statistics.median(a[which] / b[which]
                             for a, b in zip(times[numerator], times[denominator]))


def print_table(times, title):
    print("%s (load average %.1f):" % (title, os.getloadavg()[0]))
    width = max(len(name) for name in times)
    print("  %-*s %10s %10s %10s" % (width, "median per process", "wall", "CPU", "wall min"))
    for name, samples in times.items():
        print("  %-*s %7.1f ms %7.1f ms %7.1f ms" % (width, name, median_ms(samples),
                                                    median_ms(samples, 1),
                                                    min(s[0] for s in samples) * 1000))
