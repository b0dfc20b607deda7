#!/bin/bash
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

# Lab stand-in for Fedora's unbound-dracut: Unbound as the initramfs's local resolver.

check() {
    require_binaries unbound || return 1
    return 255
}

depends() {
    echo systemd systemd-sysusers
    return 0
}

install() {
    inst_multiple unbound unbound-checkconf unbound-control
    inst_simple "$moddir/unbound.conf" /etc/unbound/unbound.conf
    inst_simple "$moddir/unbound.service" "$systemdsystemunitdir/unbound.service"
    inst_simple "$moddir/unbound.sysusers" /usr/lib/sysusers.d/unbound.conf
    # Fedora's unbound ships it, and dnsconfd-prepare links it into conf.d.
    inst_simple "$moddir/unbound-as112-networks.conf" \
        /usr/share/unbound/conf.d/unbound-as112-networks.conf
    # Only the directory: what goes in is each user's (dnsconfd's module installs its
    # include of /run/dnsconfd/unbound.conf and its unbound.service drop-in; the addon's
    # drop-in its forward zones). The target's whole conf.d and unbound.service.d would
    # break Unbound where dnsconfd is installed but not in the image: they name
    # /run/dnsconfd, which only dnsconfd's tmpfiles create.
    inst_dir /etc/unbound/conf.d
    # Started at boot: the unbound backend's resolver; with dnsconfd, dnsconfd restarts it
    # on its own configuration.
    $SYSTEMCTL -q --root "$initdir" enable unbound.service
}
