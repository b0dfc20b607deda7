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

"""Translation markers, the Anaconda way (``pyanaconda/core/i18n.py``), without pyanaconda.

``_()`` translates when called, so a language chosen in the installer after
start-up applies; ``N_()`` only marks a string translated later; ``P_()`` picks
the singular or plural form of a sentence for a count.
"""

import gettext

from org_edns_addon.constants import TRANSLATION_DOMAIN


def _(text):
    if not text:
        return text
    return gettext.translation(TRANSLATION_DOMAIN, fallback=True).gettext(text)


def P_(singular, plural, count):
    return gettext.translation(TRANSLATION_DOMAIN, fallback=True).ngettext(singular, plural,
                                                                           count)


def N_(text):
    return text
