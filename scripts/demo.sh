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

# The main job on the bundled example: validate it, show the %edns -> %addon
# conversion, stage it, build the overlay, and end with the proof that it resolves.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-out}
mkdir -p "$OUT"

echo "== edns-addon validate data/examples/corp-dot.ks"
edns-addon validate data/examples/corp-dot.ks

echo
# A top-level %edns is our tools' spelling only: stock Anaconda refuses it, so validate
# calls it an error (exit 1) and convert rewrites it as %addon org_edns_addon.
echo "== edns-addon validate data/examples/corp-dot-edns.ks (a top-level %edns: exit 1 expected)"
status=0
edns-addon validate data/examples/corp-dot-edns.ks || status=$?
if [ "$status" -ne 1 ]; then
    echo "demo: validate of a top-level %edns exited $status, not 1" >&2
    exit 1
fi
echo
echo "== edns-addon convert data/examples/corp-dot-edns.ks -o $OUT/corp-dot-converted.ks"
edns-addon convert data/examples/corp-dot-edns.ks -o "$OUT/corp-dot-converted.ks"
diff -u data/examples/corp-dot-edns.ks "$OUT/corp-dot-converted.ks" || true
edns-addon validate "$OUT/corp-dot-converted.ks"

# Staging: the same code the installer module runs, once for the installed
# system and once for the installer environment, each below its own root.
KS=data/examples/corp-dot.ks
for phase in target installer; do
    echo
    echo "== edns-addon apply $KS --root $OUT/$phase --phase $phase"
    mkdir -p "$OUT/$phase"
    edns-addon apply "$KS" --root "$OUT/$phase" --phase "$phase"
done
echo
echo "== the installed system's tree ($OUT/target)"
(cd "$OUT/target" && find . -mindepth 1 -printf '%M %u:%g %p\n' | sort -k3)
for file in etc/NetworkManager/conf.d/60-edns-global-dns.conf etc/dracut.conf.d/60-edns.conf; do
    echo "--- $OUT/target/$file"
    cat "$OUT/target/$file"
done

echo
echo "== edns-addon overlay $KS -o $OUT/overlay.img"
edns-addon overlay "$KS" -o "$OUT/overlay.img"
echo
echo "== lsinitrd $OUT/overlay.img"
lsinitrd "$OUT/overlay.img" | grep -E '^[-dl][-rwx]{9} '
echo
echo "== edns-addon boot-args $KS"
edns-addon boot-args "$KS"
echo
echo "== edns-addon updates-img -o $OUT/updates.img (the addon as Anaconda loads it)"
edns-addon updates-img -o "$OUT/updates.img"
zcat "$OUT/updates.img" | cpio -it --quiet | grep -E 'dbus/|service/__main__.py'

# The proof: the example, pointed at DoT upstreams on loopback (a fresh CA, since
# the example's CA key does not exist), resolves through the staged files; a
# foreign CA fails closed. All inside a private network namespace.
echo
echo "== The proof: scripts/prove.py $OUT (the example, live, on loopback only)"
PYTHONPATH="$PWD" "${PYTHON:-python3}" scripts/prove.py "$OUT"
