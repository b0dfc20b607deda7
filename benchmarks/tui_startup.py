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

"""How soon `edns-addon tui` shows its first screen, in a real terminal (tmux).

Measured from the moment tmux is asked to start the command until the
first screen's prompt is on the terminal. Baseline in the same run, in
interleaved rounds: a bare `python3 -c print(...)` of the same prompt through
the same terminal. Goal: the first screen within 0.5 s. Prints figures; never
fails on a time.

    PYTHONPATH=$PWD python3 benchmarks/tui_startup.py [RUNS]
"""

import pathlib
import statistics
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.paired import as_installed

from lab.terminal import TmuxTerminal

PROMPT = "Please make a selection from the above"
GOAL_SECONDS = 0.5
EXAMPLE = REPO / "data" / "examples" / "corp-dot.ks"
# Stands for a new file in the run's own directory (`tui` refuses -o into a missing
# one); never written: every run quits at the first screen.
OUT = "{directory}/new.ks"


def time_to_prompt(words=None, argv=None):
    with tempfile.TemporaryDirectory() as directory:
        terminal = TmuxTerminal(pathlib.Path(directory))
        try:
            started = terminal.start_command(words) if words else terminal.start(
                *[word.format(directory=directory) for word in argv])
            terminal.wait_for(PROMPT, interval=0.005)
            return time.monotonic() - started
        finally:
            terminal.close()


def main():
    as_installed()
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    cases = {
        "baseline: python3 -c print(prompt)": dict(words=[sys.executable, "-c",
                                                          "print(%r)" % PROMPT]),
        "edns-addon tui -o NEW": dict(argv=["tui", "-o", OUT]),
        "edns-addon tui corp-dot.ks -o NEW": dict(argv=["tui", str(EXAMPLE), "-o",
                                                        OUT]),
    }
    times = {name: [] for name in cases}
    for _ in range(runs):
        for name, case in cases.items():
            times[name].append(time_to_prompt(**case))
    medians = {}
    for name, taken in times.items():
        medians[name] = statistics.median(taken)
        print("%-38s median %6.3f s  (min %.3f, max %.3f, %d runs)"
              % (name, medians[name], min(taken), max(taken), runs))
    baseline = medians["baseline: python3 -c print(prompt)"]
    for name, median in list(medians.items())[1:]:
        print("%-38s %.2fx baseline; goal: first screen within %g s: %s"
              % (name, median / baseline, GOAL_SECONDS,
                 "met" if median <= GOAL_SECONDS else "NOT met"))


if __name__ == "__main__":
    main()
