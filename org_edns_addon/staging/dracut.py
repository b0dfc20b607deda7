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

"""The installed system's ``dracut.conf.d`` drop-in: the DoT files inside its initramfs.

dracut resolves ``install_items`` in the target when it runs there, and
aborts on a module it does not have, so only modules the target has are named.
"""

import os

from org_edns_addon import constants as c
from org_edns_addon.confinement import ConfinedRoot, RootError
from org_edns_addon.model import Backend
from org_edns_addon.staging.networkmanager import GENERATED_HEADER


def dns_config_paths(config):
    """The DoT files the initramfs needs besides the CA file."""
    if config.backend == Backend.UNBOUND:
        return [c.NM_KEYFILE_PATH, c.UNBOUND_CONF_PATH, c.RESOLV_CONF_PATH]
    return [c.NM_KEYFILE_PATH, c.UNBOUND_DNSCONFD_DROPIN_PATH]


def dracut_modules_present(root, names):
    """Those of NAMES for which ROOT has a dracut module directory (``NNname``), looked
    for below ROOT only (a symlink that leads outside it is not followed)."""
    try:
        with ConfinedRoot(root) as confined:
            fd = confined.open_directory(c.DRACUT_MODULES_DIR)
            if fd is None:
                return []
            try:
                present = {entry.lstrip("0123456789") for entry in os.listdir(fd)}
            finally:
                os.close(fd)
    except (OSError, RootError):
        return []
    return [name for name in names if name in present]


def dracut_conf(data, root):
    """The drop-in for DATA (a ``StagingInput``) in the target at ROOT."""
    items = [data.trust.path] + dns_config_paths(data.config)
    wanted = [c.DRACUT_MODULE_OPENSSL]
    if data.config.backend == Backend.DNSCONFD:
        wanted.insert(0, c.DRACUT_MODULE_DNSCONFD)
    else:
        # Without Unbound itself, its configuration and resolv.conf inside resolve nothing.
        wanted.insert(0, c.DRACUT_MODULE_UNBOUND)
    # Not fixable here: dracut-ng 106 and 107 create the initramfs's users inside their
    # 60systemd-sysusers module, before 70dnsconfd and 70unbound install their sysusers.d
    # files, so dnsconfd.service fails with 217/USER (and Unbound cannot switch to its
    # user). A drop-in can neither reorder modules nor replace /etc/passwd (install_items
    # never overwrite). dracut-ng 108 creates the users after all modules.
    modules = dracut_modules_present(root, wanted)
    lines = [GENERATED_HEADER, 'install_items+=" %s "' % " ".join(items)]
    if modules:
        lines.append('add_dracutmodules+=" %s "' % " ".join(modules))
    if data.config.backend == Backend.UNBOUND:
        # One resolver stack in the initramfs too. The installer's network module installs
        # dnsconfd and dnsconfd-dracut whenever rd.net.dns-backend=dnsconfd (our boot
        # options), and dracut's default selection takes its module (its check() needs only
        # the binary), whose install() enables dnsconfd.service in the image: beside our
        # Unbound it took over Unbound and resolv.conf, and names failed to resolve (make
        # vm-proof, composed-unbound). omit wins over any add in dracut.
        lines.append('omit_dracutmodules+=" %s "' % c.DRACUT_MODULE_DNSCONFD)
    return ("\n".join(lines) + "\n").encode("ascii")
