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

"""Applying a plan: confined to the root, atomic, rolled back, idempotent; and its actions."""

import json
import os
import resource
import signal
import subprocess
import sys

import pytest

from lab.kickstarts import anchor_section, certificate_section, edns_kickstart
from lab import certs
from org_edns_addon import constants as c
from org_edns_addon.staging import plan as staging_plan
from org_edns_addon.staging import apply as staging_apply
from org_edns_addon.staging import StagingError
from org_edns_addon.staging.record import KeptRecord
from tests.conftest import REPO, run_cli
from tests.staging_fixtures import (LiveHost, RecordingRunner, in_mount_namespace,
                                    require_namespaces, require_tools, staging_input,
                                    tree_digest)


@pytest.fixture
def root(tmp_path):
    path = tmp_path / "root"
    path.mkdir()
    return path


@pytest.fixture
def outside(tmp_path):
    """A directory next to the root that must never be touched."""
    path = tmp_path / "outside"
    path.mkdir()
    (path / "keep").write_text("untouched\n")
    return path


def below(root, path):
    return root / path.lstrip("/")


@pytest.mark.parametrize("options", ["--ca=dns-ca.pem", "--backend=unbound --search=corp.example"])
@pytest.mark.parametrize("phase", ["target", "installer"])
def test_applying_twice_gives_a_byte_identical_tree(write_ks, test_ca, root, options, phase):
    anchor = certs.make_ca("Corp Root")
    path = write_ks(edns_kickstart(test_ca.pem, options, certificates=(
        certificate_section(test_ca.pem) +
        anchor_section(anchor.pem, "corp-root.pem"))))

    first = run_cli("apply", path, "--root", root, "--phase", phase)
    assert first.returncode == 0, first.stderr
    digest = tree_digest(root)
    second = run_cli("apply", path, "--root", root, "--phase", phase)

    assert second.returncode == 0, second.stderr
    assert tree_digest(root) == digest
    assert "wrote" not in second.stdout
    assert second.stdout.count("unchanged /") == first.stdout.count("wrote /") >= 4
    assert {mode for kind, mode, _ in digest.values() if kind == "file"} == {0o644}
    assert {mode for kind, mode, _ in digest.values() if kind == "dir"} == {0o755}


def test_apply_prints_what_it_wrote_and_why_it_skipped(write_ks, test_ca, root):
    result = run_cli("apply", write_ks(edns_kickstart(test_ca.pem)), "--root", root)
    assert result.returncode == 0, result.stderr
    assert "wrote /etc/NetworkManager/conf.d/60-edns-global-dns.conf" in result.stdout
    assert "skipped: enable dnsconfd.service (dnsconfd.service is not installed in %s)" \
        % root in result.stdout
    assert below(root, c.NM_KEYFILE_PATH).read_bytes().startswith(b"# Written by")


def test_a_changed_file_is_rewritten_with_the_planned_mode(write_ks, test_ca, root):
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))
    staging_apply.stage(data, "target", str(root))
    keyfile = below(root, c.NM_KEYFILE_PATH)
    expected = keyfile.read_bytes()
    keyfile.write_text("[main]\ndns=default\n")
    keyfile.chmod(0o600)

    report = staging_apply.stage(data, "target", str(root))

    assert report.written == [c.NM_KEYFILE_PATH]
    assert keyfile.read_bytes() == expected
    assert keyfile.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("option, message", [
    ("--filename=../../x --dir=/etc/pki/dns/", "--filename=../../x must be a plain file name"),
    ("--filename=/etc/shadow --dir=/etc/pki/dns/", "must be a plain file name"),
    ("--filename=ca.pem --dir=etc/pki/dns", "--dir=etc/pki/dns must be an absolute path"),
])
def test_a_kickstart_with_a_bad_certificate_place_writes_nothing(write_ks, test_ca, root,
                                                                  outside, option, message):
    text = edns_kickstart(test_ca.pem, "", certificates="%%certificate %s\n%s%%end\n"
                          % (option, test_ca.pem))
    before = tree_digest(outside)

    result = run_cli("apply", write_ks(text), "--root", root)

    assert result.returncode == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert tree_digest(outside) == before
    assert list(root.iterdir()) == []


