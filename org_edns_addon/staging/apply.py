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

"""Writing a plan below a root: checked first, atomic, rolled back on failure, durable.

The whole plan is checked before the first write (every path resolved under
the root, nothing that is not a regular file replaced). One apply at a time
holds a root (a lock on its directory). The files are then written in one
transaction, with SIGINT, SIGTERM and SIGHUP held back from its first write
to the end of the last action (roll-back included; see ``_apply_changes``):

1. every new file is written as a temporary file next to its place;
2. one syncfs(2) per filesystem makes all their data durable;
3. each file to be replaced gets a second name (a hard link to its inode, in
   its directory): the old file itself, with its owner, mode, extended
   attributes (SELinux label) and other hard links, kept without using space;
4. each temporary file is renamed over its place (atomic for any reader);
5. one syncfs(2) per filesystem makes the new names durable.

Durability needs the data on disk before a name points at it (2 before 4),
and the names on disk before success is reported (5); a journal commit per
filesystem does both for any number of files, where an fsync per file and
per directory costs one commit each. A failure or a signal anywhere in 1-5
renames each kept file back (no space needed, so a full disk cannot stop
it), removes the new ones and the directories made, and says exactly which
files were restored. A signal after step 5 cuts nothing: every action runs
(units, the trust store) and the signal is delivered after the last. A
SIGKILL leaves temporary files (``.edns-*.tmp``): the next apply removes them
from the directories it writes.
"""

import fcntl
import logging
import os
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from org_edns_addon.confinement import (ConfinedRoot, Existing, NotAFileError, RootError,
                                        path_components, read_existing)
from org_edns_addon.fileio import (TEMPORARY_NAME, deliver, error_text, signals_deferred,
                                   sync_filesystems, take_pending_signals, temporary_name,
                                   write_temporary)
from org_edns_addon.i18n import _
from org_edns_addon.staging import StagingError
from org_edns_addon.staging.actions import ActionRunner, CommandRunner
from org_edns_addon.staging.freeipa import refuse_beside_freeipa_dns_over_tls
from org_edns_addon.staging.plan import PlannedFile, build_plan

log = logging.getLogger(__name__)


class ApplyInterrupted(KeyboardInterrupt):
    """Ctrl-C, SIGTERM or SIGHUP stopped an apply; the message says what the root holds."""


@dataclass
class ApplyReport:
    written: List[str] = field(default_factory=list)
    unchanged: List[str] = field(default_factory=list)
    removed: List[str] = field(default_factory=list)      # stale temporary files, as shown
    actions_done: List[str] = field(default_factory=list)
    actions_skipped: List[Tuple[str, str]] = field(default_factory=list)

    def __str__(self):
        lines = [_("removed %s (a temporary file an interrupted run left)") % path
                 for path in self.removed]
        lines += [_("wrote %s") % path for path in self.written]
        lines += [_("unchanged %s") % path for path in self.unchanged]
        lines += [_("ran: %s") % action for action in self.actions_done]
        lines += [_("skipped: %s (%s)") % skipped for skipped in self.actions_skipped]
        return "\n".join(lines)


def check_plan(plan, root):
    """Check every file of PLAN below ROOT (a ConfinedRoot) before anything is written.

    Returns (the files that need writing, each with what its path holds now,
    the paths already up to date). Raises StagingError naming every refused path.
    """
    refused = []
    changes = []
    unchanged = []
    seen = set()
    for planned in plan.files:
        shown = root.shown(planned.path)
        if planned.path in seen:
            refused.append(_("%s is planned twice") % shown)
            continue
        seen.add(planned.path)
        try:
            place = root.place(planned.path)
        except RootError as error:
            refused.append(str(error))
            continue
        except OSError as error:
            refused.append("%s: %s" % (shown, error_text(error)))
            continue
        try:
            existing = read_existing(place)
        except (OSError, NotAFileError) as error:
            refused.append("%s: %s" % (shown, error_text(error)))
            continue
        if existing.kind == "file" and existing.content == planned.content \
                and existing.mode == planned.mode:
            unchanged.append(planned.path)
        elif not os.access(".", os.W_OK, dir_fd=place.dir_fd):
            parents = path_components(planned.path)[:-1]
            blocking = root.shown("/" + "/".join(
                parents[:len(parents) - len(place.missing)])).rstrip("/") or "/"
            refused.append(_("%s: its directory is not writable (%s); make that directory "
                           "writable or choose another root") % (shown, blocking))
        else:
            changes.append((planned, Existing(existing.kind)))   # its content is not kept
    if refused:
        raise StagingError(_("nothing was written: %s") % "; ".join(refused))
    return changes, unchanged


