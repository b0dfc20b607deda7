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

"""What reading a kickstart gives: the section, the certificates and every problem."""

from dataclasses import dataclass, field
from typing import List, Optional

from org_edns_addon.certificates.kickstart import KickstartCertificate
from org_edns_addon.constants import ADDON_SECTION_OPEN, MAX_PROBLEMS, SECTION_OPEN
from org_edns_addon.i18n import _
from org_edns_addon.ks.edns import EdnsData
from org_edns_addon.problems import Problem, SectionPlace, Severity, ValidationError


@dataclass(frozen=True)
class Include:
    """An ``%include`` as pykickstart read it: the file and line it is on, and what it names."""
    filename: str
    lineno: int
    target: str


@dataclass(frozen=True)
class MissingInclude:
    """An ``%include`` of a file that does not exist here, as one a ``%pre`` script writes:
    Anaconda reads the kickstart in its initramfs without it (dracut/parse-kickstart,
    ``missingIncludeIsFatal=False``), runs ``%pre``, then reads it whole.

    ``include`` is its ``Include``, ``path`` the file as it would be read here.
    ``section`` is the section it is inside (``SECTION_OPEN`` or ``ADDON_SECTION_OPEN``
    for ours, ``%certificate``, another section's name) or None among the commands;
    ``certificate`` the ``--filename`` of the ``%certificate`` it is inside.
    """
    include: Include
    path: str
    section: Optional[str] = None
    certificate: Optional[str] = None


@dataclass
class ParsedKickstart:
    """What a kickstart says about encrypted DNS, and the problems found.

    ``certificates`` are the ``%certificate`` sections read without a problem;
    ``certificate_names`` every ``--filename`` given (so a ``--ca`` naming a
    refused certificate is not also called unknown). ``text`` is the file
    itself as it was read (None if unreadable): what rewrites start from,
    never a second read that may differ (a pipe, an edit). ``includes`` are
    the ``%include`` lines seen, in reading order, followed or not;
    ``missing_includes`` those of them that name a file that does not exist here.

    ``problems`` keeps at most ``MAX_PROBLEMS`` of each severity (so ``errors``
    is never empty when there is an error); ``omitted_errors`` and
    ``omitted_warnings`` count the others.
    """
    filename: str
    edns: EdnsData
    edns_places: List[SectionPlace] = field(default_factory=list)
    certificates: List[KickstartCertificate] = field(default_factory=list)
    certificate_names: List[str] = field(default_factory=list)
    problems: List[Problem] = field(default_factory=list)
    text: Optional[str] = None
    handler: object = None
    includes: List[Include] = field(default_factory=list)
    missing_includes: List[MissingInclude] = field(default_factory=list)
    # Certificates whose PEM OpenSSL would not load, said by ks.rules.check_rules.
    unread: List = field(default_factory=list)
    omitted_errors: int = 0
    omitted_warnings: int = 0
    _kept_errors: int = field(default=0, init=False, repr=False, compare=False)
    _kept_warnings: int = field(default=0, init=False, repr=False, compare=False)

    def add_problem(self, problem):
        """Keep PROBLEM, or only count it when as many of its severity are kept already."""
        if problem.severity == Severity.ERROR:
            if self._kept_errors < MAX_PROBLEMS:
                self._kept_errors += 1
                self.problems.append(problem)
            else:
                self.omitted_errors += 1
        elif self._kept_warnings < MAX_PROBLEMS:
            self._kept_warnings += 1
            self.problems.append(problem)
        else:
            self.omitted_warnings += 1

    @property
    def error_count(self):
        """Errors found, listed or not."""
        return len(self.errors) + self.omitted_errors

    @property
    def warning_count(self):
        """Warnings found, listed or not."""
        return len(self.warnings) + self.omitted_warnings

    @property
    def config(self):
        """The validated ``EdnsConfig``, or None without a section or with errors."""
        if not self.edns.seen or self.errors:
            return None
        return self.edns.to_config()

    @property
    def errors(self):
        return [p for p in self.problems if p.severity == Severity.ERROR]

    @property
    def warnings(self):
        return [p for p in self.problems if p.severity == Severity.WARNING]

    def unread_parts(self):
        """What staging this kickstart here (``apply``, ``overlay``, ``boot-args``,
        ``check``) needs now that is in a file missing here (one a ``%pre`` script
        writes, ``MissingInclude``): (file, line or None, sentence) for each, in reading
        order; empty when the section and the ``%certificate``s its ``--ca`` names are all
        in files read here."""
        missing = self.missing_includes
        if not missing:
            return []
        files = ", ".join(dict.fromkeys(item.path for item in missing))
        if not self.edns.seen:
            return [(self.filename, None, _(
                "no %s section is in the files read here; the installer may read one later "
                "from a file that does not exist here (%s): put the section in the kickstart "
                "itself") % (ADDON_SECTION_OPEN, files))]
        found = []
        names = self.edns.to_config().ca_names
        for item in missing:
            where = (item.include.filename, item.include.lineno)
            if item.section in (SECTION_OPEN, ADDON_SECTION_OPEN):
                found.append(where + (_(
                    "the %s section includes %s, which does not exist here; every line of "
                    "the section is needed now: put them in the kickstart itself")
                    % (item.section, item.path),))
            elif item.section == "%certificate" and item.certificate in names:
                # A name read from an included file is not shown (ks/source.py).
                if item.include.filename != self.filename:
                    sentence = _("the %%certificate that --ca names includes %s, which does "
                                 "not exist here; the whole certificate is needed now: put it "
                                 "in the kickstart itself") % item.path
                else:
                    sentence = _("the %%certificate --filename=%s that --ca names includes "
                                 "%s, which does not exist here; the whole certificate is "
                                 "needed now: put it in the kickstart itself") % (
                                     item.certificate, item.path)
                found.append(where + (sentence,))
        head = self.edns_places[0]
        for name in dict.fromkeys(names):
            if name not in self.certificate_names:
                if head.filename != self.filename:
                    sentence = _("a --ca name of this line names a %%certificate that is in "
                                 "no file read here, so its CA bundle cannot be made now; the "
                                 "installer may read it later from a file that does not exist "
                                 "here (%s): put that %%certificate in the kickstart itself"
                                 ) % files
                else:
                    sentence = _("--ca=%s names a %%certificate that is in no file read here, "
                                 "so its CA bundle cannot be made now; the installer may read "
                                 "it later from a file that does not exist here (%s): put that "
                                 "%%certificate in the kickstart itself") % (name, files)
                found.append((head.filename, head.lineno, sentence))
        return sorted(dict.fromkeys(found), key=lambda part: (part[0] != self.filename,
                                                          part[1] or 0))

    def staging_input(self, ignored=()):
        """The ``StagingInput`` of the kickstart. ``ValidationError`` if it has errors
        other than the ``Problem``s IGNORED (those a rewrite of the text fixes),
        ``ValueError`` if it has no encrypted DNS section or needs what is in a file
        missing here (``unread_parts``)."""
        from org_edns_addon.trust import StagingInput
        errors = [problem for problem in self.errors if problem not in ignored]
        if errors:
            raise ValidationError(errors, _("%s has errors; fix them first") % self.filename)
        unread = self.unread_parts()
        if unread:
            filename, lineno, sentence = unread[0]
            raise ValueError(_("%s:%d: %s") % (filename, lineno, sentence) if lineno else
                             _("%s: %s") % (filename, sentence))
        if not self.edns.seen:
            raise ValueError(_("%s has no %s section; nothing to apply")
                             % (self.filename, ADDON_SECTION_OPEN))
        return StagingInput.of(self.edns.to_config(), self.certificates)
