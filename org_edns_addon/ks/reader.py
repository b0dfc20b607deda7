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

"""Read a whole kickstart (with ``%include``) into a validated result.

pykickstart's own parser and handler do the reading, so every ordinary
command and section is understood exactly as ``ksvalidator`` understands it.
On top of it we keep what pykickstart forgets: which file and line every
section came from, so every problem can say ``FILE:LINE``. Problems are
collected, not raised: a user sees all of them in one run.

Whatever the input, reading stays bounded in time and memory: lines are
handed to pykickstart one at a time, never as one list; a line it would split
into words may not be longer than ``MAX_KICKSTART_LINE``; ``%include`` reads
only regular files, at most ``MAX_INCLUDES`` of them and ``MAX_KICKSTART_BYTES``
in all; a certificate body stops growing past ``MAX_PEM_BYTES``; reading stops
after ``MAX_KICKSTART_COMMANDS`` commands or ``MAX_PROBLEMS`` problems.

A kickstart may ``%include`` any file, ``/etc/shadow`` too: a problem on a
line of an included file never repeats that line's text (only a problem of
the ``%include`` line itself names the file it includes).
"""

import bisect
import functools
import os
import re
import shlex
import stat
import warnings
from collections.abc import Sequence

from pykickstart.errors import KickstartError, KickstartWarning
from pykickstart.parser import STATE_COMMANDS, Certificate, KickstartParser
from pykickstart.sections import CertificateSection, PackageSection, ScriptSection, Section
from pykickstart.version import makeVersion

from org_edns_addon.constants import (ADDON_SECTION_OPEN, MAX_INCLUDE_DEPTH, MAX_INCLUDES,
                                      MAX_KICKSTART_BYTES, MAX_KICKSTART_COMMANDS,
                                      MAX_KICKSTART_LINE, MAX_PEM_BYTES, MAX_PROBLEMS,
                                      SECTION_OPEN)
from org_edns_addon.i18n import N_, _
from org_edns_addon.ks.edns import EdnsData, EdnsSection, is_our_addon
from org_edns_addon.ks.result import Include, ParsedKickstart
from org_edns_addon.ks.rules import certificate_value, check_rules
from org_edns_addon.model import Problem, SectionPlace, Severity

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


# A problem on a line of an included file shows no run of this many characters of that line,
# except the words of kickstart itself: a command or section name, an option's name.
_ELIDED_RUN = 4
_OPTION_NAME = re.compile(r"--[a-z][a-z0-9-]*(?:=|\Z)")


def without_text_of(line, message, keywords=()):
    """MESSAGE with each run of ``_ELIDED_RUN`` or more characters copied from LINE replaced
    by '...', unless copied from LINE's first word when that is one of KEYWORDS or from the
    name of an option (``--name=``)."""
    size = _ELIDED_RUN
    wanted = {message[i:i + size] for i in range(len(message) - size + 1)}
    copied = set()
    for number, word in enumerate(line.split()):
        if number == 0 and word in keywords:
            continue
        option = _OPTION_NAME.match(word)
        if option:
            word = word[option.end():]
        copied.update(gram for gram in (word[i:i + size] for i in range(len(word) - size + 1))
                      if gram in wanted)
    if not copied:
        return message
    covered = [False] * len(message)
    for start in range(len(message) - size + 1):
        if message[start:start + size] in copied:
            covered[start:start + size] = [True] * size
    shown = []
    for index, char in enumerate(message):
        if not covered[index]:
            shown.append(char)
        elif index == 0 or not covered[index - 1]:
            shown.append("...")
    return "".join(shown)


class _StopReading(Exception):
    """Reading stops here; the message says why (a bound was reached)."""


class _FileLines:
    """The lines of one file, handed to pykickstart one at a time (with its put-back),
    knowing their file and the number of the line last read.

    pykickstart's own line counters are local to its state machine and restart
    in an ``%include``d file; this one is the single source of ``FILE:LINE``.
    """

    def __init__(self, reader, filename, text):
        self._reader = reader
        self._lines = iter_lines(text)
        self._put_back = None
        self._ended = False
        self.filename = filename
        self.lineno = 0
        self.line = ""
        # In a file included inside a section, pykickstart splits the first line that is
        # not blank or a comment before handing it to the section.
        self.splits_first_line = reader.in_section

    def __iter__(self):
        return self

    def put(self, line):
        self._put_back = line
        self.lineno -= 1

    def __next__(self):
        if self._put_back is not None:
            line, self._put_back = self._put_back, None
            self.lineno += 1
            return line
        if self._ended:
            raise StopIteration
        self.lineno += 1
        line = next(self._lines, None)
        if line is None:
            # The "" that tells pykickstart the file ended (as its own reader gives it).
            self._ended = True
            self.line = ""
            return ""
        self.line = line
        return self._reader.admit(self, line)


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


