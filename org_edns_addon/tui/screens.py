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

"""The simpleline screens of the encrypted DNS editor (no pyanaconda).

Every screen works on an ``EdnsEditor``. The first screen's content is built
by ``add_main_menu`` so the standalone ``MainScreen`` and the Anaconda spoke
show the same thing. An edit the editor refuses is printed as
``Error: …`` and the screen stays, asking again. The screens speak the words of
their items (resolve mode, routed domains, CA certificates), never the
kickstart's: the editor formats every rule's sentence for them
(``org_edns_addon.terms``). Only the standalone editor's summary shows the
kickstart section it writes, as the file's text.
"""

import textwrap

from simpleline import App
from simpleline.render.containers import ListColumnContainer
from simpleline.render.prompt import Prompt
from simpleline.render.screen import InputState, UIScreen
from simpleline.render.screen_handler import ScreenHandler
from simpleline.render.widgets import CheckboxWidget, TextWidget

from org_edns_addon.i18n import N_, _
from org_edns_addon.constants import DOT_CA_DIR
from org_edns_addon.model import Backend, ResolveMode
from org_edns_addon.ui.editor import CLEAR_WORD, EditError, read_ca_pem, read_ca_pem_file
from org_edns_addon.ui.words import (backend_text, certificate_title, checking,
                                     describe_server, mode_warning, problem_line,
                                     refusal_line, resolve_mode_text, search_domains_line,
                                     server_line)

TITLE = N_("Encrypted DNS (DNS over TLS)")
# What a screen is given when the user ended the input (Ctrl-D) with edits not saved: the
# stand-alone app's terminal hands it on (tui/app.py) and every screen takes it as 'q', so
# simpleline asks the app's quit question. Never typed: input() strips the line's end.
END_OF_INPUT = "\x04"


def report(message):
    """Print a refused input where the user typed it (as Anaconda's dialogs do)."""
    width = App.get_configuration().width
    print("\n".join(textwrap.fill(line, width, subsequent_indent="  ")
                    for line in refusal_line(message).splitlines()))


class ItemMenu:
    """Numbered items whose actions return the InputState of the screen.

    An action that raises EditError is refused: the message is printed and
    kept in ``error`` so a redraw shows it too.
    """

    def __init__(self):
        self.container = ListColumnContainer(1, columns_width=78, spacing=0)
        self.error = None
        self._result = None

    def renewed(self):
        """A new, empty menu that still shows this one's error (for a redraw)."""
        menu = ItemMenu()
        menu.error = self.error
        return menu

    def add(self, widget, action, *args):
        self.container.add(widget, callback=self._perform, data=(action, args))

    def _perform(self, data):
        action, args = data
        self._result = action(*args)

    def refuse(self, error):
        self.error = str(error)
        report(self.error)
        return InputState.DISCARDED

    def process(self, key):
        """The InputState for KEY, or None when KEY is not one of the items."""
        try:
            if self.container.process_user_input(key):
                self.error = None
                return self._result
        except EditError as error:
            return self.refuse(error)
        return None

    def add_to(self, window):
        window.add_with_separator(self.container)
        if self.error:
            window.add_with_separator(TextWidget(refusal_line(self.error)))


def push(screen):
    ScreenHandler.push_screen(screen)
    return InputState.PROCESSED


def add_problems(window, editor):
    """The status line and every validation message, below the items."""
    lines = [_("Status: %s") % editor.status()]
    lines += [problem_line(p) for p in editor.problems()]
    window.add_with_separator(TextWidget("\n".join(lines)))


