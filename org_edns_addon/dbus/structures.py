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

"""The structures the module's D-Bus interface shares with its clients (the text UI, tests).

Plain dasbus ``DBusData``: field types come from the annotations. Every
structure read from a client checks that each field has the type it
declares (dasbus itself would take a string for a list of strings and split
it into letters), and names and lists of names are checked for their size
before anything reads them (``checked_name``, ``checked_names``).
"""

from dasbus.structure import DBusData, DBusStructureError, get_fields
from dasbus.typing import Bool, Double, List, Str, Structure, UInt16, get_dbus_type  # noqa: F401

from org_edns_addon.constants import MAX_DBUS_NAME_CHARS, MAX_NAMES_PER_LIST
from org_edns_addon.echo import echo, unshown
from org_edns_addon.i18n import _
from org_edns_addon.model import Backend, DotServer, ResolveMode
from org_edns_addon.problems import ListOf, ModelError


def checked_name(value, what):
    """VALUE, a name given over D-Bus; ``ModelError`` when it is longer than any name
    (``MAX_DBUS_NAME_CHARS``), before a rule echoes all of it."""
    if isinstance(value, str) and len(value) > MAX_DBUS_NAME_CHARS:
        raise ModelError(_("the %s %s is longer than %d characters; no %s is")
                         % (what, echo(value), MAX_DBUS_NAME_CHARS, what))
    # No name holds a control character (each rule refuses one); said here, the value
    # is quoted short and escaped, whatever rule would have quoted it.
    if isinstance(value, str) and unshown(value):
        raise ModelError(_("the %s %s holds a control character or a line separator; give "
                           "it without") % (what, echo(value)))
    return value


def checked_names(values, what, items):
    """VALUES, a list of names given over D-Bus, each checked by ``checked_name`` (WHAT
    names one); ``ModelError`` for more than ``MAX_NAMES_PER_LIST`` (ITEMS, a ``ListOf``,
    says which list)."""
    if len(values) > MAX_NAMES_PER_LIST:
        raise ModelError(items.too_many(len(values), MAX_NAMES_PER_LIST))
    return [checked_name(value, what) for value in values]


class TypeChecked:
    """A mixin for ``DBusData``: refuse a field whose variant is not of the declared type."""

    @classmethod
    def from_structure(cls, structure):
        if isinstance(structure, dict):
            fields = get_fields(cls)
            for name, variant in structure.items():
                field = fields.get(name)
                if field is None:
                    raise DBusStructureError(_("there is no field %s; the fields are %s")
                                             % (echo(name), ", ".join(sorted(fields))))
                expected = get_dbus_type(field.type_hint)
                if hasattr(variant, "get_type_string") and \
                        variant.get_type_string() != expected:
                    raise DBusStructureError(_("the field %r must be of type %r, not %s")
                                             % (name, expected,
                                                echo(variant.get_type_string())))
        return super().from_structure(structure)


class ServerAddressData(TypeChecked, DBusData):
    """Where a DNS server is: the fields every structure about a server starts with."""

    def __init__(self):
        self._address = ""
        self._port = 0
        self._name = ""

    @property
    def address(self) -> Str:
        return self._address

    @address.setter
    def address(self, value: Str):
        self._address = value

    @property
    def port(self) -> UInt16:
        return self._port

    @port.setter
    def port(self, value: UInt16):
        self._port = value

    @property
    def name(self) -> Str:
        return self._name

    @name.setter
    def name(self, value: Str):
        self._name = value

    @classmethod
    def at_server(cls, server):
        """A structure with the address, port and TLS name of SERVER (a ``DotServer``)."""
        data = cls()
        data.address = str(server.address)
        data.port = server.port
        data.name = server.name or ""
        return data


