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

"""What is wrong with an input, said beside it: the sentence under the entry, and the
error icon in the entry (with the sentence as its tooltip), as Anaconda's input checks
mark an entry (``pyanaconda/ui/gui/helpers.py``)."""

from gi.repository import Gtk

from org_edns_addon.ui.words import screen_sentence

ERROR_ICON = "dialog-error-symbolic"


class InlineError:
    """The error LABEL of one input (an entry, or a group of inputs when ENTRY is None)."""

    def __init__(self, label, entry=None):
        self.label = label
        self.entry = entry

    @property
    def message(self):
        """The sentence shown, or None."""
        return self.label.get_text() if self.label.get_visible() else None

    def show(self, message):
        """Say MESSAGE (a rule's refusal) as a sentence beside the input."""
        message = screen_sentence(message)
        self.label.set_text(message)
        self.label.set_visible(True)
        if self.entry is not None:
            self.entry.set_icon_from_icon_name(Gtk.EntryIconPosition.SECONDARY, ERROR_ICON)
            self.entry.set_icon_tooltip_text(Gtk.EntryIconPosition.SECONDARY, message)
            self.entry.get_style_context().add_class(Gtk.STYLE_CLASS_ERROR)

    def clear(self):
        self.label.set_text("")
        self.label.set_visible(False)
        if self.entry is not None:
            self.entry.set_icon_from_icon_name(Gtk.EntryIconPosition.SECONDARY, None)
            self.entry.set_icon_tooltip_text(Gtk.EntryIconPosition.SECONDARY, None)
            self.entry.get_style_context().remove_class(Gtk.STYLE_CLASS_ERROR)
