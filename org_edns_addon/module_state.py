"""The state of the encrypted DNS module: what its D-Bus interface shows and edits.

Pure: nothing here imports pyanaconda. At import time only the model and
dasbus signals load, so a D-Bus service publishing this state starts about as
fast as an empty one (the installer starts every module at boot); checking
certificates (pykickstart, cryptography) loads when it is first needed.
"""

import dataclasses

from dasbus.signal import Signal

from org_edns_addon import constants
from org_edns_addon.constants import (BOOT_OPTION_BACKEND, BOOT_OPTION_DNS,
                                      BOOT_OPTION_RESOLVE_MODE, CA_PACKAGE,
                                      CHECK_TIMEOUT_SECONDS, DNSCONFD_PACKAGES, DOT_CA_DIR,
                                      MAX_PEM_FILE_BYTES, UNBOUND_PACKAGES)
from org_edns_addon.model import (Backend, EdnsConfig, ModelError, ResolveMode, check_ca_name,
                                  normalize_domains)


def _choice(enum_type, value, what):
    try:
        return enum_type(value)
    except ValueError:
        raise ModelError("%r is not a %s; use one of %s" % (
            value, what, ", ".join(member.value for member in enum_type))) from None


class EdnsModuleState:
    """The configuration being edited and the ``%certificate`` sections it may use.

    Every setter takes already typed values or checks them with the model and
    raises ``ModelError``; each emits its ``*_changed`` signal.
    """

    def __init__(self):
        super().__init__()
        self._config = EdnsConfig()
        self._certificates = ()
        self._added_certificates = ()
        self.servers_changed = Signal()
        self.resolve_mode_changed = Signal()
        self.backend_changed = Signal()
        self.search_domains_changed = Signal()
        self.ca_names_changed = Signal()
        self.certificates_changed = Signal()

    @property
    def config(self):
        """The current ``EdnsConfig``."""
        return self._config

    @property
    def certificates(self):
        """The pykickstart ``Certificate`` objects: the kickstart's, then the added ones."""
        return self._certificates + self._added_certificates

    @property
    def added_certificates(self):
        """The ``Certificate`` objects added by ``add_certificate``: only this module has
        them (Anaconda's Security module holds the kickstart's)."""
        return self._added_certificates

    @property
    def configured(self):
        """True when there is something to stage: at least one server."""
        return bool(self._config.servers)

    def _replace(self, signal, **changes):
        self._config = dataclasses.replace(self._config, **changes)
        signal.emit()

    @property
    def servers(self):
        return self._config.servers

    def set_servers(self, servers):
        """Take SERVERS, a sequence of ``DotServer``."""
        self._replace(self.servers_changed, servers=tuple(servers))

    @property
    def resolve_mode(self):
        return self._config.resolve_mode

    def set_resolve_mode(self, mode):
        self._replace(self.resolve_mode_changed,
                      resolve_mode=_choice(ResolveMode, mode, "resolve mode"))

    @property
    def backend(self):
        return self._config.backend

    def set_backend(self, backend):
        self._replace(self.backend_changed, backend=_choice(Backend, backend, "backend"))

    @property
    def search_domains(self):
        return self._config.searches

    def set_search_domains(self, domains):
        self._replace(self.search_domains_changed,
                      searches=tuple(normalize_domains(domains, "search domain")))

    @property
    def ca_names(self):
        return self._config.ca_names

    def set_ca_names(self, names):
        self._replace(self.ca_names_changed,
                      ca_names=tuple(check_ca_name(name) for name in names))

    def add_certificate(self, filename, text, now=None):
        """Add ``%certificate --filename=FILENAME --dir=DOT_CA_DIR`` holding the PEM TEXT.

        Checked as the kickstart rules check a ``--ca`` certificate, since that
        directory's certificates are there to authenticate the DNS servers: only
        certificate blocks (no private key), each a CA valid at NOW. FILENAME must be
        a plain file name no other ``%certificate`` has. Raises ``ModelError``.
        """
        from pykickstart.parser import Certificate
        from org_edns_addon.certificates import CertificateError, load_ca_certificates
        check_ca_name(filename)
        if any(cert.filename == filename for cert in self.certificates):
            raise ModelError("a %%certificate --filename=%s is already there; choose another "
                             "name" % filename)
        if len(text) > MAX_PEM_FILE_BYTES:
            raise ModelError("the PEM text of %s is larger than %d KiB; that is not a CA "
                             "certificate" % (filename, MAX_PEM_FILE_BYTES // 1024))
        try:
            blocks = load_ca_certificates(text, now)
        except CertificateError as error:
            where = ", line %d" % (error.line + 1) if error.line is not None else ""
            raise ModelError("the PEM text of %s%s: %s" % (filename, where, error.message)) \
                from None
        # Stored as the parsed blocks print themselves: nothing but PEM reaches a file.
        pem = b"".join(block.to_pem() for block in blocks).decode("ascii")
        self._added_certificates += (Certificate(cert=pem.rstrip("\n"), filename=filename,
                                                 dir=DOT_CA_DIR),)
        self.certificates_changed.emit()

    def set_kickstart(self, config, certificates):
        """Take what a kickstart said: CONFIG and its ``Certificate`` objects (they
        replace every certificate, the added ones included)."""
        self._config = config
        self._certificates = tuple(certificates)
        self._added_certificates = ()
        for signal in (self.servers_changed, self.resolve_mode_changed, self.backend_changed,
                       self.search_domains_changed, self.ca_names_changed,
                       self.certificates_changed):
            signal.emit()

    def parsed_kickstart(self, now=None):
        """The state as a checked ``ParsedKickstart`` (what staging takes)."""
        from org_edns_addon.ks.module import parsed_configuration
        return parsed_configuration(self._config, self.certificates, now)

    def validate(self, now=None):
        """Every problem of the current state, as ``Problem`` objects."""
        return self.parsed_kickstart(now).problems

    def staging_input(self):
        """The ``StagingInput`` of the state: what the tasks stage, its DoT CA bundle
        included. Raises ``staging.StagingError`` naming the problems of a state with
        errors."""
        return staging_input_of(self.parsed_kickstart())

    def check_servers(self, timeout=CHECK_TIMEOUT_SECONDS):
        """Check every server with the trust the installation will use (``probe``);
        the ``ServerCheck`` results in the order of the servers."""
        from org_edns_addon.probe import check_staging_input
        return check_staging_input(self.staging_input(), timeout=timeout)


def required_packages(config, installer_root="/"):
    """The packages the installed system needs for CONFIG, as (name, reason) pairs.

    ``dnsconfd-dracut`` is asked for only where the distribution has it, seen
    by its dracut module in the installer image (built from the same packages).
    """
    from org_edns_addon.staging import dracut_modules_present
    reason = "Needed for encrypted DNS (DNS over TLS) with the %s backend." % \
        config.backend.value
    if config.backend is Backend.DNSCONFD:
        names = [DNSCONFD_PACKAGES[0]]
        if dracut_modules_present(installer_root, [constants.DRACUT_MODULE_DNSCONFD]):
            names += DNSCONFD_PACKAGES[1:]
    else:
        names = list(UNBOUND_PACKAGES)
    packages = [(name, reason) for name in names]
    packages.append((CA_PACKAGE, "Needed for the CA certificates that authenticate the "
                                 "encrypted DNS servers."))
    return packages


BOOT_OPTION_NAMES = (BOOT_OPTION_DNS, BOOT_OPTION_RESOLVE_MODE, BOOT_OPTION_BACKEND)


def boot_option_differences(kickstart_options, present):
    """Sentences for each DoT boot option in PRESENT (name -> value) that differs from
    KICKSTART_OPTIONS (``name=value`` strings the kickstart implies)."""
    wanted = {}
    for option in kickstart_options:
        name, _, value = option.partition("=")
        wanted.setdefault(name, []).append(value)
    sentences = []
    for name in BOOT_OPTION_NAMES:
        if name not in present:
            continue
        value = present[name]
        if value not in wanted.get(name, ()):
            sentences.append("the boot option %s=%s differs from the kickstart (%s); the "
                             "kickstart wins" % (name, value, ", ".join(
                                 "%s=%s" % (name, v) for v in wanted.get(name, ())) or
                                 "not set"))
    return sentences


def stage_parsed_kickstart(parsed, phase, root, written_certificates=None, runner=None):
    """Stage PARSED (a checked ``ParsedKickstart``) below ROOT for PHASE.

    WRITTEN_CERTIFICATES are the ``--filename``s of the ``%certificate`` sections to
    write (None: all): the others are written by Anaconda's Security module, so only
    their part of the DoT CA bundle is staged. Raises ``staging.StagingError`` with
    the problems when PARSED has errors.
    """
    from org_edns_addon import staging
    data = staging_input_of(parsed)
    if written_certificates is not None:
        data = dataclasses.replace(data, certificates=tuple(
            cert for cert in data.certificates if cert.filename in written_certificates))
    return staging.stage(data, phase, root, runner=runner)


def staging_input_of(parsed):
    """The ``StagingInput`` of PARSED (a checked ``ParsedKickstart`` with a section).

    Raises ``staging.StagingError`` with the problems when PARSED has errors.
    """
    from org_edns_addon import staging
    if parsed.errors:
        raise staging.StagingError("the encrypted DNS configuration has errors: %s" % "; ".join(
            problem.message for problem in parsed.errors))
    return staging.staging_input_from_kickstart(parsed)
