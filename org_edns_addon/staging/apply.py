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

"""Writing a plan below a root: checked first, confined, atomic, rolled back on failure.

One transaction, taken in two ways (``apply_plan``'s RECORD says which).

As an installer writes, everywhere but a live host's / (the module's two phases,
``edns-addon apply`` below a tree being built, ``make install``): the whole plan
is checked before the first write (every path resolved under the root, nothing
that is not a regular file replaced); then, with SIGINT, SIGTERM and SIGHUP held
back from the first write to the end of the last action (see ``_apply_changes``):

1. every new file is written as a temporary file next to its place;
3. each file to be replaced gets a second name (a hard link to its inode, in
   its directory): the old file itself, with its owner, mode, extended
   attributes (SELinux label) and other hard links, kept without using space;
4. each temporary file is renamed over its place (atomic for any reader).

A failure or a signal anywhere in 1-4 renames each kept file back (no space
needed, so a full disk cannot stop it), removes the new ones and the
directories made, and says exactly which files were restored. A signal after
step 4 cuts nothing: every action runs (units, the trust store) and the signal
is delivered after the last. Nothing else is written and nothing is synced:
the installer's root is a RAM overlay, Anaconda syncs the target itself, and
a tree being built is its builder's to sync. With a ``KeptRecord`` (the
installer phase, which a spoke runs again after each change), what the last
apply wrote and this plan no longer has is put back in the same transaction
(``staging/record.py``), and the units it no longer needs are stopped.

On a live host's / (``edns-addon apply --root /``: a ``HostRecord``), a
person's running system, where nobody syncs after us and the next apply may
come a year later, three steps more protect them. One apply at a time holds
the host (a lock on apply's state directory). The record of what was written
is on disk, in the same transaction; the units the last apply enabled and this
one no longer needs are disabled (or stopped). And the transaction is durable:

0. the journal names every temporary file and second name to be made;
2. one syncfs(2) per filesystem makes all the new files' data durable;
5. one syncfs(2) per filesystem makes the new names durable.

Durability needs the data on disk before a name points at it (2 before 4),
and the names on disk before success is reported (5); a journal commit per
filesystem does both for any number of files, where an fsync per file and
per directory costs one commit each. A SIGKILL leaves temporary files
(``.edns-*.tmp``) and the journal: the next apply removes the temporaries it
names, never a file for its name alone.
"""

import fcntl
import logging
import os
import posixpath
import stat
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from org_edns_addon import constants as c
from org_edns_addon.confinement import (ConfinedRoot, Existing, NotAFileError, PathKind,
                                        RootError, path_components, read_existing)
from org_edns_addon.fileio import (TEMPORARY_NAME, deliver, error_text, signals_deferred,
                                   sync_filesystems, take_pending_signals, temporary_name,
                                   write_temporary)
from org_edns_addon.i18n import _
from org_edns_addon.model import Phase
from org_edns_addon.staging import StagingError
from org_edns_addon.staging.actions import ActionRunner, CommandRunner, is_unit_name
from org_edns_addon.staging.freeipa import refuse_beside_freeipa_dns_over_tls
from org_edns_addon.staging.plan import Action, ActionKind, PlannedFile, build_plan
from org_edns_addon.staging.record import Journal, Record, digest, previous_of

log = logging.getLogger(__name__)


class ApplyInterrupted(KeyboardInterrupt):
    """Ctrl-C, SIGTERM or SIGHUP stopped an apply; the message says what the root holds."""


@dataclass
class ApplyReport:
    written: List[str] = field(default_factory=list)
    unchanged: List[str] = field(default_factory=list)
    removed: List[str] = field(default_factory=list)      # stale temporary files, as shown
    reverted: List[str] = field(default_factory=list)     # sentences: what was put back
    kept: List[str] = field(default_factory=list)         # sentences: what was left, and why
    actions_done: List[str] = field(default_factory=list)
    actions_skipped: List[Tuple[str, str]] = field(default_factory=list)

    def __str__(self):
        lines = [_("removed %s (a temporary file an interrupted run left)") % path
                 for path in self.removed]
        lines += list(self.kept)
        lines += list(self.reverted)
        lines += [_("wrote %s") % path for path in self.written]
        lines += [_("unchanged %s") % path for path in self.unchanged]
        lines += [_("ran: %s") % action for action in self.actions_done]
        lines += [_("skipped: %s (%s)") % skipped for skipped in self.actions_skipped]
        return "\n".join(lines)


