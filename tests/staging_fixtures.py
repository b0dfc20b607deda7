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

"""Helpers of the staging and overlay tests: staging input, tree digests, real tools, namespaces,
and initramfs archives read the kernel's way."""

import configparser
import hashlib
import lzma
import os
import shutil
import stat
import subprocess
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from org_edns_addon.staging import StagingError, actions as staging_actions
from org_edns_addon import constants as c
from tests.ks_fixtures import parse


def staging_input(write_ks, text):
    """The StagingInput of kickstart TEXT (which must be free of errors)."""
    parsed = parse(write_ks(text))
    assert not parsed.errors, parsed.errors
    return parsed.staging_input()


def tree_digest(root):
    """{path below ROOT: (kind, mode, sha256 or link target)} of every entry."""
    root = Path(root)
    digest = {}
    for directory, subdirs, files in os.walk(root):
        for name in subdirs + files:
            path = Path(directory) / name
            info = path.lstat()
            relative = str(path.relative_to(root))
            if stat.S_ISLNK(info.st_mode):
                digest[relative] = ("link", 0, os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                digest[relative] = ("dir", stat.S_IMODE(info.st_mode), "")
            else:
                digest[relative] = ("file", stat.S_IMODE(info.st_mode),
                                    hashlib.sha256(path.read_bytes()).hexdigest())
    return digest


class RecordingRunner(staging_actions.CommandRunner):
    """Records every command instead of running it; fails those named in FAIL."""

    def __init__(self, fail=()):
        self.commands = []
        self.fail = fail

    def run(self, argv):
        self.commands.append(list(argv))
        if argv[0] in self.fail:
            raise StagingError("%s failed with exit code 1" % " ".join(argv))


def networkmanager_config(tmp_path, keyfile_bytes):
    """NetworkManager's own merged reading of KEYFILE_BYTES, as a ConfigParser."""
    directory = tmp_path / "nm-conf.d"
    empty = tmp_path / "nm-empty"
    directory.mkdir()
    empty.mkdir()
    (directory / "60-edns.conf").write_bytes(keyfile_bytes)
    main = tmp_path / "NetworkManager.conf"
    main.write_text("")
    result = subprocess.run(["NetworkManager", "--print-config", "--config=%s" % main,
                             "--config-dir=%s" % directory, "--system-config-dir=%s" % empty],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    printed = configparser.ConfigParser(interpolation=None, delimiters=("=",),
                                        comment_prefixes=("#",), strict=False)
    printed.optionxform = str
    printed.read_string(result.stdout)
    return printed


def unbound_checkconf(tmp_path, root, option=None, conf_d=False):
    """Run unbound-checkconf on a main config that includes ROOT's generated file (with
    CONF_D, every /etc/unbound/conf.d/*.conf of ROOT, as Fedora's unbound.conf does)."""
    main = tmp_path / "unbound.conf"
    include = Path(root) / (c.UNBOUND_CONF_DIR + "/*.conf" if conf_d
                            else c.UNBOUND_CONF_PATH).lstrip("/")
    main.write_text('server:\n    chroot: ""\n    username: ""\n    directory: "%s"\n'
                    '    pidfile: ""\ninclude: "%s"\n' % (root, include))
    argv = ["unbound-checkconf"] + (["-o", option] if option else []) + [str(main)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


def require_tools(*names):
    missing = [name for name in names if shutil.which(name) is None]
    if missing:
        pytest.skip("not installed: %s (run make setup)" % ", ".join(missing))


def require_namespaces(*kinds):
    """Skip unless this process may make private namespaces of KINDS (default: --mount)."""
    require_tools("unshare", "mount")
    kinds = kinds or ("--mount",)
    try:
        result = subprocess.run(["unshare", *kinds, "--propagation", "private", "true"],
                                capture_output=True, text=True, timeout=30)
    except OSError as error:
        pytest.skip("unshare cannot run: %s" % error)
    if result.returncode != 0:
        pytest.skip("unshare %s is not permitted here: %s" % (" ".join(kinds),
                                                              result.stderr.strip()))


def in_mount_namespace(script, timeout=600):
    """Run the shell SCRIPT in a private mount namespace; return the CompletedProcess."""
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-ec",
                           script], capture_output=True, text=True, timeout=timeout)


class LiveHost:
    """This machine's / as `edns-addon apply --root /` sees it: each run in a private mount
    namespace of its own where /etc and /var are overlays, whose upper layers are below
    DIRECTORY. What apply writes to the live host lands there (``path``), and this
    machine's own /etc and /var stay as they are. Runs one after another share the layers
    (an overlay's upper layer is mounted by one namespace at a time)."""

    LAYERS = ("etc", "var")

    def __init__(self, directory):
        require_namespaces()
        self.directory = Path(directory)
        for part in ("upper", "work"):
            for layer in self.LAYERS:
                (self.directory / part / layer).mkdir(parents=True, exist_ok=True)

    def path(self, path):
        """Where the live host's PATH (below /etc or /var) is once written: its upper layer."""
        return self.directory / "upper" / path.lstrip("/")

    def command(self, *argv):
        """ARGV, run in a namespace of its own with the layers mounted."""
        mounts = "".join("mount -t overlay overlay -o lowerdir=/{0},upperdir={1}/upper/{0},"
                         "workdir={1}/work/{0} /{0}\n".format(layer, self.directory)
                         for layer in self.LAYERS)
        return ["unshare", "--mount", "--propagation", "private", "sh", "-ec",
                mounts + 'exec "$@"', "sh", *map(str, argv)]

    def apply_command(self, kickstart, *prefix):
        """`edns-addon apply KICKSTART --root /` on the live host, after the words PREFIX."""
        return self.command(*prefix, sys.executable, "-m", "org_edns_addon.cli", "apply",
                            kickstart, "--root", "/")

    def apply(self, kickstart, *prefix):
        return subprocess.run(self.apply_command(kickstart, *prefix), capture_output=True,
                              text=True, env=cli_environment(), timeout=300)


def cli_environment():
    """The environment of a process that runs this tree's package."""
    return dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))


