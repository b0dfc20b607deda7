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

"""The pre-flight check on the page: reach, authenticate and query every server, through
the module, without blocking the window.

The page only starts a check (``start_check``, given by whoever shows the page:
the Anaconda spoke runs the module's ``CheckServersWithTask``) and is called back
with the module's results, ``ServerCheckData`` structures in the order of the
servers; meanwhile the window answers the user, a spinner turns.
"""

from org_edns_addon.dbus.structures import ServerCheckData
from org_edns_addon.i18n import P_, _
from org_edns_addon.model import DotServer
from org_edns_addon.probe.result import Outcome, ServerCheck
from org_edns_addon.ui.words import checking

OK_ICON = "emblem-ok-symbolic"
FAILED_ICON = "dialog-error-symbolic"


def server_check(data, server=None):
    """The module's result DATA (a ``ServerCheckData``) as the ``probe.ServerCheck`` of
    SERVER (the ``DotServer`` checked; by default the one DATA names), so that the page
    says it as ``edns-addon check`` and the text UI do (``ServerCheck.result``)."""
    if server is None:
        server = DotServer.from_parts(data.address, data.port, data.name or None)
    ok = data.outcome == Outcome.OK.value
    return ServerCheck(server, Outcome(data.outcome), data.reason,
                       data.rtt_ms if ok else None, data.handshake_ms if ok and
                       data.handshake_ms else None)


class CheckSection:
    """The check of PAGE's editor (``EdnsPage``) in the widgets of BUILDER; START_CHECK(
    editor, done) starts one, and calls done(structures) or done(error=sentence) later,
    from the main loop."""

    def __init__(self, builder, page, start_check):
        get = builder.get_object
        self._page = page
        self._start_check = start_check
        self.button = get("ednsCheckButton")
        self.spinner = get("ednsCheckSpinner")
        self.status = get("ednsCheckStatus")
        self.store = get("ednsCheckStore")
        self.grid = get("ednsCheckGrid")
        self.running = False
        # How many checks have answered (with results or a refusal).
        self.answered = 0
        self._servers = ()
        self.button.connect("clicked", self.start)

    def fill(self):
        """A new editor is shown: results of another's servers would mislead."""
        self.button.set_sensitive(not self.running)
        if not self.running:
            self.store.clear()
            self.status.set_text("")

    def start(self, _button=None):
        editor = self._page.editor
        if not editor.config.servers:
            self.status.set_text(_("No server to check; add one first."))
            return
        self.running = True
        self._servers = editor.config.servers
        self.store.clear()
        self.button.set_sensitive(False)
        self.spinner.show()
        self.spinner.start()
        self.status.set_text(checking(len(self._servers)))
        # The user asked: the results are what they want to read next.
        self._page.reveal(self.grid)
        self._start_check(editor, self.finished)

    def finished(self, structures=None, error=None):
        """Show the results (``ServerCheckData`` structures), or why there are none."""
        self.running = False
        self.answered += 1
        self.spinner.stop()
        self.spinner.hide()
        self.button.set_sensitive(True)
        if error is not None:
            self.status.set_text(_("Not checked: %s") % error)
            return
        results = ServerCheckData.from_structure_list(structures)
        servers = self._servers if len(self._servers) == len(results) else \
            (None,) * len(results)
        passed = 0
        for server, data in zip(servers, results):
            check = server_check(data, server)
            passed += check.ok
            self.store.append([OK_ICON if check.ok else FAILED_ICON, check.server.uri(),
                               check.result()])
        self._page.reveal_when_laid_out(self.grid)
        # TRANSLATORS: after the check of %(count)d DNS servers, %(passed)d answered over TLS.
        self.status.set_text(P_("%(passed)d of %(count)d server passed the check.",
                                "%(passed)d of %(count)d servers passed the check.",
                                len(results)) % {"passed": passed, "count": len(results)})
