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

"""The DNS servers on the page: the list, a new server typed as a kickstart line, and the
address and routed domains of the selected one.

Every input goes to the editor as it is typed: what it refuses is said under the
entry at once (``InlineError``), what it takes changes the list in place. A new
server is only checked while typed, and taken with Add (or Enter).
"""

from org_edns_addon.gui.inline import InlineError
from org_edns_addon.ui.editor import CLEAR_WORD, EditError, EdnsEditor
from org_edns_addon.ui.words import routes, tls_name


def _row(server):
    """The list's columns for SERVER: its URI, its TLS name, the names it answers."""
    return [server.uri(), tls_name(server), routes(server)]


class ServersSection:
    """The servers of PAGE's editor (``EdnsPage``) in the widgets of BUILDER."""

    def __init__(self, builder, page):
        get = builder.get_object
        self._page = page
        self.store = get("ednsServerStore")
        self.view = get("ednsServersView")
        self.new_entry = get("ednsNewServerEntry")
        self.add_button = get("ednsAddServerButton")
        self.address_entry = get("ednsServerAddressEntry")
        self.domains_entry = get("ednsServerDomainsEntry")
        self.remove_button = get("ednsRemoveServerButton")
        self.new_error = InlineError(get("ednsNewServerError"), self.new_entry)
        self.address_error = InlineError(get("ednsServerAddressError"), self.address_entry)
        self.domains_error = InlineError(get("ednsServerDomainsError"), self.domains_entry)
        self._selection = self.view.get_selection()
        # True while the page sets the entries itself: their "changed" is not the user's.
        self._filling = False

        self.new_entry.connect("changed", self._new_changed)
        self.new_entry.connect("activate", self._add)
        self.add_button.connect("clicked", self._add)
        self._selection.connect("changed", self._selected)
        self.address_entry.connect("changed", self._address_changed)
        self.domains_entry.connect("changed", self._domains_changed)
        self.remove_button.connect("clicked", self._remove)

    @property
    def _editor(self):
        return self._page.editor

    @property
    def selected(self):
        """The index of the selected server, or None."""
        model, tree_iter = self._selection.get_selected()
        return None if tree_iter is None else model.get_path(tree_iter).get_indices()[0]

    def select(self, index):
        """Select server INDEX (None: none)."""
        if index is None:
            self._selection.unselect_all()
        else:
            self._selection.select_path(index)

    def fill(self):
        """Show the editor's servers, keeping the selection where it can (else the first
        server is selected, so its details show)."""
        index = self.selected if self.selected is not None else 0
        self.store.clear()
        for server in self._editor.config.servers:
            self.store.append(_row(server))
        for error in (self.new_error, self.address_error, self.domains_error):
            error.clear()
        self._new_changed(self.new_entry)
        self.select(index if index is not None and index < len(self.store) else None)
        self._show_selected()

    def _show_selected(self):
        index = self.selected
        server = None if index is None else self._editor.config.servers[index]
        self._filling = True
        try:
            self.address_entry.set_text(server.uri() if server else "")
            self.domains_entry.set_text(",".join(server.domains) if server else "")
        finally:
            self._filling = False
        for widget in (self.address_entry, self.domains_entry, self.remove_button):
            widget.set_sensitive(server is not None)
        self.address_error.clear()
        self.domains_error.clear()

    def _selected(self, _selection):
        self._show_selected()

    # A new server.

    def _new_changed(self, entry):
        text = entry.get_text().strip()
        refused = self._editor.would_refuse(EdnsEditor.add_server, text) if text else None
        if refused:
            self.new_error.show(str(refused))
        else:
            self.new_error.clear()
        self.add_button.set_sensitive(bool(text) and refused is None)

    def _add(self, _widget):
        text = self.new_entry.get_text().strip()
        if not text:
            return
        try:
            self._editor.add_server(text)
        except EditError as error:
            self.new_error.show(str(error))
            return
        self.store.append(_row(self._editor.config.servers[-1]))
        self.new_entry.set_text("")
        self.select(len(self.store) - 1)
        self._page.edited()

    # The selected server.

    def _changed_selected(self, change, text, error):
        index = self.selected
        if self._filling or index is None:
            return
        try:
            server = change(index, text)
        except EditError as refused:
            error.show(str(refused))
            return
        error.clear()
        self.store[index] = _row(server)
        self._page.edited()

    def _address_changed(self, entry):
        self._changed_selected(self._editor.set_server_address, entry.get_text(),
                               self.address_error)

    def _domains_changed(self, entry):
        # An empty entry routes no domain to the server: it serves every name.
        self._changed_selected(self._editor.set_server_domains,
                               entry.get_text().strip() or CLEAR_WORD, self.domains_error)

    def _remove(self, _button):
        index = self.selected
        if index is None:
            return
        try:
            self._editor.remove_server(index)
        except EditError as error:
            self.domains_error.show(str(error))
            return
        del self.store[index]
        self.select(min(index, len(self.store) - 1) if len(self.store) else None)
        self._page.edited()
