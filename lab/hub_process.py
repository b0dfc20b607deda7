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

"""The hub of ``lab/anaconda_hub.py`` as a process of its own on a private Xvfb display:
commands in on its standard input, one line of JSON out for each, keys and screenshots
through the X server.

Every process started here, the Xvfb server and the hub, is stopped by its PID and reaped
on every path: a hub that exits, answers an error or nothing at all while it starts has
its display stopped before the error is raised, and ``close()`` stops both whatever state
they are in. Nothing here needs pytest, GTK or pyanaconda (the hub's process imports
those).
"""

import json
import os
import select
import subprocess
import time

from lab.display import XvfbDisplay

REPLY_SECONDS = 60.0
# How long the hub has to quit when asked before it is killed.
STOP_SECONDS = 20.0


class HubProcess:
    """ARGV (the hub, ``python -m lab.anaconda_hub ADDONS_DIR``) started with ENV on its own
    display, its standard error in LOG_PATH; started once it has said ``{"started": true}``
    (that reply is ``started``). ``display`` is its XvfbDisplay."""

    def __init__(self, argv, env, log_path, cwd=None, reply_seconds=REPLY_SECONDS,
                 stop_seconds=STOP_SECONDS):
        self._reply_seconds = reply_seconds
        self._stop_seconds = stop_seconds
        self._process = None
        self._log = None
        self._pending = b""     # what the hub wrote after the last line read
        self.display = XvfbDisplay()
        try:
            self._log = open(log_path, "w")
            self._process = subprocess.Popen(
                argv, env=dict(env, DISPLAY=self.display.name), stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self._log, bufsize=0, cwd=cwd)
            self.started = self.read()
            if self.started.get("started") is not True:
                raise RuntimeError("the hub's first reply is not {\"started\": true} but %r; "
                                   "its log:\n%s" % (self.started, self.tail()))
        except BaseException:
            self.close()
            raise

    @property
    def pid(self):
        """The PID of the hub's process."""
        return self._process.pid

    def read(self):
        """The hub's next JSON reply (lines that are no JSON object are left out)."""
        deadline = time.monotonic() + self._reply_seconds
        while True:
            line = self._line(deadline)
            if line.startswith("{"):
                reply = json.loads(line)
                if "error" in reply:
                    raise RuntimeError("the hub answered an error: %s\nits log:\n%s"
                                       % (reply["error"], self.tail()))
                return reply

    def _line(self, deadline):
        """The next line the hub writes (read unbuffered, so that a line written with
        another is never left in a buffer that select() does not see)."""
        fd = self._process.stdout.fileno()
        while b"\n" not in self._pending:
            ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
            if not ready:
                raise TimeoutError("the hub did not answer in %.0f s; its log:\n%s"
                                   % (self._reply_seconds, self.tail()))
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError("the hub closed its output (%s); its log:\n%s"
                                   % (self._exit_status(), self.tail()))
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return line.decode("utf-8", errors="replace")

    def _exit_status(self):
        try:
            return "exit status %d" % self._process.wait(timeout=self._stop_seconds)
        except subprocess.TimeoutExpired:
            return "still running"

    def tail(self, lines=40):
        """The last LINES lines of the hub's log."""
        self._log.flush()
        with open(self._log.name, errors="replace") as stream:
            return "".join(stream.readlines()[-lines:])

    def send(self, *words):
        """Send one command line of WORDS; its reply."""
        self._process.stdin.write((" ".join(words) + "\n").encode("utf-8"))
        return self.read()

    def keys(self, *keys):
        """Press KEYS (xdotool's names) on the window with the focus, then let it settle."""
        subprocess.run(["xdotool", "key", "--clearmodifiers", *keys], check=True, timeout=30,
                       env=self.display.environment())
        return self.send("page")

    def focus(self, xid):
        """Give the window XID (an X window id) the keyboard, as the installer's window
        manager (gnome-kiosk) gives a window it shows; none runs on this display."""
        subprocess.run(["xdotool", "windowfocus", "--sync", str(xid)], check=True, timeout=30,
                       env=self.display.environment())
        return self.send("page")

    def type(self, text):
        subprocess.run(["xdotool", "type", "--delay", "0", text], check=True, timeout=30,
                       env=self.display.environment())
        return self.send("page")

    def screenshot(self, path):
        return self.display.screenshot(path)

    def close(self):
        """Stop the hub (``quit``, then its PID) and its display; again: nothing."""
        try:
            if self._process is not None:
                self._stop_hub()
        finally:
            try:
                if self._log is not None:
                    self._log.close()
            finally:
                self.display.stop()

    def _stop_hub(self):
        process = self._process
        if process.poll() is None:
            try:
                # quit, then the end of its input (the hub quits on either).
                process.stdin.write(b"quit\n")
                process.stdin.close()
                process.wait(timeout=self._stop_seconds)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass   # it cannot be asked, or does not listen: killed below
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()
            except OSError:
                pass
