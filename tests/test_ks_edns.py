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

"""EdnsData as Anaconda's AddonSection drives it: handle_header(args, line_number),
handle_line(line, line_number), handle_end(), str(). Errors are KickstartParseError
carrying the line number, which Anaconda shows to the user."""

import pytest
from pykickstart.errors import KickstartParseError

from org_edns_addon.ks.edns import EdnsData, option_parser
from org_edns_addon.model import Backend, ResolveMode


def test_anaconda_feeds_the_words_after_the_addon_name_and_each_body_line():
    data = EdnsData()
    data.handle_header(["--resolve-mode=prefer", "--backend", "unbound", "--search=corp.example"],
                       7)
    data.handle_line("dns+tls://192.0.2.53#dot.corp.example   # main\n", 8)
    data.handle_line("\n", 9)
    data.handle_line("# a comment\n", 10)
    data.handle_line("192.0.2.54#dot2.corp.example domain=lab.example\n", 11)
    data.handle_end()
    config = data.to_config()
    assert (config.resolve_mode, config.backend, config.searches) == (
        ResolveMode.PREFER, Backend.UNBOUND, ("corp.example",))
    assert [s.lineno for s in config.servers] == [8, 11]
    assert str(data) == ("\n%addon org_edns_addon --resolve-mode=prefer --backend=unbound "
                         "--search=corp.example\n"
                         "dns+tls://192.0.2.53#dot.corp.example\n"
                         "dns+tls://192.0.2.54#dot2.corp.example domain=lab.example\n"
                         "%end\n")


def test_an_unseen_section_prints_nothing():
    assert str(EdnsData()) == ""


# The search domains' sentences go on with idna's reason (its words, its version's).
@pytest.mark.parametrize("args, message", [
    (["--search=corp\nexample"],
     "--search: 'corp\\nexample' is not a valid DNS search domain ("),
    (["--search=corp example"], "--search: 'corp example' is not a valid DNS search domain ("),
    (["--search=corp,ex#ample"], "--search: 'ex#ample' is not a valid DNS search domain ("),
    (["--ca=a\n.pem"],
     "--ca='a\\n.pem' holds a control character; use a plain file name like corp-ca.pem"),
    (["--ca=a\tpem"],
     "--ca='a\\tpem' holds a control character; use a plain file name like corp-ca.pem"),
    (["--bogus"],
     "unknown option --bogus; the options are --backend, --ca, --resolve-mode, --search"),
])
def test_a_header_argument_that_could_break_a_config_line_is_refused_with_its_line(args,
                                                                                   message):
    with pytest.raises(KickstartParseError) as raised:
        EdnsData().handle_header(args, 12)
    assert raised.value.lineno == 12
    assert raised.value.message.startswith(message), raised.value.message


@pytest.mark.parametrize("line, message", [
    ("dns+tls://192.0.2.53#dot\ncorp.example", "unexpected 'corp.example' after the server; "
     "the only option of a server line is domain=DOMAIN[,DOMAIN]"),
    ("dns+tls://192.0.2.53#dot.corp.example domain=a\nb", "unexpected 'b' after the server; "
     "the only option of a server line is domain=DOMAIN[,DOMAIN]"),
    ("dns+tls://[2001:db8::53#dot.corp.example",
     "'dns+tls://[2001:db8::53#dot.corp.example' has '[' without a closing ']'"),
])
def test_a_body_line_that_could_break_a_config_line_is_refused_with_its_line(line, message):
    data = EdnsData()
    data.handle_header([], 1)
    with pytest.raises(KickstartParseError) as raised:
        data.handle_line(line, 2)
    assert (raised.value.lineno, raised.value.message) == (2, message)
    assert data.servers == []


def test_every_option_help_expands_as_argparse_expands_it():
    """Python 3.14's argparse expands each help string when the option is added and refuses
    one that does not ("badly formed help string", Lib/argparse.py _check_help): a bare
    ``%certificate`` there made the section's parser fail on Fedora 43's Python 3.14. The
    formatter's expansion is the same on every Python."""
    parser = option_parser()
    formatter = parser._get_formatter()
    helps = [action for action in parser._actions if action.help]

    expanded = {action.dest: formatter._expand_help(action) for action in helps}

    assert "``%certificate --filename``" in expanded["ca_names"]
