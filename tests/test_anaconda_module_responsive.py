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

"""The Anaconda module (real pyanaconda) stays responsive: it publishes the interface with
the addon's own handler, so a check runs beside its main loop, one at a time, a refusal is
one log line, and Anaconda's boss can stop it (Quit) while a check runs. Needs an anaconda
checkout on PYTHONPATH (see ../shared/TESTING.md); skipped otherwise.
"""

import importlib
import os
import signal
import time

import pytest
from gi.repository import GLib

from lab.kickstarts import certificate_section
from lab import certs
from lab.bus import rss_kib, wait_for
from org_edns_addon.constants import (ECHO_MAX_CHARS, MAX_DBUS_CALL_BYTES,
                                      MAX_DBUS_NAME_CHARS)
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.dbus.errors import CHECK_RUNNING_ERROR, InvalidValueError
from tests.dbus_fixtures import AsyncCalls, remote_error, server, validation
from tests.anaconda_fixtures import boss_read, kickstart

pytestmark = pytest.mark.anaconda

try:
    # The first thing the module imports: without it the module cannot start.
    importlib.import_module("pyanaconda.modules.common.base")
except ImportError as error:   # pragma: no cover - depends on the machine
    pytest.skip("pyanaconda is not importable (%s); put an anaconda checkout on PYTHONPATH, "
                "see shared/TESTING.md" % error, allow_module_level=True)

MODULE = "org_edns_addon.service"


def module_with_silent_server(start_module, silent):
    proxy = start_module(MODULE, EDNS.service_name)
    proxy.Servers = [server(silent.address, "silent.test", port=silent.port)]
    # A loopback server is only warned about (dnsconfd's Unbound would not ask it).
    assert [line for line in validation(proxy) if line.startswith("error")] == []
    return proxy


def check_servers(calls, tag, seconds):
    calls.call(tag, EDNS.interface_name, "CheckServers", GLib.Variant("(d)", (seconds,)))


def module_pid(bus):
    return bus.proxy.GetConnectionUnixProcessID(EDNS.service_name)


def exit_status(pid, seconds):
    """The exit status of our child PID (a negative signal number if killed), or None if it
    still runs after SECONDS."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found, status = os.waitpid(pid, os.WNOHANG)
        if found:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    return None


def test_the_module_answers_while_its_one_check_runs(start_module, bus, silent_server):
    module_with_silent_server(start_module, silent_server)
    calls = AsyncCalls(bus.connection)
    for number in range(3):
        check_servers(calls, number, 2.0)
    calls.get_property("read", "Backend")
    calls.wait()
    tags = calls.tags()
    [(first, (result,))] = [(tag, reply) for tag, reply, error in calls.replies
                            if error is None and tag != "read"]
    assert [check["port"] for check in result] == [silent_server.port]
    assert sorted(remote_error(error) for _, _, error in calls.replies if error) == \
        [CHECK_RUNNING_ERROR] * 2
    assert tags.index("read") < tags.index(first)
    assert silent_server.accepted == 1


def test_a_refusal_in_the_module_is_one_log_line_without_a_traceback(start_module, tmp_path):
    proxy = start_module(MODULE, EDNS.service_name)
    with pytest.raises(InvalidValueError):
        proxy.Backend = "x" * 1000000
    log = (tmp_path / ("%s.log" % MODULE)).read_text()
    refused = [line for line in log.splitlines() if "Refused " in line]
    assert refused == ["INFO:org_edns_addon.dbus.handler:Refused "
                       "org.freedesktop.DBus.Properties.Set: the backend '%s… (1000000 "
                       "characters) is longer than %d characters; no backend is"
                       % ("x" * (ECHO_MAX_CHARS - 1), MAX_DBUS_NAME_CHARS)]
    assert "Traceback" not in log


def test_memory_of_the_module_stays_flat_over_many_calls(start_module, bus):
    start_module(MODULE, EDNS.service_name)
    pid = module_pid(bus)
    calls = AsyncCalls(bus.connection)

    def run(count):
        for number in range(count):
            calls.get_property(number, "Backend")
            if calls.sent - len(calls.replies) >= 200:
                calls.wait(calls.sent - 100)
        calls.wait(timeout=300)

    run(3000)
    before = rss_kib(pid)
    run(10000)
    # Without the addon's handler each call kept about 2 kB: 20 MB here.
    assert rss_kib(pid) - before < 2 * 1024


@pytest.mark.parametrize("stop", ["Quit", "SIGTERM"])
def test_the_module_stops_at_once_while_a_check_runs(start_module, bus, silent_server, stop):
    proxy = module_with_silent_server(start_module, silent_server)
    pid = module_pid(bus)
    calls = AsyncCalls(bus.connection)
    check_servers(calls, "check", 20.0)
    wait_for(lambda: silent_server.accepted == 1, what="the check to connect")
    if stop == "Quit":
        # What Anaconda's boss does at the end (ModuleManager.stop_modules): answered at
        # once, and the module leaves its loop a second later (Anaconda's deferred stop).
        proxy.Quit()
        expected = 0
    else:
        # Anaconda's modules take no signals of their own: SIGTERM's default action.
        os.kill(pid, signal.SIGTERM)
        expected = -signal.SIGTERM
    # Within half the check's own time.
    assert exit_status(pid, 10) == expected


def test_a_kickstart_larger_than_one_call_of_ours_still_reaches_the_module(start_module, bus,
                                                                         tmp_path):
    # The size limit is for the addon's own members; Anaconda's boss hands the module its
    # part of the kickstart in one ReadKickstart call, and certificates make it large.
    proxy = start_module(MODULE, EDNS.service_name)
    bundle = "".join(certs.make_ca("Bundle %d" % n).pem for n in range(1400))
    text = kickstart(bundle) + "".join(certificate_section(bundle, "more%d.pem" % n)
                                       for n in range(3))
    assert len(text) > MAX_DBUS_CALL_BYTES
    path = tmp_path / "ks.cfg"
    path.write_text(text)
    report = boss_read(bus, path)
    assert report.is_valid(), [str(m) for m in report.get_messages()]
    assert len(proxy.Certificates) == 4 and validation(proxy) == []
