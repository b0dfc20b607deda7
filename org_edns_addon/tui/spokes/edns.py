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

"""The Anaconda text UI spoke for encrypted DNS, in the hub's system category.

It shows the same screens as ``edns-addon tui`` over an editor read from
the module on D-Bus. Leaving it with changes writes them to the module and,
when the configuration is valid, runs the module's ``ConfigureWithTasks``
so the rest of the installation already resolves over DoT.

The hub only stops at this spoke when encrypted DNS is configured and
invalid: not configured, it is optional; configured and valid (a kickstart
with a valid section), it is complete. When applying it to the installer fails,
the spoke says what failed and what it means, and stays until the person
decides: 'c' again goes on without encrypted DNS in the installer, a changed
configuration is applied again.
"""

from dasbus.error import DBusError
from simpleline.render.prompt import Prompt
from simpleline.render.screen import InputState

from pyanaconda.anaconda_loggers import get_module_logger
from pyanaconda.core.constants import ANACONDA_ENVIRON
from pyanaconda.core.dbus import DBus
from pyanaconda.modules.common.task import sync_run_task
from pyanaconda.modules.common.util import is_module_available
from pyanaconda.ui.categories.system import SystemCategory
from pyanaconda.ui.tui.spokes import NormalTUISpoke

from org_edns_addon.dbus.identifiers import EDNS, edns_proxy
from org_edns_addon.i18n import N_, _
from org_edns_addon.ui.editor import EditError
from org_edns_addon.ui.module_client import (InstallerApply, ModuleView, read_editor,
                                             write_editor)
from org_edns_addon.ui.words import failed_apply
from org_edns_addon.tui.screens import ItemMenu, add_main_menu, report

log = get_module_logger(__name__)

# The hub's name of the spoke.
TITLE = N_("Encrypted DNS")

__all__ = ["EncryptedDnsSpoke"]


class EncryptedDnsSpoke(NormalTUISpoke):
    """Encrypted DNS (DNS over TLS) servers, resolve mode, backend and CA."""

    category = SystemCategory

    @classmethod
    def should_run(cls, environment, data):
        """Only in the installer (not Initial Setup), and only with the module running."""
        return environment == ANACONDA_ENVIRON and is_module_available(EDNS)

    @staticmethod
    def get_screen_id():
        """Return a unique id of this UI screen."""
        return "encrypted-dns-configuration"

    def __init__(self, data, storage, payload):
        super().__init__(data, storage, payload)
        # The hub shows the title as it is: translated here, in the addon's domain.
        self.title = _(TITLE)
        self._module = edns_proxy(DBus)
        self._view = ModuleView(self._module)
        self._editor = None
        self._menu = ItemMenu()
        self._apply = InstallerApply()

    def initialize(self):
        self.initialize_start()
        super().initialize()
        self.initialize_done()

    def setup(self, args=None):
        """Read the module's state each time the spoke is entered."""
        super().setup(args)
        self._editor = read_editor(self._module)
        return True

    def refresh(self, args=None):
        super().refresh(args)
        self._menu = self._menu.renewed()
        add_main_menu(self.window, self._menu, self._editor)

    def input(self, args, key):
        state = self._menu.process(key)
        if state is not None:
            return state
        if key.lower() == Prompt.CONTINUE:
            if self._editor.dirty:
                try:
                    self.apply()
                except (EditError, DBusError) as error:
                    # Stay: the user reads why, and 'c' again leaves (the module has it).
                    return self._menu.refuse(error)
                self.execute()
                if self._apply.undecided:
                    # Stay: what failed, what it means, and the choice.
                    report(failed_apply(self._apply.failure, Prompt.CONTINUE, pressed=True))
                    return InputState.DISCARDED
            elif self._apply.undecided:
                log.info("Going on without encrypted DNS in the installer: %s",
                         self._apply.failure)
                self._apply.accept()
            return InputState.PROCESSED_AND_CLOSE
        return super().input(args, key)

    def apply(self):
        """Write the edited configuration and the certificates added here to the module."""
        # What failed to apply before was another configuration.
        self._apply.finished()
        try:
            write_editor(self._module, self._editor)
        finally:
            self._view.forget()
        self._editor.dirty = False

    def execute(self):
        """Apply a valid configuration to the installer environment."""
        if not self._view.status.completed:
            log.info("Encrypted DNS not applied to the installer: %s", self.status)
            return
        self._apply.start()
        try:
            for path in self._module.ConfigureWithTasks():
                sync_run_task(edns_proxy(DBus, path))
        except DBusError as error:
            # The module logged the details; this is what the person reads.
            log.error("Encrypted DNS not applied to the installer: %s", error)
            self._apply.finished(str(error))
            return
        self._apply.finished()

    @property
    def _hub_status(self):
        return self._apply.seen_by_hub(self._view.status)

    @property
    def mandatory(self):
        return self._hub_status.mandatory

    @property
    def completed(self):
        return self._hub_status.completed

    @property
    def status(self):
        return self._hub_status.line
