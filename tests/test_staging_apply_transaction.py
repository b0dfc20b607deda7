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

"""Applying under attack: signals, a full disk during the roll-back, a killed run, a second
apply, hostile roots, deep and long names, a small descriptor limit.

Every test runs `edns-addon apply` as a real process and judges the root it leaves
and what it says: the root is entirely as before or entirely new, and every claim of
the message is true.
"""

import json
import os
import random
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

from lab.kickstarts import (anchor_section, certificate_section, edns_kickstart,
                           many_certificates_kickstart)
from lab import certs
from org_edns_addon import constants as c
from org_edns_addon.fileio import TEMPORARY_NAME
from org_edns_addon.staging import apply as staging_apply
from tests.conftest import REPO, run_cli
from tests.staging_fixtures import (LiveHost, RecordingRunner, in_mount_namespace,
                                    require_namespaces, require_tools, staging_input,
                                    tree_digest)

SERVER = "dns+tls://192.0.2.53#dot.corp.example"


def certificates_kickstart(write_ks, count, common_name, server=SERVER, directories=1,
                           name=None):
    """A kickstart placing COUNT copies of one fresh CA as c0000.pem... in DIRECTORIES
    directories below /etc/pki/dns."""
    return write_ks(many_certificates_kickstart([certs.make_ca(common_name).pem], count,
                                                directories=directories, servers=[server]),
                    name)


def environment(**extra):
    return dict(os.environ, PYTHONPATH=str(REPO), **extra)


def start_apply(kickstart, root, **popen):
    return subprocess.Popen([sys.executable, "-m", "org_edns_addon.cli", "apply", kickstart,
                             "--root", root], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=environment(), **popen)


def temporaries(root):
    return [os.path.join(d, f) for d, _, files in os.walk(root) for f in files
            if TEMPORARY_NAME.match(f)]


def _temporaries_in(directory):
    try:
        return [name for name in os.listdir(directory) if TEMPORARY_NAME.match(name)]
    except FileNotFoundError:
        return []


def began_writing(process, root, directory=None, deadline=60):
    """Wait until PROCESS has a temporary file below ROOT, or in DIRECTORY if given (its
    write phase has begun): True; False if it ended first, which a loaded machine can
    make happen (the process ran its whole write phase while this one waited for a CPU).
    Polled every 0.5 ms, so that the wait takes no CPU from the process it waits for."""
    end = time.monotonic() + deadline
    while not (_temporaries_in(directory) if directory else temporaries(root)):
        if process.poll() is not None:
            return False
        assert time.monotonic() < end, "no temporary file appeared"
        time.sleep(0.0005)
    return True


def wait_for_temporaries(process, root, directory=None, deadline=60):
    """Until PROCESS has begun writing (began_writing); it must not have ended first."""
    assert began_writing(process, root, directory, deadline), \
        "it ended before writing: %s" % process.communicate()[1].decode()


# --- two signals ------------------------------------------------------------------------

