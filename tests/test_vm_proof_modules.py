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

"""The VM proof's rooms (issue 35 item 3): the runner (proof.py), the case table
(cases.py), the lab and the shared checks (checks.py), and the sabotage run, which runs
the runner case by case; imports go one way only."""

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VMLAB = REPO / "lab" / "vmlab"
# Each module and the proof's modules it may import.
MAY_IMPORT = {
    "checks": set(),
    "cases": {"checks"},
    "proof": {"checks", "cases"},
    "sabotage": {"checks"},
}


def imported_vmlab_modules(name):
    tree = ast.parse((VMLAB / ("%s.py" % name)).read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "lab.vmlab":
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lab.vmlab."):
            found.add(node.module.rsplit(".", 1)[1])
        elif isinstance(node, ast.Import):
            found.update(alias.name.rsplit(".", 1)[1] for alias in node.names
                         if alias.name.startswith("lab.vmlab."))
    return found & set(MAY_IMPORT)


def test_the_proofs_modules_import_one_way():
    assert {name: imported_vmlab_modules(name) for name in MAY_IMPORT} == MAY_IMPORT


def test_the_runner_lists_the_case_tables_cases():
    listed = subprocess.run([sys.executable, "-m", "lab.vmlab.proof", "--list"], cwd=REPO,
                            capture_output=True, text=True, timeout=120, check=True)
    from lab.vmlab import cases

    assert listed.stdout.split() == cases.case_names()
    assert len(set(cases.case_names())) == len(cases.case_names())


def test_every_sabotage_still_finds_its_text_once():
    """A sabotage whose edit no longer matches is out of date (the run fails on it): the
    code it breaks moved. Checked here, before anything boots."""
    from lab.vmlab import sabotage

    stale = ["%s: %s holds its text %d times" % (each.name, edit.path,
                                                  (REPO / edit.path).read_text().count(edit.old))
             for each in sabotage.SABOTAGES for edit in each.edits
             if (REPO / edit.path).read_text().count(edit.old) != 1]
    assert stale == []


def documented(heading):
    """The names in the first column of the table under docs/proofs.md's HEADING."""
    text = (REPO / "docs" / "proofs.md").read_text()
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            names.update(part.strip().strip("`") for part in first.split(","))
    return names


def test_docs_list_every_case_and_every_sabotage():
    """docs/proofs.md says what each case proves and what each sabotage breaks (issue 33):
    a case or a sabotage added without its row is caught here."""
    from lab.vmlab import cases, sabotage

    assert set(cases.case_names()) - documented("### The cases\n") == set()
    assert {each.name for each in sabotage.SABOTAGES} - documented(
        "### The sabotage run") == set()
