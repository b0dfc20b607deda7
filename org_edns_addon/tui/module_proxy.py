"""The editor and the encrypted DNS module over D-Bus: read, write and judge its state.

Pure (dasbus only, no pyanaconda): the Anaconda spoke uses it on Anaconda's
bus, tests on a private bus with the module of ``org_edns_addon.dbus_service``.
MODULE is a proxy of the addon's interface (``EdnsInterfaceTemplate``).
"""

from dataclasses import dataclass

from dasbus.error import DBusError

from org_edns_addon.certificates import CertificateError, load_pem_certificates
from org_edns_addon.dbus_interface import CertificateData, DotServerData
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


def read_editor(module):
    """An editor on the module's configuration and the certificates it may name (the
    module's; they stay, the editor may add new ones)."""
    return EdnsEditor(read_config(module), certificates_from_structures(module.Certificates))


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


def write_editor(module, editor):
    """Add the certificates added in EDITOR that the module does not have yet (an earlier
    write may have added some), then write its configuration; a refusal becomes EditError."""
    present = {data.filename: data.cert for data in CertificateData.from_structure_list(
        module.Certificates)}
    for cert in editor.added_certificates:
        if present.get(cert.filename) == cert.pem_text().rstrip("\n"):
            continue
        try:
            module.AddCertificate(cert.filename, cert.pem_text())
        except DBusError as error:
            raise EditError("the installer refused the certificate %s: %s"
                            % (cert.filename, error)) from None
    write_config(module, editor.config)


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
    """``CaCertificate``s of ``CertificateData`` structures (the module's ``Certificates``,
    or the Security module's, whose fields they share); one that is not PEM cannot be
    named and is left out."""
    found = []
    for data in CertificateData.from_structure_list(structures):
        try:
            blocks = tuple(load_pem_certificates(data.cert))
        except CertificateError:
            continue
        found.append(CaCertificate(data.filename, blocks, directory=data.dir or None,
                                   cert_type=data.type or None, removable=False,
                                   added_in_installer=data.added))
    return found
