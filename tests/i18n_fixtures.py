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

"""A German catalogue of a few of the addon's sentences, one from each user interface, for
the tests that see a translation reach the graphical page, the text UI and the command
line, and the packaging that compiles and installs it.

The translations are written as a translator writes them into ``po/de.po``; msgfmt
(gettext's, ``make setup`` installs it) compiles them and checks that each keeps its
sentence's placeholders.
"""

import subprocess

import pytest

from org_edns_addon.constants import TRANSLATION_DOMAIN

LANGUAGE = "de"
# msgid: msgstr, or (msgid, msgid_plural): (msgstr[0], msgstr[1]).
GERMAN = {
    # The glade file (GtkBuilder translates these with the C library's gettext).
    "DNS Servers": "DNS-Server",
    "_New server:": "_Neuer Server:",
    "ENCRYPTED DNS": "VERSCHLÜSSELTES DNS",
    # The page's Python, and the graphical spoke's title on the hub.
    "The system trust store authenticates the DNS servers.":
        "Der Zertifikatsspeicher des Systems authentifiziert die DNS-Server.",
    "_Encrypted DNS": "_Verschlüsseltes DNS",
    # The text UI.
    "Encrypted DNS (DNS over TLS)": "Verschlüsseltes DNS (DNS über TLS)",
    "Encrypted DNS": "Verschlüsseltes DNS",
    ("%(count)d DoT server, %(mode)s", "%(count)d DoT servers, %(mode)s"):
        ("%(count)d DoT-Server, %(mode)s", "%(count)d DoT-Server, %(mode)s"),
    # The command line.
    "the DoT server %s has no TLS name, so it cannot be authenticated; append %s as in its "
    "certificate, like %s#dot.example":
        "der DoT-Server %s hat keinen TLS-Namen und kann so nicht authentifiziert werden; "
        "hängen Sie %s wie in seinem Zertifikat an, etwa %s#dot.example",
    ("%d error", "%d errors"): ("%d Fehler", "%d Fehler"),
}


def _quoted(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def german_po():
    """``GERMAN`` as the text of po/de.po."""
    lines = ['msgid ""', 'msgstr ""', '"Language: de\\n"', '"MIME-Version: 1.0\\n"',
             '"Content-Type: text/plain; charset=UTF-8\\n"',
             '"Content-Transfer-Encoding: 8bit\\n"',
             '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"', ""]
    for msgid, msgstr in GERMAN.items():
        flags = "#, python-format" if "%" in str(msgid) else None
        if flags:
            lines.append(flags)
        if isinstance(msgid, tuple):
            lines += ["msgid " + _quoted(msgid[0]), "msgid_plural " + _quoted(msgid[1]),
                      "msgstr[0] " + _quoted(msgstr[0]), "msgstr[1] " + _quoted(msgstr[1])]
        else:
            lines += ["msgid " + _quoted(msgid), "msgstr " + _quoted(msgstr)]
        lines.append("")
    return "\n".join(lines)


@pytest.fixture(scope="session")
def german_locale(tmp_path_factory):
    """A locale directory holding the German catalogue of the addon's domain, compiled by
    msgfmt, and the environment that selects it (TEXTDOMAINDIR, LANGUAGE; a C.UTF-8
    locale, which every Debian has, so the C library translates too)."""
    root = tmp_path_factory.mktemp("locale")
    source = root / "de.po"
    source.write_text(german_po(), encoding="utf-8")
    messages = root / LANGUAGE / "LC_MESSAGES"
    messages.mkdir(parents=True)
    subprocess.run(["msgfmt", "--check", "-o", str(messages / (TRANSLATION_DOMAIN + ".mo")),
                    str(source)], check=True, timeout=60)
    return root, {"TEXTDOMAINDIR": str(root), "LANGUAGE": LANGUAGE, "LC_ALL": "C.UTF-8",
                  "LANG": "C.UTF-8"}
