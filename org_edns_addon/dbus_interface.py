"""The addon's own D-Bus interface: a plain dasbus interface template.

Importable without pyanaconda: tests and the benchmark publish it on a
private bus (``org_edns_addon.dbus_service``); the Anaconda module interface
(``service/edns_interface.py``) adds its members, and its task method, to
Anaconda's ``KickstartModuleInterface``. It only translates between D-Bus
types and the model; every value is checked by the model, and a bad one is
answered with the D-Bus error ``INVALID_VALUE_ERROR`` while the service keeps
running.
"""

from contextlib import contextmanager

from dasbus.error import DBusError, ErrorRule
from dasbus.server.interface import dbus_interface
from dasbus.server.property import emits_properties_changed
from dasbus.server.template import InterfaceTemplate
from dasbus.structure import DBusData, DBusStructureError
from dasbus.typing import (Bool, Double, List, Str, Structure,  # pylint: disable=unused-import
                           UInt16)

from org_edns_addon.constants import DBUS_CHECK_TIMEOUT_MAX_SECONDS, DBUS_INTERFACE_NAME
from org_edns_addon.model import DotServer, ModelError

INVALID_VALUE_ERROR = DBUS_INTERFACE_NAME + ".Error.InvalidValue"
INVALID_CONFIGURATION_ERROR = DBUS_INTERFACE_NAME + ".Error.InvalidConfiguration"


class InvalidValueError(DBusError):
    """A value given over D-Bus is not valid; the message says why and how to fix it."""


class InvalidConfigurationError(DBusError):
    """The configuration has errors, so it cannot be used yet; the message lists them."""


def register_errors(error_mapper):
    """Map our exceptions to their D-Bus error names in ERROR_MAPPER (both ways)."""
    error_mapper.add_rule(ErrorRule(exception_type=InvalidValueError,
                                    error_name=INVALID_VALUE_ERROR))
    error_mapper.add_rule(ErrorRule(exception_type=InvalidConfigurationError,
                                    error_name=INVALID_CONFIGURATION_ERROR))


@contextmanager
def refusing_invalid_values():
    """Turn a model error (or a malformed structure) into ``InvalidValueError``."""
    try:
        yield
    except (ModelError, DBusStructureError, TypeError) as error:
        raise InvalidValueError(str(error)) from None


@contextmanager
def refusing_invalid_configuration():
    """Turn a configuration with errors (``staging.StagingError``) into
    ``InvalidConfigurationError``."""
    from org_edns_addon.staging import StagingError
    try:
        yield
    except StagingError as error:
        raise InvalidConfigurationError(str(error)) from None


class ServerAddressData(DBusData):
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
        return DotServer.from_parts(self.address, self.port or None, self.name, self.domains,
                                    self.tls)


class ServerCheckData(ServerAddressData):
    """The pre-flight check of one server: its ``address``, ``port`` and TLS
    ``name``; the ``outcome`` ("ok", else why not: a ``probe.Outcome`` value);
    ``reason``, a sentence; ``rtt_ms`` (``rtt-ms`` on D-Bus), the time to the
    answer in milliseconds (0 unless ok)."""

    def __init__(self):
        super().__init__()
        self._outcome = ""
        self._reason = ""
        self._rtt_ms = 0.0

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

    @classmethod
    def structures_of(cls, checks):
        """The structures of ``probe.ServerCheck`` results CHECKS, in their order."""
        data = []
        for check in checks:
            item = cls.at_server(check.server)
            item.outcome = check.outcome.value
            item.reason = check.reason
            item.rtt_ms = check.rtt_ms or 0.0
            data.append(item)
        return cls.to_structure_list(data)


class CertificateData(DBusData):
    """One ``%certificate``: the fields of Anaconda's ``CertificateData`` (the Security
    module's ``Certificates``), so one reader takes both lists: ``filename``, ``cert``
    (the PEM text), ``dir`` and ``type`` ("" when not given); and ``added``: True when
    it was added over D-Bus (``AddCertificate``), False when it is the kickstart's."""

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
    def structures_of(cls, certificates, added):
        """The structures of pykickstart ``Certificate`` objects CERTIFICATES, in order;
        those in ADDED were added over D-Bus."""
        data = []
        for certificate in certificates:
            item = cls()
            item.filename = certificate.filename
            item.cert = certificate.cert
            item.dir = certificate.dir or ""
            item.type = certificate.type or ""
            item.added = certificate in added
            data.append(item)
        return cls.to_structure_list(data)


