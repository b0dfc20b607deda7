"""The addon's interface template as a stand-alone D-Bus service, without pyanaconda.

    python3 -m org_edns_addon.dbus_service --address ADDRESS [--kickstart FILE]

publishes ``EdnsInterfaceTemplate`` at ``DBUS_OBJECT_PATH`` and owns
``DBUS_SERVICE_NAME`` on the bus at ADDRESS (a private ``dbus-daemon``), until
it is killed. Its state is fresh, or what FILE says (the section and its
``%certificate`` sections, which D-Bus cannot set), as Anaconda's boss would
hand it to the module. Tests drive it through a proxy; the start-up benchmark
times it against an empty dasbus service.
"""

import argparse
import sys

from dasbus.connection import AddressedMessageBus
from dasbus.error import ErrorMapper
from dasbus.loop import EventLoop

from org_edns_addon.constants import DBUS_OBJECT_PATH, DBUS_SERVICE_NAME
from org_edns_addon.dbus_interface import EdnsInterfaceTemplate, register_errors
from org_edns_addon.module_state import EdnsModuleState


def serve(address, state):
    """Publish the interface over STATE on the bus at ADDRESS and run until killed."""
    error_mapper = ErrorMapper()
    register_errors(error_mapper)
    bus = AddressedMessageBus(address, error_mapper=error_mapper)
    bus.publish_object(DBUS_OBJECT_PATH, EdnsInterfaceTemplate(state))
    bus.register_service(DBUS_SERVICE_NAME)
    EventLoop().run()


def state_of_kickstart(path):
    """An ``EdnsModuleState`` holding what the kickstart at PATH says, or None after
    printing its errors."""
    from org_edns_addon.ks.parse import parse_kickstart
    parsed = parse_kickstart(path)
    for problem in parsed.errors:
        print(problem, file=sys.stderr)
    if parsed.errors:
        return None
    state = EdnsModuleState()
    state.set_kickstart(parsed.config or state.config,
                        [certificate.data for certificate in parsed.certificates])
    return state


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m org_edns_addon.dbus_service",
        description="Serve the encrypted DNS addon's D-Bus interface (no Anaconda needed).")
    parser.add_argument("--address", required=True,
                        help="the D-Bus address of the bus to serve on")
    parser.add_argument("--kickstart", metavar="FILE",
                        help="start with what this kickstart says (%%addon org_edns_addon or "
                             "%%edns, and its %%certificate sections)")
    args = parser.parse_args(argv)
    state = state_of_kickstart(args.kickstart) if args.kickstart else EdnsModuleState()
    if state is None:
        return 1
    serve(args.address, state)
    return 0


if __name__ == "__main__":
    sys.exit(main())
