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

"""The README's main job: `make demo` ends with the live proof on the bundled example."""

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.staging_fixtures import require_namespaces

pytestmark = pytest.mark.root


def test_the_proof_on_the_bundled_example_resolves_over_dot_and_fails_closed(tmp_path):
    require_namespaces("--net", "--mount")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, str(REPO / "scripts/prove.py"), str(tmp_path)],
                            capture_output=True, text=True, env=env, timeout=300, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "all TCP port 853, the names in none (encrypted)" in result.stdout
    assert "www.corp.example A -> SERVFAIL" in result.stdout   # the unrelated CA