def check_files(files, root):
    """Check every one of FILES below ROOT (a ConfinedRoot) before anything is written.

    Returns (the files that need writing, each with what its path holds now, the paths
    already up to date, {path: what it holds now (an Existing)}). Raises StagingError
    naming every refused path.
    """
    refused = []
    changes = []
    unchanged = []
    held = {}
    seen = set()
    for planned in files:
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
        held[planned.path] = existing
        if existing.kind is PathKind.FILE and existing.content == planned.content \
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
    return changes, unchanged, held


@dataclass
class _Change:
    planned: PlannedFile
    existing: Existing
    link: Optional[str] = None            # a symlink to put there instead of a file
    remove: bool = False                  # only remove what the path holds
    revert: bool = False                  # putting back what the path held before
    new_name: bytes = field(default_factory=temporary_name)
    second_name: bytes = field(default_factory=temporary_name)
    temporary: Optional[bytes] = None     # the new file, before it replaces the old one
    backup: Optional[bytes] = None        # a second name of the old file, for the roll-back
    replaced: bool = False

    @property
    def directory(self):
        return self.planned.path.rpartition("/")[0] or "/"


def _exists(dir_fd, name):
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return True


class _Failed(Exception):
    """A step of the transaction failed; the message says which and why."""


class _Transaction:
    """The write phase of one apply (see the module's docstring); runs with signals held."""

    def __init__(self, root, changes, durable=False):
        self.root = root
        self.changes = changes
        self.signals = []
        self.durable = durable
        self.journal = durable and bool(changes)   # whether step 0 writes one
        self.left = []       # what a roll-back could not remove, as shown
        self._devices = {}   # st_dev -> an fd on that filesystem, for syncfs

    def _place(self, change, create=False):
        place = self.root.place(change.planned.path, create=create)
        device = os.fstat(place.dir_fd).st_dev
        if device not in self._devices:
            self._devices[device] = os.dup(place.dir_fd)
        return place

    def _shown(self, change, name):
        return self.root.shown(posixpath.join(change.directory, name.decode("ascii")))

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
        if not self.durable:
            return
        try:
            sync_filesystems(self._devices.values())
        except OSError as error:
            raise _Failed(_("making %s durable failed (%s)") % (what, error_text(error))) from None

    def _write_journal(self):
        """Step 0: name every temporary file and second name before any exists. Not
        synced: after a power cut a temporary without its journal stays (never removed
        by mistake); step 2 makes both durable."""
        journal = Journal(
            [(change.directory, change.new_name.decode("ascii"))
             for change in self.changes if not change.remove],
            [(change.directory, change.second_name.decode("ascii"), change.planned.path)
             for change in self.changes if change.existing.kind is not PathKind.ABSENT])
        try:
            place = self.root.place(c.APPLY_JOURNAL_PATH, create=True)
            temporary = write_temporary(place.dir_fd, journal.to_bytes(), 0o600)
            os.rename(temporary, place.name, src_dir_fd=place.dir_fd, dst_dir_fd=place.dir_fd)
        except (OSError, RootError) as error:
            raise _Failed(_("writing %s failed (%s)") % (
                self.root.shown(c.APPLY_JOURNAL_PATH), error_text(error))) from None

    def remove_journal(self):
        if not self.journal:
            return
        try:
            place = self.root.place(c.APPLY_JOURNAL_PATH)
            os.unlink(place.name, dir_fd=place.dir_fd)
        except FileNotFoundError:
            pass
        except (OSError, RootError) as error:   # it names only files that are gone
            log.warning("cannot remove %s: %s", self.root.shown(c.APPLY_JOURNAL_PATH),
                        error_text(error))

    def commit(self):
        """Steps 0-5 (1, 3 and 4 unless durable); raises _Failed (with no message when a
        signal came)."""
        self._stop_if_interrupted()
        if self.journal:
            self._write_journal()
        for change in self.changes:
            self._stop_if_interrupted()
            place = self._step(_("writing %s"), change, self._place, change, create=True)
            if change.remove:
                continue
            if change.link is not None:
                self._step(_("writing %s"), change, os.symlink,
                           change.link.encode("utf-8", "surrogateescape"),
                           change.new_name, dir_fd=place.dir_fd)
                change.temporary = change.new_name
            else:
                change.temporary = self._step(_("writing %s"), change, write_temporary,
                                              place.dir_fd, change.planned.content,
                                              change.planned.mode, name=change.new_name)
        self._stop_if_interrupted()
        self._sync(_("the written files"))
        for change in self.changes:
            if change.existing.kind is not PathKind.ABSENT:
                keeping = _("keeping the previous %s for a roll-back")
                place = self._step(keeping, change, self._place, change)
                self._step(keeping, change, os.link, place.name, change.second_name,
                           src_dir_fd=place.dir_fd, dst_dir_fd=place.dir_fd,
                           follow_symlinks=False)
                change.backup = change.second_name
        for change in self.changes:
            self._stop_if_interrupted()
            place = self._step(_("replacing %s"), change, self._place, change)
            if change.remove:
                self._step(_("removing %s"), change, os.unlink, place.name,
                           dir_fd=place.dir_fd)
            else:
                self._step(_("replacing %s"), change, os.rename, change.temporary, place.name,
                           src_dir_fd=place.dir_fd, dst_dir_fd=place.dir_fd)
            change.temporary, change.replaced = None, True
        self._sync(_("the new file names"))
        self._stop_if_interrupted()
        left = False
        for change in self.changes:
            if change.backup is not None:
                try:
                    place = self._place(change)
                    os.unlink(change.backup, dir_fd=place.dir_fd)
                except (OSError, RootError) as error:   # named by the journal, kept
                    left = True
                    log.warning("cannot remove %s: %s", self._shown(change, change.backup),
                                error_text(error))
                change.backup = None
        if not left:
            self.remove_journal()

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
                    if change.backup is not None and _exists(place.dir_fd, change.backup):
                        kept = self._shown(change, change.backup)
                        problems.append(_("%s could not be restored (%s); it holds the new "
                                          "content, and the previous file is kept as %s")
                                        % (shown, error_text(error), kept))
                        self.left.append(kept)
                    else:
                        problems.append(_("%s could not be restored (%s); it holds the new "
                                          "content") % (shown, error_text(error)))
                    change.backup = None   # the old file stays under its second name
            for name in (change.temporary, change.backup):
                if name is None:
                    continue
                try:
                    os.unlink(name, dir_fd=place.dir_fd)
                except FileNotFoundError:
                    pass
                except OSError as error:
                    left = self._shown(change, name)
                    self.left.append(left)
                    problems.append(_("%s is left (%s); remove it") % (left, error_text(error)))
        if not self.left:
            self.remove_journal()
        for directory in self.root.remove_created_directories():
            problems.append(_("%s could not be removed") % directory)
        if restored and self.durable:
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
    if problems and restored:
        return _("the roll-back is incomplete: %s; restored to their previous state: %s") % (
            "; ".join(problems), listed)
    if problems:
        return _("the roll-back is incomplete: %s; no file was restored to its previous "
                 "state") % "; ".join(problems)
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
    return transaction.changes


