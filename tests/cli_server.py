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

"""A fork server for `python3 -m org_edns_addon.cli` in the tests (conftest.run_cli).

    python3 -m tests.cli_server NAME LISTING

NAME is the abstract socket's; LISTING a file naming the modules to load (list_libraries).

Most of what a command's process costs is the interpreter's start and the import of
the libraries the commands use (pykickstart and the requests it imports, cryptography,
dnspython): about 0.15 s of CPU of 0.2, run after run, some 400 runs of run_cli a row.
This server starts once for an environment run_cli runs in, imports those libraries (never
org_edns_addon, which every run imports afresh), and for each request forks:

- a monitor, which forks the run, answers with the run's pid, waits for it and answers
  with its wait status;
- the run, in a process of its own: the caller's standard input, output and error (sent
  with the request, SCM_RIGHTS), its working directory and umask, the module as
  `python3 -m` runs it (runpy, sys.argv, sys.path[0] the working directory), and the
  interpreter's own end (SystemExit, atexit, the exit code, a traceback on stderr).

What a fresh interpreter has and a run here has not: its own hash seed (run_cli takes
turns between two servers, so two runs in a row never share one), its own start-up
(tests of start-up spawn `python3` themselves), and an environment other than its
server's (run_cli has servers for three environments at most, and spawns for others).
The server ends when its parent does.
"""

import itertools
import json
import locale
import os
import runpy
import signal
import socket
import subprocess
import sys
import threading

# The libraries the commands import, as a fresh interpreter lists them after importing
# every module org_edns_addon imports (read from its sources) and validating the example
# (which imports what pykickstart and cryptography import only when used); never these:
# org_edns_addon is imported afresh by every run, and GLib and the UIs are not fork-safe
# once loaded (no command that runs here needs them).
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NUMBERS = itertools.count()
NOT_PRELOADED = ("org_edns_addon", "tests", "__main__", "gi", "dasbus", "simpleline",
                 "pyanaconda")
_LISTER = """
import ast, importlib, pathlib, sys
names = set()
for path in pathlib.Path("org_edns_addon").rglob("*.py"):
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module)
for name in sorted(names):
    if name.split(".")[0] not in sys.argv[2:]:
        try:
            importlib.import_module(name)
        except Exception:
            pass
from org_edns_addon.cli import main
main(["validate", "data/examples/corp-dot.ks"])
pathlib.Path(sys.argv[1]).write_text(" ".join(sys.modules))
"""


def list_libraries(listing, environment):
    """Write into the file LISTING the modules a fresh interpreter in ENVIRONMENT has loaded
    once it has imported what org_edns_addon imports and validated the example."""
    subprocess.run([sys.executable, "-c", _LISTER, listing, *NOT_PRELOADED],
                   stdout=subprocess.DEVNULL, check=True, env=environment, cwd=REPO)


def preload(listing):
    """Import the modules the file LISTING names, but for NOT_PRELOADED."""
    with open(listing) as names:
        listed = names.read().split()
    for name in listed:
        if name in sys.modules or name.split(".")[0] in NOT_PRELOADED:
            continue
        try:
            __import__(name)
        except Exception:   # noqa: BLE001 (a module that cannot be imported alone: its run will)
            pass


def run(request, fds):
    """In the run's own process: become `python3 -m MODULE ARGS` and never return."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["environment"])
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    sys.argv = [request["module"]] + request["args"]
    sys.path[0] = request["cwd"]
    runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
    raise SystemExit(0)   # the interpreter's own end: atexit, flushes, the exit code


def monitor(connection):
    """In the monitor's process: start the run, answer with its pid and its wait status."""
    message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
    request = json.loads(message)
    pid = os.fork()
    if pid == 0:
        connection.close()
        run(request, fds)
    for fd in fds:
        os.close(fd)
    try:
        connection.sendall(b"%d" % pid)
        connection.sendall(b"%d" % os.waitpid(pid, 0)[1])
    finally:
        os._exit(0)


