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

# Create the users of every sysusers.d file installed by now (dnsconfd, unbound):
# dracut 106/107 create users in 60systemd-sysusers, before later modules add theirs.

check() {
    require_binaries systemd-sysusers || return 1
    return 255
}

install() {
    systemd-sysusers --root="$initdir" 2>&1 | grep -v "^Creating " >&2 || true
}
