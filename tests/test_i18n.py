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

"""A marked sentence reaches a real catalogue (compiled by msgfmt), in the language the
environment names at the time of the call, as when the installer's user picks one."""

import subprocess

import pytest

from org_edns_addon.constants import TRANSLATION_DOMAIN
from org_edns_addon.model import DotServer, EdnsConfig
from org_edns_addon.names import normalize_dns_name
from org_edns_addon.problems import ModelError, Problem, Severity
from org_edns_addon.ui.words import status_line

CATALOGUE = '''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"

msgid "the %s is empty"
msgstr "le %s est vide"

msgid "error"
msgstr "erreur"

msgid "line %d: %s: %s"
msgstr "ligne %d : %s : %s"

msgid "error: %s"
msgstr "erreur : %s"

msgid "%(count)d DoT server, %(mode)s"
msgid_plural "%(count)d DoT servers, %(mode)s"
msgstr[0] "%(count)d serveur DoT, %(mode)s"
msgstr[1] "%(count)d serveurs DoT, %(mode)s"
'''


@pytest.fixture
def french_catalogue(tmp_path, monkeypatch):
    messages = tmp_path / "fr" / "LC_MESSAGES"
    messages.mkdir(parents=True)
    source = tmp_path / "fr.po"
    source.write_text(CATALOGUE)
    subprocess.run(["msgfmt", "-o", str(messages / (TRANSLATION_DOMAIN + ".mo")),
                    str(source)], check=True)
    monkeypatch.setenv("TEXTDOMAINDIR", str(tmp_path))
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)


def message(text):
    with pytest.raises(ModelError) as raised:
        normalize_dns_name(text, "TLS name")
    return str(raised.value)


def test_a_sentence_follows_the_language_the_environment_names_at_each_call(
        french_catalogue, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "fr")
    assert message("") == "le TLS name est vide"
    monkeypatch.setenv("LANGUAGE", "de")      # no catalogue: the sentence as written
    assert message("") == "the TLS name is empty"
    monkeypatch.setenv("LANGUAGE", "fr")
    assert message("") == "le TLS name est vide"


def test_a_problem_says_its_severity_and_place_in_the_language_too(french_catalogue,
                                                                    monkeypatch):
    monkeypatch.setenv("LANGUAGE", "fr")
    assert str(Problem(Severity.ERROR, "x", lineno=3)) == "ligne 3 : erreur : x"
    assert Problem(Severity.ERROR, "x", 3, "ks.cfg").headline() == "erreur : x"


def test_a_count_takes_the_plural_form_of_the_language(french_catalogue, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "fr")
    servers = tuple(DotServer.parse_uri("dns+tls://192.0.2.%d#dot.example" % n)
                    for n in (1, 2))
    assert [status_line(EdnsConfig(servers=servers[:count]), ()) for count in (1, 2)] == [
        "1 serveur DoT, exclusive", "2 serveurs DoT, exclusive"]
