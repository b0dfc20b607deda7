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

"""The Anaconda GTK spoke for encrypted DNS, in the hub's System category beside Network.

Thin on purpose: the page (``org_edns_addon.gui.page``) shows and edits an editor
read from the module over D-Bus, by the rules every user interface shares; the
spoke only gives it the module. Leaving with Done writes the configuration (and
the certificates added here) to the module in one call and, when it is valid,
runs the module's ``ConfigureWithTasks`` so the rest of the installation already
resolves over DoT. Every task (the check, the installer's configuration) runs
in the module and is waited for from the main loop (``async_run_task``): the
window never blocks. The hub stops here (Anaconda's warning icon, Begin
Installation waiting) for a configuration with errors, and after a failed apply
to the installer until the person decides: Done twice goes on without encrypted
DNS in the installer, as Anaconda asks for a weak password; a changed
configuration is applied again.
"""

from dasbus.error import DBusError
from dasbus.typing import unwrap_variant

from pyanaconda.anaconda_loggers import get_module_logger
from pyanaconda.core.constants import ANACONDA_ENVIRON
from pyanaconda.core.dbus import DBus
from pyanaconda.modules.common.task import async_run_task
from pyanaconda.modules.common.util import is_module_available
from pyanaconda.ui.categories.system import SystemCategory
from pyanaconda.ui.communication import hubQ
from pyanaconda.ui.gui.spokes import NormalSpoke

from org_edns_addon.constants import TRANSLATION_DOMAIN
from org_edns_addon.dbus.identifiers import EDNS, edns_proxy
from org_edns_addon.gui.builder import (ICON_NAME, SPOKE_OBJECTS, UI_FILE_NAME, WINDOW,
                                        add_icon_directory)
from org_edns_addon.gui.page import EdnsPage
from org_edns_addon.i18n import N_, _, bind_c_translations
from org_edns_addon.ui.editor import EditError
from org_edns_addon.ui.module_client import (InstallerApply, ModuleView, read_editor,
                                             write_editor)
from org_edns_addon.ui.words import failed_apply, refusal_line

log = get_module_logger(__name__)

__all__ = ["EncryptedDnsSpoke"]

# The widget name of the spoke window's Done button (AnacondaWidgets' SpokeWindow.c).
DONE_BUTTON_NAME = "anaconda-spoke-window-done"


class EncryptedDnsSpoke(NormalSpoke):
    """Encrypted DNS (DNS over TLS) servers, resolve mode, backend and CA certificates."""

    builderObjects = SPOKE_OBJECTS
    mainWidgetName = WINDOW
    uiFile = UI_FILE_NAME
    translationDomain = TRANSLATION_DOMAIN
    icon = ICON_NAME
    title = N_("_Encrypted DNS")
    category = SystemCategory

    @staticmethod
    def get_screen_id():
        """Return a unique id of this UI screen (the text spoke's too)."""
        return "encrypted-dns-configuration"

    @classmethod
    def should_run(cls, environment, data):
        """Only in the installer (not Initial Setup), and only with the module running."""
        return environment == ANACONDA_ENVIRON and is_module_available(EDNS)

    def __init__(self, data, storage, payload):
        # Before the glade file is built: its sentences are in the addon's catalogue, and
        # the hub looks the icon up right after.
        bind_c_translations()
        add_icon_directory()
        super().__init__(data, storage, payload)
        # The hub shows the title as it is: translated here, in the addon's domain.
        self.title = _(self.title)
        self._module = edns_proxy(DBus)
        self._view = ModuleView(self._module)
        self._page = EdnsPage(self.builder, self._start_check, self._edited)
        self._apply = InstallerApply()
        # Done pressed once on a failed apply (a second press goes on that way).
        self._done_once = False

    def initialize(self):
        self.initialize_start()
        super().initialize()
        self.initialize_done()

    def refresh(self):
        """Read the module's state each time the spoke is entered."""
        super().refresh()
        self._done_once = False
        self._page.show(read_editor(self._module))
        self._show_warning()

    def _show_warning(self):
        if self._apply.undecided and not self._page.editor.dirty:
            # The hub's status line is short; what failed and the choice are here.
            self.show_warning_message(failed_apply(self._apply.failure, self._done_label(),
                                                   self._done_once))
        else:
            self.show_warning_message(self._page.warning)

    def _edited(self, page):
        # A changed configuration is applied again when the spoke is left.
        self._done_once = False
        self._show_warning()

    def _done_label(self):
        """The label of the spoke window's Done button, as the person sees it."""
        for child in self.window.get_nav_area().get_children():
            if child.get_name() == DONE_BUTTON_NAME:
                return child.get_label().replace("_", "")
        return _("Done")

    def _write(self):
        try:
            write_editor(self._module, self._page.editor)
        finally:
            self._view.forget()

    def on_back_clicked(self, button):
        """Done: write the configuration to the module first; a refusal keeps the user
        here, saying why. After a failed apply, an unchanged configuration leaves at the
        second press, the person's decision to go on without it in the installer."""
        if self._page.editor.dirty:
            try:
                self._write()
            except (EditError, DBusError) as error:
                self.show_warning_message(refusal_line(str(error)))
                return
        elif self._apply.undecided:
            if not self._done_once:
                self._done_once = True
                self._show_warning()
                return
            log.info("Going on without encrypted DNS in the installer: %s",
                     self._apply.failure)
            self._apply.accept()
        super().on_back_clicked(button)

    @property
    def changed(self):
        return self._page.editor.dirty

    def apply(self):
        """Write the edited configuration and the certificates added here to the module."""
        # What failed to apply before was another configuration.
        self._apply.finished()
        try:
            self._write()
        except (EditError, DBusError) as error:
            # on_back_clicked wrote the same a moment ago; the hub has no way back here.
            log.error("Encrypted DNS not written to the module: %s", error)
            return
        self._page.editor.dirty = False

    def execute(self):
        """Apply a valid configuration to the installer environment, beside the main loop."""
        if not self._view.status.completed:
            log.info("Encrypted DNS not applied to the installer: %s", self.status)
            return
        self._apply.start()
        hubQ.send_not_ready(self.__class__.__name__)
        self._run_tasks(list(self._module.ConfigureWithTasks()))

    def _run_tasks(self, paths, failure=None):
        if not paths or failure is not None:
            self._apply.finished(failure)
            hubQ.send_ready(self.__class__.__name__)
            return
        async_run_task(edns_proxy(DBus, paths[0]),
                       lambda task: self._task_done(task, paths[1:]))

    def _task_done(self, task, rest):
        try:
            task.Finish()
        except DBusError as error:
            # The module logged the details; this is what the person reads.
            log.error("Encrypted DNS not applied to the installer: %s", error)
            self._run_tasks(rest, str(error))
            return
        self._run_tasks(rest)

    def _start_check(self, editor, done):
        """The module checks what the page shows: write it, then run the check task."""
        try:
            self._write()
            task = edns_proxy(DBus, self._module.CheckServersWithTask())
        except (EditError, DBusError) as error:
            done(error=str(error))
            return

        def finished(task_proxy):
            try:
                task_proxy.Finish()
                structures = unwrap_variant(task_proxy.GetResult())
            except DBusError as error:
                done(error=str(error))
                return
            done(structures)
        async_run_task(task, finished)

    @property
    def _hub_status(self):
        return self._apply.seen_by_hub(self._view.status)

    @property
    def ready(self):
        return not self._apply.running

    @property
    def mandatory(self):
        return self._hub_status.mandatory

    @property
    def completed(self):
        return self._hub_status.completed

    @property
    def status(self):
        return self._hub_status.line