def test_two_signals_milliseconds_apart_leave_the_root_entirely_old_or_entirely_new(
        write_ks, tmp_path):
    """A first signal at a random moment of the write phase, a second one 1-5 ms later
    (during the roll-back it started), 16 times: the root is always all old or all new,
    and the message says which. A run that finished before its write phase was seen is
    not one of the 16 (at most 16 such)."""
    old_ks = certificates_kickstart(write_ks, 150, "Old CA")
    new_ks = certificates_kickstart(write_ks, 150, "New CA", "192.0.2.99#dot.new.example")
    pristine, expected_new = tmp_path / "pristine", tmp_path / "new"
    for root, kickstart in ((pristine, old_ks), (expected_new, old_ks), (expected_new, new_ks)):
        root.mkdir(exist_ok=True)
        assert run_cli("apply", kickstart, "--root", root).returncode == 0
    old, new = tree_digest(pristine), tree_digest(expected_new)
    assert old != new
    randomly = random.Random(1402)
    seen, unseen = [], 0
    while len(seen) < 16:
        root = tmp_path / ("root%d" % (len(seen) + unseen))
        shutil.copytree(pristine, root, symlinks=True)
        process = start_apply(new_ks, root)
        if not began_writing(process, root):
            stderr = process.communicate()[1].decode()
            assert process.returncode == 0 and tree_digest(root) == new, stderr
            unseen += 1
            assert unseen <= 16, "16 runs finished before their write phase was seen"
            shutil.rmtree(root)
            continue
        first, second = randomly.sample([signal.SIGINT, signal.SIGTERM, signal.SIGHUP], 2)
        time.sleep(randomly.uniform(0, 0.02))
        process.send_signal(first)
        time.sleep(randomly.uniform(0.001, 0.005))
        process.send_signal(second)
        stdout, stderr = (stream.decode() for stream in process.communicate(timeout=120))
        digest = tree_digest(root)
        assert "Traceback" not in stderr
        assert temporaries(root) == []
        if process.returncode == 130 and "nothing was applied" in stderr:
            assert stderr.startswith("edns-addon apply: interrupted; nothing was applied: ")
            assert "could not" not in stderr and "incomplete" not in stderr
            assert digest == old, "the message says nothing was applied, the root differs"
            seen.append("old")
        else:   # finished before a signal could stop it: the message says so
            assert process.returncode in (0, 130), stderr
            if process.returncode == 130:
                assert stderr.startswith("edns-addon apply: interrupted; the files are "
                                         "written"), stderr
            assert digest == new
            seen.append("new")
        shutil.rmtree(root)
    assert "old" in seen, seen


# --- a roll-back restores the old files themselves, and claims no more --------------------

def _attacked_roll_back(tmp_path, write_ks, variant):
    require_namespaces()
    old_ks = certificates_kickstart(write_ks, 200, "Old CA")
    new_ks = certificates_kickstart(write_ks, 200, "New CA", "192.0.2.99#dot.new.example")
    mountpoint = tmp_path / "mnt"
    mountpoint.mkdir()
    result = in_mount_namespace("cd %s && exec %s -m tests.interrupted_apply %s %s %s %s" % (
        REPO, sys.executable, mountpoint, old_ks, new_ks, variant))
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout)
    assert "returncode" in report, "never stopped during its replacements: %s" % report
    return report


def _claimed_restored(stderr):
    """The paths the message says were restored."""
    listed = stderr.split("restored to their previous state: ", 1)[1].strip()
    return set() if listed == "none" else set(listed.split(", "))


def _check_identities(report, exempt=()):
    for path, before in report["old"].items():
        if path in exempt:
            continue
        assert report["after"][path] == before, path
    if report["xattr_refused"]:
        pytest.skip("this filesystem refuses user xattrs (%s); the rest passed"
                    % report["xattr_refused"])


def test_a_roll_back_on_a_full_disk_restores_each_old_file_itself(write_ks, tmp_path):
    """Stopped half-way through its replacements; the disk filled by another writer;
    then SIGTERM: each old file is back (same inode, owner, mode, xattr, hard link),
    and the message lists exactly the files that had been replaced."""
    report = _attacked_roll_back(tmp_path, write_ks, "full-disk")
    assert report["free_bytes_during_roll_back"] < 8192
    assert report["returncode"] == 130, report["stderr"]
    assert report["stderr"].startswith("edns-addon apply: interrupted; nothing was applied: "
                                       "restored to their previous state: ")
    # Each file replaced when it was stopped, and at most the one it was renaming then.
    claimed = _claimed_restored(report["stderr"])
    assert set(report["replaced_when_stopped"]) <= claimed
    assert len(claimed) <= len(report["replaced_when_stopped"]) + 1
    assert report["left"] == []
    linked = [path for path in report["old"] if path.endswith("second-name.pem")]
    assert report["after"][linked[0]]["nlink"] == 2
    _check_identities(report)


def test_a_file_whose_old_copy_was_removed_is_not_claimed_restored(write_ks, tmp_path):
    """Another writer removes the second name apply keeps of one old file: that file is
    named as not restored (it holds the new content), every other one as restored."""
    report = _attacked_roll_back(tmp_path, write_ks, "lose-a-backup")
    lost = report["lost_backup_of"]
    assert lost is not None
    stderr = report["stderr"]
    assert report["returncode"] == 130, stderr
    assert stderr.startswith("edns-addon apply: interrupted; the roll-back is incomplete: "
                             "%s could not be restored (No such file or directory); it holds "
                             "the new content; restored to their previous state: " % lost)
    claimed = _claimed_restored(stderr)
    assert lost not in claimed
    assert set(report["replaced_when_stopped"]) - {lost} <= claimed
    assert report["after"][lost]["ino"] != report["old"][lost]["ino"]
    for path in claimed:
        assert report["after"][path] == report["old"][path], path
    _check_identities(report, exempt={lost})


