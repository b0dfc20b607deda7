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

"""A Debian 13 (trixie) tree with the real stack, built once and cached outside the repository.

The tree holds what the addon meets in the installer and the installed
system: kernel 6.12, dracut 106 (+ dracut-network's NetworkManager module),
NetworkManager 1.52 with ``nm-initrd-generator``, Unbound, systemd, and the
clients the proofs run inside a guest. ``mmdebstrap --variant=apt`` builds
it from the Debian archive this machine's apt already uses (read from its
sources at run time; they are never changed). A second call with the same
package list returns at once.

    python3 -m lab.vmlab.trixie_tree [--print-path]
"""

import fcntl
import glob
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

TREE_ENV = "EDNS_TRIXIE_TREE"
DEFAULT_TREE = "/var/cache/edns-addon/trixie"
SUITE = "trixie"
# The longest a tree build may take (downloads included) before it is given up.
BUILD_SECONDS = 1500
PACKAGES = (
    # The stack under test.
    "linux-image-amd64", "dracut", "dracut-network", "network-manager", "unbound",
    "systemd", "udev", "dbus", "kmod",
    # Clients and tools the proofs run in a guest or in the tree.
    "iproute2", "curl", "openssl", "ca-certificates", "cpio", "zstd", "procps",
    # What an installed dnsconfd (DNSCONFD_ROOT, built elsewhere) links against.
    "libglib2.0-0t64", "libjansson4", "liburiparser1", "libyaml-0-2", "libidn2-0",
    "libsystemd0",
)
# Documentation, manuals and translations are never read here; leaving them out
# makes the tree smaller and quicker to build.
DPKG_EXCLUDES = ("/usr/share/doc/*", "/usr/share/man/*", "/usr/share/locale/*",
                 "/usr/share/info/*")
STAMP = ".edns-trixie-tree"
# Bump when the recipe changes in a way the package list does not show.
RECIPE_VERSION = "1"

_ONE_LINE_DEB = re.compile(r"^\s*deb\s+(\[[^\]]*\]\s+)?(?P<uri>\S+)\s+(?P<suite>\S+)")


class TreeUnavailable(Exception):
    """The tree cannot be built here; the message says why."""


def tree_path():
    """Where the tree is (or will be): $EDNS_TRIXIE_TREE, else the default cache."""
    return Path(os.environ.get(TREE_ENV) or DEFAULT_TREE)


def _source_entries(etc="/etc/apt"):
    """(uri, suite) of every ``deb`` entry of the host's apt sources, in apt's order."""
    found = []
    one_line = [os.path.join(etc, "sources.list")] + sorted(
        glob.glob(os.path.join(etc, "sources.list.d", "*.list")))
    for path in one_line:
        try:
            lines = Path(path).read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            match = _ONE_LINE_DEB.match(line)
            if match:
                found.append((match.group("uri"), match.group("suite")))
    for path in sorted(glob.glob(os.path.join(etc, "sources.list.d", "*.sources"))):
        try:
            stanzas = Path(path).read_text().split("\n\n")
        except OSError:
            continue
        for stanza in stanzas:
            fields = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line or line[:1].isspace():
                    continue
                key, value = line.split(":", 1)
                fields[key.strip().lower()] = value.split()
            if "deb" not in fields.get("types", []) or \
                    fields.get("enabled", ["yes"])[0].lower() == "no":
                continue
            for uri in fields.get("uris", []):
                for suite in fields.get("suites", []):
                    found.append((uri, suite))
    return found


def host_debian_mirror(etc="/etc/apt"):
    """The Debian archive URL this machine's apt uses (not its security or updates archive)."""
    for uri, suite in _source_entries(etc):
        if re.fullmatch(r"[a-z]+", suite) and "security" not in uri:
            return uri.rstrip("/")
    raise TreeUnavailable("no Debian archive in %s/sources.list or %s/sources.list.d/: the "
                          "trixie tree is built from the archive apt already uses" % (etc, etc))