class EdnsInterfaceMembers(InterfaceTemplate):
    """Properties and methods of the encrypted DNS module (implementation:
    ``EdnsModuleState``), not yet named as an interface.

    ``EdnsInterfaceTemplate`` names them ``DBUS_INTERFACE_NAME``; the Anaconda
    module's interface names them together with its task method (dasbus builds
    one interface from the members of the class it decorates, so a second
    declaration of a name would replace the first one's members).
    """

    def connect_signals(self):
        super().connect_signals()
        self.watch_property("Servers", self.implementation.servers_changed)
        self.watch_property("ResolveMode", self.implementation.resolve_mode_changed)
        self.watch_property("Backend", self.implementation.backend_changed)
        self.watch_property("SearchDomains", self.implementation.search_domains_changed)
        self.watch_property("CaNames", self.implementation.ca_names_changed)
        self.watch_property("Certificates", self.implementation.certificates_changed)

    @property
    def Servers(self) -> List[Structure]:
        """The DNS servers, in order (structures of ``DotServerData``)."""
        return DotServerData.to_structure_list(
            [DotServerData.from_server(server) for server in self.implementation.servers])

    @Servers.setter
    @emits_properties_changed
    def Servers(self, servers: List[Structure]):
        with refusing_invalid_values():
            self.implementation.set_servers(
                [data.to_server() for data in DotServerData.from_structure_list(servers)])

    @property
    def ResolveMode(self) -> Str:
        """NetworkManager's resolve-mode: exclusive, prefer or backup."""
        return self.implementation.resolve_mode.value

    @ResolveMode.setter
    @emits_properties_changed
    def ResolveMode(self, mode: Str):
        with refusing_invalid_values():
            self.implementation.set_resolve_mode(mode)

    @property
    def Backend(self) -> Str:
        """The local resolver: dnsconfd or unbound."""
        return self.implementation.backend.value

    @Backend.setter
    @emits_properties_changed
    def Backend(self, backend: Str):
        with refusing_invalid_values():
            self.implementation.set_backend(backend)

    @property
    def SearchDomains(self) -> List[Str]:
        """Search domains (NetworkManager ``searches``)."""
        return list(self.implementation.search_domains)

    @SearchDomains.setter
    @emits_properties_changed
    def SearchDomains(self, domains: List[Str]):
        with refusing_invalid_values():
            self.implementation.set_search_domains(domains)

    @property
    def CaNames(self) -> List[Str]:
        """``%certificate --filename`` names that alone authenticate the servers."""
        return list(self.implementation.ca_names)

    @CaNames.setter
    @emits_properties_changed
    def CaNames(self, names: List[Str]):
        with refusing_invalid_values():
            self.implementation.set_ca_names(names)

    @property
    def Certificates(self) -> List[Structure]:
        """Every ``%certificate`` ``CaNames`` may name (``CertificateData`` structures):
        the kickstart's, then those added by ``AddCertificate``."""
        return CertificateData.structures_of(self.implementation.certificates,
                                             self.implementation.added_certificates)

    @emits_properties_changed
    def AddCertificate(self, filename: Str, pem: Str):
        """Add ``%certificate --filename=FILENAME --dir=/etc/pki/dns/`` holding the CA
        certificate(s) of the PEM text; it is written and generated into the kickstart
        with the configuration. Refused (``InvalidValue``) as the kickstart rules refuse
        a ``--ca`` certificate: a private key, anything but certificate blocks, a
        certificate that is not a CA or not valid now, a file name that is not plain or
        is taken. Name it in ``CaNames`` to authenticate the servers with it."""
        with refusing_invalid_values():
            self.implementation.add_certificate(filename, pem)

    def Validate(self) -> List[Str]:
        """Every problem of the current configuration, one sentence each
        (``error: ...`` or ``warning: ...``); empty when it can be applied."""
        return ["%s: %s" % (problem.severity.value, problem.message)
                for problem in self.implementation.validate()]

    def CheckServers(self, timeout: Double) -> List[Structure]:
        """Check every server now, within TIMEOUT seconds (at most
        ``DBUS_CHECK_TIMEOUT_MAX_SECONDS``), with the trust the installation will use:
        ``ServerCheckData`` structures in the order of ``Servers``. The service answers
        nothing else meanwhile; Anaconda's module offers ``CheckServersWithTask``."""
        if not 0 < timeout <= DBUS_CHECK_TIMEOUT_MAX_SECONDS:
            raise InvalidValueError("%g is not a number of seconds from 0 to %g" % (
                timeout, DBUS_CHECK_TIMEOUT_MAX_SECONDS))
        with refusing_invalid_configuration():
            return ServerCheckData.structures_of(self.implementation.check_servers(timeout))


@dbus_interface(DBUS_INTERFACE_NAME)
class EdnsInterfaceTemplate(EdnsInterfaceMembers):
    """The interface of the encrypted DNS module, without Anaconda's parts."""