# --- on a live host: what a killed run leaves, a second apply, the syncs ------------------

def start_host_apply(host, kickstart, **popen):
    return subprocess.Popen(host.apply_command(kickstart), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=environment(), **popen)


def host_paths(host, paths):
    """PATHS below HOST's layers, as the host's own paths."""
    upper = str(host.path("/"))
    return sorted("/" + os.path.relpath(path, upper) for path in paths)


def test_the_temporary_files_of_a_killed_apply_are_removed_by_the_next(write_ks, tmp_path):
    kickstart = certificates_kickstart(write_ks, 300, "Killed CA")
    host = LiveHost(tmp_path / "host")
    process = start_host_apply(host, kickstart)
    # In the certificates' directory: the journal's own temporary comes first, elsewhere.
    wait_for_temporaries(process, host.path("/"), directory=host.path("/etc/pki/dns"))
    process.kill()
    process.communicate()
    left = host_paths(host, temporaries(host.path("/")))
    assert left, "SIGKILL left no temporary file to remove"
    assert host.path(c.APPLY_JOURNAL_PATH).exists()

    result = host.apply(kickstart)

    assert result.returncode == 0, result.stderr
    assert temporaries(host.path("/")) == []
    assert not host.path(c.APPLY_JOURNAL_PATH).exists()
    for path in left:
        assert "removed %s (a temporary file an interrupted run left)" % path \
            in result.stdout.splitlines()


def test_below_another_root_a_killed_apply_leaves_no_journal(write_ks, tmp_path):
    """Below a root that is not this machine's /, nothing of apply's own is written: the
    temporaries SIGKILL left are named by nothing, and the next apply leaves them."""
    kickstart = certificates_kickstart(write_ks, 300, "Killed CA")
    root = tmp_path / "root"
    root.mkdir()
    process = start_apply(kickstart, root)
    wait_for_temporaries(process, root, directory=root / "etc/pki/dns")
    process.kill()
    process.communicate()
    left = temporaries(root)
    assert left and not (root / c.APPLY_STATE_DIR.lstrip("/")).exists()
    result = run_cli("apply", kickstart, "--root", root)
    assert result.returncode == 0, result.stderr
    assert "removed" not in result.stdout and sorted(temporaries(root)) == sorted(left)


def test_an_apply_on_a_host_another_apply_holds_is_refused_and_writes_nothing(
        write_ks, test_ca, tmp_path):
    host = LiveHost(tmp_path / "host")
    host.path(c.APPLY_STATE_DIR).mkdir(parents=True)
    kickstart = write_ks(edns_kickstart(test_ca.pem))
    before = tree_digest(host.path("/"))

    # flock(1) holds apply's state directory while the apply runs.
    result = host.apply(kickstart, "flock", c.APPLY_STATE_DIR)

    assert result.returncode == 1
    assert result.stderr.endswith("not applied: nothing was written: another edns-addon "
                                  "apply is writing below /; run this one again when it has "
                                  "finished\n")
    assert tree_digest(host.path("/")) == before
    assert host.apply(kickstart).returncode == 0


