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

"""The parts of the documentation generated from the code, each between two markers.

A part states what one source in the package states: the table of the installer lines
(``lines.py``), the options of the section header (``ks/edns.py``'s ``option_parser``,
whose help texts are the user documentation, as pykickstart's own are). A page holds a
part as ``begin(NAME)``, the generated text, ``end(NAME)``;
``python3 -m org_edns_addon.docparts --write FILE...`` writes every part a page holds,
and ``tests/test_docparts.py`` holds the pages in step with their sources.
"""

import os
import re
import sys

WRITE_COMMAND = "python3 -m org_edns_addon.docparts --write"
# The pages that hold a part, below the checkout.
PAGES = ("docs/kickstart.md", "docs/support-matrix.md")


def _the_lines():
    from org_edns_addon import lines
    return lines.markdown()


_HELP_MARKUP = re.compile(r"``([^`]+)``")


def _help_text(formatter, action):
    """An option's help as argparse says it (``%(default)s`` expanded, ``%%`` one ``%``),
    on one line, pykickstart's ``literal`` markup as Markdown's. pykickstart appends
    ``.. versionadded::`` naming its own newest release (``DEVEL``), which would make the
    page differ by the pykickstart installed: not shown."""
    text = formatter._expand_help(action).split(".. versionadded::")[0]
    text = " ".join(text.split())
    return _HELP_MARKUP.sub(r"`\1`", text).replace("|", "\\|")


def _the_kickstart_options():
    from org_edns_addon.ks.edns import option_parser

    parser = option_parser()
    formatter = parser._get_formatter()
    out = ["| option | default | meaning |", "|---|---|---|"]
    for action in parser._actions:
        if not action.option_strings or action.help is None:
            continue
        value = "|".join(action.choices) if action.choices else action.metavar
        default = action.default
        shown = ("`%s`" % default) if default not in (None, [], "") else "none"
        out.append("| `%s=%s` | %s | %s |" % (
            action.option_strings[0], value.replace("|", "\\|"), shown,
            _help_text(formatter, action)))
    return "\n".join(out) + "\n"


# name: (the source that states it, what generates it)
PARTS = {
    "the lines": ("org_edns_addon/lines.py", _the_lines),
    "the kickstart options": ("org_edns_addon/ks/edns.py option_parser",
                              _the_kickstart_options),
}


def begin(name):
    return "<!-- %s: generated from %s by `%s`; do not edit -->" % (
        name, PARTS[name][0], WRITE_COMMAND)


def end(name):
    return "<!-- end of %s -->" % name


def generated(name):
    """The part NAME as a page holds it, its markers included."""
    return "%s\n\n%s\n\n%s\n" % (begin(name), PARTS[name][1]().rstrip("\n"), end(name))


def parts_in(text):
    """The names of the parts TEXT holds."""
    return [name for name in PARTS if begin(name) in text]


def replace_part(text, name, part):
    """TEXT with its part NAME, markers included, replaced by PART (ValueError when TEXT
    has no such part)."""
    first = text.find(begin(name))
    last = text.find(end(name), first)
    if first < 0 or last < 0:
        raise ValueError("no part %r to replace" % name)
    return text[:first] + part.rstrip("\n") + text[last + len(end(name)):]


def in_step(text):
    """TEXT with every part it holds generated afresh."""
    for name in parts_in(text):
        text = replace_part(text, name, generated(name))
    return text


def main(argv):
    """``--write FILE...``: write the parts each FILE holds; else print every part."""
    if argv[:1] != ["--write"]:
        sys.stdout.write("\n".join(generated(name) for name in PARTS))
        return 0
    for path in argv[1:]:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        new = in_step(text)
        if new != text:
            with open(path + ".tmp", "w", encoding="utf-8") as stream:
                stream.write(new)
            os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
