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

"""`%include` as pykickstart reads it: every one recorded where it is, and nothing of an
included file that is not a kickstart ever printed."""

import json
import re

import pytest

from lab.kickstarts import ADDON, certificate_section, edns_section
from org_edns_addon import constants as c
from org_edns_addon.ks.source import without_text_of
from org_edns_addon.ks.result import Include
from tests.conftest import run_cli
from tests.ks_fixtures import parse

GOOD = "dns+tls://192.0.2.53#dot.corp.example"


# --- every %include is recorded, decided on pykickstart's own words ---------------------

@pytest.mark.parametrize("spelling, lineno", [
    ("%include {}\n", 2),
    ("'%include' {}\n", 2),
    ('"%include" {}\n', 2),
    ("  %include   '{}'  # a comment\n", 2),
    ("# note\x85%include {}\n", 3),            # U+0085 ends a line for pykickstart
    ("%post\n%include {}\n%end\n", 3),         # followed inside a script, too
])
def test_each_include_pykickstart_follows_is_recorded_on_its_line(tmp_path, spelling, lineno):
    (tmp_path / "part.ks").write_text("# nothing\n")
    main = tmp_path / "ks.cfg"
    main.write_text("text\n" + spelling.format("part.ks") + edns_section(GOOD))
    result = parse(str(main))
    assert result.includes == [Include(str(main), lineno, "part.ks")]
    assert result.errors == []


def test_includes_in_sections_and_included_files_are_recorded_in_reading_order(tmp_path, pems):
    (tmp_path / "servers.ks").write_text("%%include more.ks\n%s\n" % GOOD)
    (tmp_path / "more.ks").write_text("# more servers\n")
    (tmp_path / "ca.ks").write_text(pems.ca.pem)
    main = tmp_path / "ks.cfg"
    main.write_text("%certificate --filename=dns-ca.pem --dir=/etc/pki/dns/\n%include ca.ks\n"
                    "%end\n" + ADDON + " --ca=dns-ca.pem\n%include servers.ks\n%end\n"
                    "%include http://192.0.2.1/ks.cfg\n%include /nonexistent/x.ks\n")
    result = parse(str(main))
    assert result.includes == [
        Include(str(main), 2, "ca.ks"),
        Include(str(main), 5, "servers.ks"),
        Include(str(tmp_path / "servers.ks"), 1, "more.ks"),
        Include(str(main), 7, "http://192.0.2.1/ks.cfg"),
        Include(str(main), 8, "/nonexistent/x.ks")]
    assert result.errors == []


def test_a_kickstart_without_include_records_none(write_ks):
    text = "text\n# %include x.ks\n%post\necho '%include y.ks'\n%end\n" + edns_section(GOOD)
    assert parse(write_ks(text)).includes == []


# --- an included file's text is never printed ------------------------------------------

SHADOW = ("root:$6$Zq8saltSECRET$Kx9vB2mQp7LwN4rT1yH6uJ3eD5fG8hA0sZcXvBnMq:19000:0:99999:7:::\n"
          "daemon:*:19000:0:99999:7:::\n"
          "alice:$y$j9T$anotherSalt42$Qw3rTy7uIoP9aSdFgH2jKlZx5cVbN8m:19100:0:99999:7:::\n"
          "user alice --password=hunter2secret\n")


def shown_fragments(text, output, size=4):
    """The runs of SIZE characters of TEXT's lines that OUTPUT holds."""
    return sorted({line[i:i + size] for line in text.splitlines()
                   for i in range(len(line) - size + 1)} & {output[i:i + size] for i in range(
                       len(output) - size + 1)})


# What is said about the included file's first line, by where it is included: the line
# itself shows as "...".
FIRST_PROBLEM = {
    "commands": "Unknown command: ...",
    "certificate": "unexpected text '...' outside a PEM block; a %certificate body holds only "
                   "-----BEGIN CERTIFICATE----- blocks",
    "addon": "'...' is not an IPv4 or IPv6 address",
    "edns": "'...' is not an IPv4 or IPv6 address",
}


