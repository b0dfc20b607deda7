"""The addon's interface template as a stand-alone D-Bus service, without pyanaconda.

    python3 -m org_edns_addon.dbus_service --address ADDRESS

publishes ``EdnsInterfaceTemplate`` over a fresh ``EdnsModuleState`` at
``DBUS_OBJECT_PATH`` and owns ``DBUS_SERVICE_NAME`` on the bus at ADDRESS
(a private ``dbus-daemon``), until it is killed. Tests drive it through a
proxy; the start-up benchmark times it against an empty dasbus service.
"""

import argparse
import sys

from dasbus.connection import AddressedMessageBus
from dasbus.error import ErrorMapper
from dasbus.loop import EventLoop

from org_edns_addon.constants import DBUS_OBJECT_PATH, DBUS_SERVICE_NAME
from org_edns_addon.dbus_interface import EdnsInterfaceTemplate, register_errors
from org_edns_addon.module_state import EdnsModuleState


def serve(address):
    """Publish the interface on the bus at ADDRESS and run until killed."""
    error_mapper = ErrorMapper()
    register_errors(error_mapper)
    bus = AddressedMessageBus(address, error_mapper=error_mapper)
    bus.publish_object(DBUS_OBJECT_PATH, EdnsInterfaceTemplate(EdnsModuleState()))
    bus.register_service(DBUS_SERVICE_NAME)
    EventLoop().run()


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m org_edns_addon.dbus_service",
        description="Serve the encrypted DNS addon's D-Bus interface (no Anaconda needed).")
    parser.add_argument("--address", required=True,
                        help="the D-Bus address of the bus to serve on")
    serve(parser.parse_args(argv).address)
    return 0


if __name__ == "__main__":
    sys.exit(main())
