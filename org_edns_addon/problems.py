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

"""What every layer says about a configuration: a ``Problem`` (an error or a warning,
with where it was found), the ``SectionPlace`` a kickstart section was read at, and the
two exceptions of a value refused (``ModelError``) and of a configuration that has
errors (``ValidationError``), and the sentence of a list longer than its limit
(``ListOf``)."""

import enum
from dataclasses import dataclass, field
from typing import Any, Optional

from org_edns_addon.echo import escaped
from org_edns_addon.i18n import N_, P_, _
from org_edns_addon.terms import CA_LIST


class ModelError(ValueError):
    """A value a user gave is not valid; the message says why and how to fix it."""


class Severity(str, enum.Enum):
    """How bad a problem is; ``value`` is its name in JSON, ``label`` its word for users."""
    ERROR = "error"
    WARNING = "warning"

    @property
    def label(self):
        return _(_SEVERITY_LABELS[self])


_SEVERITY_LABELS = {Severity.ERROR: N_("error"), Severity.WARNING: N_("warning")}


@dataclass(frozen=True)
class Problem:
    """One finding about a configuration, with where it was found if known, and the server
    it is about, if one (``model.DotServer``: an editor tells a server's problems from the
    section's without line numbers)."""
    severity: Severity
    message: str
    lineno: Optional[int] = None
    filename: Optional[str] = None
    server: Any = field(default=None, compare=False, repr=False)

    def __str__(self):
        """``FILE:LINE: error: MESSAGE``, or as much of the place as is known; a control
        character of a value in it is escaped (``echo.escaped``), so it is one line that
        a terminal shows as it is."""
        return escaped(self._text())

    def _text(self):
        if self.filename is not None and self.lineno is not None:
            return _("%s:%d: %s: %s") % (self.filename, self.lineno, self.severity.label,
                                         self.message)
        if self.filename is not None:
            return _("%s: %s: %s") % (self.filename, self.severity.label, self.message)
        if self.lineno is not None:
            return _("line %d: %s: %s") % (self.lineno, self.severity.label, self.message)
        return self.headline()

    def headline(self):
        """``error: MESSAGE``, without the place (a screen that lists a configuration's
        problems)."""
        if self.severity is Severity.ERROR:
            return escaped(_("error: %s") % self.message)
        return escaped(_("warning: %s") % self.message)


@dataclass
class SectionPlace:
    """Where a kickstart section was read: file, header line, the spelling used, last line."""
    filename: str
    lineno: int
    spelling: str = ""
    end_lineno: Optional[int] = None


class ValidationError(ValueError):
    """A configuration with errors cannot be used; ``problems`` are its errors."""

    def __init__(self, problems, message=None):
        self.problems = [problem for problem in problems if problem.severity == Severity.ERROR]
        super().__init__(message or _("the encrypted DNS configuration has errors: %s")
                         % "; ".join(problem.message for problem in self.problems))


class ListOf(enum.Enum):
    """A list that has a limit; ``too_many`` is the sentence refusing a longer one."""
    SERVERS = "servers"
    ROUTED_DOMAINS = "routed domains"
    SEARCH_DOMAINS = "search domains"
    CA_NAMES = "--ca names"

    def too_many(self, count, limit):
        """The sentence refusing COUNT items where LIMIT is the most: a whole sentence for
        each list, in the plural form the language gives COUNT."""
        if self is ListOf.SERVERS:
            text = P_("%(count)d DNS server is too many; give at most %(limit)d",
                      "%(count)d DNS servers are too many; give at most %(limit)d", count)
        elif self is ListOf.ROUTED_DOMAINS:
            text = P_("%(count)d routed domain is too many; give at most %(limit)d",
                      "%(count)d routed domains are too many; give at most %(limit)d", count)
        elif self is ListOf.SEARCH_DOMAINS:
            text = P_("%(count)d search domain is too many; give at most %(limit)d",
                      "%(count)d search domains are too many; give at most %(limit)d", count)
        else:
            text = P_("%(count)d name in %(list)s is too many; give at most %(limit)d",
                      "%(count)d names in %(list)s are too many; give at most %(limit)d", count)
        return text % {"count": count, "limit": limit, "list": CA_LIST}