@pytest.mark.parametrize("link", ["absolute", "relative"])
def test_a_symlink_leading_outside_the_root_is_refused_before_any_write(
        write_ks, test_ca, root, outside, link):
    (root / "etc").mkdir()
    target = str(outside) if link == "absolute" else "../../outside"
    (root / "etc" / "pki").symlink_to(target)
    before_root, before_outside = tree_digest(root), tree_digest(outside)
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))

    with pytest.raises(StagingError) as raised:
        staging_apply.stage(data, "target", str(root))

    assert "nothing was written" in str(raised.value)
    assert "%s/etc/pki is a symlink to %s" % (root, target) in str(raised.value) \
        or "leads outside %s" % root in str(raised.value)
    assert tree_digest(root) == before_root
    assert tree_digest(outside) == before_outside


def test_a_symlink_that_stays_inside_the_root_is_followed(write_ks, test_ca, root):
    (root / "usr" / "share" / "pki").mkdir(parents=True)
    (root / "etc").mkdir()
    (root / "etc" / "pki").symlink_to("../usr/share/pki")
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))

    staging_apply.stage(data, "target", str(root))

    assert (root / "usr/share/pki/dns/dns-ca.pem").read_text() == test_ca.pem
    assert (root / "etc" / "pki").is_symlink()


def test_a_file_in_the_way_of_a_directory_is_refused_before_any_write(write_ks, test_ca, root):
    (root / "etc" / "NetworkManager").mkdir(parents=True)
    (root / "etc" / "NetworkManager" / "conf.d").write_text("not a directory\n")
    before = tree_digest(root)
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))

    with pytest.raises(StagingError, match="conf.d is not a directory"):
        staging_apply.stage(data, "target", str(root))
    assert tree_digest(root) == before


def test_a_final_symlink_is_replaced_not_followed(write_ks, test_ca, root, outside):
    (root / "etc").mkdir()
    (root / "etc" / "resolv.conf").symlink_to(outside / "keep")
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, "--backend=unbound"))

    staging_apply.stage(data, "target", str(root))

    assert not (root / "etc" / "resolv.conf").is_symlink()
    assert "nameserver 127.0.0.55" in (root / "etc" / "resolv.conf").read_text()
    assert (outside / "keep").read_text() == "untouched\n"


def test_a_path_with_dot_dot_in_a_plan_is_refused(root, outside):
    plan = staging_plan.Plan(staging_plan.Phase.TARGET, (
        staging_plan.PlannedFile("/etc/ok.conf", b"ok\n", 0o644),
        staging_plan.PlannedFile("/etc/../../outside/evil", b"x\n", 0o644)), ())
    with pytest.raises(StagingError, match="is not a plain absolute path"):
        staging_apply.apply_plan(plan, str(root))
    assert list(root.iterdir()) == []
    assert [p.name for p in outside.iterdir()] == ["keep"]


def _limit_file_size():
    # A write past the limit fails with EFBIG instead of killing the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))


def test_a_write_failing_half_way_replaces_no_file(write_ks, test_ca, root):
    """The DoT bundle (two CAs, > 1000 bytes) cannot be written: every new file is a
    temporary one until all are written, so none replaced an old one, and none is left."""
    second = certs.make_ca("Second DNS CA")
    path = write_ks(edns_kickstart(test_ca.pem, "--ca=dns-ca.pem,second.pem", certificates=(
        certificate_section(test_ca.pem) + certificate_section(second.pem, "second.pem"))))
    keyfile = below(root, c.NM_KEYFILE_PATH)
    keyfile.parent.mkdir(parents=True)
    keyfile.write_text("[main]\ndns=default\n")
    before = tree_digest(root)

    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", "apply", path,
                             "--root", str(root)], preexec_fn=_limit_file_size,
                            env=dict(os.environ, PYTHONPATH=str(REPO)),
                            capture_output=True, text=True, timeout=120)

    assert result.returncode == 1
    assert "writing %s/etc/pki/dns/extracted/pem/tls-ca-bundle.pem failed (File too large)" \
        % root in result.stderr
    assert "nothing was applied: no file had been replaced yet" in result.stderr
    assert "restored" not in result.stderr
    assert tree_digest(root) == before


