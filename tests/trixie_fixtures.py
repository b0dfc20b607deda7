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

"""The trixie tree as a pytest fixture: built (once, cached) or skipped with the reason."""

import pytest

from lab.vmlab import trixie_tree


@pytest.fixture(scope="session")
def trixie():
    """The path of the trixie tree (lab/vmlab/trixie_tree.py); built on first use."""
    try:
        return trixie_tree.ensure_tree()
    except trixie_tree.TreeUnavailable as error:
        pytest.skip("no trixie tree (NetworkManager 1.52): %s" % error)
