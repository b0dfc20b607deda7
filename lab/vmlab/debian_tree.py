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

"""The Debian trees with the real stack, built once each and cached outside the repository.

Two generations of what the addon meets in the installer and the installed
system, one recipe with the suite as its parameter:

- ``trixie`` (Debian 13): kernel 6.12, dracut 106, NetworkManager 1.52, systemd 257;
- ``forky`` (testing): kernel 6.17 and on, dracut 110 and on, NetworkManager 1.58
  and on, systemd 258 and on (docs/proofs.md has the versions a build really got).

Each holds the kernel, dracut (+ dracut-network's NetworkManager module),
NetworkManager with ``nm-initrd-generator``, Unbound, systemd, and the clients
the proofs run inside a guest. ``mmdebstrap --variant=apt`` builds it from the
Debian archive this machine's apt already uses (read from its sources at run
time; they are never changed). A second call with the same package list
returns at once.

    python3 -m lab.vmlab.debian_tree [SUITE] [--print-path]

SUITE defaults to $EDNS_TREE, else trixie; where a tree lives: $EDNS_TRIXIE_TREE
or $EDNS_FORKY_TREE, else /var/cache/edns-addon/SUITE.
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

# Which tree a run boots or judges with (make vm-proof, make forky-tree).
SELECT_ENV = "EDNS_TREE"
SUITES = ("trixie", "forky")
DEFAULT_SUITE = "trixie"
CACHE = "/var/cache/edns-addon"
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
# Bump when the recipe changes in a way the package list does not show.
RECIPE_VERSION = "1"
# The archive's Release files carry a Valid-Until date, which a snapshot of it passes
# (testing's is a week after its date); apt then refuses the suite. Only apt's check of
# that date is turned off: the files are still verified against the archive's key.
APT_OPTIONS = ('Acquire::Retries "3"', 'Acquire::Check-Valid-Until "false"')

_ONE_LINE_DEB = re.compile(r"^\s*deb\s+(\[[^\]]*\]\s+)?(?P<uri>\S+)\s+(?P<suite>\S+)")


class TreeUnavailable(Exception):
    """The tree cannot be built here; the message says why."""


def selected_suite():
    """The suite named by $EDNS_TREE (default trixie); a TreeUnavailable if unknown."""
    suite = os.environ.get(SELECT_ENV) or DEFAULT_SUITE
    if suite not in SUITES:
        raise TreeUnavailable("%s=%s: the trees are %s" % (SELECT_ENV, suite, ", ".join(SUITES)))
    return suite


def tree_env(suite):
    """The variable that names where SUITE's tree is: EDNS_TRIXIE_TREE, EDNS_FORKY_TREE."""
    return "EDNS_%s_TREE" % suite.upper()


def tree_path(suite=DEFAULT_SUITE):
    """Where SUITE's tree is (or will be): its variable, else the default cache."""
    return Path(os.environ.get(tree_env(suite)) or os.path.join(CACHE, suite))


def _stamp(suite):
    return ".edns-%s-tree" % suite


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
                          "trees are built from the archive apt already uses" % (etc, etc))


def recipe(suite):
    """What a tree of SUITE is made of, as its stamp file holds it."""
    return "recipe %s\nsuite %s\npackages %s\nexcludes %s\n" % (
        RECIPE_VERSION, suite, " ".join(PACKAGES), " ".join(DPKG_EXCLUDES))


def tree_recipe(tree):
    """The recipe a built TREE was made of (its stamp), whatever its suite."""
    for stamp in sorted(Path(tree).glob(_stamp("*"))):
        return stamp.read_text()
    raise TreeUnavailable("%s is not a built tree (no %s)" % (tree, _stamp("SUITE")))


def is_built(suite, tree=None):
    tree = Path(tree or tree_path(suite))
    try:
        return (tree / _stamp(suite)).read_text() == recipe(suite)
    except OSError:
        return False


