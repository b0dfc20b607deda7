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

"""The arguments of `edns-addon` (cli/parser.py): `--help` and each command's --help print
their text (argparse %-formats help texts, so a '%' of a section name once ended
`tui --help` in a traceback), and an argument that is not what it must be is a usage
error naming what it must be."""

import os
import subprocess
import sys

import pytest

from lab.dotlab import CLOSED_LAB_HOST, lab_host
from org_edns_addon import constants as c
from org_edns_addon.cli import build_parser
from tests.conftest import ASCII_LOCALE, REPO, assert_sentence, run_cli

SERVER = "dns+tls://192.0.2.53#dot.example\n"


def command_names():
    (commands,) = [action for action in build_parser()._actions
                   if action.dest == "command"]
    return sorted(commands.choices)


@pytest.mark.parametrize("command", [[]] + [[name] for name in command_names()],
                         ids=lambda command: " ".join(command) or "edns-addon")
def test_help_prints_the_section_names_with_one_percent_sign(command):
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", *command, "--help"],
                            capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    assert result.stdout.startswith("usage: edns-addon"), result.stdout
    assert "%%" not in result.stdout, result.stdout
    if command in ([], ["tui"]):
        assert "%certificate and %addon org_edns_addon" in " ".join(result.stdout.split())


@pytest.mark.root
def test_an_idna_query_name_typed_in_an_ascii_locale_is_understood(write_ks, lab_network):
    server = "dns+tls://%s#dot.example" % lab_host(CLOSED_LAB_HOST)
    kickstart = write_ks("%%addon org_edns_addon\n%s\n%%end\n" % server)
    result = run_cli("check", kickstart, "--timeout", "2", "--name", "bücher.example",
                     env=ASCII_LOCALE, prefix=lab_network.command([]))
    assert result.returncode == 1, result.stderr      # nothing listens: the check ran
    assert "%s: connection refused" % server in result.stdout


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf", "300.5", "1e9", "soon"])
def test_a_check_timeout_out_of_range_is_a_usage_error_naming_the_range(write_ks, timeout):
    kickstart = write_ks("%addon org_edns_addon\n" + SERVER + "%end\n")
    result = run_cli("check", kickstart, "--timeout", timeout)
    assert_sentence(result, 2, "argument --timeout: %r is not a number of seconds above 0 and "
                    "at most %g" % (timeout, c.CHECK_TIMEOUT_MAX_SECONDS))
