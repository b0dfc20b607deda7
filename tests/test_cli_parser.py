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

"""`edns-addon --help` and each command's --help print their text (argparse %-formats
help texts, so a '%' of a section name once ended `tui --help` in a traceback)."""

import os
import subprocess
import sys

import pytest

from org_edns_addon.cli import build_parser

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def command_names():
    (commands,) = [action for action in build_parser()._actions
                   if action.dest == "command"]
    return sorted(commands.choices)


@pytest.mark.parametrize("command", [[]] + [[name] for name in command_names()],
                         ids=lambda command: " ".join(command) or "edns-addon")
def test_help_prints_the_section_names_with_one_percent_sign(command):
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", *command, "--help"],
                            capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, PYTHONPATH=REPO))
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    assert result.stdout.startswith("usage: edns-addon"), result.stdout
    assert "%%" not in result.stdout, result.stdout
    if command in ([], ["tui"]):
        assert "%certificate and %addon org_edns_addon" in " ".join(result.stdout.split())
