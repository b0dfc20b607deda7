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

"""FreeIPA's own client code on a root our apply staged, by branch state (lab/freeipa.py).

Each state's ``client_dns``, the DNS over TLS part of its ``uninstall`` and its roll-back
of a failed install run as FreeIPA wrote them (lab/freeipa_client.py: its sysrestore
module, its template, its functions; systemd is the only stand-in), on a root made by
``python3 -m org_edns_addon.cli apply KS --root DIR --phase target``. Where the client
restarts Unbound, systemd first runs what Unbound wants: our handover unit, run here as
systemd would (its conditions, then its ExecStart). Real Unbound judges the result:
``unbound-checkconf`` on the root's conf.d, and a forwarder on the root's files answering
over DNS over TLS from the lab's upstream. docs/freeipa.md is these tests.

Without FREEIPA_GIT (a clone of freeipa/freeipa) every test here is skipped, saying why;
FreeIPA's modules also need netaddr and libldap's shared library to import.
"""

import json
import re
import shlex
import subprocess
from pathlib import Path

import dns.rcode
import pytest

from lab import freeipa
from lab.dotlab import ANSWER_ADDRESS, ANSWER_NAME, ask, start_staged_resolver
from lab.installer_sequence import DNSCONFD_UNBOUND_INCLUDE
from lab.kickstarts import CA_FILENAME, edns_kickstart
from org_edns_addon import constants as c
from tests.conftest import run_cli
from tests.staging_fixtures import require_namespaces, require_tools, unbound_checkconf

pytestmark = pytest.mark.root

DOT_STATES = [state.name for state in freeipa.STATES if state.dns_over_tls]
SETS_ASIDE = [state.name for state in freeipa.STATES if state.sets_conf_d_aside]
BEFORE_SET_ASIDE = [name for name in DOT_STATES if name not in SETS_ASIDE]
NOT_IN_INDEX = ("ValueError", "No such file name in the index")
# docs/freeipa.md's commands for an installed system (no edns-addon there), run as written.
REMOVE_LEFTOVERS = "rm -f %s %s" % (c.FREEIPA_UNBOUND_CONF_PATH, c.FREEIPA_NM_CONF_PATH)
RESTART_UNBOUND = "systemctl restart %s" % c.UNBOUND_UNIT
UNINSTALL = "ipa-client-install --uninstall"


def require_freeipa():
    try:
        freeipa.commit_of("HEAD")
    except freeipa.FreeipaUnavailable as why:
        pytest.skip(str(why))
    require_namespaces("--mount")


def conf_d(root):
    return sorted(path.name for path in (root / c.UNBOUND_CONF_DIR.lstrip("/")).iterdir())


def below(root, path):
    return root / path.lstrip("/")


