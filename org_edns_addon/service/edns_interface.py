"""The module's D-Bus interface: Anaconda's ``KickstartModuleInterface`` plus our template."""

from dasbus.server.interface import dbus_class

from pyanaconda.modules.common.base import KickstartModuleInterface

from org_edns_addon.dbus_interface import EdnsInterfaceTemplate


# dbus_class, not dbus_interface: the class adds no interface of its own, it
# joins org.fedoraproject.Anaconda.KickstartModule and the addon's interface
# (redefining the addon's interface name here would replace the template's).
@dbus_class
class EdnsInterface(EdnsInterfaceTemplate, KickstartModuleInterface):
    """D-Bus interface of the encrypted DNS module (implementation: ``EdnsService``)."""
