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

# The proof runner of `make vm-proof`: its clients and a unit that runs
# /etc/edns-proof/run.sh (appended per run) once the network is up.

check() {
    return 255
}

depends() {
    echo systemd dbus
    return 0
}

install() {
    inst_multiple getent curl sha256sum cat timeout busctl systemctl ip sleep date \
        tr head tail grep sed wc ls cut
    inst_multiple -o nm-online nmcli journalctl poweroff
    inst_simple "$moddir/edns-proof.sh" /usr/lib/edns-proof/edns-proof.sh
    inst_simple "$moddir/edns-proof.service" "$systemdsystemunitdir/edns-proof.service"
    $SYSTEMCTL -q --root "$initdir" enable edns-proof.service
}