def add_main_menu(window, menu, editor, kickstart=False):
    """The first screen: servers, options, CA, check and summary, then the messages;
    KICKSTART: the standalone editor of a kickstart file (its summary shows the
    section)."""
    servers = editor.config.servers
    server_lines = [_("Servers:")] + ["  " + server_line(s) for s in servers] \
        if servers else [_("Servers: none yet; add at least one")]
    menu.add(TextWidget("\n".join(server_lines)), lambda: push(ServersScreen(editor)))
    menu.add(TextWidget(_("Resolve mode: %s") % editor.config.resolve_mode.value),
             lambda: push(resolve_mode_screen(editor)))
    menu.add(TextWidget(_("Backend: %s") % editor.config.backend.value),
             lambda: push(backend_screen(editor)))
    menu.add(TextWidget(search_domains_line(editor.config.searches)),
             lambda: push(search_screen(editor)))
    menu.add(TextWidget(_("CA certificates: %s") % editor.trust_sentence()),
             lambda: push(CaScreen(editor)))
    menu.add(TextWidget(_("Check servers (TLS handshake and one query each)")),
             lambda: push(CheckScreen(editor)))
    menu.add(TextWidget(_("Summary of what will be configured")),
             lambda: push(SummaryScreen(editor, kickstart)))
    menu.add_to(window)
    add_problems(window, editor)


class EditorScreen(UIScreen):
    """A screen of numbered items over an editor; subclasses fill ``menu`` in ``fill``."""

    def __init__(self, editor, title):
        super().__init__(title)
        self.editor = editor
        self.menu = ItemMenu()

    def fill(self, window):
        raise NotImplementedError

    def refresh(self, args=None):
        super().refresh(args)
        self.menu = self.menu.renewed()
        self.fill(self.window)

    def input(self, args, key):
        if key == END_OF_INPUT:
            return Prompt.QUIT
        state = self.menu.process(key)
        return key if state is None else state


class MainScreen(EditorScreen):
    """The standalone editor's first screen; 'c' saves through SAVE and quits."""

    def __init__(self, editor, save, save_text):
        super().__init__(editor, _(TITLE))
        self._save = save
        self._save_text = save_text
        self.saved = False

    def fill(self, window):
        add_main_menu(window, self.menu, self.editor, kickstart=True)

    def prompt(self, args=None):
        prompt = super().prompt(args)
        prompt.update_option(Prompt.CONTINUE, self._save_text)
        return prompt

    def input(self, args, key):
        if key == Prompt.CONTINUE:
            try:
                self._save()
            except EditError as error:
                return self.menu.refuse(error)
            self.saved = True
            return InputState.PROCESSED_AND_CLOSE
        return super().input(args, key)


class ServersScreen(EditorScreen):
    """Every server with its TLS name and routed domains; add, or pick one to edit."""

    def __init__(self, editor):
        super().__init__(editor, _("DNS servers"))

    def fill(self, window):
        window.add_with_separator(TextWidget(
            _("Servers without routed domains serve every name; a server with routed "
            "domains serves only those. At least one must serve every name.")))
        for index, server in enumerate(self.editor.config.servers):
            self.menu.add(TextWidget(describe_server(server)),
                          lambda i=index: push(ServerScreen(self.editor, i)))
        self.menu.add(TextWidget(_("Add a server")), lambda: push(add_server_screen(self.editor)))
        self.menu.add_to(window)


# How a server's address is written, for every screen that asks for one.
_ADDRESS_FORM = N_("Write the server's address, then '#' and the TLS name its certificate "
                   "holds, like dns+tls://192.0.2.53#dot.example; an IPv6 address goes in "
                   "brackets, like dns+tls://[2001:db8::53]#dot.example, and a port other "
                   "than 853 after the address, like dns+tls://192.0.2.53:8853#dot.example.")


def add_server_screen(editor):
    def accept(address):
        editor.add_server(address)
        return routed_domains_screen(editor, len(editor.config.servers) - 1,
                                     _("Domains (empty line: every name)"))
    return EntryScreen(_("Add a server"), _(_ADDRESS_FORM),
                       _("Server (empty line: back)"), accept)


def routed_domains_screen(editor, index, question):
    """Ask which domains are routed to server INDEX only, with QUESTION."""
    return EntryScreen(
        _("Routed domains of server %d") % (index + 1),
        _("Comma-separated domains routed only to this server, like "
          "lab.example,test.example; '%s' serves every name.") % CLEAR_WORD,
        question, lambda text: editor.set_server_domains(index, text))


