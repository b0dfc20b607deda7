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

"""The installer lines the addon runs in, as data in one place, each fact with its source.

EL9, EL10, Fedora 42, 43, 44 and Anaconda ``main`` (what rawhide, Fedora 45, is
heading to) differ in what reads our files. Every per-line rule
(``line_rules.py``), the module's own line (``detect_line``), docs/support-matrix.md's
table of the lines (``docparts.py``) read these values; nothing per line is written anywhere else.

A ``Fact`` that could not be established has ``value`` None and says why in its
``source``; one that is a lower bound or read from an indirect source has ``sure``
False. NetworkManager's behaviours are not restated per line: each
``NetworkManagerChange`` says from which upstream release it holds, and a line
has it when its NetworkManager is that release or later (or a build of the line
is known to carry it: ``Line.networkmanager_backports``).
"""

import os
import re
import subprocess
from dataclasses import dataclass, replace
from typing import Any, Tuple

NM_REPOSITORY = "NetworkManager/NetworkManager"
FEDORA_PACKAGES = "https://packages.fedoraproject.org/pkgs/"


@dataclass(frozen=True)
class Fact:
    """One fact of a line: its VALUE (None: not established), where it was read (or why
    it could not be), and whether that is SURE (False: a lower bound, or indirect)."""
    value: Any
    source: str
    sure: bool = True


@dataclass(frozen=True)
class NetworkManagerChange:
    """A NetworkManager behaviour that changed between 1.52 and 1.58: from which upstream
    release it holds (SINCE, a version tuple), the upstream commit and what it means for
    the files this addon writes."""
    key: str
    since: Tuple[int, ...]
    commit: str
    what: str


# src/core/dns/nm-dns-dnsconfd.c server_builder_append_base: up to 1.52.x a server reaches
# dnsconfd over D-Bus without its port (dnsconfd then asks 853 for DoT, 53 for plaintext).
# Not on the nm-1-52 branch (git merge-base --is-ancestor 75b3f8496b nm-1-52: no).
PORT_TO_DNSCONFD = NetworkManagerChange(
    "port-to-dnsconfd", (1, 54, 0),
    "75b3f8496b \"dns: Fix port handling in Dnsconfd plugin\" (first in 1.54-rc1; fixes "
    "NetworkManager issue 1765)",
    "the dnsconfd plugin sends a server's port to dnsconfd")
# src/core/dns/nm-dns-manager.c _collect_resolv_conf_data, merge_one_l3cd: with a
# [global-dns] section the connections' search domains and options are no longer merged.
GLOBAL_SEARCHES_REPLACE = NetworkManagerChange(
    "global-searches-replace", (1, 56, 0),
    "1cba0a3cca \"dns: make [global-dns] to overwrite configs from connections\" (first in "
    "1.56-rc1; NEWS 1.56)",
    "[global-dns] searches replace the connections' own search domains (and an empty "
    "[global-dns] drops them) instead of being added to them")
# src/core/dns/nm-dns-dnsconfd.c: the plugin sends each server's priority.
DNSCONFD_DNS_PRIORITY = NetworkManagerChange(
    "dnsconfd-dns-priority", (1, 54, 0),
    "e41558e08c \"dns: Make dnsconfd plugin respect dns-priority\" (first in 1.54-rc1)",
    "the dnsconfd plugin respects the connections' dns-priority")
# src/core/nm-dbus-manager / nm-config-data: GlobalDnsConfiguration over D-Bus.
GLOBAL_DNS_WITHOUT_DEFAULT_DOMAIN = NetworkManagerChange(
    "global-dns-without-default-domain", (1, 56, 0),
    "294131a2a4 \"core: dbus: accept global DNS configuration without a default domain\" "
    "(first in 1.56-rc1)",
    "a global DNS configuration set over D-Bus may lack the \"*\" domain (our keyfile always "
    "has one)")
# NEWS 1.54 "Add systemd services to provide networking in the initrd"; 1.58 636fb5ef24.
INITRD_SYSTEMD_GENERATOR = NetworkManagerChange(
    "initrd-systemd-generator", (1, 58, 0),
    "636fb5ef24 \"systemd: install initrd services using a generator\" (first in 1.58-rc1; "
    "NEWS 1.54 added the initrd services themselves)",
    "NetworkManager's initrd units come from a systemd generator (dracut's "
    "35network-manager module is what Fedora's and EL's initramfs still use)")
