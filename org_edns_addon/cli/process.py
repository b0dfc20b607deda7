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

"""What a run of ``edns-addon`` does as a process, around its command: Ctrl-C, SIGTERM
and SIGHUP (each ends the run at once with exit code 130 and a sentence, or raises where
a command must say what it did), a standard output whose write errors are told apart
(a full disk, a reader gone), and the exit code of every way a command can end.

The run's first lines, which hold the signals back until the handlers are in place, are
in ``cli/__init__.py``: they must run before anything is imported.
"""

import contextlib
import io
import os
import signal
import sys

from org_edns_addon import dependencies
from org_edns_addon.fileio import DEFERRED_SIGNALS as _INTERRUPTS, error_text
from org_edns_addon.i18n import _

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130   # 128 + SIGINT, what shells report for Ctrl-C


def usage_error(command, message):
    """Say MESSAGE as the usage error of COMMAND; the exit code of one."""
    print(_("edns-addon %s: error: %s") % (command, message), file=sys.stderr)
    return EXIT_USAGE


class _Interrupts:
    """How Ctrl-C, SIGTERM and SIGHUP end a command: at once, with exit code 130 and a
    sentence (nothing is half-done where they are let through: every write holds them
    back), or, inside ``interrupts_raised()``, as KeyboardInterrupt for code that
    must say what it did (apply) or clean up (the text UI)."""
    command = ""
    raised = False
    interrupted = False


def _on_interrupt(signum, _frame):
    if _Interrupts.raised:
        if _Interrupts.interrupted:   # the first one is being handled: its code ends the run
            return
        _Interrupts.interrupted = True
        raise KeyboardInterrupt(signal.Signals(signum).name)
    # os.write and os._exit: no Python I/O buffer is touched, whatever the code that
    # was running had half-done with it. Not translated: gettext imports (locale) when
    # called, and the code interrupted may be half-way through importing it.
    command = " " + _Interrupts.command if _Interrupts.command else ""
    os.write(2, ("edns-addon%s: interrupted\n" % command).encode())
    os._exit(EXIT_INTERRUPTED)


@contextlib.contextmanager
def interrupts_raised():
    """Interrupts raise inside; after it, the run only says what was done (the files
    applied, the kickstart saved) and ends: they are held back from then on, so that a
    signal after the work cannot turn its report into a bare "interrupted"."""
    _Interrupts.raised = True
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
        _Interrupts.raised = False


class _OutputError(Exception):
    """Standard output cannot be written (a full disk, /dev/full, an I/O error)."""


class _StandardOutput(io.FileIO):
    """Descriptor 1, whose write errors are told apart from every other OSError."""

    def write(self, data):
        try:
            return super().write(data)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise _OutputError(error_text(error)) from None


def _checked_stdout():
    """sys.stdout as it was (encoding, buffering), over ``_StandardOutput``."""
    stdout = sys.stdout
    stdout.flush()
    return io.TextIOWrapper(io.BufferedWriter(_StandardOutput(stdout.fileno(), "w",
                                                              closefd=False)),
                            encoding=stdout.encoding, errors="backslashreplace",
                            line_buffering=stdout.line_buffering)


def _drop_stdout():
    """Point descriptor 1 at /dev/null, so that the exit's flush does not fail again."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)


def run(build_parser, argv=None, inherited_mask=None):
    """Run the command line ARGV (default: the process's) with the parser BUILD_PARSER()
    makes; return the exit code. INHERITED_MASK is the signal mask the process started
    with, when its first lines held the interrupts back (``cli/__init__.py``)."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    if inherited_mask is not None:
        mask = inherited_mask
    for signum in _INTERRUPTS:
        if signal.getsignal(signum) != signal.SIG_IGN:   # not when ignored (nohup, `&`)
            signal.signal(signum, _on_interrupt)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    for stream in (sys.stdout, sys.stderr):
        # A file name or message the terminal's encoding cannot show is escaped,
        # never a UnicodeEncodeError traceback.
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    args = build_parser().parse_args(argv)
    _Interrupts.command = args.command
    if sys.stdout is None:
        # Python's stand-in when descriptor 1 is closed: every line printed would be lost.
        return usage_error(args.command, _("standard output is closed; redirect it to a file "
                           "or to /dev/null instead"))
    for library in dependencies.missing(args.needs):
        print(library.missing("edns-addon " + args.command), file=sys.stderr)
        return EXIT_USAGE
    if args.command != "tui":   # the text UI draws on the terminal its own way
        sys.stdout = _checked_stdout()
    try:
        return _run(args)
    finally:
        # The run is over and its exit code decided: a signal now would only replace that
        # code by a kill, while the interpreter shuts down.
        signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)


def _run(args):
    try:
        code = args.run(args)
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        print(_("edns-addon %s: interrupted") % args.command, file=sys.stderr)
        return EXIT_INTERRUPTED
    except ImportError as error:
        # Not found by the check above (a lazy import), or found but too old or broken
        # (say, a pykickstart without %certificate).
        if dependencies.library_of(error) is None:
            raise
        print(dependencies.explain(error, "edns-addon " + args.command), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`| head`): what was not printed is lost, so this is no
        # success.
        _drop_stdout()
        return EXIT_FAILED
    except _OutputError as error:
        _drop_stdout()
        print(_("edns-addon %s: cannot write to standard output: %s; what it would have "
              "printed is lost") % (args.command, error), file=sys.stderr)
        return EXIT_FAILED
