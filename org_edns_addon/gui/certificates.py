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

"""The CA certificates on the page: which authenticate the servers (``--ca``), a PEM file
picked on the installer's media, and the sentence saying what really authenticates them
(``DotTrust.describe``, as staging decides it).

The file chooser fits the screen the installer runs on (Anaconda's smallest is 800x600;
GTK's own default size is larger than 1024x768), and when it closes the keyboard focus
goes back to the button that opened it, so the next Return opens it again rather than
pressing whatever else has the focus (the spoke window's Done).
"""

import os

from gi.repository import Gtk

from org_edns_addon.constants import INSTALLER_MEDIA_DIR
from org_edns_addon.gui.inline import InlineError
from org_edns_addon.i18n import _
from org_edns_addon.ui.editor import EditError, read_ca_pem_file
from org_edns_addon.ui.words import certificate_title

# The store's columns.
SELECTED, TITLE, DESCRIPTION, FILENAME, TOGGLABLE = range(5)


class CertificatesSection:
    """The certificates of PAGE's editor (``EdnsPage``) in the widgets of BUILDER."""

    def __init__(self, builder, page):
        get = builder.get_object
        self._page = page
        self.store = get("ednsCertificateStore")
        self.view = get("ednsCertificatesView")
        self.trust_label = get("ednsTrustLabel")
        self.read_button = get("ednsReadPemButton")
        self.remove_button = get("ednsRemoveCertificateButton")
        self.error = InlineError(get("ednsCertificateError"))
        self._selection = self.view.get_selection()
        # The file chooser while it is open (a dialog of its own, not modal to the loop).
        self.dialog = None
        get("ednsCertificateToggle").connect("toggled", self._toggled)
        self._selection.connect("changed", self._selected)
        self.read_button.connect("clicked", self._open_dialog)
        self.remove_button.connect("clicked", self._remove)

    @property
    def _editor(self):
        return self._page.editor

    def fill(self):
        editor = self._editor
        self.store.clear()
        for cert in editor.certificates:
            self.store.append([editor.is_selected(cert.filename),
                               certificate_title(cert, editor.source(cert)), cert.describe(),
                               cert.filename, True])
        for name in editor.config.ca_names:
            if editor.certificate(name) is None:
                self.store.append([True, _("%s (not among the certificates here)") % name, "",
                                   name, True])
        self.describe()
        self._selected(self._selection)

    def describe(self):
        """Say what authenticates the servers now."""
        self.trust_label.set_text(self._editor.trust_sentence())

    def _edit(self, change, *args):
        try:
            change(*args)
        except EditError as error:
            self.error.show(str(error))
            return False
        self.error.clear()
        self.fill()
        self._page.edited()
        return True

    def _toggled(self, _renderer, path):
        self._edit(self._editor.toggle_ca, self.store[path][FILENAME])

    def _selected(self, selection):
        model, tree_iter = selection.get_selected()
        cert = None if tree_iter is None else \
            self._editor.certificate(model[tree_iter][FILENAME])
        self.remove_button.set_sensitive(cert is not None and self._editor.removable(cert))

    def _remove(self, _button):
        model, tree_iter = self._selection.get_selected()
        if tree_iter is not None:
            self._edit(self._editor.remove_certificate, model[tree_iter][FILENAME])

    def add_file(self, path):
        """Read the CA certificate(s) of the PEM file PATH, add them as a new ``%certificate``
        (named after the file) and select them for the servers; True when taken."""
        try:
            blocks = read_ca_pem_file(path)
        except EditError as error:
            self.error.show(str(error))
            return False
        return self._edit(self._editor.add_certificate, blocks,
                          self._editor.suggest_filename(blocks, path))

    def _open_dialog(self, button):
        dialog = Gtk.FileChooserDialog(title=_("Read a CA certificate"),
                                       transient_for=button.get_toplevel(),
                                       action=Gtk.FileChooserAction.OPEN, modal=True)
        dialog.add_buttons(_("_Cancel"), Gtk.ResponseType.CANCEL,
                           _("_Read"), Gtk.ResponseType.ACCEPT)
        dialog.set_default_response(Gtk.ResponseType.ACCEPT)
        pem = Gtk.FileFilter()
        pem.set_name(_("PEM certificates"))
        for pattern in ("*.pem", "*.crt", "*.cer"):
            pem.add_pattern(pattern)
        every = Gtk.FileFilter()
        every.set_name(_("All files"))
        every.add_pattern("*")
        dialog.add_filter(pem)
        dialog.add_filter(every)
        if os.path.isdir(INSTALLER_MEDIA_DIR):
            dialog.set_current_folder(INSTALLER_MEDIA_DIR)
        dialog.connect("response", self._dialog_response)
        self.dialog = dialog
        dialog.show()
        _fit(dialog, button.get_toplevel())

    def _dialog_response(self, dialog, response):
        path = dialog.get_filename() if response == Gtk.ResponseType.ACCEPT else None
        dialog.destroy()
        self.dialog = None
        # The keyboard back to this button (else to the window's first focusable widget:
        # the spoke window's Done, which the next Return would press).
        self.read_button.grab_focus()
        if path:
            self.add_file(path)


# The file chooser's largest size, and its share of the window it belongs to.
CHOOSER_MAX_SIZE = (900, 650)
CHOOSER_SHARE = 0.9


def _fit(dialog, parent):
    """Size DIALOG (shown) to fit PARENT (the installer's window, the whole screen) and
    centre it there. GtkFileChooserDialog sizes itself when it is mapped, from its
    widget's default size (1096x822 here), whatever was asked before: so after show."""
    width, height = parent.get_size()
    minimum, _natural = dialog.get_preferred_size()
    size = [max(min(limit, int(side * CHOOSER_SHARE)), least) for limit, side, least in
            zip(CHOOSER_MAX_SIZE, (width, height), (minimum.width, minimum.height))]
    dialog.resize(*size)
    x, y = parent.get_position()
    dialog.move(x + max((width - size[0]) // 2, 0), y + max((height - size[1]) // 2, 0))
