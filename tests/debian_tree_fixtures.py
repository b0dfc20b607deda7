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

"""The Debian trees as pytest fixtures: built (once, cached) or skipped with the reason.

``trixie`` is the path of the Debian 13 tree; ``stack_tree`` runs a test once on each
tree (trixie: NetworkManager 1.52, forky: 1.58), as a ``StackTree``.
"""

from dataclasses import dataclass
from pathlib import Path

import pytest

from lab.vmlab import debian_tree, networkmanager


@dataclass(frozen=True)
class StackTree:
    """One tree: its suite, its path, and its NetworkManager's version."""
    suite: str
    path: Path
    networkmanager: tuple

    def has(self, since):
        """Whether its NetworkManager is SINCE (a version, lab/vmlab/networkmanager.py's
        facts) or later."""
        return self.networkmanager >= since

    def __str__(self):
        return "%s (NetworkManager %s)" % (self.suite, ".".join(map(str, self.networkmanager)))


def built_tree(suite):
    """The path of SUITE's tree, built on first use; the test is skipped, saying why, where
    it cannot be built (CI builds both first, so none skips there)."""
    try:
        return debian_tree.ensure_tree(suite)
    except debian_tree.TreeUnavailable as error:
        pytest.skip("no %s tree: %s" % (suite, error))


@pytest.fixture(scope="session")
def trixie():
    """The path of the trixie tree (lab/vmlab/debian_tree.py); built on first use."""
    return built_tree("trixie")


@pytest.fixture(scope="session", params=debian_tree.SUITES)
def stack_tree(request):
    """Each tree in turn, as a StackTree; built on first use."""
    path = built_tree(request.param)
    return StackTree(request.param, path, networkmanager.version(path))
