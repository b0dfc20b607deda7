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

"""A private X display for GTK: an Xvfb server on a free display number, and screenshots
of it as a person would see it (``import -window root``, imagemagick).

For the GUI tests and the anaconda tier's hub; nothing here needs pytest or GTK.
"""

import os
import select
import subprocess
import tempfile
import time

# Anaconda's smallest supported screen is 800x600; the hub and the spoke are shown on a
# common one.
SCREEN = "1024x768x24"
START_SECONDS = 20


class XvfbDisplay:
    """One Xvfb server; ``name`` is its DISPLAY (":N"). Stop it with ``stop()``."""

    def __init__(self, screen=SCREEN):
        # -displayfd: Xvfb picks a free display and writes its number once it accepts
        # clients, so the wait below is for that line, not for a time. -r: no key
        # auto-repeat; a key that xdotool holds down longer than the server's repeat delay
        # (660 ms), as it may on a loaded machine between press and release, would
        # otherwise be pressed again (one Tab moving the focus twice).
        # Its messages go to a file, read if it fails to start: a pipe nobody reads while
        # it runs would stop the server once full.
        self._errors = tempfile.TemporaryFile()
        read_end, write_end = os.pipe()
        try:
            self._process = subprocess.Popen(
                ["Xvfb", "-displayfd", str(write_end), "-screen", "0", screen,
                 "-nolisten", "tcp", "-noreset", "-r"],
                pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=self._errors)
        except BaseException:
            self._errors.close()
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        try:
            number = self._read_display(read_end)
        except BaseException:
            # Whatever went wrong (no line, a line that is no number, an interrupt), the
            # server started above is not left running.
            self.stop()
            raise
        finally:
            os.close(read_end)
        self.name = ":%s" % number

    @property
    def pid(self):
        """The PID of the Xvfb process."""
        return self._process.pid

    def _read_display(self, fd):
        deadline = time.monotonic() + START_SECONDS
        data = b""
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            chunk = os.read(fd, 16) if ready else b""
            if not chunk:
                self._process.kill()
                self._process.wait()
                self._errors.seek(0)
                raise RuntimeError("Xvfb did not start: %s"
                                   % self._errors.read().decode(errors="replace"))
            data += chunk
        return int(data)

    def environment(self):
        """The environment of a process shown on this display."""
        return dict(os.environ, DISPLAY=self.name)

    def screenshot(self, path):
        """What the display shows now, as a PNG at PATH."""
        subprocess.run(["import", "-display", self.name, "-window", "root", str(path)],
                       check=True, timeout=60, stdout=subprocess.DEVNULL)
        return path

    def stop(self):
        """Stop the server by its PID and reap it (again: nothing)."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=START_SECONDS)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._errors.close()
