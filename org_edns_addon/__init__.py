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

"""org_edns_addon: system-wide encrypted DNS (DNS over TLS) for Anaconda installations.

Nothing runs here: every program of the package (the command line, the Anaconda module,
the stand-alone service) starts in its own module, and the command line alone handles a
Ctrl-C from its first line (``org_edns_addon/cli/__init__.py``).
"""

__version__ = "0.1.0"
