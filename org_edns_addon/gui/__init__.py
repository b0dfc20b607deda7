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

"""The graphical UI: GTK over the shared editor (``org_edns_addon.ui``), and the Anaconda
spoke (``gui/spokes/``, the only part that imports pyanaconda).

The modules here import GTK 3 but not pyanaconda, so they run and are tested with
a real GTK anywhere (under Xvfb in CI): ``builder`` loads the glade file,
``page`` shows an editor and reacts to the user, one section per module
(``servers``, ``options``, ``certificates``, ``check``), ``inline`` says what is
wrong beside the entry being typed.
"""