class DotServerData(ServerAddressData):
    """One DNS server: ``address``, ``port`` (0: the default, 853 or 53 for
    plaintext), TLS ``name`` ("" for none), routed ``domains`` (empty: every
    domain) and ``tls`` (False: plaintext)."""

    def __init__(self):
        super().__init__()
        self._domains = []
        self._tls = True

    @property
    def domains(self) -> List[Str]:
        return self._domains

    @domains.setter
    def domains(self, value: List[Str]):
        self._domains = list(value)

    @property
    def tls(self) -> Bool:
        return self._tls

    @tls.setter
    def tls(self, value: Bool):
        self._tls = value

    @classmethod
    def from_server(cls, server):
        """The structure of a model ``DotServer``."""
        data = cls.at_server(server)
        data.domains = list(server.domains)
        data.tls = server.tls
        return data

    def to_server(self):
        """The model ``DotServer``; raises ``ModelError`` for a bad field."""
        return DotServer.from_parts(checked_name(self.address, _("address")), self.port or None,
                                    checked_name(self.name, _("TLS name")),
                                    checked_names(self.domains, _("domain"),
                                                  ListOf.ROUTED_DOMAINS), self.tls)


class ConfigurationData(TypeChecked, DBusData):
    """The whole configuration in one structure, so that it is read and set at once:
    ``servers`` (``DotServerData`` structures), ``resolve-mode`` (exclusive, prefer or
    backup), ``backend`` (dnsconfd or unbound), ``search-domains`` and ``ca-names`` (the
    ``%certificate --filename`` names that alone authenticate the servers). A field left
    out takes the value of a fresh module."""

    def __init__(self):
        self._servers = []
        self._resolve_mode = ResolveMode.EXCLUSIVE.value
        self._backend = Backend.DNSCONFD.value
        self._search_domains = []
        self._ca_names = []

    @property
    def servers(self) -> List[Structure]:
        return self._servers

    @servers.setter
    def servers(self, value: List[Structure]):
        self._servers = list(value)

    @property
    def resolve_mode(self) -> Str:
        return self._resolve_mode

    @resolve_mode.setter
    def resolve_mode(self, value: Str):
        self._resolve_mode = value

    @property
    def backend(self) -> Str:
        return self._backend

    @backend.setter
    def backend(self, value: Str):
        self._backend = value

    @property
    def search_domains(self) -> List[Str]:
        return self._search_domains

    @search_domains.setter
    def search_domains(self, value: List[Str]):
        self._search_domains = list(value)

    @property
    def ca_names(self) -> List[Str]:
        return self._ca_names

    @ca_names.setter
    def ca_names(self, value: List[Str]):
        self._ca_names = list(value)

    @classmethod
    def from_config(cls, config):
        """The structure of a model ``EdnsConfig``."""
        data = cls()
        data.servers = DotServerData.to_structure_list(
            [DotServerData.from_server(server) for server in config.servers])
        data.resolve_mode = config.resolve_mode.value
        data.backend = config.backend.value
        data.search_domains = list(config.searches)
        data.ca_names = list(config.ca_names)
        return data

    def to_values(self):
        """The keyword arguments of ``EdnsState.set_configuration``: names checked for
        their size, servers made ``DotServer``s; the rules on the values are the state's.
        ``ModelError`` for a bad field."""
        return {
            "servers": [data.to_server()
                        for data in DotServerData.from_structure_list(self.servers)],
            "resolve_mode": checked_name(self.resolve_mode, _("resolve mode")),
            "backend": checked_name(self.backend, _("backend")),
            "search_domains": checked_names(self.search_domains, _("search domain"),
                                            ListOf.SEARCH_DOMAINS),
            "ca_names": checked_names(self.ca_names, _("--ca name"), ListOf.CA_NAMES)}


