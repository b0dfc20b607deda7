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

"""The encrypted DNS configuration being edited: one state for the module and the text UI.

The D-Bus module publishes one ``EdnsState``; the text UI edits a copy (read
from the module, or from a kickstart) and writes it back. Setters take values
checked at the edge and raise ``ModelError`` with a sentence otherwise; the
rules that need the whole configuration are reported by ``problems()``, so a
configuration can be built up step by step. Pure: nothing here imports
pyanaconda, and only the model and dasbus signals load at import.
"""

import dataclasses

from dasbus.signal import Signal

from org_edns_addon import terms
from org_edns_addon.certificates.authority import check_authenticates
from org_edns_addon.certificates.pem import CertificateError
from org_edns_addon.certificates.placement import file_name_problem
from org_edns_addon.constants import MAX_KICKSTART_BYTES, MAX_NAMES_PER_LIST, MAX_SERVERS
from org_edns_addon.echo import echo, named
from org_edns_addon.i18n import _
from org_edns_addon.model import Backend, EdnsConfig, ResolveMode
from org_edns_addon.names import normalize_domains
from org_edns_addon.problems import ListOf, ModelError, Severity, ValidationError


def no_certificate(filename):
    """The sentence saying that no certificate has the file name FILENAME."""
    return _("%s does not exist") % terms.CERTIFICATE(named(filename))


def file_name_taken(filename):
    """The sentence refusing FILENAME for a new certificate: one has it already."""
    return _("%s exists already; choose another name") % terms.CERTIFICATE(named(filename))


def _choice(enum_type, value, refusal):
    """VALUE as a member of ENUM_TYPE; ModelError with the sentence REFUSAL (placeholders
    %(value)s and %(choices)s) otherwise."""
    try:
        return enum_type(value)
    except ValueError:
        raise ModelError(refusal % {"value": echo(value), "choices": ", ".join(
            member.value for member in enum_type)}) from None


