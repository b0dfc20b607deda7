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

# Run a command chrooted in a Debian tree, in private network, mount and PID namespaces
# (call it through `unshare --net --mount --pid --fork --propagation private`).
#
#   in-tree.sh TREE STAGE COMMAND...
#
# The tree itself is never written: /run, /tmp and NetworkManager's state
# directory are fresh tmpfs, /sys is read-only, and STAGE (a host directory) appears read-only
# inside as /run/edns-stage. Only loopback exists in the network namespace, and
# every process started inside ends with the namespace's first process.
set -eu
tree=$1
stage=$2
shift 2
for dir in run tmp var/lib/NetworkManager etc/NetworkManager/conf.d; do
    mount -t tmpfs -o mode=0755 tmpfs "$tree/$dir"
done
mount -t proc proc "$tree/proc"
# Read-only, as in a container: NetworkManager then runs without udev and takes a link as
# initialised at once (nm-linux-platform.c, nm_linux_platform_new: use_udev only when
# /sys is writable). A udevd of our own in this network namespace would also get every
# untagged uevent of the host (the kernel broadcasts them into each network namespace
# of the initial user namespace), and under load lost our links' events for minutes.
mount -t sysfs -o ro sysfs "$tree/sys"
mount --rbind /dev "$tree/dev"
mkdir -p "$tree/run/edns-stage"
mount --bind -o ro "$stage" "$tree/run/edns-stage"
ip link set lo up
exec chroot "$tree" "$@"
