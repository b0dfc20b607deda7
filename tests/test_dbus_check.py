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

"""CheckServers: the pre-flight check over D-Bus, through the stand-alone service (no
pyanaconda) on a private dbus-daemon, against real Unbound DoT upstreams on the lab's
hosts; the service runs in the lab's network namespace (``lab_network``)."""

import socket
import subprocess
import sys
import time
from contextlib import ExitStack

import pytest
from dasbus.typing import Str, get_variant
from gi.repository import GLib

from lab.kickstarts import edns_kickstart
from lab.dotlab import CLOSED_LAB_HOST, TLS_NAME, lab_host
from org_edns_addon import constants as c
from lab.bus import TIMEOUT, python_env, template_service_argv, wait_for
from org_edns_addon.constants import MAX_SERVERS
from org_edns_addon.dbus.errors import (CHECK_RUNNING_ERROR, InvalidConfigurationError,
                                        InvalidValueError)
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.dbus.structures import ConfigurationData
from tests.dbus_fixtures import (configure, give_silent_server, server, setting,
                                 plain_structures, remote_error,
                                 running_template_service, validation)

CHECK_SECONDS = 5.0
FIELDS = {"address", "port", "name", "outcome", "reason", "rtt-ms", "handshake-ms"}


def reply_of(proxy, timeout=CHECK_SECONDS):
    """CheckServers' reply as plain dicts, after checking every field is there."""
    reply = proxy.CheckServers(timeout)
    assert all(set(check) == FIELDS for check in reply), reply
    return plain_structures(reply)


@pytest.fixture
def service_for(bus, bus_address, write_ks, lab_network):
    """Factory: the stand-alone service, in ``lab_network``, holding a kickstart with
    SERVER_LINES and CA_PEM as its --ca certificate; returns its proxy."""
    with ExitStack() as services:
        def start(server_lines, ca_pem):
            path = write_ks(edns_kickstart(ca_pem, servers=server_lines, commands=""))
            proxy, _ = services.enter_context(running_template_service(
                bus, bus_address, path, network=lab_network))
            return proxy
        yield start


@pytest.mark.root
def test_a_good_server_is_ok_with_its_round_trip_and_a_closed_port_is_refused(
        service_for, dot_upstream, dot_pki):
    closed = lab_host(CLOSED_LAB_HOST)
    proxy = service_for([dot_upstream.server_line(), "dns+tls://%s#%s" % (closed, TLS_NAME)],
                        dot_pki.ca.pem)
    good, refused = reply_of(proxy)
    assert good["rtt-ms"] > good["handshake-ms"] > 0
    assert dict(good, **{"rtt-ms": None, "handshake-ms": None}) == {
        "address": dot_upstream.address, "port": dot_upstream.port, "name": TLS_NAME,
        "outcome": "ok", "reason": "dot.test A: NOERROR, 1 record", "rtt-ms": None,
        "handshake-ms": None}
    assert refused == {
        "address": closed, "port": c.DOT_PORT, "name": TLS_NAME,
        "outcome": "connection refused", "rtt-ms": 0.0, "handshake-ms": 0.0,
        "reason": "nothing accepts connections on this address and port; check both"}


@pytest.mark.root
def test_a_server_whose_ca_is_not_the_kickstarts_is_unknown(service_for, dot_upstream, dot_pki,
                                                            unknown_issuer_said):
    proxy = service_for([dot_upstream.server_line()], dot_pki.other_ca.pem)
    [check] = reply_of(proxy)
    assert (check["outcome"], check["rtt-ms"]) == ("unknown CA", 0.0)
    # The command line's sentence, said to the screen that asked in its words.
    assert check["reason"] == ("the server's certificate is not authenticated by one of the CA "
                               "certificates selected for the DNS servers: %s"
                               % unknown_issuer_said("CN=Test DNS CA"))


@pytest.mark.root
def test_servers_set_over_dbus_are_the_ones_checked(service_for, dot_upstream, dot_pki):
    proxy = service_for([dot_upstream.server_line()], dot_pki.ca.pem)
    [server] = ConfigurationData.from_structure(proxy.Configuration).servers
    server["name"] = get_variant(Str, "resolver.test")
    configure(proxy, servers=[server])
    [check] = reply_of(proxy)
    assert (check["name"], check["outcome"]) == ("resolver.test", "ok")
    assert check["reason"] == "resolver.test A: NXDOMAIN, 0 records"


@pytest.mark.parametrize("timeout", [0.0, -1.0, 20.5, float("inf"), float("nan")])
def test_a_timeout_out_of_range_is_refused(edns_proxy, timeout):
    proxy, process = edns_proxy
    with pytest.raises(InvalidValueError) as raised:
        proxy.CheckServers(timeout)
    assert "is not a number of seconds from 0 to 20" in str(raised.value)
    assert process.poll() is None and setting(proxy, "backend") == "dnsconfd"


def test_a_configuration_with_errors_is_refused_with_its_problems(edns_proxy):
    proxy, process = edns_proxy
    with pytest.raises(InvalidConfigurationError) as raised:
        proxy.CheckServers(CHECK_SECONDS)
    assert str(raised.value) == ("the encrypted DNS configuration has errors: no DNS server "
                                 "is given; add a line like dns+tls://192.0.2.53#dot.example")
    assert process.poll() is None and validation(proxy)


