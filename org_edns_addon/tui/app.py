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

"""``edns-addon tui``: the editor's screens in a simpleline App, on a kickstart file."""

import errno
import os
import sys
import threading

from simpleline import App
from simpleline.event_loop import AbstractSignal
from simpleline.render.adv_widgets import YesNoDialog

from org_edns_addon.i18n import _
from org_edns_addon.ui.editor import EditError, EdnsEditor
from org_edns_addon.ui.words import problem_line
from org_edns_addon.tui.kickstart_file import (KickstartFileError, load_kickstart,
                                               new_kickstart, save_kickstart)
from org_edns_addon.tui.screens import END_OF_INPUT, MainScreen


class TerminalGone(Exception):
    """The terminal closed (end of file or an I/O error on it): the session ended unsaved."""


class _TerminalLost(AbstractSignal):
    """Enqueued when the terminal is gone, so the App's main loop ends."""


class _Terminal:
    """The session's terminal, watched for its end.

    simpleline reads with input() in a thread and turns end of file into an
    empty line (the screen asks again, forever); an I/O error (EIO from a
    closed terminal, when SIGHUP is ignored) kills that thread with a
    traceback and leaves the App waiting for input forever. Here ``sys.stdin``
    and ``sys.stdout`` are wrappers: an error on either ends the session, and
    so does end of file (Ctrl-D) unless there are edits not saved: then the
    quit question is asked, and a second end of file ends it. They have no
    ``fileno()``, so input() reads through them.
    """

    def __init__(self, stdin, stdout, unsaved=lambda: False):
        self.gone = False
        self._unsaved = unsaved
        self._asked = False
        self._lock = threading.Lock()
        self.stdin = _TerminalInput(self, stdin)
        self.stdout = _TerminalOutput(self, stdout)

    def ended(self):
        """The input ended (Ctrl-D, or the end of a file): the line to hand on, or None when
        the session ends. With edits not saved the user is asked first (END_OF_INPUT makes
        the screen ask the quit question); a second end while asked ends it."""
        if self._unsaved() and not self._asked:
            self._asked = True
            return END_OF_INPUT + "\n"
        self.lost()
        return None

    def answered(self):
        """A line was read: a later end asks again."""
        self._asked = False

    def lost(self):
        """The terminal is gone: nothing more is read or written, and the App stops."""
        with self._lock:
            if self.gone:
                return
            self.gone = True
        # Whatever is still printed (or flushed at exit) goes nowhere instead of failing.
        null = os.open(os.devnull, os.O_RDWR)
        for descriptor in (1, 2):
            os.dup2(null, descriptor)
        os.close(null)
        App.get_event_loop().enqueue_signal(_TerminalLost(self))


class _TerminalInput:
    def __init__(self, terminal, stream):
        self._terminal = terminal
        self._stream = stream

    def readline(self, *args):
        try:
            line = self._stream.readline(*args)
        except OSError:
            # The terminal is gone (EIO): nobody is there to answer a question.
            self._terminal.lost()
            line = ""
        else:
            if line:
                self._terminal.answered()
            else:
                line = self._terminal.ended() or ""
        if not line:
            # The input thread has nothing to hand on: it waits until the process ends.
            threading.Event().wait()
        return line

    def __getattr__(self, name):
        if name == "fileno":
            raise AttributeError(name)
        return getattr(self._stream, name)


class _TerminalOutput:
    def __init__(self, terminal, stream):
        self._terminal = terminal
        self._stream = stream

    def write(self, text):
        if not self._terminal.gone:
            try:
                self._stream.write(text)
            except OSError as error:
                self._failed(error)
        return len(text)

    def flush(self):
        if not self._terminal.gone:
            try:
                self._stream.flush()
            except OSError as error:
                self._failed(error)

    def _failed(self, error):
        if error.errno not in (errno.EIO, errno.EPIPE, errno.ENXIO, errno.EBADF):
            raise error
        self._terminal.lost()

    def __getattr__(self, name):
        if name == "fileno":
            raise AttributeError(name)
        return getattr(self._stream, name)


def run_standalone(kickstart, output):
    """Edit KICKSTART's sections (or new ones) and write the result to OUTPUT.

    Returns True when the user saved. Raises KickstartFileError when
    KICKSTART cannot be edited, TerminalGone (nothing written) when the
    terminal closed or reached its end during the session.
    """
    if kickstart is not None:
        source, editor = load_kickstart(kickstart)
    else:
        source, editor = new_kickstart(), EdnsEditor()

    def save():
        try:
            save_kickstart(source, editor, output)
        except KickstartFileError as error:
            raise EditError("\n".join([error.message] + [problem_line(p)
                                                          for p in error.problems])) from None

    App.initialize()
    App.get_scheduler().quit_screen = YesNoDialog(_("Quit without writing %s?") % output)
    screen = MainScreen(editor, save, _("to write %s and quit") % output)
    streams = sys.stdin, sys.stdout
    terminal = _Terminal(*streams, unsaved=lambda: editor.dirty and not screen.saved)
    App.get_event_loop().register_signal_handler(
        _TerminalLost, lambda _signal, _data: App.get_event_loop().force_quit())
    App.get_scheduler().schedule_screen(screen)
    sys.stdin, sys.stdout = terminal.stdin, terminal.stdout
    try:
        App.run()
    finally:
        sys.stdin, sys.stdout = streams
    if terminal.gone and not screen.saved:
        raise TerminalGone()
    return screen.saved
