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

import functools
import gettext
import os

from org_edns_addon.constants import TRANSLATION_DOMAIN

# What gettext.find() reads to choose a catalogue: the installer sets them when the
# user picks a language, so the translation is looked up again when they change.
_LANGUAGE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def _(text):
    if not text:
        return text
    return _translation(*map(os.environ.get, _LANGUAGE_VARIABLES)).gettext(text)


def P_(singular, plural, count):
    return _translation(*map(os.environ.get, _LANGUAGE_VARIABLES)).ngettext(singular, plural,
                                                                             count)


def N_(text):
    return text


@functools.lru_cache(maxsize=8)
def _translation(*language):
    """The catalogue for LANGUAGE (the values of _LANGUAGE_VARIABLES): gettext searches
    the file system on every call, about 50 µs, which a parser built with many
    translated help texts would pay each time."""
    return gettext.translation(TRANSLATION_DOMAIN, fallback=True)
