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

"""The addon's interface template as a stand-alone D-Bus service, without pyanaconda.

    python3 -m org_edns_addon.dbus.standalone --address ADDRESS [--kickstart FILE]

publishes ``EdnsInterfaceTemplate`` at the module's object path and owns its
service name (``dbus.identifiers``) on the bus at ADDRESS (a private ``dbus-daemon``), until
SIGINT, SIGTERM or SIGHUP, which end it at once with exit status 130 (a call
in progress is not waited for: no call blocks the main loop for long). Its
state is fresh, or what FILE says (the section and its ``%certificate``
sections, which D-Bus cannot set), as Anaconda's boss would hand it to the
module. Refused calls are logged on standard error, one line each. Tests drive
it through a proxy; the start-up benchmark times it against an empty dasbus
service.
"""

import argparse
import logging
import signal
import sys

from dasbus.connection import AddressedMessageBus
from dasbus.error import DBusError, ErrorMapper
from dasbus.loop import EventLoop
from gi.repository import GLib

from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.dbus.errors import register_errors
from org_edns_addon.dbus.interface import EdnsInterfaceTemplate
from org_edns_addon.dbus.handler import EdnsObjectHandler
from org_edns_addon.i18n import _
from org_edns_addon.lines import LINE_KEYS, line_named
from org_edns_addon.state import EdnsState


class ServeError(Exception):
    """The service cannot be published; the message is a sentence for users."""


def _stop_on_signals(loop, signals=(signal.SIGINT, signal.SIGTERM, signal.SIGHUP)):
    """Quit LOOP on SIGNALS; return the list that receives the signals taken.

    GLib's own signal sources are used, not Python handlers: a signal that
    comes after the name is owned but before the loop runs stays pending and
    quits the loop as soon as it starts (a Python handler's quit() would be
    lost then, and the service would hang). Python's handler is set to
    SIG_IGN first so PyGObject does not put its own SIGINT handler back. The
    sources stay: a second signal while the service ends is taken like the
    first, not left to the default action that would kill the process.
    """
    received = []

    def stop(signum):
        received.append(signum)
        loop.quit()
        return GLib.SOURCE_CONTINUE

    for signum in signals:
        signal.signal(signum, signal.SIG_IGN)
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, signum, stop, signum)
    return received


def serve(address, state):
    """Publish the interface over STATE on the bus at ADDRESS and run until a signal.

    Raises ServeError when the bus cannot be reached or refuses the name, and
    KeyboardInterrupt after SIGINT or SIGTERM.
    """
    loop = EventLoop()
    received = _stop_on_signals(loop)
    error_mapper = ErrorMapper()
    register_errors(error_mapper)
    bus = AddressedMessageBus(address, error_mapper=error_mapper)
    try:
        bus.publish_object(EDNS.object_path, EdnsInterfaceTemplate(state),
                           server_factory=EdnsObjectHandler)
        bus.register_service(EDNS.service_name)
    except (GLib.Error, DBusError) as error:
        raise ServeError(_("cannot serve on the D-Bus bus at %r: %s; give the address that "
                         "dbus-daemon --print-address printed, like unix:path=/tmp/bus.socket")
                         % (address, getattr(error, "message", None) or error)) from None
    except ConnectionError:
        # dasbus's answer when the bus gives the name to someone else.
        raise ServeError(_("%s is already owned on the bus at %s; stop the service that owns "
                         "it first") % (EDNS.service_name, address)) from None
    loop.run()
    if received:
        raise KeyboardInterrupt


def state_of_kickstart(path, lines=None):
    """An ``EdnsState`` holding what the kickstart at PATH says, judged for LINES
    (``lines.Line``s; None: every line), or None after printing its errors."""
    from org_edns_addon.ks.reader import parse_kickstart
    parsed = parse_kickstart(path, **({"lines": lines} if lines else {}))
    for problem in parsed.errors:
        print(problem, file=sys.stderr)
    if parsed.errors:
        return None
    state = EdnsState(parsed.config, parsed.certificates)
    state.lines = lines
    return state


def _path(text):
    if not text:
        raise argparse.ArgumentTypeError(_("the path is empty; give a kickstart file"))
    return text


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m org_edns_addon.dbus.standalone",
        description=_("Serve the encrypted DNS addon's D-Bus interface (no Anaconda needed)."))
    parser.add_argument("--address", required=True,
                        help=_("the D-Bus address of the bus to serve on"))
    parser.add_argument("--kickstart", metavar="FILE", type=_path,
                        help=_("start with what this kickstart says (%%addon org_edns_addon or "
                             "%%edns, and its %%certificate sections)"))
    parser.add_argument("--line", choices=LINE_KEYS, metavar="LINE",
                        help=_("judge the configuration as the installer of this line does "
                               "(%s); by default for every line") % "|".join(LINE_KEYS))
    args = parser.parse_args(argv)
    # Our refusals (INFO), everyone's warnings; not dasbus's own chatter.
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(levelname)s: %(message)s")
    logging.getLogger("org_edns_addon").setLevel(logging.INFO)
    lines = (line_named(args.line),) if args.line else None
    if args.kickstart is None:
        state = EdnsState()
        state.lines = lines
    else:
        state = state_of_kickstart(args.kickstart, lines)
    if state is None:
        return 1
    try:
        serve(args.address, state)
    except ServeError as error:
        print("%s: %s" % (parser.prog, error), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130   # stopped with Ctrl-C, SIGTERM or SIGHUP: the usual ways to end it
    return 0


if __name__ == "__main__":
    sys.exit(main())
