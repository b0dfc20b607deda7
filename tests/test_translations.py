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

"""The translation catalogue: `make potfile` extracts every marked sentence of the Python
sources and the glade file, po/ holds the template as they stand, and a catalogue for one
language (German, tests/i18n_fixtures.py) shows in the graphical page, the text UI and the
command line, each run as its own process in that language."""

import json
import os
import re
import subprocess
import sys

from lab.kickstarts import edns_section
from org_edns_addon.constants import TRANSLATION_DOMAIN
from tests.conftest import REPO
from tests.i18n_fixtures import GERMAN

POT = REPO / "po" / (TRANSLATION_DOMAIN + ".pot")
# An entry's identity: its msgid and, for a plural, its msgid_plural.
ENTRY = re.compile(r'^msgid ((?:".*"\n)+)(?:msgid_plural ((?:".*"\n)+))?', re.MULTILINE)


def _joined(quoted):
    return "".join(json.loads(line) for line in quoted.splitlines()) if quoted else None


def entries(pot_text):
    """{msgid or (msgid, msgid_plural)} of a catalogue's text, the header left out."""
    found = set()
    for match in ENTRY.finditer(pot_text):
        msgid, plural = _joined(match.group(1)), _joined(match.group(2))
        if msgid:
            found.add((msgid, plural) if plural else msgid)
    return found


def make_potfile(tmp_path):
    pot = tmp_path / "fresh.pot"
    result = subprocess.run(["make", "--no-print-directory", "potfile", "POT=%s" % pot,
                             "PYTHON=%s" % sys.executable], cwd=REPO, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return pot.read_text(encoding="utf-8")


def test_make_potfile_extracts_the_python_and_the_glade_sentences(tmp_path):
    text = make_potfile(tmp_path)
    found = entries(text)
    assert "#: org_edns_addon/gui/spokes/edns.glade:" in text
    assert {"_New server:", "ENCRYPTED DNS", "Pre-flight Check", "Not configured",
            "the list of search domains has an empty entry; separate search domains with "
            "single commas, like corp.example,lab.example"} <= found
    assert ("%(count)d DoT server, %(mode)s", "%(count)d DoT servers, %(mode)s") in found
    assert "#. TRANSLATORS: the hub's status of encrypted DNS;" in text
    # Every sentence the German catalogue translates is one the template offers.
    assert set(GERMAN) <= found
    assert '"Content-Type: text/plain; charset=UTF-8\\n"' in text


def test_po_holds_the_template_of_the_sentences_as_they_stand(tmp_path):
    # A sentence added or changed without `make potfile` is one no translator sees.
    assert entries(POT.read_text(encoding="utf-8")) == entries(make_potfile(tmp_path)), \
        "po/%s.pot is out of date: run make potfile" % TRANSLATION_DOMAIN


GERMAN_PAGE = """
import json
from gi.repository import Gtk
from org_edns_addon.gui.builder import load_page
from org_edns_addon.gui.page import EdnsPage
from org_edns_addon.ui.editor import EdnsEditor
editor = EdnsEditor()
editor.add_server("dns+tls://192.0.2.53#dot.example")
page = EdnsPage(load_page(), None)
page.show(editor)
get = page.builder.get_object
print(json.dumps({"header": get("ednsServersHeader").get_label(),
                  "label": get("ednsNewServerLabel").get_label(),
                  "trust": page.certificates.trust_label.get_text()}))
"""


def run_python(code, env):
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def test_a_german_catalogue_shows_in_the_graphical_page(german_locale, display):
    _, language = german_locale
    result = run_python(GERMAN_PAGE, dict(display.environment(), **language,
                                          PYTHONPATH=str(REPO)))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "header": "DNS-Server",                   # the glade file's, translated by GTK
        "label": "_Neuer Server:",
        "trust": "Der Zertifikatsspeicher des Systems authentifiziert die DNS-Server."}


def test_a_german_catalogue_shows_in_the_text_ui(german_locale, terminal, write_ks):
    _, language = german_locale
    kickstart = write_ks(edns_section("dns+tls://192.0.2.53#dot.example"))
    terminal.start_command(["env", "PYTHONPATH=%s" % REPO, *("%s=%s" % item for item in
                                                             language.items()),
                            sys.executable, "-m", "org_edns_addon.cli", "tui", kickstart])
    screen = terminal.wait_for("Status: 1 DoT-Server, exclusive")
    assert "Verschlüsseltes DNS (DNS über TLS)" in screen


def test_a_german_catalogue_shows_in_the_command_line(german_locale, write_ks):
    _, language = german_locale
    kickstart = write_ks(edns_section("dns+tls://192.0.2.54"))
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", "validate", kickstart],
                            env=dict(os.environ, **language, PYTHONPATH=str(REPO)),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    output = result.stdout + result.stderr
    assert "der DoT-Server dns+tls://192.0.2.54 hat keinen TLS-Namen und kann so nicht " \
        "authentifiziert werden" in output
    assert "1 Fehler" in output