def _inode(root, path):
    place = root.place(path)
    if place.missing:
        return None
    info = os.stat(place.name, dir_fd=place.dir_fd, follow_symlinks=False)
    return info.st_dev, info.st_ino


def remove_stale_temporaries(root, report):
    """Remove what the journal of a killed run names (``staging/record.py``): its
    temporary files, and the second names of old files that are still their place's
    inode; keep, and say, a second name whose place was replaced. Return nothing; the
    paths go to REPORT (``removed``, ``kept``)."""
    try:
        place = root.place(c.APPLY_JOURNAL_PATH)
        existing = read_existing(place)
    except (OSError, RootError):
        return
    journal = Journal.from_bytes(existing.content) if existing.kind is PathKind.FILE else None
    if journal is None:
        return
    for directory, name in journal.temporaries:
        path = posixpath.join(directory, name)
        try:
            entry = root.place(path)
            if entry.missing:
                continue
            info = os.stat(entry.name, dir_fd=entry.dir_fd, follow_symlinks=False)
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
                continue
            os.unlink(entry.name, dir_fd=entry.dir_fd)
        except FileNotFoundError:
            continue
        except (OSError, RootError) as error:   # an append-only directory: said
            report.kept.append(_("%s is left (%s), a temporary file an interrupted run "
                                 "left; remove it") % (root.shown(path), error_text(error)))
            continue
        report.removed.append(root.shown(path))
    for directory, name, of in journal.backups:
        path = posixpath.join(directory, name)
        try:
            second = _inode(root, path)
            if second is None:
                continue
            if second != _inode(root, of):
                report.kept.append(_("kept %s: the previous %s, which an interrupted run "
                                     "replaced; remove it when you no longer need it")
                                   % (root.shown(path), root.shown(of)))
                continue
            entry = root.place(path)
            os.unlink(entry.name, dir_fd=entry.dir_fd)
        except FileNotFoundError:
            continue
        except (OSError, RootError) as error:
            report.kept.append(_("%s is left (%s), a second name of %s an interrupted run "
                                 "left; remove it") % (root.shown(path), error_text(error),
                                                      root.shown(of)))
            continue
        report.removed.append(root.shown(path))
    try:
        place = root.place(c.APPLY_JOURNAL_PATH)
        os.unlink(place.name, dir_fd=place.dir_fd)
        # The journal's own temporary, if a run was killed while writing it: the state
        # directory is apply's alone, so there a name is enough.
        for name in os.listdir(place.dir_fd):
            if TEMPORARY_NAME.match(name):
                os.unlink(os.fsencode(name), dir_fd=place.dir_fd)
                report.removed.append(root.shown(posixpath.join(c.APPLY_STATE_DIR, name)))
    except (OSError, RootError) as error:
        log.warning("cannot remove %s: %s", root.shown(c.APPLY_JOURNAL_PATH), error_text(error))