@pytest.mark.parametrize("where", ["commands", "certificate", "addon", "edns"])
def test_a_problem_in_an_included_file_never_shows_its_lines(tmp_path, where):
    secret = tmp_path / "shadow"
    secret.write_text(SHADOW)
    include = "%%include %s\n" % secret
    main = tmp_path / "ks.cfg"
    main.write_text({
        "commands": include + edns_section(GOOD),
        "certificate": "%certificate --filename=a.pem --dir=/etc/pki/dns/\n" + include +
                       "%end\n" + edns_section(GOOD),
        "addon": edns_section(GOOD, include.rstrip("\n")),
        "edns": edns_section(include.rstrip("\n"), GOOD, spelling="%edns"),
    }[where])
    for json_output in (False, True):
        result = run_cli("validate", *(["--json"] if json_output else []), main)
        assert result.returncode == 1
        assert "Traceback" not in result.stdout + result.stderr
        output = (result.stdout + result.stderr).replace(str(tmp_path), "TMP")
        # What may show: the words of kickstart ("user", "--password", "%certificate"),
        # never a hash, a salt, a password.
        assert shown_fragments(SHADOW, output) in ([], ["user"], ["user", "word"]), output
        assert not re.search(r"Zq8s|SECRET|anot|hunter|Qw3r|:19[01]00", output)
        places = [(p["file"], p["line"], p["message"])
                  for p in json.loads(result.stdout)["problems"]] \
            if json_output else re.findall(r"^(.*?):(\d+): error: (.*)$", result.stdout, re.M)
        assert (str(secret), 1 if json_output else "1", FIRST_PROBLEM[where]) in places


def test_a_problem_in_an_included_kickstart_keeps_the_words_of_kickstart(tmp_path, pems):
    (tmp_path / "ca.ks").write_text(certificate_section(pems.ca.pem, filename="../ca.pem"))
    main = tmp_path / "ks.cfg"
    main.write_text("%include ca.ks\n" + edns_section(GOOD))
    result = run_cli("validate", main)
    assert result.stdout.splitlines()[0] == (
        "%s:1: error: --filename=... must be a plain file name, without '/'"
        % (tmp_path / "ca.ks"))


def test_a_problem_of_the_include_line_in_an_included_file_names_the_file(tmp_path):
    (tmp_path / "part.ks").write_text("%include /nonexistent/secret-name.ks\n")
    main = tmp_path / "ks.cfg"
    main.write_text("%include part.ks\n" + edns_section(GOOD))
    result = run_cli("validate", main)
    assert result.stdout.splitlines()[0] == (
        "%s:1: warning: %%include /nonexistent/secret-name.ks: cannot read the file: No such "
        "file or directory; if a %%pre script writes it, check that file separately"
        % (tmp_path / "part.ks"))


def test_a_problem_in_the_kickstart_itself_quotes_its_line(write_ks):
    path = write_ks("netwrk --bootproto=dhcp\n" + edns_section(GOOD))
    assert run_cli("validate", path).stdout.splitlines()[0] == \
        "%s:1: error: Unknown command: netwrk" % path


@pytest.mark.parametrize("line, message, shown", [
    ("root:$6$salt$hash:1:::", "Unknown command: root:$6$salt$hash:1:::",
     "Unknown command: ..."),
    ("abc:12345", "port '12345' is out of range", "port '...' is out of range"),
    ("%certificate --filename=a/b --dir=/e", "--filename=a/b must be a plain file name",
     "--filename=a/b must be a plain file name"),
    ("%certificate --filename=../xyz --dir=/e", "--filename=../xyz must be a plain file name",
     "--filename=... must be a plain file name"),
    ("user alice", "unexpected 'alice'", "unexpected '...'"),
    ("abc", "Unknown command: abc", "Unknown command: abc"),   # shorter than a run
])
def test_runs_copied_from_the_line_are_elided_but_kickstart_words(line, message, shown):
    assert without_text_of(line, message, {"%certificate", "user"}) == shown


def test_includes_nested_too_deep_are_an_error_with_the_fix(tmp_path):
    depth = c.MAX_INCLUDE_DEPTH + 20
    for level in range(depth):
        (tmp_path / ("%d.ks" % level)).write_text("%%include %d.ks\n" % (level + 1))
    (tmp_path / ("%d.ks" % depth)).write_text("text\n")
    result = run_cli("validate", tmp_path / "0.ks")
    assert result.returncode == 1
    last = tmp_path / ("%d.ks" % (c.MAX_INCLUDE_DEPTH - 1))
    assert "%s:1: error: %%include %s is nested more than %d files deep; include the files " \
        "from fewer levels, or flatten the kickstart (ksflatten)" % (
            last, tmp_path / ("%d.ks" % c.MAX_INCLUDE_DEPTH), c.MAX_INCLUDE_DEPTH) \
        in result.stdout
    assert "recursion" not in result.stdout
