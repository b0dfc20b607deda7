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

"""The resolve mode, the backend and the search domains on the page.

A choice the editor refuses (exclusive while a plaintext server is there) is
said under the choices, and the choice goes back to what the editor holds. What
plaintext a mode lets out (prefer, backup) is said right under the mode, with the
warning icon, where the mode is chosen: the rule's own warning.
"""

from org_edns_addon.gui.inline import InlineError
from org_edns_addon.ui.editor import CLEAR_WORD, EditError
from org_edns_addon.ui.words import backend_text, mode_warning, resolve_mode_text


class OptionsSection:
    """The options of PAGE's editor (``EdnsPage``) in the widgets of BUILDER."""

    def __init__(self, builder, page):
        get = builder.get_object
        self._page = page
        self.mode_combo = get("ednsResolveModeCombo")
        self.mode_text = get("ednsResolveModeText")
        self.mode_warning = get("ednsResolveModeWarning")
        self.mode_warning_text = get("ednsResolveModeWarningText")
        self.backend_combo = get("ednsBackendCombo")
        self.backend_text = get("ednsBackendText")
        self.search_entry = get("ednsSearchEntry")
        self.options_error = InlineError(get("ednsOptionsError"))
        self.search_error = InlineError(get("ednsSearchError"), self.search_entry)
        self._filling = False
        self.mode_combo.connect("changed", self._choose, lambda: self._editor.set_resolve_mode)
        self.backend_combo.connect("changed", self._choose, lambda: self._editor.set_backend)
        self.search_entry.connect("changed", self._search_changed)

    @property
    def _editor(self):
        return self._page.editor

    def fill(self):
        config = self._editor.config
        self._filling = True
        try:
            self.mode_combo.set_active_id(config.resolve_mode.value)
            self.backend_combo.set_active_id(config.backend.value)
            self.search_entry.set_text(",".join(config.searches))
        finally:
            self._filling = False
        self.options_error.clear()
        self.search_error.clear()
        self._describe()

    def _describe(self, chosen=False):
        """Say what the chosen mode and backend do; CHOSEN: the user chose one just now."""
        config = self._editor.config
        self.mode_text.set_text(resolve_mode_text(config.resolve_mode))
        self.backend_text.set_text(backend_text(config.backend))
        warning = mode_warning(config.resolve_mode, config.backend)
        shown = self.mode_warning.get_visible()
        self.mode_warning_text.set_text(warning or "")
        self.mode_warning.set_visible(warning is not None)
        if warning is not None and not shown and chosen:
            # Chosen just now: the page scrolls so that it is read at once.
            self._page.reveal_when_laid_out(self.mode_warning)

    def _choose(self, combo, setter):
        if self._filling or combo.get_active_id() is None:
            return
        try:
            setter()(combo.get_active_id())
        except EditError as error:
            self.fill()
            self.options_error.show(str(error))
            return
        self.options_error.clear()
        self._describe(chosen=True)
        self._page.edited()

    def _search_changed(self, entry):
        if self._filling:
            return
        try:
            self._editor.set_searches(entry.get_text().strip() or CLEAR_WORD)
        except EditError as error:
            self.search_error.show(str(error))
            return
        self.search_error.clear()
        self._page.edited()