def _lock(root):
    """Hold the host for this apply: a lock on apply's state directory (made if missing),
    which every apply on it shares; return its descriptor, whose closing releases it.
    StagingError if another apply holds it."""
    try:
        root.place(c.APPLY_RECORD_PATH, create=True)
        fd = root.open_directory(c.APPLY_STATE_DIR)
    except (OSError, RootError) as error:
        raise StagingError(_("nothing was written: %s: %s") % (
            root.shown(c.APPLY_STATE_DIR), error_text(error))) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StagingError(_("nothing was written: another edns-addon apply is writing below "
                           "%s; run this one again when it has finished") % root.path) from None
    except OSError as error:   # a filesystem without locks: one apply at a time is on the user
        log.warning("cannot lock %s (%s); writing without a lock",
                    root.shown(c.APPLY_STATE_DIR), error_text(error))
    return fd


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


def _apply_changes(confined, changes, runner, report, actions, durable, written_hook):
    """The transaction (DURABLE: with steps 0, 2 and 5), WRITTEN_HOOK() once it is done,
    then the actions, as one step that no signal cuts (SIGINT, SIGTERM and SIGHUP held
    from the first write to the last action's end): a signal during the transaction rolls
    it back and no action runs; one after it is delivered once every action has run.
    Raises ApplyInterrupted (a signal came) or StagingError."""
    transaction = _Transaction(confined, changes, durable=durable)
    signals, failure = [], None
    # What to say is decided before signals are let through again, so that a signal
    # at any moment after that finds it.
    summary = _("nothing was written")
    late = False
    try:
        with signals_deferred():
            try:
                done = _write_files(transaction)
                report.written = [change.planned.path for change in done if not change.revert]
                report.reverted += [_revert_text(confined, change) for change in done
                                    if change.revert]
            except _RolledBack as rolled:
                failure = summary = str(rolled)
                signals = transaction.signals
            else:
                written_hook()
                written = ", ".join(confined.shown(p) for p in report.written) \
                    or _("all were up to date")
                summary = _("the files are written (%s); no action ran") % written
                failed = _run_actions(confined, runner, report, actions)
                if failed is not None:
                    failure, summary = failed, str(failed)
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
    if isinstance(failure, StagingError):
        raise failure
    if failure is not None:
        raise StagingError(failure)
    for path in report.written:
        log.info("wrote %s", confined.shown(path))


def _revert_text(root, change):
    shown = root.shown(change.planned.path)
    if change.remove:
        return _("removed %s (the previous apply wrote it; this configuration has none)") % shown
    return _("put back %s as it was before edns-addon wrote it") % shown


def _resolver_units(plan):
    return [action.argument for action in plan.actions
            if action.kind in (ActionKind.ENABLE_UNIT, ActionKind.RESTART_UNIT)]


