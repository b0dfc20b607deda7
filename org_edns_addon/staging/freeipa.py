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

"""FreeIPA's own DNS over TLS on the same host: handed over to, taken back, never mixed.

``ipa-client-install --dns-over-tls`` (ipaclient/install/client.py, client_dns)
writes its own Unbound forwarder, ``interface: 127.0.0.55`` and ``forward-zone:
"."``, as /etc/unbound/conf.d/zzz-ipa.conf, sets NetworkManager ``dns=none`` in
/etc/NetworkManager/conf.d/zzz-ipa.conf (read after ours, so it wins) and points
resolv.conf at 127.0.0.55. By branch state (lab/freeipa.py, STATES):

- No 4.12 release tag has DNS over TLS.
- The ipa-4-12 branch from 46ef43b2a ("Add DNS over TLS support") to bae780843
  (the branch EL builds come from) writes its file beside ours: unbound-checkconf
  refuses the pair ("interface: 127.0.0.55 present twice") and Unbound keeps our
  forward zone for ".". Its uninstall touches no Unbound file.
- From bae780843 on (the ipa-4-12 tip, every 4.13 tag and ipa-4-13) it first
  sets every other file of /etc/unbound/conf.d/ aside into its sysrestore
  directory (ours, dnsconfd-unbound's include), and stops and disables dnsconfd
  where it is running. Its uninstall removes its zzz-ipa.conf, then asks its
  FileStore for each set-aside file by a name the index does not hold
  (``os.path.join(UNBOUND_CONFIG_DIR, <sha256>-<name>)``; ipalib/sysrestore.py
  restore_file raises "No such file name in the index"): it stops there, with
  conf.d empty, and every later step of its uninstall (resolv.conf, its state)
  is skipped. A failed install's roll-back runs the same uninstall. Any file
  in conf.d makes it fail, ours or any package's, so no place of ours there can
  avoid it; Fedora's Unbound reads nothing else of ours.

So the installed system holds the decision itself, with --backend=unbound:
apply keeps a copy of our Unbound file outside conf.d (UNBOUND_CONF_KEPT_PATH,
which FreeIPA never sets aside), and ``edns-freeipa-handover.service``
(``handover_unit``), wanted by Unbound and ordered before it, runs before each
start of Unbound when FreeIPA's file is there (it takes ours out of conf.d: on
the older ipa-4-12 FreeIPA left it there) or ours is missing (it puts the kept
copy back: after any uninstall, failed or not). A %post that enrolls is a
warning (ks/rules.py). ``apply`` refuses a root where FreeIPA's client is
configured (uninstall it first) or has left its files (it names the commands
that put the root right: ``leftover_commands``).
"""

import configparser
import re
import shlex

from org_edns_addon import constants as c
from org_edns_addon.confinement import NotAFileError, PathKind, RootError, lexists, read_existing
from org_edns_addon.i18n import _
from org_edns_addon.staging import StagingError
from org_edns_addon.staging.networkmanager import GENERATED_HEADER

# What FreeIPA's sysrestore files may be before we stop reading them.
_SYSRESTORE_LIMIT = 1 << 20
# ipalib/sysrestore.py FileStore.backup_file: "{hexhash}-{bcppath}", the sha256 of the
# content and the file's name; its value "{mode},{uid},{gid},{path}".
_BACKUP_KEY = re.compile(r"[0-9a-f]{64}-[^/\x00-\x1f\x7f]+\Z")
_BACKUP_PATH = re.compile(r"[^\x00-\x1f\x7f]+\Z")


def handover_unit():
    """The unit file of FREEIPA_HANDOVER_UNIT. A restart of Unbound starts what Unbound
    Wants= (systemd's transaction pulls them in for restart jobs as for start jobs), and a
    oneshot is inactive again once it ran, so it runs before every start of Unbound, the
    conditions deciding: the kept copy exists and (FreeIPA's file is there, or ours is
    not: the conditions marked "|" trigger, systemd.unit(5))."""
    ours, kept, freeipa = c.UNBOUND_CONF_PATH, c.UNBOUND_CONF_KEPT_PATH, \
        c.FREEIPA_UNBOUND_CONF_PATH
    partial = ours + ".edns-new"
    script = "if [ -e %s ]; then exec rm -f %s; fi; cp %s %s && exec mv -f %s %s" % (
        freeipa, ours, kept, partial, partial, ours)
    return ("\n".join([
        GENERATED_HEADER,
        "# FreeIPA's ipa-client-install --dns-over-tls runs its own Unbound forwarder on",
        "# %s for every name. Its older 4.12 builds write it beside this addon's," % (
            c.UNBOUND_LISTEN_ADDRESS),
        "# which unbound-checkconf refuses; later ones set conf.d aside themselves, and",
        "# their uninstall stops before putting it back. Before Unbound starts: FreeIPA's",
        "# there, this addon's out of conf.d; FreeIPA's gone, this addon's back from",
        "# %s." % kept,
        "[Unit]",
        "Description=Hand Unbound over to FreeIPA's DNS over TLS forwarder, and take it back",
        "Before=%s" % c.UNBOUND_UNIT,
        "ConditionPathExists=%s" % kept,
        "ConditionPathExists=|%s" % freeipa,
        "ConditionPathExists=|!%s" % ours,
        "",
        "[Service]",
        "Type=oneshot",
        "ExecStart=%s -c '%s'" % (c.SH, script),
        "",
        "[Install]",
        "WantedBy=%s" % c.UNBOUND_UNIT]) + "\n").encode("ascii")


