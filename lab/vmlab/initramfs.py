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

"""dracut images built from a Debian tree (+ lab modules, + an installed dnsconfd).

Every build runs the tree's own dracut chrooted in an overlay (``in-overlay.sh``):
the lower layers are the lab's dracut modules, DNSCONFD_ROOT if given, and the
tree; a staged target's files (``edns-addon apply --root``) can be one more
layer. Images are cached outside the repository by the hash of what went in.
"""

import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from lab.vmlab import debian_tree

LAB = Path(__file__).resolve().parent
IN_OVERLAY = LAB / "in-overlay.sh"
LAB_MODULES = LAB / "dracut"
DRACUT_SECONDS = 600
# The installer's kind of initramfs: systemd with dracut's hooks (without
# dracut-systemd nm-initrd-generator never runs), NetworkManager, D-Bus.
INSTALLER_MODULES = ("base", "systemd", "systemd-initrd", "dracut-systemd", "dbus",
                     "network-manager", "edns-lab-proof")
# What DoT needs in it: dnsconfd (its module pulls in unbound and systemd-sysusers),
# and the users created after those modules (98edns-lab-sysusers).
DNSCONFD_MODULES = ("dnsconfd", "unbound", "edns-lab-sysusers")
# virtio_blk and ext4: the stage-2 case switches root into an ext4 image on a virtio disk.
GUEST_DRIVERS = ("virtio_net", "virtio_pci", "virtio_blk", "ext4")


class ImageError(Exception):
    """dracut failed; the message has its output."""


def image_cache(tree):
    """Where images made from TREE are kept (beside it; the key of each names its tree)."""
    return Path(tree).parent / "images"


def lab_layer(stage):
    """A layer with the lab's dracut modules at the tree's modules.d path."""
    target = stage / "usr/lib/dracut/modules.d"
    target.mkdir(parents=True)
    for module in sorted(LAB_MODULES.iterdir()):
        if module.is_dir():
            shutil.copytree(module, target / module.name)
    return stage


def _digest(paths, extra=""):
    digest = hashlib.sha256(extra.encode())
    for base in paths:
        base = Path(base)
        for path in sorted(base.rglob("*")):
            digest.update(str(path.relative_to(base)).encode())
            if path.is_file() and not path.is_symlink():
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def run_in_overlay(tree, layers, argv, out_dir, upper=None, timeout=DRACUT_SECONDS):
    """Run ARGV chrooted in LAYERS (top first) over TREE; OUT_DIR is /run/edns-out inside.

    UPPER, if given, receives every write (else a throw-away directory).
    """
    scratch = Path(tempfile.mkdtemp(prefix="edns-overlay."))
    try:
        upper = Path(upper) if upper else scratch / "upper"
        upper.mkdir(parents=True, exist_ok=True)
        (scratch / "work").mkdir()
        (scratch / "merged").mkdir()
        lower = ":".join(str(layer) for layer in list(layers) + [tree])
        return subprocess.run(
            ["unshare", "--mount", "--pid", "--fork", "--propagation", "private", "sh",
             str(IN_OVERLAY), str(upper), str(scratch / "work"), str(scratch / "merged"),
             lower, str(out_dir)] + list(argv),
            capture_output=True, text=True, timeout=timeout)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def dracut(tree, layers, out_path, modules=None, add=(), kernel_options=(), upper=None,
           compress="zstd"):
    """Build OUT_PATH with the tree's dracut in LAYERS over TREE; return seconds taken.
    COMPRESS is dracut's --compress: a program, with its options if any ("zstd" is dracut's
    own zstd -15)."""
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    argv = ["dracut", "--force", "--no-hostonly", "--no-hostonly-cmdline", "--quiet",
            "--compress=" + compress, "--kver", debian_tree.kernel_release(tree),
            "--add-drivers", " ".join(GUEST_DRIVERS)]
    if modules is not None:
        argv += ["--modules", " ".join(modules)]
    if add:
        argv += ["--add", " ".join(add)]
    if kernel_options:
        argv += ["--kernel-cmdline", " ".join(kernel_options)]
    argv.append("/run/edns-out/" + out_path.name)
    started = time.monotonic()
    result = run_in_overlay(tree, layers, argv, out_path.parent, upper=upper)
    if result.returncode != 0 or not out_path.exists():
        raise ImageError("dracut failed (exit %d):\n%s" % (result.returncode,
                                                           (result.stdout + result.stderr)[-4000:]))
    return time.monotonic() - started


def installer_image(tree, dnsconfd_root=None, log=print):
    """The cached installer-style image: NetworkManager, dnsconfd if DNSCONFD_ROOT is given."""
    layers = [Path(dnsconfd_root)] if dnsconfd_root else []
    modules = INSTALLER_MODULES + (DNSCONFD_MODULES if dnsconfd_root else ())
    key = _digest([LAB_MODULES] + layers, debian_tree.tree_recipe(tree) + " ".join(modules))
    path = image_cache(tree) / ("installer-%s.img" % key)
    if path.exists():
        return path, 0.0
    building = path.with_name("%s.%d.building" % (path.name, os.getpid()))
    with tempfile.TemporaryDirectory(prefix="edns-lab-modules.") as stage:
        seconds = dracut(tree, [lab_layer(Path(stage) / "layer")] + layers, building,
                         modules=modules)
    os.replace(building, path)
    log("  built %s (%.1f MB) in %.0f s" % (path.name, path.stat().st_size / 1e6, seconds))
    return path, seconds


def lsinitrd(tree, image):
    """The paths inside IMAGE, as the tree's lsinitrd lists them."""
    image = Path(image)
    result = run_in_overlay(tree, [], ["lsinitrd", "/run/edns-out/" + image.name],
                            image.parent, timeout=120)
    if result.returncode != 0:
        raise ImageError("lsinitrd failed: %s" % result.stderr[-2000:])
    return result.stdout


def lsinitrd_file(tree, image, path):
    """The content of PATH inside IMAGE (lsinitrd -f)."""
    image = Path(image)
    result = run_in_overlay(tree, [], ["lsinitrd", "-f", path.lstrip("/"),
                                       "/run/edns-out/" + image.name],
                            image.parent, timeout=120)
    return result.stdout
