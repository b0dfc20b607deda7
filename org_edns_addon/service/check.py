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

"""The pre-flight check of the DNS servers as an Anaconda task with a result.

``run()`` only calls the pure probe; the task's D-Bus interface publishes its
result (``GetResult``) as ``ServerCheckData`` structures, as Anaconda's iSCSI
discovery task publishes its nodes.
"""

from dasbus.server.interface import dbus_class
from dasbus.typing import List, Structure, get_variant

from pyanaconda.modules.common.task import Task, TaskInterface

from org_edns_addon.constants import CHECK_TIMEOUT_SECONDS
from org_edns_addon.dbus.structures import ServerCheckData
from org_edns_addon.terms import on_screen


@dbus_class
class CheckServersTaskInterface(TaskInterface):
    """The check task on D-Bus; ``GetResult`` gives ``aa{sv}`` of ``ServerCheckData``."""

    @staticmethod
    def convert_result(value):
        return get_variant(List[Structure], ServerCheckData.structures_of(value))


class CheckServersTask(Task):
    """Check every server of a ``StagingInput`` with the trust the installation will use."""

    def __init__(self, staging_input, timeout=CHECK_TIMEOUT_SECONDS):
        super().__init__()
        self._staging_input = staging_input
        self._timeout = timeout

    @property
    def name(self):
        return "Check the encrypted DNS servers"

    def for_publication(self):
        return CheckServersTaskInterface(self)

    def run(self):
        """Return the ``probe.ServerCheck`` results, in the order of the servers, their
        sentences in the screens' words (the graphical spoke runs this task)."""
        # dnspython and the probe load when a check runs, not at the module's start.
        from org_edns_addon.probe.check import check_staging_input
        with on_screen():
            return check_staging_input(self._staging_input, timeout=self._timeout)
