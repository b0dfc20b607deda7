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

"""The overlay's archive, built in memory: the bytes cpio made before, its file's mode,
deep and long names, and the same verdict as `validate` on every kickstart."""

import gzip
import hashlib
import os
import stat
import subprocess
import sys

import pytest

from lab.kickstarts import anchor_section, certificate_section, edns_kickstart, edns_section
from org_edns_addon import constants as c, initrd, packaging
from org_edns_addon.ks.reader import parse_kickstart
from org_edns_addon.staging import apply as staging_apply
from org_edns_addon.staging.plan import Phase, Plan, PlannedFile
from tests.conftest import REPO, run_cli
from tests.staging_fixtures import require_tools, walk_initramfs


def reference_plan():
    """Files of every shape the archive meets: modes, sizes around the 4-byte padding, an
    empty file, names that sort '-' before '/', a non-ASCII name, nested directories."""
    return Plan(Phase.INSTALLER, (
        PlannedFile("/edns-ks.cfg", b"text\nrootpw --plaintext secret\n%addon org_edns_addon\n"
                    b"%end\n", 0o600),
        PlannedFile("/etc/pki/dns/dns-ca.pem", bytes(range(256)) * 5 + b"end", 0o644),
        PlannedFile("/etc/pki/dns/extracted/pem/tls-ca-bundle.pem", b"bundle\n" * 77, 0o644),
        PlannedFile("/etc/pki/dns-x/a.pem", b"a", 0o644),
        PlannedFile("/etc/pki/dns/ca-\u00e9.pem", b"accent\n", 0o644),
        PlannedFile("/etc/NetworkManager/conf.d/60-edns-global-dns.conf",
                    b"[main]\ndns=dnsconfd\n", 0o644),
        PlannedFile("/etc/empty", b"", 0o644),
        PlannedFile("/etc/pki/dns/three.pem", b"abc", 0o600),
    ), ())


# sha256 of the archive that the tree + `cpio` implementation made of reference_plan()
# (commit d19aafd), before the archive was built in memory, and of its image: gzip'd
# with GzipFile's header, the same on every Python of the support matrix (the matrix
# runs this test on each).
REFERENCE_IMAGE_SHA256 = "72c95221b011c1b315daa14d1f945a6bcf4077e8b025f5d71ede1313e1322ed8"
REFERENCE_ARCHIVE_SHA256 = "5a91766ca08301b4d47430836db5b37bd415aff98fb2d82f1fbe1ece6534cdbf"


def test_the_archive_is_byte_for_byte_what_the_cpio_implementation_made():
    image = initrd.overlay_image(reference_plan())
    assert hashlib.sha256(gzip.decompress(image)).hexdigest() == REFERENCE_ARCHIVE_SHA256
    assert hashlib.sha256(image).hexdigest() == REFERENCE_IMAGE_SHA256


def cpio_of_tree(files, tree, left_out=()):
    """What the project made before: FILES written below TREE by apply, every time set to
    0, then `cpio --create --format=newc --owner=0:0 --reproducible` of the sorted names
    (but LEFT_OUT)."""
    staging_apply.apply_plan(Plan(Phase.INSTALLER, tuple(files), ()), str(tree))
    names = sorted(os.path.relpath(os.path.join(d, n), tree)
                   for d, subdirs, found in os.walk(tree) for n in subdirs + found)
    names = [name for name in names if name not in left_out]
    for name in reversed(names):
        os.utime(os.path.join(tree, name), (0, 0), follow_symlinks=False)
    return subprocess.run(["cpio", "--create", "--format=newc", "--owner=0:0", "--reproducible",
                           "--quiet", "--null"], input=b"".join(os.fsencode(n) + b"\0"
                                                               for n in names),
                          cwd=tree, capture_output=True, check=True, timeout=120).stdout


def test_the_overlay_of_a_kickstart_is_what_cpio_makes_of_its_files(write_ks, test_ca,
                                                                    tmp_path):
    require_tools("cpio")
    parsed = parse_kickstart(write_ks(edns_kickstart(test_ca.pem, spelling="%edns") +
                                      anchor_section(test_ca.pem, "other.pem")))
    plan = initrd.overlay_plan(parsed)
    (tmp_path / "tree").mkdir()
    assert initrd.newc_archive(plan.files) == cpio_of_tree(plan.files, tmp_path / "tree")


def test_the_overlay_image_leaves_out_the_directories_of_the_hook(write_ks, test_ca, tmp_path):
    # The image it lands on has them, as symlinks (initrd.IMAGE_DIRECTORIES).
    require_tools("cpio")
    plan = initrd.overlay_plan(parse_kickstart(write_ks(edns_kickstart(test_ca.pem))))
    (tmp_path / "tree").mkdir()
    made = cpio_of_tree(plan.files, tmp_path / "tree", left_out=initrd.IMAGE_DIRECTORIES)
    assert gzip.decompress(initrd.overlay_image(plan)) == made
    assert initrd.PRE_PIVOT_HOOK_PATHS[0].lstrip("/").encode() in made


def test_the_updates_image_is_what_cpio_makes_of_the_install_layout(tmp_path):
    require_tools("cpio")
    files = packaging.updates_image_files()
    (tmp_path / "tree").mkdir()
    assert gzip.decompress(packaging.updates_image()) == cpio_of_tree(files, tmp_path / "tree")