class _TrackedCertificateSection(CertificateSection):
    """pykickstart's ``%certificate``, remembering file and line of each one.

    One option parser serves every section (pykickstart builds a new one for each).
    The body stops growing past ``MAX_PEM_BYTES``: the certificate is then refused
    for its size, whatever follows.
    """
    allLines = True

    def __init__(self, handler, reader, **kwargs):
        super().__init__(handler, **kwargs)
        self._reader = reader
        self._parser = None
        self._place = None
        self._header_line = ""
        self._body_places = LinePlaces()
        self._body_size = 0

    def _getParser(self):
        if self._parser is None:
            self._parser = super()._getParser()
        return self._parser

    def handleHeader(self, lineno, args):
        self._place = None
        self._body_places = LinePlaces()
        self._body_size = 0
        self._certificate.update({"cert": [], "filename": None, "dir": None, "type": None})
        filename, lineno = self._reader.position
        self._header_line = self._reader.current_line
        self._reader.check_header_comment()
        super().handleHeader(lineno, args)
        self._place = SectionPlace(filename, lineno, "%certificate")

    def handleLine(self, line):
        # The "" that ends an %include'd file adds no line to the certificate text.
        if not line or self._body_size > MAX_PEM_BYTES + 1:
            return
        self._body_size += len(line)
        super().handleLine(line)
        self._body_places.append(self._reader.position)

    def finalize(self):
        place = self._place
        if place is None:
            # The header was refused (and reported); do not keep a nameless certificate.
            self._certificate["cert"] = []
            return
        place.end_lineno = self._reader.position[1]
        lines = self._certificate["cert"]
        before = len(self.handler.certificates)
        try:
            super().finalize()
        except KickstartError as error:
            self._reader.add_problem_at(Severity.ERROR, _("%s; paste the CA certificate between "
                                        "the %%certificate line and %%end") % _message(error),
                                        (place.filename, place.lineno), self._header_line)
            self._certificate["cert"] = []
            return

        def add(severity, message, where):
            try:
                text = lines[self._body_places.index(where)]
            except ValueError:
                text = self._header_line
            self._reader.add_problem_at(severity, message, where, text)

        for data in self.handler.certificates[before:]:
            self._reader.result.certificate_names.append(data.filename)
            value = certificate_value(data, place, self._body_places, add)
            if value is not None:
                self._reader.result.certificates.append(value)


class _TrackedEdnsSection(EdnsSection):
    """``%edns``, with every line numbered by the reader (also across ``%include``)."""

    def __init__(self, handler, reader, **kwargs):
        super().__init__(handler, **kwargs)
        self._reader = reader

    def handleHeader(self, lineno, args):
        self._reader.open_edns(SECTION_OPEN)
        super().handleHeader(lineno, args)

    def handleLine(self, line):
        self._reader.edns_line(line)

    def finalize(self):
        self._reader.close_edns()
        super().finalize()


class _AddonSection(Section):
    """``%addon``: ours goes to ``handler.edns``; other addons are not our business."""
    sectionOpen = "%addon"
    allLines = True

    def __init__(self, handler, reader, **kwargs):
        super().__init__(handler, **kwargs)
        self._reader = reader
        self.ours = False

    def handleHeader(self, lineno, args):
        super().handleHeader(lineno, args)
        self.ours = is_our_addon(args)
        if self.ours:
            self._reader.open_edns(ADDON_SECTION_OPEN)
            self.handler.edns.handle_header(args[2:], lineno)

    def handleLine(self, line):
        if self.ours:
            self._reader.edns_line(line)

    def finalize(self):
        super().finalize()
        if self.ours:
            self._reader.close_edns()
            self.handler.edns.handle_end()
        self.ours = False


