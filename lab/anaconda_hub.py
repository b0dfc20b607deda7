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

"""Anaconda's real GTK hub (``SummaryHub`` in its ``MainWindow``) showing the addon's spokes,
remote-controlled line by line on standard input, for the anaconda tier's tests.

    python3 -m lab.anaconda_hub ADDONS_DIR

ADDONS_DIR holds ``org_edns_addon`` as ``make install`` lays it out below
``/usr/share/anaconda/addons``; the hub finds the spoke there the way Anaconda finds
an addon's spokes (``collect_addon_ui_paths``). It needs pyanaconda (an Anaconda
checkout on PYTHONPATH, with UIPATH and ANACONDA_DATA naming its ``pyanaconda/ui/gui``
and ``data``), AnacondaWidgets built from the same checkout (GI_TYPELIB_PATH,
LD_LIBRARY_PATH, and its Python overrides on PYTHONPATH), a display, and the
modules on Anaconda's bus (DBUS_ANACONDA_SESSION_BUS_ADDRESS). The hub shows only the
addon's spokes: Anaconda's own need storage, payloads and the other modules, and its
disk space check (which needs the storage module) is left out.

Each command line is answered by one line of JSON once the window shows the result
(the frame drawn, no transition running), so a screenshot then shows it:

    hub                  the selectors: title, status, incomplete; the hub's warning bar
    enter                click the Encrypted DNS selector, as a person does
    page                 the spoke's page: servers, entries, errors, trust, problems
    set ID TEXT          set the text of the entry ID (a glade id)
    select N             select server N in the list
    click ID             click the button ID
    wait-check N         wait until N checks have answered
    wait-servers N       wait until the list holds N servers
    wait-dialog          wait until the file chooser is on the screen
    choose PATH          choose PATH in the file chooser and press Read
    wait-certificates N  wait until the certificates' list holds N rows
    wait-done-once       wait until Done was pressed once on a failed apply
    wait-ready           wait until the spoke is ready (its tasks have run)
    help                 press the spoke window's help button, if this line has one
    quit
Keys come from outside, through the X server (xdotool), to the window with the focus.
"""

