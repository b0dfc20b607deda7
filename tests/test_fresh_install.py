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

"""`pip install .` into a fresh venv of this Python gives every command, `tui` included.

It installs from the package registry (marker `pypi`), so what the newest releases
allowed by setup.py's minimums do on this row's Python is what is tested.
"""

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO

PROMPT = "Please make a selection from the above"

# In a parallel run (make test: --dist loadgroup) these tests stay on one worker: they
# share one venv (about 10 s to make).
pytestmark = pytest.mark.xdist_group("fresh_venv")


def run(argv, cwd):
    """ARGV in CWD with no PYTHONPATH: only what the venv holds is found."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(list(map(str, argv)), cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    """A venv of this Python with `pip install SOURCE` of a copy of this tree."""
    base = tmp_path_factory.mktemp("fresh")
    source = base / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".matrix", "__pycache__", "*.egg-info", "build", "out", ".pytest_cache",
        ".hypothesis", "*.img"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    installed = run([venv / "bin" / "python", "-m", "pip", "install", "--quiet",
                     "--disable-pip-version-check", source], cwd=base)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return venv


@pytest.mark.pypi
def test_pip_check_finds_every_requirement_met(fresh_venv, tmp_path):
    result = run([fresh_venv / "bin" / "python", "-m", "pip", "check"], cwd=tmp_path)
    assert result.returncode == 0, result.stdout


@pytest.mark.pypi
def test_validate_and_updates_img_work_from_the_fresh_install(fresh_venv, tmp_path):
    example = REPO / "data" / "examples" / "corp-dot.ks"
    validated = run([fresh_venv / "bin" / "edns-addon", "validate", example], cwd=tmp_path)
    assert (validated.returncode, validated.stdout) == (
        0, "%s: 0 errors, 0 warnings\n" % example), validated.stderr
    image = run([fresh_venv / "bin" / "edns-addon", "updates-img", "-o", "u.img"], cwd=tmp_path)
    assert image.returncode == 0, image.stderr
    assert "Traceback" not in image.stderr


@pytest.mark.pypi
def test_tui_from_the_fresh_install_starts_and_writes_a_kickstart(fresh_venv, terminal,
                                                                  tmp_path):
    out = tmp_path / "edns.ks"
    terminal.start_command(["env", "-u", "PYTHONPATH", "-C", str(tmp_path),
                            str(fresh_venv / "bin" / "edns-addon"), "tui", "-o", str(out)])
    assert "Encrypted DNS (DNS over TLS)" in terminal.wait_for(PROMPT)
    terminal.type("1")
    terminal.wait_for(PROMPT)
    terminal.type("1")
    terminal.wait_for("Server (empty line: back):")
    terminal.type("dns+tls://192.0.2.53#dot.example")
    terminal.wait_for("Domains (empty line: every name):")
    terminal.type("")
    terminal.wait_for(PROMPT)
    terminal.type("c")
    terminal.wait_for(PROMPT)
    terminal.type("c")
    assert terminal.exit_status() == 0
    assert out.read_text() == ("%addon org_edns_addon --resolve-mode=exclusive "
                               "--backend=dnsconfd\ndns+tls://192.0.2.53#dot.example\n%end\n")
