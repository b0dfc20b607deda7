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

"""NetworkManager of a Debian tree (1.52 on trixie, 1.58 on forky) as the judge of our keyfiles.

``NetworkManager --print-config`` validates nothing: it prints a made-up key
back silently. The daemon does: it warns ``config: unknown key ...`` for a key
it does not know, and it drops what it cannot parse (a bad server URI, an
unknown resolve-mode) from the global DNS configuration it publishes on D-Bus.
So ``read_config`` starts the real daemon, chrooted in the tree inside private
network, mount and PID namespaces with its own system bus, on a conf.d; then
asks it for ``GlobalDnsConfiguration`` and keeps its log. Asked to, it also
shows what the daemon sends dnsconfd (the arguments of its ``Update`` call, as
its dnsconfd plugin logs them) and the resolv.conf it makes itself, with a
connection of its own on a link of the namespace.

``initrd_generator`` runs the tree's ``nm-initrd-generator --stdout`` on
kernel options, the way the initramfs turns ``rd.net.dns*`` into
``/run/NetworkManager/conf.d`` files.
"""

import ipaddress
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional

from org_edns_addon import lines

IN_TREE = Path(__file__).resolve().with_name("in-tree.sh")
# The longest the daemon may take to publish its configuration on D-Bus.
JUDGE_SECONDS = 420
GENERATOR = "/usr/libexec/nm-initrd-generator"
STAGE = "/run/edns-stage"
# What the dnsconfd plugin logs at trace level, before it calls dnsconfd's Update, of
# that call's arguments (NetworkManager src/core/dns/nm-dns-dnsconfd.c, update():
# g_variant_print of "(aa{sv}u)", on 1.52 and 1.58 alike).
DNSCONFD_UPDATE_LOG = "dnsconfd: arguments variant is composed like: "
# resolve_mode of that call: NMGlobalDnsResolveMode (src/core/nm-config-data.h).
RESOLVE_MODES = {0: "backup", 1: "prefer", 2: "exclusive"}
# The link a connection of the judge runs on (a veth; its peer is CONNECTION_INTERFACE-p).
CONNECTION_INTERFACE = "edns0"
# NetworkManager's own resolv.conf of what it collected, whatever rc-manager says
# (src/core/dns/nm-dns-manager.c, update_resolv_conf_no_stub).
NO_STUB_RESOLV_CONF = "/run/NetworkManager/no-stub-resolv.conf"

# Behaviours of NetworkManager on our files that changed between the trees' versions
# (trixie 1.52, forky 1.58), each with the first version that has it: the package's table
# of the lines holds them with their upstream commits (org_edns_addon/lines.py), and the
# lab's expectations of each tree read them there.
# - The dnsconfd plugin sends a server's port (src/core/dns/nm-dns-dnsconfd.c
#   server_builder_append_base): before, dnsconfd asks port 853 of a dns+tls server
#   whatever its URI says.
SENDS_PORT_TO_DNSCONFD = lines.PORT_TO_DNSCONFD.since
# - ... and each server's priority, as dnsconfd counts it (-dns-priority).
SENDS_PRIORITY_TO_DNSCONFD = lines.DNSCONFD_DNS_PRIORITY.since
# - GlobalDnsConfiguration always has "searches" and "options", empty lists included,
#   when [global-dns] exists (7fb4724efa "core: dns: show in D-Bus if [global-dns] is
#   defined but empty", first in 1.56, src/core/nm-config-data.c): what the judge reads
#   back, nothing a line's rule needs, so the lab's own.
PUBLISHES_EMPTY_GLOBAL_LISTS = (1, 56)
# Not one for our files: lines.GLOBAL_SEARCHES_REPLACE (1.56: [global-dns] replaces the
# connections' search domains, nm-dns-manager.c _collect_resolv_conf_data, where 1.52
# added them); but with a global "*" domain, which every keyfile of ours has, both leave
# the connections' out of NetworkManager's resolv.conf, and both send them to dnsconfd
# with their server (tests/test_peer_networkmanager_trees.py shows it on both trees).


def version(tree):
    """The NetworkManager version of TREE as numbers: (1, 58, 1)."""
    from lab.vmlab import debian_tree

    text = debian_tree.package_version(tree, "network-manager") or ""
    match = re.match(r"(?:\d+:)?(\d+)\.(\d+)\.(\d+)", text)
    if not match:
        raise JudgeError("%s has no NetworkManager (network-manager %r)" % (tree, text))
    return tuple(int(part) for part in match.groups())


