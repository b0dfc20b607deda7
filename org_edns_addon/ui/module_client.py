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

"""A user interface and the encrypted DNS module over D-Bus: read, write and judge its state.

Pure (dasbus only, no pyanaconda): both Anaconda spokes use it on Anaconda's
bus, tests on a private bus with the module of ``org_edns_addon.dbus.standalone``.
MODULE is a proxy of the addon's interface (``EdnsInterfaceTemplate``).
"""

import logging
from dataclasses import dataclass, replace

from dasbus.error import DBusError

from org_edns_addon.certificates.pem import CertificateError
from org_edns_addon.dbus.structures import (CertificateData, ConfigurationData, DotServerData,
                                            ValidationReport)
from org_edns_addon.i18n import _
from org_edns_addon.lines import LINE_KEYS, line_named
from org_edns_addon.model import Backend, EdnsConfig, ResolveMode
from org_edns_addon.state import EdnsState
from org_edns_addon.ui.editor import EditError, EdnsEditor
from org_edns_addon.ui.words import status_line

log = logging.getLogger(__name__)


def read_config(module):
    """The module's configuration as an ``EdnsConfig``, read at once (``Configuration``)."""
    data = ConfigurationData.from_structure(module.Configuration)
    return EdnsConfig(
        servers=tuple(server.to_server()
                      for server in DotServerData.from_structure_list(data.servers)),
        resolve_mode=ResolveMode(data.resolve_mode),
        backend=Backend(data.backend),
        searches=tuple(data.search_domains),
        ca_names=tuple(data.ca_names))


def read_certificates(structures):
    """``KickstartCertificate``s of ``CertificateData`` structures (the module's ``Certificates``,
    or the Security module's, whose fields they share); one that is not valid cannot be
    named and is left out."""
    found = []
    for data in CertificateData.from_structure_list(structures):
        try:
            found.append(data.to_certificate())
        except CertificateError as error:
            log.info("Left out the certificate %s: %s", data.filename, error)
    return found


def read_editor(module):
    """An editor on a copy of the module's state (its configuration and certificates),
    judging for the installer lines the module judges for (``JudgedLines``)."""
    state = EdnsState(read_config(module), read_certificates(module.Certificates))
    state.lines = tuple(line_named(key) for key in module.JudgedLines
                        if key in LINE_KEYS) or None
    return EdnsEditor(state)


def write_config(module, config):
    """Set the module's whole configuration to CONFIG in one call (``Configuration``):
    the module takes it all or refuses it all, and a refusal becomes EditError."""
    try:
        module.Configuration = ConfigurationData.to_structure(
            ConfigurationData.from_config(config))
    except DBusError as error:
        raise EditError(_("the installer refused the configuration: %s") % error) from None


def write_editor(module, editor):
    """Write EDITOR's configuration, then add the certificates added in it that the module
    does not have yet (an earlier write may have added some); a refusal becomes EditError.

    The configuration goes first: the module takes it whole or refuses it whole, so a
    refused one leaves the module as it was, certificates included (the module takes a
    ``--ca`` name before its certificate; until it comes, ``Validate`` says so). The
    editor checked each certificate with the module's own rules, so the module refuses
    one only when something else changed it since it was read (another client, the
    clock): then the configuration it had is put back, and certificates added before
    that one in this write stay, named by no ``--ca``."""
    before = module.Configuration
    write_config(module, editor.config)
    present = {data.filename: data.cert for data in CertificateData.from_structure_list(
        module.Certificates)}
    for cert in editor.added_certificates:
        if present.get(cert.filename) == cert.pem:
            continue
        try:
            module.AddCertificate(cert.filename, cert.pem)
        except DBusError as error:
            _put_back(module, before)
            raise EditError(_("the installer refused the certificate %s: %s")
                            % (cert.filename, error)) from None


def _put_back(module, configuration):
    """Set the module's CONFIGURATION again (a structure it gave), after a later refusal."""
    try:
        module.Configuration = configuration
    except DBusError as error:
        log.warning("Could not put back the configuration: %s", error)


@dataclass(frozen=True)
class HubStatus:
    """What a hub shows of a spoke, as the module judges its configuration: whether
    there is one at all (``configured``), its ``errors``, and the status ``line``;
    ``undecided``: applying it to the installer failed and the person has not said yet
    whether to go on that way (``InstallerApply``)."""
    configured: bool
    errors: tuple
    line: str
    undecided: bool = False

    @property
    def completed(self):
        return self.configured and not self.errors and not self.undecided

    @property
    def mandatory(self):
        """Only a configuration with errors, or a failed apply the person has not decided
        about, stops the hub (Anaconda's warning icon, Begin Installation waits):
        encrypted DNS is optional, and a valid one (a kickstart's) needs nothing more."""
        return self.configured and (bool(self.errors) or self.undecided)


class InstallerApply:
    """What became of applying the configuration to the installer from a spoke (the
    module's ``ConfigureWithTasks``): ``running``; the ``failure`` (the task's sentence:
    what failed, what it means) until the person decides; and that decision,
    ``accept()``, to go on without encrypted DNS in the installer (the installed system
    still gets it). A new apply (``start``) forgets all of it."""

    def __init__(self):
        self.running = False
        self.failure = None
        self.accepted = False

    def start(self):
        self.running, self.failure, self.accepted = True, None, False

    def finished(self, failure=None):
        """The apply ended; FAILURE is its sentence if it failed."""
        self.running, self.failure = False, failure

    def accept(self):
        self.accepted = True

    @property
    def undecided(self):
        return self.failure is not None and not self.accepted

    def seen_by_hub(self, status):
        """STATUS (the module's ``HubStatus``) as the hub shows it with this apply."""
        if self.running:
            return replace(status, line=_("Applying encrypted DNS to the installer…"))
        if self.failure is None or not status.configured:
            return status
        if self.accepted:
            # TRANSLATORS: %s is the status line, like "2 DoT servers, exclusive".
            return replace(status, line=_("%s; installed system only") % status.line)
        return replace(status, line=_("Error applying encrypted DNS to the installer"),
                       undecided=True)


def hub_status(module):
    """The ``HubStatus`` of MODULE: not configured without servers, else judged by its
    ``Validate()``."""
    config = read_config(module)
    if not config.servers:
        return HubStatus(False, (), status_line(config, ()))
    report = ValidationReport.from_structure(module.Validate())
    errors = tuple(report.error_messages)
    return HubStatus(True, errors, status_line(config, errors))


class ModuleView:
    """The module's ``HubStatus``, read once and again only after the module changed.

    A hub asks a spoke for its status, whether it is completed and whether it
    is mandatory at every redraw; they all come from one read, renewed when
    the module emits ``PropertiesChanged`` or after this UI wrote to it.
    """

    def __init__(self, module):
        self._module = module
        self._status = None
        module.PropertiesChanged.connect(self._changed)

    def _changed(self, *_args):
        self._status = None

    def forget(self):
        """Read the module again next time (after writing to it)."""
        self._status = None

    @property
    def status(self):
        if self._status is None:
            self._status = hub_status(self._module)
        return self._status