@pytest.mark.root
def test_an_unwritable_directory_half_way_is_refused_before_any_write(write_ks, test_ca,
                                                                       root, tmp_path):
    """A read-only directory (bind mount) in the middle of the plan: nothing is written."""
    require_namespaces()
    readonly = root / "etc" / "NetworkManager"
    readonly.mkdir(parents=True)
    before = tree_digest(root)
    path = write_ks(edns_kickstart(test_ca.pem))
    script = ("mount --bind {d} {d}; mount -o remount,bind,ro {d}; "
              "PYTHONPATH={repo} {python} -m org_edns_addon.cli apply {ks} --root {root} "
              "|| echo exit=$?").format(d=readonly, repo=REPO, python=sys.executable, ks=path,
                                        root=root)

    result = in_mount_namespace(script)

    assert "exit=1" in result.stdout, result.stdout + result.stderr
    assert "nothing was written: %s/etc/NetworkManager/conf.d/60-edns-global-dns.conf: its " \
        "directory is not writable" % root in result.stderr
    assert tree_digest(root) == before


# The [Install] sections as the units ship them: dnsconfd's distribution/dnsconfd.service,
# systemd's units/systemd-resolved.service.in, Fedora's unbound.service.
INSTALL = {
    "dnsconfd.service": "WantedBy=multi-user.target\nAlias=dbus-com.redhat.dnsconfd.service",
    "systemd-resolved.service": "WantedBy=sysinit.target\n"
                                "Alias=dbus-org.freedesktop.resolve1.service",
    "unbound.service": "WantedBy=multi-user.target"}
UNIT = "[Unit]\nDescription=%s\n\n[Service]\nExecStart=/usr/sbin/%s\n\n[Install]\n%s\n"


def install_unit(root, unit, install=None):
    path = root / "usr/lib/systemd/system" / unit
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(UNIT % (unit, unit, install or INSTALL[unit]))


def enabled_links(root):
    """{link below /etc/systemd/system: its target} of every symlink there."""
    top = root / "etc/systemd/system"
    return {str(path.relative_to(top)): os.readlink(path) for path in top.rglob("*")
            if path.is_symlink()}


def _resolved_enabled_root(root):
    """ROOT with dnsconfd, unbound and systemd-resolved installed, resolved enabled (by
    systemctl, as a fresh install has it)."""
    for unit in INSTALL:
        install_unit(root, unit)
    subprocess.run(["systemctl", "--root=%s" % root, "enable", "--", c.RESOLVED_UNIT],
                   check=True, capture_output=True)


RESOLVED = "/usr/lib/systemd/system/systemd-resolved.service"


@pytest.mark.parametrize("backend, links", [
    ("dnsconfd", {"multi-user.target.wants/dnsconfd.service":
                  "/usr/lib/systemd/system/dnsconfd.service",
                  "dbus-com.redhat.dnsconfd.service": "/usr/lib/systemd/system/dnsconfd.service"}),
    ("unbound", {"multi-user.target.wants/unbound.service":
                 "/usr/lib/systemd/system/unbound.service",
                 "unbound.service.wants/" + c.FREEIPA_HANDOVER_UNIT:
                 c.FREEIPA_HANDOVER_UNIT_PATH})])
def test_the_target_enables_its_units_by_systemctl_and_disables_resolved(
        write_ks, test_ca, root, backend, links):
    """This machine's systemctl --root makes and removes the links, [Install] as the units
    ship it: resolved's sysinit.target.wants link and its D-Bus alias go, the resolver's
    come (and, with unbound, the handover unit's, below unbound.service.wants)."""
    require_tools("systemctl")
    _resolved_enabled_root(root)
    assert enabled_links(root) == {"sysinit.target.wants/systemd-resolved.service": RESOLVED,
                                   "dbus-org.freedesktop.resolve1.service": RESOLVED}
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, "--backend=" + backend))

    report = staging_apply.stage(data, "target", str(root))

    assert enabled_links(root) == links
    enabled = "enable %s.service" % backend
    assert report.actions_done[:2] == [enabled, "disable systemd-resolved.service"]
    assert report.actions_skipped == []


