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

"""NetworkManager 1.52 of the trixie tree as the judge of our keyfiles.

``NetworkManager --print-config`` validates nothing: it prints a made-up key
back silently. The daemon does: it warns ``config: unknown key ...`` for a key
it does not know, and it drops what it cannot parse (a bad server URI, an
unknown resolve-mode) from the global DNS configuration it publishes on D-Bus.
So ``read_config`` starts the real daemon, chrooted in the tree inside private
network, mount and PID namespaces with its own system bus, on a conf.d; then
asks it for ``GlobalDnsConfiguration`` and keeps its log.

``initrd_generator`` runs the tree's ``nm-initrd-generator --stdout`` on
kernel options, the way the initramfs turns ``rd.net.dns*`` into
``/run/NetworkManager/conf.d`` files.
"""

import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping

IN_TREE = Path(__file__).resolve().with_name("in-tree.sh")
# The longest the daemon may take to publish its configuration on D-Bus.
JUDGE_SECONDS = 60
GENERATOR = "/usr/libexec/nm-initrd-generator"
STAGE = "/run/edns-stage"

# Inside the tree: a system bus, the daemon on the staged configuration, then its
# D-Bus answer on stdout and its log on stderr. Every wait is bounded.
_JUDGE_SCRIPT = r"""
set -eu
mkdir -p /run/dbus /run/NetworkManager/conf.d
for file in %(stage)s/run-conf.d/*; do
    [ -e "$file" ] && cp "$file" /run/NetworkManager/conf.d/
done
dbus-daemon --system --fork --nopidfile
NetworkManager --no-daemon --debug --config=%(stage)s/NetworkManager.conf \
    --config-dir=%(stage)s/conf.d >/run/nm.log 2>&1 &
daemon=$!
answered=no
for try in $(seq 100); do
    if busctl --system --json=short get-property org.freedesktop.NetworkManager \
            /org/freedesktop/NetworkManager org.freedesktop.NetworkManager \
            GlobalDnsConfiguration >/run/global-dns.json 2>/dev/null; then
        answered=yes
        break
    fi
    kill -0 "$daemon" 2>/dev/null || break
    sleep 0.1
done
kill "$daemon" 2>/dev/null || true
wait "$daemon" || true
cat /run/nm.log >&2
[ "$answered" = yes ] || { echo "NetworkManager did not answer on D-Bus" >&2; exit 3; }
cat /run/global-dns.json
"""

# Our main file: nothing of the tree's NetworkManager.conf (Debian's ifupdown
# plugin) and no polkit, which the namespace does not have.
MAIN_CONF = "[main]\nauth-polkit=false\nplugins=keyfile\n"


class JudgeError(Exception):
    """NetworkManager could not be run on the configuration; the message has its log."""


@dataclass
class NetworkManagerReading:
    """What NetworkManager made of a conf.d."""
    global_dns: dict          # GlobalDnsConfiguration, as plain Python values
    log: str                  # the daemon's whole log (--debug)

    @property
    def config_warnings(self) -> List[str]:
        """Every <warn> or <error> line about the configuration (unknown keys, bad files)."""
        return [line for line in self.log.splitlines()
                if re.match(r"<(warn|error)>", line) and re.search(r"config", line, re.I)]

    @property
    def dns_mode(self):
        """The [main] dns= NetworkManager runs with (from its dns-mgr start line)."""
        match = re.search(r"dns-mgr: init: dns=([^, ]+)", self.log)
        return match.group(1) if match else None

    @property
    def read_files(self) -> List[str]:
        match = re.search(r"Read config: (.*)", self.log)
        return [part.strip() for part in match.group(1).split(",")] if match else []

    def servers(self, domain="*"):
        return self.global_dns.get("domains", {}).get(domain, {}).get("servers", [])


def _plain(value):
    """busctl's JSON ({"type": ..., "data": ...} at every variant) as plain values."""
    if isinstance(value, dict):
        if set(value) == {"type", "data"}:
            return _plain(value["data"])
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _in_tree(tree, stage, argv, timeout):
    return subprocess.run(
        ["unshare", "--net", "--mount", "--pid", "--fork", "--propagation", "private",
         "sh", str(IN_TREE), str(tree), str(stage)] + list(argv),
        capture_output=True, text=True, timeout=timeout)


def _write_files(directory: Path, files: Mapping[str, bytes]):
    directory.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (directory / name).write_bytes(content if isinstance(content, bytes)
                                       else content.encode())


def read_config(tree, conf_d: Mapping[str, bytes], run_conf_d: Mapping[str, bytes] = None):
    """Start the tree's NetworkManager on CONF_D ({file name: bytes}); return its reading.

    RUN_CONF_D files go to /run/NetworkManager/conf.d, where the initramfs's
    ``nm-initrd-generator`` writes. Raises JudgeError if the daemon never answers.
    """
    stage = Path(tempfile.mkdtemp(prefix="edns-nm-judge."))
    try:
        (stage / "NetworkManager.conf").write_text(MAIN_CONF)
        _write_files(stage / "conf.d", conf_d)
        _write_files(stage / "run-conf.d", run_conf_d or {})
        result = _in_tree(tree, stage, ["sh", "-c", _JUDGE_SCRIPT % {"stage": STAGE}],
                          JUDGE_SECONDS)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    if result.returncode != 0:
        raise JudgeError("NetworkManager of %s exited %d:\n%s" % (tree, result.returncode,
                                                                  result.stderr[-4000:]))
    return NetworkManagerReading(_plain(json.loads(result.stdout)), result.stderr)


def initrd_generator(tree, kernel_options) -> Dict[str, str]:
    """{file name: text} of the conf.d files ``nm-initrd-generator`` makes of KERNEL_OPTIONS."""
    result = subprocess.run(["chroot", str(tree), GENERATOR, "--stdout", "--"]
                            + list(kernel_options),
                            capture_output=True, text=True, timeout=JUDGE_SECONDS)
    if result.returncode != 0:
        raise JudgeError("nm-initrd-generator exited %d: %s" % (result.returncode,
                                                                result.stderr.strip()))
    files = {}
    for match in re.finditer(r"^\*\*\* Configuration '([^']+)' \*\*\*\n(.*?)(?=^\*\*\* |\Z)",
                             result.stdout, re.MULTILINE | re.DOTALL):
        files[match.group(1)] = match.group(2).strip("\n") + "\n"
    return files
