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

"""The page of the graphical spoke: an ``EdnsEditor`` shown in the glade file's widgets,
edited by the user through them.

The page decides nothing itself: every input goes to the editor (the rules of
``EdnsState``, the same as the text UI's and the module's), and the page shows
what the editor took, refused, or found wrong. Pure GTK: the Anaconda spoke
(``gui/spokes/edns.py``) gives it the module; the tests give it a module on a
private bus.
"""

from org_edns_addon.gui.builder import PAGE, add_styles
from org_edns_addon.gui.certificates import CertificatesSection
from org_edns_addon.gui.check import CheckSection
from org_edns_addon.gui.options import OptionsSection
from org_edns_addon.gui.servers import ServersSection
from org_edns_addon.i18n import _
from org_edns_addon.problems import Severity
from org_edns_addon.ui.editor import EdnsEditor
from org_edns_addon.ui.words import problem_line, screen_sentence


class EdnsPage:
    """The page in BUILDER's widgets (a ``Gtk.Builder`` holding ``builder.PAGE_OBJECTS``).

    START_CHECK(editor, done) starts the module's check of the servers (``CheckSection``);
    EDITED(page), if given, is called after each edit the editor took (the spoke updates
    its warning bar).
    """

    def __init__(self, builder, start_check, edited=None):
        add_styles()
        self.builder = builder
        self.widget = builder.get_object(PAGE)
        # Keyboard use: the page scrolls to the widget the focus moves to.
        builder.get_object("ednsViewport").set_focus_vadjustment(self.widget.get_vadjustment())
        self.problems_label = builder.get_object("ednsProblemsLabel")
        self.editor = EdnsEditor()
        self._edited = edited
        self.servers = ServersSection(builder, self)
        self.options = OptionsSection(builder, self)
        self.certificates = CertificatesSection(builder, self)
        self.check = CheckSection(builder, self, start_check)

    def reveal(self, widget):
        """Scroll the page so that WIDGET (one of its own) is in view."""
        content = self.builder.get_object("ednsContent")
        position = widget.translate_coordinates(content, 0, 0)
        if position is None:
            return
        top = position[1]
        self.widget.get_vadjustment().clamp_page(top, top + widget.get_allocated_height())

    def reveal_when_laid_out(self, widget):
        """``reveal`` WIDGET once it has been given its new size (rows just added)."""
        handler = []

        def allocated(*_args):
            widget.disconnect(handler[0])
            self.reveal(widget)
        handler.append(widget.connect("size-allocate", allocated))
        widget.queue_resize()

    def show(self, editor):
        """Show EDITOR (read from the module, or a kickstart) and edit it from now on."""
        self.editor = editor
        for section in (self.servers, self.options, self.certificates, self.check):
            section.fill()
        self._summarise()
        # Shown again (the spoke entered again): from its top, as a new page.
        self.widget.get_vadjustment().set_value(0)

    def edited(self):
        """The editor took an edit: show what follows from it."""
        self.certificates.describe()
        self._summarise()
        if self._edited is not None:
            self._edited(self)

    def _summarise(self):
        problems = self.editor.problems()
        self.problems_label.set_text("\n".join(problem_line(problem) for problem in problems)
                                     or _("No problems."))

    @property
    def warning(self):
        """What the spoke's warning bar says: the first error of the configuration (a
        configuration without servers is not one: encrypted DNS is optional), or None."""
        if not self.editor.config.servers:
            return None
        errors = [problem.message for problem in self.editor.problems()
                  if problem.severity == Severity.ERROR]
        return screen_sentence(errors[0]) if errors else None
