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

import pytest

from lab.kickstarts import KICKSTART_TESTS_DIR, kickstart_tests_kickstart
from lab.vmlab.site import KSTEST_VALUES
from tests.conftest import run_cli

TESTS_DIR = KICKSTART_TESTS_DIR
KICKSTARTS = sorted(path.name for path in TESTS_DIR.glob("*.ks.in"))


def substituted(name, tmp_path, ca_pem):
    """The kickstart NAME as kickstart-tests runs it; returns its path."""
    return kickstart_tests_kickstart(name, tmp_path, ca_pem, KSTEST_VALUES)


@pytest.mark.parametrize("name", KICKSTARTS)
def test_the_kickstart_tests_kickstart_validates(name, tmp_path, test_ca):
    ks = substituted(name, tmp_path, test_ca.pem)
    text = ks.read_text()

    result = run_cli("validate", ks)

    assert re.findall(r"@[^\s@]+@", text) == []   # what run_one_ks.sh refuses to run
    assert "%ksappend" not in text and test_ca.pem.strip() in text
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.endswith(": 0 errors, 0 warnings\n"), result.stdout


def harness_shell(name, tmp_path, function, **env):
    """FUNCTION of the test's .sh as the harness calls it (its functions.sh sourced first:
    here a stand-in with the harness's DEFAULT_BOOTOPTS), with ENV; the CompletedProcess."""
    functions = tmp_path / "functions.sh"
    functions.write_text('DEFAULT_BOOTOPTS="debug=1 inst.debug rd.shell=0 '
                         'rd.emergency=poweroff"\nprepare_updates() { echo "${UPDATES}"; }\n'
                         'get_timeout() { echo 60; }\n')
    script = TESTS_DIR / name.replace(".ks.in", ".sh")
    return subprocess.run(["bash", "-c", '. "$0"; %s' % function, str(script)],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, KSTESTDIR=str(tmp_path), **KSTEST_VALUES, **env))


@pytest.mark.parametrize("name", KICKSTARTS)
def test_kernel_args_carry_what_boot_args_prints(name, tmp_path, test_ca):
    ks = substituted(name, tmp_path, test_ca.pem)
    printed = harness_shell(name, tmp_path, "kernel_args")
    boot_args = run_cli("boot-args", ks)

    assert printed.returncode == 0, printed.stderr
    assert boot_args.returncode == 0, boot_args.stderr
    assert printed.stdout.split() == ("debug=1 inst.debug rd.shell=0 rd.emergency=poweroff"
                                      .split() + boot_args.stdout.split())
    script = TESTS_DIR / name.replace(".ks.in", ".sh")
    assert "KICKSTART_NAME=%s\n" % name[:-len(".ks.in")] in script.read_text()


@pytest.mark.parametrize("name", KICKSTARTS)
@pytest.mark.parametrize("updates, edns_updates, expected", [
    ("http://192.0.2.1/u.img", "http://192.0.2.1/e.img", "http://192.0.2.1/u.img"),
    ("", "http://192.0.2.1/e.img", "http://192.0.2.1/e.img"),
    ("http://192.0.2.1/u.img", "", "http://192.0.2.1/u.img"),
])
def test_the_harness_adds_one_inst_updates_at_most(name, tmp_path, updates, edns_updates,
                                                   expected):
    # run_one_test.py: kernel_args, then " inst.updates=" + what prepare_updates prints.
    env = {"UPDATES": updates, "KSTEST_EDNS_UPDATES": edns_updates}
    args = harness_shell(name, tmp_path, "kernel_args", **env).stdout
    updates_image = harness_shell(name, tmp_path, "prepare_updates", **env).stdout.strip()
    line = args.strip() + (" inst.updates=%s" % updates_image if updates_image else "")
    assert re.findall(r"inst\.updates=(\S+)", line) == [expected]


@pytest.mark.parametrize("name", KICKSTARTS)
def test_nothing_of_the_addon_is_checked_in_pre(name, tmp_path, test_ca):
    # %pre runs before the modules get the kickstart (anaconda.py, run_pre_scripts).
    text = substituted(name, tmp_path, test_ca.pem).read_text()
    assert not re.search(r"^%pre", text, re.MULTILINE) and "@KSINCLUDE@" not in text


@pytest.mark.parametrize("name", KICKSTARTS)
def test_the_initramfs_check_fails_when_no_image_matches(name, tmp_path, test_ca):
    # The installed system's %post, with a /boot of no initramfs: it must say so.
    text = substituted(name, tmp_path, test_ca.pem).read_text()
    posts = re.findall(r"^%post\n(.*?)^%end", text, re.MULTILINE | re.DOTALL)
    check = next(body for body in posts if "lsinitrd" in body)
    loop = check[check.index("images=0"):check.index("if ! getent")]
    script = loop.replace("/boot/", str(tmp_path / "boot") + "/").replace(
        "/root/RESULT", str(tmp_path / "RESULT"))
    (tmp_path / "boot").mkdir()
    subprocess.run(["bash", "-c", script], check=True, timeout=60)
    assert (tmp_path / "RESULT").read_text() == "*** no initramfs in /boot to check\n"
