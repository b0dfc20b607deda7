"""Writing a plan below a root: checked first, atomic, rolled back on failure.

The whole plan is checked before the first write (every path resolved under
the root, nothing that is not a regular file replaced); each file is written
atomically; a failure or an interrupt half-way restores what was there before.
"""

import logging
import os
import sys
from dataclasses import dataclass, field
from typing import List, Tuple

from org_edns_addon.confinement import (ConfinedRoot, NotAFileError, RootError, path_components,
                                        read_existing)
from org_edns_addon.fileio import error_text, signals_deferred, symlink_in_directory, \
    write_in_directory
from org_edns_addon.staging import StagingError
from org_edns_addon.staging.actions import ActionRunner, CommandRunner
from org_edns_addon.staging.freeipa import refuse_beside_freeipa_dns_over_tls
from org_edns_addon.staging.plan import build_plan

log = logging.getLogger(__name__)


@dataclass
class ApplyReport:
    written: List[str] = field(default_factory=list)
    unchanged: List[str] = field(default_factory=list)
    actions_done: List[str] = field(default_factory=list)
    actions_skipped: List[Tuple[str, str]] = field(default_factory=list)

    def __str__(self):
        lines = ["wrote %s" % path for path in self.written]
        lines += ["unchanged %s" % path for path in self.unchanged]
        lines += ["ran: %s" % action for action in self.actions_done]
        lines += ["skipped: %s (%s)" % skipped for skipped in self.actions_skipped]
        return "\n".join(lines)




def _restore(place, existing):
    if existing.kind == "file":
        write_in_directory(place.dir_fd, place.name, existing.content, existing.mode)
    elif existing.kind == "symlink":
        symlink_in_directory(place.dir_fd, place.name, existing.link)
    else:
        os.unlink(place.name, dir_fd=place.dir_fd)


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
            refused.append("%s is planned twice" % shown)
            continue
        seen.add(planned.path)
        try:
            os.fsencode(planned.path)
        except UnicodeEncodeError:
            refused.append("%s: its name cannot be written in this locale's file name encoding "
                           "(%s); run with a UTF-8 locale, like LC_ALL=C.UTF-8"
                           % (shown, sys.getfilesystemencoding()))
            continue
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
            refused.append("%s: its directory is not writable (%s); make that directory "
                           "writable or choose another root" % (shown, blocking))
        else:
            changes.append((planned, existing))
    if refused:
        raise StagingError("nothing was written: %s" % "; ".join(refused))
    return changes, unchanged


def _write_files(root, changes):
    """Write CHANGES in order; on failure (or Ctrl-C) restore every file already written
    and raise."""
    done = []
    directories = {}
    try:
        for planned, existing in changes:
            place = root.place(planned.path, create=True)
            with signals_deferred():   # a file written is a file recorded, for the rollback
                write_in_directory(place.dir_fd, place.name, planned.content, planned.mode,
                                   sync_directory=False)
                done.append((planned, existing))
            directories[place.dir_fd] = planned.path
        # The renames are durable once their directories are: one fsync per directory.
        for dir_fd in directories:
            os.fsync(dir_fd)
    except KeyboardInterrupt:
        # Ctrl-C stays an interrupt for the caller, but leaves the root as it was.
        try:
            _roll_back(root, done, "writing the files was interrupted",
                       [planned.path for planned, _ in changes[len(done):]])
        except StagingError as rolled_back:
            log.info("%s", rolled_back)
        raise
    except (OSError, RootError) as error:
        if len(done) < len(changes):
            failed = "writing %s failed (%s)" % (root.shown(changes[len(done)][0].path),
                                                error_text(error))
        else:
            failed = "making the written files durable failed (%s)" % error_text(error)
        _roll_back(root, done, failed, [planned.path for planned, _ in changes[len(done):]])
    return [planned.path for planned, _ in done]


def _roll_back(root, done, failed, not_written):
    problems = []
    for planned, existing in reversed(done):
        try:
            _restore(root.place(planned.path, create=True), existing)
        except (OSError, RootError) as error:
            problems.append("%s could not be restored (%s)" % (root.shown(planned.path),
                                                               error_text(error)))
    root.remove_created_directories()
    restored = ", ".join(root.shown(p.path) for p, _ in done) or "none"
    message = "%s; nothing was applied: restored to their previous state: %s; not " \
              "written: %s" % (failed, restored, ", ".join(root.shown(p) for p in not_written))
    if problems:
        message += "; " + "; ".join(problems)
    raise StagingError(message)


def apply_plan(plan, root, runner=None):
    """Write PLAN's files below ROOT, then run its actions; return what was done.

    The whole plan is checked before the first write; a failed write restores
    every file written before it (StagingError says what was and was not applied).
    """
    runner = runner or CommandRunner()
    report = ApplyReport()
    try:
        confined = ConfinedRoot(root)
    except RootError as error:
        raise StagingError(str(error)) from None
    with confined:
        refuse_beside_freeipa_dns_over_tls(plan, confined)
        changes, report.unchanged = check_plan(plan, confined)
        report.written = _write_files(confined, changes)
        for path in report.written:
            log.info("wrote %s", confined.shown(path))
        ActionRunner(confined, runner, report).run_all(plan.actions)
    return report


def stage(data, phase, root, runner=None):
    """Build the plan of PHASE and apply it below ROOT."""
    return apply_plan(build_plan(data, phase, root), root, runner)


