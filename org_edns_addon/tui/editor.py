"""The editor state shared by the standalone text UI and the Anaconda spoke.

An ``EdnsEditor`` holds an ``EdnsConfig``, the CA certificates it may
name, and whether anything changed. Every edit goes through the model's
parsers (the one edge where input is validated) and is refused with a
sentence when it would add an error to a server; errors that only say the
configuration is not complete yet (no server, no server for ``*``) are
reported by ``problems()`` instead, so a user can build it up step by step.
"""

import os
import re
from dataclasses import dataclass, replace
from typing import Optional, Tuple

from cryptography.x509.oid import NameOID
from pykickstart.parser import Certificate

from org_edns_addon import certificates as pem
from org_edns_addon.constants import (CERT_TYPE_ANCHOR, CHECK_TIMEOUT_SECONDS, DOT_CA_DIR,
                                      MAX_PEM_FILE_BYTES)
from org_edns_addon.ks.edns import EdnsData
from org_edns_addon.ks.module import parsed_configuration
from org_edns_addon.model import (Backend, DotServer, EdnsConfig, ModelError, Problem,
                                  ResolveMode, Severity, check_ca_name, normalize_domains)
from org_edns_addon.module_state import staging_input_of
from org_edns_addon.staging import StagingError

# Typed instead of a list to clear a list of domains.
CLEAR_WORD = "-"


class EditError(ValueError):
    """An edit is refused; the message says what is wrong and how to fix it."""


@dataclass(frozen=True)
class CaCertificate:
    """A ``%certificate`` the editor may name as a CA for the DNS servers.

    ``origin`` is the ``SectionPlace`` it was read from, if known; ``added``
    says it was added in the editor, ``added_in_installer`` that the installer's
    module had it added earlier; ``removable`` is False when it lives where the
    editor does not write (an ``%include``d file, the installer).
    """
    filename: str
    blocks: Tuple[pem.PemCertificate, ...]
    directory: Optional[str] = DOT_CA_DIR
    cert_type: Optional[str] = None
    origin: Optional[object] = None
    removable: bool = True
    added: bool = False
    added_in_installer: bool = False

    @property
    def is_anchor(self):
        return self.cert_type == CERT_TYPE_ANCHOR

    @property
    def source(self):
        """Where the certificate comes from, in words."""
        if self.added:
            return "added here"
        if self.added_in_installer:
            return "added in the installer"
        if self.origin is not None:
            return "%s:%d" % (self.origin.filename, self.origin.lineno)
        return "the kickstart"

    def pem_text(self):
        return b"".join(block.to_pem() for block in self.blocks).decode("ascii")

    def describe(self):
        """One line: the subject(s) and until when the certificate is valid."""
        return "; ".join("%s, valid until %s" % (block.subject,
                                                 block.not_after.strftime("%Y-%m-%d"))
                         for block in self.blocks)

    def kickstart_data(self):
        """This certificate as pykickstart's ``Certificate`` (what staging takes)."""
        return Certificate(cert=self.pem_text().rstrip("\n"), filename=self.filename,
                           dir=self.directory, type=self.cert_type)

    def kickstart_section(self):
        """This certificate as a ``%certificate`` section."""
        options = ["--filename=%s" % self.filename]
        if self.directory:
            options.append("--dir=%s" % self.directory)
        if self.cert_type:
            options.append("--type=%s" % self.cert_type)
        return "%%certificate %s\n%s%%end\n" % (" ".join(options), self.pem_text())


def read_ca_pem(text, source=None):
    """The PEM blocks of TEXT if every one is a CA valid now, else raise EditError.

    The same checks as a ``%certificate`` named by ``--ca``: certificates
    only (a private key is refused), CA:TRUE with keyCertSign, within validity.
    SOURCE (a file name) prefixes the message as ``FILE:LINE:``.
    """
    try:
        blocks = pem.load_ca_certificates(text)
    except pem.CertificateError as error:
        line = error.line + 1 if error.line is not None else None
        if source is not None:
            where = "%s:%d: " % (source, line) if line else "%s: " % source
        else:
            where = "line %d: " % line if line else ""
        raise EditError(where + error.message) from None
    return tuple(blocks)


