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

"""edns-addon(1), generated from the command's own parser (``parser.build_parser``).

The page says what ``edns-addon --help`` and each ``edns-addon COMMAND --help`` say: the
description, every command with its usage, help and options, and the exit statuses
(the parser's epilog), in man(7) roff. ``packaging.py`` installs it as
``/usr/share/man/man1/edns-addon.1``; it carries no date, so the same tree gives the same
bytes. argparse-manpage does the same from PyPI, but neither Debian 12 nor EL9 has it as a
package, and ``make install`` must work where the RPM is built.
"""

import argparse
import re

from org_edns_addon import __version__
from org_edns_addon.cli.parser import build_parser

PROGRAM = "edns-addon"
# Python 3.14's argparse colours its usage when it writes to a terminal.
_COLOUR = re.compile("\x1b\\[[0-9;]*m")


def _roff(text):
    """TEXT as roff prints it: backslashes and hyphen-minus escaped, and a line that would
    start with a control character (``.`` or ``'``) kept as text."""
    text = _COLOUR.sub("", text).replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line[:1] in (".", "'") else line
                     for line in text.splitlines())


def _help(parser, action):
    """An action's help as argparse prints it (``%(default)s`` expanded), on one line."""
    return " ".join(parser._get_formatter()._expand_help(action).split())


def _usage(parser):
    return " ".join(parser.format_usage().split()[1:])


def _value(action):
    if action.metavar:
        return action.metavar
    if action.choices:
        return "{%s}" % ",".join(action.choices)
    return action.dest.upper()


def _options(parser):
    out = []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(
                action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            name = ", ".join(action.option_strings)
            if action.nargs != 0:
                name += " " + _value(action)
        else:
            name = action.metavar or action.dest
        out += [".TP", "\\fB%s\\fR" % _roff(name)]
        out.append(_roff(_help(parser, action)) if action.help else "")
    return out


def _commands(parser):
    """(name, help, its parser) of each command, in the parser's order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: _help(parser, choice) for choice in action._choices_actions}
            return [(name, helps.get(name, ""), command)
                    for name, command in action.choices.items()]
    return []


def manual_page(parser=None):
    """edns-addon(1) as roff text."""
    parser = parser or build_parser()
    out = ['.TH EDNS\\-ADDON 1 "" "%s %s" "User Commands"' % (PROGRAM, _roff(__version__)),
           ".SH NAME", "%s \\- encrypted DNS for Anaconda installations" % PROGRAM,
           ".SH SYNOPSIS", "\\fB%s\\fR \\fICOMMAND\\fR [\\fIOPTIONS\\fR]" % PROGRAM,
           ".br", "\\fB%s\\fR \\-\\-version" % PROGRAM,
           ".SH DESCRIPTION", _roff(" ".join(parser.description.split())),
           ".SH COMMANDS"]
    for name, text, command in _commands(parser):
        out += [".SS %s" % _roff(name), "\\fB%s\\fR" % _roff(_usage(command)), ".PP",
                _roff(text)]
        out += _options(command)
    out += [".SH OPTIONS"] + _options(parser)
    if parser.epilog:
        out += [".SH EXIT STATUS", _roff(" ".join(parser.epilog.split()))]
    out += [".SH SEE ALSO", "\\fBksvalidator\\fR(1), \\fBNetworkManager.conf\\fR(5), "
            "\\fBunbound.conf\\fR(5), \\fBdracut.conf\\fR(5)"]
    return "\n".join(out) + "\n"
