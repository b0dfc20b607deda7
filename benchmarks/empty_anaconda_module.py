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

"""The baseline of the Anaconda start-up figure: an Anaconda module with nothing in it.

Started as Anaconda starts a module (``python3 -m``, ``DBUS_STARTER_ADDRESS``):
pyanaconda's own start-up, one empty ``KickstartModuleInterface`` and a name
on the bus. Needs pyanaconda importable.
"""

from pyanaconda.modules.common import init

init()

# After init(), as in every Anaconda module's __main__.
from dasbus.server.interface import dbus_interface
from pyanaconda.core.dbus import DBus
from pyanaconda.modules.common.base import (
    KickstartModuleInterface, KickstartService)

BASELINE_MODULE_NAME = "org.fedoraproject.Anaconda.Addons.EdnsBaselineModule"


@dbus_interface(BASELINE_MODULE_NAME)
class EmptyModuleInterface(KickstartModuleInterface):
    """Anaconda's kickstart members and nothing else."""


class EmptyModule(KickstartService):
    def publish(self):
        DBus.publish_object("/" + BASELINE_MODULE_NAME.replace(".", "/"),
                            EmptyModuleInterface(self))
        DBus.register_service(BASELINE_MODULE_NAME)


if __name__ == "__main__":
    EmptyModule().run()
