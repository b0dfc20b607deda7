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
import ast
import os
import re
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


# The libraries a row of HACKING.md's table may name (the others are the standard library).
LIBRARIES = {"pykickstart", "cryptography", "dns", "idna", "dasbus", "simpleline", "gi",
             "pyanaconda"}
PACKAGE = "org_edns_addon"


def _table_rows():
    """HACKING.md's "Where each concern lives" rows: (modules, may import), each a set of
    the backticked words of its column."""
    with open(os.path.join(REPO, "HACKING.md"), encoding="utf-8") as stream:
        text = stream.read()
    table = text.split("## Where each concern lives", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("concern", "---"):
            continue
        rows.append((set(re.findall(r"`([^`]+)`", cells[1])),
                     set(re.findall(r"`([^`]+)`", cells[2]))))
    return rows


def _imports(path):
    """What the module at PATH imports, lazily too: our modules (dotted, below the package;
    ``__version__`` for the package's own) and the libraries of LIBRARIES."""
    with open(path, encoding="utf-8") as stream:
        tree = ast.parse(stream.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            if node.module == PACKAGE:
                names = [PACKAGE + "." + alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith(PACKAGE + "."):
                found.add(name[len(PACKAGE) + 1:])
            elif name.split(".")[0] in LIBRARIES:
                found.add(name.split(".")[0])
    return found


def _covers(allowed, name):
    return name == allowed or name.startswith(allowed + ".")


def test_hackings_table_names_every_module_with_exactly_what_it_imports():
    rows = _table_rows()
    package = os.path.join(REPO, PACKAGE)
    imports_of_row = [set() for _ in rows]
    for directory, subdirs, files in os.walk(package):
        subdirs[:] = [d for d in subdirs if d != "__pycache__"]
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.relpath(os.path.join(directory, name), package)
            # The row that names the file itself, else the one of its nearest folder.
            matches = [(len(entry), index) for index, (modules, _) in enumerate(rows)
                       for entry in modules
                       if entry == path or (entry.endswith("/") and path.startswith(entry))]
            assert matches, "HACKING.md's table has no row for %s" % path
            imports_of_row[max(matches)[1]] |= _imports(os.path.join(package, path))
    drift = []
    for (modules, allowed), imported in zip(rows, imports_of_row):
        unlisted = sorted(name for name in imported
                          if not any(_covers(entry, name) for entry in allowed))
        unused = sorted(entry for entry in allowed - {"nothing"}
                        if not any(_covers(entry, name) for name in imported))
        if unlisted or unused:
            drift.append("%s: imports %s unlisted; lists %s unimported"
                         % (", ".join(sorted(modules)), unlisted, unused))
    assert drift == []