class ServerScreen(EditorScreen):
    """One server: change its address or routed domains, or remove it."""

    def __init__(self, editor, index):
        super().__init__(editor, _("Server %d") % (index + 1))
        self._index = index

    def fill(self, window):
        server = self.editor.config.servers[self._index]
        editor, index = self.editor, self._index
        self.menu.add(TextWidget(_("Address: %s") % server.uri()), lambda: push(EntryScreen(
            _("Address of server %d") % (index + 1),
            _("%s Its routed domains stay.") % _(_ADDRESS_FORM),
            _("Address (empty line: keep %s)") % server.uri(),
            lambda text: editor.set_server_address(index, text))))
        self.menu.add(TextWidget(_("Routed domains: %s") % (", ".join(server.domains) or
                                                         _("none (serves every name)"))),
                      lambda: push(routed_domains_screen(editor, index,
                                                         _("Domains (empty line: keep)"))))
        self.menu.add(TextWidget(_("Remove this server")), self._remove)
        self.menu.add_to(window)

    def _remove(self):
        self.editor.remove_server(self._index)
        return InputState.PROCESSED_AND_CLOSE


class EntryScreen(UIScreen):
    """Ask for one line and hand it to ACCEPT; an EditError is printed and asked again.

    An empty line goes back unchanged, or, with DEFAULT, accepts DEFAULT.
    ACCEPT may return a screen to show next in place of this one.
    """

    def __init__(self, title, explanation, question, accept, default=None):
        super().__init__(title)
        self._explanation = explanation
        self._question = question
        self._accept = accept
        self._default = default
        self.error = None

    def refresh(self, args=None):
        super().refresh(args)
        self.window.add_with_separator(TextWidget(self._explanation))
        if self.error:
            self.window.add_with_separator(TextWidget(refusal_line(self.error)))

    def prompt(self, args=None):
        if self._default is not None:
            return Prompt("%s [%s]" % (self._question, self._default))
        return Prompt(self._question)

    def input(self, args, key):
        if key == END_OF_INPUT:
            return Prompt.QUIT
        text = key.strip()
        if not text:
            if self._default is None:
                return InputState.PROCESSED_AND_CLOSE
            text = self._default
        try:
            following = self._accept(text)
        except EditError as error:
            self.error = str(error)
            report(self.error)
            return InputState.DISCARDED
        if isinstance(following, UIScreen):
            ScreenHandler.replace_screen(following)
            return InputState.PROCESSED
        return InputState.PROCESSED_AND_CLOSE


def search_screen(editor):
    return EntryScreen(
        _("Search domains"),
        _("Comma-separated domains appended to short names (NetworkManager searches), "
        "like corp.example,lab.example; '%s' for none.") % CLEAR_WORD,
        _("Search domains (empty line: keep)"), editor.set_searches)


class ChoiceScreen(EditorScreen):
    """Pick one of CHOICES (an enum type), each shown with DESCRIBE(value); CHOOSE(value)
    may refuse it."""

    def __init__(self, editor, title, explanation, choices, describe, current, choose):
        super().__init__(editor, title)
        self._explanation = explanation
        self._choices = choices
        self._describe = describe
        self._current = current
        self._choose = choose

    def fill(self, window):
        window.add_with_separator(TextWidget(self._explanation))
        for value in self._choices:
            self.menu.add(CheckboxWidget(title=value.value, text=self._describe(value),
                                         completed=value == self._current()), self._pick, value)
        self.menu.add_to(window)

    def _pick(self, value):
        self._choose(value)
        return InputState.PROCESSED_AND_CLOSE


