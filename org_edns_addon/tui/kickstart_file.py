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

"""A kickstart file as the text UI edits it: read into an editor, written back.

Only the line ranges of our sections change: the encrypted DNS section is
replaced by its ``%addon org_edns_addon`` form (preceded by the
``%certificate`` sections added in the editor), removed certificates'
sections are cut out, and every other byte stays as it was.
"""

import os
from dataclasses import dataclass
from typing import List, Optional

from org_edns_addon.i18n import _
from org_edns_addon.fileio import error_text, write_atomically
from org_edns_addon.ks.convert import fixed_by_conversion
from org_edns_addon.ks.reader import parse_kickstart
from org_edns_addon.problems import Problem, SectionPlace, Severity
from org_edns_addon.state import EdnsState
from org_edns_addon.ui.editor import EdnsEditor


class KickstartFileError(Exception):
    """The kickstart cannot be edited or written; PROBLEMS say why, with file and line."""

    def __init__(self, message, problems=()):
        super().__init__(message)
        self.message = message
        self.problems: List[Problem] = list(problems)


@dataclass
class KickstartFile:
    """The text of the kickstart being edited and where our sections are in it."""
    path: Optional[str]
    text: str
    edns_place: Optional[SectionPlace]
    mode: int = 0o644


def load_kickstart(path):
    """Read the kickstart at PATH into (KickstartFile, EdnsEditor).

    A kickstart with errors is refused: the editor would drop what it cannot
    read, and writing that back would lose the user's lines silently.
    """
    parsed = parse_kickstart(path)
    # The file is written back in the %addon form (render_kickstart), as convert does:
    # a top-level %edns is no error in what is written.
    errors = [problem for problem in parsed.errors
              if problem not in fixed_by_conversion(parsed)]
    if errors:
        raise KickstartFileError(_("fix these errors first (edns-addon validate %s shows them)")
                                 % path, errors)
    place = parsed.edns_places[0] if parsed.edns_places else None
    if place is not None and place.filename != path:
        raise KickstartFileError(_("the %s section is in the included file %s; edit that file")
                                 % (place.spelling, place.filename))
    # The text as parsed, never a second read that may differ (a pipe, an edit).
    source = KickstartFile(path, parsed.text, place, os.stat(path).st_mode & 0o777)
    config = parsed.edns.to_config() if parsed.edns.seen else None
    return source, EdnsEditor(EdnsState(config, parsed.certificates), path)


def new_kickstart():
    """An empty KickstartFile, for a configuration written from scratch."""
    return KickstartFile(None, "", None)


def _check_range(lines, place, path):
    first, last = place.lineno, place.end_lineno
    if last is None or not 1 <= first <= last <= len(lines) \
            or not lines[first - 1].lstrip().startswith("%") \
            or not lines[last - 1].strip().startswith("%end"):
        raise KickstartFileError(_("%s:%d: the section does not end where it was read; the "
                                 "file changed while editing, nothing written")
                                 % (path, first))


def render_kickstart(source, editor):
    """The text of SOURCE with the sections of EDITOR in place of the old ones.

    Unchanged (not dirty), the text is returned as it was, comments and all.
    """
    if not editor.dirty:
        return source.text
    ours = "".join(cert.kickstart_section() + "\n" for cert in editor.added_certificates)
    ours += editor.kickstart_section()
    lines = source.text.splitlines(keepends=True)
    edits = [(cert.origin, "") for cert in editor.removed_certificates]
    if source.edns_place is not None:
        edits.append((source.edns_place, ours))
    for place, _replacement in edits:
        _check_range(lines, place, source.path)
    for place, replacement in sorted(edits, key=lambda edit: edit[0].lineno, reverse=True):
        lines[place.lineno - 1:place.end_lineno] = [replacement]
    text = "".join(lines)
    if source.edns_place is None:
        if text and not text.endswith("\n"):
            text += "\n"
        text += ("\n" if text else "") + ours
    return text


def save_kickstart(source, editor, output):
    """Write the edited kickstart to OUTPUT atomically; refuse while there are errors.

    OUTPUT is written as every ``-o`` is (``fileio.write_atomically`` without following
    a symlink): a regular file there, the kickstart being edited included, is replaced;
    a symbolic link is refused by name, never followed, since in a directory another
    user can write (``/tmp``) one planted there would make root replace any file."""
    errors = [p for p in editor.problems() if p.severity == Severity.ERROR]
    if errors:
        raise KickstartFileError(_("not written: the configuration has errors"), errors)
    data = render_kickstart(source, editor).encode("utf-8")
    try:
        write_atomically(output, data, source.mode, follow_symlink=False)
    except OSError as error:
        raise KickstartFileError(_("cannot write %s: %s") % (output, error_text(error))) \
            from None

