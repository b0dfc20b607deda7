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

"""Each benchmark of `make bench`, run once at its smallest size (validate.py: in
test_benchmark_validate.py): a broken benchmark fails here, not in the middle of `make bench`.
Nothing about a time is asserted; only that the benchmark ran to its end and printed its
figures with their baseline."""

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.staging_fixtures import require_namespaces

BENCHMARK_SECONDS = 300

# Benchmarks run on this machine's python3 alone (make bench): not in the matrix rows.
pytestmark = pytest.mark.make_bench


@pytest.fixture(scope="module", autouse=True)
def compiled_once(tmp_path_factory):
    """One bytecode cache for every benchmark run here (benchmarks/paired.py as_installed
    compiles it once), as `make bench` shares one."""
    cache = tmp_path_factory.mktemp("bench-pycache")
    os.environ["EDNS_BENCH_PYCACHE"] = str(cache)
    yield
    del os.environ["EDNS_BENCH_PYCACHE"]


def run_benchmark(script, *options):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, str(REPO / "benchmarks" / script), *options],
                            capture_output=True, text=True, env=env, cwd=str(REPO),
                            timeout=BENCHMARK_SECONDS)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.root
def test_the_check_benchmark_prints_check_against_kdig():
    require_namespaces("--net")
    printed = run_benchmark("check.py", "--rounds", "1")
    for row in ("kdig +tls", "check, 1 server", "check, 10 servers", "check, no site hooks",
                "probe only", "python3 -S -c pass", "the check (network, TLS, DNS)",
                "printed: TCP and TLS handshakes", "kdig's own printed query time"):
        assert "  %s " % row in printed, printed
    # The figures at 1, 10 and 100 servers: a row each, against validate and kdig.
    assert len(re.findall(r"^ +(1|10|100) +[\d.]+ ms +[\d.]+ ms .* ms \(goal <= 30\) \| "
                          r"median [\d.]+x", printed, re.MULTILINE)) == 3, printed
    assert re.search(r"  check, 1 server +/ kdig \+tls +wall +[\d.]+x, CPU +[\d.]+x "
                     r"\(goal <= 5x\)", printed), printed


@pytest.mark.root
def test_the_dot_tax_benchmark_prints_dot_against_plaintext():
    require_namespaces("--net", "--mount")
    printed = run_benchmark("dot_tax.py", "--names", "20", "--rounds", "1")
    assert "DoT/plain" in printed
    for row in ("throughput", "latency p50", "latency p99", "cold first query",
                "forwarder CPU per query", "TCP connections opened"):
        assert "  %s " % row in printed, printed


def test_the_text_ui_start_up_benchmark_runs_to_its_end():
    printed = run_benchmark("tui_startup.py", "1")
    assert "edns-addon tui corp-dot.ks -o NEW" in printed
    assert printed.count("x baseline; goal: first screen within 0.5 s: ") == 2, printed


def test_the_apply_benchmark_prints_both_runs_against_validate():
    printed = run_benchmark("apply.py", "--certificates", "2", "--runs", "1")
    assert "apply into an empty root (writes " in printed, printed
    assert "apply where every file is already up to date (writes nothing):" in printed, printed
    assert len(re.findall(r"  ratio, median of the pairs: [\d.]+ wall, [\d.]+ CPU "
                          r"\(goal <= 1\.5\)", printed)) == 2, printed


def test_the_overlay_benchmark_prints_overlay_against_validate():
    printed = run_benchmark("overlay.py", "--certificates", "2", "--runs", "1")
    assert re.search(r"  edns-addon overlay: +median +[\d.]+ s wall", printed), printed
    assert re.search(r"  ratio, median of the pairs: [\d.]+ wall, [\d.]+ CPU "
                     r"\(goal <= 1\.5\)", printed), printed
    assert re.search(r"  image: [1-9]\d* bytes", printed), printed


def test_the_service_start_benchmark_prints_the_service_against_an_empty_one():
    printed = run_benchmark("service_start.py", "--runs", "1")
    assert re.search(r"  addon \(org_edns_addon\.dbus\.standalone\) +[\d.]+ ms +[\d.]+ MiB RSS",
                     printed), printed
    assert re.search(r"  ratio addon / baseline +[\d.]+x +[\d.]+x RSS +\(goal <= 1\.5x\)",
                     printed), printed


@pytest.mark.anaconda
def test_the_install_tasks_benchmark_prints_our_tasks_against_the_security_module():
    printed = run_benchmark("install_tasks.py", "--certificates", "1", "--runs", "1")
    if printed.startswith("skipped: "):
        pytest.skip(printed.strip())
    for side in ("ours beside the Security module", "ours alone (every %certificate too)"):
        assert re.search(r"ratio %s / Security module's import: \d+\.\d\dx \(goal <= 1\.5x\)"
                         % re.escape(side), printed), printed


@pytest.mark.root
def test_the_initramfs_benchmark_prints_what_the_overlay_and_the_drop_in_add(trixie):
    """The example with --backend=unbound, one dracut pair: its drop-in names Unbound (the
    lab's 70unbound), so each of the three images differs and every figure is printed.
    zstd's fastest level: dracut's own (-15) was two thirds of this test's CPU."""
    require_namespaces("--mount", "--pid")
    printed = run_benchmark("initramfs.py", "--kickstart", "example-unbound", "--runs", "1",
                            "--compress", "zstd -1 -q -T0")
    assert re.search(r"  installer: the overlay adds \d+ bytes .* the certificates are \d+ "
                     r"bytes", printed), printed
    assert re.search(r"    A without the drop-in \d+ bytes, B without it \+ unbound\S* by "
                     r"hand \d+, C with it \d+ \(compressed by dracut --compress=zstd -1 -q -T0\)",
                     printed), printed
    assert re.search(r"    the files it names: .*/etc/pki/dns/extracted/pem/tls-ca-bundle\.pem "
                     r"\d+", printed), printed
    assert re.search(r"    goal: C - A <= the files it names \+ the resolver it names \(\d+ "
                     r"bytes uncompressed\): \d+, (met|not met)", printed), printed
    assert re.search(r"    dracut: with the drop-in median [\d.]+ s, without [\d.]+ s over 1 "
                     r"pairs; ratio", printed), printed