# Inside the tree: a system bus, a link for a connection if there is one, the
# daemon on the staged configuration, then its D-Bus answer and its resolv.conf on
# stdout and its log on stderr. Every wait is bounded.
_JUDGE_SCRIPT = r"""
set -eu
mkdir -p /run/dbus /run/NetworkManager/conf.d
for file in %(stage)s/run-conf.d/*; do
    [ -e "$file" ] && cp "$file" /run/NetworkManager/conf.d/
done
dbus-daemon --system --fork --nopidfile
if [ -n "%(interface)s" ]; then
    # No udev: /sys is read-only (in-tree.sh), so NetworkManager manages the link at once.
    ip link add %(interface)s type veth peer name %(interface)s-p
    ip link set %(interface)s-p up
fi
NetworkManager --no-daemon --debug --log-level=DEBUG --log-domains=ALL,DNS:TRACE \
    --config=%(stage)s/NetworkManager.conf --config-dir=%(stage)s/conf.d >/run/nm.log 2>&1 &
daemon=$!
ask() {
    busctl --system --json=short get-property org.freedesktop.NetworkManager \
        /org/freedesktop/NetworkManager org.freedesktop.NetworkManager \
        GlobalDnsConfiguration >/run/global-dns.json 2>/dev/null
}
# Each wait below is on the daemon's own event, as long as the daemon lives, up to a bound
# against a hang (%(hang)d s, not a guess at a duration) that leaves time to print its log.
deadline=$(( $(date +%%s) + %(hang)d ))
alive() { kill -0 "$daemon" 2>/dev/null && [ "$(date +%%s)" -lt "$deadline" ]; }
answered=no
while alive; do
    if ask; then
        answered=yes
        break
    fi
    sleep 0.1
done
composed=no
if [ "$answered" = yes ] && [ -n "%(update)s" ]; then
    reload=0
    if [ -n "%(interface)s" ]; then
        # Once the connection is up (state 100), a full DNS reload (flag 4, DNS_FULL) has
        # the daemon compose its update afresh: 1.58 may compose it while the link is being
        # activated, without the connection, and not again once the connection's DNS is in
        # (its log: "DNS configuration did not change").
        while alive; do
            case "$(nmcli -g GENERAL.STATE device show %(interface)s 2>/dev/null)" in
                100*) break ;;
            esac
            sleep 0.1
        done
        reload=4
    fi
    # Without a connection nothing changes: a reload has it send its DNS (config_changed_cb).
    busctl --system call org.freedesktop.NetworkManager /org/freedesktop/NetworkManager \
        org.freedesktop.NetworkManager Reload u "$reload" >&2 || true
    while alive; do
        if grep -q -F -- "%(update)s" /run/nm.log; then
            composed=yes
            break
        fi
        sleep 0.1
    done
    # Its main loop answers once that update, resolv.conf included, is done.
    ask || true
fi
kill "$daemon" 2>/dev/null || true
wait "$daemon" || true
cat /run/nm.log >&2
[ "$answered" = yes ] || { echo "NetworkManager did not answer on D-Bus" >&2; exit 3; }
[ -z "%(update)s" ] || [ "$composed" = yes ] || {
    echo "NetworkManager composed no update for dnsconfd (it exited, or %(hang)d s passed)" >&2
    exit 4; }
cat /run/global-dns.json
echo
echo "@@ resolv.conf"
cat %(resolv_conf)s 2>/dev/null || true
"""

# Our main file: nothing of the tree's NetworkManager.conf (Debian's ifupdown
# plugin) and no polkit, which the namespace does not have.
MAIN_CONF = "[main]\nauth-polkit=false\nplugins=keyfile\n"


class JudgeError(Exception):
    """NetworkManager could not be run on the configuration; the message has its log."""


@dataclass
class DnsconfdUpdate:
    """What NetworkManager sends dnsconfd: its servers (each a dict of the call's fields,
    the address as text) and the resolve mode."""
    servers: List[dict]
    mode: str


@dataclass
class NetworkManagerReading:
    """What NetworkManager made of a conf.d."""
    global_dns: dict          # GlobalDnsConfiguration, as plain Python values
    log: str                  # the daemon's whole log (--debug, DNS at trace level)
    resolv_conf: str = ""     # NO_STUB_RESOLV_CONF, when the daemon wrote it

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
    def dns_plugin(self):
        """The DNS plugin NetworkManager loaded (its dns-mgr start line), or None."""
        match = re.search(r"dns-mgr: init: .* plugin=(\S+)", self.log)
        return match.group(1) if match else None

    @property
    def read_files(self) -> List[str]:
        match = re.search(r"Read config: (.*)", self.log)
        return [part.strip() for part in match.group(1).split(",")] if match else []

    def servers(self, domain="*"):
        return self.global_dns.get("domains", {}).get(domain, {}).get("servers", [])

    @property
    def dnsconfd_update(self) -> Optional[DnsconfdUpdate]:
        """The last update NetworkManager composed for dnsconfd, parsed as GLib parses
        GVariant text; None if it composed none."""
        texts = [line.split(DNSCONFD_UPDATE_LOG, 1)[1] for line in self.log.splitlines()
                 if DNSCONFD_UPDATE_LOG in line]
        if not texts:
            return None
        from gi.repository import GLib

        servers, mode = GLib.Variant.parse(None, texts[-1], None, None).unpack()
        for server in servers:
            server["address"] = str(ipaddress.ip_address(bytes(server["address"])))
        return DnsconfdUpdate(servers, RESOLVE_MODES.get(mode, str(mode)))

    @property
    def resolv_searches(self) -> List[str]:
        """The search domains of NetworkManager's own resolv.conf."""
        return [word for line in self.resolv_conf.splitlines()
                if line.startswith("search ") for word in line.split()[1:]]


