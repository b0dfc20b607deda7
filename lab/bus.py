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

"""A private dbus-daemon and D-Bus service processes, for the tests and the benchmarks.

Every process started here is killed by its PID. Nothing here needs pytest.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from dasbus.connection import AddressedMessageBus
from dasbus.error import ErrorMapper
from gi.repository import GLib

from org_edns_addon.dbus.errors import register_errors

REPO = Path(__file__).resolve().parent.parent
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


def wait_for(predicate, timeout=TIMEOUT, what="the condition", progress=None):
    """Run the GLib main context until PREDICATE() is true (signals arrive this way).

    TIMEOUT bounds a wait that sees nothing happen: with PROGRESS (a function whose value
    changes as the awaited work advances, such as a count of replies), it runs from the
    last change, so a long series of steps on a loaded machine is not cut short while it
    still advances."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    seen = progress() if progress else None
    while not predicate():
        if progress is not None and progress() != seen:
            seen = progress()
            deadline = time.monotonic() + timeout
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


def template_service_argv(address, kickstart=None, line=None):
    """The stand-alone service on ADDRESS, starting from KICKSTART, as an installer of LINE
    (a lines.py key; None: judging for every line)."""
    argv = [sys.executable, "-m", "org_edns_addon.dbus.standalone", "--address", address]
    if line:
        argv += ["--line", line]
    return argv + ["--kickstart", str(kickstart)] if kickstart else argv


def rss_kib(pid):
    """The resident memory of process PID, in KiB (VmRSS of /proc/PID/status)."""
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS for process %d" % pid)


def cpu_seconds(pid):
    """The CPU time every thread of process PID has run so far, in seconds, as the
    scheduler counts it (nanoseconds, /proc/PID/task/*/schedstat): unlike wall time,
    another process's load does not add to it."""
    total = 0
    for thread in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, thread)) as stat:
                total += int(stat.read().split()[0])
        except FileNotFoundError:   # a thread that has just ended
            continue
    return total / 1e9
