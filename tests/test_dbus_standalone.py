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

"""The interface as a stand-alone service (`python3 -m org_edns_addon.dbus.standalone`,
dbus/standalone.py): what it says when it cannot serve, and how signals end it."""

import signal

import pytest

from lab.bus import python_env, start_service, stop_service, template_service_argv, wait_for
from org_edns_addon.dbus.identifiers import EDNS
from tests.conftest import assert_sentence, run_cli
from tests.dbus_fixtures import (AsyncCalls, call_check_servers, give_silent_server,
                                 running_template_service)


@pytest.mark.parametrize("address", ["garbage", "unix:path=/nonexistent/bus", ""])
def test_the_service_on_a_bad_address_says_which_address_to_give(address):
    result = run_cli("--address", address, module="org_edns_addon.dbus.standalone")
    # GLib's reason between our words is GLib's own (its release and language choose it).
    assert_sentence(result, 1, "cannot serve on the D-Bus bus at %r: " % address,
                    "; give the address that dbus-daemon --print-address printed")
    reason = result.stderr.split(": ", 2)[2].split("; give the address")[0]
    assert reason.strip(), result.stderr


def test_a_second_service_on_the_same_bus_says_the_name_is_taken(bus, bus_address):
    with running_template_service(bus, bus_address):
        result = run_cli("--address", bus_address, module="org_edns_addon.dbus.standalone")
    assert_sentence(result, 1, "%s is already owned on the bus at %s; stop the service that "
                    "owns it first" % (EDNS.service_name, bus_address))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_service_stopped_with_a_signal_right_after_start_exits_130(bus, bus_address,
                                                                       tmp_path, signum):
    # Sent as soon as the name is owned, possibly before the loop runs: it must
    # not be lost (a lost quit() left the service running forever), nor print a traceback.
    log = tmp_path / "service.log"
    process = start_service(template_service_argv(bus_address), bus, EDNS.service_name,
                            env=python_env(), log_path=log)
    try:
        process.send_signal(signum)
        code = process.wait(timeout=30)
    finally:
        stop_service(process)
        wait_for(lambda: not bus.proxy.NameHasOwner(EDNS.service_name),
                 what="the service name to be released")
    assert (code, log.read_text()) == (130, "")


def test_the_service_with_an_empty_kickstart_path_is_a_usage_error():
    result = run_cli("--address", "unix:path=/nonexistent/bus", "--kickstart", "",
                 module="org_edns_addon.dbus.standalone")
    assert_sentence(result, 2, "argument --kickstart: the path is empty")


@pytest.mark.parametrize("signals", [
    [signal.SIGTERM], [signal.SIGHUP], [signal.SIGINT],
    [signal.SIGTERM, signal.SIGTERM], [signal.SIGHUP, signal.SIGTERM]],
    ids=["TERM", "HUP", "INT", "TERM-TERM", "HUP-TERM"])
@pytest.mark.root
def test_a_signal_during_a_check_ends_the_service_at_once_with_130(bus, bus_address,
                                                                  lab_network, silent_server,
                                                                  signals):
    with running_template_service(bus, bus_address, network=lab_network) as (proxy, process):
        give_silent_server(proxy, silent_server)
        calls = AsyncCalls(bus.connection)
        call_check_servers(calls, "check", 20.0)
        wait_for(lambda: silent_server.accepted == 1, what="the check to connect")
        for signum in signals:
            process.send_signal(signum)
        # Within half the check's own time: the signal does not wait for the check.
        assert process.wait(timeout=10) == 130
        [(_tag, reply, error)] = calls.wait()
        assert reply is None and "Check" not in error.message
