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

"""Which certificate stands in another path's way: found in one pass over all paths."""

from hypothesis import given, strategies as st

from org_edns_addon.trust import _first_below

_PATHS = st.lists(st.lists(st.sampled_from(["a", "b", "ab", "etc", "pki"]), min_size=1,
                           max_size=4).map(lambda parts: "/" + "/".join(parts)), max_size=12)


@given(_PATHS, st.sampled_from(["/a", "/a/b", "/etc", "/ab", "/etc/pki/a", "/b/ab"]))
def test_the_first_path_below_a_directory_is_the_first_in_order(paths, directory):
    below = [path for path in paths if path.startswith(directory + "/")]
    assert _first_below(paths).get(directory) == (below[0] if below else None)
