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

import os
import subprocess

import pytest

from lab.kickstarts import edns_kickstart
from org_edns_addon import constants as c
from org_edns_addon.constants import MAX_NAMES_PER_LIST, TRANSLATION_DOMAIN
from org_edns_addon.dbus.structures import checked_names
from org_edns_addon.model import DotServer, EdnsConfig
from org_edns_addon.names import normalize_dns_name
from org_edns_addon.problems import ListOf, ModelError, Problem, Severity
from org_edns_addon.ui.words import status_line
from tests.conftest import run_cli

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


# Sentences a careless translator broke, as plain msgfmt compiles them (msgfmt --check,
# which make install and the RPM run, would refuse them; a catalogue built otherwise, or
# edited afterwards, would not be).
BROKEN_CATALOGUE = '''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

msgid "the %s is empty"
msgstr "le %s %s est vide"

msgid "%(count)d DoT server, %(mode)s"
msgid_plural "%(count)d DoT servers, %(mode)s"
msgstr[0] "%(nombre)d serveur DoT, %(mode)s"
msgstr[1] "%(nombre)d serveurs DoT, %(mode)s"

msgid "the files are written (%s); no action ran"
msgstr "die Dateien sind geschrieben (%s, %s); keine Aktion lief"

msgid "ran: %s"
msgstr "lief"

msgid "enable %s"
msgstr "%d aktivieren"

msgid "wrote %s"
msgstr "schrieb %s"
'''


@pytest.fixture
def broken_catalogue(tmp_path, monkeypatch):
    install_catalogue(tmp_path, monkeypatch, "xx", BROKEN_CATALOGUE)
    monkeypatch.setenv("LANGUAGE", "xx")
    return tmp_path


def test_a_translation_whose_placeholders_do_not_fit_formats_as_the_original(
        broken_catalogue):
    assert message("") == "the TLS name is empty"
    servers = tuple(DotServer.parse_uri("dns+tls://192.0.2.%d#dot.example" % n)
                    for n in (1, 2))
    assert [status_line(EdnsConfig(servers=servers[:count]), ()) for count in (1, 2)] == [
        "1 DoT server, exclusive", "2 DoT servers, exclusive"]


UNIT = "[Unit]\nDescription=%s\n[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=%s\n"


def test_a_broken_translation_cannot_stop_apply_between_its_files_and_its_actions(
        broken_catalogue, write_ks, test_ca, tmp_path):
    """Formatting the sentence apply keeps for a signal between its files and its actions
    raised once: NetworkManager left at dns=dnsconfd, dnsconfd not enabled,
    systemd-resolved still on. Every step runs, and a broken sentence is said as written."""
    root = tmp_path / "root"
    units = root / "usr/lib/systemd/system"
    units.mkdir(parents=True)
    (units / "dnsconfd.service").write_text(UNIT % ("dnsconfd", "multi-user.target"))
    (units / "systemd-resolved.service").write_text(UNIT % ("resolved", "sysinit.target"))
    resolved = root / "etc/systemd/system/sysinit.target.wants/systemd-resolved.service"
    resolved.parent.mkdir(parents=True)
    resolved.symlink_to("/usr/lib/systemd/system/systemd-resolved.service")

    result = run_cli("apply", write_ks(edns_kickstart(test_ca.pem)), "--root", root,
                     env=dict(os.environ, LANGUAGE="xx", TEXTDOMAINDIR=str(broken_catalogue)))

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert (root / "etc/systemd/system/multi-user.target.wants/dnsconfd.service").is_symlink()
    assert not os.path.lexists(resolved)
    lines = result.stdout.splitlines()
    assert "schrieb %s" % c.NM_KEYFILE_PATH in lines            # a sound translation
    assert "ran: enable dnsconfd.service" in lines, lines
    assert "ran: disable systemd-resolved.service" in lines
