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

"""The text of a kickstart as the reader reads it: its files (``read_kickstart_text``,
regular files only for an ``%include``, bounded in size, UTF-8 without NUL), their lines
one at a time with the place of each (``FileLines``, ``LinePlaces``), and what a problem
in an included file may repeat of its line (``without_text_of``).

A kickstart may ``%include`` any file, ``/etc/shadow`` too: a problem on a
line of an included file never repeats that line's text (only a problem of
the ``%include`` line itself names the file it includes).
"""

import bisect
import itertools
import os
import re
import stat
from collections.abc import Sequence

from org_edns_addon.constants import MAX_KICKSTART_BYTES
from org_edns_addon.fileio import error_text
from org_edns_addon.i18n import N_, _

# str.splitlines() ends a line at each of these (pykickstart splits its input so).
_LINE = re.compile("[^\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]*"
                   "(?:\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029])?")


def iter_lines(text):
    """The lines of TEXT with their ends, as ``text.splitlines(True)`` gives them, one by one."""
    for match in _LINE.finditer(text):
        line = match.group()
        if not line:
            return   # the empty match at the end of the text
        yield line


def line_spans(text, linenos):
    """(number, start, end) of each line of TEXT numbered in LINENOS (1-based, as
    ``iter_lines`` counts them), in order, reading TEXT once up to the last of them; a
    number past the end is left out."""
    wanted = sorted(set(linenos))
    if not wanted:
        return
    matches = _LINE.finditer(text)
    number = 0
    for lineno in wanted:
        for match in matches:
            if match.start() == match.end():
                return   # the empty match at the end of the text
            number += 1
            if number == lineno:
                yield lineno, match.start(), match.end()
                break
        else:
            return


# A problem on a line of an included file shows no run of this many characters of that line,
# except the words of kickstart itself: a command or section name, an option's name.
_ELIDED_RUN = 4
_OPTION_NAME = re.compile(r"--[a-z][a-z0-9-]*(?:=|\Z)")


def without_text_of(line, message, keywords=()):
    """MESSAGE with each run of ``_ELIDED_RUN`` or more characters copied from LINE replaced
    by '...', unless copied from LINE's first word when that is one of KEYWORDS or from the
    name of an option (``--name=``).

    Only the user's values are hidden, never our own words: a run that is no whole word of
    LINE, inside a word of MESSAGE that also holds letters or digits LINE does not have,
    is a piece of our advice that happens to look like the value (``like /etc/pki/dns/``
    beside ``--dir=/etc/secret/../x``), and stays."""
    size = _ELIDED_RUN
    wanted = {message[i:i + size] for i in range(len(message) - size + 1)}
    copied = set()
    values = []
    for number, word in enumerate(line.split()):
        if number == 0 and word in keywords:
            continue
        option = _OPTION_NAME.match(word)
        if option:
            word = word[option.end():]
        if len(word) >= size:
            values.append(word)
        copied.update(gram for gram in (word[i:i + size] for i in range(len(word) - size + 1))
                      if gram in wanted)
    if not copied:
        return message
    covered = _covered(message, copied, size)
    # Where MESSAGE repeats anything of LINE, its kickstart words and option names too.
    of_line = _covered(message, {gram for gram in (line[i:i + size]
                                                   for i in range(len(line) - size + 1))
                                 if gram in wanted}, size)
    for start, end in _runs(covered):
        if any(value in message[start:end] for value in values):
            continue
        word_start = message.rfind(" ", 0, start) + 1
        word_end = len(message) if message.find(" ", end) < 0 else message.find(" ", end)
        ours = [index for index in range(word_start, word_end)
                if not start <= index < end and message[index].isalnum()
                and not of_line[index]]
        if ours:
            covered[start:end] = [False] * (end - start)
    shown = []
    for index, char in enumerate(message):
        if not covered[index]:
            shown.append(char)
        elif index == 0 or not covered[index - 1]:
            shown.append("...")
    return "".join(shown)


def _covered(message, grams, size):
    """For each character of MESSAGE, whether it is in one of GRAMS (of SIZE characters)."""
    covered = [False] * len(message)
    for start in range(len(message) - size + 1):
        if message[start:start + size] in grams:
            covered[start:start + size] = [True] * size
    return covered


