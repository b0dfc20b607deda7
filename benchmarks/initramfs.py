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

"""The initramfs cost of encrypted DNS: what the overlay and the dracut drop-in add.

For the example kickstart (data/examples/corp-dot.ks, as it is and with
--backend=unbound) and one with 1 000 %certificate sections, in one run:

- the installer: the bytes `edns-addon overlay` appends to the installer's
  initramfs (the overlay is a second archive after it, so it adds exactly its own
  size), against the certificates' bytes. Goal: <= certificates + 8 KiB;
- the installed system: a trixie root staged by `edns-addon apply --root`, its
  initramfs made by the tree's own dracut (the modules of a network root:
  systemd, dracut-systemd, D-Bus, NetworkManager) three ways from the same
  root: A without our drop-in (/etc/dracut.conf.d/), B without it but with the
  dracut modules it names added by hand (the resolver), C with it. C - A is what
  the drop-in costs; C - B must be nothing but the files it names
  (install_items). Goal: C - A <= the bundle + the keyfile (+ the Unbound files)
  + the resolver it names (B - A);
- the time of that dracut run with the drop-in against without it, alternating,
  RUNS pairs: medians and the median of the pairs' ratios.

Needs root and the trixie tree (``make trixie-tree``); DNSCONFD_ROOT=DIR (an
installed dnsconfd tree) adds dnsconfd, which the dnsconfd backend's drop-in then
names. Prints figures; never fails on a time or a size. Exit 2 when it cannot run.

    PYTHONPATH=$PWD python3 benchmarks/initramfs.py [--runs N] [--certificates N]
        [--kickstart example|example-unbound|certificates]... [--compress PROGRAM]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "data/examples/corp-dot.ks"
EXIT_CANNOT_RUN = 2
OVERLAY_SLACK = 8 * 1024
KICKSTARTS = ("example", "example-unbound", "certificates")
# The installed system's initramfs, as the VM tier's target cases build it (a network
# root): lab/vmlab/proof.py's TARGET_BASE_MODULES and NetworkManager.
TARGET_MODULES = ("base", "systemd", "systemd-initrd", "dracut-systemd", "dbus",
                  "network-manager")


def cannot_run(reason):
    print("initramfs benchmark: not run: %s" % reason)
    sys.exit(EXIT_CANNOT_RUN)


def kib(size):
    return "%.1f KiB" % (size / 1024)


def signed_kib(size):
    return "%+.1f KiB" % (size / 1024)


def cli(*args):
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", *map(str, args)],
                            capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    if result.returncode != 0:
        sys.exit("initramfs benchmark: edns-addon %s failed: %s" % (
            " ".join(map(str, args)), result.stderr.strip()))
    return result


def overlay_figures(kickstart, directory):
    """The overlay's bytes, the certificates' bytes, and what the overlay holds by kind."""
    from org_edns_addon import constants as c
    from org_edns_addon.initrd import overlay_plan
    from org_edns_addon.ks.reader import parse_kickstart

    image = directory / (kickstart.stem + "-overlay.img")
    cli("overlay", kickstart, "-o", image)
    parsed = parse_kickstart(str(kickstart))
    certificates = sum(len(cert.pem.encode()) for cert in parsed.certificates)
    kinds = {}
    for planned in overlay_plan(parsed).files:
        if planned.path == c.OVERLAY_KICKSTART_PATH:
            kind = "the kickstart"
        elif planned.path == c.DOT_CA_BUNDLE_PATH:
            kind = "the DoT bundle"
        elif planned.path == c.NM_KEYFILE_PATH:
            kind = "the keyfile"
        elif planned.path.endswith(".sh"):
            kind = "the pre-pivot hook"
        elif planned.path == c.UNBOUND_DNSCONFD_DROPIN_PATH:
            kind = "the unbound.service drop-in"
        else:
            kind = "other files (certificates, trust)"
        count, size = kinds.get(kind, (0, 0))
        kinds[kind] = (count + 1, size + len(planned.content))
    return image.stat().st_size, certificates, kinds


def stage(tree, layers, kickstart, upper):
    """UPPER: what `edns-addon apply --root` (phase target) writes into the trixie root."""
    from lab.vmlab import initramfs

    shutil.rmtree(upper, ignore_errors=True)
    upper.mkdir(parents=True)
    result = initramfs.run_in_overlay(
        tree, layers,
        ["--host", "sh", "-c", '"$0" -m org_edns_addon.cli apply "$1" --root "$EDNS_MERGED"',
         sys.executable, str(kickstart)], upper.parent, upper=upper, timeout=600)
    if result.returncode != 0:
        sys.exit("initramfs benchmark: apply --root failed: %s%s" % (result.stdout,
                                                                     result.stderr))


def dropin_words(text, key):
    """The words of KEY+=" ... " in the drop-in TEXT."""
    words = []
    for line in text.splitlines():
        if line.startswith(key + "+="):
            words += line.split("=", 1)[1].strip().strip('"').split()
    return words


def listing(tree, image):
    """{path: size} of the files (and symlinks, size 0) in IMAGE, from lsinitrd."""
    from lab.vmlab import initramfs

    found = {}
    for line in initramfs.lsinitrd(tree, image).splitlines():
        fields = line.split()
        if len(fields) < 9 or fields[0][:1] not in "-l":
            continue
        path = fields[8]
        found[path] = int(fields[4]) if fields[0][0] == "-" else 0
    return found


def build(tree, layers, image, compress, add=()):
    from lab.vmlab import initramfs

    return initramfs.dracut(tree, layers, image, modules=TARGET_MODULES, add=add,
                            compress=compress)


def target_figures(tree, lab_layers, kickstart, directory, runs, compress):
    from org_edns_addon import constants as c

    with_dropin = directory / (kickstart.stem + "-root")
    stage(tree, lab_layers, kickstart, with_dropin)
    dropin_path = with_dropin / c.DRACUT_CONF_PATH.lstrip("/")
    dropin = dropin_path.read_text()
    without = directory / (kickstart.stem + "-root-without")
    shutil.rmtree(without, ignore_errors=True)
    shutil.copytree(with_dropin, without, symlinks=True)
    (without / c.DRACUT_CONF_PATH.lstrip("/")).unlink()
    items = dropin_words(dropin, "install_items")
    modules = dropin_words(dropin, "add_dracutmodules")
    images = {key: directory / ("%s-%s.img" % (kickstart.stem, key)) for key in "ABC"}
    build(tree, [without] + lab_layers, images["B"], compress, add=modules)
    times = {"A": [], "C": []}
    for run in range(runs):
        order = ("A", "C") if run % 2 == 0 else ("C", "A")
        for key in order:
            root = with_dropin if key == "C" else without
            times[key].append(build(tree, [root] + lab_layers, images[key], compress))
    sizes = {key: image.stat().st_size for key, image in images.items()}
    files = {key: listing(tree, image) for key, image in images.items()}
    item_sizes = {}
    for item in items:
        for layer in [with_dropin] + lab_layers + [tree]:
            path = layer / item.lstrip("/")
            if path.exists() or path.is_symlink():
                item_sizes[item] = path.stat().st_size if path.is_file() else 0
                break
    return dropin, items, modules, item_sizes, sizes, files, times


def print_overlay(size, certificates, kinds):
    goal = certificates + OVERLAY_SLACK
    print("  installer: the overlay adds %d bytes (%s) to the installer's initramfs; the "
          "certificates are %d bytes: %s over them (goal <= certificates + 8 KiB = %d: %s)"
          % (size, kib(size), certificates, signed_kib(size - certificates), goal,
             "met" if size <= goal else "not met"))
    print("    the overlay holds (uncompressed): %s" % ", ".join(
        "%s %d (%s)" % (kind, count, kib(total)) for kind, (count, total) in sorted(
            kinds.items())))


def print_target(compress, dropin, items, modules, item_sizes, sizes, files, times):
    dropin_lines = [line for line in dropin.splitlines() if not line.startswith("#")]
    print("  installed system: drop-in %s" % " | ".join(dropin_lines))
    added_by_dropin = sorted(set(files["C"]) - set(files["A"]))
    beyond_modules = sorted(set(files["C"]) - set(files["B"]))
    resolver = sorted(set(files["B"]) - set(files["A"]))
    named = {item.lstrip("/") for item in items}
    unnamed = [path for path in beyond_modules if path not in named]
    items_bytes = sum(item_sizes.values())
    resolver_bytes = sum(files["B"][path] for path in resolver)
    added_bytes = sum(files["C"][path] for path in added_by_dropin)
    print("    A without the drop-in %d bytes, B without it + %s by hand %d, C with it %d "
          "(compressed by dracut --compress=%s)" % (
              sizes["A"], " ".join(modules) or "no module", sizes["B"], sizes["C"], compress))
    print("    C - A: %s compressed; %d files, %d bytes uncompressed (%s)" % (
        signed_kib(sizes["C"] - sizes["A"]), len(added_by_dropin), added_bytes,
        ", ".join(added_by_dropin[:8]) + (" ..." if len(added_by_dropin) > 8 else "")))
    print("    the resolver it names (B - A): %d files, %d bytes uncompressed, %s "
          "compressed%s" % (len(resolver), resolver_bytes, signed_kib(sizes["B"] - sizes["A"]),
                            "" if modules else " (it names no module present here)"))
    print("    the files it names: %s: %d bytes" % (", ".join(
        "%s %d" % (item, item_sizes.get(item, -1)) for item in items), items_bytes))
    goal = items_bytes + resolver_bytes
    met = not unnamed and added_bytes <= goal
    print("    goal: C - A <= the files it names + the resolver it names (%d bytes "
          "uncompressed): %d, %s%s" % (goal, added_bytes, "met" if met else "not met",
                                       "; unnamed files beyond its modules: " +
                                       ", ".join(unnamed) if unnamed else ""))
    ratios = [c / a for a, c in zip(times["A"], times["C"])]
    print("    dracut: with the drop-in median %.2f s, without %.2f s over %d pairs; "
          "ratio, median of the pairs %.2f (from %.2f to %.2f), difference %+.2f s" % (
              statistics.median(times["C"]), statistics.median(times["A"]), len(ratios),
              statistics.median(ratios), min(ratios), max(ratios),
              statistics.median(times["C"]) - statistics.median(times["A"])))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3,
                        help="dracut pairs (with, without the drop-in) per kickstart")
    parser.add_argument("--certificates", type=int, default=1000)
    parser.add_argument("--kickstart", action="append", default=[], choices=KICKSTARTS,
                        help="only this kickstart (repeatable; default: all three)")
    parser.add_argument("--compress", default="zstd",
                        help="dracut's --compress (default zstd, dracut's zstd -15, as "
                        "the images are built; the test of this benchmark gives a faster "
                        "level: the byte goals are on uncompressed bytes)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        cannot_run("it needs root (dracut in an overlay of the trixie tree)")
    from benchmarks.whole_process import certificates_kickstart
    from lab.vmlab import debian_tree, initramfs

    tree = debian_tree.tree_path("trixie")
    if not (tree / "usr/bin/dracut").exists():
        cannot_run("no trixie tree at %s (make trixie-tree)" % tree)
    dnsconfd = os.environ.get("DNSCONFD_ROOT")
    started = time.monotonic()
    print("initramfs benchmark: trixie tree %s (dracut %s)%s" % (
        tree, debian_tree.package_version(tree, "dracut"),
        ", dnsconfd from DNSCONFD_ROOT=%s" % dnsconfd if dnsconfd else
        ", no DNSCONFD_ROOT: the dnsconfd backend's drop-in names no resolver module here"))
    with tempfile.TemporaryDirectory(prefix="edns-bench-initramfs.",
                                     dir=str(tree.parent)) as scratch:
        directory = Path(scratch)
        lab_layers = [initramfs.lab_layer(directory / "lab-modules")] + (
            [Path(dnsconfd)] if dnsconfd else [])
        example_unbound = directory / "corp-dot-unbound.ks"
        example_unbound.write_text(EXAMPLE.read_text().replace("--backend=dnsconfd",
                                                               "--backend=unbound"))
        many = directory / ("certificates-%d.ks" % args.certificates)
        certificates_kickstart(many, args.certificates)
        example = directory / "corp-dot.ks"
        shutil.copy(EXAMPLE, example)
        for key, kickstart, title in (
                ("example", example, "the example, data/examples/corp-dot.ks "
                 "(--backend=dnsconfd)"),
                ("example-unbound", example_unbound, "the example with --backend=unbound"),
                ("certificates", many, "%d %%certificate sections (dnsconfd)"
                 % args.certificates)):
            if args.kickstart and key not in args.kickstart:
                continue
            print("\n%s" % title)
            print_overlay(*overlay_figures(kickstart, directory))
            print_target(args.compress, *target_figures(tree, lab_layers, kickstart,
                                                        directory, args.runs, args.compress))
    print("\ninitramfs benchmark: %.0f s" % (time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
