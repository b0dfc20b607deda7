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

"""A run of `edns-addon` as a process (cli/process.py, and cli/__init__.py's first
lines): Ctrl-C, SIGTERM and SIGHUP at any moment, from the first line of start-up to the
report after the work, and a standard output that is cut off, full or closed. Each test
runs the real process and asserts its exit code, its words and what is on disk after."""

import os
import re
import signal
import stat
import subprocess
import sys
import time

import pytest

from lab.kickstarts import certificate_section, edns_kickstart, many_certificates_kickstart
from lab import certs
from tests.conftest import ASCII_LOCALE, REPO, assert_sentence, run_cli
from tests.staging_fixtures import tree_digest

SERVER = "dns+tls://192.0.2.53#dot.example\n"


# --- interrupted ------------------------------------------------------------------------------

def interrupt_when_writing_starts(argv, watched, signum, env=None):
    """Start ARGV, send SIGNUM once a file appears below WATCHED; return (code, stderr)."""
    environment = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    process = subprocess.Popen([sys.executable, "-m", "org_edns_addon.cli", *map(str, argv)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=environment)
    try:
        deadline = time.monotonic() + 60
        while not any(files for _, _, files in os.walk(watched)):
            assert process.poll() is None, "it ended before writing: %s" % (
                process.stderr.read().decode())
            assert time.monotonic() < deadline
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=60)
        return process.returncode, stderr.decode()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_apply_interrupted_while_writing_leaves_the_root_as_it_was(write_ks, tmp_path,
                                                                      signum):
    # An apply that writes 600 certificate files in 600 new directories.
    kickstart = write_ks(many_certificates_kickstart([certs.make_ca("Many").pem], 600,
                                                     directories=600))
    root = tmp_path / "root"
    root.mkdir()
    code, stderr = interrupt_when_writing_starts(["apply", kickstart, "--root", root], root,
                                                 signum)
    assert code == 130, stderr
    assert stderr.startswith("edns-addon apply: interrupted; nothing was applied: "), stderr
    assert stderr.count("\n") == 1 and "could not" not in stderr
    assert tree_digest(root) == {}      # no file, no temporary file, no directory made


def test_an_overlay_interrupted_at_any_moment_leaves_no_partial_image(write_ks, test_ca,
                                                                      tmp_path):
    """SIGTERM at moments spread over a whole run, 25 ms apart until a run has ended by
    itself (however long a loaded machine makes it): the image is complete or absent,
    and nothing else is ever left in its directory (nor in $TMPDIR)."""
    kickstart = write_ks(edns_kickstart(test_ca.pem))
    output, temporary = tmp_path / "out", tmp_path / "tmp"
    output.mkdir()
    temporary.mkdir()
    reference = tmp_path / "reference.img"
    assert run_cli("overlay", kickstart, "-o", reference).returncode == 0
    environment = dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(temporary))
    outcomes = set()
    for delay in range(0, 20000, 25):
        image = output / "o.img"
        process = subprocess.Popen([sys.executable, "-m", "org_edns_addon.cli", "overlay",
                                    kickstart, "-o", image], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, env=environment)
        time.sleep(delay / 1000)
        ended_by_itself = process.poll() is not None
        process.send_signal(signal.SIGTERM)   # (nothing, once the run has ended)
        stderr = process.communicate(timeout=60)[1].decode()
        assert "Traceback" not in stderr
        assert process.returncode in (0, 130, -signal.SIGTERM), stderr
        if process.returncode == 130:   # the command is named once its arguments are read
            assert stderr in ("edns-addon overlay: interrupted\n", "edns-addon: interrupted\n")
        if image.exists():
            assert image.read_bytes() == reference.read_bytes()
            assert stat.S_IMODE(image.stat().st_mode) == 0o600
            image.unlink()
        outcomes.add(process.returncode)
        assert list(output.iterdir()) == [] and list(temporary.iterdir()) == []
        if ended_by_itself:
            break
    assert 130 in outcomes and ended_by_itself, outcomes


# --- standard output ---------------------------------------------------------------------------

