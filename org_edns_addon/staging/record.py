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

"""What apply owns below a root: the record of what the last apply wrote, and the
journal of the temporary names a running apply may leave.

The record (``constants.APPLY_RECORD_PATH``) is written in the same transaction
as the files it names, so it always tells what the root holds: each path apply
wrote, the SHA-256 of what it wrote there, and what the path held before the
first apply that wrote it (nothing, a symlink, or a file: its mode and bytes);
and the resolver units apply enabled (target) or started (installer). The next
apply, with another configuration, puts back what a path held before for every
path it no longer writes, if the path still holds what apply wrote (one the
administrator changed since is left, and said), and disables or stops the units
it no longer needs. Same input, same bytes: sorted keys, no time.

The journal (``constants.APPLY_JOURNAL_PATH``) names, before any of them
exists, every temporary file and every second name of an old file that one
transaction may make. A run killed by SIGKILL leaves it; the next apply removes
exactly the temporary files it names, and a second name only while it is the
same inode as its place (a redundant name); one whose place was replaced is the
only copy of the previous file, and is kept and said. A file that merely looks
like a temporary (``.edns-<hex>.tmp``) is never removed: only what a journal
names is, and, inside apply's own state directory, temporaries of the journal
itself.
"""

import base64
import hashlib
import json
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from org_edns_addon.i18n import _

_FORMAT = 1


class RecordError(Exception):
    """The record cannot be read; the message says why."""


def digest(content):
    return hashlib.sha256(content).hexdigest()


@dataclass(frozen=True)
class Previous:
    """What a path held before apply first wrote it."""
    kind: str                  # "absent", "symlink", "file"
    link: str = ""
    mode: int = 0
    content: bytes = b""

    def to_json(self):
        if self.kind == "symlink":
            return {"kind": "symlink", "link": self.link}
        if self.kind == "file":
            return {"kind": "file", "mode": self.mode,
                    "content": base64.b64encode(self.content).decode("ascii")}
        return {"kind": "absent"}

    @classmethod
    def from_json(cls, value):
        kind = value["kind"]
        if kind == "symlink":
            return cls("symlink", link=str(value["link"]))
        if kind == "file":
            return cls("file", mode=int(value["mode"]) & 0o777,
                       content=base64.b64decode(value["content"], validate=True))
        if kind == "absent":
            return cls("absent")
        raise ValueError("unknown kind %r" % kind)


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
    if existing.kind == "symlink":
        return Previous("symlink", link=existing.link)
    if existing.kind == "file":
        return Previous("file", mode=existing.mode, content=existing.content)
    return Previous("absent")
