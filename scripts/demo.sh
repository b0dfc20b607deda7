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
