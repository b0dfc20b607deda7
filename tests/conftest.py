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

"""Shared fixtures: kickstart files on disk, fresh certificates, the CLI as a process."""

import atexit
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from pykickstart.errors import KickstartParseError
from pykickstart.parser import KickstartParser
from pykickstart.version import makeVersion

from lab import certs
from lab.kickstarts import certificate_type_supported

REPO = Path(__file__).resolve().parent.parent

# Every fixture module, registered once for the whole suite: a test names the fixtures it
# needs as arguments and imports only plain helpers. A module named tests/*_fixtures.py
# belongs here, after the ones it imports (pytest rewrites the asserts of a module it
# imports itself, not of one imported before).
pytest_plugins = [
    "tests.ks_fixtures",
    "tests.staging_fixtures",
    "tests.anaconda_fixtures",
    "tests.dbus_fixtures",
    "tests.dot_fixtures",
    "tests.peer_fixtures",
    "tests.debian_tree_fixtures",
    "tests.tui_fixtures",
    "tests.gui_fixtures",
    "tests.i18n_fixtures",
]

def pytest_configure(config):
    """The signal tests send SIGINT and SIGHUP to the processes they start, which inherit
    an ignored signal as ignored (and edns-addon then honours it, as under nohup): a suite
    started in the background (`&`, nohup) would test nothing. Their default again."""
    del config
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)


# Where a run writes the kickstarts it validated clean (each as NNNN.ks; those with an
# %include are left out, their included files are not kept), so that the anaconda tier's
# composed test (tests/test_installer_sequence.py, which reads KICKSTART_CORPUS_ENV) can
# take them on each Anaconda line without running the whole suite there again.
KICKSTART_CORPUS_OUT_ENV = "EDNS_KICKSTART_CORPUS_OUT"
KICKSTART_CORPUS_ENV = "EDNS_KICKSTART_CORPUS"


def pytest_sessionfinish(session):
    del session
    directory = os.environ.get(KICKSTART_CORPUS_OUT_ENV)
    if not directory:
        return
    from tests.ks_fixtures import VALIDATED_KICKSTARTS  # a plugin: imported after it is
    os.makedirs(directory, exist_ok=True)
    texts = dict.fromkeys(parsed.text for parsed in VALIDATED_KICKSTARTS
                          if parsed.text is not None and not parsed.includes)
    for number, text in enumerate(texts):
        with open(os.path.join(directory, "%04d.ks" % number), "w", encoding="utf-8") as stream:
            stream.write(text)


def pytest_collection_modifyitems(items):
    """The agreement tests run last, when every other test has recorded its kickstarts."""
    last = [item for item in items if item.module.__name__.endswith(
        ("test_validated_kickstarts_stage", "test_installer_sequence"))]
    items[:] = [item for item in items if item not in last] + last


@pytest.fixture
def write_ks(tmp_path):
    """Write kickstart TEXT to a file and return its path (as str)."""
    counter = [0]

    def write(text, name=None):
        counter[0] += 1
        path = tmp_path / (name or "ks%d.cfg" % counter[0])
        path.write_text(text)
        return str(path)
    return write


@pytest.fixture(scope="session")
def test_ca():
    return certs.make_ca("Test DNS CA")


def _pykickstart_version():
    try:
        from importlib.metadata import version
        return version("pykickstart")
    except Exception:  # noqa: BLE001 (a checkout on PYTHONPATH has no metadata)
        return "(version unknown)"


# %certificate --type came with pykickstart 3.73 (EL10's branch: 3.52.13); EL9's 3.32.x and
# Fedora 43's 3.66 refuse it as an unknown option, so their kickstarts cannot hold anchors.
CERTIFICATE_TYPE = certificate_type_supported()


def _pykickstart_requires_dir():
    try:
        KickstartParser(makeVersion()).readKickstartFromString(
            "%certificate --filename=a.pem\nx\n%end\n")
    except KickstartParseError as error:
        return "required: --dir" in str(error)
    return False


# EL9's 3.32.x and Fedora 43's 3.66 make --dir a required option of %certificate.
PYKICKSTART_REQUIRES_DIR = _pykickstart_requires_dir()
needs_certificate_type = pytest.mark.skipif(
    not CERTIFICATE_TYPE, reason="pykickstart %s has no %%certificate --type (3.73+, EL10's "
    "3.52.13+)" % _pykickstart_version())


# The C locale without Python's coercion to UTF-8: file names and output are ASCII.
ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}


# run_cli's fork servers (tests/cli_server.py), started at their first use in each pytest
# process, one pair for each environment a run is asked in (a fixture may set DISPLAY, for
# one), up to three; EDNS_TEST_FRESH_PROCESSES=1 has every run start its own interpreter.
_CLI_SERVERS = {}
_CLI_LISTING = []


