"""EdnsData as Anaconda's AddonSection drives it: handle_header(args, line_number),
handle_line(line, line_number), handle_end(), str(). Errors are KickstartParseError
carrying the line number, which Anaconda shows to the user."""

import pytest
from pykickstart.errors import KickstartParseError

from org_edns_addon.ks.edns import EdnsData
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


@pytest.mark.parametrize("args", [["--search=corp\nexample"], ["--search=corp example"],
                                  ["--search=corp,ex#ample"], ["--ca=a\n.pem"],
                                  ["--ca=a\tpem"], ["--bogus"]])
def test_a_header_argument_that_could_break_a_config_line_is_refused_with_its_line(args):
    with pytest.raises(KickstartParseError) as raised:
        EdnsData().handle_header(args, 12)
    assert raised.value.lineno == 12


@pytest.mark.parametrize("line", ["dns+tls://192.0.2.53#dot\ncorp.example",
                                  "dns+tls://192.0.2.53#dot.corp.example domain=a\nb",
                                  "dns+tls://[2001:db8::53#dot.corp.example"])
def test_a_body_line_that_could_break_a_config_line_is_refused_with_its_line(line):
    data = EdnsData()
    data.handle_header([], 1)
    with pytest.raises(KickstartParseError) as raised:
        data.handle_line(line, 2)
    assert raised.value.lineno == 2
    assert data.servers == []
