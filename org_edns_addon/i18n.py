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