# NEWS 1.58, Connectivity: the check uses the DNS servers of the same link.
CONNECTIVITY_SAME_LINK_DNS = NetworkManagerChange(
    "connectivity-same-link-dns", (1, 58, 0),
    "NEWS 1.58 \"Restrict the connectivity check to use the DNS servers defined on the same "
    "link\"",
    "the connectivity check resolves with the link's own DNS servers, not the global ones, "
    "when the link has any")

NETWORKMANAGER_CHANGES = (PORT_TO_DNSCONFD, GLOBAL_SEARCHES_REPLACE, DNSCONFD_DNS_PRIORITY,
                          GLOBAL_DNS_WITHOUT_DEFAULT_DOMAIN, INITRD_SYSTEMD_GENERATOR,
                          CONNECTIVITY_SAME_LINK_DNS)

WEB_UI = "Web UI"
GTK = "GTK"
TEXT = "text"


def version_tuple(text):
    """(1, 54, 3) of "1.54.3" (or of NetworkManager's "1.54.3-2.fc43", "1.58.0-rc1"; (43, 0,
    0) of os-release's "43"), or None when TEXT has no version at its start."""
    match = re.match(r"\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?", text or "")
    if not match:
        return None
    return tuple(int(part or 0) for part in match.groups())


@dataclass(frozen=True)
class Line:
    """One installer line: the facts that decide what its installer and installed system
    do with the files this addon writes."""
    key: str
    name: str
    anaconda: Fact
    pykickstart: Fact
    networkmanager: Fact
    networkmanager_backports: Fact
    dnsconfd: Fact
    dracut: Fact
    systemd: Fact
    # Does /etc/pki/tls/certs/ca-bundle.crt (and the other links of /etc/pki/tls) exist?
    legacy_ca_bundle: Fact
    # Does the initramfs's parse-kickstart append anchors to SYSTEM_CA_BUNDLE_PATH?
    initramfs_anchors: Fact
    freeipa: Fact
    interfaces: Fact

    def has(self, change):
        """Whether this line's NetworkManager has CHANGE (a ``NetworkManagerChange``):
        True, False, or None when that could not be established (a build that may carry
        a backport nobody could read)."""
        version = version_tuple(self.networkmanager.value)
        if version is not None and version >= change.since:
            return True
        backports = self.networkmanager_backports.value
        if backports is not None and change.key in backports:
            return True
        # Not established: the version is unknown or only a lower bound, or a build may
        # carry a backport nobody could read.
        if version is None or not self.networkmanager.sure or backports is None:
            return None
        return False

    def with_networkmanager(self, version, source):
        """This line as the machine at hand runs it: its NetworkManager VERSION read there
        (SOURCE says how), which wins over the table's."""
        return replace(self, networkmanager=Fact(version, source))


_NO_EL_CHANGELOG = (
    "not established: upstream's nm-1-52 branch has no backport of these changes (git "
    "log nm-1-52), but RHEL's NetworkManager-1.52.0-N spec changelogs were not in reach, "
    "so whether a RHEL build carries one is unknown")
_EL_TOOLS_UNKNOWN = "not established: no {line} package list of {tool} was in reach ({belief})"
_FEDORA_43_DROPPED = (
    "FreeIPA commit f6ffcca0 \"DNS over TLS: use system trust store\": "
    "/etc/pki/tls/certs/ca-bundle.crt \"does not exist any more in fedora 43+\" (Fedora "
    "Changes/dropingOfCertPemFile)")
_FEDORA_42_KEPT = (
    "Fedora Changes/dropingOfCertPemFile took effect in Fedora 43 (FreeIPA commit f6ffcca0: "
    "\"does not exist any more in fedora 43+\"); Fedora 42 keeps the links")
_NO_APPEND = ("{ref}:dracut/parse-kickstart has no _append_to_ca_bundle: the anchors are "
              "written to /etc/pki/ca-trust/source/anchors/ only, never joined to the bundle "
              "in the initramfs")
_APPENDS = ("{ref}:dracut/parse-kickstart CA_BUNDLE_PATH = "
            "\"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem\", _append_to_ca_bundle "
            "(anaconda e281f7faad \"dracut: append anchor certs to CA bundle in initramfs\")")
_SPEC_GTK_TEXT = ("{ref}:anaconda.spec.in: anaconda Requires anaconda-gui and anaconda-tui; "
                  "no anaconda-webui")
