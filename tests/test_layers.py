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

"""What may import what (HACKING.md, "The one rule"), read from the sources' own imports:
only the Anaconda glue imports pyanaconda, the graphical page's modules import GTK but
not pyanaconda (so CI tests them with a real GTK), and what both user interfaces share
imports neither GTK nor simpleline (so a text-only installer image loads it)."""

import ast

from tests.conftest import REPO

PACKAGE = REPO / "org_edns_addon"
ANACONDA_GLUE = ("service/", "tui/spokes/", "gui/spokes/", "categories/")


def imported(path):
    """The top-level names of the modules PATH imports, and the dotted ones in full."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update("%s.%s" % (node.module, alias.name) for alias in node.names)
    return names


def sources():
    return {str(path.relative_to(PACKAGE)): imported(path) for path in PACKAGE.rglob("*.py")}


def importing(prefix):
    return sorted(name for name, modules in sources().items()
                  if any(module == prefix or module.startswith(prefix + ".")
                         for module in modules))


def test_only_the_anaconda_glue_imports_pyanaconda():
    found = importing("pyanaconda")
    assert found and all(name.startswith(ANACONDA_GLUE) for name in found), found
    assert "gui/spokes/edns.py" in found and "tui/spokes/edns.py" in found


def test_gtk_is_imported_by_the_graphical_ui_alone():
    found = importing("gi.repository.Gtk") + importing("gi.repository.Gdk")
    assert found and all(name.startswith("gui/") for name in found), found


def test_what_both_user_interfaces_share_needs_neither_gtk_nor_simpleline():
    shared = [name for name in importing("simpleline") + importing("gi.repository.Gtk")
              if name.startswith("ui/")]
    assert shared == []