def resolve_mode_screen(editor):
    def describe(mode):
        # What plaintext the mode lets out, where the mode is chosen.
        warning = mode_warning(mode, editor.config.backend)
        text = resolve_mode_text(mode)
        return "%s\n%s" % (text, _("Warning: %s") % warning) if warning else text
    return ChoiceScreen(editor, _("Resolve mode"),
                        _("How these servers relate to the DNS servers of the network "
                        "connections (NetworkManager resolve-mode)."), ResolveMode,
                        describe, lambda: editor.config.resolve_mode,
                        editor.set_resolve_mode)


def backend_screen(editor):
    return ChoiceScreen(editor, _("Backend"), _("The local resolver that speaks DoT upstream."),
                        Backend, backend_text, lambda: editor.config.backend,
                        editor.set_backend)


class CaScreen(EditorScreen):
    """The CA certificates: pick among the known ones, paste a PEM, or read a file."""

    def __init__(self, editor):
        super().__init__(editor, _("CA certificates for the DNS servers"))

    def fill(self, window):
        window.add_with_separator(TextWidget(
            _("The selected certificates alone authenticate the DNS servers.") + " " +
            self.editor.trust_sentence()))
        for cert in self.editor.certificates:
            self.menu.add(CheckboxWidget(title=certificate_title(cert, self.editor.source(cert)),
                                         text=cert.describe(),
                                         completed=self.editor.is_selected(cert.filename)),
                          lambda name=cert.filename: push(CertificateScreen(self.editor, name)))
        for name in self.editor.config.ca_names:
            if self.editor.certificate(name) is None:
                self.menu.add(CheckboxWidget(title=_("%s (not among the certificates here)") % name,
                                             completed=True), self._deselect, name)
        self.menu.add(TextWidget(_("Paste a PEM certificate")),
                      lambda: push(PemPasteScreen(self.editor)))
        self.menu.add(TextWidget(_("Read a PEM file")), lambda: push(pem_file_screen(self.editor)))
        self.menu.add_to(window)


    def _deselect(self, name):
        self.editor.toggle_ca(name)
        return InputState.PROCESSED_AND_REDRAW


class CertificateScreen(EditorScreen):
    """One certificate: (de)select it for the DNS servers, or remove its section."""

    def __init__(self, editor, filename):
        super().__init__(editor, _("Certificate %s") % filename)
        self._filename = filename

    def fill(self, window):
        cert = self.editor.certificate(self._filename)
        details = [cert.describe(), self.editor.origin_sentence(cert),
                   _("Installed as %s.") % cert.path]
        window.add_with_separator(TextWidget("\n".join(details)))
        self.menu.add(CheckboxWidget(title=_("Authenticate the DNS servers with it"),
                                     completed=self.editor.is_selected(self._filename)),
                      self._toggle)
        if self.editor.removable(cert):
            self.menu.add(TextWidget(_("Remove this certificate")), self._remove)
        self.menu.add_to(window)

    def _toggle(self):
        self.editor.toggle_ca(self._filename)
        return InputState.PROCESSED_AND_REDRAW

    def _remove(self):
        self.editor.remove_certificate(self._filename)
        return InputState.PROCESSED_AND_CLOSE


def filename_screen(editor, blocks, path=None):
    """Ask the --filename of the new certificate BLOCKS, offering a free name."""
    return EntryScreen(
        _("File name of the new certificate"),
        _("The certificate is written to %s<name> and selected for the DNS servers.\n%s")
        % (DOT_CA_DIR, "; ".join(block.subject for block in blocks)),
        _("File name"), lambda name: editor.add_certificate(blocks, name),
        default=editor.suggest_filename(blocks, path))


def pem_file_screen(editor):
    def accept(path):
        return filename_screen(editor, read_ca_pem_file(path), path)
    return EntryScreen(_("Read a PEM file"),
                       _("The path of a PEM file holding the CA certificate(s) on this "
                       "machine. It must be a CA (not a server certificate), valid "
                       "now, and hold no private key."), _("Path (empty line: back)"), accept)


