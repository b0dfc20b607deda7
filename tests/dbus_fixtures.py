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

"""The D-Bus fixtures: the private bus, the module while a test runs (the stand-alone
service, or both forms of the module: ``service``; ``lab_service`` the same in the lab's
network namespace, where it checks the lab's servers), its structures as plain values,
and clients that misbehave. The processes come from ``lab.bus``; every one is killed by its
PID, also when a test fails.
"""

import os
import socket
import threading
from contextlib import contextmanager

import pytest
from dasbus.typing import Str, get_variant, unwrap_variant
from gi.repository import Gio, GLib

from lab.bus import (TIMEOUT, client_bus, kill_pid, python_env, start_bus, start_service,
                     stop_service, template_service_argv, wait_for)
from lab.dotlab import HOST_NETWORK, lab_host, lab_port
from tests.anaconda_fixtures import require_pyanaconda
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.dbus.structures import ConfigurationData, DotServerData, ValidationReport

def plain_structures(structures):
    """A D-Bus list of structures (``aa{sv}``) as dicts of plain values."""
    return [{name: unwrap_variant(value) for name, value in structure.items()}
            for structure in structures]


def server(address, name="", port=None, domains=(), tls=True):
    """One server as Configuration's servers take it (a DotServerData structure)."""
    data = DotServerData()
    data.address = address
    data.name = name
    if port is not None:
        data.port = port
    data.domains = list(domains)
    data.tls = tls
    return DotServerData.to_structure(data)


def configuration(**fields):
    """A Configuration structure of FIELDS (a ``ConfigurationData``'s, as keywords); the
    others as a fresh module has them."""
    data = ConfigurationData()
    for name, value in fields.items():
        setattr(data, name, value)
    return ConfigurationData.to_structure(data)


def configure(proxy, **fields):
    """Set the module's Configuration with FIELDS (``ConfigurationData``'s, as keywords)
    changed and the others as they are: the one way a client sets them."""
    data = ConfigurationData.from_structure(proxy.Configuration)
    for name, value in fields.items():
        setattr(data, name, value)
    proxy.Configuration = ConfigurationData.to_structure(data)


def setting(proxy, field):
    """The plain value of FIELD (its D-Bus name: ``ca-names``...) of the Configuration."""
    return unwrap_variant(proxy.Configuration[field])


def servers_of(proxy):
    """The configuration's servers as (address, port, name, domains, tls) tuples."""
    servers = ConfigurationData.from_structure(proxy.Configuration).servers
    return [(d.address, d.port, d.name, d.domains, d.tls)
            for d in DotServerData.from_structure_list(servers)]


def validation(proxy):
    """The module's ``Validate()`` report as lines: "error: ..." then "warning: ..."."""
    report = ValidationReport.from_structure(proxy.Validate())
    return ["error: " + message for message in report.error_messages] + \
        ["warning: " + message for message in report.warning_messages]


@pytest.fixture(scope="session")
def bus_address():
    """The private bus of scripts/run-tests.sh, or one started (and killed) here.

    In a parallel run (pytest-xdist) the first worker takes the run's bus and each other
    worker starts its own: the services of two workers would claim the same name."""
    address = os.environ.get("EDNS_TEST_BUS_ADDRESS")
    if address and os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0":
        yield address
        return
    address, pid = start_bus()
    try:
        yield address
    finally:
        kill_pid(pid)


@pytest.fixture
def bus(bus_address):
    connection = client_bus(bus_address)
    yield connection
    connection.disconnect()


@contextmanager
def running_template_service(bus, bus_address, kickstart=None, log_path=None,
                             network=HOST_NETWORK, line=None):
    """The stand-alone service (python3 -m org_edns_addon.dbus.standalone) in NETWORK, with
    the state of the kickstart at KICKSTART if given, as an installer of LINE (a lines.py
    key; None: every line), and its output in LOG_PATH, while in the block: (proxy,
    process)."""
    process = start_service(network.command(template_service_argv(bus_address, kickstart,
                                                                  line)),
                            bus, EDNS.service_name, env=python_env(), log_path=log_path)
    try:
        yield bus.get_proxy(EDNS.service_name, EDNS.object_path), process
    finally:
        stop_service(process)
        wait_for(lambda: not bus.proxy.NameHasOwner(EDNS.service_name),
                 what="the service name to be released")


@pytest.fixture
def edns_proxy(bus, bus_address):
    """A fresh stand-alone service and its proxy."""
    with running_template_service(bus, bus_address) as started:
        yield started


class Service:
    """The module running on the private bus: its ``proxy``, its ``pid`` and its log."""

    def __init__(self, form, proxy, pid, log_path):
        self.form = form
        self.proxy = proxy
        self.pid = pid
        self._log_path = log_path

    def log(self):
        return self._log_path.read_text()

    def refusals(self):
        """What each "Refused" line of the log says, from "Refused" on (the two forms log
        in formats of their own)."""
        return [line[line.index("Refused "):] for line in self.log().splitlines()
                if "org_edns_addon.dbus.handler" in line and "Refused " in line]


FORMS = ["stand-alone", pytest.param("anaconda", marks=pytest.mark.anaconda)]


def _service(request, bus, bus_address, tmp_path, network):
    if request.param == "stand-alone":
        log_path = tmp_path / "service.log"
        with running_template_service(bus, bus_address, log_path=log_path,
                                      network=network) as (proxy, process):
            yield Service(request.param, proxy, process.pid, log_path)
        return
    require_pyanaconda()
    module = "org_edns_addon.service"
    proxy = request.getfixturevalue("start_module")(module, EDNS.service_name,
                                                    network=network)
    yield Service(request.param, proxy,
                  bus.proxy.GetConnectionUnixProcessID(EDNS.service_name),
                  tmp_path / ("%s.log" % module))