def test_two_applies_started_together_never_mix_their_files(write_ks, tmp_path):
    first_ks = certificates_kickstart(write_ks, 200, "First CA")
    second_ks = certificates_kickstart(write_ks, 200, "Second CA",
                                       "192.0.2.99#dot.second.example")
    digests = {}
    for name, kickstart in (("first", first_ks), ("second", second_ks)):
        alone = LiveHost(tmp_path / name)
        assert alone.apply(kickstart).returncode == 0
        digests[name] = tree_digest(alone.path("/"))
    for attempt in range(4):
        host = LiveHost(tmp_path / ("host%d" % attempt))
        errors = [tmp_path / ("run%d-%s.err" % (attempt, name)) for name in ("first", "second")]
        # Both started in one namespace (its layers), then each exit code in turn.
        script = "".join('%s -m org_edns_addon.cli apply %s --root / >/dev/null 2>%s & '
                         'pids="$pids $!"\n' % (sys.executable, kickstart, error)
                         for kickstart, error in zip((first_ks, second_ks), errors))
        script += 'for pid in $pids; do wait $pid; echo $?; done\n'
        codes = subprocess.run(host.command("sh", "-c", script), capture_output=True,
                               text=True, env=environment(), timeout=300).stdout.split()
        assert len(codes) == 2, codes
        for code, error in zip(codes, errors):
            stderr = error.read_text()
            assert code == "0" or (code == "1" and "another edns-addon apply is writing "
                                   "below /" in stderr), stderr
        assert tree_digest(host.path("/")) in (digests["first"], digests["second"])


def _sync_calls(kickstart, root=None, host=None):
    """The fsync, fdatasync, syncfs and sync calls of one apply below ROOT, or on the live
    HOST, counted by strace."""
    trace = (root or host.directory).parent / ("%s.strace" % (root or host.directory).name)
    strace = ["strace", "-f", "-c", "-U", "name,calls", "-o", trace,
              "-e", "trace=fsync,fdatasync,syncfs,sync"]
    if host is not None:
        result = host.apply(kickstart, *strace)
    else:
        root.mkdir()
        result = subprocess.run(strace + [sys.executable, "-m", "org_edns_addon.cli", "apply",
                                          kickstart, "--root", root],
                                capture_output=True, text=True, env=environment(), timeout=300)
    assert result.returncode == 0, result.stderr
    counts = {}
    for line in trace.read_text().splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[1].isdigit():
            counts[fields[0]] = int(fields[1])
    return counts


def test_on_a_live_host_the_syncs_do_not_grow_with_the_files_and_elsewhere_there_are_none(
        write_ks, tmp_path):
    """On a live host, one syncfs(2) per filesystem before the renames and one after, for 3
    files or 300 in 30 directories; none below another root (the installer's overlay, a
    target Anaconda syncs, a tree being built)."""
    require_tools("strace")
    few, many = (certificates_kickstart(write_ks, 3, "Few"),
                 certificates_kickstart(write_ks, 300, "Many", directories=30))
    on_host = [_sync_calls(kickstart, host=LiveHost(tmp_path / name))
               for kickstart, name in ((few, "few-host"), (many, "many-host"))]
    elsewhere = [_sync_calls(kickstart, root=tmp_path / name)
                 for kickstart, name in ((few, "few"), (many, "many"))]
    # Two filesystems written here: the /etc and /var layers (the record is below /var).
    assert on_host == [{"syncfs": 4, "total": 4}] * 2, on_host
    assert all(counts.get("total", 0) == 0 for counts in elsewhere), elsewhere


# --- hostile roots -----------------------------------------------------------------------

def test_dracut_modules_behind_a_symlink_leading_outside_the_root_are_not_seen(
        write_ks, test_ca, tmp_path):
    outside = tmp_path / "host-modules"
    (outside / "99openssl").mkdir(parents=True)
    (outside / "90dnsconfd").mkdir()
    root = tmp_path / "root"
    (root / "usr/lib/dracut").mkdir(parents=True)
    (root / "usr/lib/dracut/modules.d").symlink_to(outside)
    inside = tmp_path / "inside"
    (inside / "usr/lib/dracut/modules.d/99openssl").mkdir(parents=True)
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))

    staging_apply.stage(data, "target", str(root), runner=RecordingRunner())
    staging_apply.stage(data, "target", str(inside), runner=RecordingRunner())

    assert "add_dracutmodules" not in (root / c.DRACUT_CONF_PATH.lstrip("/")).read_text()
    assert 'add_dracutmodules+=" openssl "' in \
        (inside / c.DRACUT_CONF_PATH.lstrip("/")).read_text()


# --- long names, deep directories, few descriptors -----------------------------------------

def _limit_descriptors():
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))


