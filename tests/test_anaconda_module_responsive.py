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

"""The Anaconda module (real pyanaconda) stays responsive: Anaconda's boss can stop it
(Quit) while a check runs, and hand it a kickstart larger than any call of ours may be.
(What it shares with the stand-alone service, the handler's answers beside the main loop,
its log lines and its memory, is tested on both in test_dbus_handler.py.) Needs an
anaconda checkout on PYTHONPATH (see docs/testing.md); skipped otherwise.
"""

import importlib
import os
import signal
import time

import pytest

from lab.kickstarts import certificate_section
from lab import certs
from lab.bus import wait_for
from org_edns_addon.constants import MAX_DBUS_CALL_BYTES
from org_edns_addon.dbus.identifiers import EDNS
from tests.dbus_fixtures import AsyncCalls, call_check_servers, give_silent_server, validation
from tests.anaconda_fixtures import boss_read, kickstart

pytestmark = pytest.mark.anaconda

try:
    # The first thing the module imports: without it the module cannot start.
    importlib.import_module("pyanaconda.modules.common.base")
except ImportError as error:   # pragma: no cover - depends on the machine
    pytest.skip("pyanaconda is not importable (%s); put an anaconda checkout on PYTHONPATH, "
                "see docs/testing.md" % error, allow_module_level=True)

MODULE = "org_edns_addon.service"


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


@pytest.mark.parametrize("stop", ["Quit", "SIGTERM"])
def test_the_module_stops_at_once_while_a_check_runs(start_module, bus, silent_server, stop):
    proxy = start_module(MODULE, EDNS.service_name)
    give_silent_server(proxy, silent_server)
    pid = module_pid(bus)
    calls = AsyncCalls(bus.connection)
    call_check_servers(calls, "check", 20.0)
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
