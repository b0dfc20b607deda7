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

"""How a value a user gave is echoed in an error or a log line: short, whatever its size.

A refusal names the value it refuses, but a 10 MB string must not become a
10 MB D-Bus error reply and log line: ``echo()`` shows at most
``ECHO_MAX_CHARS`` characters of it and then says how long it was.
"""

import re
import reprlib

from org_edns_addon.constants import ECHO_MAX_CHARS
from org_edns_addon.i18n import _

# reprlib bounds the repr of lists and other containers without building the whole text.
_CONTAINER_REPR = reprlib.Repr()
_CONTAINER_REPR.maxstring = ECHO_MAX_CHARS
_CONTAINER_REPR.maxother = ECHO_MAX_CHARS
_CONTAINER_REPR.maxlist = _CONTAINER_REPR.maxtuple = _CONTAINER_REPR.maxdict = 4


def echo(value):
    """VALUE's repr for a message: at most ``ECHO_MAX_CHARS`` characters of it, followed by
    its length when it was cut, like ``'xxxx…' (10000000 characters)``."""
    if isinstance(value, (str, bytes)):
        shown = repr(value[:ECHO_MAX_CHARS + 1])
        if len(value) <= ECHO_MAX_CHARS and len(shown) <= ECHO_MAX_CHARS + 3:
            return shown
        what = _("characters") if isinstance(value, str) else _("bytes")
        return "%s… (%d %s)" % (shown[:ECHO_MAX_CHARS], len(value), what)
    shown = _CONTAINER_REPR.repr(value)
    if isinstance(value, (list, tuple, dict, set, frozenset)) and \
            len(value) > _CONTAINER_REPR.maxlist:
        return _("%s (%d items)") % (shown, len(value))
    return shown


def shortened(message, limit):
    """MESSAGE cut to LIMIT characters, saying how long it was when it is cut."""
    if len(message) <= limit:
        return message
    return _("%s… (cut; the message had %d characters)") % (message[:limit], len(message))


# What a terminal, a log reader or a D-Bus client would act on instead of showing it: the
# C0 and C1 controls and DEL (a newline forges a second log line, ESC starts a terminal
# sequence, CR rewrites the line), the Unicode line and paragraph separators, and the
# bidirectional overrides that reorder what is shown.
_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match):
    char = match.group()
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    code = ord(char)
    return "\\x%02x" % code if code < 0x100 else "\\u%04x" % code


def escaped(text):
    """TEXT with every character ``_UNSHOWN`` written as its escape (``\\n``, ``\\x1b``,
    ``\\u2028``): what reaches a D-Bus reply, a log line or a terminal is one line, shown
    as it is."""
    return _UNSHOWN.sub(_escape, text)


def unshown(text):
    """Whether TEXT holds a character that ``escaped`` would escape."""
    return _UNSHOWN.search(text) is not None


def named(value):
    """VALUE (a name a user gave) as it is quoted in a sentence: as it is when it is short
    and shows as it is, else as ``echo()`` shows it (quoted, escaped, cut)."""
    if isinstance(value, str) and len(value) <= ECHO_MAX_CHARS and not _UNSHOWN.search(value):
        return value
    return echo(value)
