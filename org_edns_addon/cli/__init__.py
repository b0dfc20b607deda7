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

"""The ``edns-addon`` command line: its arguments (``parser``), one function per command
that reads, runs and prints (``commands``), and what a run does as a process: signals,
standard output and exit codes (``process``).

Exit codes: 0 success, 1 the input has errors (or a check failed, or the
output could not be delivered), 2 usage (or a library the command needs is
missing: the sentence names the package to install), 130 interrupted (Ctrl-C,
SIGTERM, SIGHUP, or the text UI's terminal closed or at its end; an apply
interrupted while writing first restores what it wrote, and says what the root
holds).
No traceback for bad input: every user error is a sentence naming the file.
"""

# Ctrl-C, SIGTERM and SIGHUP (fileio.DEFERRED_SIGNALS, which cannot be imported yet) are
# held back from the first line of a run until process.run has its handlers in place:
# one that came during start-up ends the run with exit code 130 and a sentence, never
# with a traceback. As a program only: `python3 -m org_edns_addon.cli` (sys.argv[0] is
# "-m" while Python imports this package to find its __main__) or the `edns-addon`
# script, which imports this package before it calls main(); any other importer gets its
# KeyboardInterrupt back. A Ctrl-C before they are held (Python's own SIGINT handler is
# there already) ends the run the same way, with os.write and os._exit: nothing else is
# imported yet. One before this line is Python's own.
try:
    import os
    import sys
    _AS_PROGRAM = os.path.basename((getattr(sys, "argv", None) or [""])[0]) in (
        "-m", "edns-addon")
    import signal
    _INHERITED_MASK = signal.pthread_sigmask(
        signal.SIG_BLOCK, (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)) \
        if _AS_PROGRAM else None
except KeyboardInterrupt:
    import os
    import sys
    if os.path.basename((getattr(sys, "argv", None) or [""])[0]) not in ("-m", "edns-addon"):
        raise
    os.write(2, b"edns-addon: interrupted\n")
    os._exit(130)

# The rest only after the signals are held.
from org_edns_addon.cli.parser import build_parser
from org_edns_addon.cli.process import run


def main(argv=None):
    """Run ``edns-addon`` with ARGV (default: the command line); return its exit code."""
    return run(build_parser, argv, _INHERITED_MASK)
