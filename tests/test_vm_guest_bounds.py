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

"""The VM proof's bounds on a guest (lab/vmlab/guest.py): a guest whose console moves
runs as long as it moves, however slow the machine; a silent one is cut."""

from lab.vmlab import guest

# A guest stand-in: writes a console line every 0.2 s, 15 times, then ends with 0.
TALKS = ["sh", "-c", 'for i in $(seq 15); do echo "line $i" >>"$0"; sleep 0.2; done']


def test_a_guest_whose_console_moves_is_not_cut_however_long_it_runs(monkeypatch, tmp_path):
    serial = tmp_path / "serial.log"
    monkeypatch.setattr(guest, "STALL_SECONDS", 1)
    # 3 s of output, three times the stall bound: only the silence counts.
    status = guest._run_while_the_console_moves(TALKS[:3] + [str(serial)], serial)
    assert status == 0
    assert serial.read_text().splitlines()[-1] == "line 15"


def test_a_silent_guest_is_cut_with_timeouts_status(monkeypatch, tmp_path):
    serial = tmp_path / "serial.log"
    monkeypatch.setattr(guest, "STALL_SECONDS", 1)
    status = guest._run_while_the_console_moves(["sleep", "600"], serial)
    assert status == guest.CUT_STATUS == 124


def test_a_guest_that_talks_for_ever_is_cut_at_the_ceiling(monkeypatch, tmp_path):
    serial = tmp_path / "serial.log"
    monkeypatch.setattr(guest, "BOOT_CEILING_SECONDS", 1)
    endless = ["sh", "-c", 'while :; do echo . >>"$0"; sleep 0.1; done', str(serial)]
    assert guest._run_while_the_console_moves(endless, serial) == guest.CUT_STATUS