@dataclass
class _Change:
    planned: PlannedFile
    existing: Existing
    temporary: Optional[bytes] = None     # the new file, before it replaces the old one
    backup: Optional[bytes] = None        # a second name of the old file, for the roll-back
    replaced: bool = False


class _Failed(Exception):
    """A step of the transaction failed; the message says which and why."""


class _Transaction:
    """The write phase of one apply (see the module's docstring); runs with signals held."""

    def __init__(self, root, changes):
        self.root = root
        self.changes = [_Change(planned, existing) for planned, existing in changes]
        self.signals = []
        self.summary = _("nothing was written")   # what the root holds, once it is known
        self._devices = {}   # st_dev -> an fd on that filesystem, for syncfs

    def _place(self, change, create=False):
        place = self.root.place(change.planned.path, create=create)
        device = os.fstat(place.dir_fd).st_dev
        if device not in self._devices:
            self._devices[device] = os.dup(place.dir_fd)
        return place

    def _stop_if_interrupted(self):
        self.signals += take_pending_signals()
        if self.signals:
            raise _Failed(None)

    def _step(self, what, change, function, *args, **kwargs):
        """FUNCTION(*ARGS, **KWARGS); on an error, _Failed naming WHAT (with a %s for the
        path of CHANGE)."""
        try:
            return function(*args, **kwargs)
        except (OSError, RootError) as error:
            raise _Failed(_("%s failed (%s)") % (what % self.root.shown(change.planned.path),
                                              error_text(error))) from None

    def _sync(self, what):
        try:
            sync_filesystems(self._devices.values())
        except OSError as error:
            raise _Failed(_("making %s durable failed (%s)") % (what, error_text(error))) from None

    def commit(self):
        """Steps 1-5; raises _Failed (with no message when a signal came)."""
        for change in self.changes:
            self._stop_if_interrupted()
            place = self._step(_("writing %s"), change, self._place, change, create=True)
            change.temporary = self._step(_("writing %s"), change, write_temporary,
                                          place.dir_fd, change.planned.content,
                                          change.planned.mode)
        self._stop_if_interrupted()
        self._sync(_("the written files"))
        for change in self.changes:
            if change.existing.kind != "absent":
                keeping = _("keeping the previous %s for a roll-back")
                place = self._step(keeping, change, self._place, change)
                backup = temporary_name()
                self._step(keeping, change, os.link, place.name, backup,
                           src_dir_fd=place.dir_fd, dst_dir_fd=place.dir_fd,
                           follow_symlinks=False)
                change.backup = backup
        for change in self.changes:
            self._stop_if_interrupted()
            place = self._step(_("replacing %s"), change, self._place, change)
            self._step(_("replacing %s"), change, os.rename, change.temporary, place.name,
                       src_dir_fd=place.dir_fd, dst_dir_fd=place.dir_fd)
            change.temporary, change.replaced = None, True
        self._sync(_("the new file names"))
        self._stop_if_interrupted()
        for change in self.changes:
            if change.backup is not None:
                try:
                    place = self._place(change)
                    os.unlink(change.backup, dir_fd=place.dir_fd)
                except (OSError, RootError) as error:   # a stale temporary, removed next time
                    log.warning("cannot remove a temporary file next to %s: %s",
                                self.root.shown(change.planned.path), error_text(error))
                change.backup = None

    def roll_back(self):
        """Undo what commit did; return (the paths restored, sentences for what was not)."""
        restored, problems = [], []
        for change in reversed(self.changes):
            shown = self.root.shown(change.planned.path)
            try:
                place = self._place(change)
            except (OSError, RootError) as error:
                if change.replaced:
                    problems.append(_("%s could not be restored (%s)") % (shown, error_text(error)))
                continue
            if change.replaced:
                try:
                    if change.backup is not None:
                        os.rename(change.backup, place.name, src_dir_fd=place.dir_fd,
                                  dst_dir_fd=place.dir_fd)
                        change.backup = None
                    else:
                        os.unlink(place.name, dir_fd=place.dir_fd)
                    restored.append(change.planned.path)
                except OSError as error:
                    problems.append(_("%s could not be restored (%s); it holds the new content")
                                    % (shown, error_text(error)))
                    change.backup = None   # the old file stays under its temporary name
            for name in (change.temporary, change.backup):
                if name is not None:
                    try:
                        os.unlink(name, dir_fd=place.dir_fd)
                    except OSError:
                        pass
        for directory in self.root.remove_created_directories():
            problems.append(_("%s could not be removed") % directory)
        if restored:
            try:
                sync_filesystems(self._devices.values())
            except OSError as error:
                problems.append(_("the restored files may not be on disk yet (%s)")
                                % error_text(error))
        return list(reversed(restored)), problems

    def close(self):
        for fd in self._devices.values():
            os.close(fd)
        self._devices.clear()