_SPEC_LIVE_WEBUI = ("{ref}:anaconda.spec.in: anaconda-live Requires anaconda-webui (the live "
                    "images' installer); anaconda Requires anaconda-gui and anaconda-tui; the "
                    "Web UI loads no addon screens (pyanaconda/anaconda.py: addon_paths = [])")
_FREEIPA_412_BRANCH = (
    "4.12 with DNS over TLS from the ipa-4-12 branch: no 4.12.x release tag has it "
    "(46ef43b2a \"Add DNS over TLS support\" came after release-4-12-5); lab/freeipa.py LINES")

LINES = (
    Line(
        "el9", "EL9",
        anaconda=Fact("rhel-9 (anaconda 34.25)", "rhinstaller/anaconda branch rhel-9, tag "
                      "anaconda-34.25.7.19 at its tip"),
        pykickstart=Fact("3.32.13+ (rhel9-branch)", "rhel-9:anaconda.spec.in %define "
                         "pykickstartver 3.32.13-1"),
        networkmanager=Fact("1.52.0", "builds NetworkManager-1.52.0-7.0.1.el9_6 (an Oracle "
                            "Linux 9.6 dnf transcript) and 1.52.0-10.el9_6 (a RHEL CoreOS "
                            "build note), found by code search"),
        networkmanager_backports=Fact(None, _NO_EL_CHANGELOG, sure=False),
        dnsconfd=Fact(None, "not established: no EL9 dnsconfd package page was in reach",
                      sure=False),
        dracut=Fact(None, _EL_TOOLS_UNKNOWN.format(line="EL9", tool="dracut",
                                                   belief="believed 057"), sure=False),
        systemd=Fact(None, _EL_TOOLS_UNKNOWN.format(line="EL9", tool="systemd",
                                                    belief="believed 252"), sure=False),
        legacy_ca_bundle=Fact(True, "FreeIPA 4.12's client names it in zzz-ipa.conf on EL "
                              "(lab/freeipa.py SYSTEM_BUNDLE); the file was dropped only in "
                              "Fedora 43 (FreeIPA commit f6ffcca0)"),
        initramfs_anchors=Fact(False, _NO_APPEND.format(ref="rhel-9")),
        freeipa=Fact("4.12 (ipa-4-12 branch)", _FREEIPA_412_BRANCH),
        interfaces=Fact((GTK, TEXT), _SPEC_GTK_TEXT.format(ref="rhel-9")),
    ),
    Line(
        "el10", "EL10",
        anaconda=Fact("rhel-10 (anaconda 40.22)", "rhinstaller/anaconda branch rhel-10, tag "
                      "anaconda-40.22.3.57 at its tip"),
        pykickstart=Fact("3.52.13 (rhel10-branch)", "rhel-10:anaconda.spec.in %define "
                         "pykickstartver 3.52.13-1"),
        networkmanager=Fact("1.52.0", "AlmaLinux 10.0 (a RHEL 10.0 rebuild) BaseOS "
                            "NetworkManager-1.52.0-8.el10_0; NetworkManager-1.52.0-7.el10_0 "
                            "in a dnf transcript"),
        networkmanager_backports=Fact(None, _NO_EL_CHANGELOG, sure=False),
        dnsconfd=Fact(None, "not established: RHEL 10's documentation (Securing networks, "
                      "\"Securing system DNS traffic with encrypted DNS\") ships dnsconfd as a "
                      "Technology Preview but names no version", sure=False),
        dracut=Fact(None, _EL_TOOLS_UNKNOWN.format(line="EL10", tool="dracut",
                                                   belief="believed 103"), sure=False),
        systemd=Fact(None, _EL_TOOLS_UNKNOWN.format(line="EL10", tool="systemd",
                                                    belief="believed 257"), sure=False),
        legacy_ca_bundle=Fact(True, "EL10 branched before Fedora 43 dropped the file and "
                              "FreeIPA 4.12 names it there (lab/freeipa.py); no EL10 file "
                              "list was in reach", sure=False),
        initramfs_anchors=Fact(True, _APPENDS.format(ref="rhel-10")),
        freeipa=Fact("4.12 (ipa-4-12 branch)", _FREEIPA_412_BRANCH),
        interfaces=Fact((GTK, TEXT), _SPEC_GTK_TEXT.format(ref="rhel-10")),
    ),
    Line(
        "fedora-42", "Fedora 42",
        anaconda=Fact("fedora-42 (anaconda 42.27)", "rhinstaller/anaconda branch fedora-42, "
                      "tag anaconda-42.27.13 at its tip"),
        pykickstart=Fact("3.61+", "fedora-42:anaconda.spec.in %define pykickstartver 3.61-1"),
        networkmanager=Fact("1.52.2", FEDORA_PACKAGES + "NetworkManager/NetworkManager-libnm/ "
                            "(Fedora 42: 1.52.2-1.fc42)"),
        networkmanager_backports=Fact((), "Fedora's NetworkManager 1.52 changelog names no "
                                      "backport of these (the same page)"),
        dnsconfd=Fact("1.7.5", FEDORA_PACKAGES + "dnsconfd/dnsconfd-unbound (Fedora 42: "
                      "1.7.5-2.fc42)"),
        dracut=Fact("105", FEDORA_PACKAGES + "dracut/ changelog: 105-1 (2025-01-29) before "
                    "Fedora 42's branch, 107-1 only on 2025-07-02", sure=False),
        systemd=Fact("257", FEDORA_PACKAGES + "systemd/systemd-libs (Fedora 42: 257.10-1.fc42)"),
        legacy_ca_bundle=Fact(True, _FEDORA_42_KEPT),
        initramfs_anchors=Fact(False, _NO_APPEND.format(ref="fedora-42")),
        freeipa=Fact("4.12", "Fedora's 4.12.2 builds carry fixes of the ipa-4-12 branch "
                     "(freeipa changelog 4.12.2-19 \"Update fixes from ipa-4-12 branch\"); "
                     "which DoT state Fedora 42's build has was not established", sure=False),
        interfaces=Fact((GTK, TEXT, WEB_UI),
                        "fedora-42:anaconda.spec.in: anaconda-live Requires anaconda-gui; "
                        "Fedora 42 Workstation's live image runs the Web UI (Fedora 43 release "
                        "news: \"already adopted in Workstation 42\")", sure=False),
    ),
    Line(
        "fedora-43", "Fedora 43",
        anaconda=Fact("fedora-43 (anaconda 43.33+)", "rhinstaller/anaconda branch fedora-43; "
                      "tags up to anaconda-43.48"),
        pykickstart=Fact("3.65+", "fedora-43:anaconda.spec.in %define pykickstartver 3.65-1"),
        networkmanager=Fact("1.54.3", FEDORA_PACKAGES + "NetworkManager/NetworkManager-libnm/"
                            "fedora-43-updates.html (1.54.3-2.fc43; released with 1.54.0-2)"),
        networkmanager_backports=Fact((), "not needed: 1.54 has the port fix; Fedora's 1.54 "
                                      "changelog names no backport of the 1.56 changes"),
        dnsconfd=Fact("1.7.5", FEDORA_PACKAGES + "dnsconfd/dnsconfd-unbound (Fedora 43: "
                      "1.7.5-2.fc43)"),
        dracut=Fact("107", FEDORA_PACKAGES + "dracut/dracut-caps/fedora-43.html (107-8.fc43)"),
        systemd=Fact("258", FEDORA_PACKAGES + "systemd/systemd-libs (Fedora 43: 258.x.fc43)"),
        legacy_ca_bundle=Fact(False, _FEDORA_43_DROPPED),
        initramfs_anchors=Fact(False, _NO_APPEND.format(ref="fedora-43")),
        freeipa=Fact("4.12.5, 4.13.1 in updates", FEDORA_PACKAGES + "freeipa/freeipa-client/"
                     "fedora-43.html (4.12.5-3.fc43) and python3-ipaclient "
                     "fedora-43-updates-testing (4.13.1-5.fc43)"),
        interfaces=Fact((GTK, TEXT, WEB_UI), _SPEC_LIVE_WEBUI.format(ref="fedora-43")),
    ),
    Line(
        "fedora-44", "Fedora 44",
        anaconda=Fact("anaconda 44 (tags of main)", "no fedora-44 branch in rhinstaller/"
                      "anaconda: tags anaconda-44.x, up to anaconda-44.35"),
        pykickstart=Fact("3.70+", "anaconda-44.35:anaconda.spec.in %define pykickstartver "
                         "3.70-1"),
        networkmanager=Fact("1.56.0", FEDORA_PACKAGES + "NetworkManager/NetworkManager-libnm/"
                            "fedora-44-updates-testing.html (1.56.0-1.fc44; released with "
                            "1.55.91, 1.56-rc2)"),
        networkmanager_backports=Fact((), "not needed: 1.56 has both changes"),
        dnsconfd=Fact("1.7.5", FEDORA_PACKAGES + "dnsconfd/dnsconfd-unbound (Fedora 44: "
                      "1.7.5-4.fc44)"),
        dracut=Fact("108", FEDORA_PACKAGES + "dracut/dracut-caps/fedora-44-updates-testing"
                    ".html (108-6.fc44)"),
        systemd=Fact("259", FEDORA_PACKAGES + "systemd/systemd-libs (Fedora 44: 259.x.fc44)"),
        legacy_ca_bundle=Fact(False, _FEDORA_43_DROPPED + "; on Fedora 44 not even "
                              "/etc/pki/tls/cert.pem (FreeIPA commit d954eb244)"),
        initramfs_anchors=Fact(False, _NO_APPEND.format(ref="anaconda-44.35")),
        freeipa=Fact("4.13.1", FEDORA_PACKAGES + "freeipa/freeipa-client/fedora-44.html "
                     "(4.13.1-2.fc44)"),
        interfaces=Fact((GTK, TEXT, WEB_UI), _SPEC_LIVE_WEBUI.format(ref="anaconda-44.35")),
    ),
    Line(
        "main", "Anaconda main",
        anaconda=Fact("main (anaconda 45)", "rhinstaller/anaconda main, tag anaconda-45.21 at "
                      "its tip"),
        pykickstart=Fact("3.77+", "main:anaconda.spec.in %define pykickstartver 3.77-1"),
        networkmanager=Fact("1.56.0", "at least Fedora 44's (rawhide moves on; upstream's "
                            "newest release is 1.58.1)", sure=False),
        networkmanager_backports=Fact((), "not needed: 1.56 or later"),
        dnsconfd=Fact("1.7.5", FEDORA_PACKAGES + "dnsconfd/dnsconfd-unbound (Rawhide: "
                      "1.7.5-4.fc44)", sure=False),
        dracut=Fact("111", FEDORA_PACKAGES + "dracut/dracut/fedora-45.html (111-1.fc45)"),
        systemd=Fact("262", FEDORA_PACKAGES + "systemd/systemd-sysusers (Fedora 45: "
                     "262.1-1.fc45)"),
        legacy_ca_bundle=Fact(False, _FEDORA_43_DROPPED),
        initramfs_anchors=Fact(True, _APPENDS.format(ref="main")),
        freeipa=Fact("4.13", FEDORA_PACKAGES + "freeipa/freeipa-client/fedora-45.html "
                     "(4.13.2-1.fc45)"),
        interfaces=Fact((GTK, TEXT, WEB_UI),
                        "main:anaconda.spec.in: anaconda Requires anaconda-gui only with "
                        "fedora-release-identity-server or -basic (Server, Everything), else "
                        "anaconda-webui; anaconda-live Requires anaconda-webui; the Web UI "
                        "loads no addon screens (pyanaconda/anaconda.py: addon_paths = [])"),
    ),
)