class Host:
    """A root staged by our apply, its units, and FreeIPA's client run on it."""

    def __init__(self, tmp_path, state, backend, kickstart_text, running):
        require_freeipa()
        self.state, self.backend = state, backend
        self.tmp_path = tmp_path
        self.root = tmp_path / "root"
        self.root.mkdir()
        if backend == "dnsconfd":
            # dnsconfd-unbound's include (installed by the package), which FreeIPA sets aside.
            below(self.root, c.UNBOUND_CONF_DIR + "/unbound.conf").parent.mkdir(parents=True)
            below(self.root, c.UNBOUND_CONF_DIR + "/unbound.conf").write_text(
                DNSCONFD_UNBOUND_INCLUDE)
        self.kickstart = tmp_path / "edns.ks"
        self.kickstart.write_text(kickstart_text)
        applied = self.apply()
        assert applied.returncode == 0, applied.stderr
        self.ours = self.read(c.UNBOUND_CONF_PATH) if backend == "unbound" else None
        self.resolv_conf = self.read(c.RESOLV_CONF_PATH) if backend == "unbound" else None
        # As the installed system has them: our resolver enabled, the other one disabled;
        # running only on a running system (a %post runs in a chroot, nothing runs).
        resolver = c.UNBOUND_UNIT if backend == "unbound" else c.DNSCONFD_UNIT
        units = {name: {"enabled": name + ".service" == resolver, "running": running
                        and name + ".service" == resolver}
                 for name in ("unbound", "dnsconfd")}
        units["NetworkManager"] = {"enabled": True, "running": running}
        self.units = tmp_path / "units.json"
        self.units.write_text(json.dumps(units))
        self.tree = freeipa.checkout(state, self._scratch("tree"))

    def _scratch(self, name):
        path = self.tmp_path / name
        path.mkdir(exist_ok=True)
        return path

    def apply(self):
        return run_cli("apply", self.kickstart, "--root", self.root, "--phase", "target")

    def read(self, path):
        return below(self.root, path).read_bytes()

    def client(self, action):
        """FreeIPA's ACTION; then, if it restarted Unbound, systemd's start of Unbound's
        wants first: our handover unit (with the unbound backend)."""
        try:
            run = freeipa.run_client(self.state, action, self.root, self.units, self.tree)
        except freeipa.FreeipaUnavailable as why:
            pytest.skip(str(why))
        if run.called("unbound", "restart") and self.backend == "unbound" \
                and action in ("enroll", "failed-install"):
            self.handover()
        return run

    def handover(self):
        """Our unit as systemd runs it before a start of Unbound: its Condition lines
        (systemd.unit(5): all plain ones, and one of those marked "|", must hold; "!"
        negates), then its ExecStart as written, on the root's files. Returns whether it
        ran."""
        unit = self.read(c.FREEIPA_HANDOVER_UNIT_PATH).decode()
        plain, triggering = [], []
        for value in re.findall(r"^ConditionPathExists=(\S+)$", unit, re.M):
            (triggering if value.startswith("|") else plain).append(value.lstrip("|"))

        def holds(condition):
            return below(self.root, condition.lstrip("!")).exists() != condition.startswith("!")
        if not all(map(holds, plain)) or (triggering and not any(map(holds, triggering))):
            return False
        command = re.search(r"^ExecStart=(.+)$", unit, re.M).group(1)
        self.shell(shlex.join(shlex.split(command)))
        return True

    def shell(self, command):
        """COMMAND as written, run as on the system of the root (lab/freeipa.py in_root)."""
        done = subprocess.run(freeipa.in_root(self.root, command, self._scratch("mounts")),
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (command, done.stderr)

    def restart_unbound(self, network):
        """systemctl restart unbound.service: the handover unit, then Unbound on the root's
        conf.d, where resolv.conf points (lab/dotlab.py start_staged_resolver)."""
        self.handover()
        return start_staged_resolver(self.tmp_path / "resolver", self.root, "unbound",
                                     network)

    def checkconf(self, option=None):
        return unbound_checkconf(self._scratch("checkconf"), self.root, option, conf_d=True)

    def set_aside(self):
        """The original paths FreeIPA's index lists (what it set aside and still holds)."""
        index = below(self.root, c.FREEIPA_SYSRESTORE_INDEX_PATH)
        return sorted(line.split(",", 3)[-1] for line in
                      (index.read_text().splitlines() if index.exists() else ())
                      if "=" in line)


def kickstart(backend, lab, pki):
    return edns_kickstart(pki.ca.pem, "--ca=%s --backend=%s" % (CA_FILENAME, backend),
                          [lab.upstream.server_line()], commands="")


def answers(resolver, lab):
    response = ask(resolver.address, resolver.port, ANSWER_NAME, network=lab.network)
    return response.rcode() == dns.rcode.NOERROR and [
        rdata.address for rrset in response.answer for rdata in rrset] == [ANSWER_ADDRESS]


@pytest.fixture
def host(tmp_path, dot_lab, dot_pki):
    """Factory: host(state, backend="unbound", running=False) -> Host."""
    def make(state, backend="unbound", running=False):
        return Host(tmp_path, state, backend, kickstart(backend, dot_lab, dot_pki), running)
    return make


@pytest.fixture
def resolvers():
    started = []
    yield started
    for resolver in started:
        resolver.stop()


# -- What each state's code is (no root needed, but the clone) ---------------------------


def test_no_4_12_release_tag_has_dns_over_tls():
    require_freeipa()
    found = freeipa.tags("release-4-12-*")
    assert "release-4-12-5" in found
    for tag in found:
        assert "dns_over_tls" not in freeipa.source(tag, freeipa.CLIENT_PY), tag
    assert not freeipa.state("4.12-tags").dns_over_tls


@pytest.mark.parametrize("name", DOT_STATES)
def test_each_state_does_what_its_row_says(name):
    require_freeipa()
    state = freeipa.state(name)
    text = freeipa.source(state.ref, freeipa.CLIENT_PY)
    body = freeipa.function(text, "client_dns")[0]
    block = freeipa.uninstall_dns_over_tls(text)[0]
    template = freeipa.source(state.ref, freeipa.TEMPLATE)
    for commit in re.findall(r"\b[0-9a-f]{9}\b", state.commits):
        assert freeipa.is_ancestor(commit, state.ref), (name, commit)
    assert ("os.listdir(paths.UNBOUND_CONFIG_DIR)" in body) == state.sets_conf_d_aside
    assert ("dnsconfd.disable()" in body) == state.disables_running_dnsconfd
    assert ("tls-system-cert: yes" in template) == state.system_trust
    assert ("remove_file(paths.UNBOUND_CONF)" in block
            and "fstore.restore_file(" in block) == state.uninstall_restores_conf_d
    # The steps lab/freeipa_client.py takes around them, as install() and uninstall() do.
    assert "statestore.backup_state('installation', 'complete', True)" in text
    assert "        fstore.restore_all_files()" in freeipa.function(text, "uninstall")[0]
    install = freeipa.function(text, "install")[0]
    assert re.search(r"try:\n\s+uninstall\(options\)\n\s+except Exception as ex:", install)


@pytest.mark.parametrize("name", DOT_STATES)
def test_the_paths_we_read_are_freeipas(name):
    require_freeipa()
    ref = freeipa.state(name).ref
    paths = freeipa.source(ref, "ipaplatform/base/paths.py")
    sysrestore = freeipa.source(ref, "ipalib/sysrestore.py")
    for attribute, ours in (("IPA_CLIENT_SYSRESTORE", c.FREEIPA_SYSRESTORE_DIR),
                            ("UNBOUND_CONFIG_DIR", c.UNBOUND_CONF_DIR + "/"),
                            ("UNBOUND_CONF", c.FREEIPA_UNBOUND_CONF_PATH),
                            ("NETWORK_MANAGER_IPA_CONF", c.FREEIPA_NM_CONF_PATH),
                            ("IPA_DEFAULT_CONF", c.FREEIPA_DEFAULT_CONF_PATH)):
        found = re.search(r"^    %s = [\"']%s[\"']$" % (attribute, re.escape(ours)), paths,
                          re.M)
        # UNBOUND_CONFIG_DIR came with the setting aside (bae780843).
        assert found or (attribute == "UNBOUND_CONFIG_DIR"
                         and not freeipa.state(name).sets_conf_d_aside), attribute
    for constant, ours in (("SYSRESTORE_INDEXFILE", c.FREEIPA_SYSRESTORE_INDEX_PATH),
                           ("SYSRESTORE_STATEFILE", c.FREEIPA_SYSRESTORE_STATE_PATH)):
        assert '%s = "%s"' % (constant, ours.rsplit("/", 1)[1]) in sysrestore, constant


def test_every_4_13_tag_takes_the_steps_of_4_13_0():
    require_freeipa()
    first = freeipa.state("4.13-tags").ref
    found = freeipa.tags("release-4-13-*")
    assert first in found

    def steps(ref):
        text = freeipa.source(ref, freeipa.CLIENT_PY)
        return (freeipa.function(text, "client_dns")[0], freeipa.uninstall_dns_over_tls(text)[0],
                freeipa.source(ref, freeipa.TEMPLATE))
    for tag in found + ["ipa-4-13"]:
        assert steps(tag) == steps(first), tag


# -- Install ------------------------------------------------------------------------------


@pytest.mark.parametrize("running", [False, True], ids=["in-post", "on-a-running-system"])
@pytest.mark.parametrize("name", DOT_STATES)
def test_enrollment_leaves_freeipas_forwarder_alone_with_the_unbound_backend(host, name,
                                                                           running):
    require_tools("unbound-checkconf")
    system = host(name, running=running)
    assert conf_d(system.root) == ["edns-forward.conf"]
    assert system.handover() is False  # before FreeIPA, Unbound starts with ours

    run = system.client("enroll")

    assert run.error is None
    assert run.calls[-2:] == ["unbound enable", "unbound restart"]
    assert conf_d(system.root) == ["zzz-ipa.conf"]
    checked = system.checkconf()
    assert checked.returncode == 0, checked.stderr
    assert system.checkconf("interface").stdout.split() == [c.UNBOUND_LISTEN_ADDRESS]
    assert b"dns=none" in system.read(c.FREEIPA_NM_CONF_PATH)
    # Ours is kept outside conf.d; from bae780843 on FreeIPA also keeps a copy of its own.
    assert system.read(c.UNBOUND_CONF_KEPT_PATH) == system.ours
    state = freeipa.state(name)
    assert system.set_aside() == sorted(
        ([c.UNBOUND_CONF_PATH] if state.sets_conf_d_aside else []) + [c.RESOLV_CONF_PATH])


@pytest.mark.parametrize("running", [False, True], ids=["in-post", "on-a-running-system"])
@pytest.mark.parametrize("name", DOT_STATES)
def test_enrollment_with_the_dnsconfd_backend(host, name, running):
    system = host(name, backend="dnsconfd", running=running)

    run = system.client("enroll")

    state = freeipa.state(name)
    assert run.error is None
    # dnsconfd is disabled only where it runs: never in a %post.
    assert run.called("dnsconfd", "disable") == (state.disables_running_dnsconfd and running)
    assert conf_d(system.root) == (["zzz-ipa.conf"] if state.sets_conf_d_aside
                                   else ["unbound.conf", "zzz-ipa.conf"])


# -- Uninstall ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", SETS_ASIDE)
def test_uninstall_stops_on_our_set_aside_file_and_leaves_unbound_no_forwarder(host, name):
    require_tools("unbound-checkconf")
    system = host(name)
    system.client("enroll")

    run = system.client("uninstall")

    assert (run.error["type"], run.error["message"]) == NOT_IN_INDEX
    assert run.error["where"].startswith("ipalib/sysrestore.py:")
    assert conf_d(system.root) == []
    # Nothing listens where resolv.conf, still FreeIPA's, points.
    assert system.checkconf("interface").stdout.split() == []
    assert b"nameserver 127.0.0.55" in system.read(c.RESOLV_CONF_PATH)
    assert below(system.root, c.FREEIPA_NM_CONF_PATH).exists()
    assert system.set_aside() == sorted([c.UNBOUND_CONF_PATH, c.RESOLV_CONF_PATH])


@pytest.mark.parametrize("name", SETS_ASIDE)
def test_after_a_stopped_uninstall_a_restart_of_unbound_brings_ours_back(
        host, name, dot_lab, resolvers):
    system = host(name)
    system.client("enroll")
    system.client("uninstall")

    resolvers.append(system.restart_unbound(dot_lab.network))

    assert conf_d(system.root) == ["edns-forward.conf"]
    assert system.read(c.UNBOUND_CONF_PATH) == system.ours
    assert answers(resolvers[0], dot_lab)


@pytest.mark.parametrize("name", SETS_ASIDE)
def test_a_second_uninstall_completes_and_puts_every_set_aside_file_back(host, name):
    system = host(name, backend="dnsconfd")
    system.client("enroll")
    assert system.client("uninstall").error is not None

    run = system.client("uninstall")

    # Its DNS over TLS state was read (and dropped) the first time: it goes on this time.
    assert run.error is None
    assert conf_d(system.root) == ["unbound.conf"]
    assert system.read(c.UNBOUND_CONF_DIR + "/unbound.conf") == \
        DNSCONFD_UNBOUND_INCLUDE.encode()
    assert system.set_aside() == []
    assert below(system.root, c.FREEIPA_NM_CONF_PATH).exists()


@pytest.mark.parametrize("name", BEFORE_SET_ASIDE)
def test_uninstall_before_bae780843_leaves_freeipas_forwarder(host, name, dot_lab, resolvers):
    system = host(name)
    system.client("enroll")

    run = system.client("uninstall")

    assert run.error is None and "unbound stop" not in run.calls
    assert conf_d(system.root) == ["zzz-ipa.conf"]
    assert system.read(c.RESOLV_CONF_PATH) == system.resolv_conf  # its restore_all_files
    # docs/freeipa.md's commands for it: remove both of FreeIPA's files, restart Unbound.
    system.shell(REMOVE_LEFTOVERS)
    resolvers.append(system.restart_unbound(dot_lab.network))
    assert conf_d(system.root) == ["edns-forward.conf"]
    assert answers(resolvers[0], dot_lab)


# -- A failed install's roll-back ---------------------------------------------------------


@pytest.mark.parametrize("name", DOT_STATES)
def test_a_failed_install_rolls_back_as_its_uninstall_does(host, name, dot_lab, resolvers):
    system = host(name)
    assert system.client("failed-install").error is None

    run = system.client("rollback")

    if freeipa.state(name).uninstall_restores_conf_d:
        assert (run.error["type"], run.error["message"]) == NOT_IN_INDEX
        assert run.error["caught"] is True
        assert conf_d(system.root) == []
    else:
        assert run.error is None
        assert conf_d(system.root) == ["zzz-ipa.conf"]
        system.shell(REMOVE_LEFTOVERS)
    # docs/freeipa.md's commands for either: (remove both of FreeIPA's files,) restart Unbound.
    resolvers.append(system.restart_unbound(dot_lab.network))
    assert conf_d(system.root) == ["edns-forward.conf"]
    assert answers(resolvers[0], dot_lab)


# -- Applying again after FreeIPA left ----------------------------------------------------


def refusal_commands(result):
    """The commands apply's refusal names, after its last ': ' (run as written)."""
    assert result.returncode == 1
    return result.stderr.rstrip().rsplit("then apply again: ", 1)[1]


@pytest.mark.parametrize("backend", ["unbound", "dnsconfd"])
@pytest.mark.parametrize("name", DOT_STATES)
def test_apply_after_uninstall_names_what_puts_the_root_right(host, name, backend, dot_lab,
                                                              resolvers):
    require_tools("unbound-checkconf")
    system = host(name, backend=backend)
    system.client("enroll")
    first = system.client("uninstall")
    refused = system.apply()
    if first.error is not None:
        # FreeIPA still counts itself installed: uninstall it again, as the refusal says.
        assert "its uninstall stopped half-way ('No such file name in the index'): its " \
            "Unbound forwarder is gone" in refused.stderr
        assert "run ipa-client-install --uninstall again, which completes it" in \
            refused.stderr
        assert system.client("uninstall").error is None
        refused = system.apply()

    subprocess.run(["sh", "-c", refusal_commands(refused)], check=True, timeout=60)
    again = system.apply()

    assert again.returncode == 0, again.stderr
    assert not below(system.root, c.FREEIPA_NM_CONF_PATH).exists()
    assert not below(system.root, c.FREEIPA_UNBOUND_CONF_PATH).exists()
    if backend == "unbound":
        assert conf_d(system.root) == ["edns-forward.conf"]
        resolvers.append(system.restart_unbound(dot_lab.network))
        assert answers(resolvers[0], dot_lab)
    else:
        assert system.read(c.UNBOUND_CONF_DIR + "/unbound.conf") == \
            DNSCONFD_UNBOUND_INCLUDE.encode()


@pytest.mark.parametrize("name", SETS_ASIDE)
def test_apply_after_a_failed_install_puts_back_what_freeipa_set_aside(host, name):
    system = host(name, backend="dnsconfd")
    system.client("failed-install")
    system.client("rollback")
    refused = system.apply()

    commands = refusal_commands(refused)
    assert commands == "rm -f %s && cp -p %s/%s %s" % (
        below(system.root, c.FREEIPA_NM_CONF_PATH),
        below(system.root, c.FREEIPA_SYSRESTORE_DIR),
        next(path.name for path in below(system.root, c.FREEIPA_SYSRESTORE_DIR).iterdir()
             if path.name.endswith("-unbound.conf")),
        below(system.root, c.UNBOUND_CONF_DIR + "/unbound.conf"))
    subprocess.run(["sh", "-c", commands], check=True, timeout=60)

    assert system.apply().returncode == 0
    assert conf_d(system.root) == ["unbound.conf"]


def test_docs_freeipa_says_what_these_tests_run():
    page = (Path(__file__).parents[1] / "docs" / "freeipa.md").read_text()
    for command in (REMOVE_LEFTOVERS, RESTART_UNBOUND, UNINSTALL):
        assert "`%s`" % command in page, command