def test_output_cut_off_by_the_reader_is_a_failure_not_a_traceback(tmp_path):
    kickstart = tmp_path / "bad.ks"
    kickstart.write_text("".join("bogus%d\n" % n for n in range(3000)))
    process = subprocess.Popen([sys.executable, "-m", "org_edns_addon.cli", "validate",
                                str(kickstart)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=dict(os.environ,
                                                                PYTHONPATH=str(REPO)))
    try:
        process.stdout.readline()    # like `| head -1`
        process.stdout.close()
        stderr = process.stderr.read().decode()
        assert process.wait(timeout=60) == 1
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert stderr == ""


@pytest.mark.parametrize("command", ["validate", "boot-args", "convert", "apply", "overlay"])
def test_a_standard_output_that_cannot_be_written_is_a_sentence(write_ks, test_ca, tmp_path,
                                                                command):
    kickstart = write_ks(edns_kickstart(test_ca.pem, spelling="%edns"
                                        if command == "convert" else "%addon org_edns_addon"))
    (tmp_path / "root").mkdir()
    extra = {"apply": ["--root", tmp_path / "root"], "overlay": ["-o", tmp_path / "o.img"]}
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", command,
                                 kickstart, *map(str, extra.get(command, []))], stdout=full,
                                stderr=subprocess.PIPE, text=True, timeout=120,
                                env=dict(os.environ, PYTHONPATH=str(REPO)))
    sentence = "edns-addon %s: cannot write to standard output: No space left on device; " \
        "what it would have printed is lost\n" % command
    assert_sentence(result, 1, sentence)
    assert result.stderr.endswith(sentence) and result.stderr.count(sentence) == 1


# What pip writes for the console script `edns-addon` (setup.py's entry point).
CONSOLE_SCRIPT = """import re
import sys
from org_edns_addon.cli import main
if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
    sys.exit(main())
"""


@pytest.mark.parametrize("form, signum", [("module", signal.SIGINT), ("module", signal.SIGTERM),
                                          ("module", signal.SIGHUP), ("script", signal.SIGINT)])
def test_a_signal_at_any_moment_of_start_up_ends_the_run_cleanly(write_ks, tmp_path, form,
                                                                 signum):
    """The signal sent 0, 8, 16, ... ms after the start, until a run has ended by itself:
    every run ends with 130 and the sentence, or finishes its work, or ends before our
    code's first line runs: SIGTERM and SIGHUP then kill it silently; SIGINT is Python's
    own until then (its start-up and site files may report it), never through our code."""
    kickstart = write_ks("%addon org_edns_addon\n" + SERVER + "%end\n")
    script = tmp_path / "edns-addon"
    script.write_text(CONSOLE_SCRIPT)
    program = ["-m", "org_edns_addon.cli"] if form == "module" else [str(script)]
    outcomes = {}
    for delay in range(0, 5000, 8):
        process = subprocess.Popen([sys.executable, *program, "validate", kickstart],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=dict(os.environ, PYTHONPATH=str(REPO)))
        time.sleep(delay / 1000)
        ended_by_itself = process.poll() is not None
        process.send_signal(signum)   # (nothing, once the run has ended)
        stdout, stderr = (stream.decode() for stream in process.communicate(timeout=60))
        assert not OUR_FRAME.search(stderr), stderr   # no frame of our code, ever
        if process.returncode == 0:
            assert stdout == "%s: 0 errors, 0 warnings\n" % kickstart
            if signum != signal.SIGINT:   # (a SIGINT in site's .pth files: its report)
                assert stderr == ""
            if ended_by_itself:
                break
            # The signal came after the exit code was decided (held back, never delivered),
            # or Python's start-up swallowed it: later delays still reach our handler.
            outcomes[0] = outcomes.get(0, 0) + 1
            continue
        if process.returncode == 130:
            assert stderr in ("edns-addon validate: interrupted\n", "edns-addon: interrupted\n")
        elif signum == signal.SIGINT:  # ended by Python before our first line: no output
            assert stdout == "" and "interrupted" not in stderr, (process.returncode, stderr)
        else:
            assert (process.returncode, stdout, stderr) == (-signum, "", "")
        outcomes[process.returncode] = outcomes.get(process.returncode, 0) + 1
    assert outcomes.get(130), outcomes


# Python's start-up hooks (on PYTHONPATH first), each a Ctrl-C in one moment of start-up:
# in the command line's first lines, where it is about to hold the signals back; or before any line
# of ours, in the first import of a module of the package, whichever it is.
INTERRUPTING_SITECUSTOMIZE = {"cli's first lines": """import signal
def interrupting(*args):
    raise KeyboardInterrupt
signal.pthread_sigmask = interrupting
""", "before our first line": """import sys
class Interrupting:
    def find_spec(self, name, path=None, target=None):
        if name.startswith("org_edns_addon."):
            raise KeyboardInterrupt
sys.meta_path.insert(0, Interrupting())
"""}