class _PackageSection(PackageSection):
    """pykickstart's ``%packages``, handing it plain package lines in runs.

    pykickstart sorts the whole package list again for each line it is given
    (20 000 lines: minutes); for plain names one call with all of them gives the
    same lists. A group or exclusion line (``@``, ``-``), whose meaning depends
    on what came before, is handed over in order, by itself.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._names = []

    def handleLine(self, line):
        name = line.partition("#")[0].rstrip()
        if name.lstrip()[:1] in ("@", "-"):
            self._hand_over()
            super().handleLine(line)
        else:
            self._names.append(name)

    def _hand_over(self):
        if self._names:
            self.handler.packages.add(self._names)
            self._names = []

    def finalize(self):
        self._hand_over()
        super().finalize()


# Script lines joined into one string at a time: a list of millions of short lines
# costs ~60 bytes a line; the script text pykickstart keeps from it is the same.
_SCRIPT_CHUNK = 1024


@functools.lru_cache(maxsize=None)
def _compact_script_section(section_class):
    """SECTION_CLASS (a pykickstart script section) keeping its body in chunks of lines."""

    class CompactScriptSection(section_class):
        _body = None
        _fresh = 0

        def handleLine(self, line):
            super().handleLine(line)
            body = self._script["body"]
            if body is not self._body:   # a new section
                self._body, self._fresh = body, 0
            self._fresh += 1
            if self._fresh == _SCRIPT_CHUNK:
                body[-_SCRIPT_CHUNK:] = ["".join(body[-_SCRIPT_CHUNK:])]
                self._fresh = 0

    return CompactScriptSection


class KickstartReader(KickstartParser):
    """pykickstart's parser with file tracking and collected (not raised) problems,
    filling RESULT (a ``ParsedKickstart``)."""

    def __init__(self, handler, result):
        self.result = result
        self._addon = None
        super().__init__(handler, followIncludes=True, errorsAreFatal=False,
                         missingIncludeIsFatal=True, unknownSectionIsFatal=True)
        self._sources = []
        self._reading = []
        self._includes_followed = 0
        self._bytes_read = 0
        self._commands = 0
        self._keyword_set = None

    # pykickstart calls setupSections() from __init__, before our attributes exist.
    def setupSections(self):
        super().setupSections()
        for section in list(self._sections.values()):
            if isinstance(section, ScriptSection):
                self.registerSection(_compact_script_section(type(section))(
                    self.handler, dataObj=section.dataObj))
        self.registerSection(_PackageSection(self.handler))
        self.registerSection(_TrackedCertificateSection(self.handler, self, dataObj=Certificate))
        self.registerSection(_TrackedEdnsSection(self.handler, self))
        self._addon = _AddonSection(self.handler, self)
        self.registerSection(self._addon)

    @property
    def position(self):
        """(file, line) of the line being handled."""
        if not self._sources:
            return self.current_file, None
        source = self._sources[-1]
        return source.filename, source.lineno

    @property
    def current_line(self):
        """The text of the line being handled."""
        return self._sources[-1].line if self._sources else ""

    @property
    def current_file(self):
        """The file being read (the innermost ``%include``)."""
        return self._reading[-1] if self._reading else "<kickstart>"

    @property
    def in_section(self):
        return self._state != STATE_COMMANDS

    def add_problem(self, severity, message):
        """Record a problem at the line being handled."""
        self.add_problem_at(severity, message, self.position, self.current_line)

    def add_problem_at(self, severity, message, where, line=None):
        """Record a problem at WHERE, a (file, line) pair; LINE is the text there, which a
        problem in an included file does not repeat."""
        filename, lineno = where
        if line and filename != self.result.filename:
            message = without_text_of(line, message, self._keywords())
        self.result.add_problem(Problem(severity, message, lineno, filename))

    def _keywords(self):
        """The words that begin a line of kickstart: command and section names."""
        if self._keyword_set is None:
            self._keyword_set = frozenset(self.handler.commands) | frozenset(self._sections) \
                | {"%end", "%include", "%ksappend"}
        return self._keyword_set

    def admit(self, source, line):
        """LINE as pykickstart may read it from SOURCE, or stop when a bound is reached."""
        if len(self.result.problems) >= MAX_PROBLEMS:
            raise _StopReading(_("more than %d problems; the rest of the kickstart is not "
                               "checked: fix these first") % MAX_PROBLEMS)
        split = False
        if source.splits_first_line and not self._isBlankOrComment(line):
            source.splits_first_line = False
            split = True
        if len(line) > MAX_KICKSTART_LINE and (split or self._is_split(line)):
            self.add_problem(Severity.ERROR, _("the line is %d characters long; a command, "
                             "section header or server line may have at most %d: shorten it")
                             % (len(line.rstrip("\r\n")), MAX_KICKSTART_LINE))
            return "\n"
        return line

    def _is_split(self, line):
        """Whether pykickstart (or our section) splits LINE into words where it is read."""
        if not self.in_section:
            return not self._isBlankOrComment(line)
        if self._state == SECTION_OPEN or (self._state == "%addon" and self._addon.ours):
            return True
        first = line.split(None, 1)[:1]
        return bool(first) and (first[0] in self._sections or first[0] in ("%end", "%include"))

    def handleCommand(self, lineno, args):
        self._commands += 1
        if self._commands > MAX_KICKSTART_COMMANDS:
            raise _StopReading(_("more than %d commands; the rest of the kickstart is not "
                               "checked: a kickstart needs far fewer") % MAX_KICKSTART_COMMANDS)
        return super().handleCommand(lineno, args)

    def check_header_comment(self):
        """Report a '#' glued to a word of the section header being read.

        pykickstart, and so Anaconda, splits header lines with shlex, where such
        a '#' starts a comment: ``--search=a#b --ca=x`` is read as ``--search=a``
        and --ca is silently lost.
        """
        if "#" not in self._line:
            return  # the common case, without two more (slow) shlex passes
        try:
            read = shlex.split(self._line, comments=True)
            written = shlex.split(self._line)
        except ValueError:
            return  # an unclosed quote; pykickstart reports it
        if read and read[-1] != written[len(read) - 1]:
            self.add_problem(Severity.ERROR, _("the '#' in %r starts a comment, so this line is "
                             "read only up to %r; remove the '#' (a comment needs a space "
                             "before it)") % (written[len(read) - 1], read[-1]))

    def open_edns(self, spelling):
        self.check_header_comment()
        self.result.edns_places.append(SectionPlace(*self.position, spelling))

    def close_edns(self):
        self.result.edns_places[-1].end_lineno = self.position[1]

    def edns_line(self, line):
        """Hand a body line to ``handler.edns``; record its error and go on."""
        filename, lineno = self.position
        try:
            self.handler.edns.handle_line(line, lineno, filename)
        except KickstartError as error:
            self.add_problem(Severity.ERROR, _message(error))

    def _tryFunc(self, fn):
        # pykickstart's own handlers raise more than KickstartError on odd input
        # (ksvalidator reports those as "General error"); none may escape as a traceback.
        try:
            fn()
        except _StopReading:
            raise
        except Exception as error:  # noqa: BLE001 (a pykickstart error is a finding)
            self.errorsCount += 1
            self.add_problem(Severity.ERROR, _message(error))

    def readKickstartFromString(self, s, reset=True):
        if reset:
            self._reset()
        source = _FileLines(self, self.current_file, s)
        self._sources.append(source)
        try:
            self._stateMachine(source)
        except Exception as error:
            # Remember where it happened, innermost file first, before the stack unwinds.
            if not hasattr(error, "edns_place"):
                error.edns_place = (source.filename, source.lineno)
                error.edns_line = source.line
            raise
        finally:
            self._sources.pop()

    def readKickstart(self, f, reset=True):
        if not self._sources:
            self._read_file(f, reset, MAX_KICKSTART_BYTES, regular_only=False)
            return
        # An %include: problems with the file itself belong to the %include line, whose
        # words are shown (they are kickstart, whatever the included file holds).
        self.result.includes.append(Include(*self.position, f))
        if is_url(f):
            self.add_problem_at(Severity.WARNING, _("%%include %s is a URL and is not followed "
                                "here; check that file separately") % f, self.position)
            return
        if not os.path.isabs(f):
            f = os.path.join(os.path.dirname(self.current_file), f)
        refusal = self._include_refusal(f)
        if refusal:
            self.add_problem_at(Severity.ERROR, refusal, self.position)
            return
        self._includes_followed += 1
        try:
            self._read_file(f, reset, MAX_KICKSTART_BYTES - self._bytes_read,
                            regular_only=True)
        except KickstartReadError as error:
            missing = not os.path.lexists(f)
            self.add_problem_at(
                Severity.WARNING if missing else Severity.ERROR,
                "%%include %s: %s%s" % (f, error.message, _("; if a %pre script writes it, "
                                        "check that file separately") if missing else ""),
                self.position)

    def _include_refusal(self, path):
        """Why the %include of PATH is not followed, or None."""
        if os.path.realpath(path) in map(os.path.realpath, self._reading):
            return _("%%include %s includes a file that is already being read; remove the "
                   "loop") % path
        if len(self._reading) >= MAX_INCLUDE_DEPTH:
            return _("%%include %s is nested more than %d files deep; include the files from "
                   "fewer levels, or flatten the kickstart (ksflatten)") % (path,
                                                                          MAX_INCLUDE_DEPTH)
        if self._includes_followed >= MAX_INCLUDES:
            return _("%%include %s: more than %d files are included in all (a file included "
                   "from several places counts each time); include fewer, or flatten the "
                   "kickstart (ksflatten)") % (path, MAX_INCLUDES)
        return None

    def _read_file(self, f, reset, limit, regular_only):
        text, size = read_kickstart_text(f, limit, regular_only)
        self._bytes_read += size
        if not self._reading:
            self.result.text = text
        self._reading.append(f)
        try:
            self.readKickstartFromString(text, reset=reset)
        finally:
            self._reading.pop()


def is_url(location):
    """Whether an %include names a URL (pykickstart's own test, ``load.is_url``; EL9's
    pykickstart 3.32 has it only as the private ``_is_url``)."""
    return "://" in location


def _message(error):
    if isinstance(error, KickstartError):
        return str(error.message) if error.message else str(error)
    return str(error) or type(error).__name__


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
    return KickstartReadError(_("cannot read the file: %s") % (error.strerror or error), path)


def make_handler():
    """A pykickstart handler of the newest syntax, with ``handler.edns``."""
    handler = makeVersion()
    handler.edns = EdnsData()
    return handler


def parse_kickstart(path, now=None):
    """Read the kickstart at PATH (following ``%include``) and check every rule."""
    handler = make_handler()
    result = ParsedKickstart(path, handler.edns, handler=handler)
    reader = KickstartReader(handler, result)

    def show_warning(message, category, *_args, **_kwargs):
        # pykickstart warns (deprecated commands, duplicates) while it reads a line.
        if issubclass(category, KickstartWarning):
            reader.add_problem(Severity.WARNING, str(message))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show_warning
        outcome = _read_all(reader, path)
        if outcome != _UNREADABLE:
            check_rules(result, now, read_to_end=outcome == _READ_TO_END)
    result.problems.sort(key=_reading_order(result.problems))
    return result


def _reading_order(problems):
    """Sort key: files in the order they were first named, then by line."""
    files = {}
    for problem in problems:
        files.setdefault(problem.filename, len(files))
    return lambda problem: (files[problem.filename], problem.lineno or 0)


_READ_TO_END, _STOPPED, _UNREADABLE = "read to end", "stopped", "unreadable"


def _read_all(reader, path):
    """Run READER over PATH; say whether it read to the end, stopped, or could not start."""
    try:
        reader.readKickstart(path)
    except KickstartReadError as error:
        reader.result.add_problem(Problem(Severity.ERROR, error.message, error.lineno,
                                          error.filename))
        return _UNREADABLE
    except _StopReading as error:
        # Past every other problem's bound: always listed, it says why the list ends.
        filename, lineno = error.edns_place
        reader.result.problems.append(Problem(Severity.ERROR, str(error), lineno, filename))
        return _STOPPED
    except Exception as error:  # noqa: BLE001 (reported where it happened)
        # pykickstart stops reading here (an unterminated section, an unclosed
        # quote); report it where it happened, like ksvalidator, without a traceback.
        filename, lineno = getattr(error, "edns_place", (path, None))
        if isinstance(error, KickstartError) and error.lineno:
            lineno = error.lineno
        reader.add_problem_at(Severity.ERROR, _("%s; the rest of the file is not checked")
                              % _message(error).rstrip("."), (filename, lineno),
                              getattr(error, "edns_line", None))
        return _STOPPED
    return _READ_TO_END
