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

"""The parts of the documentation generated from the code: every page holds them as its
source states them now, and writing them touches nothing else."""

import re

import pytest

from org_edns_addon import docparts
from org_edns_addon.ks.edns import option_parser
from tests.conftest import REPO


@pytest.mark.parametrize("page", docparts.PAGES)
def test_each_page_holds_its_parts_as_their_sources_state_them(page):
    text = (REPO / page).read_text(encoding="utf-8")
    assert docparts.parts_in(text), page
    assert docparts.in_step(text) == text, "%s: run %s %s" % (
        page, docparts.WRITE_COMMAND, " ".join(docparts.PAGES))


def test_every_part_is_on_a_page():
    held = [name for page in docparts.PAGES
            for name in docparts.parts_in((REPO / page).read_text(encoding="utf-8"))]
    assert sorted(held) == sorted(docparts.PARTS)


def test_the_kickstart_reference_states_each_option_of_the_parser():
    rows = docparts.generated("the kickstart options").splitlines()
    for action in option_parser()._actions:
        if not action.option_strings or action.help is None:
            continue
        row = next(row for row in rows if row.startswith("| `%s=" % action.option_strings[0]))
        # The whole help text, as written in ks/edns.py, on the option's row.
        words = re.sub(r"``([^`]+)``", r"`\1`", action.help.replace("%%", "%"))
        words = " ".join(words.split(".. versionadded::")[0].split())
        assert words in row, (action.option_strings, row)


def test_write_replaces_only_the_parts(tmp_path):
    page = tmp_path / "page.md"
    name = "the kickstart options"
    page.write_text("before\n%s\nold\n%s\nafter\n" % (docparts.begin(name),
                                                       docparts.end(name)))
    assert docparts.main(["--write", str(page)]) == 0
    assert page.read_text() == "before\n" + docparts.generated(name) + "after\n"
