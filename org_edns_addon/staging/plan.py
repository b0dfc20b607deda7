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

"""What one phase writes and runs: a ``Plan`` of files and actions for a ``StagingInput``.

Pure: building a plan reads nothing but which dracut modules the target has.
"""

import enum
from dataclasses import dataclass, replace
from typing import Optional, Tuple

from org_edns_addon import constants as c
from org_edns_addon.i18n import N_, _
from org_edns_addon.model import Backend, Phase
from org_edns_addon.staging.dnsconfd import unbound_after_dnsconfd
from org_edns_addon.staging.dracut import dracut_conf
from org_edns_addon.staging.freeipa import handover_unit
from org_edns_addon.staging.networkmanager import nm_keyfile
from org_edns_addon.staging.unbound import resolv_conf, unbound_conf


@dataclass(frozen=True)
class PlannedFile:
    path: str
    content: bytes
    mode: int


class ActionKind(str, enum.Enum):
    ENABLE_UNIT = "enable-unit"
    DISABLE_UNIT = "disable-unit"
    RELOAD_NETWORKMANAGER = "reload-networkmanager"
    RESTART_UNIT = "restart-unit"
    STOP_UNIT = "stop-unit"
    UPDATE_CA_TRUST = "update-ca-trust"


_ACTION_TEXT = {
    ActionKind.ENABLE_UNIT: N_("enable %s"),
    ActionKind.DISABLE_UNIT: N_("disable %s"),
    ActionKind.RESTART_UNIT: N_("restart %s"),
    ActionKind.STOP_UNIT: N_("stop %s"),
    ActionKind.RELOAD_NETWORKMANAGER: N_("reload NetworkManager"),
    ActionKind.UPDATE_CA_TRUST: " ".join(c.UPDATE_CA_TRUST_COMMAND),
}


@dataclass(frozen=True)
class Action:
    """Something to run after the files are written."""
    kind: ActionKind
    argument: Optional[str] = None

    def describe(self):
        # Whether there is a value to put in is the original sentence's to say: a
        # translation without its %s still gets it (i18n.Translated falls back).
        original = _ACTION_TEXT[self.kind]
        return _(original) % self.argument if "%s" in original else _(original)


@dataclass(frozen=True)
class Plan:
    phase: Phase
    files: Tuple[PlannedFile, ...]
    actions: Tuple[Action, ...]


def _resolver_unit(config):
    return c.UNBOUND_UNIT if config.backend == Backend.UNBOUND else c.DNSCONFD_UNIT


def unbound_dropin_file():
    """The unbound.service drop-in that holds Unbound back in an initramfs until dnsconfd
    has configured it (staging/dnsconfd.py): for the target's initramfs with dnsconfd, and
    the installer's overlay."""
    return PlannedFile(c.UNBOUND_DNSCONFD_DROPIN_PATH, unbound_after_dnsconfd(), c.FILE_MODE)


def build_plan(data, phase, root):
    """The files and actions of PHASE for DATA (a ``StagingInput``) below ROOT."""
    phase = Phase(phase)
    config = data.config
    files = [PlannedFile(cert.path, cert.file_content(), c.FILE_MODE)
             for cert in data.certificates]
    if data.trust.bundle is not None:
        files.append(PlannedFile(c.DOT_CA_BUNDLE_PATH, data.trust.bundle, c.FILE_MODE))
    files.append(PlannedFile(c.NM_KEYFILE_PATH, nm_keyfile(data), c.FILE_MODE))
    forward = unbound_conf(data) if config.backend == Backend.UNBOUND else None
    if forward is not None:
        files.append(PlannedFile(c.UNBOUND_CONF_PATH, forward, c.FILE_MODE))
        files.append(PlannedFile(c.RESOLV_CONF_PATH, resolv_conf(config), c.FILE_MODE))
    if phase == Phase.TARGET:
        files.append(PlannedFile(c.DRACUT_CONF_PATH, dracut_conf(data, root), c.FILE_MODE))
        if config.backend == Backend.DNSCONFD:
            # For its initramfs (the drop-in names it); inert in the installed system.
            files.append(unbound_dropin_file())
        if forward is not None:
            # What the handover unit puts back once FreeIPA's forwarder is gone
            # (staging/freeipa.py): outside conf.d, which FreeIPA sets aside.
            files.append(PlannedFile(c.UNBOUND_CONF_KEPT_PATH, forward, c.FILE_MODE))
            files.append(PlannedFile(c.FREEIPA_HANDOVER_UNIT_PATH, handover_unit(),
                                     c.FILE_MODE))

    actions = []
    if any(cert.is_anchor for cert in data.certificates):
        actions.append(Action(ActionKind.UPDATE_CA_TRUST))
    resolver = _resolver_unit(config)
    if phase == Phase.TARGET:
        actions.append(Action(ActionKind.ENABLE_UNIT, resolver))
        # With nss-resolve, programs would ask systemd-resolved directly, and it
        # would forward in plaintext to the DHCP servers: it must not run.
        actions.append(Action(ActionKind.DISABLE_UNIT, c.RESOLVED_UNIT))
        if config.backend == Backend.UNBOUND:
            # Anaconda's network module enables dnsconfd in the target whenever the
            # installer booted with rd.net.dns-backend=dnsconfd, which is our own boot
            # option (pyanaconda/modules/network/installation.py _enable_dnsconfd), and
            # runs before the addons. Left enabled, dnsconfd rewrites resolv.conf and
            # writes its own forward zone "." and tls-cert-bundle into the same Unbound
            # (dnsconfd-unbound's /etc/unbound/conf.d/unbound.conf, read after ours).
            actions.append(Action(ActionKind.DISABLE_UNIT, c.DNSCONFD_UNIT))
            actions.append(Action(ActionKind.ENABLE_UNIT, c.FREEIPA_HANDOVER_UNIT))
    else:
        actions.append(Action(ActionKind.RESTART_UNIT, resolver))
        actions.append(Action(ActionKind.RELOAD_NETWORKMANAGER))
    return Plan(phase, tuple(files), tuple(actions))


def initramfs_input(data):
    """DATA as an initramfs runs it: NM's initrd has only dnsconfd to speak DoT."""
    return replace(data, config=replace(data.config, backend=Backend.DNSCONFD))
