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

"""An apply stopped in the middle of replacing files, its disk filled, then interrupted.

Run inside a private mount namespace (it mounts a small tmpfs), as
``python3 -m tests.interrupted_apply MOUNTPOINT OLD_KS NEW_KS VARIANT``; prints one
JSON object for the test to judge. VARIANT ``full-disk`` fills the filesystem
while the apply is stopped; ``lose-a-backup`` also removes the second name that
apply keeps of one old file. Then SIGTERM, SIGCONT: the roll-back runs on a
full disk.
"""

import errno
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from org_edns_addon.fileio import TEMPORARY_NAME

OWNER = (1234, 5678)
XATTR = "user.edns-test"
ATTEMPTS = 20


def cli(*args):
    return [sys.executable, "-m", "org_edns_addon.cli", *map(str, args)]


def identity(path):
    """What must survive a roll-back: inode, owner, mode, links, xattr, content."""
    info = os.lstat(path)
    try:
        xattr = os.getxattr(path, XATTR, follow_symlinks=False).decode()
    except OSError:
        xattr = None
    with open(path, "rb") as stream:
        digest = hashlib.sha256(stream.read()).hexdigest()
    return {"ino": info.st_ino, "owner": [info.st_uid, info.st_gid], "mode": info.st_mode,
            "nlink": info.st_nlink, "xattr": xattr, "sha256": digest}


def files_below(root):
    return sorted(os.path.join(d, f) for d, _, files in os.walk(root) for f in files)


def prepare(root, old_ks):
    """ROOT with OLD_KS applied, every file owned by OWNER with an xattr, the first
    certificate with a second hard link; returns (xattr refusal or None, first cert)."""
    shutil.rmtree(root, ignore_errors=True)
    os.mkdir(root)
    subprocess.run(cli("apply", old_ks, "--root", root), check=True, capture_output=True)
    refusal = None
    for path in files_below(root):
        os.chown(path, *OWNER)
        try:
            os.setxattr(path, XATTR, b"old " + os.path.basename(path).encode())
        except OSError as error:
            refusal = error.strerror
    certificates = sorted(p for p in files_below(root) if p.endswith(".pem")
                          and "/etc/pki/dns/c" in p)
    os.mkdir(os.path.join(root, "keep"))
    os.link(certificates[0], os.path.join(root, "keep", "second-name.pem"))
    return refusal, certificates[0]


def fill(directory):
    """Write until the filesystem is full; return the bytes written."""
    written = 0
    with open(os.path.join(directory, "fill"), "wb", buffering=0) as stream:
        block = b"\0" * 65536
        while True:
            try:
                written += stream.write(block)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
                try:
                    written += stream.write(b"\0" * 512)
                except OSError:
                    return written


def interrupt_apply(mountpoint, old_ks, new_ks, variant):
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", mountpoint], check=True)
    root = os.path.join(mountpoint, "root")
    report = {"attempts": 0}
    for attempt in range(ATTEMPTS):
        report["attempts"] = attempt + 1
        report["xattr_refused"], first = prepare(root, old_ks)
        old = {path: identity(path) for path in files_below(root)}
        process = subprocess.Popen(cli("apply", new_ks, "--root", root),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            try:
                if os.stat(first).st_ino != old[first]["ino"]:
                    break
            except FileNotFoundError:
                pass
        if process.poll() is None:
            os.kill(process.pid, signal.SIGSTOP)
        replaced = [path for path in old if os.path.exists(path)
                    and os.stat(path).st_ino != old[path]["ino"]]
        backups = [os.path.join(d, f) for d, _, files in os.walk(root) for f in files
                   if TEMPORARY_NAME.match(f)]
        certificates = [path for path in old if "/etc/pki/dns/c" in path]
        waiting = [path for path in certificates if path not in replaced]
        by_inode = {os.stat(path).st_ino: path for path in backups}
        # For lose-a-backup, a replaced file with its backup, not the one with a second
        # hard link (simpler to judge).
        losable = [path for path in replaced
                   if path != first and old[path]["ino"] in by_inode]
        if process.poll() is not None or not replaced or not backups or not waiting or \
                (variant == "lose-a-backup" and not losable):
            process.kill()
            process.communicate()
            continue    # not stopped between two of its replacements: again
        report["filled_bytes"] = fill(mountpoint)
        report["lost_backup_of"] = None
        if variant == "lose-a-backup":
            os.unlink(by_inode[old[losable[0]]["ino"]])
            report["lost_backup_of"] = losable[0]
        report["free_bytes_during_roll_back"] = shutil.disk_usage(mountpoint).free
        os.kill(process.pid, signal.SIGTERM)
        os.kill(process.pid, signal.SIGCONT)
        stdout, stderr = process.communicate(timeout=120)
        report.update(returncode=process.returncode, stdout=stdout.decode(),
                      stderr=stderr.decode(), replaced_when_stopped=replaced,
                      old=old, after={path: identity(path) for path in files_below(root)},
                      left=[path for path in files_below(root) if path not in old])
        break
    print(json.dumps(report))


if __name__ == "__main__":
    interrupt_apply(*sys.argv[1:])