import json
import os
import sys

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("GdkX11", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, GdkX11, GLib, Gtk  # noqa: E402,F401  (after require_version;
# GdkX11 gives an X window its get_xid)

SPOKE = "EncryptedDnsSpoke"


class HubRemote:
    """The hub, the main window, and the commands of standard input."""

    def __init__(self, addons_dir):
        from pyanaconda.ui.gui import MainWindow
        from pyanaconda.ui.gui.hubs.summary import SummaryHub
        from pyanaconda.ui.lib.addons import collect_addon_ui_paths

        import pyanaconda.ui
        _style()
        self.window = MainWindow(fullscreen=False, decorated=False)
        self.hub = SummaryHub(None, None, None)
        # No storage module, no payload: the hub checks no disk space.
        self.hub._checker = None
        paths = collect_addon_ui_paths([addons_dir], "gui")
        ui_dir = os.path.dirname(pyanaconda.ui.__file__)
        self.hub.set_path("spokes", paths["spokes"])
        self.hub.set_path("categories", [("pyanaconda.ui.categories.%s",
                                          os.path.join(ui_dir, "categories"))] +
                          paths["categories"])
        self.hub.initialize()
        self.hub.refresh()
        self.window.setCurrentAction(self.hub)
        # The whole screen, as Anaconda's maximised window (no window manager maximises here).
        self.window.move(0, 0)
        self.window.set_size_request(*_screen_size())
        self.window.show_all()
        self._pending = None     # (predicate, reply) waited for
        GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, self._command)
        self._after_frame(lambda: self.reply({"started": True}))

    @property
    def spoke(self):
        return self.hub._spokes[SPOKE]

    def _command(self, fd, condition):
        line = sys.stdin.readline()
        if not line:
            Gtk.main_quit()
            return False
        words = line.rstrip("\n").split(" ", 2)
        try:
            getattr(self, "do_" + words[0].replace("-", "_"))(*words[1:])
        except Exception as error:  # noqa: BLE001 (said to the test, which fails)
            self.reply({"error": "%s: %s" % (type(error).__name__, error)})
        return True

    def reply(self, value):
        print(json.dumps(value), flush=True)

    def _after_frame(self, then, until=lambda: True):
        """Call THEN once UNTIL() holds, no transition runs, and a frame has been drawn."""
        def check():
            stack = self.window._stack
            if not until() or stack.get_transition_running() or self._revealing():
                return True
            clock = self.window.get_frame_clock()
            if clock is None:
                return True
            handler = []

            def painted(_clock):
                clock.disconnect(handler[0])
                self.window.get_display().sync()
                then()
            handler.append(clock.connect("after-paint", painted))
            self.window.queue_draw()
            return False
        # The main loop runs everything else first: this source is the last to run.
        GLib.idle_add(check, priority=GLib.PRIORITY_LOW)

    def _revealing(self):
        """Whether a revealer (the windows' info bars) is still sliding in or out."""
        moving = []

        def walk(widget):
            if isinstance(widget, Gtk.Revealer) and widget.get_mapped() and \
                    widget.get_child_revealed() != widget.get_reveal_child():
                moving.append(widget)
            if isinstance(widget, Gtk.Container):
                widget.forall(walk)
        walk(self.window)
        return bool(moving)

    # Commands.

    def do_hub(self):
        selectors = []
        for spoke in self.hub._spokes.values():
            selector = spoke.selector
            selectors.append({"class": spoke.__class__.__name__, "title": spoke.title,
                              "status": selector.get_property("status"),
                              "incomplete": selector.get_incomplete(),
                              "sensitive": selector.get_sensitive(),
                              "category": spoke.category.get_title()})
        self._after_frame(lambda: self.reply({
            "selectors": selectors, "may_continue": self.hub.window.get_may_continue(),
            "warning": self.hub._warningMsg,
            "active": self.window.is_active(),
            "visible": type(self.window._stack.get_visible_child()).__name__}))

    def do_focus(self):
        """Give the main window the keyboard (no window manager does it here)."""
        self.window.present()
        self._after_frame(lambda: self.reply({"active": True}), until=self.window.is_active)

    def do_enter(self):
        spoke = self.spoke
        self.hub._on_spoke_clicked(spoke.selector, None, spoke)
        self._after_frame(lambda: self.reply(self._page_state()),
                          until=lambda: self.window._stack.get_visible_child() is spoke.window)

    def do_page(self):
        self._after_frame(lambda: self.reply(self._page_state()))

    def do_set(self, object_id, text=""):
        self.spoke.builder.get_object(object_id).set_text(text)
        self.do_page()

    def do_select(self, index):
        self.spoke._page.servers.select(int(index))
        self.do_page()

    def do_click(self, object_id):
        self.spoke.builder.get_object(object_id).clicked()
        self.do_page()

    def do_wait_check(self, count):
        """Wait until COUNT checks have answered (a button pressed with the keyboard clicks
        a moment later, once it has been shown pressed)."""
        page = self.spoke._page
        self._after_frame(lambda: self.reply(self._page_state()),
                          until=lambda: page.check.answered >= int(count))

    def do_wait_servers(self, count):
        """Wait until the list holds COUNT servers."""
        store = self.spoke._page.servers.store
        self._after_frame(lambda: self.reply(self._page_state()),
                          until=lambda: len(store) == int(count))

    def do_wait_done_once(self):
        """Wait until Done was pressed once on a failed apply (a button pressed with the
        keyboard clicks a moment later, once it has been shown pressed)."""
        self._after_frame(lambda: self.reply(self._page_state()),
                          until=lambda: self.spoke._done_once)

    def do_choose(self, path):
        """Choose PATH in the file chooser and press its Read (GTK's chooser answers a typed
        path after querying the file, which needs more of a desktop than this display)."""
        dialog = self.spoke._page.certificates.dialog
        dialog.set_filename(path)

        def chosen():
            if dialog.get_filename() != path:
                return True
            dialog.response(Gtk.ResponseType.ACCEPT)
            self.do_page()
            return False
        GLib.idle_add(chosen, priority=GLib.PRIORITY_LOW)

    def do_wait_certificates(self, count):
        """Wait until the certificates' list holds COUNT rows (a file read)."""
        store = self.spoke._page.certificates.store
        self._after_frame(lambda: self.reply(self._page_state()),
                          until=lambda: len(store) == int(count))

    def do_wait_dialog(self):
        """Wait until the file chooser is on the screen."""
        certificates = self.spoke._page.certificates
        self._after_frame(lambda: self.reply(self._page_state()),
                          until=lambda: certificates.dialog is not None and
                          certificates.dialog.get_mapped())

    def do_wait_ready(self):
        self._after_frame(self.do_hub, until=lambda: self.spoke.ready and
                          self.window._stack.get_visible_child() is self.hub.window)

    def do_help(self):
        """Press the spoke window's help button where this line has one (rhel-9's
        AnacondaWidgets: Anaconda shows the screen's help, or says it has none)."""
        if not hasattr(self.spoke.window, "get_help_button"):
            self.reply({"help_button": False})
            return
        import logging
        said = []
        handler = logging.Handler(logging.DEBUG)
        handler.emit = lambda record: said.append(record.getMessage())
        logger = logging.getLogger("anaconda")
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        self.spoke.window.get_help_button().clicked()

        def answer():
            logger.removeHandler(handler)
            self.reply({"help_button": True, "logged": said,
                        "visible": "spoke" if self.window._stack.get_visible_child() is
                        self.spoke.window else "hub"})
        self._after_frame(answer)

    def do_quit(self):
        self.reply({"quit": True})
        Gtk.main_quit()

    def _page_state(self):
        page = self.spoke._page
        get = page.builder.get_object
        focus = self.window.get_focus()
        dialog = page.certificates.dialog
        return {
            "dialog": None if dialog is None or not dialog.get_mapped() else {
                "xid": dialog.get_window().get_xid(), "size": list(dialog.get_size()),
                "position": list(dialog.get_position()), "active": dialog.is_active()},
            "screen": list(_screen_size()),
            "visible": "spoke" if self.window._stack.get_visible_child() is
                       self.spoke.window else "hub",
            "servers": [list(row) for row in page.servers.store],
            "new_server": get("ednsNewServerEntry").get_text(),
            "new_server_error": page.servers.new_error.message,
            "mode": page.options.mode_combo.get_active_id(),
            "mode_warning": page.options.mode_warning_text.get_text()
            if page.options.mode_warning.get_visible() else None,
            "mode_warning_in_view": _in_view(page, page.options.mode_warning),
            "search": page.options.search_entry.get_text(),
            "search_error": page.options.search_error.message,
            "certificates": [list(row) for row in page.certificates.store],
            "trust": page.certificates.trust_label.get_text(),
            "check": [list(row) for row in page.check.store],
            "check_status": page.check.status.get_text(),
            "problems": page.problems_label.get_text(),
            "warning": page.warning,
            "info_bar": self.spoke._current_warning_message or None,
            "focus": Gtk.Buildable.get_name(focus) if focus is not None else None,
            "window_name": self.spoke.window.get_property("window-name"),
        }


def _in_view(page, widget):
    """Whether WIDGET is shown wholly inside the page's visible part (not below its fold)."""
    position = widget.translate_coordinates(page.widget, 0, 0)
    return position is not None and widget.get_mapped() and position[1] >= 0 and \
        position[1] + widget.get_allocated_height() <= page.widget.get_allocated_height()


def _screen_size():
    screen = Gdk.Screen.get_default()
    return screen.get_width(), screen.get_height()


def _style():
    """Anaconda's look, as its GraphicalUserInterface.run() sets it."""
    settings = Gtk.Settings.get_default()
    settings.set_property("gtk-icon-theme-name", "Adwaita")
    data = os.environ["ANACONDA_DATA"]
    provider = Gtk.CssProvider()
    provider.load_from_path(os.path.join(data, "anaconda-gtk.css"))
    Gtk.StyleContext.add_provider_for_screen(Gdk.Screen.get_default(), provider,
                                             Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
    Gtk.IconTheme.get_default().append_search_path(os.path.join(data, "pixmaps"))


def main(argv):
    HubRemote(argv[1])
    Gtk.main()


if __name__ == "__main__":
    main(sys.argv)
