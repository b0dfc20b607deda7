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

"""lab/hub_process.py (and the Xvfb of lab/display.py under it) leaves no process behind
on any path: a hub that starts, one that exits at once, one that answers an error, one
that never answers, one that will not quit, and an Xvfb that cannot start.

The hub here is a stand-in speaking the hub's protocol (no pyanaconda, no GTK), so these
run in the fast tier. What is left behind is read by PID: the processes whose parent is
this one (``/proc/PID/stat``), before and after, and the PIDs of the Xvfb and the hub
themselves."""

import os
import shutil
import sys

import pytest

from lab.display import XvfbDisplay
from lab.hub_process import REPLY_SECONDS, HubProcess

if shutil.which("Xvfb") is None:
    pytest.skip("not installed: Xvfb (Debian xvfb; run make setup)", allow_module_level=True)

# A stand-in for lab/anaconda_hub.py: says it started (and on which display), answers
# "echo WORDS" and "quit" as the hub does, then leaves on "quit" or end of input.
STAND_IN = r"""
import json, os, sys
print("a line that is not JSON, written with the first reply", flush=False)
print(json.dumps({"started": True, "display": os.environ["DISPLAY"]}), flush=True)
for line in sys.stdin:
    words = line.split()
    if words == ["quit"]:
        print(json.dumps({"quit": True}), flush=True)
        break
    print(json.dumps({"echo": words[1:]}), flush=True)
"""


def _children():
    """The PIDs of the live or unreaped processes whose parent is this process."""
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue   # gone meanwhile
        if int(fields[1]) == me:
            found.add(int(entry))
    return found


def _exists(pid):
    """Whether process PID is there at all (running, or a zombie nobody reaped)."""
    return os.path.exists("/proc/%d" % pid)


def _start(tmp_path, code, **timeouts):
    return HubProcess([sys.executable, "-c", code], dict(os.environ), tmp_path / "hub.log",
                      cwd=str(tmp_path), **timeouts)


def test_a_hub_that_starts_and_quits_leaves_neither_it_nor_its_xvfb(tmp_path):
    before = _children()
    hub = _start(tmp_path, STAND_IN)
    # Both are this process's children while they run: what the other tests look for.
    assert {hub.pid, hub.display.pid} <= _children() - before
    assert hub.started == {"started": True, "display": hub.display.name}
    assert hub.send("echo", "a", "b") == {"echo": ["a", "b"]}
    hub.close()
    assert not _exists(hub.pid) and not _exists(hub.display.pid)
    assert _children() <= before
    hub.close()   # again: nothing


def test_a_hub_that_exits_at_once_leaves_no_xvfb(tmp_path, monkeypatch):
    before = _children()
    displays = []
    original = XvfbDisplay.__init__

    def remembered(self, *args, **kwargs):
        original(self, *args, **kwargs)
        displays.append(self)
    monkeypatch.setattr(XvfbDisplay, "__init__", remembered)
    with pytest.raises(RuntimeError, match=r"the hub closed its output \(exit status 3\); "
                       r"its log:\nno hub here"):
        _start(tmp_path, "import sys; print('no hub here', file=sys.stderr); sys.exit(3)")
    [display] = displays
    assert not _exists(display.pid), "Xvfb %d is left running" % display.pid
    assert _children() <= before


@pytest.mark.parametrize("code, raised, said, reply_seconds", [
    # It answers an error where it should have started (the hub's import failed).
    ('import json, sys\nprint(json.dumps({"error": "ImportError: no meh"}), flush=True)\n'
     'sys.stdin.read()', RuntimeError, "the hub answered an error: ImportError: no meh",
     REPLY_SECONDS),
    # Its first reply is not the one of a started hub.
    ('import json, sys\nprint(json.dumps({"ready": True}), flush=True)\nsys.stdin.read()',
     RuntimeError, "the hub's first reply is not", REPLY_SECONDS),
    # It never answers, and does not read its input either: the wait for its reply ends
    # (whatever its length, the answer never comes), then it is killed.
    ("import time\ntime.sleep(3600)", TimeoutError, "the hub did not answer", 0.5),
])
def test_a_hub_that_fails_to_start_is_stopped_with_its_xvfb(tmp_path, code, raised, said,
                                                            reply_seconds):
    before = _children()
    with pytest.raises(raised, match=said):
        _start(tmp_path, code, reply_seconds=reply_seconds, stop_seconds=0.5)
    assert _children() <= before, "left running: %s" % sorted(_children() - before)


def test_a_started_hub_that_will_not_quit_is_killed_with_its_xvfb(tmp_path):
    before = _children()
    hub = _start(tmp_path, 'import json, time\nprint(json.dumps({"started": True}), flush=True)'
                 '\ntime.sleep(3600)', stop_seconds=0.5)
    hub.close()
    assert not _exists(hub.pid) and not _exists(hub.display.pid)
    assert _children() <= before


def test_an_xvfb_that_cannot_start_is_not_left_behind():
    before = _children()
    with pytest.raises(RuntimeError, match="Xvfb did not start"):
        XvfbDisplay(screen="0x0x0")
    assert _children() <= before
