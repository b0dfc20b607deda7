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


"""FreeIPA's client by branch state, from a clone of freeipa/freeipa (FREEIPA_GIT), and its
own DNS over TLS steps run on a root.

``STATES`` are the refs whose client does something different with our files, each with
the commits that make it so (freeipa/freeipa; the tips checked at b360c852d for ipa-4-12
and e401e9a6c for ipa-4-13). ``run_client`` runs that ref's own code on a root
(``lab/freeipa_client.py``): its ``client_dns``, the DNS over TLS part of its
``uninstall``, its sysrestore module and its template. This module only reads FreeIPA's
files and starts that process; tests/test_peer_freeipa_client.py checks that each state
does what its row says.
"""

import json
import os
import re
import shlex
import string
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

FREEIPA_GIT_ENV = "FREEIPA_GIT"
CLIENT_PY = "ipaclient/install/client.py"
TEMPLATE = "client/share/unbound.conf.template"
# What run_client takes of a ref: the modules it imports and the file it reads.
RUN_PATHS = ("ipalib", "ipaplatform", "ipapython", TEMPLATE, CLIENT_PY)
REPOSITORY = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class BranchState:
    """One state of FreeIPA's client, as far as our files are concerned."""
    name: str
    ref: str                       # what FREEIPA_GIT is read at
    commits: str                   # the commits that make it so
    dns_over_tls: bool             # ipa-client-install --dns-over-tls exists
    sets_conf_d_aside: bool        # client_dns moves every other conf.d file away
    disables_running_dnsconfd: bool
    system_trust: bool             # tls-system-cert (else tls-cert-bundle: ca-bundle.crt)
    uninstall_restores_conf_d: bool  # uninstall removes zzz-ipa.conf, then restores conf.d

    def __str__(self):
        return self.name


STATES = (
    BranchState("4.12-tags", "release-4-12-5", "no release-4-12-N tag has 46ef43b2a",
                False, False, False, False, False),
    # ipa-4-12, which EL's builds come from, with DNS over TLS and before the set-aside.
    BranchState("4.12-dot", "bae780843^", "46ef43b2a Add DNS over TLS support; "
                "7b4317979, 5db3bfafe (--no-dnssec-validation)",
                True, False, False, False, False),
    BranchState("ipa-4-12", "ipa-4-12", "bae780843 dns: disable all previous Unbound "
                "configuration before deploying ours; bc3c095d7 DNS over TLS: use system "
                "trust store; 3623d46f2 eDNS: disable dnsconfd before configuring Unbound",
                True, True, True, True, True),
    BranchState("4.13-tags", "release-4-13-0", "master's e6445b88a, c0994948b, 68cc47a3e "
                "(the same three), in every release-4-13-N tag",
                True, True, True, True, True),
    BranchState("ipa-4-13", "ipa-4-13", "no DNS change after release-4-13-0",
                True, True, True, True, True),
)
BY_NAME = {state.name: state for state in STATES}
# os.path.join(paths.OPENSSL_CERTS_DIR, "ca-bundle.crt") (ipaplatform/base/paths.py), the
# bundle 4.12-dot's client names in its Unbound file.
SYSTEM_BUNDLE = "/etc/pki/tls/certs/ca-bundle.crt"


class FreeipaUnavailable(Exception):
    """No clone, or no such file at that commit of it; the message says which."""


def _clone():
    clone = os.environ.get(FREEIPA_GIT_ENV)
    if not clone:
        raise FreeipaUnavailable("%s is not set: give a clone of freeipa/freeipa to run "
                                 "FreeIPA's own client code" % FREEIPA_GIT_ENV)
    return clone


def _git(*args, **kwargs):
    clone = _clone()
    result = subprocess.run(["git", "--git-dir", clone] + list(args), capture_output=True,
                            timeout=120, **kwargs)
    if result.returncode != 0 and not clone.endswith(".git"):
        result = subprocess.run(["git", "-C", clone] + list(args), capture_output=True,
                                timeout=120, **kwargs)
    return result


def source(ref, path):
    """The text of PATH at REF of the FREEIPA_GIT clone (bare or not)."""
    result = _git("show", "%s:%s" % (ref, path))
    if result.returncode != 0:
        raise FreeipaUnavailable("%s=%s has no %s:%s (%s)" % (
            FREEIPA_GIT_ENV, _clone(), ref, path, result.stderr.decode().strip()))
    return result.stdout.decode()


def tags(pattern):
    """The clone's tags matching PATTERN (git's glob)."""
    result = _git("tag", "--list", pattern)
    return sorted(result.stdout.decode().split())


def commit_of(ref):
    result = _git("rev-parse", "--short=9", ref + "^{commit}")
    if result.returncode != 0:
        raise FreeipaUnavailable("%s has no %s" % (_clone(), ref))
    return result.stdout.decode().strip()


def is_ancestor(commit, ref):
    """Whether COMMIT is in REF's history."""
    return _git("merge-base", "--is-ancestor", commit, ref).returncode == 0


def state(name):
    return BY_NAME[name]


def function(text, name):
    """The source of the top-level function NAME in TEXT and its first line number."""
    match = re.search(r"^def %s\(.*?(?=^\S)" % re.escape(name), text, re.M | re.S)
    if match is None:
        raise FreeipaUnavailable("no top-level function %s" % name)
    return match.group(0), text.count("\n", 0, match.start()) + 1


