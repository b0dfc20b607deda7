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

"""The module's D-Bus interface: Anaconda's ``KickstartModuleInterface`` plus our members."""

from dasbus.server.interface import dbus_interface
from dasbus.typing import ObjPath

from pyanaconda.modules.common.base import KickstartModuleInterface
from pyanaconda.modules.common.containers import TaskContainer

from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.dbus.errors import refusing_invalid_configuration
from org_edns_addon.dbus.interface import EdnsInterfaceMembers


# The members, not EdnsInterfaceTemplate: declaring the interface name over the
# template would replace its members by CheckServersWithTask alone.
@dbus_interface(EDNS.interface_name)
class EdnsInterface(EdnsInterfaceMembers, KickstartModuleInterface):
    """D-Bus interface of the encrypted DNS module (implementation: ``EdnsService``)."""

    def CheckServersWithTask(self) -> ObjPath:
        """The pre-flight check of every server as a task; its result (``GetResult``)
        is what ``CheckServers`` returns. A configuration with errors is refused."""
        with refusing_invalid_configuration():
            return TaskContainer.to_object_path(self.implementation.check_servers_with_task())