def _owned_changes(root, plan, held, report, old):
    """What the record OLD of the last apply adds to PLAN: (the changes that put back each
    path the last apply wrote and PLAN does not, the new ``Record``, the actions for the
    units the last apply enabled or started and PLAN does not)."""
    planned = {planned.path for planned in plan.files}
    reverts = []
    for path, (written, previous) in sorted(old.files.items()):
        if path in planned or path == c.APPLY_RECORD_PATH:
            continue
        shown = root.shown(path)
        try:
            existing = read_existing(root.place(path))
        except (OSError, RootError) as error:
            report.kept.append(_("left %s as it is (%s)") % (shown, error_text(error)))
            continue
        if existing.kind is PathKind.ABSENT and previous.kind is PathKind.ABSENT:
            continue
        if existing.kind is not PathKind.FILE or digest(existing.content) != written:
            report.kept.append(_("left %s as it is: it changed since edns-addon wrote it")
                               % shown)
            continue
        if previous.kind is PathKind.FILE and previous.content == existing.content \
                and previous.mode == existing.mode:
            continue
        reverts.append(_Change(PlannedFile(path, previous.content, previous.mode),
                               Existing(PathKind.FILE), link=previous.link or None,
                               remove=previous.kind is PathKind.ABSENT, revert=True))
    files = {}
    for planned_file in plan.files:
        if planned_file.path in old.files:
            previous = old.files[planned_file.path][1]
        else:
            previous = previous_of(held[planned_file.path])
        files[planned_file.path] = (digest(planned_file.content), previous)
    units = _resolver_units(plan)
    stopping = ActionKind.DISABLE_UNIT if plan.phase == Phase.TARGET else ActionKind.STOP_UNIT
    # A plain unit name only, as systemctl takes it: a record on disk is below the root.
    actions = [Action(stopping, unit) for unit in sorted(set(old.units) - set(units))
               if is_unit_name(unit) and Action(stopping, unit) not in plan.actions]
    return reverts, Record(files, units), actions


def apply_plan(plan, root, runner=None, record=None):
    """Write PLAN's files below ROOT, then run its actions; return what was done.

    The whole plan is checked before the first write; a failed write restores
    every file written before it (StagingError says what was and was not applied);
    a signal does the same and raises ApplyInterrupted; a signal once the files are
    written lets every action run, then raises ApplyInterrupted saying so.

    RECORD (``staging/record.py``) is what is known of the last apply: None, nothing
    (the target phase, a tree being built); a ``KeptRecord`` in memory (the installer
    phase again); a ``HostRecord`` on a live host's disk, which also takes the steps
    that protect its person: the lock, the journal, the syncs, and the removal of what
    a killed apply left. With a record, what the last apply wrote and PLAN has not is
    put back, and its units no longer needed disabled (target) or stopped (installer).
    """
    runner = runner or CommandRunner()
    report = ApplyReport()
    durable = record is not None and record.durable
    try:
        confined = ConfinedRoot(root)
    except RootError as error:
        raise StagingError(str(error)) from None
    lock = None
    with confined:
        try:
            try:
                if durable:
                    lock = _lock(confined)
                refuse_beside_freeipa_dns_over_tls(plan, confined)
                changes, report.unchanged, held = check_files(plan.files, confined)
                changes = [_Change(planned, Existing(existing.kind))
                           for planned, existing in changes]
                actions, new = plan.actions, None
                if record is not None:
                    reverts, new, stopping = _owned_changes(confined, plan, held, report,
                                                            record.read(confined))
                    kept, same, _held = check_files(record.files(new), confined)
                    report.unchanged += same
                    changes = reverts + changes + [_Change(planned, Existing(existing.kind))
                                                   for planned, existing in kept]
                    actions = tuple(stopping) + plan.actions
                if durable:
                    with signals_deferred():
                        remove_stale_temporaries(confined, report)
            except ApplyInterrupted:
                raise
            except KeyboardInterrupt:
                raise ApplyInterrupted(_("nothing was written")) from None
            def written():   # the record now tells what the root holds
                if record is not None:
                    record.written(new)
            try:
                _apply_changes(confined, changes, runner, report, actions, durable, written)
            except ApplyInterrupted:
                raise
            except KeyboardInterrupt:   # between the last action's end and the return
                raise ApplyInterrupted(_("the files are written and every action ran to its "
                                       "end")) from None
        finally:
            if lock is not None:
                os.close(lock)
    return report


def stage(data, phase, root, runner=None, record=None):
    """Build the plan of PHASE for DATA and apply it below ROOT (``apply_plan``, RECORD
    included)."""
    return apply_plan(build_plan(data, phase, root), root, runner, record)