def test_without_systemctl_on_this_machine_the_target_fails_saying_so(write_ks, test_ca,
                                                                     root, tmp_path):
    install_unit(root, "dnsconfd.service")
    empty = tmp_path / "no-commands"
    empty.mkdir()

    result = run_cli("apply", write_ks(edns_kickstart(test_ca.pem)), "--root", root,
                     env={"PATH": str(empty)})

    assert result.returncode == 1
    assert "enable dnsconfd.service failed: systemctl is not installed on this machine; " \
        "install systemd here, or run 'systemctl --root=%s enable -- dnsconfd.service' on a " \
        "machine that has it" % root in result.stderr
    assert "skipped: disable systemd-resolved.service" not in result.stderr
    assert below(root, c.NM_KEYFILE_PATH).exists()   # the files are written, and it says so


@pytest.mark.parametrize("line", ["Alias=../../../etc/x.service", "Alias=/etc/x.service",
                                  "WantedBy=../../../../etc", "RequiredBy=a/b.target"])
def test_a_unit_whose_install_section_names_a_path_makes_no_link_outside_the_root(
        write_ks, test_ca, tmp_path, line):
    """systemctl refuses an [Install] name that is no unit name (or makes no link of it):
    nothing is written outside the root, whatever the unit file of a hostile root says."""
    require_tools("systemctl")
    root = tmp_path / "root"
    install_unit(root, "dnsconfd.service", "WantedBy=multi-user.target\n" + line)
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))
    outside = {path for path in tmp_path.rglob("*") if root not in path.parents}

    try:
        staging_apply.stage(data, "target", str(root))
    except StagingError as error:
        assert "enable dnsconfd.service failed: systemctl --root=%s enable -- " \
            "dnsconfd.service failed with exit code 1: " % root in str(error)
        assert "Failed to enable unit, " in str(error)

    assert {path for path in tmp_path.rglob("*") if root not in path.parents} == outside
    assert set(enabled_links(root)) <= {"multi-user.target.wants/dnsconfd.service"}
    assert not (root / "etc/x.service").exists()


def test_update_ca_trust_runs_inside_the_root_and_is_skipped_where_absent(write_ks, test_ca,
                                                                          root):
    text = edns_kickstart(test_ca.pem, certificates=anchor_section(test_ca.pem, "dns-ca.pem"))
    data = staging_input(write_ks, text)
    runner = RecordingRunner()

    report = staging_apply.stage(data, "target", str(root), runner=runner)
    assert ("update-ca-trust extract", "update-ca-trust is not installed in %s" % root) in \
        report.actions_skipped

    (root / "usr/bin").mkdir(parents=True)
    (root / "usr/bin/update-ca-trust").write_text("#!/bin/sh\n")
    staging_apply.stage(data, "target", str(root), runner=runner)
    assert runner.commands == [["chroot", str(root), "update-ca-trust", "extract"]]


def test_installer_actions_are_skipped_outside_the_running_system(write_ks, test_ca, root):
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))
    runner = RecordingRunner()
    report = staging_apply.stage(data, "installer", str(root), runner=runner)
    assert report.actions_skipped == [
        ("restart dnsconfd.service", "%s is not the running system" % root),
        ("reload NetworkManager", "%s is not the running system" % root)]
    assert runner.commands == []


def test_a_failed_action_reports_the_files_written_and_what_failed(write_ks, test_ca, root):
    require_tools("systemctl")
    install_unit(root, "dnsconfd.service")
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))

    with pytest.raises(StagingError) as raised:
        staging_apply.stage(data, "target", str(root), runner=RecordingRunner(fail=("systemctl",)))

    message = str(raised.value)
    assert message.startswith("the files are written (%s/etc/pki/dns/dns-ca.pem, " % root)
    assert "enable dnsconfd.service failed: systemctl --root=%s enable -- dnsconfd.service " \
        "failed with exit code 1" % root in message
    assert below(root, c.NM_KEYFILE_PATH).exists()


def test_apply_to_a_missing_root_says_so_without_a_traceback(write_ks, test_ca, tmp_path):
    result = run_cli("apply", write_ks(edns_kickstart(test_ca.pem)), "--root",
                     tmp_path / "no-such-root")
    assert result.returncode == 1
    assert "cannot open the root %s: No such file or directory" % (tmp_path / "no-such-root") \
        in result.stderr
    assert "Traceback" not in result.stderr


