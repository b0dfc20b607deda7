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