LINE_KEYS = tuple(line.key for line in LINES)
_BY_KEY = {line.key: line for line in LINES}


def line_named(key):
    """The ``Line`` whose key is KEY (KeyError otherwise)."""
    return _BY_KEY[key]


def names(lines):
    """The names of LINES, as a sentence lists them ("EL9, EL10, Fedora 42")."""
    return ", ".join(line.name for line in lines)


def lines_with(change, lines=LINES):
    """Those of LINES whose NetworkManager has CHANGE."""
    return tuple(line for line in lines if line.has(change))


def lines_without(change, lines=LINES):
    """Those of LINES whose NetworkManager lacks CHANGE, or may (not established)."""
    return tuple(line for line in lines if line.has(change) is not True)


# --- the line at run time ------------------------------------------------------------------

_OS_RELEASE_LINE = re.compile(r'^([A-Z0-9_]+)=(?:"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|(\S*))\s*$')
# Distributions built from RHEL's sources, as their os-release says (ID or ID_LIKE).
_EL_IDS = ("rhel", "centos", "almalinux", "rocky", "ol")


def read_os_release(text):
    """{KEY: value} of an os-release(5) TEXT (quotes and backslash escapes undone)."""
    values = {}
    for line in text.splitlines():
        match = _OS_RELEASE_LINE.match(line.strip())
        if match:
            quoted = match.group(2)
            value = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else \
                (match.group(3) if match.group(3) is not None else match.group(4))
            values[match.group(1)] = value
    return values