def connection_keyfile(address, dns, searches):
    """A static IPv4 connection on CONNECTION_INTERFACE with its own DNS and search domains,
    as a keyfile."""
    return ("[connection]\nid=%(name)s\ntype=ethernet\ninterface-name=%(name)s\n\n"
            "[ipv4]\nmethod=manual\naddress1=%(address)s\ndns=%(dns)s;\n"
            "dns-search=%(searches)s;\n\n[ipv6]\nmethod=disabled\n" % {
                "name": CONNECTION_INTERFACE, "address": address, "dns": dns,
                "searches": ";".join(searches)}).encode()


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
    try:
        return subprocess.run(
            ["unshare", "--net", "--mount", "--pid", "--fork", "--propagation", "private",
             "sh", str(IN_TREE), str(tree), str(stage)] + list(argv),
            capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise JudgeError("NetworkManager of %s did not finish in %d s (a hang):\n%s" % (
            tree, timeout, (error.stderr or b"")[-4000:].decode(errors="replace"))) from None


def _write_files(directory: Path, files: Mapping[str, bytes], mode=None):
    directory.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (directory / name).write_bytes(content if isinstance(content, bytes)
                                       else content.encode())
        if mode is not None:
            (directory / name).chmod(mode)


def read_config(tree, conf_d: Mapping[str, bytes], run_conf_d: Mapping[str, bytes] = None,
                connection: bytes = None, dnsconfd_update=False):
    """Start the tree's NetworkManager on CONF_D ({file name: bytes}); return its reading.

    RUN_CONF_D files go to /run/NetworkManager/conf.d, where the initramfs's
    ``nm-initrd-generator`` writes. CONNECTION (a keyfile, ``connection_keyfile``) is
    activated on a link of its own. DNSCONFD_UPDATE: wait until the daemon has composed
    its update for dnsconfd (with CONNECTION's server, if given). Raises JudgeError if
    the daemon never answers.
    """
    stage = Path(tempfile.mkdtemp(prefix="edns-nm-judge."))
    main_conf = MAIN_CONF
    if connection:
        # Its link is a veth. With no udev here (in-tree.sh), no 85-nm-unmanaged.rules
        # marks veths unmanaged; these [device] sections decide: ours managed, its peer not.
        main_conf += ("\n[keyfile]\npath=%s/connections\n\n[device-edns-judge]\n"
                      "match-device=interface-name:%s\nmanaged=1\n\n"
                      "[device-edns-judge-peer]\nmatch-device=interface-name:%s-p\n"
                      "managed=0\n" % (STAGE, CONNECTION_INTERFACE, CONNECTION_INTERFACE))
        # NetworkManager reads a connection keyfile only if root alone may read it.
        _write_files(stage / "connections", {
            CONNECTION_INTERFACE + ".nmconnection": connection}, mode=0o600)
    update = ""
    if dnsconfd_update:
        update = "'interface': <'%s'>" % CONNECTION_INTERFACE if connection else \
            DNSCONFD_UPDATE_LOG
    try:
        (stage / "NetworkManager.conf").write_text(main_conf)
        _write_files(stage / "conf.d", conf_d)
        _write_files(stage / "run-conf.d", run_conf_d or {})
        script = _JUDGE_SCRIPT % {"stage": STAGE, "update": update,
                                  "interface": CONNECTION_INTERFACE if connection else "",
                                  "resolv_conf": NO_STUB_RESOLV_CONF,
                                  "hang": JUDGE_SECONDS - 180}
        result = _in_tree(tree, stage, ["sh", "-c", script], JUDGE_SECONDS)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    if result.returncode != 0:
        raise JudgeError("NetworkManager of %s exited %d:\n%s" % (tree, result.returncode,
                                                                  result.stderr[-4000:]))
    answer, _, resolv_conf = result.stdout.partition("\n@@ resolv.conf\n")
    return NetworkManagerReading(_plain(json.loads(answer)), result.stderr, resolv_conf)


def print_config(tree, conf_d: Mapping[str, bytes]) -> Dict[str, Dict[str, str]]:
    """{section: {key: value}} of ``NetworkManager --print-config`` of the tree on CONF_D
    (with the judge's main file): the merged configuration as it prints it, which names
    every key it was given, known or not."""
    import configparser

    stage = Path(tempfile.mkdtemp(prefix="edns-nm-print."))
    try:
        (stage / "NetworkManager.conf").write_text(MAIN_CONF)
        _write_files(stage / "conf.d", conf_d)
        result = _in_tree(tree, stage, [
            "NetworkManager", "--print-config", "--config=%s/NetworkManager.conf" % STAGE,
            "--config-dir=%s/conf.d" % STAGE], JUDGE_SECONDS)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    if result.returncode != 0:
        raise JudgeError("NetworkManager --print-config exited %d: %s" % (
            result.returncode, result.stderr.strip()[-2000:]))
    parser = configparser.ConfigParser(interpolation=None, comment_prefixes=("#",),
                                       strict=False)
    parser.optionxform = str
    parser.read_string(result.stdout)
    return {section: dict(parser[section]) for section in parser.sections()}


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
