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
errors (``ValidationError``)."""

import enum
from dataclasses import dataclass
from typing import Optional

from org_edns_addon.i18n import _


class ModelError(ValueError):
    """A value a user gave is not valid; the message says why and how to fix it."""


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One finding about a configuration, with where it was found if known."""
    severity: Severity
    message: str
    lineno: Optional[int] = None
    filename: Optional[str] = None

    def __str__(self):
        where = ""
        if self.filename is not None and self.lineno is not None:
            where = "%s:%d: " % (self.filename, self.lineno)
        elif self.filename is not None:
            where = "%s: " % self.filename
        elif self.lineno is not None:
            where = "line %d: " % self.lineno
        return "%s%s: %s" % (where, self.severity.value, self.message)


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
