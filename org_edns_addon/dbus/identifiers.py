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

from dasbus.identifier import DBusServiceIdentifier

# pyanaconda.modules.common.constants.namespaces.ADDONS_NAMESPACE
ADDONS_NAMESPACE = ("org", "fedoraproject", "Anaconda", "Addons")

# The module's service, as Anaconda's modules identify theirs (modules/common/constants/
# services.py): its service and interface name org.fedoraproject.Anaconda.Addons.Edns,
# its object path /org/fedoraproject/Anaconda/Addons/Edns. It holds no bus (Anaconda's
# own, DBus, needs pyanaconda): a client asks its bus for a proxy (``edns_proxy``).
EDNS = DBusServiceIdentifier(message_bus=None, namespace=ADDONS_NAMESPACE, basename="Edns")


def edns_proxy(message_bus, object_path=None):
    """A proxy of the module on MESSAGE_BUS (Anaconda's bus, or a private one), or of its
    object at OBJECT_PATH (a task it returned)."""
    return message_bus.get_proxy(EDNS.service_name, object_path or EDNS.object_path)
