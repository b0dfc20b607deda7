"""org_edns_addon: system-wide encrypted DNS (DNS over TLS) for Anaconda installations."""

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