def test_apply_without_root_is_a_usage_error(write_ks, test_ca):
    result = run_cli("apply", write_ks(edns_kickstart(test_ca.pem)))
    assert result.returncode == 2
    assert "--root" in result.stderr


def test_a_kickstart_without_the_section_is_not_applied(write_ks, root):
    result = run_cli("apply", write_ks("text\nrootpw --lock\n"), "--root", root)
    assert result.returncode == 1
    assert "has no %addon org_edns_addon section; nothing to apply" in result.stderr
    assert list(root.iterdir()) == []


# --- what apply keeps of itself: nothing in a target, a record on a live host -------------

def _regular_files(root):
    """Every path below ROOT that is not a directory or a symlink, as an absolute path."""
    return {"/" + str(path.relative_to(root)) for path in root.rglob("*")
            if not path.is_dir() and not path.is_symlink()}


@pytest.mark.parametrize("options", ["--ca=dns-ca.pem", "--backend=unbound"])
def test_an_installed_system_holds_no_file_of_the_addons_own(write_ks, test_ca, root, options):
    """The target phase, by the module's code and by `apply` below a root that is not this
    machine's /: every file below the root is the plan's (or a unit it found there), none
    is apply's bookkeeping; applying another configuration then puts nothing back."""
    require_tools("systemctl")
    _resolved_enabled_root(root)
    units = _regular_files(root)
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, options))
    plan = staging_plan.build_plan(data, "target", str(root))

    staging_apply.stage(data, "target", str(root))

    assert _regular_files(root) == units | {planned.path for planned in plan.files}
    result = run_cli("apply", write_ks(edns_kickstart(test_ca.pem)), "--root", root)
    assert result.returncode == 0, result.stderr
    assert "put back" not in result.stdout and "removed" not in result.stdout
    assert not below(root, c.APPLY_STATE_DIR).exists()


def test_in_the_installer_the_previous_run_is_put_back_from_memory(write_ks, test_ca, root):
    """The installer phase again (a spoke after a change), with the module's KeptRecord:
    the unbound backend's files go, the resolver no longer needed is stopped first (each
    action skipped here, with the reason: ROOT is not the running system), and nothing of
    the record is below the root."""
    unbound = staging_input(write_ks, edns_kickstart(test_ca.pem, "--ca=dns-ca.pem "
                                                                  "--backend=unbound"))
    dnsconfd = staging_input(write_ks, edns_kickstart(test_ca.pem))
    kept = KeptRecord()
    staging_apply.stage(unbound, "installer", str(root), runner=RecordingRunner(), record=kept)
    assert below(root, c.UNBOUND_CONF_PATH).exists()

    report = staging_apply.stage(dnsconfd, "installer", str(root), runner=RecordingRunner(),
                                 record=kept)

    assert report.actions_skipped == [
        ("stop unbound.service", "%s is not the running system" % root),
        ("restart dnsconfd.service", "%s is not the running system" % root),
        ("reload NetworkManager", "%s is not the running system" % root)]
    assert not below(root, c.UNBOUND_CONF_PATH).exists()
    assert not below(root, c.RESOLV_CONF_PATH).exists()   # it held nothing before
    assert _regular_files(root) == {planned.path for planned in staging_plan.build_plan(
        dnsconfd, "installer", str(root)).files}


def _host_file(path):
    """(mode, bytes) of PATH on this machine."""
    return os.lstat(path).st_mode & 0o777, open(path, "rb").read()