class PemPasteScreen(UIScreen):
    """Paste PEM text line by line; an empty line ends it and it is checked as a CA."""

    def __init__(self, editor):
        super().__init__(_("Paste a CA certificate"))
        self._editor = editor
        self._lines = []
        self.error = None

    def refresh(self, args=None):
        super().refresh(args)
        self.window.add_with_separator(TextWidget(
            _("Paste the PEM text (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----), "
            "then press ENTER on an empty line. An empty line first goes back.")))
        if self.error:
            self.window.add_with_separator(TextWidget(refusal_line(self.error)))

    def prompt(self, args=None):
        return Prompt(_("PEM") if not self._lines else None)

    def input(self, args, key):
        if key == END_OF_INPUT:
            self._lines = []
            return Prompt.QUIT
        if key.strip():
            self._lines.append(key.strip())
            # Keep reading lines without a redraw: one paste is many inputs.
            self.get_input_with_error_check(args)
            return InputState.PROCESSED
        if not self._lines:
            return InputState.PROCESSED_AND_CLOSE
        text, self._lines = "\n".join(self._lines) + "\n", []
        try:
            blocks = read_ca_pem(text)
        except EditError as error:
            self.error = _("%s; paste it again") % error
            report(self.error)
            return InputState.DISCARDED
        ScreenHandler.replace_screen(filename_screen(self._editor, blocks))
        return InputState.PROCESSED


class TextScreen(UIScreen):
    """Lines to read (subclasses give them in ``lines``); any input goes back."""

    def lines(self):
        raise NotImplementedError

    def refresh(self, args=None):
        super().refresh(args)
        self.window.add_with_separator(TextWidget("\n".join(self.lines())))

    def prompt(self, args=None):
        return Prompt(_("Press %s to go back") % Prompt.ENTER)

    def input(self, args, key):
        if key == END_OF_INPUT:
            return Prompt.QUIT
        return InputState.PROCESSED_AND_CLOSE


class SummaryScreen(TextScreen):
    """What will be configured, in words, with every message; with KICKSTART (the
    standalone editor of a kickstart file), also the section it writes there."""

    def __init__(self, editor, kickstart=False):
        super().__init__(_("Summary"))
        self._editor = editor
        self._kickstart = kickstart

    def lines(self):
        return summary_lines(self._editor, self._kickstart)


def summary_lines(editor, kickstart=False):
    """The summary as lines of text (KICKSTART: with the section written)."""
    config = editor.config
    lines = [_("Resolver: %s") % backend_text(config.backend),
             _("Resolve mode: %(mode)s: %(meaning)s") % {
                 "mode": config.resolve_mode.value,
                 "meaning": resolve_mode_text(config.resolve_mode)}]
    lines += [_("Every name: %s") % s.uri() for s in config.default_servers]
    for domain, servers in config.routed_domains().items():
        lines += ["%s: %s" % (domain, s.uri()) for s in servers]
    if config.searches:
        lines.append(_("Search domains: %s") % ", ".join(config.searches))
    lines.append(editor.trust_sentence())
    added = editor.added_certificates
    if added:
        lines.append(_("New certificates: %s") % ", ".join(c.filename for c in added))
    if editor.removed_certificates:
        lines.append(_("Removed certificates: %s")
                     % ", ".join(c.filename for c in editor.removed_certificates))
    if kickstart:
        lines.append("")
        lines.append(_("As the kickstart file gets it:"))
        lines += ["  " + line for line in editor.kickstart_section().splitlines()]
    lines.append("")
    problems = editor.problems()
    lines += [problem_line(p) for p in problems] or [_("No problems.")]
    return lines


class CheckScreen(TextScreen):
    """Reach, authenticate and query every server; one line per server."""

    def __init__(self, editor):
        super().__init__(_("Check servers"))
        self._editor = editor

    def lines(self):
        servers = self._editor.config.servers
        if not servers:
            return [_("No server to check; add one first.")]
        print(checking(len(servers)))
        try:
            return [check.describe() for check in self._editor.check_servers()]
        except EditError as error:
            return [_("Not checked: %s") % error]