def interrupted_start(tmp_path, program, where):
    """Run PROGRAM (after python3) with a Ctrl-C WHERE (INTERRUPTING_SITECUSTOMIZE)."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(INTERRUPTING_SITECUSTOMIZE[where])
    script = tmp_path / "edns-addon"
    script.write_text(CONSOLE_SCRIPT)
    argv = [str(script) if word == "SCRIPT" else word for word in program]
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH="%s%s%s" % (hooks, os.pathsep, REPO)))


# A traceback's frame of this package's code (not any line that names one of its files: an
# importer interrupted before our first line may print such a path in its own message).
# The package's own __init__.py is not a program's code: Python imports it before the
# command line's first line can take a Ctrl-C, and it holds a docstring and a version and
# nothing else. A SIGINT then is Python's start-up's, as in site's files: under load it was
# seen raised as that module's frame began ("__init__.py", line 0, before any line of it).
OUR_FRAME = re.compile(r'^\s*File "[^"]*/org_edns_addon/(?!__init__\.py")[^"]*", line \d+',
                       re.MULTILINE)


@pytest.mark.parametrize("program", [["-m", "org_edns_addon.cli", "--version"],
                                     ["SCRIPT", "--version"]], ids=["module", "script"])
def test_a_ctrl_c_in_the_command_lines_first_lines_ends_the_run_with_the_sentence(
        tmp_path, program):
    result = interrupted_start(tmp_path, program, "cli's first lines")
    assert (result.returncode, result.stdout, result.stderr) == (
        130, "", "edns-addon: interrupted\n")


@pytest.mark.parametrize("program", [
    ["-m", "org_edns_addon.cli", "--version"], ["SCRIPT", "--version"],
    # Anaconda starts the module so; the stand-alone service starts the same way.
    ["-m", "org_edns_addon.service"], ["-m", "org_edns_addon.dbus.standalone"]],
    ids=["cli module", "cli script", "anaconda module", "stand-alone service"])
def test_a_ctrl_c_before_our_first_line_is_pythons_own_never_the_command_lines(tmp_path,
                                                                              program):
    """The package runs nothing when imported: only the command line handles start-up
    signals, from its own first line; before that, and in every other program of the
    package, a Ctrl-C is Python's KeyboardInterrupt, without a frame of ours."""
    result = interrupted_start(tmp_path, program, "before our first line")
    assert result.returncode == -signal.SIGINT, result.stderr
    assert result.stderr.endswith("\nKeyboardInterrupt\n"), result.stderr
    assert "interrupted" not in result.stderr and not OUR_FRAME.search(result.stderr), \
        result.stderr


def test_a_closed_standard_output_is_a_usage_error(write_ks):
    kickstart = write_ks("%edns\n" + SERVER + "%end\n")
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", "convert", kickstart],
                            preexec_fn=lambda: os.close(1), stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=60)
    assert_sentence(result, 2, "edns-addon convert: error: standard output is closed; "
                    "redirect it to a file or to /dev/null instead")


# --- the kickstart's certificates and %include ------------------------------------------------


# --- locales ----------------------------------------------------------------------------------

def test_a_non_ascii_file_name_in_an_ascii_locale_is_written_as_utf_8(write_ks, test_ca,
                                                                      tmp_path):
    # The name is the kickstart's (UTF-8 text), read by the installed system in a UTF-8
    # locale: the same bytes whatever the locale apply runs in.
    kickstart = write_ks(certificate_section(test_ca.pem, "ca-é.pem") +
                         "%addon org_edns_addon\n" + SERVER + "%end\n")
    root = tmp_path / "root"
    root.mkdir()
    result = run_cli("apply", kickstart, "--root", root, env=ASCII_LOCALE)
    assert_sentence(result, 0)
    assert "wrote /etc/pki/dns/ca-\\xe9.pem\n" in result.stdout   # escaped on an ASCII terminal
    assert os.listdir(os.fsencode(root / "etc/pki/dns")) == ["ca-é.pem".encode("utf-8")]
    assert (root / "etc/pki/dns/ca-é.pem").read_text() == test_ca.pem


# --- missing tools, wording -------------------------------------------------------------------


# --- tui: what can be said before the screens start ---------------------------------------


# --- make install ---------------------------------------------------------------------------


# --- the stand-alone D-Bus service -------------------------------------------------------------