def serve(name):
    """Answer on the abstract socket NAME until the parent ends."""
    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind("\0" + name)
    listener.listen(64)
    listener.settimeout(1)
    print("ready", flush=True)
    while os.getppid() == parent:
        # The monitors that ended (reaped here, so their runs' CPU time counts in ours).
        while _reap():
            pass
        try:
            connection, _ = listener.accept()
        except socket.timeout:
            continue
        if os.fork() == 0:
            listener.close()
            connection.settimeout(None)
            monitor(connection)
        connection.close()


def _reap():
    try:
        return os.waitpid(-1, os.WNOHANG)[0]
    except ChildProcessError:
        return 0


def started_alike(environment):
    """ENVIRONMENT but for the name of the current test, which pytest keeps there: runs in
    environments alike here start alike."""
    return {name: value for name, value in environment.items()
            if name != "PYTEST_CURRENT_TEST"}


class Client:
    """Runs of `python3 -m MODULE ARGS` in ENVIRONMENT, through two servers in turn,
    started at the first run; LISTING names the libraries they load (list_libraries)."""

    def __init__(self, environment, listing):
        self.environment, self.listing = environment, listing
        self.servers, self.addresses, self.turn = [], [], 0

    def _start(self):
        for _ in range(2):
            name = "edns-cli-server-%d-%d" % (os.getpid(), next(_NUMBERS))
            server = subprocess.Popen([sys.executable, "-m", "tests.cli_server", name,
                                       self.listing], env=self.environment,
                                      stdout=subprocess.PIPE, cwd=REPO)
            if server.stdout.readline() != b"ready\n":
                raise RuntimeError("the CLI server did not start (exit %s)" % server.wait())
            self.servers.append(server)
            self.addresses.append("\0" + name)

    def stop(self):
        for server in self.servers:
            server.kill()
            server.wait()
            server.stdout.close()

    def run(self, module, args, environment, input=None, cwd=None, timeout=120):
        """As subprocess.run([python3, -m, MODULE, *ARGS], env=ENVIRONMENT, input=INPUT,
        cwd=CWD, capture_output=True, text=True, timeout=TIMEOUT), for an ENVIRONMENT the
        servers serve."""
        if not self.servers:
            self._start()
        address = self.addresses[self.turn % len(self.addresses)]
        self.turn += 1
        argv = [sys.executable, "-m", module, *args]
        umask = os.umask(0)
        os.umask(umask)
        request = json.dumps({"module": module, "args": list(args), "umask": umask,
                              "environment": environment,
                              "cwd": os.path.abspath(cwd or os.getcwd())}).encode()
        encoding = locale.getpreferredencoding(False)
        stdin = os.pipe() if input is not None else (0, None)
        (out_read, out_write), (err_read, err_write) = os.pipe(), os.pipe()
        theirs = [out_write, err_write] + ([stdin[0]] if input is not None else [])
        output = {}

        def read(name, fd):
            with open(fd, "rb") as stream:
                output[name] = stream.read()
        readers = [threading.Thread(target=read, args=("stdout", out_read)),
                   threading.Thread(target=read, args=("stderr", err_read))]
        for reader in readers:
            reader.start()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as connection:
                connection.connect(address)
                socket.send_fds(connection, [request], [stdin[0], out_write, err_write])
                while theirs:
                    os.close(theirs.pop())
                pid = int(connection.recv(64))
                if input is not None:
                    with open(stdin[1], "wb") as stream:
                        try:
                            stream.write(input.encode(encoding))
                        except BrokenPipeError:
                            pass
                connection.settimeout(timeout)
                try:
                    status = int(connection.recv(64))
                except socket.timeout:
                    os.kill(pid, signal.SIGKILL)
                    connection.settimeout(None)
                    connection.recv(64)
                    raise subprocess.TimeoutExpired(argv, timeout) from None
        finally:
            for fd in theirs:
                os.close(fd)
            for reader in readers:
                reader.join()

        def text(data):
            return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
        return subprocess.CompletedProcess(argv, os.waitstatus_to_exitcode(status),
                                           text(output["stdout"]), text(output["stderr"]))


if __name__ == "__main__":
    preload(sys.argv[2])
    serve(sys.argv[1])