@pytest.mark.parametrize("paths, message", [
    (("/etc/a", "/etc/a"), "/etc/a is planned twice"),
    (("/etc/a", "/etc/a/b"), "/etc/a is planned as a file and as the directory of another file"),
    (("/etc/../x",), "'/etc/../x' is not a plain absolute path"),
])
def test_an_archive_that_cannot_be_unpacked_as_planned_is_refused(paths, message):
    with pytest.raises(initrd.OverlayError, match=message.replace("(", r"\(")):
        initrd.newc_archive([PlannedFile(path, b"x", 0o644) for path in paths])


# --- the image file: only its owner reads it ------------------------------------------------

@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
@pytest.mark.parametrize("kickstart_mode", [0o644, 0o600])
def test_the_overlay_image_is_written_0600_whatever_the_umask_and_kickstart_mode(
        write_ks, test_ca, tmp_path, umask, kickstart_mode):
    kickstart = write_ks(edns_kickstart(test_ca.pem, "--ca=dns-ca.pem") +
                         "rootpw --plaintext hunter2\n")
    os.chmod(kickstart, kickstart_mode)
    image = tmp_path / "overlay.img"
    image.write_bytes(b"an older image, readable by all\n")
    image.chmod(0o644)
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", "overlay", kickstart,
                             "-o", str(image)], preexec_fn=lambda: os.umask(umask),
                            capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(image.stat().st_mode) == 0o600
    assert b"rootpw --plaintext hunter2" in walk_initramfs(image.read_bytes())[
        "edns-ks.cfg"].data


# --- deep and long names ------------------------------------------------------------------

def test_a_certificate_dir_of_a_thousand_components_is_archived_without_recursion(
        write_ks, test_ca, tmp_path):
    deep = "/" + "/".join(["d"] * 1000) + "/"
    kickstart = write_ks(edns_kickstart(test_ca.pem, certificates=(
        certificate_section(test_ca.pem) + certificate_section(test_ca.pem, "deep.pem",
                                                               "--dir=" + deep))))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    image = tmp_path / "o.img"
    result = run_cli("overlay", kickstart, "-o", image, prefix=("env", "TMPDIR=%s" % temporary))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    entries = walk_initramfs(image.read_bytes())
    assert entries[deep.strip("/") + "/deep.pem"].data == test_ca.pem.encode()
    assert entries["d/" * 999 + "d"].mode == stat.S_IFDIR | 0o755
    assert list(temporary.iterdir()) == []


@pytest.mark.parametrize("length", [242, 255])
def test_a_certificate_file_name_of_up_to_255_bytes_is_archived(write_ks, test_ca, tmp_path,
                                                                length):
    name = "n" * (length - 4) + ".pem"
    kickstart = write_ks(edns_kickstart(test_ca.pem, "--ca=" + name, certificates=(
        certificate_section(test_ca.pem, name))))
    image = tmp_path / "o.img"
    result = run_cli("overlay", kickstart, "-o", image)
    assert result.returncode == 0, result.stderr
    assert walk_initramfs(image.read_bytes())["etc/pki/dns/" + name].data == \
        test_ca.pem.encode()


# --- apply and overlay say what validate says -------------------------------------------------

@pytest.mark.parametrize("character", ["\u00a0", "\u2028", "\u2029", "\u0085", "\u3000",
                                       "\ufeff"])
@pytest.mark.parametrize("where", ["before", "after", "inside"])
def test_unicode_whitespace_around_a_certificate_gets_one_verdict_from_every_command(
        write_ks, test_ca, tmp_path, character, where):
    lines = test_ca.pem.splitlines(keepends=True)
    if where == "before":
        body = character + test_ca.pem
    elif where == "after":
        body = test_ca.pem.rstrip("\n") + character + "\n"
    else:
        body = "".join(lines[:2]) + character + "".join(lines[2:])
    kickstart = write_ks(certificate_section(body) + edns_section(
        "dns+tls://192.0.2.53#dot.example", options="--ca=dns-ca.pem"))
    root = tmp_path / "root"
    root.mkdir()
    validated = run_cli("validate", kickstart)
    applied = run_cli("apply", kickstart, "--root", root)
    overlaid = run_cli("overlay", kickstart, "-o", tmp_path / "o.img")

    if (where, character) == ("before", "\ufeff"):
        # OpenSSL 3 drops a byte order mark on the first line it reads for a block
        # (crypto/pem/pem_lib.c sanitize_line): the CA is read, and staged without it.
        assert validated.returncode == applied.returncode == overlaid.returncode == 0
        assert (root / c.DOT_CA_BUNDLE_PATH.lstrip("/")).read_text() == test_ca.pem
        return
    assert validated.returncode == applied.returncode == overlaid.returncode == 1
    error = [line for line in validated.stdout.splitlines() if ": error: " in line]
    assert error and "non-ASCII character U+%04X" % ord(character) in error[0]
    for result in (applied, overlaid):
        assert "Traceback" not in result.stderr and "UnicodeEncodeError" not in result.stderr
        assert result.stderr.splitlines()[0] == error[0]
    assert list(root.iterdir()) == []
    assert not (tmp_path / "o.img").exists()