def test_the_service_refuses_a_kickstart_with_errors_without_a_traceback(bus_address,
                                                                          write_ks):
    path = write_ks("%addon org_edns_addon\ndns+tls://192.0.2.53\n%end\n")
    result = subprocess.run(template_service_argv(bus_address, path), env=python_env(),
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("%s:2: " % path) and "has no TLS name" in result.stderr
    assert "Traceback" not in result.stderr


CALLER = """
import sys, time
from gi.repository import Gio, GLib
connection = Gio.DBusConnection.new_for_address_sync(
    sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
    Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
connection.call(%r, %r, %r, "CheckServers", GLib.Variant("(d)", (20.0,)), None,
                Gio.DBusCallFlags.NONE, -1, None, None)
connection.flush_sync(None)
print("sent", flush=True)
time.sleep(60)
""" % (EDNS.service_name, EDNS.object_path, EDNS.interface_name)


def check_refusals(log_path):
    """The service's log lines of CheckServers calls it refused (one per refusal, written
    before the reply)."""
    refused = "Refused %s.CheckServers: " % EDNS.interface_name
    return [line for line in log_path.read_text().splitlines() if refused in line]


@pytest.mark.root
def test_callers_killed_after_calling_leave_one_check_and_the_next_caller_is_answered(
        bus, bus_address, lab_network, silent_server, tmp_path):
    log_path = tmp_path / "service.log"
    with running_template_service(bus, bus_address, log_path=log_path,
                                  network=lab_network) as (proxy, process):
        give_silent_server(proxy, silent_server)
        callers = [subprocess.Popen([sys.executable, "-c", CALLER, bus_address],
                                    stdout=subprocess.PIPE, text=True, env=python_env())
                   for _ in range(30)]
        try:
            for caller in callers:
                assert caller.stdout.readline() == "sent\n"
        finally:
            for caller in callers:
                caller.kill()
                caller.wait()
                caller.stdout.close()
        # The next caller: answered at once, while the one check nobody reads runs on.
        assert setting(proxy, "resolve-mode") == "exclusive"
        with pytest.raises(GLib.Error) as raised:
            bus.connection.call_sync(EDNS.service_name, EDNS.object_path,
                                     EDNS.interface_name, "CheckServers",
                                     GLib.Variant("(d)", (1.0,)), None, 0, -1, None)
        assert remote_error(raised.value) == CHECK_RUNNING_ERROR
        # Of the 31 calls, every one but the check's was refused (each with its log line),
        # however long the service took to see them: one check, and only one.
        wait_for(lambda: len(check_refusals(log_path)) >= len(callers),
                 what="a refusal of each call but one")
        assert len(check_refusals(log_path)) == len(callers)
        # The check's connection may still be on its way to the listener's accept().
        wait_for(lambda: silent_server.accepted >= 1, what="the one check to connect")
        assert silent_server.accepted == 1
        assert process.poll() is None


# A check of every server at once, bounded by the TIMEOUT it was given.
BOUNDED_CHECK_SECONDS = 3.0


def timed_check(bus, timeout):
    """(wall seconds, the ServerCheckData structures) of CheckServers(TIMEOUT), waited for
    as a D-Bus caller waits by default (25 s)."""
    start = time.monotonic()
    reply = bus.connection.call_sync(
        EDNS.service_name, EDNS.object_path, EDNS.interface_name, "CheckServers",
        GLib.Variant("(d)", (timeout,)), None, 0, -1, None)
    [checks] = reply.unpack()
    return time.monotonic() - start, checks


@pytest.mark.root
def test_a_check_of_many_silent_servers_takes_as_long_as_one_and_the_next_is_taken(
        bus, bus_address, lab_network):
    # MAX_SERVERS listening sockets that never accept nor answer: each check's connection
    # waits for a TLS handshake until its deadline. Checked a hundred at a time, as
    # before, they took three timeouts, and a dasbus caller (25 s) had stopped waiting for
    # a check of 20 s.
    with ExitStack() as stack:
        listeners = []
        for _index in range(MAX_SERVERS):
            listener = stack.enter_context(lab_network.socket(socket.AF_INET,
                                                              socket.SOCK_STREAM))
            listener.bind((lab_host(5), 0))
            listener.listen(4)
            listeners.append(listener)
        silent = [server(lab_host(5), "silent.test", port=listener.getsockname()[1])
                  for listener in listeners]
        # Servers on ports of their own: as an installer whose NetworkManager passes them on.
        with running_template_service(bus, bus_address, network=lab_network,
                                      line="fedora-43") as (proxy, process):
            # The same check of one of them: what a check bounded so takes here, now.
            configure(proxy, servers=silent[:1])
            one_seconds, [one] = timed_check(bus, BOUNDED_CHECK_SECONDS)
            assert one["outcome"] == "timeout"
            configure(proxy, servers=silent)
            seconds, checks = timed_check(bus, BOUNDED_CHECK_SECONDS)
            assert len(checks) == MAX_SERVERS
            assert {check["outcome"] for check in checks} == {"timeout"}, \
                {check["reason"] for check in checks}
            assert seconds < 2 * one_seconds, \
                "%d servers took %.1f s, one %.1f s" % (MAX_SERVERS, seconds, one_seconds)
            # Answered: the next check is taken (not CheckRunning), and answered too.
            _seconds, again = timed_check(bus, 0.5)
            assert len(again) == MAX_SERVERS
            assert process.poll() is None
