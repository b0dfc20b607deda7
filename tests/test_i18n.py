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

from org_edns_addon.constants import MAX_NAMES_PER_LIST, TRANSLATION_DOMAIN
from org_edns_addon.dbus.structures import checked_names
from org_edns_addon.model import DotServer, EdnsConfig
from org_edns_addon.names import normalize_dns_name
from org_edns_addon.problems import ListOf, ModelError, Problem, Severity
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


# Three plural forms, chosen by the last digits of the count (Polish's rule).
THREE_FORMS_CATALOGUE = '''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || "
"n%100>=20) ? 1 : 2);\\n"

msgid "%(count)d search domain is too many; give at most %(limit)d"
msgid_plural "%(count)d search domains are too many; give at most %(limit)d"
msgstr[0] "one: %(count)d, at most %(limit)d"
msgstr[1] "few: %(count)d, at most %(limit)d"
msgstr[2] "many: %(count)d, at most %(limit)d"
'''


def install_catalogue(tmp_path, monkeypatch, language, text):
    """TEXT compiled as LANGUAGE's catalogue, found through TEXTDOMAINDIR."""
    messages = tmp_path / language / "LC_MESSAGES"
    messages.mkdir(parents=True)
    source = tmp_path / (language + ".po")
    source.write_text(text)
    subprocess.run(["msgfmt", "-o", str(messages / (TRANSLATION_DOMAIN + ".mo")),
                    str(source)], check=True)
    monkeypatch.setenv("TEXTDOMAINDIR", str(tmp_path))
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
def french_catalogue(tmp_path, monkeypatch):
    install_catalogue(tmp_path, monkeypatch, "fr", CATALOGUE)


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


def test_a_list_too_long_is_refused_in_the_plural_form_its_count_takes(tmp_path, monkeypatch):
    install_catalogue(tmp_path, monkeypatch, "pl", THREE_FORMS_CATALOGUE)
    monkeypatch.setenv("LANGUAGE", "pl")
    sentences = []
    counts = (1025, 1032)   # Polish's "many" and "few"
    assert min(counts) > MAX_NAMES_PER_LIST
    for count in counts:
        with pytest.raises(ModelError) as raised:
            checked_names(["corp.example"] * count, "search domain", ListOf.SEARCH_DOMAINS)
        sentences.append(str(raised.value))
    assert sentences == ["many: 1025, at most %d" % MAX_NAMES_PER_LIST,
                         "few: 1032, at most %d" % MAX_NAMES_PER_LIST]
