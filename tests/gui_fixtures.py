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

"""The GUI fixtures: a real GTK 3 on a private Xvfb display (``lab.display``), the spoke's
page built from its glade file, and real key presses sent through the X server.

GTK reads DISPLAY when it is first imported, so nothing imports it before the
``gtk`` fixture has started the display; a machine without Xvfb or GTK's typelib
skips, saying what to install (``make setup`` installs both).
"""

import locale
import os
import shutil
import subprocess
import time

import pytest

from lab.bus import wait_for

EXPECTED_TYPELIB = "gir1.2-gtk-3.0"


@pytest.fixture(scope="session")
def display(tmp_path_factory):
    """A private Xvfb display, DISPLAY for this process and its children while it runs."""
    if shutil.which("Xvfb") is None:
        pytest.skip("not installed: Xvfb (Debian xvfb; run make setup)")
    from lab.display import XvfbDisplay
    server = XvfbDisplay()
    # GTK's settings (the file chooser keeps some) in memory, not the machine's dconf, and
    # the files it lists as recently used in a directory of the run, not the user's.
    changed = {"DISPLAY": server.name, "GSETTINGS_BACKEND": "memory",
               "XDG_DATA_HOME": str(tmp_path_factory.mktemp("xdg-data"))}
    before = {name: os.environ.get(name) for name in changed}
    os.environ.update(changed)
    yield server
    server.stop()
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def gtk(display):
    """Gtk 3 (``gi.repository.Gtk``), initialised on the private display."""
    import gi
    try:
        gi.require_version("Gtk", "3.0")
        gi.require_version("Gdk", "3.0")
    except ValueError as error:
        pytest.skip("GTK 3 is not importable (%s): install %s (run make setup)"
                    % (error, EXPECTED_TYPELIB))
    # GTK's initialisation sets the process's C locale from the environment
    # (setlocale(LC_ALL, "")); from then on the C library's messages (strerror) would
    # follow LANGUAGE, which other tests set for a moment, and keep it. The suite's
    # process keeps the locale Python gave it: the translated GUI runs as a process of
    # its own (tests/test_translations.py).
    before = locale.setlocale(locale.LC_ALL)
    from gi.repository import Gtk
    initialised, _ = Gtk.init_check([])
    locale.setlocale(locale.LC_ALL, before)
    assert initialised, "GTK cannot open the display %s" % display.name
    return Gtk


def settle(gtk):
    """Handle every event GTK has pending (redraws, signals of what a test just did)."""
    while gtk.events_pending():
        gtk.main_iteration_do(False)


class Keyboard:
    """Key presses as a person makes them: xdotool sends them through the X server's XTEST
    extension to the window with the input focus, and GTK handles them as any other
    (mnemonics, focus moves, typing). Synthetic events (gtk_test_widget_send_key) would
    not do: GTK reads the keyboard through XInput 2, which never sees them."""

    def __init__(self, gtk, window):
        if shutil.which("xdotool") is None:
            pytest.skip("not installed: xdotool (Debian xdotool; run make setup)")
        self._gtk, self._window = gtk, window

    def _xdotool(self, *args):
        subprocess.run(["xdotool", *args], check=True, timeout=30)
        # A round trip: once the server has answered, the key events it made are queued.
        self._window.get_display().sync()
        settle(self._gtk)

    def press(self, *keys):
        """Press KEYS (xdotool's names: Tab, Return, alt+m) one after the other."""
        self._xdotool("key", "--clearmodifiers", *keys)

    def alt(self, letter):
        self.press("alt+" + letter)

    def hold(self, key, seconds):
        """Hold KEY down for SECONDS, as a loaded machine may between press and release."""
        self._xdotool("keydown", key)
        time.sleep(seconds)
        self._xdotool("keyup", key)

    def tab(self, times=1):
        self.press(*["Tab"] * times)

    def enter(self):
        self.press("Return")

    def type(self, text):
        self._xdotool("type", "--delay", "0", text)

    def focus(self, window):
        """Give WINDOW (a shown Gtk.Window) the keyboard, as the installer's window manager
        (gnome-kiosk) gives a new window it; no window manager runs here."""
        import gi
        gi.require_version("GdkX11", "3.0")
        from gi.repository import GdkX11  # noqa: F401  (get_xid of an X11 window)
        self._xdotool("windowfocus", "--sync", str(window.get_window().get_xid()))


@pytest.fixture
def shown_page(gtk, tmp_path):
    """Factory: the spoke's page (``EdnsPage`` of the real glade file) in a shown window of
    Anaconda's smallest screen (800x600), over an editor; START_CHECK as the page takes
    it. Returns (page, window, Keyboard)."""
    from org_edns_addon.gui.builder import load_page
    from org_edns_addon.gui.page import EdnsPage
    windows = []

    def show(editor, start_check=None, edited=None):
        page = EdnsPage(load_page(), start_check or _no_check, edited)
        page.show(editor)
        window = gtk.Window(title="Encrypted DNS")
        window.set_default_size(800, 600)
        window.add(page.widget)
        window.show_all()
        windows.append(window)
        settle(gtk)
        # Keys reach the window that has the X input focus (no window manager here gives
        # it): present() sets it, and GTK says so once the focus-in event has arrived.
        wait_for(lambda: window.get_mapped(), what="the window to be mapped")
        window.present()
        wait_for(lambda: window.is_active(), what="the window to have the keyboard focus")
        return page, window, Keyboard(gtk, window)

    yield show
    for window in windows:
        window.destroy()
    settle(gtk)


def _no_check(editor, done):
    done(error="no module in this test")
