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

"""The kickstart part the Anaconda module receives, as a checked ``ParsedKickstart``.

Anaconda's boss hands the module only the sections it claims. The module's
own parser (Anaconda's ``KickstartSpecificationParser``) fills pykickstart
data objects; here they become the same ``ParsedKickstart`` the command line
builds, so the same rules (``check_rules``) run on them and the same staging
input comes out of them.
"""

from pykickstart.errors import KickstartParseError
from pykickstart.sections import CertificateSection

from org_edns_addon.constants import ADDON_SECTION_OPEN
from org_edns_addon.dependencies import installer_gaps
from org_edns_addon.ks.result import ParsedKickstart
from org_edns_addon.ks.rules import certificate_value, check_rules
from org_edns_addon.lines import LINES
from org_edns_addon.problems import Problem, SectionPlace, Severity

# Problems found in the module's part carry no file name: the boss adds the
# name of the file the section came from.
MODULE_PART = "<kickstart>"


class LineTrackingCertificateSection(CertificateSection):
    """pykickstart's ``%certificate``, noting on each ``Certificate`` its header line."""

    def handleHeader(self, lineno, args):
        self.header_lineno = lineno
        super().handleHeader(lineno, args)

    def finalize(self):
        before = len(self.handler.certificates)
        try:
            super().finalize()
        except KickstartParseError as error:
            if error.lineno is None:
                raise KickstartParseError(error.message, lineno=self.header_lineno) from None
            raise
        for certificate in self.handler.certificates[before:]:
            certificate.lineno = self.header_lineno


def parsed_kickstart(addon, certificates, now=None, lines=LINES):
    """Check the ``%addon org_edns_addon`` data ADDON and the pykickstart ``Certificate``
    objects CERTIFICATES together, as ``edns-addon validate`` checks a kickstart.

    Without our section nothing is reported: the certificates then belong to
    Anaconda's Security module alone (those that are valid are kept, so a user
    interface may still name them in the configuration's ``ca-names``).
    """
    places = [SectionPlace(MODULE_PART, addon.header_lineno, ADDON_SECTION_OPEN)] \
        if addon.seen else []
    result = ParsedKickstart(MODULE_PART, addon, places)

    def add(severity, message, where):
        result.problems.append(Problem(severity, message, where[1], where[0]))

    for data in certificates:
        result.certificate_names.append(data.filename)
        place = SectionPlace(MODULE_PART, getattr(data, "lineno", None), "%certificate")
        value = certificate_value(data, place, (), add, result.unread)
        if value is not None:
            result.certificates.append(value)
    if addon.seen:
        check_rules(result, now, lines=lines)
        # What this installer image lacks, once in the report (docs/installation.md:
        # the installer image); a %certificate that cannot be checked without it is also an error.
        for sentence in installer_gaps():
            add(Severity.WARNING, sentence, (MODULE_PART, None))
    else:
        # Without our section a certificate is the Security module's: what is refused
        # whatever a certificate is for (a private key, a misplaced file) is said, as
        # 'edns-addon validate' says it, and an unreadable one is not ours to refuse.
        result.problems[:] = [problem for problem in result.problems
                              if problem.severity == Severity.ERROR]
    return result
