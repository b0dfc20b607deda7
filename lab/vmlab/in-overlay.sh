#!/bin/sh
# Run a command chrooted in an overlay of layers over a trixie tree, in private mount
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