@pytest.mark.parametrize("length", [242, 250, 255])
def test_a_certificate_file_name_of_up_to_255_bytes_is_written(write_ks, test_ca, tmp_path,
                                                               length):
    name = "n" * (length - 4) + ".pem"
    kickstart = write_ks(edns_kickstart(test_ca.pem, "--ca=" + name, certificates=(
        certificate_section(test_ca.pem, name))))
    root = tmp_path / "root"
    root.mkdir()
    result = run_cli("apply", kickstart, "--root", root)
    assert result.returncode == 0, result.stderr
    assert (root / "etc/pki/dns" / name).read_text() == test_ca.pem
    assert temporaries(root) == []


def test_a_deep_directory_and_many_directories_need_few_descriptors(write_ks, test_ca,
                                                                    tmp_path):
    """A --dir of 1 000 components and 300 certificates in 300 directories, applied with
    64 descriptors allowed, then rolled back by a signal: no descriptor runs out."""
    deep = "/" + "/".join(["d"] * 1000) + "/"
    kickstart = write_ks(many_certificates_kickstart([test_ca.pem], 300, directories=300) +
                         certificate_section(test_ca.pem, "deep.pem", "--dir=" + deep))
    root = tmp_path / "root"
    root.mkdir()
    deepest = os.path.join(str(root), deep.strip("/"), "deep.pem")
    try:
        result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", "apply", kickstart,
                                 "--root", str(root)], preexec_fn=_limit_descriptors,
                                capture_output=True, text=True, env=environment(), timeout=300)
        assert result.returncode == 0, result.stderr
        with open(deepest) as stream:   # below PATH_MAX from the root
            assert stream.read() == test_ca.pem
        assert "wrote /etc/pki/dns/d0299/c0299.pem" in result.stdout

        again = tmp_path / "again"
        again.mkdir()
        process = start_apply(kickstart, again, preexec_fn=_limit_descriptors)
        # Watched in one directory: os.walk of 3.11 recurses, and this tree is deep.
        wait_for_temporaries(process, again, again / "etc/pki/dns/d0000")
        process.send_signal(signal.SIGTERM)
        stderr = process.communicate(timeout=300)[1].decode()
        assert process.returncode == 130, stderr
        assert stderr.startswith("edns-addon apply: interrupted; nothing was applied: ")
        assert list(again.iterdir()) == []
    finally:
        # pytest's own clean-up recurses, and fails on this tree in later runs.
        if os.path.isdir(os.path.dirname(deepest)):
            _remove_deep_tree(os.path.dirname(deepest), depth=1000)


def _remove_deep_tree(deepest, depth):
    """Remove DEEPEST and its DEPTH - 1 parents, all empty but for files, without recursion
    (pytest's cleanup and shutil.rmtree of Python 3.11 recurse, and fail on this tree)."""
    for _ in range(depth):
        for name in os.listdir(deepest):
            os.unlink(os.path.join(deepest, name))
        os.rmdir(deepest)
        deepest = os.path.dirname(deepest)


def test_an_existing_file_that_is_not_regular_is_refused_with_its_mode_kept(write_ks, test_ca,
                                                                            tmp_path):
    root = tmp_path / "root"
    keyfile = root / c.NM_KEYFILE_PATH.lstrip("/")
    keyfile.parent.mkdir(parents=True)
    os.mkfifo(keyfile)
    result = run_cli("apply", write_ks(edns_kickstart(test_ca.pem)), "--root", root)
    assert result.returncode == 1
    assert "nothing was written: %s: it exists and is not a regular file; remove it" % keyfile \
        in result.stderr
    assert stat.S_ISFIFO(os.lstat(keyfile).st_mode)


# --- a signal once the files are written: every action runs --------------------------------

UNIT_TEXT = "[Unit]\nDescription=%s\n\n[Service]\nExecStart=/bin/true\n\n[Install]\n%s\n"
# A stand-in for update-ca-trust that runs as long as the test wants: it says it has
# started, then waits for a line on a FIFO, then says it has finished.
TRUST_SCRIPT = "#!/bin/sh\necho started > /trust-started\nread line < /trust-release\n" \
               "echo finished > /trust-finished\n"