def detect_line(os_release_text, networkmanager_version=None, source=""):
    """The ``Line`` an installer runs, from its os-release TEXT, with the NetworkManager
    version read from it (NETWORKMANAGER_VERSION, SOURCE saying how) in place of the
    table's; None when the os-release names no line of the table."""
    values = read_os_release(os_release_text or "")
    ids = [values.get("ID", "")] + values.get("ID_LIKE", "").split()
    major = version_tuple(values.get("VERSION_ID", ""))
    line = None
    if values.get("ID") == "fedora":
        if values.get("VERSION_ID") == "rawhide" or (major and major[0] > 44):
            line = line_named("main")
        elif major and "fedora-%d" % major[0] in _BY_KEY:
            line = line_named("fedora-%d" % major[0])
    elif any(name in _EL_IDS for name in ids) and major and "el%d" % major[0] in _BY_KEY:
        line = line_named("el%d" % major[0])
    if line is not None and version_tuple(networkmanager_version) is not None:
        line = line.with_networkmanager(networkmanager_version.strip(), source)
    return line


OS_RELEASE_PATHS = ("/etc/os-release", "/usr/lib/os-release")
NETWORKMANAGER_VERSION_COMMAND = ("NetworkManager", "--version")


def networkmanager_version(command=NETWORKMANAGER_VERSION_COMMAND):
    """What ``NetworkManager --version`` (COMMAND) prints, or None when it cannot run."""
    try:
        result = subprocess.run(list(command), capture_output=True, text=True, timeout=30,
                                check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    text = result.stdout.strip()
    return text if result.returncode == 0 and version_tuple(text) else None


def installer_line(root="/", version=None, source=None):
    """The ``Line`` of the system at ROOT, from its os-release(5), with NetworkManager's
    VERSION read from the running system (SOURCE says how; without it, ``NetworkManager
    --version``); None when its os-release names no line of the table."""
    text = ""
    for path in OS_RELEASE_PATHS:
        try:
            with open(os.path.join(root, path.lstrip("/")), encoding="utf-8",
                      errors="replace") as stream:
                text = stream.read(65536)
            break
        except OSError:
            continue
    if version is None:
        version = networkmanager_version()
        source = " ".join(NETWORKMANAGER_VERSION_COMMAND)
    return detect_line(text, version, source or "")


# --- the table of docs/support-matrix.md (docparts.py) --------------------------------------

_ROWS = (("Anaconda", "anaconda"), ("pykickstart", "pykickstart"),
         ("NetworkManager", "networkmanager"), ("dnsconfd", "dnsconfd"),
         ("dracut", "dracut"), ("systemd", "systemd"),
         ("`/etc/pki/tls/certs/ca-bundle.crt`", "legacy_ca_bundle"),
         ("initramfs adds anchors to the system store", "initramfs_anchors"),
         ("FreeIPA client", "freeipa"), ("interfaces", "interfaces"))


def _shown(fact, notes):
    if fact.value is None:
        text = "unknown"
    elif fact.value is True:
        text = "yes"
    elif fact.value is False:
        text = "no"
    elif isinstance(fact.value, tuple):
        text = ", ".join(fact.value) or "none"
    else:
        text = str(fact.value)
    if not fact.sure:
        text += " (?)"
    if fact.source not in notes:
        notes.append(fact.source)
    return "%s [%d]" % (text, notes.index(fact.source) + 1)


def markdown(lines=LINES):
    """The table of LINES and its sources, as docs/support-matrix.md holds it."""
    notes = []
    out = ["| | " + " | ".join(line.name for line in lines) + " |",
           "|---|" + "---|" * len(lines)]
    for title, attribute in _ROWS:
        out.append("| %s | %s |" % (title, " | ".join(
            _shown(getattr(line, attribute), notes) for line in lines)))
    for change in NETWORKMANAGER_CHANGES:
        cells = []
        for line in lines:
            has = line.has(change)
            cells.append("unknown" if has is None else ("yes" if has else "no"))
        out.append("| NetworkManager: %s (from %s) | %s |" % (
            change.what, ".".join(map(str, change.since)), " | ".join(cells)))
    out += ["", "(?) a lower bound, or read from an indirect source. Sources:", ""]
    out += ["%d. %s" % (number, note) for number, note in enumerate(notes, 1)]
    out += ["", "NetworkManager's changes, upstream (%s):" % NM_REPOSITORY, ""]
    out += ["- %s: %s" % (".".join(map(str, change.since)), change.commit)
            for change in NETWORKMANAGER_CHANGES]
    return "\n".join(out) + "\n"
