"""The module's identity on D-Bus, as Anaconda's modules name theirs (``DBus*Identifier``).

Pure dasbus: the Anaconda service, the stand-alone service, the text UI and
the tests all take the names from here.
"""

from dasbus.identifier import DBusObjectIdentifier, DBusServiceIdentifier

# pyanaconda.modules.common.constants.namespaces.ADDONS_NAMESPACE
ADDONS_NAMESPACE = ("org", "fedoraproject", "Anaconda", "Addons")
EDNS_BASENAME = "Edns"

# The interface name and object path: org.fedoraproject.Anaconda.Addons.Edns and
# /org/fedoraproject/Anaconda/Addons/Edns; the service has the interface's name.
EDNS = DBusObjectIdentifier(namespace=ADDONS_NAMESPACE, basename=EDNS_BASENAME)


def edns_service(message_bus):
    """The module's service on MESSAGE_BUS (Anaconda's bus, or a private one)."""
    return DBusServiceIdentifier(message_bus=message_bus, namespace=ADDONS_NAMESPACE,
                                 basename=EDNS_BASENAME)