def test_on_a_live_host_unbound_then_dnsconfd_leaves_nothing_of_the_unbound_backend(
        write_ks, test_ca, tmp_path):
    """`apply --root /` keeps its record on the host: the next configuration puts back
    /etc/resolv.conf as this machine has it, removes the forwarder's file and disables
    unbound.service (this machine's unit, by systemctl)."""
    host = LiveHost(tmp_path / "host")
    unbound_ks = write_ks(edns_kickstart(test_ca.pem, "--ca=dns-ca.pem --backend=unbound"))
    dnsconfd_ks = write_ks(edns_kickstart(test_ca.pem))
    first = host.apply(unbound_ks)
    assert first.returncode == 0, first.stderr
    assert "127.0.0.55" in host.path(c.RESOLV_CONF_PATH).read_text()
    assert json.loads(host.path(c.APPLY_RECORD_PATH).read_text())["units"] == [
        c.FREEIPA_HANDOVER_UNIT, c.UNBOUND_UNIT]

    second = host.apply(dnsconfd_ks)

    assert second.returncode == 0, second.stderr
    lines = second.stdout.splitlines()
    assert "removed %s (the previous apply wrote it; this configuration has none)" % \
        c.UNBOUND_CONF_PATH in lines
    assert "put back %s as it was before edns-addon wrote it" % c.RESOLV_CONF_PATH in lines
    assert "ran: disable unbound.service" in lines, lines
    # Its file is gone with the unbound backend's files, so systemctl no longer knows it;
    # its link below unbound.service.wants stays, and a Wants= of no unit is ignored.
    assert "skipped: disable %s (%s is not installed in /)" % (
        c.FREEIPA_HANDOVER_UNIT, c.FREEIPA_HANDOVER_UNIT) in lines, lines
    assert not host.path(c.UNBOUND_CONF_PATH).exists()
    assert _host_file(host.path(c.RESOLV_CONF_PATH)) == _host_file(c.RESOLV_CONF_PATH)
    assert not host.path("/etc/systemd/system/multi-user.target.wants/unbound.service") \
        .is_symlink()
    assert "dns=dnsconfd" in host.path(c.NM_KEYFILE_PATH).read_text()
    # The record as dnsconfd applied alone leaves it.
    alone = LiveHost(tmp_path / "alone")
    assert alone.apply(dnsconfd_ks).returncode == 0
    assert host.path(c.APPLY_RECORD_PATH).read_bytes() == \
        alone.path(c.APPLY_RECORD_PATH).read_bytes()


def test_on_a_live_host_dropping_ca_removes_the_old_bundle_and_a_changed_file_is_left(
        write_ks, test_ca, tmp_path):
    host = LiveHost(tmp_path / "host")
    with_ca = write_ks(edns_kickstart(test_ca.pem, "--ca=dns-ca.pem --backend=unbound"))
    without_ca = write_ks(edns_kickstart(test_ca.pem, "--backend=dnsconfd"))
    assert host.apply(with_ca).returncode == 0
    bundle = host.path(c.DOT_CA_BUNDLE_PATH)
    assert bundle.exists()
    host.path(c.UNBOUND_CONF_PATH).write_text("# the administrator's own now\n")

    result = host.apply(without_ca)

    assert result.returncode == 0, result.stderr
    assert not bundle.exists()
    assert "removed %s (the previous apply wrote it; this configuration has none)" % \
        c.DOT_CA_BUNDLE_PATH in result.stdout.splitlines()
    assert "left %s as it is: it changed since edns-addon wrote it" % c.UNBOUND_CONF_PATH \
        in result.stdout.splitlines()
    assert host.path(c.UNBOUND_CONF_PATH).read_text() == "# the administrator's own now\n"
    assert host.path("/etc/pki/dns/dns-ca.pem").exists()   # still this configuration's
    # Once more: nothing left to put back, and the host is the same.
    upper = host.path("/etc/pki")
    digest = tree_digest(upper)
    again = host.apply(without_ca)
    assert again.returncode == 0 and "removed" not in again.stdout and "wrote" not in again.stdout
    assert tree_digest(upper) == digest


def test_on_a_live_host_a_record_that_is_not_ours_stops_apply_before_any_write(
        write_ks, test_ca, tmp_path):
    host = LiveHost(tmp_path / "host")
    record = host.path(c.APPLY_RECORD_PATH)
    record.parent.mkdir(parents=True)
    record.write_text("not json\n")
    before = tree_digest(host.path("/"))
    result = host.apply(write_ks(edns_kickstart(test_ca.pem)))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert ("not applied: nothing was written: %s is not a record edns-addon wrote (" %
            c.APPLY_RECORD_PATH) in result.stderr
    assert "); remove it to apply anyway (what the previous apply wrote then stays)" \
        in result.stderr
    assert tree_digest(host.path("/")) == before