def _runs(flags):
    """(start, end) of each run of True in FLAGS."""
    start = None
    for index, flag in enumerate(list(flags) + [False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            yield start, index
            start = None


def _stands_alone(message, start, end):
    """Whether MESSAGE[start:end] is not part of a longer name or word."""
    before, after, next_after = message[start - 1:start], message[end:end + 1], \
        message[end + 1:end + 2]
    if before and (before.isalnum() or before in "-_."):
        return False
    if after and (after.isalnum() or after in "-_"):
        return False
    return not (after == "." and next_after.isalnum())


def _occurrences(text, part):
    start = text.find(part)
    while start >= 0:
        yield start, start + len(part)
        start = text.find(part, start + 1)


def without_values(message, values, kept=()):
    """MESSAGE with each of VALUES (strings read from a line whose text is hidden) that it
    quotes, where it stands alone, replaced by '...': the longest first, and never inside
    one of KEPT (the names of the kickstart's own files, which it quotes as places)."""
    values = sorted({value for value in values if value and value in message},
                    key=len, reverse=True)
    if not values:
        return message
    taken = [False] * len(message)
    for name in kept:
        for start, end in _occurrences(message, name) if name else ():
            taken[start:end] = [True] * (end - start)
    hidden = []
    for value in values:
        for start, end in _occurrences(message, value):
            if not any(taken[start:end]) and _stands_alone(message, start, end):
                taken[start:end] = [True] * (end - start)
                hidden.append((start, end))
    shown, done = [], 0
    for start, end in sorted(hidden):
        shown.append(message[done:start] + "...")
        done = end
    return "".join(shown) + message[done:]


class _Part:
    """The lines of one file as FileLines hands them over, and the number of the last."""

    def __init__(self, filename, text):
        self.filename = filename
        self.lines = iter_lines(text)
        self.lineno = 0
        self.last = None


# pykickstart's preprocessor (parser._preprocessStateMachine) takes a line of the kickstart
# itself for %ksappend when it starts so once stripped.
KSAPPEND = "%ksappend"


class FileLines:
    """The lines of one file, handed to pykickstart one at a time (with its put-back),
    knowing their file and the number of the line last read.

    pykickstart's own line counters are local to its state machine and restart
    in an ``%include``d file; this one is the single source of ``FILE:LINE``.

    APPENDS (the kickstart file itself): each ``%ksappend`` line gives way to the lines
    of the file it names, each with that file's name and number, as Anaconda reads the
    kickstart after pykickstart's preprocessor put that file's text in its place
    (dracut/parse-kickstart ``preprocessKickstart``; stage 2 reads what it made). The
    reader's ``ksappend`` says which file, or None.
    """

    def __init__(self, reader, filename, text, appends=False):
        self._reader = reader
        self._parts = [_Part(filename, text)]
        self._part = self._parts[0]
        self._appends = appends
        self._put_back = None
        self._ended = False
        self.line = ""
        # In a file included inside a section, pykickstart splits the first line that is
        # not blank or a comment before handing it to the section.
        self.splits_first_line = reader.in_section

    # The file and number of the line last read (a %ksappend'ed file's, while it is read).
    filename = property(lambda self: self._part.filename)
    lineno = property(lambda self: self._part.lineno)

    def __iter__(self):
        return self

    def put(self, line):
        self._put_back = (line, self._part)
        self._part.lineno -= 1

    def __next__(self):
        if self._put_back is not None:
            (line, self._part), self._put_back = self._put_back, None
            self._part.lineno += 1
            return line
        if self._ended:
            raise StopIteration
        while True:
            part = self._parts[-1]
            line = next(part.lines, None)
            if line is None and len(self._parts) > 1:
                self._parts.pop()
                self._joined_lines(part)
                continue
            part.lineno += 1
            self._part = part
            if line is None:
                # The "" that tells pykickstart the file ended (as its own reader gives it).
                self._ended = True
                self.line = ""
                return ""
            part.last = line
            self.line = line
            if line.strip().startswith(KSAPPEND):
                appended = self._reader.ksappend(line, followed=self._appends
                                                 and len(self._parts) == 1)
                if appended is not None:
                    self._parts.append(_Part(*appended))
                    continue
                if self._appends and len(self._parts) == 1:
                    continue   # the preprocessor drops the line, whatever it read
            return self._reader.admit(self, line)

    def _joined_lines(self, part):
        """PART, a file %ksappend put in place, ended: without a line break at its end, its
        last line and the kickstart's next one are one line to the installer (the
        preprocessor joins the texts as they are)."""
        if part.last is None or part.last.endswith(("\n", "\r")):
            return
        main = self._parts[0]
        following = next(main.lines, None)
        if following is None:
            return
        main.lines = itertools.chain([following], main.lines)
        self._reader.appended_without_line_break((part.filename, part.lineno), part.last,
                                                 (main.filename, main.lineno + 1))


class LinePlaces(Sequence):
    """The (file, line) of each line of a section body, kept as runs of consecutive lines
    (a body of a million blank lines is one run, not a million pairs)."""

    def __init__(self):
        self._starts = []   # the index of the first line of each run
        self._runs = []     # the (file, line) of that first line
        self._length = 0

    def append(self, place):
        if self._runs:
            filename, lineno = self._runs[-1]
            if (filename, lineno + self._length - self._starts[-1]) == place:
                self._length += 1
                return
        self._starts.append(self._length)
        self._runs.append(place)
        self._length += 1

    def __len__(self):
        return self._length

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        run = bisect.bisect_right(self._starts, index) - 1
        filename, lineno = self._runs[run]
        return filename, lineno + index - self._starts[run]

    def index(self, place, *_bounds):
        filename, lineno = place
        for run, (run_file, first) in enumerate(self._runs):
            end = self._starts[run + 1] if run + 1 < len(self._runs) else self._length
            if run_file == filename and 0 <= lineno - first < end - self._starts[run]:
                return self._starts[run] + lineno - first
        raise ValueError(place)


def is_url(location):
    """Whether an %include names a URL (pykickstart's own test, ``load.is_url``; EL9's
    pykickstart 3.32 has it only as the private ``_is_url``)."""
    return "://" in location


class KickstartReadError(Exception):
    """The file cannot be read as a kickstart at all; the message says why."""

    def __init__(self, message, filename, lineno=None):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.lineno = lineno


_FILE_KINDS = ((stat.S_ISDIR, N_("a directory")), (stat.S_ISFIFO, N_("a FIFO (named pipe)")),
               (stat.S_ISCHR, N_("a character device (a terminal or a device)")),
               (stat.S_ISBLK, N_("a block device")), (stat.S_ISSOCK, N_("a socket")))


def read_kickstart_text(path, limit=MAX_KICKSTART_BYTES, regular_only=False):
    """Read PATH as kickstart text: (text, size in bytes). Raise KickstartReadError with a
    sentence if it is not, or is larger than LIMIT bytes.

    REGULAR_ONLY: refuse anything but a regular file before reading (a FIFO or a terminal
    would block the reader forever): the file is opened without blocking and checked
    with fstat. Otherwise a pipe, as ``/dev/stdin``, is read to its end.
    """
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
    if regular_only:
        flags |= os.O_NONBLOCK | os.O_NOCTTY
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise _unreadable(error, path) from None
    try:
        if regular_only:
            mode = os.fstat(descriptor).st_mode
            if not stat.S_ISREG(mode):
                kind = next((_(name) for test, name in _FILE_KINDS if test(mode)), _("not a file"))
                raise KickstartReadError(_("it is %s, not a regular file; only files are "
                                         "included") % kind, path)
        with open(descriptor, "rb", closefd=False) as stream:
            data = stream.read(max(limit, 0) + 1)
    except OSError as error:
        raise _unreadable(error, path) from None
    finally:
        os.close(descriptor)
    if len(data) > limit:
        if limit == MAX_KICKSTART_BYTES:
            message = _("the file is larger than %d MiB; that is not a kickstart")
        else:
            message = _("the kickstart and its included files are larger than %d MiB in all; "
                      "that is not a kickstart")
        raise KickstartReadError(message % (MAX_KICKSTART_BYTES // (1024 * 1024)), path)
    if b"\0" in data:
        lineno = data.count(b"\n", 0, data.index(b"\0")) + 1
        raise KickstartReadError(_("the file holds NUL bytes; it is binary, not a kickstart"),
                                 path, lineno)
    try:
        return data.decode("utf-8"), len(data)
    except UnicodeDecodeError as error:
        lineno = data.count(b"\n", 0, error.start) + 1
        raise KickstartReadError(_("the file is not UTF-8 text (byte 0x%02x); save it as UTF-8")
                                 % data[error.start], path, lineno) from None


def _unreadable(error, path):
    return KickstartReadError(_("cannot read the file: %s") % error_text(error), path)
