"""The module's D-Bus interface: Anaconda's ``KickstartModuleInterface`` plus our members."""

from dasbus.server.interface import dbus_interface
from dasbus.typing import ObjPath

from pyanaconda.modules.common.base import KickstartModuleInterface
from pyanaconda.modules.common.containers import TaskContainer

from org_edns_addon.dbus_identifiers import EDNS
from org_edns_addon.dbus_interface import EdnsInterfaceMembers, refusing_invalid_configuration


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
