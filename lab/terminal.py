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

"""A real terminal for the text UI: a private tmux server, driven by send-keys.

For the tests and the benchmarks; nothing here needs pytest.
"""

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

WIDTH, HEIGHT = 100, 40
WAIT_SECONDS = 15


class TmuxTerminal:
    """One tmux server on its own socket running one command in a 100x40 pane."""

    def __init__(self, directory):
        self._socket = str(directory / "tmux.sock")
        self._status = str(directory / "exit-status")
        config = directory / "tmux.conf"
        # The pane stays after the command exits, so its last screen can be read.
        config.write_text("set -g remain-on-exit on\nset -g history-limit 20000\n")
        self._config = str(config)
        self._seen = 0
        self.pids = []

    def _tmux(self, *args):
        return subprocess.run(["tmux", "-S", self._socket, "-f", self._config, *args],
                              check=True, capture_output=True, text=True, timeout=10).stdout

    def start(self, *argv):
        """Run ``python -m org_edns_addon.cli ARGV`` in the pane; return the start time."""
        return self.start_command(["env", "PYTHONPATH=%s" % REPO, sys.executable, "-m",
                                   "org_edns_addon.cli", *argv])

    def start_command(self, words):
        """Run the command WORDS in the pane; return the start time."""
        # The shell writes the exit status to a file: tmux 3.3 does not always reap
        # an exited pane process, so #{pane_dead_status} cannot be relied on.
        command = "%s; echo $? > %s" % (" ".join(map(shlex.quote, words)),
                                        shlex.quote(self._status))
        started = time.monotonic()
        self._tmux("new-session", "-d", "-x", str(WIDTH), "-y", str(HEIGHT),
                   "sh", "-c", command)
        self.pids = [int(pid) for pid in self._tmux(
            "display-message", "-p", "#{pid} #{pane_pid}").split()]
        return started

    def text(self):
        """Everything the pane has shown, history included, trailing blank lines removed."""
        lines = self._tmux("capture-pane", "-p", "-S", "-", "-E", "-").rstrip("\n").splitlines()
        while lines and not lines[-1].strip():
            lines.pop()
        return lines

    def screen(self):
        """What the pane shows now (its 40 lines, not the history), as one string."""
        return self._tmux("capture-pane", "-p").rstrip("\n")

    def new_text(self):
        """What appeared below the line where the last ``type`` was echoed."""
        return "\n".join(self.text()[self._seen:])

    def wait_for(self, words, timeout=WAIT_SECONDS, interval=0.05):
        """Wait until WORDS appear in the new text; return that text."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.new_text()
            if words in text:
                return text
            if time.monotonic() > deadline:
                raise AssertionError("%r did not appear; the terminal shows:\n%s"
                                     % (words, text))
            time.sleep(interval)

    def type(self, line):
        """Type LINE and ENTER at the current prompt."""
        self._seen = len(self.text())
        if line:
            self._tmux("send-keys", "-t", "0", "-l", line)
        self._tmux("send-keys", "-t", "0", "Enter")

    def paste(self, text):
        """Paste TEXT as a terminal paste (tmux buffer), then nothing else."""
        self._seen = len(self.text())
        subprocess.run(["tmux", "-S", self._socket, "load-buffer", "-"], input=text,
                       text=True, check=True, timeout=10)
        self._tmux("paste-buffer", "-t", "0")

    def exit_status(self, timeout=WAIT_SECONDS):
        """The command's exit status, as the shell around it wrote it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(self._status) and open(self._status).read().endswith("\n"):
                return int(open(self._status).read())
            time.sleep(0.05)
        raise AssertionError("the command did not exit; the terminal shows:\n%s"
                             % "\n".join(self.text()))

    def close(self):
        """Kill the UI, the shell around it and the tmux server, by PID."""
        server, shell = self.pids
        try:
            with open("/proc/%d/task/%d/children" % (shell, shell)) as stream:
                children = [int(pid) for pid in stream.read().split()]
        except FileNotFoundError:
            children = []
        for pid in children + [shell, server]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
