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

"""The README's main job: `make demo` (scripts/demo.sh) exits 0 and ends with the live proof
on the bundled example."""

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.staging_fixtures import require_namespaces, require_tools

pytestmark = pytest.mark.root


def test_the_demo_runs_every_step_and_ends_with_the_proof_that_resolves_and_fails_closed(
        tmp_path):
    require_namespaces("--net", "--mount")
    require_tools("lsinitrd", "unbound")
    # `edns-addon` is this tree's, run by the Python running the tests: the one on PATH is
    # whichever checkout last ran make setup (an editable install).
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    command = bin_dir / "edns-addon"
    command.write_text('#!/bin/sh\nexec "%s" -m org_edns_addon.cli "$@"\n' % sys.executable)
    command.chmod(0o755)
    env = dict(os.environ, PATH="%s:%s" % (bin_dir, os.environ["PATH"]),
               PYTHON=sys.executable, PYTHONPATH=str(REPO))
    result = subprocess.run(["bash", str(REPO / "scripts/demo.sh"), str(tmp_path / "out")],
                            capture_output=True, text=True, env=env, timeout=600, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    sections = result.stdout.split("\n== ")
    headings = [section.split("\n", 1)[0].lstrip("= ").split()[:2] for section in sections]
    # Every step ran, in the README's order, the %edns file refused before its conversion.
    assert headings == [
        ["edns-addon", "validate"], ["edns-addon", "validate"], ["edns-addon", "convert"],
        ["edns-addon", "apply"], ["edns-addon", "apply"], ["the", "installed"],
        ["edns-addon", "overlay"], ["lsinitrd", "%s/out/overlay.img" % tmp_path],
        ["edns-addon", "boot-args"], ["edns-addon", "updates-img"], ["The", "proof:"]]
    edns_line = (REPO / "data/examples/corp-dot-edns.ks").read_text().splitlines().index(
        "%edns --resolve-mode=exclusive --backend=dnsconfd --ca=corp-dns-ca.pem") + 1
    assert "data/examples/corp-dot-edns.ks:%d: error: stock Anaconda rejects a top-level " \
        "%%edns" % edns_line in sections[1]
    assert "%s/out/corp-dot-converted.ks: 0 errors, 0 warnings" % tmp_path in sections[2]
    # The last step is the proof: DoT on the wire for the example, closed for a foreign CA.
    assert sections[-1].startswith("The proof: scripts/prove.py")
    assert "all TCP port 853, the names in none (encrypted)" in sections[-1]
    assert "www.corp.example A -> SERVFAIL" in sections[-1]   # the unrelated CA
