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

import gettext
import subprocess

import pytest

from org_edns_addon.constants import TRANSLATION_DOMAIN
from org_edns_addon.names import normalize_dns_name
from org_edns_addon.problems import ModelError

CATALOGUE = '''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "the %s is empty"
msgstr "le %s est vide"
'''


@pytest.fixture
def french_catalogue(tmp_path, monkeypatch):
    messages = tmp_path / "fr" / "LC_MESSAGES"
    messages.mkdir(parents=True)
    source = tmp_path / "fr.po"
    source.write_text(CATALOGUE)
    subprocess.run(["msgfmt", "-o", str(messages / (TRANSLATION_DOMAIN + ".mo")),
                    str(source)], check=True)
    monkeypatch.setattr(gettext, "_default_localedir", str(tmp_path))
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