def _actions_root(root):
    """ROOT as a target with dnsconfd and systemd-resolved installed, resolved enabled
    (the links systemctl makes for it), and an update-ca-trust that runs in a chroot (a
    dynamically linked busybox sh and its libraries) until the test releases it."""
    require_tools("busybox", "chroot", "systemctl")
    units = root / "usr/lib/systemd/system"
    units.mkdir(parents=True)
    (units / c.DNSCONFD_UNIT).write_text(UNIT_TEXT % ("dnsconfd", "WantedBy=multi-user.target"))
    (units / c.RESOLVED_UNIT).write_text(UNIT_TEXT % (
        "resolved", "WantedBy=sysinit.target\nAlias=dbus-org.freedesktop.resolve1.service"))
    enabled = root / "etc/systemd/system"
    (enabled / "sysinit.target.wants").mkdir(parents=True)
    for link in ("sysinit.target.wants/" + c.RESOLVED_UNIT,
                 "dbus-org.freedesktop.resolve1.service"):
        (enabled / link).symlink_to("/usr/lib/systemd/system/" + c.RESOLVED_UNIT)
    busybox = shutil.which("busybox")
    (root / "bin").mkdir()
    shutil.copy(busybox, root / "bin/busybox")
    (root / "bin/sh").symlink_to("busybox")
    libraries = subprocess.run(["ldd", busybox], capture_output=True, text=True,
                               check=True).stdout
    for word in libraries.split():
        if word.startswith("/"):
            target = root / word.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(os.path.realpath(word), target)
    (root / "usr/bin").mkdir()
    script = root / "usr/bin/update-ca-trust"
    script.write_text(TRUST_SCRIPT)
    script.chmod(0o755)
    os.mkfifo(root / "trust-release")


def _status(pid, field):
    """A signal set of /proc/PID/status (SigBlk, ShdPnd) as a set of numbers."""
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith(field + ":"):
                mask = int(line.split()[1], 16)
                return {number for number in range(1, 65) if mask >> (number - 1) & 1}
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


def _wait(condition, what, process, deadline=60):
    end = time.monotonic() + deadline
    while not condition():
        assert process.poll() is None, "apply ended before %s: %s" % (
            what, process.communicate()[1].decode())
        assert time.monotonic() < end, "never: %s" % what
        time.sleep(0.01)   # a poll interval, not a synchronisation: the loop waits on WHAT


def _children(pid):
    with open("/proc/%d/task/%d/children" % (pid, pid)) as children:
        return [int(child) for child in children.read().split()]


@pytest.mark.parametrize("signals,to_group", [
    ((signal.SIGTERM,), False), ((signal.SIGINT,), False),
    ((signal.SIGTERM, signal.SIGTERM), False), ((signal.SIGINT, signal.SIGTERM), False),
    ((signal.SIGINT,), True), ((signal.SIGTERM, signal.SIGINT), True)],
    ids=["term", "int", "term-term", "int-term", "group-int", "group-term-int"])
def test_a_signal_once_the_files_are_written_cuts_no_action(write_ks, test_ca, tmp_path,
                                                             signals, to_group):
    """Signals while `update-ca-trust extract` runs (to apply alone, or to its whole process
    group as a Ctrl-C on a terminal sends them): the command runs to its end, dnsconfd is
    enabled and systemd-resolved disabled after it, then apply ends with 130 saying so.
    Never NetworkManager at dns=dnsconfd with resolved still enabled (plaintext)."""
    root = tmp_path / "root"
    root.mkdir()
    _actions_root(root)
    kickstart = write_ks(edns_kickstart(test_ca.pem, certificates=(
        certificate_section(test_ca.pem) + anchor_section(test_ca.pem, "corp-root.pem"))))
    process = start_apply(kickstart, root, start_new_session=True)
    try:
        _wait(lambda: (root / "trust-started").exists(), "update-ca-trust started", process)
        for signum in signals:
            if to_group:
                os.killpg(process.pid, signum)
            else:
                process.send_signal(signum)
        wanted = set(signals)
        _wait(lambda: wanted <= _status(process.pid, "ShdPnd"), "the signals pending", process)
        chroot = _children(process.pid)
        assert chroot, "update-ca-trust is not running"
        assert wanted <= _status(chroot[0], "SigBlk")   # it inherited the held signals
        with open(root / "trust-release", "w") as release:
            release.write("go\n")
        stdout, stderr = (stream.decode() for stream in process.communicate(timeout=120))
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert (root / "trust-finished").read_text() == "finished\n"
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert stderr.startswith("edns-addon apply: interrupted; the files are written (%s/"
                             % root), stderr
    assert ") and every action ran to its end; done: update-ca-trust extract, enable " \
        "dnsconfd.service, disable systemd-resolved.service\n" in stderr
    keyfile = (root / c.NM_KEYFILE_PATH.lstrip("/")).read_text()
    assert "dns=dnsconfd" in keyfile
    enabled = root / "etc/systemd/system"
    assert os.readlink(enabled / "multi-user.target.wants" / c.DNSCONFD_UNIT) == \
        "/usr/lib/systemd/system/" + c.DNSCONFD_UNIT
    assert not os.path.lexists(enabled / "sysinit.target.wants" / c.RESOLVED_UNIT)
    assert not os.path.lexists(enabled / "dbus-org.freedesktop.resolve1.service")
    assert temporaries(root) == []


