#!/bin/bash
# Create the users of every sysusers.d file installed by now (dnsconfd, unbound):
# dracut 106/107 create users in 60systemd-sysusers, before later modules add theirs.

check() {
    require_binaries systemd-sysusers || return 1
    return 255
}

install() {
    systemd-sysusers --root="$initdir" 2>&1 | grep -v "^Creating " >&2 || true
}