@pytest.fixture(params=FORMS)
def service(request, bus, bus_address, tmp_path):
    """A fresh module in each of its two forms: the stand-alone service (``python3 -m
    org_edns_addon.dbus.standalone``) and the Anaconda module (``python3 -m
    org_edns_addon.service``, as start-module runs it; skipped, saying why, without
    pyanaconda). Both publish the one interface through the one handler."""
    yield from _service(request, bus, bus_address, tmp_path, HOST_NETWORK)


@pytest.fixture(params=FORMS)
def lab_service(request, bus, bus_address, tmp_path, lab_network):
    """``service``, run in ``lab_network``: what it checks are the lab's servers."""
    yield from _service(request, bus, bus_address, tmp_path, lab_network)


def give_silent_server(proxy, silent):
    """Make the module's only DNS server SILENT (a ``SilentServer``)."""
    configure(proxy, servers=[server(silent.address, "silent.test", port=silent.port)])
    # A lab host: a server the resolvers would ask, so the configuration can be checked.
    assert validation(proxy) == []


def call_check_servers(calls, tag, seconds):
    """Send CheckServers(SECONDS) through CALLS (an ``AsyncCalls``), as TAG."""
    calls.call(tag, EDNS.interface_name, "CheckServers", GLib.Variant("(d)", (seconds,)))


# A value under MAX_DBUS_CALL_BYTES, so that the rules see it (and must not echo all of it),
# and each place it can be given, with the start of its refusal.
HUGE = "x" * 1000000


def _fields(**fields):
    return [{name: get_variant(Str, value) for name, value in fields.items()}]


HUGE_VALUES = [   # (the Configuration field, as ConfigurationData names it; its value)
    ("resolve_mode", HUGE, "the resolve mode 'xxx"),
    ("backend", HUGE, "the backend 'xxx"),
    ("search_domains", [HUGE], "the search domain 'xxx"),
    ("ca_names", ["corp-ca.pem", HUGE], "the --ca name 'xxx"),
    ("servers", _fields(address=HUGE), "the address 'xxx"),
    ("servers", _fields(address="192.0.2.53", name=HUGE), "the TLS name 'xxx"),
    ("servers", [{"address": get_variant(Str, "192.0.2.53"),
                  HUGE: get_variant(Str, "x")}], "there is no field 'xxx"),
]


class AsyncCalls:
    """D-Bus calls sent without waiting, on CONNECTION (a Gio.DBusConnection): each reply,
    or error, is kept in the order it arrived."""

    def __init__(self, connection):
        self._connection = connection
        self.replies = []     # (tag, unpacked reply or None, GLib.Error or None)
        self.sent = 0

    def call(self, tag, interface, method, parameters=None, timeout_ms=GLib.MAXINT,
             object_path=EDNS.object_path, destination=EDNS.service_name):
        self.sent += 1
        self._connection.call(destination, object_path, interface, method, parameters, None,
                              Gio.DBusCallFlags.NONE, timeout_ms, None, self._done, tag)

    def get_property(self, tag, name):
        self.call(tag, "org.freedesktop.DBus.Properties", "Get",
                  GLib.Variant("(ss)", (EDNS.interface_name, name)))

    def set_property(self, tag, name, value):
        self.call(tag, "org.freedesktop.DBus.Properties", "Set",
                  GLib.Variant("(ssv)", (EDNS.interface_name, name, value)))

    def _done(self, connection, result, tag):
        try:
            self.replies.append((tag, connection.call_finish(result).unpack(), None))
        except GLib.Error as error:
            self.replies.append((tag, None, error))

    def wait(self, count=None, timeout=TIMEOUT):
        """Run the main context until COUNT replies (default: all sent) have arrived; fail
        when TIMEOUT passes without a reply. (A call itself never times out, by default:
        replies queued behind slow ones on a loaded machine are late, not lost.)"""
        count = self.sent if count is None else count
        wait_for(lambda: len(self.replies) >= count, timeout=timeout,
                 what="%d D-Bus replies (%d so far)" % (count, len(self.replies)),
                 progress=lambda: len(self.replies))
        return self.replies

    def tags(self):
        return [tag for tag, _reply, _error in self.replies]


def remote_error(error):
    """The D-Bus error name of a GLib.Error from a call."""
    return Gio.DBusError.get_remote_error(error)


class SilentServer:
    """A TCP listener on ADDRESS in NETWORK that accepts connections and never says a word:
    a DNS server that hangs every check until its timeout. ``accepted`` counts
    connections."""

    def __init__(self, address, network):
        port = lab_port(address, network)
        self._listener = network.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((address, port))
        self._listener.listen(256)
        self.address, self.port = self._listener.getsockname()
        self.accepted = 0
        self._held = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while True:
            try:
                connection, _peer = self._listener.accept()
            except OSError:
                return
            self._held.append(connection)
            self.accepted += 1

    def close(self):
        # shutdown() wakes the thread blocked in accept(); close() alone would not.
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()
        self._thread.join(TIMEOUT)
        for connection in self._held:
            connection.close()


@pytest.fixture
def silent_server(lab_network):
    """A ``SilentServer`` on the lab's host 198.51.100.5 in ``lab_network``: only a module
    running there (``lab_service``) reaches it."""
    server = SilentServer(lab_host(5), lab_network)
    yield server
    server.close()
