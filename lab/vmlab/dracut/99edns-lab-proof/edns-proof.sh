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

# resolve_within SECONDS NAME: resolve NAME until it answers or SECONDS have passed (a
# resolver that was just restarted or reconfigured is given that long).
resolve_within() {
    deadline=$(( $(cut -d. -f1 /proc/uptime) + $1 ))
    while :; do
        answer=$(timeout 25 getent hosts "$2" | head -n 1 | tr -s ' ' ' ')
        [ -n "$answer" ] && break
        [ "$(cut -d. -f1 /proc/uptime)" -ge "$deadline" ] && break
        sleep 1
    done
    if [ -n "$answer" ]; then say "resolve $2 ok $answer"; else say "resolve $2 fail"; fi
}

# fetch URL CA [ADDRESS]: the file at URL over HTTPS, verified against CA; prints its
# sha256. With ADDRESS the name is not resolved: the host is pinned there (curl --resolve),
# which shows the network and the CA apart from DNS.
fetch() {
    pin=""
    if [ -n "${3:-}" ]; then
        host=${1#https://}; host=${host%%/*}
        pin="--resolve $host:443:$3"
    fi
    # shellcheck disable=SC2086
    sum=$(timeout 40 curl -sS --max-time 35 $pin --cacert "$2" "$1" 2>/tmp/curl.err \
          | sha256sum | cut -c1-64)
    label="fetch"
    [ -n "$pin" ] && label="fetch-pinned"
    if [ -s /tmp/curl.err ]; then
        say "$label $1 fail $(tr '\n' ' ' </tmp/curl.err)"
    else
        say "$label $1 ok $sum"
    fi
}

# address IFACE: the interface's addresses, as the guest has them.
address() {
    say "address $1 $(ip -brief addr show dev "$1" 2>&1)"
}

# digest FILE: the file's sha256 (or "absent").
digest() {
    if [ -e "$1" ]; then
        say "digest $1 $(sha256sum "$1" | cut -c1-64)"
    else
        say "digest $1 absent"
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

# unit UNIT: its state as systemd has it (LoadState=not-found: it is not installed;
# ExecMainStartTimestampMonotonic=0: it never started).
unit() {
    say "unit $1 $(systemctl show -p LoadState -p ActiveState -p Result -p ExecMainStatus \
        -p ExecMainStartTimestampMonotonic -p NRestarts "$1" | tr '\n' ' ')"
}

# journal UNIT...: the last journal lines of the units (why a service failed).
journal() {
    args=""
    for unit in "$@"; do args="$args -u $unit"; done
    timeout 10 journalctl --no-pager -o short-monotonic $args 2>&1 | tail -n 60 \
        | sed "s|^|EDNS-PROOF journal: |"
}

# grep_journal PATTERN UNIT...: how many journal lines of the units match PATTERN, and
# the first of them (why a fail-closed case failed, in the resolver's own words).
grep_journal() {
    pattern=$1; shift
    args=""
    for unit in "$@"; do args="$args -u $unit"; done
    # shellcheck disable=SC2086
    timeout 10 journalctl --no-pager -o cat $args 2>/dev/null | grep -e "$pattern" \
        >/tmp/journal.grep || true
    say "journal-grep $(wc -l </tmp/journal.grep) $pattern :: $(head -n 1 /tmp/journal.grep)"
}

# global_dns: what NetworkManager runs with (its D-Bus GlobalDnsConfiguration).
global_dns() {
    say "nm-global-dns $(timeout 10 busctl --system --json=short get-property \
        org.freedesktop.NetworkManager /org/freedesktop/NetworkManager \
        org.freedesktop.NetworkManager GlobalDnsConfiguration 2>&1)"
}

# dns_config: the DNS NetworkManager has from its connections (its D-Bus DnsManager
# Configuration: each connection's servers, domains and interface, DHCP's included).
dns_config() {
    say "nm-dns-config $(timeout 10 busctl --system --json=short get-property \
        org.freedesktop.NetworkManager /org/freedesktop/NetworkManager/DnsManager \
        org.freedesktop.NetworkManager.DnsManager Configuration 2>&1)"
}

# beacon ADDRESS PORT: one TCP connection attempt to ADDRESS:PORT, where nothing listens
# (it is refused at once), so the capture shows where a step of the proof begins.
beacon() {
    timeout 5 curl -s --max-time 3 "http://$1:$2/" >/dev/null 2>&1 || true
    say "beacon $2"
}

# wait_global_dns_ca: until NetworkManager's global DNS names a CA (at most 30 s).
wait_global_dns_ca() {
    for try in $(seq 60); do
        busctl --system get-property org.freedesktop.NetworkManager \
            /org/freedesktop/NetworkManager org.freedesktop.NetworkManager \
            GlobalDnsConfiguration 2>/dev/null | grep -q certification-authority && return 0
        sleep 0.5
    done
    return 1
}

# The script to run: /etc/edns-proof/run.sh in the initramfs, or the one given (stage 2).
script=${1:-/etc/edns-proof/run.sh}
say "begin uptime $(cut -d' ' -f1 /proc/uptime)"
say "online $(timeout 60 nm-online -s -q -t 60 && echo yes || echo no)"
. "$script"
say "end uptime $(cut -d' ' -f1 /proc/uptime)"
# /etc/edns-proof/continue: the boot goes on to switch-root (the stage-2 case).
if [ -n "${1:-}" ] || [ ! -e /etc/edns-proof/continue ]; then
    systemctl --no-block --force --force poweroff
fi