def uninstall_dns_over_tls(text):
    """The DNS over TLS part of uninstall() in TEXT (client.py), and its first line number:
    from its comment "Restore unbound" to the log line that starts the next part; ("", 0)
    where uninstall has none."""
    body, first = function(text, "uninstall")
    match = re.search(r"^    # Restore unbound.*?(?=^    logger\.info\(\"Disabling client)",
                      body, re.M | re.S)
    if match is None:
        return "", 0
    return match.group(0), first + body.count("\n", 0, match.start())


def client_dns(name):
    """The text of the client_dns of state NAME (ipaclient/install/client.py)."""
    return function(source(state(name).ref, CLIENT_PY), "client_dns")[0]


def unbound_conf(name, forward_addr, client_dns_body):
    """zzz-ipa.conf as state NAME's client_dns (its text CLIENT_DNS_BODY) writes it,
    forwarding to FORWARD_ADDR ("ADDRESS#NAME"), DNSSEC validation left on: the state's own
    template through string.Template(...).substitute, as ipapython/ipautil.py template_str
    does."""
    template = source(state(name).ref, TEMPLATE)
    values = {"FORWARD_ADDRS": "forward-addr: %s" % forward_addr,
              "MODULE_CONFIG_ITERATOR": "# "}
    if "TLS_CERT_BUNDLE_PATH=" in client_dns_body:
        values["TLS_CERT_BUNDLE_PATH"] = SYSTEM_BUNDLE
    return string.Template(template).substitute(values)


def checkout(name, directory):
    """RUN_PATHS of state NAME's ref, below DIRECTORY (a FreeIPA source tree in part)."""
    archive = _git("archive", "--format=tar", state(name).ref, *RUN_PATHS)
    if archive.returncode != 0:
        raise FreeipaUnavailable("%s: git archive %s failed (%s)" % (
            _clone(), state(name).ref, archive.stderr.decode().strip()))
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive.stdout, check=True,
                   timeout=120)
    # What FreeIPA's build makes of ipapython/version.py.in (ipaplatform's rhel platform
    # imports it); only the syntax matters here.
    version = Path(directory, "ipapython", "version.py")
    text = version.with_name("version.py.in").read_text()
    for placeholder, value in (("@DEFAULT_PLUGINS@", "DEFAULT_PLUGINS = frozenset()"),
                               ("@NUM_VERSION@", "0"), ("@VENDOR_SUFFIX@", "")):
        text = text.replace(placeholder, value)
    version.write_text(re.sub(r"@[A-Z0-9_]+@", "0", text))
    return Path(directory)


def in_root(root, command, scratch):
    """The argv that runs the shell COMMAND as on the system ROOT: in a private mount
    namespace, ROOT's /etc and /var/lib over this machine's (overlayfs, so programs still
    find this machine's libraries, every write landing in ROOT; SCRATCH holds overlayfs'
    work directories), and ROOT's /etc/unbound alone as /etc/unbound. Needs root."""
    root = Path(root)
    for below in ("etc/unbound/conf.d", "var/lib"):
        (root / below).mkdir(parents=True, exist_ok=True)
    mounts = []
    for top in ("etc", "var/lib"):
        work = Path(tempfile.mkdtemp(prefix="work-", dir=scratch))
        mounts.append("mount -t overlay overlay -o lowerdir=/%s,upperdir=%s,workdir=%s /%s"
                      % (top, shlex.quote(str(root / top)), shlex.quote(str(work)), top))
    mounts.append("mount --bind %s /etc/unbound" % shlex.quote(str(root / "etc/unbound")))
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            " && ".join(mounts) + " && " + command]


@dataclass
class ClientRun:
    """What one run of FreeIPA's code did: the unit calls ("unbound restart", ...), and the
    exception it ended with (None, or type, message and FreeIPA's file:line)."""
    calls: list
    error: dict

    def called(self, unit, verb):
        return "%s %s" % (unit, verb) in self.calls


def run_client(name, action, root, units_path, tree=None, server=("192.0.2.10",
                                                                    "ipa.corp.example")):
    """Run ACTION ("enroll", "failed-install", "rollback", "uninstall") of state NAME's code on
    ROOT, in a process of its own (lab/freeipa_client.py) in a private mount namespace:
    ROOT's /etc and /var/lib over this machine's (overlayfs: what it writes lands in ROOT,
    and it reads this machine's libraries), ROOT's /etc/unbound alone as /etc/unbound.
    Needs root. UNITS_PATH holds the units' states (JSON) from one run to the next; TREE a
    checkout of the state (made in a temporary directory if not given). SERVER is the IPA
    server's address and name."""
    with tempfile.TemporaryDirectory(prefix="freeipa-", dir=Path(root).parent) as scratch:
        tree = tree or checkout(name, scratch)
        command = [sys.executable, "-m", "lab.freeipa_client", str(tree), action,
                   str(units_path), server[0], server[1]]
        result = subprocess.run(
            in_root(root, "exec " + shlex.join(command), scratch), capture_output=True, text=True,
            timeout=300,
            env=dict(os.environ, IPAPLATFORM_OVERRIDE="rhel", PYTHONPATH=str(REPOSITORY)))
    if result.returncode == 3:
        raise FreeipaUnavailable("FreeIPA's modules do not import here: %s"
                                 % result.stderr.strip().splitlines()[-1])
    if result.returncode != 0:
        raise RuntimeError("lab/freeipa_client.py failed: %s" % result.stderr)
    report = json.loads(result.stdout)
    return ClientRun(report["calls"], report["error"])
