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

"""Rewrite a top-level ``%edns`` into the ``%addon org_edns_addon`` spelling.

Stock Anaconda's kickstart splitter and its initramfs ``parse-kickstart``
only know a fixed list of sections, and ``%addon NAME`` is the one routed to
addons. Only the ``%edns`` word of each header line changes; every other
byte of the file stays as it was.
"""

import io
import os
import re
from dataclasses import dataclass

from org_edns_addon.i18n import _
from org_edns_addon.constants import ADDON_SECTION_OPEN, SECTION_OPEN
from org_edns_addon.fileio import error_text, write_atomically
from org_edns_addon.ks.reader import parse_kickstart
from org_edns_addon.ks.source import line_spans
from org_edns_addon.ks.rules import top_level_section_problem

_HEADER = re.compile(r"^(\s*)%s(?=\s|$)" % re.escape(SECTION_OPEN))


class ConvertError(Exception):
    def __init__(self, message, problems=()):
        super().__init__(message)
        self.message = message
        self.problems = list(problems)


@dataclass
class Converted:
    data: bytes     # the converted kickstart, UTF-8
    count: int


def fixed_by_conversion(result):
    """The problems of RESULT (a ``ParsedKickstart``) that the rewrite fixes: the error of
    each top-level ``%edns`` (``ks.rules.top_level_section_problem``). What is built
    from the rewritten text (``convert``, the overlay's kickstart) reads past them."""
    return [top_level_section_problem(place) for place in result.edns_places
            if place.spelling == SECTION_OPEN]


# The text is encoded this many characters at a time: never a second copy of it as a list
# of lines, nor as one more string. Small pieces are allocated where the last one was freed
# (pieces of 1 MiB left 16 MiB of a 16 MiB kickstart behind in the heap).
_CHUNK = 1 << 16


def converted_bytes(text, header_linenos):
    """TEXT, as UTF-8, with the ``%edns`` header on each of HEADER_LINENOS (1-based)
    rewritten; made in one buffer, a piece at a time."""
    out = io.BytesIO()

    def copy(start, end):
        for offset in range(start, end, _CHUNK):
            out.write(text[offset:min(offset + _CHUNK, end)].encode("utf-8"))

    done = 0
    spans = list(line_spans(text, header_linenos))
    if len(spans) != len(set(header_linenos)):
        lineno = min(set(header_linenos) - {span[0] for span in spans})
        raise ConvertError(_("line %d does not start with %s") % (lineno, SECTION_OPEN))
    for lineno, start, end in spans:
        new_line, count = _HEADER.subn(lambda m: m.group(1) + ADDON_SECTION_OPEN,
                                       text[start:end], 1)
        if count != 1:
            raise ConvertError(_("line %d does not start with %s") % (lineno, SECTION_OPEN))
        copy(done, start)
        out.write(new_line.encode("utf-8"))
        done = end
    copy(done, len(text))
    return out.getvalue()


def convert_kickstart(path, output=None):
    """Convert the kickstart at PATH; write OUTPUT atomically if given.

    Refuses (ConvertError) when the kickstart has errors, or when a ``%edns``
    lives in an included file (that file is the one to convert).
    """
    result = parse_kickstart(path)
    ours = [place for place in result.edns_places if place.spelling == SECTION_OPEN]
    fixed = fixed_by_conversion(result)
    errors = [problem for problem in result.errors if problem not in fixed]
    if errors:
        raise ConvertError(_("fix the errors above first"), errors)
    elsewhere = [place for place in ours if place.filename != path]
    if elsewhere:
        raise ConvertError(_("%%edns is in the included file %s; convert that file")
                           % elsewhere[0].filename)
    converted = converted_bytes(result.text, [place.lineno for place in ours])
    if output is not None:
        mode = 0o644
        try:
            mode = os.stat(path).st_mode & 0o777
        except OSError:
            pass
        try:
            # Never looser than the kickstart read, nor than an OUTPUT already there.
            write_atomically(output, converted, mode, never_loosen=True,
                             follow_symlink=False)
        except OSError as error:
            raise ConvertError(_("cannot write %s: %s") % (output, error_text(error))) \
                from None
    return Converted(converted, len(ours))