# --- the kernel's way of reading an initramfs (init/initramfs.c), for the tests ----------

@dataclass
class Entry:
    name: str
    mode: int
    uid: int
    gid: int
    data: bytes


def _newc_entries(data, offset, entries):
    """Read one newc archive at OFFSET into ENTRIES (later ones win); return its end."""
    while True:
        magic = data[offset:offset + 6]
        if magic not in (b"070701", b"070702"):
            raise AssertionError("no newc header at offset %d: %r" % (offset, magic))
        fields = [int(data[offset + 6 + 8 * i:offset + 14 + 8 * i], 16) for i in range(13)]
        mode, uid, gid, size, namesize = fields[1], fields[2], fields[3], fields[6], fields[11]
        name_start = offset + 110
        name = data[name_start:name_start + namesize - 1].decode()
        data_start = (name_start + namesize + 3) & ~3
        offset = (data_start + size + 3) & ~3
        if name == "TRAILER!!!":
            return offset
        entries[name] = Entry(name, mode, uid, gid, data[data_start:data_start + size])


def _decompress_member(data):
    """(decompressed bytes, bytes consumed) of the compressed member at the start of DATA."""
    if data.startswith(b"\x1f\x8b"):
        stream = zlib.decompressobj(wbits=31)
    elif data.startswith(b"\xfd7zXZ"):
        stream = lzma.LZMADecompressor()
    else:
        raise AssertionError("unknown compression magic %r" % data[:6])
    out = stream.decompress(data)
    return out, len(data) - len(stream.unused_data)


def walk_initramfs(data, entries=None):
    """Every entry of the concatenated (possibly compressed) archives in DATA, in order."""
    entries = {} if entries is None else entries
    offset = 0
    while offset < len(data):
        if data[offset] == 0:      # padding between archives
            offset += 1
        elif data.startswith(b"0707", offset):
            offset = _newc_entries(data, offset, entries)
        else:
            out, used = _decompress_member(data[offset:])
            walk_initramfs(out, entries)
            offset += used
    return entries