def _cli_server(environment):
    if os.environ.get("EDNS_TEST_FRESH_PROCESSES") == "1":
        return None
    from tests import cli_server
    key = frozenset(cli_server.started_alike(environment).items())
    if key not in _CLI_SERVERS and len(_CLI_SERVERS) < 3:
        if not _CLI_LISTING:
            listing = tempfile.NamedTemporaryFile("r", prefix="edns-cli-server.")
            cli_server.list_libraries(listing.name, environment)
            _CLI_LISTING.append(listing)
        _CLI_SERVERS[key] = cli_server.Client(environment, _CLI_LISTING[0].name)
        atexit.register(_CLI_SERVERS[key].stop)
    return _CLI_SERVERS.get(key)


def run_cli(*args, input=None, cwd=None, prefix=(), env=None, module="org_edns_addon.cli"):
    """Run `edns-addon ARGS` as a real process (`python3 -m MODULE ARGS`, after the command
    words PREFIX, if any), with ENV added to the environment; return the CompletedProcess.
    A run of the command alone (no PREFIX, this MODULE) is forked from a server that has
    the libraries loaded, one for each of up to three environments (tests/cli_server.py
    says what such a run does not have); any other starts its own interpreter."""
    environment = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep +
                       os.environ.get("PYTHONPATH", ""))
    environment.update(env or {})
    server = _cli_server(environment) if module == "org_edns_addon.cli" and not prefix \
        else None
    if server:
        result = server.run(module, [str(arg) for arg in args], environment, input=input,
                            cwd=cwd, timeout=120)
    else:
        result = subprocess.run([*prefix, sys.executable, "-m", module, *map(str, args)],
                                input=input, capture_output=True, text=True,
                                env=environment, cwd=cwd, timeout=120)
    if module == "org_edns_addon.cli" and args and args[0] == "validate" and \
            result.returncode == 0 and not prefix:
        from tests.ks_fixtures import parse   # (registered by pytest_plugins first)
        for path in args[1:]:
            if not str(path).startswith("-"):
                parse(os.path.join(cwd or "", str(path)))   # kept for the agreement test
    return result


class Measured:
    """One finished `edns-addon` process: exit code, output, CPU seconds, peak memory."""

    def __init__(self, returncode, stdout, stderr, cpu, peak_kib):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr
        self.cpu, self.peak_kib = cpu, peak_kib


# A process's peak memory starts at the peak of the memory it was exec'd from (Linux
# fs/exec.c, exec_mmap: setmax_mm_hiwater_rss(&tsk->signal->maxrss, old_mm)), and a child
# that subprocess spawns from pytest (vfork, posix_spawn) is exec'd from pytest's own: its
# ru_maxrss would be pytest's peak at least. So a small launcher, exec'd from pytest, spawns
# the command and writes the figures of that child alone (its peak starts at the
# launcher's, a few MiB) to the file it is given.
_LAUNCHER = """
import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as figures:
    figures.write("%d %r %d" % (os.waitstatus_to_exitcode(status),
                                usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
"""


def run_measured(*args, timeout=120):
    """Run `edns-addon ARGS`; its exit code, output, and the kernel's figures for it alone
    (CPU seconds, peak resident memory in KiB)."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as figures:
        process = subprocess.Popen([sys.executable, "-c", _LAUNCHER, figures.name,
                                    sys.executable, "-m", "org_edns_addon.cli",
                                    *map(str, args)], stdout=out, stderr=err, env=env,
                                   start_new_session=True)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)   # the launcher and the command
            process.wait()
            pytest.fail("edns-addon %s ran longer than %d s" % (" ".join(map(str, args)),
                                                                timeout))
        assert process.returncode == 0, "the launcher failed: %s" % err.read().decode()
        returncode, cpu, peak = figures.read().split()
        out.seek(0)
        err.seek(0)
        return Measured(int(returncode), out.read().decode(), err.read().decode(),
                        float(cpu), int(peak))


def assert_sentence(result, code, *fragments):
    """RESULT (a CompletedProcess) ended with CODE, saying each of FRAGMENTS on standard
    error, and without a traceback."""
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def sticky_directory_with_a_planted_link(tmp_path):
    """A world-writable sticky directory (as /tmp) holding "out", another user's symlink
    to a file of ours: (the directory, the link, the file)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    planted = shared / "out"
    planted.symlink_to(victim)
    if os.geteuid() == 0:
        os.lchown(planted, 1234, 1234)   # another user's link
    return shared, planted, victim