def _read_ini(root, path):
    """FreeIPA's sysrestore file PATH below ROOT as a ConfigParser (empty if absent or not
    readable as FreeIPA writes it: ConfigParser, interpolation off, names as written)."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    try:
        existing = read_existing(root.place(path), limit=_SYSRESTORE_LIMIT)
        if existing.kind is PathKind.FILE:
            parser.read_string(existing.content.decode("utf-8"))
    except (OSError, RootError, NotAFileError, UnicodeDecodeError, configparser.Error):
        return configparser.ConfigParser(interpolation=None)
    return parser


def _present(root, path):
    try:
        return lexists(root.place(path))
    except (OSError, RootError):
        return False


def freeipa_client_configured(root):
    """Whether FreeIPA's client counts itself installed in ROOT, as ipalib/facts.py
    is_ipa_client_configured decides: its state's [installation] complete (True while
    enrolled, and after an uninstall that stopped half-way), else any file it set aside
    or /etc/ipa/default.conf. Its uninstall refuses to run where this is False."""
    state = _read_ini(root, c.FREEIPA_SYSRESTORE_STATE_PATH)
    complete = state.get("installation", "complete", fallback=None)
    if complete is not None:
        return complete == "True"
    return bool(set_aside_files(root, everywhere=True)) or _present(root,
                                                                    c.FREEIPA_DEFAULT_CONF_PATH)


def set_aside_files(root, everywhere=False):
    """(key, original path) of each file FreeIPA's client set aside from
    /etc/unbound/conf.d/ (or from anywhere, with EVERYWHERE) and never put back: its index
    lists it, the copy is in its sysrestore directory and the original place is empty.
    This addon's own Unbound file is left out: apply writes it again."""
    index = _read_ini(root, c.FREEIPA_SYSRESTORE_INDEX_PATH)
    found = []
    for key, value in index.items("files") if index.has_section("files") else ():
        path = value.split(",", 3)[-1]
        if not (_BACKUP_KEY.match(key) and _BACKUP_PATH.match(path)
                and path.startswith("/") and "/../" not in path + "/"):
            continue
        if everywhere:
            found.append((key, path))
        elif (path.rsplit("/", 1)[0] == c.UNBOUND_CONF_DIR and path != c.UNBOUND_CONF_PATH
              and not _present(root, path)
              and _present(root, c.FREEIPA_SYSRESTORE_DIR + "/" + key)):
            found.append((key, path))
    return sorted(found, key=lambda item: item[1])


def _freeipa_files(root):
    return [path for path in (c.FREEIPA_UNBOUND_CONF_PATH, c.FREEIPA_NM_CONF_PATH)
            if _present(root, path)]


def leftover_commands(root):
    """The shell commands that remove what FreeIPA's client left in ROOT once it no longer
    counts itself installed, and put back what it set aside, paths as the user gives them."""
    present = _freeipa_files(root)
    commands = []
    if present:
        commands.append("rm -f " + " ".join(shlex.quote(root.shown(path)) for path in present))
    commands += ["cp -p %s %s" % (
        shlex.quote(root.shown(c.FREEIPA_SYSRESTORE_DIR + "/" + key)),
        shlex.quote(root.shown(path))) for key, path in set_aside_files(root)]
    return " && ".join(commands)


def refuse_beside_freeipa_dns_over_tls(plan, root):
    """Raise StagingError if ROOT (a ConfinedRoot) holds FreeIPA's DoT forwarder, or what
    its client left of it; the message names what puts the root right."""
    present = _freeipa_files(root)
    if not present:
        return
    unbound = any(planned.path == c.UNBOUND_CONF_PATH for planned in plan.files)
    configured = freeipa_client_configured(root)
    if configured and c.FREEIPA_UNBOUND_CONF_PATH not in present:
        raise StagingError(_(
            "nothing was written: %s exists and FreeIPA's client counts itself installed "
            "here, but its uninstall stopped half-way ('No such file name in the index'): "
            "its Unbound forwarder is gone and what it set aside from %s was never put "
            "back; run ipa-client-install --uninstall again, which completes it, and apply "
            "again, which then names what it left behind")
            % (root.shown(present[0]), root.shown(c.UNBOUND_CONF_DIR) + "/"))
    if configured:
        if unbound:
            clash = _("with this addon's %s beside it unbound-checkconf refuses both "
                      "('interface: %s present twice') and Unbound keeps one forward zone "
                      "for '.' of the two") % (root.shown(c.UNBOUND_CONF_PATH),
                                               c.UNBOUND_LISTEN_ADDRESS)
        else:
            clash = _("NetworkManager would never hand this addon's servers on (FreeIPA's "
                      "dns=none in %s is read after this addon's keyfile)") \
                % root.shown(c.FREEIPA_NM_CONF_PATH)
        raise StagingError(_(
            "nothing was written: %s exists and FreeIPA's client counts itself installed "
            "here: it runs encrypted DNS (ipa-client-install --dns-over-tls), its own "
            "Unbound on %s forwarding every name to the IPA server, and %s; keep one of the "
            "two: drop the encrypted DNS section, or uninstall FreeIPA's client "
            "(ipa-client-install --uninstall) and apply again, which then names what its "
            "uninstall left behind") % (root.shown(present[0]), c.UNBOUND_LISTEN_ADDRESS,
                                        clash))
    raise StagingError(_(
        "nothing was written: %s exists: FreeIPA's client has left this system "
        "(uninstalled, or its installation rolled back), but its uninstall removes neither "
        "its NetworkManager dns=none file nor, in 4.12 builds before its commit bae780843, "
        "its Unbound forwarder, and where it stopped with 'No such file name in the index' "
        "it did not put back what it had set aside from %s; remove and put back those "
        "files, then apply again: %s")
        % (root.shown(present[0]), root.shown(c.UNBOUND_CONF_DIR) + "/",
           leftover_commands(root)))
