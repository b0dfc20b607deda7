"""A private dbus-daemon and D-Bus service processes for tests and the benchmark.

Every process started here is killed by its PID, also when a test fails.
"""

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pytest
from dasbus.connection import AddressedMessageBus
from dasbus.error import ErrorMapper
from dasbus.typing import unwrap_variant
from gi.repository import Gio, GLib

from org_edns_addon.dbus_identifiers import EDNS
from org_edns_addon.dbus_interface import register_errors
from org_edns_addon.dbus_structures import DotServerData, ValidationReport
from tests.conftest import REPO

TIMEOUT = 20.0


def start_bus():
    """Start a private session dbus-daemon; return (address, pid)."""
    output = subprocess.run(["dbus-daemon", "--session", "--print-address=1", "--print-pid=1",
                             "--fork"], capture_output=True, text=True, check=True,
                            timeout=TIMEOUT).stdout.split("\n")
    return output[0].strip(), int(output[1])


def kill_pid(pid):
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass


def client_bus(address):
    """A dasbus connection to ADDRESS that maps our D-Bus errors to their exceptions."""
    error_mapper = ErrorMapper()
    register_errors(error_mapper)
    return AddressedMessageBus(address, error_mapper=error_mapper)


def plain_structures(structures):
    """A D-Bus list of structures (``aa{sv}``) as dicts of plain values."""
    return [{name: unwrap_variant(value) for name, value in structure.items()}
            for structure in structures]


def server(address, name="", port=None, domains=(), tls=True):
    """One server as the Servers property takes it (a DotServerData structure)."""
    data = DotServerData()
    data.address = address
    data.name = name
    if port is not None:
        data.port = port
    data.domains = list(domains)
    data.tls = tls
    return DotServerData.to_structure(data)


def servers_of(proxy):
    """The Servers property as (address, port, name, domains, tls) tuples."""
    return [(d.address, d.port, d.name, d.domains, d.tls)
            for d in DotServerData.from_structure_list(proxy.Servers)]


def validation(proxy):
    """The module's ``Validate()`` report as lines: "error: ..." then "warning: ..."."""
    report = ValidationReport.from_structure(proxy.Validate())
    return ["error: " + message for message in report.error_messages] + \
        ["warning: " + message for message in report.warning_messages]


def wait_for(predicate, timeout=TIMEOUT, what="the condition"):
    """Run the GLib main context until PREDICATE() is true (signals arrive this way)."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("timed out waiting for %s" % what)
        if not context.iteration(False):
            time.sleep(0.005)


def start_service(argv, bus, name, env=None, log_path=None, timeout=TIMEOUT):
    """Start ARGV and wait until it owns NAME on BUS; return the Popen.

    Its output goes to LOG_PATH (a file, so a chatty service never blocks on
    a full pipe), or nowhere. Raises RuntimeError if it dies first.
    """
    log = open(log_path, "wb") if log_path else subprocess.DEVNULL
    try:
        process = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   cwd=REPO)
    finally:
        if log_path:
            log.close()
    deadline = time.monotonic() + timeout
    try:
        while not bus.proxy.NameHasOwner(name):
            if process.poll() is not None:
                raise RuntimeError("%s exited with %s before owning %s%s" % (
                    argv, process.returncode, name, _tail(log_path)))
            if time.monotonic() > deadline:
                raise RuntimeError("%s did not own %s in %.0f s%s" % (argv, name, timeout,
                                                                     _tail(log_path)))
            time.sleep(0.002)
    except BaseException:
        stop_service(process)
        raise
    return process


def _tail(log_path):
    if not log_path:
        return ""
    with open(log_path, errors="replace") as stream:
        return ":\n" + "".join(stream.readlines()[-30:])


def stop_service(process):
    """Kill PROCESS by its PID and reap it."""
    kill_pid(process.pid)
    try:
        process.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()


def python_env(extra_path=()):
    """The environment for a child Python that imports this checkout first."""
    path = [str(REPO), *extra_path, os.environ.get("PYTHONPATH", "")]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in path if p))


def template_service_argv(address, kickstart=None):
    argv = [sys.executable, "-m", "org_edns_addon.dbus_service", "--address", address]
    return argv + ["--kickstart", str(kickstart)] if kickstart else argv


@pytest.fixture(scope="session")
def bus_address():
    """The private bus of scripts/run-tests.sh, or one started (and killed) here."""
    address = os.environ.get("EDNS_TEST_BUS_ADDRESS")
    if address:
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
def running_template_service(bus, bus_address, kickstart=None, log_path=None):
    """The stand-alone service (python3 -m org_edns_addon.dbus_service), with the state of
    the kickstart at KICKSTART if given and its output in LOG_PATH, while in the block:
    (proxy, process)."""
    process = start_service(template_service_argv(bus_address, kickstart), bus,
                            EDNS.interface_name, env=python_env(), log_path=log_path)
    try:
        yield bus.get_proxy(EDNS.interface_name, EDNS.object_path), process
    finally:
        stop_service(process)
        wait_for(lambda: not bus.proxy.NameHasOwner(EDNS.interface_name),
                 what="the service name to be released")


@pytest.fixture
def edns_proxy(bus, bus_address):
    """A fresh stand-alone service and its proxy."""
    with running_template_service(bus, bus_address) as started:
        yield started


def rss_kib(pid):
    """The resident memory of process PID, in KiB (VmRSS of /proc/PID/status)."""
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS for process %d" % pid)


class AsyncCalls:
    """D-Bus calls sent without waiting, on CONNECTION (a Gio.DBusConnection): each reply,
    or error, is kept in the order it arrived."""

    def __init__(self, connection):
        self._connection = connection
        self.replies = []     # (tag, unpacked reply or None, GLib.Error or None)
        self.sent = 0

    def call(self, tag, interface, method, parameters=None, timeout_ms=-1,
             object_path=EDNS.object_path, destination=EDNS.interface_name):
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
        """Run the main context until COUNT replies (default: all sent) have arrived."""
        count = self.sent if count is None else count
        wait_for(lambda: len(self.replies) >= count, timeout=timeout,
                 what="%d D-Bus replies (%d so far)" % (count, len(self.replies)))
        return self.replies

    def tags(self):
        return [tag for tag, _reply, _error in self.replies]


def remote_error(error):
    """The D-Bus error name of a GLib.Error from a call."""
    return Gio.DBusError.get_remote_error(error)


class SilentServer:
    """A TCP listener on loopback that accepts connections and never says a word: a DNS
    server that hangs every check until its timeout. ``accepted`` counts connections."""

    def __init__(self, address="127.0.0.1"):
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind((address, 0))
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
def silent_server():
    server = SilentServer()
    yield server
    server.close()
