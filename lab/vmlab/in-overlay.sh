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

# Run a command chrooted in an overlay of layers over a Debian tree, in private mount
# and PID namespaces (call it through `unshare --mount --pid --fork --propagation private`).
#
#   in-overlay.sh UPPER WORK MERGED LOWER[:LOWER...] OUT [--host] COMMAND...
#
# Writes go to UPPER (the tree and the other layers are never changed); OUT (a host
# directory) appears as /run/edns-out inside. With --host the command runs on the
# host instead (not chrooted), with the merged tree's path in $EDNS_MERGED.
set -eu
upper=$1 work=$2 merged=$3 lower=$4 out=$5
shift 5
mount -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$work" "$merged"
if [ "${1:-}" = --host ]; then
    shift
    export EDNS_MERGED="$merged"
    exec "$@"
fi
mount -t proc proc "$merged/proc"
mount -t sysfs sysfs "$merged/sys"
mount --rbind /dev "$merged/dev"
mount -t tmpfs tmpfs "$merged/tmp"
mount -t tmpfs -o mode=0755 tmpfs "$merged/run"
mkdir -p "$merged/run/edns-out"
mount --bind "$out" "$merged/run/edns-out"
exec chroot "$merged" "$@"