def _recipe():
    return "recipe %s\nsuite %s\npackages %s\nexcludes %s\n" % (
        RECIPE_VERSION, SUITE, " ".join(PACKAGES), " ".join(DPKG_EXCLUDES))


def is_built(tree=None):
    tree = Path(tree or tree_path())
    try:
        return (tree / STAMP).read_text() == _recipe()
    except OSError:
        return False


def ensure_tree(tree=None, log=print):
    """The built tree's path; builds it first unless a tree of this recipe is there.

    Raises TreeUnavailable, saying why, when it cannot be built.
    """
    tree = Path(tree or tree_path())
    if is_built(tree):
        return tree
    tree.parent.mkdir(parents=True, exist_ok=True)
    # One builder at a time (two test runs on one machine); the second finds it built.
    with open(tree.parent / (".%s.lock" % tree.name), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_built(tree):
            return tree
        return _build(tree, log)


def _build(tree, log):
    if os.geteuid() != 0:
        raise TreeUnavailable("building the trixie tree needs root (mmdebstrap in root mode)")
    if shutil.which("mmdebstrap") is None:
        raise TreeUnavailable("mmdebstrap is not installed (make setup installs it)")
    mirror = host_debian_mirror()
    building = tree.with_name(tree.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    argv = ["mmdebstrap", "--variant=apt", "--mode=root", "--quiet",
            "--include=" + ",".join(PACKAGES),
            "--aptopt=Acquire::Retries \"3\"",
            # No initramfs while packages install: the lab builds its own images.
            "--essential-hook=mkdir -p \"$1/etc/dracut.conf.d\"",
            "--customize-hook=rm -f \"$1\"/boot/initrd.img-*"]
    argv += ["--dpkgopt=path-exclude=%s" % pattern for pattern in DPKG_EXCLUDES]
    argv += [SUITE, str(building), mirror]
    log("trixie tree: building %s from %s (once; a few minutes)" % (tree, mirror))
    started = time.monotonic()
    env = dict(os.environ, INITRD="No", DEBIAN_FRONTEND="noninteractive")
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=BUILD_SECONDS,
                                env=env)
    except subprocess.TimeoutExpired:
        shutil.rmtree(building, ignore_errors=True)
        raise TreeUnavailable("mmdebstrap did not finish within %d s" % BUILD_SECONDS) from None
    if result.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        raise TreeUnavailable("mmdebstrap failed (exit %d): %s" % (
            result.returncode, (result.stderr or result.stdout).strip()[-2000:]))
    (building / STAMP).write_text(_recipe())
    if tree.exists():
        shutil.rmtree(tree)
    building.rename(tree)
    log("trixie tree: built in %.0f s" % (time.monotonic() - started))
    return tree


def package_version(tree, package):
    """The version of PACKAGE installed in TREE (from its dpkg status)."""
    status = (Path(tree) / "var/lib/dpkg/status").read_text()
    for stanza in status.split("\n\n"):
        if re.search(r"^Package: %s$" % re.escape(package), stanza, re.MULTILINE):
            match = re.search(r"^Version: (\S+)$", stanza, re.MULTILINE)
            return match.group(1) if match else None
    return None


def kernel_release(tree):
    """The release of the kernel in TREE (its /lib/modules directory name)."""
    releases = sorted(os.listdir(Path(tree) / "usr/lib/modules"))
    if not releases:
        raise TreeUnavailable("%s has no kernel modules" % tree)
    return releases[-1]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        tree = ensure_tree(log=lambda text: print(text, file=sys.stderr))
    except TreeUnavailable as error:
        print("trixie tree: %s" % error, file=sys.stderr)
        return 1
    if "--print-path" in argv:
        print(tree)
    else:
        print("trixie tree: %s (NetworkManager %s, dracut %s, unbound %s, kernel %s)" % (
            tree, package_version(tree, "network-manager"), package_version(tree, "dracut"),
            package_version(tree, "unbound"), kernel_release(tree)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
