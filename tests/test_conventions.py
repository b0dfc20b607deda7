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

"""The repository's conventions: a licence header on every source file, and a clean lint."""

import importlib.util
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPDX_LINE = "# SPDX-License-Identifier: GPL-2.0-or-later"
# The files (exact paths) and directories whose tracked *.py and *.sh files must carry
# SPDX_LINE near their top: all of them.
HEADER_CHECKED = ("org_edns_addon/", "setup.py", "data/", "tests/", "benchmarks/", "scripts/",
                  "lab/")
# Where the line may be: after a shebang and the copyright notice above it.
HEADER_LINES = 15


def _tracked_sources():
    listed = subprocess.run(["git", "-C", REPO, "ls-files", "-z", "--", "*.py", "*.sh"],
                            check=True, stdout=subprocess.PIPE).stdout.decode()
    return [path for path in listed.split("\0")
            if path and (path in HEADER_CHECKED or
                         path.startswith(tuple(d for d in HEADER_CHECKED if d.endswith("/"))))]


def test_every_checked_source_file_carries_the_licence_header():
    sources = _tracked_sources()
    assert {"org_edns_addon/cli/__init__.py", "setup.py", "tests/conftest.py", "lab/vmlab/proof.py",
            "scripts/setup.sh"} <= set(sources)
    missing = []
    for path in sources:
        with open(os.path.join(REPO, path), encoding="utf-8") as source:
            head = [source.readline().rstrip("\n") for _line in range(HEADER_LINES)]
        if SPDX_LINE not in head:
            missing.append(path)
    assert missing == [], "no %r in the first %d lines" % (SPDX_LINE, HEADER_LINES)


def test_the_licence_is_in_the_repository():
    with open(os.path.join(REPO, "COPYING"), encoding="utf-8") as licence:
        text = licence.read()
    assert "GNU GENERAL PUBLIC LICENSE" in text and "Version 2, June 1991" in text


def test_ruff_finds_nothing():
    if importlib.util.find_spec("ruff") is None:
        print("ruff is not installed (make setup installs it from requirements-test.txt)")
        pytest.skip("ruff is not installed; make setup installs it")
    # The same command as `make lint`, with pyproject.toml's settings.
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache",
                           "org_edns_addon", "setup.py", "tests", "benchmarks", "scripts", "lab"],
                          cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert lint.returncode == 0, lint.stdout.decode(errors="replace")
