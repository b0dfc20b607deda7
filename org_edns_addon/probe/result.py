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

"""What a check of one server found (``ServerCheck``, ``Outcome``), and the network's
text made safe to show (``printable``)."""

import enum
from dataclasses import dataclass
from typing import Optional

from org_edns_addon.i18n import N_, _
from org_edns_addon.constants import (CHECK_SHOWN_TEXT_CHARS)
from org_edns_addon.model import DotServer


class Outcome(str, enum.Enum):
    """What a check found; the value is the short label shown to users."""
    OK = "ok"
    UNKNOWN_CA = N_("unknown CA")
    NAME_MISMATCH = N_("name mismatch")
    EXPIRED = N_("certificate expired")
    NOT_YET_VALID = N_("certificate not yet valid")
    CERTIFICATE_REJECTED = N_("certificate rejected")
    CONNECTION_REFUSED = N_("connection refused")
    TIMEOUT = N_("timeout")
    TLS_FAILED = N_("TLS handshake failed")
    UNREACHABLE = N_("unreachable")
    CONNECTION_LOST = N_("connection lost")
    BAD_ANSWER = N_("bad answer")
    DNS_ERROR = N_("DNS error")
    # The check could not be made (this machine's limits, or a bug): nothing about the server.
    NOT_CHECKED = N_("not checked")


@dataclass(frozen=True)
class ServerCheck:
    """The result of checking one server.

    ``reason`` is a sentence: what was asked and answered when ``ok``, else
    why the check failed and what to do about it. When ``ok``, ``rtt_ms`` is
    the time from the first byte sent (the TCP connection's) to the whole
    answer, and ``handshake_ms`` (TLS only) the part until the TLS handshake
    was done; neither includes building or reading the DNS messages.
    """
    server: DotServer
    outcome: Outcome
    reason: str
    rtt_ms: Optional[float] = None
    handshake_ms: Optional[float] = None

    @property
    def ok(self):
        return self.outcome is Outcome.OK

    def result(self):
        """What the check found, for users: ok with the times, or the failure and why. The
        one sentence of every place that shows a check (``describe``, the screens)."""
        if not self.ok:
            return "%s: %s" % (_(self.outcome.value), self.reason)
        if self.handshake_ms is None:
            return _("ok, %.1f ms (%s)") % (self.rtt_ms, self.reason)
        return _("ok, %.1f ms (TCP and TLS handshakes %.1f ms, query %.1f ms; %s)") % (
            self.rtt_ms, self.handshake_ms, self.rtt_ms - self.handshake_ms, self.reason)

    def describe(self):
        """One line for users: the server, then what the check found (``result``)."""
        return "%s: %s" % (self.server.uri(), self.result())


def printable(text, limit=CHECK_SHOWN_TEXT_CHARS):
    """TEXT (from the network) as one line that cannot steer a terminal or a log.

    Every character that is not printable (control characters such as ESC, CR
    and LF, format characters such as bidirectional overrides, separators other
    than the space) is written as its Python escape (``\\x1b``); the result is
    cut after about LIMIT characters, saying how many more there were.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "backslashreplace")
    text = str(text)
    shown = []
    length = 0
    for index, character in enumerate(text):
        if length >= limit:
            return _("%s... (%d more characters)") % ("".join(shown), len(text) - index)
        piece = character if character.isprintable() else \
            character.encode("unicode_escape").decode("ascii")
        shown.append(piece)
        length += len(piece)
    return "".join(shown)


class Failed(Exception):
    def __init__(self, outcome, reason):
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason
