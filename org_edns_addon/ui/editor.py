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

"""What a user interface adds to an ``EdnsState``: typed input, and edits refused at once.

The standalone text UI and the Anaconda spokes (text and graphical) edit a copy of the state
(read from a kickstart, or from the module) through an ``EdnsEditor``. It
parses what the user typed with the model's parsers (the edge), refuses an
edit that would add an error to a server, so the screen can say why at
once, and remembers what a UI needs: whether anything changed, which
certificates were added here or removed. Errors that only say the
configuration is not complete yet (no server, no server for ``*``) are
reported by ``problems()``, so a user can build it up step by step.
"""

import ast
import os
import re
import stat
from dataclasses import replace

from org_edns_addon.certificates.authority import check_authenticates
from org_edns_addon.certificates.kickstart import KickstartCertificate
from org_edns_addon.certificates.pem import CertificateError, canonical_pem, read_pem
from org_edns_addon.certificates.placement import file_name_problem
from org_edns_addon.constants import (CHECK_TIMEOUT_SECONDS, DOT_CA_DIR, ECHO_MAX_CHARS,
                                      MAX_PEM_BYTES)
from org_edns_addon.echo import echo
from org_edns_addon.fileio import error_text
from org_edns_addon.i18n import N_, _
from org_edns_addon.ks.edns import EdnsData
from org_edns_addon.model import DotServer
from org_edns_addon.names import normalize_domains
from org_edns_addon.problems import ModelError, Severity, ValidationError
from org_edns_addon.state import EdnsState, file_name_taken, no_certificate
from org_edns_addon.terms import for_screens
from org_edns_addon.ui.words import status_line

# Typed instead of a list to clear a list of domains.
CLEAR_WORD = "-"
_EMPTY_DOMAIN_ENTRY = N_("the list of domains has an empty entry; separate domains with single "
                         "commas, like lab.example,test.example")


class EditError(ValueError):
    """An edit is refused; the message says what is wrong and how to fix it."""


# A value quoted as Python's repr quotes a string (the model's messages say %r).
_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'" + r'|"(?:[^"\\\n]|\\.)*"')


def echoed_short(message, typed):
    """MESSAGE with every part of TYPED (what the user typed or pasted) that it quotes cut as
    ``echo()`` cuts a value: a pasted megabyte is refused in two lines, and the reason after
    it stays on the screen. The parts are found as the message quotes them: whole (a path
    said as it is) or as a repr (``'…'``, the model's ``%r``)."""
    def cut(match):
        try:
            value = ast.literal_eval(match.group(0))
        except (ValueError, SyntaxError):
            return match.group(0)
        if len(value) > ECHO_MAX_CHARS and value.lower() in typed.lower():
            return echo(value)
        return match.group(0)
    message = _QUOTED.sub(cut, message)
    if len(typed) > ECHO_MAX_CHARS and typed in message:
        message = message.replace(typed, echo(typed))
    return message


def refused(error, typed):
    """An EditError saying ERROR (a refusal of the model or of a certificate, or a sentence),
    with what it quotes of TYPED cut short (``echoed_short``)."""
    return EditError(echoed_short(str(error), typed))


# What a path names when it is not a file to read; each a whole sentence (the path in it).
_NOT_A_FILE = {
    stat.S_IFIFO: N_("%s is a FIFO (a named pipe), not a file; give the path of a PEM file"),
    stat.S_IFDIR: N_("%s is a directory; give the path of a PEM file in it"),
    stat.S_IFCHR: N_("%s is a device, not a file; give the path of a PEM file"),
    stat.S_IFBLK: N_("%s is a device, not a file; give the path of a PEM file"),
    stat.S_IFSOCK: N_("%s is a socket, not a file; give the path of a PEM file"),
}


@for_screens
def read_ca_pem(text, source=None):
    """The certificate blocks of TEXT if one of them can authenticate the DNS servers,
    else raise EditError.

    The same checks as a ``%certificate`` named by ``--ca``: certificates
    only (a private key is refused), and a CA within validity among them
    (``certificates.check_authenticates``; the others are warned about once the
    certificate is named by ``--ca``). SOURCE (the file it was read from) is named
    in the message.
    """
    try:
        read = read_pem(text)
        check_authenticates(read.blocks, passed_over=read.passed_over)
    except CertificateError as error:
        raise EditError(error.sentence(source)) from None
    return read.blocks


