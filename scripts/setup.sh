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

# Install everything the addon, its demo and its tests need on a fresh Debian 12
# machine (as root). Idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(
    dbus-daemon               # private D-Bus buses for the module's tests
    unbound                   # DoT upstream and local forwarder in tests and the demo
    knot-dnsutils             # kdig, the reference DoT client of the benchmarks
    dnsdist                   # a DoT upstream that answers at once, for benchmarks
    dnsperf                   # load for the DoT-tax benchmark
    dracut-core cpio          # real initramfs builds and listings
    network-manager           # NetworkManager --print-config parses our keyfiles
    tmux                      # a real terminal for the text UI tests
    iproute2 util-linux       # unshare / ip netns for namespaced end-to-end tests
    rpm rpmlint               # the spec file check and rpmbuild of the packages
    python3-packaging         # rpm's Python dependency generator (pythondistdeps.py)
    libgirepository1.0-dev libcairo2-dev pkg-config   # to build PyGObject for dasbus
    systemd                   # systemctl --root: unit enablement in a staged target
    mmdebstrap                # the Debian 13 tree: NetworkManager 1.52, dracut 106, kernel 6.12
    qemu-system-x86 tcpdump   # make vm-proof: boot the images, capture the guest's packets
    dnsmasq-base              # make vm-proof: a DHCP server that offers a plaintext DNS server
    e2fsprogs                 # make vm-proof: mkfs.ext4 -d makes the stage-2 stand-in's root image
    python3-librepo           # Anaconda's payload library: the stage-2 window's fetch, on loopback
    gettext                   # xgettext, msgfmt: make potfile, the catalogues make install builds
    xvfb gir1.2-gtk-3.0       # the graphical spoke's page on a real GTK 3, on a private display
    xdotool                   # key presses through the X server (XTEST) in the GTK tests
    busybox                   # a shell for update-ca-trust stand-ins chrooted in a staged root
    p11-kit                   # trust: p11-kit reads an anchor as update-ca-trust does
)

missing=()
for package in "${DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # With recommends, as on the machines the tests were written on.
    apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The benchmarks start dnsdist themselves, on loopback only; the package's own service
# (on 127.0.0.1:53 where systemd runs) is not wanted.
if [ -d /run/systemd/system ] && systemctl is-enabled --quiet dnsdist.service 2>/dev/null; then
    systemctl disable --now dnsdist.service
fi

PYTHON=${PYTHON:-python3}
# pip checks the versions too; when everything is there this takes a few seconds.
"$PYTHON" -m pip install -q --disable-pip-version-check --root-user-action=ignore -r requirements.txt
# The `edns-addon` command of this checkout (an editable install, so it follows the tree).
installed=$(cd / && "$PYTHON" -c 'import os, org_edns_addon; print(os.path.dirname(os.path.dirname(org_edns_addon.__file__)))' 2>/dev/null || true)
if [ "$installed" != "$PWD" ] || ! command -v edns-addon >/dev/null 2>&1; then
    echo "setup: installing edns-addon from $PWD"
    "$PYTHON" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps -e .
fi