class ServerCheckData(ServerAddressData):
    """The pre-flight check of one server: its ``address``, ``port`` and TLS
    ``name``; the ``outcome`` ("ok", else why not: a ``probe.Outcome`` value);
    ``reason``, a sentence; ``rtt_ms`` (``rtt-ms`` on D-Bus), the time to the
    answer in milliseconds (0 unless ok), and ``handshake_ms`` (``handshake-ms``) the
    part of it until the TLS handshake was done (0 unless ok over TLS)."""

    def __init__(self):
        super().__init__()
        self._outcome = ""
        self._reason = ""
        self._rtt_ms = 0.0
        self._handshake_ms = 0.0

    @property
    def outcome(self) -> Str:
        return self._outcome

    @outcome.setter
    def outcome(self, value: Str):
        self._outcome = value

    @property
    def reason(self) -> Str:
        return self._reason

    @reason.setter
    def reason(self, value: Str):
        self._reason = value

    @property
    def rtt_ms(self) -> Double:
        return self._rtt_ms

    @rtt_ms.setter
    def rtt_ms(self, value: Double):
        self._rtt_ms = value

    @property
    def handshake_ms(self) -> Double:
        return self._handshake_ms

    @handshake_ms.setter
    def handshake_ms(self, value: Double):
        self._handshake_ms = value

    @classmethod
    def structures_of(cls, checks):
        """The structures of ``probe.ServerCheck`` results CHECKS, in their order."""
        data = []
        for check in checks:
            item = cls.at_server(check.server)
            item.outcome = check.outcome.value
            item.reason = check.reason
            item.rtt_ms = check.rtt_ms or 0.0
            item.handshake_ms = check.handshake_ms or 0.0
            data.append(item)
        return cls.to_structure_list(data)


class CertificateData(TypeChecked, DBusData):
    """One ``%certificate`` (a ``KickstartCertificate`` on the wire): the fields of Anaconda's
    ``CertificateData`` (the Security module's ``Certificates``), so one reader takes
    both lists: ``filename``, ``cert`` (the PEM text), ``dir`` and ``type`` ("" when not
    given); and ``added``: True when it was added in the installer (``AddCertificate``),
    False when it is the kickstart's."""

    def __init__(self):
        self._filename = ""
        self._cert = ""
        self._dir = ""
        self._type = ""
        self._added = False

    @property
    def filename(self) -> Str:
        return self._filename

    @filename.setter
    def filename(self, value: Str):
        self._filename = value

    @property
    def cert(self) -> Str:
        return self._cert

    @cert.setter
    def cert(self, value: Str):
        self._cert = value

    @property
    def dir(self) -> Str:
        return self._dir

    @dir.setter
    def dir(self, value: Str):
        self._dir = value

    @property
    def type(self) -> Str:
        return self._type

    @type.setter
    def type(self, value: Str):
        self._type = value

    @property
    def added(self) -> Bool:
        return self._added

    @added.setter
    def added(self, value: Bool):
        self._added = value

    @classmethod
    def of_certificate(cls, certificate):
        """The structure of a ``KickstartCertificate``."""
        data = cls()
        data.filename = certificate.filename
        data.cert = certificate.pem
        data.dir = certificate.directory or ""
        data.type = certificate.cert_type or ""
        data.added = certificate.added
        return data

    def to_certificate(self):
        """The ``KickstartCertificate``; raises ``CertificateError`` for a bad field or PEM."""
        from org_edns_addon.certificates.kickstart import KickstartCertificate
        return KickstartCertificate.from_section(self.filename, self.cert, self.dir or None,
                                          self.type or None, added=self.added)


class ValidationReport(TypeChecked, DBusData):
    """The errors and warnings of a configuration, the wire shape of Anaconda's
    ``pyanaconda.modules.common.structures.validation.ValidationReport``."""

    def __init__(self):
        self._error_messages = []
        self._warning_messages = []

    @property
    def error_messages(self) -> List[Str]:
        return self._error_messages

    @error_messages.setter
    def error_messages(self, messages: List[Str]):
        self._error_messages = list(messages)

    @property
    def warning_messages(self) -> List[Str]:
        return self._warning_messages

    @warning_messages.setter
    def warning_messages(self, messages: List[Str]):
        self._warning_messages = list(messages)

    def is_valid(self):
        return not self._error_messages

    @classmethod
    def of_problems(cls, problems):
        """The report of model ``Problem``s."""
        from org_edns_addon.problems import Severity
        report = cls()
        report.error_messages = [p.message for p in problems if p.severity == Severity.ERROR]
        report.warning_messages = [p.message for p in problems
                                   if p.severity == Severity.WARNING]
        return report
