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

"""The benchmark's baseline: a minimal dasbus service publishing one empty interface."""

import sys

from dasbus.connection import AddressedMessageBus
from dasbus.loop import EventLoop
from dasbus.server.interface import dbus_interface

BASELINE_NAME = "org.fedoraproject.Anaconda.Addons.EdnsBaseline"


@dbus_interface(BASELINE_NAME)
class EmptyInterface:
    """No members at all."""


def main(address):
    bus = AddressedMessageBus(address)
    bus.publish_object("/" + BASELINE_NAME.replace(".", "/"), EmptyInterface())
    bus.register_service(BASELINE_NAME)
    EventLoop().run()


if __name__ == "__main__":
    main(sys.argv[1])
