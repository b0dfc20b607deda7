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

"""The table of the installer lines: consistent in itself (docs/support-matrix.md holds it:
tests/test_docparts.py), held against the peers' own sources where a checkout is given
(NETWORKMANAGER_GIT, ANACONDA_GIT, DNSCONFD_GIT: a clone, bare or not), and the line an
installer is detected as."""

import os
import re
import subprocess
from pathlib import Path

import pytest

from org_edns_addon import constants as c
from org_edns_addon import lines
from org_edns_addon.lines import (GLOBAL_SEARCHES_REPLACE, LINES, NETWORKMANAGER_CHANGES,
                                  PORT_TO_DNSCONFD, detect_line, installer_line, line_named,
                                  networkmanager_version)

REPO = Path(__file__).resolve().parent.parent
FACTS = ("anaconda", "pykickstart", "networkmanager", "networkmanager_backports", "dnsconfd",
         "dracut", "systemd", "legacy_ca_bundle", "initramfs_anchors", "freeipa",
         "interfaces")


def test_every_line_has_every_fact_with_a_source():
    assert [line.key for line in LINES] == ["el9", "el10", "fedora-42", "fedora-43",
                                            "fedora-44", "main"]
    for line in LINES:
        for name in FACTS:
            fact = getattr(line, name)
            assert isinstance(fact, lines.Fact), (line.key, name)
            assert len(fact.source) > 20, (line.key, name, fact.source)
            if fact.value is None:
                # Unknown is said as such, with the reason, never as a sure fact.
                assert not fact.sure and "not established" in fact.source, (line.key, name)


def test_networkmanager_versions_rise_with_the_lines_and_decide_the_changes():
    versions = [lines.version_tuple(line.networkmanager.value) for line in LINES]
    assert versions == sorted(versions)
    assert [line.has(PORT_TO_DNSCONFD) for line in LINES] == [None, None, False, True, True,
                                                              True]
    assert [line.has(GLOBAL_SEARCHES_REPLACE) for line in LINES] == [
        None, None, False, False, True, True]
    # A lower bound (main) proves what holds from it, and nothing of later releases.
    main = line_named("main")
    assert [main.has(change) for change in NETWORKMANAGER_CHANGES
            if change.since > (1, 56, 0)] == [None, None]


def test_the_trust_store_of_each_line():
    # The bundle the addon names is in no line's legacy files: every line has it ...
    assert c.SYSTEM_CA_BUNDLE_PATH in c.SYSTEM_TRUST_STORE_FILES
    assert c.SYSTEM_CA_BUNDLE_PATH not in c.SYSTEM_TRUST_LEGACY_FILES
    # ... the one Fedora 43 dropped is, and the table says which lines still have it.
    assert "/etc/pki/tls/certs/ca-bundle.crt" in c.SYSTEM_TRUST_LEGACY_FILES
    assert [line.legacy_ca_bundle.value for line in LINES] == [True, True, True, False,
                                                               False, False]


@pytest.mark.parametrize("os_release, version, key, nm", [
    ('NAME="Fedora Linux"\nID=fedora\nVERSION_ID=43\n', "1.54.3", "fedora-43", "1.54.3"),
    ('ID=fedora\nVERSION_ID=44\n', None, "fedora-44", "1.56.0"),
    ('ID=fedora\nVERSION_ID=rawhide\n', "1.59.1-dev", "main", "1.59.1-dev"),
    ('ID=fedora\nVERSION_ID=45\n', None, "main", "1.56.0"),
    ('ID="rhel"\nID_LIKE="fedora"\nVERSION_ID="9.6"\n', "1.52.0-10.el9_6", "el9",
     "1.52.0-10.el9_6"),
    ('ID="centos"\nID_LIKE="rhel fedora"\nVERSION_ID="10"\n', None, "el10", "1.52.0"),
    ("ID=almalinux\nID_LIKE='rhel centos fedora'\nVERSION_ID=\"10.0\"\n", None, "el10",
     "1.52.0"),
    ('ID=fedora\nVERSION_ID=41\n', "1.50.0", None, None),
    ('ID=debian\nVERSION_ID="13"\n', "1.52.1", None, None),
    ("", None, None, None),
])
def test_an_installer_is_detected_as_its_line(os_release, version, key, nm):
    line = detect_line(os_release, version, "the test")
    assert (line and line.key, line and line.networkmanager.value) == (key, nm)


def test_the_networkmanager_read_at_run_time_decides_the_changes():
    # A Fedora 42 whose NetworkManager was updated past the fix passes the port.
    line = detect_line("ID=fedora\nVERSION_ID=42\n", "1.54.0", "NetworkManager --version")
    assert (line.key, line.has(PORT_TO_DNSCONFD)) == ("fedora-42", True)
    assert line_named("fedora-42").has(PORT_TO_DNSCONFD) is False


