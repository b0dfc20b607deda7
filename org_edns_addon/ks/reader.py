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

The text and its lines come from ``ks/source.py``, the tracked sections from
``ks/sections.py``.
"""

import os
import shlex
import warnings

from pykickstart.errors import KickstartError, KickstartWarning
from pykickstart.parser import STATE_COMMANDS, Certificate, KickstartParser
from pykickstart.sections import ScriptSection
from pykickstart.version import makeVersion

from org_edns_addon.constants import (MAX_INCLUDE_DEPTH, MAX_INCLUDES,
                                      MAX_KICKSTART_BYTES, MAX_KICKSTART_COMMANDS,
                                      MAX_KICKSTART_LINE, MAX_PROBLEMS,
                                      ADDON_SECTION_OPEN, SECTION_OPEN)
from org_edns_addon.fileio import error_text
from org_edns_addon.i18n import _
from org_edns_addon.ks.edns import EdnsData
from org_edns_addon.ks.result import Include, MissingInclude, ParsedKickstart
from org_edns_addon.ks.rules import check_rules
from org_edns_addon.lines import LINES
from org_edns_addon.ks.sections import (AddonSection, BatchedPackageSection, EdnsSection,
                                        TrackedCertificateSection, compact_script_section)
from org_edns_addon.ks.source import (FileLines, KickstartReadError, is_url,
                                      read_kickstart_text, without_text_of, without_values)
from org_edns_addon.problems import Problem, SectionPlace, Severity


class _StopReading(Exception):
    """Reading stops here; the message says why (a bound was reached)."""


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
        self.files_read = []
        self._values = ({}, {})   # (shown, hidden): values read, as dicts (ordered sets)

    # pykickstart calls setupSections() from __init__, before our attributes exist.
    def setupSections(self):
        super().setupSections()
        for section in list(self._sections.values()):
            if isinstance(section, ScriptSection):
                self.registerSection(compact_script_section(type(section))(
                    self.handler, dataObj=section.dataObj))
        self.registerSection(BatchedPackageSection(self.handler))
        self.registerSection(TrackedCertificateSection(self.handler, self, dataObj=Certificate))
        self.registerSection(EdnsSection(self.handler, self))
        self._addon = AddonSection(self.handler, self)
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

    def note_values(self, filename, *values):
        """VALUES were read from a line of FILENAME: shown if it is the kickstart itself."""
        shown = filename in (None, self.result.filename)
        self._values[0 if shown else 1].update(dict.fromkeys(v for v in values if v))

    def hide_included_values(self, problems):
        """PROBLEMS (found after reading: the checks of the whole kickstart) with every
        value read only from an included file, whose lines are never repeated (TLS names,
        servers, --ca and --search names, certificate file names and places), shown as
        '...'; the problem's FILE:LINE says where it is."""
        result = self.result
        for cert in result.certificates:
            if cert.origin is not None:
                self.note_values(cert.origin.filename, cert.filename, cert.directory, cert.path)
        if result.edns.seen and result.edns_places:
            config = result.edns.to_config()
            self.note_values(result.edns_places[0].filename, *config.ca_names,
                             *config.searches)
            for server in config.servers:
                # An address is no name, but its interface (ADDR%IFACE) is.
                scoped = str(server.address) if "%" in str(server.address) else None
                self.note_values(server.filename, server.kickstart_line(), server.uri(),
                                 server.name, scoped, ",".join(server.domains),
                                 *server.domains)
        shown, hidden = self._values
        hidden = [value for value in hidden if value not in shown]
        if not hidden:
            return problems
        kept = [result.filename] + self.files_read
        return [Problem(problem.severity, without_values(problem.message, hidden, kept),
                        problem.lineno, problem.filename) for problem in problems]

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
            self.add_problem(Severity.ERROR, error_text(error))

    def _tryFunc(self, fn):
        # pykickstart's own handlers raise more than KickstartError on odd input
        # (ksvalidator reports those as "General error"); none may escape as a traceback.
        try:
            fn()
        except _StopReading:
            raise
        except Exception as error:  # noqa: BLE001 (a pykickstart error is a finding)
            self.errorsCount += 1
            self.add_problem(Severity.ERROR, error_text(error))

    def ksappend(self, line, followed):
        """The file (path, text) the ``%ksappend`` LINE names, read as pykickstart's
        preprocessor reads it (parser._preprocessStateMachine: the word after the first
        space, a URL or a file), or None after saying why. FOLLOWED False: LINE is not of
        the kickstart file itself, which alone is preprocessed; pykickstart then ignores
        it among commands (and a section takes it as a line of its body)."""
        if not followed:
            if not self.in_section:
                self.add_problem(Severity.WARNING, _(
                    "%ksappend is followed only in the kickstart file itself (the installer "
                    "preprocesses that file alone, and ignores this line); move it there, or "
                    "use %include"))
            return None
        words = line.strip().split(" ")
        # parse-kickstart calls the preprocessor outside any try: what it raises stops
        # the initramfs's reading of the whole kickstart.
        if len(words) < 2:
            self.add_problem(Severity.ERROR, _(
                "%ksappend names no file after a space, and the installer stops reading the "
                "kickstart here (pykickstart's preprocessor: \"Illegal url for %ksappend\"); "
                "write %ksappend /path/of/the/file.ks"))
            return None
        location = words[1]
        if is_url(location):
            self.add_problem(Severity.WARNING, _("%%ksappend %s is a URL and is not followed "
                                                 "here; check that file separately") % location)
            return None
        path = location if os.path.isabs(location) else \
            os.path.join(os.path.dirname(self.result.filename), location)
        if self._includes_followed >= MAX_INCLUDES:
            self.add_problem(Severity.ERROR, _include_limit("%ksappend", location))
            return None
        self._includes_followed += 1
        try:
            text, size = read_kickstart_text(path, MAX_KICKSTART_BYTES - self._bytes_read,
                                             regular_only=True)
        except KickstartReadError as error:
            self.add_problem(Severity.ERROR, _(
                "%%ksappend %s: %s; the installer stops reading the kickstart here "
                "(pykickstart's preprocessor: \"Unable to open %%ksappend file\")")
                % (location, error.message))
            return None
        self._bytes_read += size
        self.files_read.append(path)
        return path, text

    def appended_without_line_break(self, where, line, following):
        """A file %ksappend put in place ended at WHERE (its LINE) without a line break,
        before the kickstart's line FOLLOWING (file, line)."""
        self.add_problem_at(Severity.ERROR, _(
            "the file does not end with a line break, and %%ksappend puts its text in place "
            "of its line as it is: the installer reads this line and line %d of %s as one; "
            "end the file with a line break") % (following[1], following[0]), where, line)

    def readKickstartFromString(self, s, reset=True):
        if reset:
            self._reset()
        source = FileLines(self, self.current_file, s, appends=not self._sources)
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
            if os.path.lexists(f):
                self.add_problem_at(Severity.ERROR, _("%%include %s: %s") % (f, error.message),
                                    self.position)
                return
            # As Anaconda reads it before %pre (dracut/parse-kickstart and the pre-parser
            # in pyanaconda/kickstart.py: missingIncludeIsFatal=False): without the file.
            self.result.missing_includes.append(MissingInclude(
                self.result.includes[-1], f, *self._enclosing_section()))
            self.add_problem_at(Severity.WARNING, _("%%include %s: %s; if a %%pre script "
                                "writes it, check that file separately") % (f, error.message),
                                self.position)

    def _enclosing_section(self):
        """(the name of the section being read or None, the --filename of the
        %certificate being read or None)."""
        if not self.in_section:
            return None, None
        if self._state == "%addon":
            return (ADDON_SECTION_OPEN if self._addon.ours else "%addon"), None
        if self._state == "%certificate":
            return "%certificate", self._sections["%certificate"].current_filename
        return self._state, None

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
            return _include_limit("%include", path)
        return None

    def _read_file(self, f, reset, limit, regular_only):
        text, size = read_kickstart_text(f, limit, regular_only)
        self._bytes_read += size
        if not self._reading:
            self.result.text = text
        self.files_read.append(f)
        self._reading.append(f)
        try:
            self.readKickstartFromString(text, reset=reset)
        finally:
            self._reading.pop()


def _include_limit(word, path):
    return _("%(word)s %(path)s: more than %(limit)d files are included in all (a file "
             "included from several places counts each time); include fewer, or flatten the "
             "kickstart (ksflatten)") % {"word": word, "path": path, "limit": MAX_INCLUDES}


def make_handler():
    """A pykickstart handler of the newest syntax, with ``handler.edns``."""
    handler = makeVersion()
    handler.edns = EdnsData()
    return handler


def parse_kickstart(path, now=None, lines=LINES):
    """Read the kickstart at PATH (following ``%include``) and check every rule, for the
    installer LINES (``lines.Line``s: by default every line)."""
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
            before = len(result.problems)
            check_rules(result, now, read_to_end=outcome == _READ_TO_END, lines=lines)
            result.problems[before:] = reader.hide_included_values(result.problems[before:])
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
                              % error_text(error).rstrip("."), (filename, lineno),
                              getattr(error, "edns_line", None))
        return _STOPPED
    return _READ_TO_END
