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

"""Which parts of a kickstart Anaconda's boss hands to this module, and their data."""

from pykickstart.parser import Certificate

from pyanaconda.core.kickstart import KickstartSpecification
from pyanaconda.core.kickstart.addon import AddonData

from org_edns_addon.constants import ADDON_NAME
from org_edns_addon.ks.edns import EdnsData
from org_edns_addon.ks.module import LineTrackingCertificateSection


class EdnsAddonData(EdnsData, AddonData):
    """``%addon org_edns_addon``: our section data, registered as an Anaconda addon."""


class EdnsKickstartSpecification(KickstartSpecification):
    """``%addon org_edns_addon`` and ``%certificate``.

    ``%certificate`` is claimed as Anaconda's Security module claims it: the
    boss gives a section to every module that claims it, so both receive the
    certificates; this module needs them for the DoT CA bundle. A top-level
    ``%edns`` is not claimed: the boss refuses sections it does not know
    before any module sees them, so only our own tools read that spelling.
    """

    addons = {
        ADDON_NAME: EdnsAddonData,
    }

    sections = {
        "certificate": (LineTrackingCertificateSection, Certificate),
    }

    sections_data = {
        "certificate": (Certificate, "certificates"),
    }
