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

"""The words of a setting for each reader (org_edns_addon/terms.py), and the promise they
keep: no screen shows a kickstart option name or syntax.

Every sentence a screen can show is in the modules a screen uses; this reads them all
from their source (every ``_()``, ``N_()`` and ``P_()`` literal, and the glade file's
translatable texts), so a sentence added later is held too: a setting it names must come
through a term.
"""

import ast
import collections
import re
import threading
import xml.etree.ElementTree as ElementTree

import pytest

from org_edns_addon import terms
from org_edns_addon.model import Backend, EdnsConfig, ResolveMode
from org_edns_addon.state import EdnsState
from org_edns_addon.terms import on_screen
from org_edns_addon.ui.editor import EdnsEditor
from org_edns_addon.ui.words import problem_line, screen_sentence
from tests.conftest import REPO

PACKAGE = REPO / "org_edns_addon"

# What only a kickstart writes: an option (--resolve-mode), a server line's domain=, a
# section's name, and the placeholders of its syntax (dns+tls://ADDR[:PORT]#NAME).
KICKSTART_SYNTAX = re.compile(r"--[a-z]|\bdomain=|%%?(certificate|addon|edns)\b|"
                              r"\b(ADDR|NAME|DOMAIN|PORT)\b")

# The modules whose sentences a screen shows (the graphical page and spoke, the text
# screens and spokes, the standalone editor's screens, what the module's tasks say to
# them), each module whole.
SCREEN_MODULES = [
    "certificates/authority.py", "certificates/chains.py", "certificates/kickstart.py",
    "certificates/pem.py", "certificates/placement.py", "dependencies.py", "echo.py", "fileio.py",
    "line_rules.py", "lines.py", "model.py", "names.py", "probe/check.py", "probe/loop.py",
    "probe/reasons.py", "probe/result.py", "probe/server.py", "problems.py",
    "state.py", "terms.py", "trust.py", "staging/failure.py", "ui/editor.py",
    "ui/module_client.py", "ui/words.py", "gui/builder.py", "gui/certificates.py",
    "gui/check.py", "gui/inline.py", "gui/options.py", "gui/page.py", "gui/servers.py",
    "gui/spokes/edns.py", "tui/app.py", "tui/kickstart_file.py", "tui/screens.py",
    "tui/spokes/edns.py",
]
# Modules a screen's code imports whose sentences no screen shows, and why.
NOT_ON_A_SCREEN = {
    "ks/": "the kickstart's own reader and writer: what they say is said of a kickstart "
           "file, by validate and before the standalone editor opens one",
    "staging/": "the details of an apply, for the log; the person reads staging/failure.py",
    "confinement.py": "a root's refusals, within an apply's details",
    "dbus/": "the module's refusals of a D-Bus value, which the editor took by the same "
             "rules: said to another client, or when one changed the module meanwhile",
    "service/": "the module's glue; its tasks' sentences are staging/failure.py's and "
                "probe/'s",
    "constants.py": "no sentence", "i18n.py": "no sentence",
}