def read_ca_pem_file(path):
    """``read_ca_pem`` on the file at PATH, with a sentence if it cannot be read."""
    try:
        with open(os.path.expanduser(path), "rb") as stream:
            data = stream.read(MAX_PEM_FILE_BYTES + 1)
    except OSError as error:
        raise EditError("cannot read %s: %s" % (path, error.strerror or error)) from None
    if len(data) > MAX_PEM_FILE_BYTES:
        raise EditError("%s is larger than %d KiB; that is not a PEM certificate"
                        % (path, MAX_PEM_FILE_BYTES // 1024))
    return read_ca_pem(data, path)


def _server_errors(config):
    """Messages of the errors tied to one server of CONFIG.

    ``EdnsConfig.problems()`` attaches those to the server's line and the
    others (incomplete configuration) to the header; numbering the servers
    tells them apart, and the unnumbered run gives the messages a user reads.
    """
    numbered = replace(config, servers=tuple(replace(server, lineno=index + 1)
                                             for index, server in enumerate(config.servers)))
    return [plain.message for plain, marked in zip(config.problems(), numbered.problems())
            if plain.severity == Severity.ERROR and marked.lineno is not None]


def _parse_domains(text, what):
    text = text.strip()
    if text == CLEAR_WORD:
        return ()
    parts = [part.strip() for part in text.split(",")]
    if "" in parts:
        raise EditError("the list of %ss has an empty entry; separate %ss with single "
                        "commas, like lab.example,test.example" % (what, what))
    try:
        return tuple(dict.fromkeys(normalize_domains(parts, what)))
    except ModelError as error:
        raise EditError(str(error)) from None


def status_line(config, errors):
    """The short line a hub shows: "2 DoT servers, exclusive", "Not configured", "Error: …"."""
    if errors:
        return "Error: %s" % errors[0]
    if not config.servers:
        return "Not configured"
    dot = sum(1 for server in config.servers if server.tls)
    text = "%d DoT server%s" % (dot, "" if dot == 1 else "s")
    plain = len(config.servers) - dot
    if plain:
        text += " + %d plaintext" % plain
    return "%s, %s" % (text, config.resolve_mode.value)


class EdnsEditor:
    """An encrypted DNS configuration being edited, with its CA certificates."""

    def __init__(self, config=None, certificates=()):
        config = config or EdnsConfig()
        # Line numbers of a kickstart mean nothing once the user edits.
        self._config = replace(config, servers=tuple(replace(server, lineno=None)
                                                     for server in config.servers))
        self._certificates = list(certificates)
        self._removed = []
        self.dirty = False

    @property
    def config(self):
        return self._config

    @property
    def certificates(self):
        return tuple(self._certificates)

    @property
    def removed_certificates(self):
        """Certificates read from somewhere that the user removed, in removal order."""
        return tuple(self._removed)

    @property
    def added_certificates(self):
        return tuple(cert for cert in self._certificates if cert.added)

    def certificate(self, filename):
        for cert in self._certificates:
            if cert.filename == filename:
                return cert
        return None

    def is_selected(self, filename):
        return filename in self._config.ca_names

    def staging_input(self):
        """The ``StagingInput`` an installation would stage from the configuration and
        the certificates, as the module builds it (the DoT CA bundle included); raise
        EditError naming the errors of a configuration that has some."""
        parsed = parsed_configuration(self._config, [cert.kickstart_data()
                                                     for cert in self._certificates])
        try:
            return staging_input_of(parsed)
        except StagingError as error:
            raise EditError(str(error)) from None

    def check_servers(self, timeout=CHECK_TIMEOUT_SECONDS):
        """The pre-flight probe of every server, with the trust the installation will use;
        EditError for a configuration with errors."""
        # dnspython loads only when a user asks for a check.
        from org_edns_addon.probe import check_staging_input
        return check_staging_input(self.staging_input(), timeout=timeout)

    def _commit(self, config):
        before = _server_errors(self._config)
        added = [message for message in _server_errors(config) if message not in before]
        if added:
            raise EditError(added[0])
        self._config = config
        self.dirty = True

    # Servers.

    def _parse_server(self, parse, *args):
        try:
            return parse(*args)
        except ModelError as error:
            raise EditError(str(error)) from None

    def add_server(self, line):
        """Add a server written as a kickstart line: ``dns+tls://ADDR[:PORT]#NAME [domain=D,…]``."""
        server = self._parse_server(DotServer.parse_line, line.strip())
        self._commit(replace(self._config, servers=self._config.servers + (server,)))
        return server

    def _replace_server(self, index, server):
        servers = list(self._config.servers)
        servers[index] = server
        self._commit(replace(self._config, servers=tuple(servers)))
        return server

    def set_server_address(self, index, uri):
        """Change the address, port and TLS name of server INDEX; its domains stay."""
        old = self._config.servers[index]
        return self._replace_server(index, self._parse_server(
            DotServer.parse_uri, uri.strip(), old.domains))

    def set_server_domains(self, index, text):
        """Route only the comma-separated domains of TEXT to server INDEX (``-``: all)."""
        old = self._config.servers[index]
        return self._replace_server(index, replace(old, domains=_parse_domains(text, "domain")))

    def remove_server(self, index):
        servers = list(self._config.servers)
        del servers[index]
        self._commit(replace(self._config, servers=tuple(servers)))

    # Options.

    def set_resolve_mode(self, mode):
        self._commit(replace(self._config, resolve_mode=ResolveMode(mode)))

    def set_backend(self, backend):
        self._commit(replace(self._config, backend=Backend(backend)))

    def set_searches(self, text):
        """Set the comma-separated search domains of TEXT (``-``: none)."""
        self._commit(replace(self._config, searches=_parse_domains(text, "search domain")))

    # CA certificates.

    def toggle_ca(self, filename):
        """Select or deselect the certificate FILENAME as a CA for the DNS servers."""
        names = list(self._config.ca_names)
        if filename in names:
            names.remove(filename)
        else:
            cert = self.certificate(filename)
            if cert is None:
                raise EditError("there is no %%certificate --filename=%s" % filename)
            for block in cert.blocks:
                try:
                    pem.check_ca_certificate(block)
                except pem.CertificateError as error:
                    raise EditError("%s cannot authenticate the DNS servers: %s"
                                    % (filename, error.message)) from None
            names.append(filename)
        self._commit(replace(self._config, ca_names=tuple(names)))

    def check_filename(self, filename):
        """Raise EditError unless FILENAME can name a new ``%certificate`` and a ``--ca``."""
        try:
            check_ca_name(filename)
        except ModelError as error:
            raise EditError(str(error)) from None
        if self.certificate(filename) is not None:
            raise EditError("a %%certificate --filename=%s is already there; choose another "
                            "name" % filename)

    def suggest_filename(self, blocks, path=None):
        """A free file name for new certificate BLOCKS: PATH's base name, or from the subject."""
        if path:
            candidate = os.path.basename(path)
            try:
                self.check_filename(candidate)
                return candidate
            except EditError:
                pass
        common_names = blocks[0].certificate.subject.get_attributes_for_oid(
            NameOID.COMMON_NAME)
        stem = common_names[0].value if common_names else blocks[0].subject
        stem = re.sub(r"[^a-z0-9]+", "-", str(stem).lower()).strip("-") or "dns-ca"
        candidate, number = stem + ".pem", 1
        while self.certificate(candidate) is not None:
            number += 1
            candidate = "%s-%d.pem" % (stem, number)
        return candidate

    def add_certificate(self, blocks, filename):
        """Add BLOCKS (from ``read_ca_pem``) as ``%certificate --filename=FILENAME`` and
        select it as a CA for the DNS servers."""
        self.check_filename(filename)
        self._certificates.append(CaCertificate(filename, tuple(blocks), added=True))
        self._commit(replace(self._config, ca_names=self._config.ca_names + (filename,)))

    def remove_certificate(self, filename):
        cert = self.certificate(filename)
        if cert is None:
            raise EditError("there is no %%certificate --filename=%s" % filename)
        if not cert.removable:
            raise EditError("%s is not in the file being edited (%s); remove it there"
                            % (filename, cert.source))
        self._certificates.remove(cert)
        if not cert.added:
            self._removed.append(cert)
        names = tuple(name for name in self._config.ca_names if name != filename)
        self._commit(replace(self._config, ca_names=names))

    # What the user reads.

    def problems(self):
        """Everything wrong with the configuration as it stands."""
        found = list(self._config.problems())
        for name in self._config.ca_names:
            if self.certificate(name) is None:
                found.append(Problem(Severity.ERROR, "the CA certificate %s is not among the "
                                     "%%certificate sections; deselect it or add it" % name))
        return found

    def errors(self):
        return [p.message for p in self.problems() if p.severity == Severity.ERROR]

    def kickstart_section(self):
        """The configuration as an ``%addon org_edns_addon`` section."""
        data = EdnsData()
        data.set_config(self._config)
        return str(data).lstrip("\n")

    def status(self):
        if not self._config.servers:
            return "Not configured"
        return status_line(self._config, self.errors())
