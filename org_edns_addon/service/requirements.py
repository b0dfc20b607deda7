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

"""What the installed system needs for encrypted DNS, and the boot options it may meet.

Pure (no pyanaconda), so the rules are tested anywhere; ``service/edns.py``
turns them into Anaconda requirements and log lines.
"""

from org_edns_addon import constants as c
from org_edns_addon.i18n import _
from org_edns_addon.model import Backend
from org_edns_addon.staging.dracut import dracut_modules_present

BOOT_OPTION_NAMES = (c.BOOT_OPTION_DNS, c.BOOT_OPTION_RESOLVE_MODE, c.BOOT_OPTION_BACKEND)


def required_packages(config, installer_root="/"):
    """The packages the installed system needs for CONFIG, as (name, reason) pairs.

    ``dnsconfd-dracut`` is asked for only where the distribution has it, seen
    by its dracut module in the installer image (built from the same packages).
    """
    reason = _("Needed for encrypted DNS (DNS over TLS) with the %s backend.") % \
        config.backend.value
    if config.backend is Backend.DNSCONFD:
        names = [c.DNSCONFD_PACKAGES[0]]
        if dracut_modules_present(installer_root, [c.DRACUT_MODULE_DNSCONFD]):
            names += c.DNSCONFD_PACKAGES[1:]
    else:
        names = list(c.UNBOUND_PACKAGES)
    packages = [(name, reason) for name in names]
    packages.append((c.CA_PACKAGE, _("Needed for the CA certificates that authenticate the "
                                     "encrypted DNS servers.")))
    return packages


def boot_option_differences(kickstart_options, present):
    """Sentences for each DoT boot option in PRESENT (name -> value) that differs from
    KICKSTART_OPTIONS (the ``BootOption``s the kickstart implies)."""
    wanted = {}
    for name, value in kickstart_options:
        wanted.setdefault(name, []).append(value)
    sentences = []
    for name in BOOT_OPTION_NAMES:
        if name not in present:
            continue
        value = present[name]
        if value not in wanted.get(name, ()):
            sentences.append(_("the boot option %s=%s differs from the kickstart (%s); the "
                               "kickstart wins") % (name, value, ", ".join(
                                   "%s=%s" % (name, v) for v in wanted.get(name, ())) or
                                   _("not set")))
    return sentences
