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

"""The spoke's glade file and what is loaded of it.

Anaconda builds the whole spoke window (``SPOKE_OBJECTS``, an
``AnacondaSpokeWindow``) through its ``GUIObject``. The page inside it
(``PAGE_OBJECTS``) is plain GTK, and ``load_page`` builds it alone, from the
same file, where AnacondaWidgets is missing (GtkBuilder refuses a file naming a
type it does not know, even for objects it is not asked for): the CI tests, a
preview. Either way the widgets are those of the glade file, and its sentences
are translated in the addon's domain.
"""

import os
import xml.etree.ElementTree as ElementTree

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402  (after require_version, as PyGObject asks)

from org_edns_addon.constants import TRANSLATION_DOMAIN  # noqa: E402
from org_edns_addon.i18n import bind_c_translations  # noqa: E402

SPOKES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spokes")
UI_FILE_NAME = "edns.glade"
UI_FILE = os.path.join(SPOKES_DIR, UI_FILE_NAME)
# The spoke's icon: a file beside the glade file, found by its name once its directory
# is on the icon theme's search path (``add_icon_directory``).
ICON_NAME = "edns-anaconda-addon-symbolic"

STORES = ["ednsServerStore", "ednsCertificateStore", "ednsCheckStore"]
WINDOW = "ednsWindow"
PAGE = "ednsPage"
SPOKE_OBJECTS = [WINDOW] + STORES
PAGE_OBJECTS = [PAGE] + STORES

# Anaconda shows what is wrong in red (its info bars, pyanaconda/ui/gui/helpers.py's entry
# icons); the sentence beside an entry is the theme's error colour.
CSS = b".edns-error { color: @error_color; }"


def add_icon_directory():
    """Let the icon theme find ``ICON_NAME`` in the addon's own directory, so the hub shows
    it from an updates image too (an icon added to hicolor there is not in its cache)."""
    theme = Gtk.IconTheme.get_default()
    if SPOKES_DIR not in theme.get_search_path():
        theme.append_search_path(SPOKES_DIR)


def _page_interface(ui_file, object_ids):
    """The XML of UI_FILE's interface with only OBJECT_IDS (each wherever it is nested)."""
    source = ElementTree.parse(ui_file).getroot()
    interface = ElementTree.Element("interface", source.attrib)
    interface.extend(element for element in source.findall("requires")
                     if element.get("lib") == "gtk+")
    for object_id in object_ids:
        found = source.find(".//object[@id='%s']" % object_id)
        if found is None:
            raise LookupError("%s has no object %s" % (ui_file, object_id))
        interface.append(found)
    return ElementTree.tostring(interface, encoding="unicode")


def load_page(ui_file=UI_FILE):
    """A ``Gtk.Builder`` holding the page (``PAGE_OBJECTS``) of UI_FILE, without the spoke
    window around it, its sentences in the addon's domain."""
    bind_c_translations()
    builder = Gtk.Builder()
    builder.set_translation_domain(TRANSLATION_DOMAIN)
    builder.add_from_string(_page_interface(ui_file, PAGE_OBJECTS))
    return builder


def add_styles():
    """Give the screen the page's styles (``CSS``, of class names only the page uses)."""
    global _STYLED
    if _STYLED:
        return
    provider = Gtk.CssProvider()
    provider.load_from_data(CSS)
    Gtk.StyleContext.add_provider_for_screen(Gdk.Screen.get_default(), provider,
                                             Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
    _STYLED = True


_STYLED = False
