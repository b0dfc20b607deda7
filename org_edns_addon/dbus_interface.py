"""The addon's own D-Bus interface: a plain dasbus interface template.

Importable without pyanaconda: tests and the benchmark publish it on a
private bus (``org_edns_addon.dbus_service``); the Anaconda module interface
(``service/edns_interface.py``) adds its members, and its task method, to
Anaconda's ``KickstartModuleInterface``. It only translates between D-Bus
types and the state; every value is checked at this edge, and a bad one is
answered with the D-Bus error ``InvalidValue`` while the service keeps running.
"""

from contextlib import contextmanager

from dasbus.error import DBusError, ErrorRule
from dasbus.server.interface import dbus_interface
from dasbus.server.property import emits_properties_changed
from dasbus.server.template import InterfaceTemplate
from dasbus.structure import DBusStructureError
from dasbus.typing import Double, List, Str, Structure  # pylint: disable=unused-import

from org_edns_addon.certificates import CaCertificate, CertificateError
from org_edns_addon.constants import DBUS_CHECK_TIMEOUT_MAX_SECONDS, DOT_CA_DIR
from org_edns_addon.dbus_identifiers import EDNS
from org_edns_addon.dbus_structures import (CertificateData, DotServerData, ServerCheckData,
                                            ValidationReport)
from org_edns_addon.i18n import _
from org_edns_addon.model import ModelError, ValidationError

INVALID_VALUE_ERROR = EDNS.interface_name + ".Error.InvalidValue"
INVALID_CONFIGURATION_ERROR = EDNS.interface_name + ".Error.InvalidConfiguration"


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
    except (ModelError, CertificateError, DBusStructureError, TypeError) as error:
        raise InvalidValueError(str(error)) from None


@contextmanager
def refusing_invalid_configuration():
    """Turn a configuration with errors (``ValidationError``) into
    ``InvalidConfigurationError``."""
    try:
        yield
    except ValidationError as error:
        raise InvalidConfigurationError(str(error)) from None


class EdnsInterfaceMembers(InterfaceTemplate):
    """Properties and methods of the encrypted DNS module (implementation:
    ``EdnsState``), not yet named as an interface.

    ``EdnsInterfaceTemplate`` names them ``EDNS.interface_name``; the Anaconda
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
        return CertificateData.to_structure_list(
            [CertificateData.of_certificate(cert) for cert in self.implementation.certificates])

    @emits_properties_changed
    def AddCertificate(self, filename: Str, pem: Str):
        """Add ``%certificate --filename=FILENAME --dir=/etc/pki/dns/`` holding the CA
        certificate(s) of the PEM text; it is written and generated into the kickstart
        with the configuration. Refused (``InvalidValue``) as the kickstart rules refuse
        a ``--ca`` certificate: a private key, anything but certificate blocks, a
        certificate that is not a CA or not valid now, a file name that is not plain or
        is taken. Name it in ``CaNames`` to authenticate the servers with it."""
        with refusing_invalid_values():
            try:
                cert = CaCertificate.from_section(filename, pem, DOT_CA_DIR, added=True)
            except CertificateError as error:
                where = _(", line %d") % (error.line + 1) if error.line is not None else ""
                raise ModelError(_("the PEM text of %s%s: %s")
                                 % (filename[:64], where, error.message)) from None
            self.implementation.add_certificate(cert)

    def Validate(self) -> Structure:
        """Every problem of the current configuration: a ``ValidationReport`` structure
        (``error-messages``, ``warning-messages``), valid when it can be applied."""
        return ValidationReport.to_structure(
            ValidationReport.of_problems(self.implementation.problems()))

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


@dbus_interface(EDNS.interface_name)
class EdnsInterfaceTemplate(EdnsInterfaceMembers):
    """The interface of the encrypted DNS module, without Anaconda's parts."""
