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

"""What apply knows of the last apply: the record of what it wrote, in the memory of
the module (``KeptRecord``) or on a live host's disk (``HostRecord``), and the journal
of the temporary names a running apply on a live host may leave.

The record tells, for each path the last apply wrote, the SHA-256 of what it
wrote there and what the path held before the first apply that wrote it
(nothing, a symlink, or a file: its mode and bytes); and the resolver units it
enabled (target) or started (installer). The next apply, with another
configuration, puts back what a path held before for every path it no longer
writes, if the path still holds what apply wrote (one changed since is left,
and said), and disables or stops the units it no longer needs.

In the installer the record lives in the module's memory (a spoke runs the
installer phase again after each change; the installer's root is gone at
reboot), and the target phase keeps none: the installed system holds no file of
the addon's own. Only ``edns-addon apply`` on a live host's / writes it, as
``constants.APPLY_RECORD_PATH``, in the same transaction as the files it names,
so that it always tells what the root holds; same input, same bytes: sorted
keys, no time.

The journal (``constants.APPLY_JOURNAL_PATH``, a live host's too) names, before
any of them exists, every temporary file and every second name of an old file
that one transaction may make. A run killed by SIGKILL leaves it; the next
apply removes exactly the temporary files it names, and a second name only
while it is the same inode as its place (a redundant name); one whose place was
replaced is the only copy of the previous file, and is kept and said. A file
that merely looks like a temporary (``.edns-<hex>.tmp``) is never removed: only
what a journal names is, and, inside apply's own state directory, temporaries
of the journal itself.
"""

import base64
import hashlib
import json
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from org_edns_addon import constants as c
from org_edns_addon.confinement import PathKind, RootError, read_existing
from org_edns_addon.fileio import error_text
from org_edns_addon.i18n import _
from org_edns_addon.staging import StagingError
from org_edns_addon.staging.plan import PlannedFile

_FORMAT = 1
# The record of a plan of a few files is a few kilobytes; the previous files it keeps
# are bounded by what a kickstart may hold.
_MAX_RECORD_BYTES = 512 * 1024 * 1024


class RecordError(Exception):
    """The record cannot be read; the message says why."""


def digest(content):
    return hashlib.sha256(content).hexdigest()


@dataclass(frozen=True)
class Previous:
    """What a path held before apply first wrote it."""
    kind: PathKind
    link: str = ""
    mode: int = 0
    content: bytes = b""

    def to_json(self):
        if self.kind is PathKind.SYMLINK:
            return {"kind": self.kind.value, "link": self.link}
        if self.kind is PathKind.FILE:
            return {"kind": self.kind.value, "mode": self.mode,
                    "content": base64.b64encode(self.content).decode("ascii")}
        return {"kind": self.kind.value}

    @classmethod
    def from_json(cls, value):
        kind = PathKind(value["kind"])   # ValueError for a kind it does not know
        if kind is PathKind.SYMLINK:
            return cls(kind, link=str(value["link"]))
        if kind is PathKind.FILE:
            return cls(kind, mode=int(value["mode"]) & 0o777,
                       content=base64.b64decode(value["content"], validate=True))
        return cls(kind)


@dataclass
class Record:
    """The paths apply wrote (path -> (SHA-256 of what it wrote, Previous)) and its units."""
    files: Dict[str, Tuple[str, Previous]] = field(default_factory=dict)
    units: List[str] = field(default_factory=list)

    def to_bytes(self):
        value = {"format": _FORMAT,
                 "files": {path: {"sha256": sha, "previous": previous.to_json()}
                           for path, (sha, previous) in sorted(self.files.items())},
                 "units": sorted(set(self.units))}
        return (json.dumps(value, indent=1, sort_keys=True) + "\n").encode("ascii")

    @classmethod
    def from_bytes(cls, data, shown):
        """The record in DATA (read at SHOWN); RecordError when it is not one."""
        try:
            value = json.loads(data.decode("utf-8"))
            if value.get("format") != _FORMAT:
                raise ValueError("format %r" % value.get("format"))
            files = {}
            for path, entry in value["files"].items():
                if not isinstance(path, str) or not path.startswith("/"):
                    raise ValueError("path %r" % (path,))
                files[path] = (str(entry["sha256"]), Previous.from_json(entry["previous"]))
            units = [str(unit) for unit in value["units"]]
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as error:
            raise RecordError(_("%s is not a record edns-addon wrote (%s); remove it to "
                                "apply anyway (what the previous apply wrote then stays)")
                              % (shown, error)) from None
        return cls(files, units)


@dataclass
class Journal:
    """The names one transaction may make: (directory path, name) of temporaries and of
    second names of old files (with the path they stand for)."""
    temporaries: List[Tuple[str, str]] = field(default_factory=list)
    backups: List[Tuple[str, str, str]] = field(default_factory=list)   # dir, name, path

    def to_bytes(self):
        value = {"format": _FORMAT,
                 "temporaries": [list(entry) for entry in self.temporaries],
                 "backups": [list(entry) for entry in self.backups]}
        return (json.dumps(value, indent=1, sort_keys=True) + "\n").encode("ascii")

    @classmethod
    def from_bytes(cls, data):
        """The journal in DATA, or None when it is not one (then nothing is removed)."""
        try:
            value = json.loads(data.decode("utf-8"))
            if value.get("format") != _FORMAT:
                return None
            return cls([(str(d), str(n)) for d, n in value["temporaries"]],
                       [(str(d), str(n), str(p)) for d, n, p in value["backups"]])
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
            return None


def previous_of(existing) -> Optional[Previous]:
    """The Previous of what a path holds now (a confinement.Existing)."""
    if existing.kind is PathKind.SYMLINK:
        return Previous(PathKind.SYMLINK, link=existing.link)
    if existing.kind is PathKind.FILE:
        return Previous(PathKind.FILE, mode=existing.mode, content=existing.content)
    return Previous(PathKind.ABSENT)


class KeptRecord:
    """The record of the last apply in the memory of whoever applies again: the module,
    for the installer phase a spoke runs after each change. Nothing is written for it."""

    durable = False

    def __init__(self):
        self._record = Record()

    def read(self, root):
        return self._record

    def files(self, record):
        """What the transaction writes to keep RECORD: nothing."""
        return ()

    def written(self, record):
        """RECORD now tells what the root holds."""
        self._record = record


class HostRecord:
    """The record on a live host's disk (``constants.APPLY_RECORD_PATH``), written with
    the files it names; with it, apply takes the steps that protect the person whose
    running system it is: one apply at a time, the journal, the syncs (``apply_plan``)."""

    durable = True

    def read(self, root):
        """The record below ROOT, or an empty one; StagingError when it cannot be read."""
        shown = root.shown(c.APPLY_RECORD_PATH)
        try:
            existing = read_existing(root.place(c.APPLY_RECORD_PATH), limit=_MAX_RECORD_BYTES)
        except (OSError, RootError) as error:
            raise StagingError(_("nothing was written: %s: %s") % (shown, error_text(error))) \
                from None
        if existing.kind is PathKind.ABSENT:
            return Record()
        if existing.kind is not PathKind.FILE:
            raise StagingError(_("nothing was written: %s is a symlink; remove it") % shown)
        try:
            return Record.from_bytes(existing.content, shown)
        except RecordError as error:
            raise StagingError(_("nothing was written: %s") % error) from None

    def files(self, record):
        return (PlannedFile(c.APPLY_RECORD_PATH, record.to_bytes(), c.FILE_MODE),)

    def written(self, record):
        """Nothing more: the record was in the transaction."""