class EdnsState:
    """An ``EdnsConfig`` and the ``%certificate`` sections (``KickstartCertificate``s) it may name.

    A change of the configuration emits ``config_changed``, one of the certificates
    ``certificates_changed``; the D-Bus interface turns them into ``PropertiesChanged``
    of ``Configuration`` and ``Certificates``.
    """

    def __init__(self, config=None, certificates=()):
        self._config = config or EdnsConfig()
        self._certificates = tuple(certificates)
        # The installer lines the configuration is judged for (lines.Line): every line,
        # until the installer module learns its own (service/edns.py).
        self.lines = None
        self.config_changed = Signal()
        self.certificates_changed = Signal()

    def copy(self):
        """A new state with the same configuration, certificates and lines (and no
        listeners)."""
        state = EdnsState(self._config, self._certificates)
        state.lines = self.lines
        return state

    @property
    def config(self):
        return self._config

    @property
    def certificates(self):
        """Every certificate: the kickstart's, then those added in the installer."""
        return self._certificates

    @property
    def added_certificates(self):
        """The certificates added in the installer (``AddCertificate``, the text UI): only
        this state has them (Anaconda's Security module holds the kickstart's)."""
        return tuple(cert for cert in self._certificates if cert.added)

    def certificate(self, filename):
        """The certificate of that ``--filename``, or None."""
        for cert in self._certificates:
            if cert.filename == filename:
                return cert
        return None

    @property
    def configured(self):
        """True when there is something to stage: at least one server."""
        return bool(self._config.servers)

    def _replace(self, **changes):
        self._config = dataclasses.replace(self._config, **changes)
        self.config_changed.emit()

    @property
    def servers(self):
        return self._config.servers

    def set_servers(self, servers):
        """Take SERVERS, a sequence of at most ``MAX_SERVERS`` ``DotServer`` routing at most
        ``MAX_NAMES_PER_LIST`` domains together. A kickstart may list more (it is read as
        it is): its servers can then be edited and removed, never added to."""
        servers = tuple(servers)
        if len(servers) > max(MAX_SERVERS, len(self.servers)):
            raise ModelError(ListOf.SERVERS.too_many(len(servers), MAX_SERVERS))
        routed = sum(len(server.domains) for server in servers)
        if routed > max(MAX_NAMES_PER_LIST, sum(len(server.domains)
                                                for server in self.servers)):
            raise ModelError(ListOf.ROUTED_DOMAINS.too_many(routed, MAX_NAMES_PER_LIST))
        self._replace(servers=servers)

    @property
    def resolve_mode(self):
        return self._config.resolve_mode

    def set_resolve_mode(self, mode):
        self._replace(resolve_mode=_choice(ResolveMode, mode, _(
            "%(value)s is not a resolve mode; use one of %(choices)s")))

    @property
    def backend(self):
        return self._config.backend

    def set_backend(self, backend):
        self._replace(backend=_choice(Backend, backend, _(
            "%(value)s is not a backend; use one of %(choices)s")))

    @property
    def search_domains(self):
        return self._config.searches

    def set_search_domains(self, domains):
        self._replace(searches=tuple(normalize_domains(domains, _("search domain"))))

    @property
    def ca_names(self):
        return self._config.ca_names

    def set_ca_names(self, names):
        """Name the certificates that alone authenticate the servers (``--ca``)."""
        for name in names:
            problem = file_name_problem(name, terms.CA_NAME) if isinstance(name, str) else \
                _("%s may hold only text, not %s") % (terms.CA_LIST, echo(name))
            if problem:
                raise ModelError(problem)
        self._replace(ca_names=tuple(names))

    def set_configuration(self, servers, resolve_mode, backend, search_domains, ca_names):
        """Take the whole configuration at once, each part checked by its own setter's
        rules; a part they refuse (``ModelError``) refuses the whole, and the state stays
        as it was: a client never leaves it half-written (new servers, the old mode)."""
        trial = self.copy()
        trial.set_servers(servers)
        trial.set_resolve_mode(resolve_mode)
        trial.set_backend(backend)
        trial.set_search_domains(search_domains)
        trial.set_ca_names(ca_names)
        before, self._config = self._config, trial.config
        if before != self._config:
            self.config_changed.emit()

    def add_certificate(self, cert, now=None):
        """Add CERT (a ``KickstartCertificate``) to authenticate the servers: one of its
        certificates must be able to at NOW (``certificates.check_authenticates``; the
        others are warnings of ``problems`` once it is named by ``--ca``), under a
        ``--filename`` no other certificate has, and every certificate together must fit
        in a kickstart (``MAX_KICKSTART_BYTES``)."""
        held = sum(len(held.pem) for held in self._certificates)
        if held + len(cert.pem) > MAX_KICKSTART_BYTES:
            raise ModelError(_("the certificates would not fit in a kickstart (%d KiB at "
                               "most); remove one first") % (MAX_KICKSTART_BYTES // 1024))
        if self.certificate(cert.filename) is not None:
            raise ModelError(file_name_taken(cert.filename))
        try:
            check_authenticates(cert.blocks, now, cert.passed_over)
        except CertificateError as error:
            raise ModelError(error.sentence(cert.filename)) from None
        self._certificates += (cert,)
        self.certificates_changed.emit()

    def remove_certificate(self, filename):
        """Remove the certificate FILENAME, and its name from ``ca_names``."""
        if self.certificate(filename) is None:
            raise ModelError(no_certificate(filename))
        self._certificates = tuple(cert for cert in self._certificates
                                   if cert.filename != filename)
        self.certificates_changed.emit()
        if filename in self._config.ca_names:
            self._replace(ca_names=tuple(
                name for name in self._config.ca_names if name != filename))

    def set_kickstart(self, config, certificates):
        """Take what a kickstart said: CONFIG and its certificates (they replace every
        certificate, the added ones included)."""
        self._config = config
        self._certificates = tuple(certificates)
        self.config_changed.emit()
        self.certificates_changed.emit()

    @property
    def trust(self):
        """What authenticates the servers (``trust.DotTrust``), as staging decides it."""
        from org_edns_addon.trust import dot_trust
        return dot_trust(self._config, self._certificates)

    def problems(self, now=None):
        """Every problem of the configuration with its certificates, as ``Problem``s, and
        of what the installer lines it is judged for would do with it (``line_rules``)."""
        from org_edns_addon.line_rules import line_problems
        from org_edns_addon.lines import LINES
        from org_edns_addon.trust import trust_problems
        # In the order a kickstart reports them: certificates, then the configuration.
        return trust_problems(self._config, self._certificates, now=now) + \
            self._config.problems() + \
            line_problems(self._config, self.trust, self.lines or LINES)

    def errors(self, now=None):
        """The messages of the errors among ``problems()``."""
        return [problem.message for problem in self.problems(now)
                if problem.severity == Severity.ERROR]

    def staging_input(self):
        """The ``StagingInput`` of the state; ``ValidationError`` when it has errors."""
        from org_edns_addon.trust import StagingInput
        problems = self.problems()
        if any(problem.severity == Severity.ERROR for problem in problems):
            raise ValidationError(problems)
        return StagingInput.of(self._config, self._certificates)