def _outcome(root, restored, problems):
    """What the root holds after a roll-back, as a sentence."""
    listed = ", ".join(root.shown(path) for path in restored)
    if problems:
        return _("the roll-back is incomplete: %s; restored to their previous state: %s") % (
            "; ".join(problems), listed or "none")
    if restored:
        return _("nothing was applied: restored to their previous state: %s") % listed
    return _("nothing was applied: no file had been replaced yet")


class _RolledBack(Exception):
    """The transaction failed or was stopped, and was rolled back; the message says
    what the root holds."""


def _write_files(transaction):
    """Run TRANSACTION (the caller holds the signals back) and return the paths written;
    on a failure or a signal, roll back and raise _RolledBack. The signals that stopped
    it, and those that came during the roll-back, are in ``transaction.signals``."""
    root = transaction.root
    try:
        try:
            transaction.commit()
        except _Failed as failed:
            failure = failed.args[0]
            restored, problems = transaction.roll_back()
            summary = _outcome(root, restored, problems)
            # Signals that came during the roll-back are part of this interrupt.
            transaction.signals += take_pending_signals()
            raise _RolledBack("%s; %s" % (failure, summary) if failure else summary) from None
    finally:
        transaction.close()
    return [change.planned.path for change in transaction.changes]


def remove_stale_temporaries(root, plan):
    """Remove the temporary files a killed run left in the directories of PLAN; return
    their paths as shown."""
    removed = []
    for directory in sorted({planned.path.rpartition("/")[0] for planned in plan.files}):
        try:
            place = root.place(directory + "/x")
            names = [] if place.missing else os.listdir(place.dir_fd)
        except (OSError, RootError):
            continue    # refused or unreadable: check_plan has said why
        for name in names:
            if not TEMPORARY_NAME.match(name):
                continue
            try:
                os.unlink(os.fsencode(name), dir_fd=place.dir_fd)
            except OSError as error:   # a directory of that name, a read-only one: left
                log.warning("cannot remove %s: %s", root.shown(directory + "/" + name),
                            error_text(error))
                continue
            removed.append(root.shown(directory + "/" + name))
    return removed


