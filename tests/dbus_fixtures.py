"""A private dbus-daemon and D-Bus service processes for tests and the benchmark.

Every process started here is killed by its PID, also when a test fails.
"""

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager

import pytest
from dasbus.connection import AddressedMessageBus
from dasbus.error import ErrorMapper
from dasbus.typing import unwrap_variant
from gi.repository import GLib

from org_edns_addon.dbus_identifiers import EDNS
from org_edns_addon.dbus_interface import register_errors
from org_edns_addon.dbus_structures import ValidationReport
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
def running_template_service(bus, bus_address, kickstart=None):
    """The stand-alone service (python3 -m org_edns_addon.dbus_service), with the state of
    the kickstart at KICKSTART if given, while in the block: (proxy, process)."""
    process = start_service(template_service_argv(bus_address, kickstart), bus,
                            EDNS.interface_name, env=python_env())
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