def test_the_line_of_a_root_and_its_running_networkmanager(tmp_path, trixie):
    # NetworkManager itself says its version (trixie's 1.52.1), read as the module reads it.
    version = networkmanager_version(("chroot", str(trixie), "NetworkManager", "--version"))
    assert lines.version_tuple(version)[:2] == (1, 52)
    root = tmp_path / "root"
    (root / "usr/lib").mkdir(parents=True)
    (root / "usr/lib/os-release").write_text('ID="almalinux"\nID_LIKE="rhel centos fedora"\n'
                                             'VERSION_ID="9.6"\n')
    line = installer_line(str(root), version, "chroot NetworkManager --version")
    assert (line.key, line.networkmanager.value, line.has(PORT_TO_DNSCONFD)) == (
        "el9", version, None)
    assert networkmanager_version(("false",)) is None
    assert networkmanager_version((str(tmp_path / "missing"),)) is None


# --- against the peers' own sources ----------------------------------------------------------

def _git(env, *args):
    clone = os.environ.get(env)
    if not clone:
        pytest.skip("%s is not set: give a clone to hold the table against its source" % env)
    for prefix in (["git", "--git-dir", clone], ["git", "-C", clone]):
        result = subprocess.run(prefix + list(args), capture_output=True, text=True,
                                timeout=120)
        if result.returncode == 0:
            return result.stdout
    pytest.fail("%s=%s: git %s: %s" % (env, clone, " ".join(args), result.stderr.strip()))


def _first_release(env, commit):
    tags = _git(env, "tag", "--contains", commit).split()
    releases = sorted(lines.version_tuple(tag) for tag in tags
                      if re.fullmatch(r"\d+\.\d+\.\d+", tag))
    return releases[0]


def test_each_networkmanager_change_is_first_in_the_release_the_table_says():
    for change in NETWORKMANAGER_CHANGES:
        if not re.match(r"[0-9a-f]{10} ", change.commit):
            continue  # a NEWS entry, no commit of its own
        commit = change.commit.split()[0]
        assert _first_release("NETWORKMANAGER_GIT", commit) == change.since, change.key


def test_the_port_fix_is_not_on_networkmanagers_1_52_branch():
    commit = PORT_TO_DNSCONFD.commit.split()[0]
    branches = _git("NETWORKMANAGER_GIT", "branch", "-a", "--contains", commit)
    assert not re.search(r"(^|/)nm-1-52\s*$", branches, re.M), branches
    plugin = _git("NETWORKMANAGER_GIT", "show", "1.52.2:src/core/dns/nm-dns-dnsconfd.c")
    append_base = re.search(r"server_builder_append_base\(.*?\n}\n", plugin, re.S).group(0)
    assert '"port"' not in append_base
    fixed = _git("NETWORKMANAGER_GIT", "show", "1.54.0:src/core/dns/nm-dns-dnsconfd.c")
    assert '"port"' in re.search(r"server_builder_append_base\(.*?\n}\n", fixed, re.S).group(0)


def test_anacondas_initramfs_adds_anchors_where_the_table_says():
    refs = {"el9": "rhel-9", "el10": "rhel-10", "fedora-42": "fedora-42",
            "fedora-43": "fedora-43", "fedora-44": "anaconda-44.35", "main": "main"}
    for line in LINES:
        script = _git("ANACONDA_GIT", "show", refs[line.key] + ":dracut/parse-kickstart")
        appends = "_append_to_ca_bundle(" in script and \
            'CA_BUNDLE_PATH = "%s"' % c.SYSTEM_CA_BUNDLE_PATH in script
        assert appends is line.initramfs_anchors.value, line.key


def test_anacondas_pykickstart_and_interfaces_are_the_tables():
    refs = {"el9": "rhel-9", "el10": "rhel-10", "fedora-42": "fedora-42",
            "fedora-43": "fedora-43", "fedora-44": "anaconda-44.35", "main": "main"}
    for line in LINES:
        spec = _git("ANACONDA_GIT", "show", refs[line.key] + ":anaconda.spec.in")
        required = re.search(r"%define pykickstartver (\S+)-1", spec).group(1)
        assert line.pykickstart.value.startswith(required), line.key
        webui = "Requires: anaconda-webui" in spec
        assert webui is (lines.WEB_UI in line.interfaces.value) or line.key == "fedora-42"
        anaconda = _git("ANACONDA_GIT", "show", refs[line.key] + ":pyanaconda/anaconda.py")
        # The Web UI, where there is one, loads no addon screens.
        assert "addon_paths = []" in anaconda or not webui


def test_dnsconfd_falls_back_to_the_system_store_the_addon_names():
    options = _git("DNSCONFD_GIT", "show", "HEAD:src/configuration_parsing/global_options.c")
    assert '"/etc/pki/dns/extracted/pem/tls-ca-bundle.pem "\n' in options
    assert '"%s"' % c.SYSTEM_CA_BUNDLE_PATH in options
    module = _git("DNSCONFD_GIT", "show", "HEAD:distribution/dracut_module/module-setup.sh")
    assert "inst_simple %s" % c.SYSTEM_CA_BUNDLE_PATH in module