def _lock(root):
    """Hold ROOT for this apply (released when its descriptors close); refuse if another
    apply holds it."""
    try:
        fcntl.flock(root.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise StagingError(_("nothing was written: another edns-addon apply is writing below "
                           "%s; run this one again when it has finished") % root.path) from None
    except OSError as error:   # a filesystem without locks: one apply at a time is on the user
        log.warning("cannot lock %s (%s); writing without a lock", root.path,
                    error_text(error))


def _run_actions(root, runner, report, actions):
    """Run ACTIONS (the caller holds the signals back); return the StagingError of those
    that failed, or None.

    Once the files are written, the root is safe only with every action done:
    NetworkManager at dns=dnsconfd, dnsconfd not enabled and systemd-resolved
    still enabled resolves in plaintext. So a signal never cuts the actions; it
    is delivered after them. The commands inherit the held signals (a signal
    mask survives fork and exec), so a Ctrl-C sent to the terminal's whole
    process group, or a SIGTERM to every process of the unit, does not kill
    ``update-ca-trust extract`` half-way either. A command that never ends can
    then be stopped by SIGKILL alone.
    """
    try:
        ActionRunner(root, runner, report).run_all(actions)
    except StagingError as error:
        return error
    return None


def _apply_changes(confined, changes, runner, report, actions):
    """The transaction, then the actions, as one step that no signal cuts (SIGINT,
    SIGTERM and SIGHUP held from the first write to the last action's end): a signal
    during the transaction rolls it back and no action runs; one after it is delivered
    once every action has run. Raises ApplyInterrupted (a signal came) or StagingError."""
    transaction = _Transaction(confined, changes)
    signals, failure = [], None
    # What to say is decided before signals are let through again, so that a signal
    # at any moment after that finds it.
    summary = _("nothing was written")
    late = False
    try:
        with signals_deferred():
            try:
                report.written = _write_files(transaction)
            except _RolledBack as rolled:
                failure = summary = str(rolled)
                signals = transaction.signals
            else:
                written = ", ".join(confined.shown(p) for p in report.written) \
                    or _("all were up to date")
                summary = _("the files are written (%s); no action ran") % written
                failed = _run_actions(confined, runner, report, actions)
                if failed is not None:
                    failure = summary = str(failed)
                else:
                    summary = _("the files are written (%s) and every action ran to its "
                                "end; done: %s") % (
                                    written, ", ".join(report.actions_done) or _("nothing"))
                signals = take_pending_signals()
    except KeyboardInterrupt:   # a signal delivered as signals were let through again
        late = True
    if signals:
        try:
            deliver(signals)   # a handler runs now, or the signal ends us as it would
        except KeyboardInterrupt:
            pass
    if late or signals:
        raise ApplyInterrupted(summary)
    if failure is not None:
        raise StagingError(failure)
    for path in report.written:
        log.info("wrote %s", confined.shown(path))


def apply_plan(plan, root, runner=None):
    """Write PLAN's files below ROOT, then run its actions; return what was done.

    The whole plan is checked before the first write; a failed write restores
    every file written before it (StagingError says what was and was not applied);
    a signal does the same and raises ApplyInterrupted; a signal once the files are
    written lets every action run, then raises ApplyInterrupted saying so.
    """
    runner = runner or CommandRunner()
    report = ApplyReport()
    try:
        confined = ConfinedRoot(root)
    except RootError as error:
        raise StagingError(str(error)) from None
    with confined:
        try:
            _lock(confined)
            refuse_beside_freeipa_dns_over_tls(plan, confined)
            changes, report.unchanged = check_plan(plan, confined)
            with signals_deferred():
                report.removed = remove_stale_temporaries(confined, plan)
        except ApplyInterrupted:
            raise
        except KeyboardInterrupt:
            raise ApplyInterrupted(_("nothing was written")) from None
        try:
            _apply_changes(confined, changes, runner, report, plan.actions)
        except ApplyInterrupted:
            raise
        except KeyboardInterrupt:   # between the last action's end and the return
            raise ApplyInterrupted(_("the files are written and every action ran to its "
                                   "end")) from None
    return report


def stage(data, phase, root, runner=None):
    """Build the plan of PHASE and apply it below ROOT."""
    return apply_plan(build_plan(data, phase, root), root, runner)
