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

"""The proof in rhinstaller/kickstart-tests' format (data/kickstart-tests/) validates.

Substituted as kickstart-tests does before a run: ``@KSTEST_*@`` values from
the environment, ``@KSINCLUDE@ FILE`` by the file's text, and ``%ksappend``
fragments by pykickstart's ``preprocessKickstart`` run in a folder of fragments
(scripts/apply-ksappend.py). kickstart-tests' own shared fragments are its lab's
business; empty stand-ins take their place here. The CA fragment is a fresh CA.
"""

import os
import re
import subprocess
from pathlib import Path

import pytest
from pykickstart.parser import preprocessKickstart

from tests.conftest import REPO, run_cli

TESTS_DIR = REPO / "data" / "kickstart-tests"
KICKSTARTS = sorted(path.name for path in TESTS_DIR.glob("*.ks.in"))
KSTEST_VALUES = {
    "KSTEST_EDNS_DOT_SERVER": "192.0.2.53",
    "KSTEST_EDNS_DOT_NAME": "dot.corp.example",
    "KSTEST_EDNS_ROUTED_SERVER": "[2001:db8::60]:8853",
    "KSTEST_EDNS_ROUTED_NAME": "dot.lab.example",
    "KSTEST_EDNS_ROUTED_DOMAIN": "lab.example",
    "KSTEST_EDNS_TEST_NAME": "www.corp.example",
    "KSTEST_EDNS_ROUTED_TEST_NAME": "www.lab.example",
}
_KSAPPEND = re.compile(r"^%ksappend\s+(\S+)", re.MULTILINE)


def substituted(name, tmp_path, ca_pem):
    """The kickstart NAME as kickstart-tests runs it; returns its path."""
    text = (TESTS_DIR / name).read_text()
    for key, value in KSTEST_VALUES.items():
        text = text.replace("@%s@" % key, value)
    text = text.replace("@KSINCLUDE@ post-nochroot-lib-network.sh",
                        "copy_pre_stage_result() { :; }")
    fragments = tmp_path / "fragments"
    for fragment in _KSAPPEND.findall(text):
        path = fragments / fragment
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ca_pem if fragment == "data/edns-dot-ca.pem" else "")
    source = tmp_path / name
    source.write_text(text)
    cwd = os.getcwd()
    os.chdir(fragments)
    try:
        flat = preprocessKickstart(str(source))
    finally:
        os.chdir(cwd)
    out = tmp_path / name.replace(".ks.in", ".ks")
    out.write_text(Path(flat).read_text())
    os.unlink(flat)
    return out


@pytest.mark.parametrize("name", KICKSTARTS)
def test_the_kickstart_tests_kickstart_validates(name, tmp_path, test_ca):
    ks = substituted(name, tmp_path, test_ca.pem)
    text = ks.read_text()

    result = run_cli("validate", ks)

    assert re.findall(r"@[^\s@]+@", text) == []   # what run_one_ks.sh refuses to run
    assert "%ksappend" not in text and test_ca.pem.strip() in text
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.endswith(": 0 errors, 0 warnings\n"), result.stdout


@pytest.mark.parametrize("name", KICKSTARTS)
def test_kernel_args_carry_what_boot_args_prints(name, tmp_path, test_ca):
    ks = substituted(name, tmp_path, test_ca.pem)
    functions = tmp_path / "functions.sh"
    functions.write_text("DEFAULT_BOOTOPTS='inst.debug'\nget_timeout() { echo 60; }\n")
    script = TESTS_DIR / name.replace(".ks.in", ".sh")
    env = dict(os.environ, KSTESTDIR=str(tmp_path),
               KSTEST_EDNS_UPDATES="http://192.0.2.1/updates.img", **KSTEST_VALUES)

    printed = subprocess.run(["bash", "-c", '. "$0"; kernel_args', str(script)],
                             capture_output=True, text=True, env=env, timeout=60)
    boot_args = run_cli("boot-args", ks)

    assert printed.returncode == 0, printed.stderr
    assert boot_args.returncode == 0, boot_args.stderr
    assert printed.stdout.split() == (["inst.debug"] + boot_args.stdout.split()
                                      + ["inst.updates=http://192.0.2.1/updates.img"])
    assert "KICKSTART_NAME=%s\n" % name[:-len(".ks.in")] in script.read_text()
