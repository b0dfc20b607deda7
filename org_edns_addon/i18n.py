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
the singular or plural form of a sentence for a count. What they return formats
as the original sentence where a translation's placeholders do not fit
(``Translated``), so no catalogue can make formatting a sentence raise. Every user interface
(the text and graphical spokes, the command line) translates through here, in
the domain ``TRANSLATION_DOMAIN``, from the catalogues below ``locale_dir()``.
"""

import functools
import gettext
import locale
import os

from org_edns_addon.constants import LOCALE_DIR, TRANSLATION_DOMAIN

# What gettext.find() reads to choose a catalogue: the installer sets them when the
# user picks a language, so the translation is looked up again when they change.
_LANGUAGE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def _current():
    return _translation(*map(os.environ.get, _LANGUAGE_VARIABLES), locale_dir())


def _(text):
    if not text:
        return text
    return _checked(_current().gettext(text), text)


def P_(singular, plural, count):
    # gettext's own choice without a catalogue (GNUTranslations.ngettext's fallback).
    return _checked(_current().ngettext(singular, plural, count),
                    singular if count == 1 else plural)


def _checked(translated, original):
    """TRANSLATED, formatting as ORIGINAL where its own placeholders do not fit."""
    if translated is original or translated == original:
        return original
    return Translated(translated, original)


class Translated(str):
    """A translated sentence that never breaks what formats it: where its placeholders do
    not fit the values (a catalogue with one ``%s`` too many or too few, a ``%(name)s``
    renamed, a ``%d`` for a name), it formats as the original sentence does.

    Every sentence the user sees is formatted after it is translated, in the middle of
    what it reports: a step of ``apply`` between its files and its actions, a D-Bus
    reply, a screen. A catalogue is checked when it is built (``msgfmt --check``, which
    judges only the entries marked ``python-format``); one built otherwise, or edited
    afterwards, must cost a sentence in English, never a half-done installation."""

    def __new__(cls, translated, original):
        sentence = super().__new__(cls, translated)
        sentence.original = original
        return sentence

    def __mod__(self, values):
        try:
            return str.__mod__(self, values)
        except (TypeError, ValueError, KeyError, IndexError):
            return str.__mod__(self.original, values)

    def format(self, *args, **kwargs):
        try:
            return str.format(self, *args, **kwargs)
        except (ValueError, KeyError, IndexError, AttributeError):
            return str.format(self.original, *args, **kwargs)


def N_(text):
    return text


def locale_dir():
    """Where the catalogues are: ``LOCALE_DIR``, or the directory TEXTDOMAINDIR names (as
    for gettext's own tools: a catalogue not yet installed, tests)."""
    return os.environ.get("TEXTDOMAINDIR") or LOCALE_DIR


def bind_c_translations():
    """Let C code translate in the addon's domain too: GtkBuilder translates the glade
    file's sentences with the C library's gettext, which must be told where they are."""
    locale.bindtextdomain(TRANSLATION_DOMAIN, locale_dir())


@functools.lru_cache(maxsize=8)
def _translation(*language):
    """The catalogue for LANGUAGE (the values of _LANGUAGE_VARIABLES and the directory):
    gettext searches the file system on every call, about 50 µs, which a parser built
    with many translated help texts would pay each time."""
    return gettext.translation(TRANSLATION_DOMAIN, localedir=language[-1], fallback=True)