# --- roll-back edges: nothing the user owns is deleted, the message names what is left ----

def _chattr(flag, path):
    require_tools("chattr")
    result = subprocess.run(["chattr", flag, str(path)], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip("chattr %s is refused here: %s" % (flag, result.stderr.strip()))


@pytest.fixture
def append_only(tmp_path):
    """chattr +a on a directory (needs root and a filesystem with attributes); undone
    at the end, so that the test's files can be removed."""
    if os.geteuid() != 0:
        pytest.skip("chattr +a needs root")
    marked = []

    def mark(path):
        _chattr("+a", path)
        marked.append(path)
    yield mark
    for path in marked:
        subprocess.run(["chattr", "-a", str(path)], check=False)


class BuiltRoot:
    """A root that is not this machine's /: apply writes nothing of its own there."""

    def __init__(self, directory):
        directory.mkdir()
        self.top = directory

    def apply(self, kickstart):
        return run_cli("apply", kickstart, "--root", self.top)

    def shown(self, path):
        """PATH (below ``top``) as apply names it."""
        return str(path)


class OnLiveHost(BuiltRoot):
    """This machine's / (``LiveHost``): apply keeps its record and journal there."""

    def __init__(self, directory):
        self.host = LiveHost(directory)
        self.top = self.host.path("/")

    def apply(self, kickstart):
        return self.host.apply(kickstart)

    def start(self, kickstart):
        return start_host_apply(self.host, kickstart)

    def shown(self, path):
        return "/" + os.path.relpath(path, self.top)


@pytest.fixture(params=[BuiltRoot, OnLiveHost], ids=["another-root", "live-host"])
def where(request, tmp_path):
    """Where apply writes: below another root, or on the live host."""
    if request.param is OnLiveHost:
        require_namespaces()
    return request.param(tmp_path / "where")


def test_in_an_append_only_directory_the_message_names_each_file_left(write_ks, where,
                                                                      append_only):
    """The files left are named, each with what to do; on a live host the journal names
    them too, and the next apply removes them once it can (elsewhere they are the user's
    to remove, as the message said)."""
    old_ks = certificates_kickstart(write_ks, 3, "Old CA")
    new_ks = certificates_kickstart(write_ks, 3, "New CA", "192.0.2.99#dot.new.example")
    assert where.apply(old_ks).returncode == 0
    before = tree_digest(where.top)
    directory = where.top / "etc/pki/dns"
    append_only(directory)

    result = where.apply(new_ks)

    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    left = sorted(temporaries(where.top))
    assert left, "nothing was left: the directory is not append-only here"
    assert "the roll-back is incomplete: " in result.stderr
    for path in left:   # each one named, with the reason and what to do
        assert "%s is left (Operation not permitted); remove it" % where.shown(path) \
            in result.stderr
    # No file had been replaced when it stopped, and the sentence says so in words.
    assert result.stderr.endswith("; no file was restored to its previous state\n")
    journal = c.APPLY_JOURNAL_PATH.lstrip("/")
    assert (where.top / journal).exists() == isinstance(where, OnLiveHost)
    assert {path: entry for path, entry in tree_digest(where.top).items()
            if not TEMPORARY_NAME.match(os.path.basename(path)) and path != journal} == before
    subprocess.run(["chattr", "-a", str(directory)], check=True)
    again = where.apply(old_ks)
    assert again.returncode == 0, again.stderr
    if isinstance(where, OnLiveHost):
        assert temporaries(where.top) == []
        assert tree_digest(where.top) == before
    else:
        assert sorted(temporaries(where.top)) == left


def test_a_file_named_like_a_temporary_is_never_removed(write_ks, test_ca, where):
    """A certificate named .edns-<16 hex>.tmp, and a file of that name that apply does not
    write, in the directory it writes: both stay, applied again and again."""
    name = ".edns-0123456789abcdef.tmp"
    assert TEMPORARY_NAME.match(name)
    kickstart = write_ks(edns_kickstart(test_ca.pem, certificates=(
        certificate_section(test_ca.pem) + certificate_section(test_ca.pem, name))))
    (where.top / "etc/pki/dns").mkdir(parents=True)
    users = where.top / "etc/pki/dns/.edns-fedcba9876543210.tmp"
    users.write_text("the administrator's\n")
    for _attempt in range(3):
        result = where.apply(kickstart)
        assert result.returncode == 0, result.stderr
        assert "removed" not in result.stdout
        assert (where.top / "etc/pki/dns" / name).read_text() == test_ca.pem
        assert users.read_text() == "the administrator's\n"
    assert "unchanged /etc/pki/dns/%s" % name in result.stdout.splitlines()


def test_a_failed_rename_back_keeps_the_old_file_under_the_name_the_message_gives(
        write_ks, tmp_path, append_only):
    """Stopped between two replacements, the directory made append-only, then SIGTERM: a
    replaced file cannot get its old self back; the message names where the old file is,
    it is there, and the next apply on the live host (whose journal names it) keeps it and
    says so."""
    require_namespaces()
    old_ks = certificates_kickstart(write_ks, 200, "Old CA")
    new_ks = certificates_kickstart(write_ks, 200, "New CA", "192.0.2.99#dot.new.example")
    pristine = OnLiveHost(tmp_path / "pristine")
    assert pristine.apply(old_ks).returncode == 0
    old_pem = (pristine.top / "etc/pki/dns/c0000.pem").read_bytes()
    for attempt in range(20):
        where = OnLiveHost(tmp_path / ("host%d" % attempt))
        shutil.rmtree(where.top)
        shutil.copytree(pristine.top, where.top, symlinks=True)
        directory = where.top / "etc/pki/dns"
        certificates = sorted(directory.glob("c*.pem"))
        inodes = {path: path.stat().st_ino for path in certificates}
        process = where.start(new_ks)
        end = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < end and \
                certificates[0].stat().st_ino == inodes[certificates[0]]:
            pass
        if process.poll() is None:
            process.send_signal(signal.SIGSTOP)
        replaced = [path for path in certificates if path.stat().st_ino != inodes[path]]
        if process.poll() is not None or not replaced or len(replaced) == len(certificates):
            process.kill()
            process.communicate()
            continue   # not stopped between two of its replacements: again
        append_only(directory)
        process.send_signal(signal.SIGTERM)
        process.send_signal(signal.SIGCONT)
        stderr = process.communicate(timeout=120)[1].decode()
        break
    else:
        pytest.fail("never stopped between two replacements")
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    first = where.shown(certificates[0])
    match = re.search(r"%s could not be restored \(Operation not permitted\); it holds the new "
                      r"content, and the previous file is kept as (\S+?\.tmp)"
                      % re.escape(first), stderr)
    assert match, stderr[:2000]
    kept = match.group(1)
    assert os.path.dirname(kept) == where.shown(directory)
    assert where.host.path(kept).read_bytes() == old_pem
    subprocess.run(["chattr", "-a", str(directory)], check=True)

    again = where.apply(new_ks)

    assert again.returncode == 0, again.stderr
    assert "kept %s: the previous %s, which an interrupted run replaced; remove it when you " \
        "no longer need it" % (kept, first) in again.stdout.splitlines()
    assert where.host.path(kept).read_bytes() == old_pem
    # Exactly the old files the message named are left, each said again.
    named = set(re.findall(r"the previous file is kept as (\S+?\.tmp)", stderr))
    said = set(re.findall(r"^kept (\S+?\.tmp): the previous ", again.stdout, re.M))
    assert {where.shown(path) for path in temporaries(where.top)} == named == said
