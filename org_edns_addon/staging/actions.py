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

"""What runs after the files are written: units, the trust store, NetworkManager.

Every command runs through one ``CommandRunner``; an action that does not
apply to a root (not the running system, a unit not installed) is skipped
with the reason, never failed. Units are enabled and disabled by this
machine's ``systemctl --root``, which alone reads their [Install] sections.
"""

import logging
import os
import posixpath
import re
import shutil
import subprocess
from typing import Sequence

from org_edns_addon import constants as c
from org_edns_addon.confinement import RootError, lexists
from org_edns_addon.fileio import error_text
from org_edns_addon.i18n import _
from org_edns_addon.staging import StagingError
from org_edns_addon.staging.plan import ActionKind

log = logging.getLogger(__name__)


class CommandRunner:
    """The one place commands run; tests may pass a recorder."""

    def run(self, argv: Sequence[str]) -> None:
        log.info("running %s", " ".join(argv))
        try:
            result = subprocess.run(list(argv), stdin=subprocess.DEVNULL,
                                    capture_output=True, text=True, check=False)
        except OSError as error:
            raise StagingError(_("cannot run %s: %s") % (argv[0], error_text(error))) from None
        if result.returncode != 0:
            # Every line: systemctl says why it failed first, then warnings.
            output = "; ".join(line.strip() for line in
                               (result.stderr or result.stdout).strip().splitlines())
            raise StagingError(_("%s failed with exit code %d%s") % (
                " ".join(argv), result.returncode, ": " + output if output else ""))


# What systemd takes as a unit name (unit_name_is_valid() in src/basic/unit-name.c): plain
# characters, an optional @instance, a known type; nothing that could name another directory.
_UNIT_NAME = re.compile(r"[A-Za-z0-9:_.\\-]+(@[A-Za-z0-9:_.\\-]*)?\.(service|socket|target|"
                        r"device|mount|automount|swap|timer|path|slice|scope)\Z")
_UNIT_NAME_MAX = 255


def is_unit_name(name):
    """Whether NAME is a plain systemd unit name (no '/', no '..', a known type)."""
    return len(name) <= _UNIT_NAME_MAX and _UNIT_NAME.match(name) is not None


def is_running_system(root):
    """Whether ROOT is this process's / (symlinks resolved): the running system."""
    return os.path.realpath(root) == "/"


class _Skip(Exception):
    """The action does not apply to this root; the message says why."""


class ActionRunner:
    """Runs a plan's actions for one root, or says why an action is skipped."""

    def __init__(self, root, runner, report):
        self.root = root
        self.runner = runner
        self.report = report

    @property
    def is_running_system(self):
        return is_running_system(self.root.real)

    def has_binary(self, name):
        """Whether the root has NAME installed (resolved under the root, never on this host)."""
        for directory in c.ROOT_BINARY_DIRS:
            try:
                if lexists(self.root.place(posixpath.join(directory, name))):
                    return True
            except (OSError, RootError):
                continue
        return False

    def run_all(self, actions):
        failures, failed = [], []
        for action in actions:
            try:
                how = self.run(action)
            except _Skip as reason:
                log.info("skipped %s: %s", action.describe(), reason)
                self.report.actions_skipped.append((action.describe(), str(reason)))
                continue
            except (StagingError, RootError, OSError) as error:
                failures.append(_("%s failed: %s") % (action.describe(), error_text(error)))
                failed.append(action.describe())
                continue
            self.report.actions_done.append(action.describe() + (" (%s)" % how if how else ""))
        if failures:
            raise StagingError(_("the files are written (%s), but %s; done: %s") % (
                ", ".join(self.root.shown(p) for p in self.report.written) or _("all unchanged"),
                "; ".join(failures), ", ".join(self.report.actions_done) or "nothing"),
                files_written=True, failed_steps=failed)

    def run(self, action):
        kind = action.kind
        if kind == ActionKind.UPDATE_CA_TRUST:
            return self.update_ca_trust()
        if kind == ActionKind.ENABLE_UNIT:
            return self.enable(action.argument)
        if kind == ActionKind.DISABLE_UNIT:
            return self.disable(action.argument)
        if kind == ActionKind.RESTART_UNIT:
            return self.restart(action.argument)
        if kind == ActionKind.STOP_UNIT:
            return self.stop(action.argument)
        return self.reload_networkmanager()

    def update_ca_trust(self):
        if not self.has_binary(c.UPDATE_CA_TRUST_COMMAND[0]):
            raise _Skip(_("%s is not installed in %s") % (c.UPDATE_CA_TRUST_COMMAND[0],
                                                       self.root.path))
        argv = list(c.UPDATE_CA_TRUST_COMMAND)
        if not self.is_running_system:
            argv = [c.CHROOT, self.root.real] + argv
        self.runner.run(argv)
        return None

    def require_running_system(self):
        if not self.is_running_system:
            raise _Skip(_("%s is not the running system") % self.root.path)

    def reload_networkmanager(self):
        self.require_running_system()
        if shutil.which(c.NM_RELOAD_COMMAND[0]) is None:
            raise _Skip(_("%s is not installed") % c.NM_RELOAD_COMMAND[0])
        self.runner.run(list(c.NM_RELOAD_COMMAND))
        return None

    def restart(self, unit):
        self.require_running_system()
        if not os.path.isdir(c.SYSTEMD_RUNNING_MARKER):
            raise _Skip(_("systemd is not running"))
        if not self.unit_installed(unit):
            raise _Skip(_("%s is not installed") % unit)
        self.runner.run([c.SYSTEMCTL, "restart", unit])
        return None

    def stop(self, unit):
        """Stop UNIT, which the last apply started and this one no longer needs."""
        self.require_running_system()
        if not os.path.isdir(c.SYSTEMD_RUNNING_MARKER):
            raise _Skip(_("systemd is not running"))
        if not self.unit_installed(unit):
            raise _Skip(_("%s is not installed") % unit)
        self.runner.run([c.SYSTEMCTL, "stop", unit])
        return None

    def unit_installed(self, unit):
        """Whether UNIT's file is below the root, in one of systemd's unit directories."""
        for directory in c.SYSTEMD_UNIT_DIRS:
            try:
                if lexists(self.root.place(posixpath.join(directory, unit))):
                    return True
            except (OSError, RootError):
                continue
        return False

    def systemctl(self, verb, unit):
        """``systemctl --root=ROOT VERB -- UNIT`` with this machine's systemctl, as
        osbuild's ``org.osbuild.systemd`` stage and Anaconda (``pyanaconda/core/service.py``
        ``_run_systemctl``) run it: systemctl alone reads the unit's [Install] section.

        A unit not installed in the root is skipped, with the reason (its package is
        the installation's requirement, ``service/requirements.py``). A missing systemctl
        is a failure, not a skip: the files name a resolver that would never start, or
        leave systemd-resolved forwarding in plaintext."""
        if not self.unit_installed(unit):
            raise _Skip(_("%s is not installed in %s") % (unit, self.root.path))
        if shutil.which(c.SYSTEMCTL) is None:
            raise StagingError(_("%s is not installed on this machine; install systemd here, "
                                 "or run '%s' on a machine that has it") % (
                                     c.SYSTEMCTL, " ".join(self.systemctl_command(verb, unit))))
        self.runner.run(self.systemctl_command(verb, unit))
        return None

    def systemctl_command(self, verb, unit):
        return [c.SYSTEMCTL, "--root=%s" % self.root.real, verb, "--", unit]

    def enable(self, unit):
        return self.systemctl("enable", unit)

    def disable(self, unit):
        return self.systemctl("disable", unit)