def ensure_tree(suite=DEFAULT_SUITE, tree=None, log=print):
    """The built tree of SUITE; builds it first unless a tree of this recipe is there.

    Raises TreeUnavailable, saying why, when it cannot be built.
    """
    if suite not in SUITES:
        raise TreeUnavailable("no tree %s: the trees are %s" % (suite, ", ".join(SUITES)))
    tree = Path(tree or tree_path(suite))
    if is_built(suite, tree):
        return tree
    tree.parent.mkdir(parents=True, exist_ok=True)
    # One builder at a time (two test runs on one machine); the second finds it built.
    with open(tree.parent / (".%s.lock" % tree.name), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_built(suite, tree):
            return tree
        return _build(suite, tree, log)


def _build(suite, tree, log):
    if os.geteuid() != 0:
        raise TreeUnavailable("building the %s tree needs root (mmdebstrap in root mode)"
                              % suite)
    if shutil.which("mmdebstrap") is None:
        raise TreeUnavailable("mmdebstrap is not installed (make setup installs it)")
    mirror = host_debian_mirror()
    building = tree.with_name(tree.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    argv = ["mmdebstrap", "--variant=apt", "--mode=root", "--quiet",
            "--include=" + ",".join(PACKAGES),
            # No initramfs while packages install: the lab builds its own images.
            "--essential-hook=mkdir -p \"$1/etc/dracut.conf.d\"",
            "--customize-hook=rm -f \"$1\"/boot/initrd.img-*"]
    argv += ["--aptopt=%s" % option for option in APT_OPTIONS]
    argv += ["--dpkgopt=path-exclude=%s" % pattern for pattern in DPKG_EXCLUDES]
    argv += [suite, str(building), mirror]
    log("%s tree: building %s from %s (once; a few minutes)" % (suite, tree, mirror))
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
    (building / _stamp(suite)).write_text(recipe(suite))
    if tree.exists():
        shutil.rmtree(tree)
    building.rename(tree)
    log("%s tree: built in %.0f s" % (suite, time.monotonic() - started))
    return tree


def package_version(tree, package):
    """The version of PACKAGE installed in TREE, as the tree's dpkg database says
    (``dpkg-query --admindir``); None if it is not installed."""
    result = subprocess.run(["dpkg-query", "--admindir=%s" % (Path(tree) / "var/lib/dpkg"),
                             "--show", "--showformat=${db:Status-Abbrev}${Version}", package],
                            capture_output=True, text=True, timeout=60)
    status, _, version = result.stdout.partition(" ")
    if result.returncode != 0 or not status.startswith("ii"):
        return None
    return version.strip()


def kernel_release(tree):
    """The release of the kernel in TREE (its /lib/modules directory name)."""
    releases = sorted(os.listdir(Path(tree) / "usr/lib/modules"))
    if not releases:
        raise TreeUnavailable("%s has no kernel modules" % tree)
    return releases[-1]


# What a proof or a test says of a tree: these packages' versions and the kernel's.
STACK = ("network-manager", "dracut", "systemd", "unbound")


def stack_versions(tree):
    """{what: version} of the stack in TREE: its packages (STACK) and its kernel."""
    versions = {package: package_version(tree, package) for package in STACK}
    versions["kernel"] = kernel_release(tree)
    return versions


def describe(tree):
    """One line naming the stack's versions in TREE."""
    return ", ".join("%s %s" % item for item in stack_versions(tree).items())


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    names = [arg for arg in argv if not arg.startswith("-")]
    try:
        suite = names[0] if names else selected_suite()
        tree = ensure_tree(suite, log=lambda text: print(text, file=sys.stderr))
    except TreeUnavailable as error:
        print("debian tree: %s" % error, file=sys.stderr)
        return 1
    if "--print-path" in argv:
        print(tree)
    else:
        print("%s tree: %s (%s)" % (suite, tree, describe(tree)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