def sentences_of(path):
    """(line, text) of every translatable literal of the Python file PATH."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("_", "N_", "P_"):
            for argument in node.args:
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                    found.append((argument.lineno, argument.value))
    return found


def glade_texts():
    tree = ElementTree.parse(PACKAGE / "gui" / "spokes" / "edns.glade")
    return [element.text for element in tree.iter()
            if element.get("translatable") == "yes" and element.text]


def test_a_term_says_itself_in_the_words_of_its_reader():
    mode = terms.resolve_mode(ResolveMode.BACKUP)
    assert str(mode) == "--resolve-mode=backup"
    with on_screen():
        assert str(mode) == "the resolve mode “backup”"
        assert "%s, %s" % (terms.ROUTED_DOMAINS, terms.CERTIFICATE("ca.pem")) == \
            "routed domains, the certificate ca.pem"
        # Each thread reads for itself: another's sentences are the kickstart's.
        elsewhere = []
        thread = threading.Thread(target=lambda: elsewhere.append(str(mode)))
        thread.start()
        thread.join()
        assert elsewhere == ["--resolve-mode=backup"]
    assert "%s, %s" % (terms.ROUTED_DOMAINS, terms.CERTIFICATE("ca.pem")) == \
        "domain=, %certificate --filename=ca.pem"


def test_one_rule_says_its_sentence_in_both_words():
    config = EdnsConfig(servers=(), resolve_mode=ResolveMode.PREFER, backend=Backend.UNBOUND)
    [_none, plaintext] = config.problems()
    with on_screen():
        [_none, on_a_screen] = config.problems()
    assert plaintext.message.startswith("--resolve-mode=prefer lets plaintext DNS leave the "
                                        "installer's initramfs")
    assert on_a_screen.message.startswith("the resolve mode “prefer” lets plaintext DNS leave "
                                          "the installer's initramfs")
    # The same sentence, but for the words of the setting.
    assert on_a_screen.message.replace("the resolve mode “prefer”", "--resolve-mode=prefer") \
        .replace("the resolve mode “exclusive”", "--resolve-mode=exclusive") == plaintext.message


def test_every_module_a_screen_uses_is_read_or_said_not_to_speak_to_one():
    # A module a screen's code imports is either scanned below or named here with why not.
    imported = set()
    for name in SCREEN_MODULES:
        for node in ast.walk(ast.parse((PACKAGE / name).read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.startswith("org_edns_addon."):
                imported.add(node.module[len("org_edns_addon."):].replace(".", "/"))
    unsorted = []
    for module in sorted(imported):
        as_file = module + ".py"
        if as_file in SCREEN_MODULES or (PACKAGE / module).is_dir():
            continue
        if not any(as_file == place or as_file.startswith(place) for place in NOT_ON_A_SCREEN):
            unsorted.append(as_file)
    assert unsorted == []


@pytest.mark.parametrize("module", SCREEN_MODULES)
def test_no_sentence_a_screen_shows_writes_kickstart_syntax(module):
    written = ["%s:%d: %s" % (module, line, text) for line, text in
               sentences_of(PACKAGE / module) if KICKSTART_SYNTAX.search(text)]
    assert written == []


def test_no_text_of_the_glade_file_writes_kickstart_syntax():
    assert [text for text in glade_texts() if KICKSTART_SYNTAX.search(text)] == []


def test_every_term_says_the_screens_words_without_syntax():
    found = [value for value in vars(terms).values() if isinstance(value, terms.Term)]
    assert len(found) > 20
    with on_screen():
        said = [str(term(collections.defaultdict(lambda: "x")) if "%(" in term.kickstart else
                    term("x") if term.takes_value else term) for term in found]
    assert [text for text in said if KICKSTART_SYNTAX.search(text)] == []


def test_what_the_editor_says_of_a_configuration_is_in_the_screens_words(test_ca):
    # A configuration with a problem of each kind a screen lists (its lines rendered by
    # the page and the text screens alike): every one in the controls' words.
    editor = EdnsEditor(EdnsState(EdnsConfig(resolve_mode=ResolveMode.BACKUP,
                                             ca_names=("gone.pem",))))
    editor.add_server("dns+udp://192.0.2.1")
    editor.add_server("dns+tls://192.0.2.53#dot.example")
    editor.add_server("dns+tls://127.0.0.2#dot.example", "lab.example")
    lines = [problem_line(problem) for problem in editor.problems()]
    assert len(lines) >= 4
    assert [line for line in lines if KICKSTART_SYNTAX.search(line)] == []
    assert all(re.match(r"(Error|Warning): [A-Z]", line) and line.endswith(".")
               for line in lines), lines


@pytest.mark.parametrize("message, shown", [
    ("the DoT server dns+tls://192.0.2.54 has no TLS name",
     "The DoT server dns+tls://192.0.2.54 has no TLS name."),
    ("all names would have no DNS", "All names would have no DNS."),
    # A value the sentence begins with stays as it is written.
    ("lab.example would have no DNS", "lab.example would have no DNS."),
    ("'x y' is not an IPv4 or IPv6 address", "'x y' is not an IPv4 or IPv6 address."),
    ("fe80::1 cannot be a DNS server's address", "fe80::1 cannot be a DNS server's address."),
    ("dnsconfd's Unbound never queries it", "dnsconfd's Unbound never queries it."),
    ("/tmp/ca.pipe is a FIFO", "/tmp/ca.pipe is a FIFO."),
    ("Not a valid CA certificate.", "Not a valid CA certificate."),
])
def test_a_rule_s_sentence_shown_alone_is_a_sentence(message, shown):
    assert screen_sentence(message) == shown
