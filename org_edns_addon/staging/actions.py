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
with the reason, never failed.
"""

import logging
import os
import posixpath
import re
import shutil
import subprocess
from typing import Sequence

from org_edns_addon import constants as c
from org_edns_addon.confinement import RootError, lexists, read_existing
from org_edns_addon.fileio import error_text, symlink_in_directory
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
            output = (result.stderr or result.stdout).strip().splitlines()
            raise StagingError(_("%s failed with exit code %d%s") % (
                " ".join(argv), result.returncode, ": " + output[-1] if output else ""))


# What systemd takes as a unit name (unit_name_is_valid() in src/basic/unit-name.c): plain
# characters, an optional @instance, a known type; nothing that could name another directory.
_UNIT_NAME = re.compile(r"[A-Za-z0-9:_.\\-]+(@[A-Za-z0-9:_.\\-]*)?\.(service|socket|target|"
                        r"device|mount|automount|swap|timer|path|slice|scope)\Z")
_UNIT_NAME_MAX = 255
# A unit file is a few hundred bytes; a larger "unit" in a hostile root is not read.
_MAX_UNIT_FILE_BYTES = 1024 * 1024


def is_unit_name(name):
    """Whether NAME is a plain systemd unit name (no '/', no '..', a known type)."""
    return len(name) <= _UNIT_NAME_MAX and _UNIT_NAME.match(name) is not None


class _Skip(Exception):
    """The action does not apply to this root; the message says why."""


def _install_section(text):
    """The ``[Install]`` keys of a unit file: {key: [values]} (keys may repeat)."""
    values = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Install]" and "=" in line:
            key, _equals, value = line.partition("=")
            values.setdefault(key.strip(), []).extend(value.split())
    return values


class ActionRunner:
    """Runs a plan's actions for one root, or says why an action is skipped."""

    def __init__(self, root, runner, report):
        self.root = root
        self.runner = runner
        self.report = report

    @property
    def is_running_system(self):
        return self.root.real == "/"

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
        if self.unit_file(unit) is None:
            raise _Skip(_("%s is not installed") % unit)
        self.runner.run([c.SYSTEMCTL, "restart", unit])
        return None

    def stop(self, unit):
        """Stop UNIT, which the last apply started and this one no longer needs."""
        self.require_running_system()
        if not os.path.isdir(c.SYSTEMD_RUNNING_MARKER):
            raise _Skip(_("systemd is not running"))
        if self.unit_file(unit) is None:
            raise _Skip(_("%s is not installed") % unit)
        self.runner.run([c.SYSTEMCTL, "stop", unit])
        return None

    def _systemctl_usable(self):
        return self.has_binary(c.SYSTEMCTL) and shutil.which(c.SYSTEMCTL) is not None

    def unit_file(self, unit):
        """(path, text) of UNIT's file below the root, or None if it is not installed."""
        for directory in c.SYSTEMD_UNIT_DIRS:
            path = posixpath.join(directory, unit)
            try:
                existing = read_existing(self.root.place(path), limit=_MAX_UNIT_FILE_BYTES)
            except (OSError, RootError):
                continue
            if existing.kind == "file":
                return path, existing.content.decode("utf-8", "replace")
        return None

    def install_links(self, unit, path, text):
        """The links ``systemctl enable`` makes for UNIT from its [Install] section (TEXT,
        of the unit file at PATH); a name there that is not a unit name is refused, as
        systemctl refuses it, before any link is made."""
        install = _install_section(text)
        for key in ("WantedBy", "RequiredBy", "Alias"):
            for name in install.get(key, []):
                if not is_unit_name(name):
                    raise StagingError(_("%s has %s=%s, which is not a unit name; no link made "
                                       "(fix or remove that line)") % (
                                           self.root.shown(path), key, name[:80]))
        links = []
        for key, suffix in (("WantedBy", ".wants"), ("RequiredBy", ".requires")):
            links += [posixpath.join(c.SYSTEMD_ENABLE_DIR, wanting + suffix, unit)
                      for wanting in install.get(key, [])]
        links += [posixpath.join(c.SYSTEMD_ENABLE_DIR, alias) for alias in install.get("Alias", [])]
        return links

    def enable(self, unit):
        found = self.unit_file(unit)
        if found is None:
            raise _Skip(_("%s is not installed in %s") % (unit, self.root.path))
        if self._systemctl_usable():
            self.runner.run([c.SYSTEMCTL, "--root=%s" % self.root.real, "enable", unit])
            return None
        path, text = found
        made = []
        for link in self.install_links(unit, path, text):
            existing = read_existing(self.root.place(link))
            if existing.kind != "symlink" or existing.link != path:
                place = self.root.place(link, create=True)
                symlink_in_directory(place.dir_fd, place.name, path)
                made.append(link)
        return _("%s is not installed in %s; made the [Install] links of %s: %s") % (
            c.SYSTEMCTL, self.root.path, path, ", ".join(made) or _("already there"))

    def disable(self, unit):
        found = self.unit_file(unit)
        if self._systemctl_usable() and found is not None:
            self.runner.run([c.SYSTEMCTL, "--root=%s" % self.root.real, "disable", unit])
            return None
        links = self.install_links(unit, *found) if found else []
        links += [link for link in self.wants_links(unit) if link not in links]
        removed = []
        for link in links:
            place = self.root.place(link)
            if read_existing(place).kind == "symlink":
                os.unlink(place.name, dir_fd=place.dir_fd)
                removed.append(link)
        if not removed:
            raise _Skip(_("%s is not enabled in %s") % (unit, self.root.path))
        return _("removed %s") % ", ".join(removed)

    def wants_links(self, unit):
        """Every ``*.wants/UNIT`` and ``*.requires/UNIT`` path below the enable directory."""
        place = self.root.place(posixpath.join(c.SYSTEMD_ENABLE_DIR, unit))
        if place.missing:
            return []
        return [posixpath.join(c.SYSTEMD_ENABLE_DIR, entry, unit)
                for entry in sorted(os.listdir(place.dir_fd))
                if entry.endswith((".wants", ".requires"))]
