#!/bin/bash
# The main job on the bundled example: validate it, and show the %edns ->
# %addon conversion. Later steps (apply, overlay, the DoT proof) extend this.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-out}
mkdir -p "$OUT"

echo "== edns-addon validate data/examples/corp-dot.ks"
edns-addon validate data/examples/corp-dot.ks

echo
echo "== edns-addon convert data/examples/corp-dot-edns.ks -o $OUT/corp-dot-converted.ks"
edns-addon validate data/examples/corp-dot-edns.ks
edns-addon convert data/examples/corp-dot-edns.ks -o "$OUT/corp-dot-converted.ks"
diff -u data/examples/corp-dot-edns.ks "$OUT/corp-dot-converted.ks" || true

echo
echo "== edns-addon updates-img -o $OUT/updates.img (the addon as Anaconda loads it)"
edns-addon updates-img -o "$OUT/updates.img"
zcat "$OUT/updates.img" | cpio -it --quiet | grep -E 'dbus/|service/__main__.py'
