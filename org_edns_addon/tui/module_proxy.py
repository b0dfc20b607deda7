"""The editor and the encrypted DNS module over D-Bus: read, write and judge its state.

Pure (dasbus only, no pyanaconda): the Anaconda spoke uses it on Anaconda's
bus, tests on a private bus with the module of ``org_edns_addon.dbus_service``.
MODULE is a proxy of the addon's interface (``EdnsInterfaceTemplate``).
"""

from dataclasses import dataclass

from dasbus.error import DBusError
from dasbus.typing import get_native

from org_edns_addon.certificates import CertificateError, load_pem_certificates
from org_edns_addon.dbus_interface import DotServerData
from org_edns_addon.model import Backend, EdnsConfig, ResolveMode, Severity
from org_edns_addon.tui.editor import CaCertificate, EditError, EdnsEditor, status_line

_ERROR_PREFIX = Severity.ERROR.value + ": "


def read_config(module):
    """The module's configuration as an ``EdnsConfig``."""
    return EdnsConfig(
        servers=tuple(data.to_server()
                      for data in DotServerData.from_structure_list(module.Servers)),
        resolve_mode=ResolveMode(module.ResolveMode),
        backend=Backend(module.Backend),
        searches=tuple(module.SearchDomains),
        ca_names=tuple(module.CaNames))


def read_editor(module, certificates=()):
    """An editor on the module's configuration; CERTIFICATES are the ones it may name.

    New certificates cannot be added: the module takes them from the kickstart only.
    """
    return EdnsEditor(read_config(module), certificates, owns_certificates=False)


def write_config(module, config):
    """Set every property of the module from CONFIG; a refusal becomes EditError."""
    try:
        module.Servers = DotServerData.to_structure_list(
            [DotServerData.from_server(server) for server in config.servers])
        module.ResolveMode = config.resolve_mode.value
        module.Backend = config.backend.value
        module.SearchDomains = list(config.searches)
        module.CaNames = list(config.ca_names)
    except DBusError as error:
        raise EditError("the installer refused the configuration: %s" % error) from None


@dataclass(frozen=True)
class ModuleState:
    """What a hub shows of the module: configured at all, its errors, a status line."""
    configured: bool
    errors: tuple
    status: str

    @property
    def completed(self):
        return self.configured and not self.errors


def module_state(module):
    """Judge the module: not configured without servers, else by its ``Validate()``."""
    config = read_config(module)
    if not config.servers:
        return ModuleState(False, (), "Not configured")
    errors = tuple(message[len(_ERROR_PREFIX):] for message in module.Validate()
                   if message.startswith(_ERROR_PREFIX))
    return ModuleState(True, errors, status_line(config, errors))


def certificates_from_structures(structures):
    """``CaCertificate``s of Anaconda's ``CertificateData`` structures (the Security
    module's ``Certificates``); one that is not PEM cannot be named and is left out."""
    found = []
    for fields in map(get_native, structures):
        try:
            blocks = tuple(load_pem_certificates(fields["cert"]))
        except CertificateError:
            continue
        found.append(CaCertificate(fields["filename"], blocks,
                                   directory=fields.get("dir") or None,
                                   cert_type=fields.get("type") or None, removable=False))
    return found
