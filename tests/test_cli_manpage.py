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

"""edns-addon(1): generated from the command's parser, installed by `make install`, read by
man(1) as any installed page is."""

import argparse
import os
import subprocess

import pytest

from org_edns_addon.cli.manpage import manual_page
from org_edns_addon.cli.parser import build_parser
from tests.conftest import REPO


def options_of(parser):
    """Every option string and positional name of PARSER (help left out)."""
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices
            continue
        yield from action.option_strings or [action.metavar or action.dest]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    destdir = tmp_path_factory.mktemp("destdir")
    result = subprocess.run(["make", "-s", "install", "DESTDIR=%s" % destdir], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return destdir


def man(destdir, *args):
    """man(1) with MANPATH at DESTDIR's pages alone, plain text, one long line a paragraph
    (a word is never split at a line's end)."""
    env = dict(os.environ, MANPATH=str(destdir / "usr/share/man"), MANWIDTH="1000",
               MAN_KEEP_FORMATTING="", LC_ALL="C.UTF-8")
    return subprocess.run(["man", "-P", "cat", *args], env=env, capture_output=True,
                          text=True, timeout=60)


def test_man_edns_addon_reads_the_installed_page(installed):
    result = man(installed, "edns-addon")
    assert result.returncode == 0, result.stderr
    text = result.stdout.replace("\u2010", "-").replace("\u2212", "-")
    assert text.startswith("EDNS-ADDON(1)")
    parser = build_parser()
    commands = next(action for action in parser._actions
                    if isinstance(action, argparse._SubParsersAction))
    # Every command, with its help and every option of its own, and the exit statuses.
    for name, command in commands.choices.items():
        assert "\n   %s\n" % name in text, name
        for option in options_of(command):
            assert option in text.split("\n   %s\n" % name, 1)[1], (name, option)
    for choice in commands._choices_actions:
        assert " ".join(choice.help.replace("%%", "%").split()) in " ".join(text.split())
    assert "EXIT STATUS" in text and "130 interrupted" in text


def test_the_page_is_clean_roff_and_the_same_bytes_twice(installed):
    page = installed / "usr/share/man/man1/edns-addon.1"
    assert page.read_text() == manual_page()
    # groff's own warnings (rpmlint's manual-page-warning runs the same check).
    result = subprocess.run(["groff", "-man", "-ww", "-z", str(page)], capture_output=True,
                            text=True, timeout=60)
    assert (result.returncode, result.stderr) == (0, "")
    assert man(installed, "-l", str(page)).stdout == man(installed, "edns-addon").stdout
