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
