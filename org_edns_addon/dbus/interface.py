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

"""The addon's own D-Bus interface: a plain dasbus interface template.

Importable without pyanaconda: tests and the benchmark publish it on a
private bus (``org_edns_addon.dbus.standalone``); the Anaconda module interface
(``service/edns_interface.py``) adds its members, and its task method, to
Anaconda's ``KickstartModuleInterface``. It only translates between D-Bus
types and the state; every value is checked at this edge, and a bad one is
answered with the D-Bus error ``InvalidValue`` while the service keeps running.
"""

from dasbus.server.interface import dbus_interface
from dasbus.server.property import emits_properties_changed
from dasbus.server.template import InterfaceTemplate
from dasbus.typing import Double, List, Str, Structure

from org_edns_addon.certificates.kickstart import KickstartCertificate
from org_edns_addon.certificates.pem import CertificateError
from org_edns_addon.constants import (DBUS_CHECK_TIMEOUT_MAX_SECONDS, DOT_CA_DIR,
                                      MAX_DBUS_CALL_BYTES, MAX_NAMES_PER_LIST, MAX_SERVERS)
from org_edns_addon.dbus.errors import (CheckRunningError, InvalidValueError,
                                        refusing_invalid_configuration, refusing_invalid_values)
from org_edns_addon.dbus.handler import ReplyLater, WorkQueue
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.dbus.structures import (CertificateData, ConfigurationData, ServerCheckData,
                                            ValidationReport, checked_name)
from org_edns_addon.echo import echo
from org_edns_addon.i18n import _
from org_edns_addon.problems import ListOf, ModelError
from org_edns_addon.terms import on_screen

PROPERTIES_INTERFACE = "org.freedesktop.DBus.Properties"


