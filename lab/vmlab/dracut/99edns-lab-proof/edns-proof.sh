#!/bin/sh
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

# Helpers for /etc/edns-proof/run.sh; every result is one "EDNS-PROOF key value" line
# on the serial console, which the host reads back. Every wait is bounded.

say() { echo "EDNS-PROOF $*"; }

# resolve NAME: getent hosts through the C library, as every program resolves.
resolve() {
    answer=$(timeout 25 getent hosts "$1" | head -n 1 | tr -s ' ' ' ')
    if [ -n "$answer" ]; then say "resolve $1 ok $answer"; else say "resolve $1 fail"; fi
}

# fetch URL CA: the file at URL over HTTPS, verified against CA; prints its sha256.
fetch() {
    sum=$(timeout 40 curl -sS --max-time 35 --cacert "$2" "$1" 2>/tmp/curl.err | sha256sum \
          | cut -c1-64)
    if [ -s /tmp/curl.err ]; then
        say "fetch $1 fail $(tr '\n' ' ' </tmp/curl.err)"
    else
        say "fetch $1 ok $sum"
    fi
}

# show FILE: the file's lines, each as "file FILE: LINE".
show() {
    if [ -e "$1" ]; then
        sed "s|^|EDNS-PROOF file $1: |" "$1"
    else
        say "file $1: (absent)"
    fi
}

# unit UNIT: its state as systemd has it.
unit() {
    say "unit $1 $(systemctl show -p ActiveState -p Result -p ExecMainStatus "$1" \
        | tr '\n' ' ')"
}

# journal UNIT...: the last journal lines of the units (why a service failed).
journal() {
    args=""
    for unit in "$@"; do args="$args -u $unit"; done
    timeout 10 journalctl --no-pager -o short-monotonic $args 2>&1 | tail -n 60 \
        | sed "s|^|EDNS-PROOF journal: |"
}

# global_dns: what NetworkManager runs with (its D-Bus GlobalDnsConfiguration).
global_dns() {
    say "nm-global-dns $(timeout 10 busctl --system --json=short get-property \
        org.freedesktop.NetworkManager /org/freedesktop/NetworkManager \
        org.freedesktop.NetworkManager GlobalDnsConfiguration 2>&1)"
}

say "begin uptime $(cut -d' ' -f1 /proc/uptime)"
say "online $(timeout 60 nm-online -s -q -t 60 && echo yes || echo no)"
. /etc/edns-proof/run.sh
say "end uptime $(cut -d' ' -f1 /proc/uptime)"
systemctl --no-block --force --force poweroff