@for_screens
def read_ca_pem_file(path):
    """``read_ca_pem`` on the regular file at PATH, with a sentence if it cannot be read.

    PATH is opened without blocking (``O_NONBLOCK``: opening a FIFO for reading would wait
    for a writer, and the UI with it) and read only when it is a regular file; anything
    else is refused by a sentence that names it.
    """
    try:
        descriptor = os.open(os.path.expanduser(path),
                             os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as error:
        raise refused(_("cannot read %s: %s") % (path, error_text(error)), path) from None
    kind = stat.S_IFMT(os.fstat(descriptor).st_mode)
    if kind != stat.S_IFREG:
        os.close(descriptor)
        raise refused(_(_NOT_A_FILE.get(kind, N_(
            "%s is not a regular file; give the path of a PEM file"))) % path, path)
    with os.fdopen(descriptor, "rb") as stream:
        try:
            data = stream.read(MAX_PEM_BYTES + 1)
        except OSError as error:
            raise refused(_("cannot read %s: %s") % (path, error_text(error)), path) from None
    if len(data) > MAX_PEM_BYTES:
        raise refused(_("%s is larger than %d KiB; that is not a PEM certificate")
                      % (path, MAX_PEM_BYTES // 1024), path)
    try:
        return read_ca_pem(data, path)
    except EditError as error:
        raise refused(error, path) from None


def _server_errors(config):
    """Messages of the errors about one server of CONFIG (``Problem.server``), not about the
    section as a whole.

    The rules about missing servers are left out (``all_servers_read=False``): a
    zone whose only server is on loopback is tied to that server's line, but it is
    the list that lacks a server, so adding the loopback one first, or removing a
    usable one before adding another, stays an edit to make (the error stays
    shown until then).
    """
    return [problem.message for problem in config.problems(all_servers_read=False)
            if problem.severity == Severity.ERROR and problem.server is not None]


def _parse_domains(text, what, empty_entry):
    """The comma-separated domains of TEXT (``CLEAR_WORD``: none), each checked as WHAT
    (``normalize_domains``); EMPTY_ENTRY is the sentence (marked with ``N_``) that refuses
    an empty one."""
    text = text.strip()
    if text == CLEAR_WORD:
        return ()
    parts = [part.strip() for part in text.split(",")]
    if "" in parts:
        raise EditError(_(empty_entry))
    try:
        return tuple(dict.fromkeys(normalize_domains(parts, what)))
    except ModelError as error:
        raise refused(error, text) from None


class EdnsEditor:
    """An ``EdnsState`` (a copy) being edited in a text UI.

    KICKSTART_PATH is the file being edited, if any: only its certificates
    and those added here can be removed (not those of an included file, nor
    the installer's).
    """

    def __init__(self, state=None, kickstart_path=None):
        state = state or EdnsState()
        # Line numbers of a kickstart mean nothing once the user edits.
        config = replace(state.config, servers=tuple(replace(server, lineno=None)
                                                     for server in state.config.servers))
        self.state = EdnsState(config, state.certificates)
        self.state.lines = state.lines
        self._kickstart_path = kickstart_path
        self._added_here = []
        self._removed = []
        self.dirty = False

    def copy(self):
        """An editor of a copy of this one's state, with what it remembers: an edit tried
        there (``would_refuse``) changes nothing here."""
        other = EdnsEditor.__new__(EdnsEditor)
        other.state = self.state.copy()
        other._kickstart_path = self._kickstart_path
        other._added_here = list(self._added_here)
        other._removed = list(self._removed)
        other.dirty = self.dirty
        return other

    def would_refuse(self, edit, *args):
        """The EditError EDIT(editor, *ARGS) raises on a copy of this editor, or None: what
        a user interface says while an input is typed, before it is taken."""
        try:
            edit(self.copy(), *args)
        except EditError as error:
            return error
        return None

    @property
    def config(self):
        return self.state.config

    @property
    def certificates(self):
        return self.state.certificates

    @property
    def removed_certificates(self):
        """Certificates read from the kickstart that the user removed, in removal order."""
        return tuple(self._removed)

    @property
    def added_certificates(self):
        """The certificates added in this editor, in order."""
        return tuple(cert for cert in self.state.certificates if cert.filename in self._added_here)

    def certificate(self, filename):
        return self.state.certificate(filename)

    def is_selected(self, filename):
        return filename in self.config.ca_names

    def removable(self, cert):
        """Whether CERT lives where this editor writes (the kickstart itself, or here)."""
        if cert.filename in self._added_here:
            return True
        return cert.origin is not None and cert.origin.filename == self._kickstart_path

    def source(self, cert):
        """Where CERT comes from, as a list shows it: "added here", "ks.cfg:12"."""
        if cert.filename in self._added_here:
            return _("added here")
        if cert.added:
            return _("added in the installer")
        if cert.origin is not None:
            return "%s:%d" % (cert.origin.filename, cert.origin.lineno)
        return _("the kickstart")

    def origin_sentence(self, cert):
        """Where CERT comes from, as a sentence."""
        if cert.filename in self._added_here:
            return _("Added here.")
        if cert.added:
            return _("Added in the installer.")
        if cert.origin is not None:
            return _("From %(file)s, line %(line)d.") % {"file": cert.origin.filename,
                                                        "line": cert.origin.lineno}
        return _("From the kickstart.")

    @for_screens
    def staging_input(self):
        """The ``StagingInput`` an installation would stage, as the module builds it;
        EditError naming the errors of a configuration that has some."""
        try:
            return self.state.staging_input()
        except ValidationError as error:
            raise EditError(str(error)) from None

    @for_screens
    def check_servers(self, timeout=CHECK_TIMEOUT_SECONDS):
        """The pre-flight probe of every server, with the trust the installation will use;
        EditError for a configuration with errors."""
        # dnspython loads only when a user asks for a check.
        from org_edns_addon.probe.check import check_staging_input
        return check_staging_input(self.staging_input(), timeout=timeout)

    def _commit(self, change, *args):
        """Apply CHANGE(*ARGS) to the state unless it adds an error to a server."""
        before = _server_errors(self.state.config)
        trial = self.state.copy()
        try:
            change(trial, *args)
        except ModelError as error:
            raise EditError(str(error)) from None
        added = [message for message in _server_errors(trial.config) if message not in before]
        if added:
            raise EditError(added[0])
        self.state = trial
        self.dirty = True

    # Servers.

    @staticmethod
    def _parse_server(parse, text, *args):
        try:
            return parse(text, *args)
        except ModelError as error:
            raise refused(error, text) from None

    @for_screens
    def add_server(self, address, domains=None):
        """Add the server at ADDRESS (``dns+tls://192.0.2.53#dot.example``, as the address
        input takes it), routing DOMAINS to it (comma-separated, as the routed domains
        input takes them; None, "" or ``CLEAR_WORD``: it serves every name)."""
        server = self._parse_server(DotServer.parse_uri, address.strip())
        if domains and domains.strip():
            server = replace(server, domains=_parse_domains(domains, "domain",
                                                            _EMPTY_DOMAIN_ENTRY))
        self._commit(EdnsState.set_servers, self.config.servers + (server,))
        return server

    def _replace_server(self, index, server):
        servers = list(self.config.servers)
        servers[index] = server
        self._commit(EdnsState.set_servers, servers)
        return server

    @for_screens
    def set_server_address(self, index, uri):
        """Change the address, port and TLS name of server INDEX; its domains stay."""
        old = self.config.servers[index]
        return self._replace_server(index, self._parse_server(
            DotServer.parse_uri, uri.strip(), old.domains))

    @for_screens
    def set_server_domains(self, index, text):
        """Route only the comma-separated domains of TEXT to server INDEX (``-``: all)."""
        old = self.config.servers[index]
        domains = _parse_domains(text, "domain", _EMPTY_DOMAIN_ENTRY)
        return self._replace_server(index, replace(old, domains=domains))

    @for_screens
    def remove_server(self, index):
        servers = list(self.config.servers)
        del servers[index]
        self._commit(EdnsState.set_servers, servers)

    # Options.

    @for_screens
    def set_resolve_mode(self, mode):
        self._commit(EdnsState.set_resolve_mode, mode)

    @for_screens
    def set_backend(self, backend):
        self._commit(EdnsState.set_backend, backend)

    @for_screens
    def set_searches(self, text):
        """Set the comma-separated search domains of TEXT (``-``: none)."""
        self._commit(EdnsState.set_search_domains, _parse_domains(text, _("search domain"), N_(
            "the list of search domains has an empty entry; separate search domains with "
            "single commas, like corp.example,lab.example")))

    # CA certificates.

    @for_screens
    def toggle_ca(self, filename):
        """Select or deselect the certificate FILENAME as a CA for the DNS servers."""
        names = list(self.config.ca_names)
        if filename in names:
            names.remove(filename)
        else:
            cert = self.certificate(filename)
            if cert is None:
                raise EditError(no_certificate(filename))
            try:
                check_authenticates(cert.blocks, passed_over=cert.passed_over)
            except CertificateError as error:
                raise EditError(error.sentence(filename)) from None
            names.append(filename)
        self._commit(EdnsState.set_ca_names, names)

    @for_screens
    def check_filename(self, filename):
        """Raise EditError unless FILENAME can name a new ``%certificate`` and a ``--ca``."""
        problem = file_name_problem(filename)
        if problem:
            raise refused(problem, filename)
        if self.certificate(filename) is not None:
            raise EditError(file_name_taken(filename))

    def suggest_filename(self, blocks, path=None):
        """A free file name for the certificate BLOCKS (from ``read_ca_pem``): PATH's base
        name, or one made of the first block's subject."""
        if path:
            candidate = os.path.basename(path)
            try:
                self.check_filename(candidate)
                return candidate
            except EditError:
                pass
        from cryptography.x509.oid import NameOID
        common_names = blocks[0].certificate.subject.get_attributes_for_oid(
            NameOID.COMMON_NAME)
        stem = common_names[0].value if common_names else blocks[0].subject
        stem = re.sub(r"[^a-z0-9]+", "-", str(stem).lower()).strip("-") or "dns-ca"
        candidate, number = stem + ".pem", 1
        while self.certificate(candidate) is not None:
            number += 1
            candidate = "%s-%d.pem" % (stem, number)
        return candidate

    @for_screens
    def add_certificate(self, blocks, filename):
        """Add the certificate BLOCKS (from ``read_ca_pem``) as ``%certificate
        --filename=FILENAME --dir=/etc/pki/dns/`` and select it as a CA for the DNS
        servers."""
        self.check_filename(filename)
        cert = KickstartCertificate(filename, canonical_pem(blocks), blocks, DOT_CA_DIR,
                                    added=True)

        def add(state):
            state.add_certificate(cert)
            state.set_ca_names(state.ca_names + (filename,))
        self._commit(add)
        self._added_here.append(filename)

    @for_screens
    def remove_certificate(self, filename):
        cert = self.certificate(filename)
        if cert is None:
            raise EditError(no_certificate(filename))
        if not self.removable(cert):
            raise EditError(_("%s is not in the file being edited (%s); remove it there")
                            % (filename, self.source(cert)))
        self._commit(EdnsState.remove_certificate, filename)
        if filename in self._added_here:
            self._added_here.remove(filename)
        else:
            self._removed.append(cert)

    # What the user reads.

    @for_screens
    def problems(self):
        """Everything wrong with the configuration as it stands, in the screens' words."""
        return self.state.problems()

    @for_screens
    def errors(self):
        return self.state.errors()

    @for_screens
    def trust_sentence(self):
        """What authenticates the servers (``DotTrust.describe``), in the screens' words."""
        return self.state.trust.describe()

    def kickstart_section(self):
        """The configuration as an ``%addon org_edns_addon`` section."""
        data = EdnsData()
        data.set_config(self.config)
        return str(data).lstrip("\n")

    @for_screens
    def status(self):
        return status_line(self.config, self.errors())
