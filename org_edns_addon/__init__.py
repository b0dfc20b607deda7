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

"""org_edns_addon: system-wide encrypted DNS (DNS over TLS) for Anaconda installations."""

def _end_an_interrupted_start_up(main_module=False):
    """In an ``except KeyboardInterrupt`` of the package's or cli.py's first lines: a
    Ctrl-C in the first moments of `edns-addon` or of `python3 -m org_edns_addon.…`
    (sys.argv[0] is "-m" while Python finds the module; MAIN_MODULE when the module
    being run caught it), before cli.py holds the signals back, ends the run as cli.py
    ends one, with 130 and a sentence, never a traceback. Any other importer gets its
    KeyboardInterrupt back."""
    import os
    import sys

    argv0 = (getattr(sys, "argv", None) or [""])[0]
    if not (main_module or argv0 == "-m" or os.path.basename(argv0) == "edns-addon"):
        raise   # the KeyboardInterrupt being handled
    os.write(2, b"edns-addon: interrupted\n")
    os._exit(130)


try:
    import os as _os
    import sys as _sys

    __version__ = "0.1.0"

    # An updates image (edns-addon updates-img) carries the pure-Python libraries an
    # installer image may lack (dnspython) in this directory; it comes last on the path,
    # so a library the image has (an RPM's Requires) wins. Nothing else has it.
    from org_edns_addon.constants import CARRIED_LIBRARIES_DIR as _CARRIED_DIR

    _CARRIED = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), _CARRIED_DIR)
    if _os.path.isdir(_CARRIED) and _CARRIED not in _sys.path:
        _sys.path.append(_CARRIED)
except KeyboardInterrupt:
    _end_an_interrupted_start_up()
