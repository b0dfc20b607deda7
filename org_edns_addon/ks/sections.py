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

"""The sections the kickstart reader (``ks/reader.py``) tracks, on pykickstart's own: each
knows the file and line of what it reads (also across ``%include``) and hands problems to
the reader instead of raising them.

Two of them only make pykickstart fast on a large kickstart, the same data coming out
(both are candidates for pykickstart itself): ``BatchedPackageSection`` hands it plain
package lines in runs (it sorts the whole list again for each line: 20 000 lines took
minutes), and ``compact_script_section`` keeps a script's body in chunks of lines (a
list of millions of short lines costs ~60 bytes a line).
"""

import functools

from pykickstart.errors import KickstartError
from pykickstart.sections import CertificateSection, PackageSection, Section

from org_edns_addon.constants import ADDON_SECTION_OPEN, MAX_PEM_BYTES, SECTION_OPEN
from org_edns_addon.fileio import error_text
from org_edns_addon.i18n import _
from org_edns_addon.ks.edns import is_our_addon, misspelled_addon
from org_edns_addon.ks.rules import certificate_value
from org_edns_addon.ks.source import LinePlaces
from org_edns_addon.problems import SectionPlace, Severity


class TrackedCertificateSection(CertificateSection):
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

    @property
    def current_filename(self):
        """The --filename of the %certificate being read (None if its header was refused)."""
        return self._certificate.get("filename") if self._place is not None else None

    def handleHeader(self, lineno, args):
        self._place = None
        self._body_places = LinePlaces()
        self._body_size = 0
        self._certificate.update({"cert": [], "filename": None, "dir": None, "type": None})
        filename, lineno = self._reader.position
        self._header_line = self._reader.current_line
        self._reader.check_header_comment()
        try:
            super().handleHeader(lineno, args)
        except Exception:
            self._note_refused_name(args)
            raise
        self._place = SectionPlace(filename, lineno, "%certificate")

    def _note_refused_name(self, args):
        """A header refused for its other options (pykickstart 3.73 and later refuse one
        without --dir or --type themselves) still gives its --filename: a --ca naming it
        names a %certificate that is there, refused on its own line, not a missing one."""
        parser = self._getParser()      # a new parser each call (pykickstart's sections)
        # pykickstart before 3.73 marks --dir and --filename required=True, so its argparse
        # refuses the header before it reads --filename: read it without that refusal.
        for action in parser._actions:
            action.required = False
        try:
            namespace, _extras = parser.parse_known_args(args[1:])
        except Exception:  # noqa: BLE001 (the header's own error is reported already)
            return
        if namespace.filename:
            self._reader.result.certificate_names.append(namespace.filename)

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
                                        "the %%certificate line and %%end") % error_text(error),
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
            self._reader.note_values(place.filename, data.filename, data.dir)
            value = certificate_value(data, place, self._body_places, add,
                                      self._reader.result.unread)
            if value is not None:
                self._reader.result.certificates.append(value)


class EdnsSection(Section):
    """A top-level ``%edns``: feeds ``handler.edns`` as ``%addon org_edns_addon`` does, with
    every line numbered by the reader (also across ``%include``)."""
    sectionOpen = SECTION_OPEN
    allLines = True

    def __init__(self, handler, reader, **kwargs):
        super().__init__(handler, **kwargs)
        self._reader = reader

    def handleHeader(self, lineno, args):
        super().handleHeader(lineno, args)
        self._reader.open_edns(SECTION_OPEN)
        self.handler.edns.handle_header(args[1:], lineno)

    def handleLine(self, line):
        self._reader.edns_line(line)

    def finalize(self):
        super().finalize()
        self._reader.close_edns()
        self.handler.edns.handle_end()


class AddonSection(Section):
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
        typo = misspelled_addon(args)
        if typo:
            self._reader.add_problem(Severity.ERROR, typo)
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


class BatchedPackageSection(PackageSection):
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
def compact_script_section(section_class):
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
