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

"""A stand-in for the installer's stage 2: a Debian tree's root the lab initramfs switches into.

What matters of Anaconda's stage 2 for encrypted DNS, and nothing of ours: its
own NetworkManager (the tree's; started after switch-root, on the ``/run`` the
initramfs leaves: nm-initrd-generator's ``16-*.conf``), dnsconfd and Unbound
when DNSCONFD_ROOT is given (enabled, as anaconda-dnsconfd.sh enables it at
pre-pivot), the import of the initramfs's ``%certificate`` dump before
NetworkManager (as anaconda-import-initramfs-certs.service), Python with the
addon's libraries so that the installer phase can run there as
``ConfigureWithTasks`` runs it, and the proof runner. An ext4 image made of
that tree (``mkfs.ext4 -d``) is the guest's /dev/vda, booted with
``snapshot=on`` so the image stays as it was made.

The Python packages come from Debian's archive (apt, in an overlay over the
tree; cached beside the tree by the package list); pykickstart, which Debian
does not package, is this machine's own installed copy (pure Python).
"""

import hashlib
import shutil
import tempfile
from pathlib import Path

from lab.vmlab import debian_tree, initramfs

LAB = Path(__file__).resolve().parent
STAGE2_FILES = LAB / "stage2"
PROOF_MODULE = LAB / "dracut" / "99edns-lab-proof"
UNBOUND_MODULE = LAB / "dracut" / "70unbound"
# python3-librepo: the library of Anaconda's payload, which fetches the repository's
# metadata in the start-up window (stage2/edns-librepo-fetch.py).
PYTHON_PACKAGES = ("python3", "python3-cryptography", "python3-dnspython", "python3-idna",
                   "python3-requests", "python3-librepo")
LIBREPO_FETCH = "/usr/lib/edns-proof/edns-librepo-fetch.py"
APT_SECONDS = 900
IMAGE_SECONDS = 600
IMAGE_SIZE = "1500M"
SITE_PACKAGES = "usr/lib/python3/dist-packages"
# Debian enables these at installation; an installer image does not run them: a
# recursive Unbound on 127.0.0.1 would ask the root servers in plaintext, and a getty on
# the serial console (console=ttyS0) would hang up the proof's output there.
MASKED_UNITS = ("unbound.service", "unbound-resolvconf.service",
                "serial-getty@ttyS0.service", "getty@tty1.service")


class Stage2Error(Exception):
    """The stage-2 root could not be made; the message has the tool's output."""


def python_layer(tree, log=print):
    """The cached layer with Debian's Python and the addon's libraries over TREE."""
    key = hashlib.sha256((debian_tree.tree_recipe(tree) + " ".join(PYTHON_PACKAGES)).encode())
    layer = initramfs.image_cache(tree) / ("stage2-python-%s" % key.hexdigest()[:16])
    if (layer / ".done").exists():
        return layer
    building = layer.with_name(layer.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    script = ("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
              "--no-install-recommends %s" % " ".join(PYTHON_PACKAGES))
    with tempfile.TemporaryDirectory(prefix="edns-stage2-out.") as out:
        result = initramfs.run_in_overlay(tree, [], ["sh", "-c", script], out, upper=building,
                                          timeout=APT_SECONDS)
    if result.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        raise Stage2Error("apt-get in the tree failed: %s" % (
            result.stdout + result.stderr)[-3000:])
    # Only what the packages installed: apt's lists and caches stay out of the image.
    for transient in ("var/lib/apt/lists", "var/cache/apt", "var/log"):
        shutil.rmtree(building / transient, ignore_errors=True)
    (building / ".done").write_text(" ".join(PYTHON_PACKAGES) + "\n")
    building.rename(layer)
    log("  built the stage-2 Python layer %s" % layer.name)
    return layer


def lab_layer(stage, repo, dnsconfd):
    """The stage-2 root's own files: the proof runner, the certificate import, the
    addon and pykickstart, Unbound as Fedora configures it, and the units' state."""
    import pykickstart

    stage = Path(stage)
    units = stage / "etc/systemd/system"
    wants = units / "multi-user.target.wants"
    wants.mkdir(parents=True)
    for unit in ("edns-lab-import-certs.service", "edns-lab-stage2.service"):
        shutil.copy(STAGE2_FILES / unit, units / unit)
        (wants / unit).symlink_to("../%s" % unit)
    for unit in MASKED_UNITS:
        (units / unit).symlink_to("/dev/null")
    proof_dir = stage / "usr/lib/edns-proof"
    proof_dir.mkdir(parents=True)
    shutil.copy(PROOF_MODULE / "edns-proof.sh", proof_dir / "edns-proof.sh")
    shutil.copy(STAGE2_FILES / "edns-librepo-fetch.py", stage / LIBREPO_FETCH.lstrip("/"))
    site_packages = stage / SITE_PACKAGES
    site_packages.mkdir(parents=True)
    shutil.copytree(Path(pykickstart.__file__).parent, site_packages / "pykickstart",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(Path(repo) / "org_edns_addon", site_packages / "org_edns_addon",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # NetworkManager manages resolv.conf; the tree's copy of this machine's is not stage 2's.
    (stage / "etc/resolv.conf").write_text("")
    # The system trust where Fedora has it, dnsconfd's second default CA bundle (trixie's
    # is /etc/ssl/certs/ca-certificates.crt). Without either of its bundles dnsconfd fails
    # after starting Unbound, which then recurses from the root servers in plaintext.
    pem = stage / "etc/pki/ca-trust/extracted/pem"
    pem.mkdir(parents=True)
    (pem / "tls-ca-bundle.pem").symlink_to("/etc/ssl/certs/ca-certificates.crt")
    if dnsconfd:
        # Unbound as Fedora has it, which dnsconfd starts itself (the lab's initramfs
        # module's files); dnsconfd enabled as anaconda-dnsconfd.sh enables it.
        (stage / "etc/unbound").mkdir(parents=True)
        shutil.copy(UNBOUND_MODULE / "unbound.conf", stage / "etc/unbound/unbound.conf")
        # Fedora's unbound ships it; dnsconfd-prepare links it into conf.d.
        as112 = stage / "usr/share/unbound/conf.d"
        as112.mkdir(parents=True)
        shutil.copy(UNBOUND_MODULE / "unbound-as112-networks.conf", as112)
        (units / "unbound.service").unlink()
        shutil.copy(UNBOUND_MODULE / "unbound.service", units / "unbound.service")
        (wants / "dnsconfd.service").symlink_to("/usr/lib/systemd/system/dnsconfd.service")
    return stage


def root_image(tree, repo, dnsconfd, out_path, log=print):
    """The stage-2 root as an ext4 image at OUT_PATH (raw); returns OUT_PATH."""
    out_path = Path(out_path)
    python = python_layer(tree, log=log)
    with tempfile.TemporaryDirectory(prefix="edns-stage2-lab.") as stage:
        layer = lab_layer(Path(stage) / "layer", repo, dnsconfd)
        layers = [layer] + ([Path(dnsconfd)] if dnsconfd else []) + [python]
        if out_path.exists():
            out_path.unlink()
        result = initramfs.run_in_overlay(
            tree, layers, ["--host", "sh", "-c", 'mkfs.ext4 -q -F -L edns-stage2 -d '
                           '"$EDNS_MERGED" "$0" %s' % IMAGE_SIZE, str(out_path)],
            out_path.parent, timeout=IMAGE_SECONDS)
    if result.returncode != 0 or not out_path.exists():
        raise Stage2Error("mkfs.ext4 -d failed: %s" % (result.stdout + result.stderr)[-3000:])
    return out_path