class EdnsInterfaceMembers(InterfaceTemplate):
    """Properties and methods of the encrypted DNS module (implementation:
    ``EdnsState``), not yet named as an interface.

    ``EdnsInterfaceTemplate`` names them ``EDNS.interface_name``; the Anaconda
    module's interface names them together with its task method (dasbus builds
    one interface from the members of the class it decorates, so a second
    declaration of a name would replace the first one's members).
    """

    # Sent as invalidated in PropertiesChanged, without its value: a client that wants it
    # reads it. Certificates can hold megabytes; sending the whole list after each
    # AddCertificate made adding N certificates cost O(N²) on the bus.
    INVALIDATED_PROPERTIES = frozenset(["Certificates"])
    # The most items of each list field of Configuration, counted before dasbus reads any.
    MAX_ITEMS = {"servers": (MAX_SERVERS, ListOf.SERVERS),
                 "search-domains": (MAX_NAMES_PER_LIST, ListOf.SEARCH_DOMAINS),
                 "ca-names": (MAX_NAMES_PER_LIST, ListOf.CA_NAMES)}

    def __init__(self, implementation):
        # Before the template's __init__, which connects the signals.
        self._invalidated = set()
        self._check_running = False
        # Certificates are read beside the main loop, one after another, in call order.
        self._certificate_reader = WorkQueue("edns-certificate-reader")
        super().__init__(implementation)

    def check_call(self, interface_name, method_name, parameters):
        """Refuse a call to these members whose values are too large before they are read:
        PARAMETERS is the call's ``GLib.Variant`` (``dbus.handler.EdnsObjectHandler`` asks).
        Other interfaces' calls pass: Anaconda's boss sends the module its part of a
        kickstart (up to ``MAX_KICKSTART_BYTES``) in one ``ReadKickstart``."""
        if parameters is None:
            return
        setting = (interface_name, method_name) == (PROPERTIES_INTERFACE, "Set") and \
            parameters.get_child_value(0).get_string() == EDNS.interface_name
        if interface_name != EDNS.interface_name and not setting:
            return
        if parameters.get_size() > MAX_DBUS_CALL_BYTES:
            raise InvalidValueError(_("the values of this call take %d bytes; give at most "
                                      "%d") % (parameters.get_size(), MAX_DBUS_CALL_BYTES))
        if setting:
            value = parameters.get_child_value(2).get_variant()
            if value.get_type_string() == "a{sv}":
                for field in self.MAX_ITEMS:
                    part = value.lookup_value(field, None)
                    if part is not None:
                        self._check_items(field, part)

    def _check_items(self, field, value):
        """Refuse VALUE (a ``GLib.Variant``) for the list FIELD of Configuration when it
        holds more items than ``MAX_ITEMS`` allows (or its servers route too many domains)."""
        limit, items = self.MAX_ITEMS[field]
        if not value.get_type_string().startswith("a"):
            return
        if value.n_children() > limit:
            raise InvalidValueError(items.too_many(value.n_children(), limit))
        if field == "servers":
            routed = sum(_routed_domains(value.get_child_value(index))
                         for index in range(value.n_children()))
            if routed > MAX_NAMES_PER_LIST:
                raise InvalidValueError(ListOf.ROUTED_DOMAINS.too_many(routed,
                                                                       MAX_NAMES_PER_LIST))

    def report_changed_property(self, property_name):
        if property_name in self.INVALIDATED_PROPERTIES:
            self._invalidated.add(property_name)
        else:
            super().report_changed_property(property_name)

    def flush_changes(self):
        invalidated, self._invalidated = sorted(self._invalidated), set()
        requests = dict(self._properties_changes.flush())
        if invalidated:
            requests.setdefault(EDNS.interface_name, {})
        for interface, changes in requests.items():
            self.PropertiesChanged(interface, changes,
                                   invalidated if interface == EDNS.interface_name else [])

    def connect_signals(self):
        super().connect_signals()
        self.watch_property("Configuration", self.implementation.config_changed)
        self.watch_property("Certificates", self.implementation.certificates_changed)

    @property
    def Configuration(self) -> Structure:
        """The whole configuration in one ``ConfigurationData`` structure: the servers,
        the resolve mode, the backend, the search domains and the ``--ca`` names. It is
        the one way to read and set them, as Anaconda's modules have one property per
        concept (the Security module's ``Realm`` structure). Set it to change them all
        at once: a value the module refuses (``InvalidValue``) refuses the whole, and
        nothing changes."""
        return ConfigurationData.to_structure(
            ConfigurationData.from_config(self.implementation.config))

    @Configuration.setter
    @emits_properties_changed
    def Configuration(self, configuration: Structure):
        with refusing_invalid_values():
            self.implementation.set_configuration(
                **ConfigurationData.from_structure(configuration).to_values())

    @property
    def Certificates(self) -> List[Structure]:
        """Every ``%certificate`` ``ca-names`` may name (``CertificateData`` structures):
        the kickstart's, then those added by ``AddCertificate``. A change is signalled
        without the value (``PropertiesChanged`` lists it as invalidated)."""
        return CertificateData.to_structure_list(
            [CertificateData.of_certificate(cert) for cert in self.implementation.certificates])

    @property
    def JudgedLines(self) -> List[Str]:
        """The installer lines (``lines.LINE_KEYS``) whose behaviour ``Validate`` judges the
        configuration for: the line of the installer the module runs in, or the one the
        stand-alone service was given; empty for every line. A user interface judges its
        edits for the same lines."""
        return [line.key for line in self.implementation.lines or ()]

    def AddCertificate(self, filename: Str, pem: Str):
        """Add ``%certificate --filename=FILENAME --dir=/etc/pki/dns/`` holding the CA
        certificate(s) of the PEM text; it is written and generated into the kickstart
        with the configuration. Refused (``InvalidValue``) as the kickstart rules refuse
        a ``--ca`` certificate: a private key, anything but certificate blocks, a
        certificate that is not a CA or not valid now, a file name that is not plain or
        is taken. Name it in ``Configuration``'s ``ca-names`` to authenticate the servers
        with it. The PEM text is read beside the service, which answers other calls
        meanwhile."""
        with refusing_invalid_values():
            checked_name(filename, _("certificate file name"))
        return ReplyLater(_certificate_of, filename, pem, then=self._add_certificate,
                          work_queue=self._certificate_reader)

    def _add_certificate(self, cert):
        with refusing_invalid_values():
            self.implementation.add_certificate(cert)
        self.flush_changes()

    def Validate(self) -> Structure:
        """Every problem of the current configuration: a ``ValidationReport`` structure
        (``error-messages``, ``warning-messages``), valid when it can be applied."""
        return ValidationReport.to_structure(
            ValidationReport.of_problems(self.implementation.problems()))

    def CheckServers(self, timeout: Double) -> List[Structure]:
        """Check every server now, all of them within TIMEOUT seconds (at most
        ``DBUS_CHECK_TIMEOUT_MAX_SECONDS``), with the trust the installation will use:
        ``ServerCheckData`` structures in the order of the configuration's servers. The
        check runs beside the service, which answers other calls meanwhile; one runs at a
        time, and a call while one runs is refused (``CheckRunning``). Anaconda's module
        also offers ``CheckServersWithTask``."""
        if not 0 < timeout <= DBUS_CHECK_TIMEOUT_MAX_SECONDS:
            raise InvalidValueError(_("%s is not a number of seconds from 0 to %g")
                                    % (echo(timeout), DBUS_CHECK_TIMEOUT_MAX_SECONDS))
        if self._check_running:
            raise CheckRunningError(_("a check of the DNS servers is running already; call "
                                      "CheckServers again when it has answered"))
        with refusing_invalid_configuration():
            # Read now, in the main loop: later changes do not touch the running check.
            data = self.implementation.staging_input()
        self._check_running = True
        return ReplyLater(_checked_servers, data, timeout, finished=self._check_finished)

    def _check_finished(self):
        self._check_running = False


def _routed_domains(server):
    """How many routed domains the ``DotServerData`` variant SERVER lists (0 when its
    ``domains`` is of another type: ``TypeChecked`` refuses that)."""
    domains = server.lookup_value("domains", None)
    return domains.n_children() if domains is not None and \
        domains.get_type_string() == "as" else 0


def _certificate_of(filename, pem):
    """The ``KickstartCertificate`` FILENAME of the PEM text, in a worker thread; ``InvalidValue``
    naming the line of a problem."""
    with refusing_invalid_values():
        try:
            return KickstartCertificate.from_section(filename, pem, DOT_CA_DIR, added=True)
        except CertificateError as error:
            raise ModelError(error.sentence(filename)) from None


def _checked_servers(data, timeout):
    """The ``ServerCheckData`` structures of checking the servers of DATA (a
    ``StagingInput``), in a worker thread; their sentences in the screens' words, for
    the user interface that asked (``edns-addon check`` checks in its own process)."""
    from org_edns_addon.probe.check import check_staging_input
    # The whole check within TIMEOUT (every server at once, ``probe.check_servers``'s
    # WITHIN): the reply comes before the caller stops waiting (a D-Bus caller's 25 s,
    # DBUS_CHECK_TIMEOUT_MAX_SECONDS), and the next check is taken once it has come.
    with on_screen():
        checks = check_staging_input(data, timeout=timeout, within=timeout)
    return ServerCheckData.structures_of(checks)


@dbus_interface(EDNS.interface_name)
class EdnsInterfaceTemplate(EdnsInterfaceMembers):
    """The interface of the encrypted DNS module, without Anaconda's parts."""
