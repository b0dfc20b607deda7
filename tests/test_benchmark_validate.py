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

"""`benchmarks/validate.py` runs to its end at its smallest size (no time is asserted)."""

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO

# Benchmarks run on this machine's python3 alone (make bench): not in the matrix rows.
pytestmark = pytest.mark.make_bench


def test_the_validate_benchmark_prints_a_ratio_at_its_smallest_size():
    result = subprocess.run([sys.executable, str(REPO / "benchmarks" / "validate.py"),
                             "--smallest"], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert result.returncode == 0, result.stdout + result.stderr
    rows = result.stdout.splitlines()
    assert rows[0].startswith("edns-addon validate / ksvalidator, same file, 1 interleaved")
    assert re.fullmatch(r" +10 +10 +\d+ \| +[\d.]+s +[\d.]+s +[\d.]+x \| +[\d.]+s +[\d.]+s "
                        r"+[\d.]+x", rows[2]), rows
    assert len(rows) == 3
