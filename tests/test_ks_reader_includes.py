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
from tests.ks_fixtures import line_of, parse

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
    # OpenSSL passes over text outside a block: there is no certificate in it.
    "certificate": "no -----BEGIN CERTIFICATE----- block is found; paste the CA certificate "
                   "in PEM form",
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
                       "%end\n" + edns_section(GOOD, options="--ca=a.pem"),
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
    # Our advice stays whole where it only looks like a piece of the value...
    ("%certificate --filename=x.pem --dir=/etc/secretdir/../x",
     "--dir=/etc/secretdir/../x must not contain '..'; give the directory itself, like "
     "/etc/pki/dns/",
     "--dir=... must not contain '..'; give the directory itself, like /etc/pki/dns/"),
    # ... but not where it holds the value itself, or is nothing but a piece of it.
    ("dns+tls://192.0.2.54", "append #NAME, like dns+tls://192.0.2.54#dot.example",
     "append #NAME, like ...#dot.example"),
    ("%certificate --filename=x.pem --dir=/etc/pki/dns/../x",
     "--dir=/etc/pki/dns/../x must not contain '..'; give the directory itself, like "
     "/etc/pki/dns/",
     "--dir=... must not contain '..'; give the directory itself, like ..."),
])
def test_runs_copied_from_the_line_are_elided_but_kickstart_words(line, message, shown):
    assert without_text_of(line, message, {"%certificate", "user"}) == shown


def test_our_advice_on_an_included_line_is_shown_whole_and_its_value_hidden(tmp_path, pems):
    (tmp_path / "ca.ks").write_text(certificate_section(
        pems.ca.pem, "secret-file.pem", "--dir=/etc/secretdir/../x"))
    main = tmp_path / "ks.cfg"
    main.write_text("%include ca.ks\n" + edns_section(GOOD))
    result = run_cli("validate", main)
    assert result.stdout.splitlines()[0] == (
        "%s:1: error: --dir=... must not contain '..'; give the directory itself, like "
        "/etc/pki/dns/" % (tmp_path / "ca.ks"))
    assert "secret" not in result.stdout.replace(str(tmp_path), "TMP")


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


# --- checks of the whole kickstart quote no value read from an included file ------------
# Each case: the main file, the included file (holding every name with "secret" in it), the
# line of the included file the problem is on (-N: line N of the main file), words of the
# problem and the value it must not show. Each check runs
# after reading (ks/rules.py, trust.py, model.py EdnsConfig.problems), where the line text
# is gone: the value is shown as '...', the problem keeps its FILE:LINE. The same kickstart
# in one file quotes the value (the check does fire, on a line the user can read).

CA_DIR = "--dir=/etc/pki/dns/"
INCLUDED_VALUE_CASES = {
    "no TLS name": (
        ADDON + "\n%include part.ks\n%end\n", "dns+tls://192.0.2.77\n", 1,
        "has no TLS name", "dns+tls://192.0.2.77"),
    "server twice": (
        ADDON + "\n%include part.ks\n%end\n",
        "dns+tls://192.0.2.53#a.secret.example\ndns+tls://192.0.2.53#a.secret.example\n", 2,
        "is given twice", "dns+tls://192.0.2.53#a.secret.example"),
    "plaintext, exclusive": (
        ADDON + "\n" + GOOD + "\n%include part.ks\n%end\n", "dns+udp://192.0.2.99\n", 1,
        "is refused with --resolve-mode=exclusive", "dns+udp://192.0.2.99"),
    "plaintext, unbound": (
        ADDON + " --backend=unbound --resolve-mode=backup\n%include part.ks\n%end\n",
        "dns+udp://192.0.2.99\ndns+tls://192.0.2.53#b.secret.example\n", 1,
        "cannot be used with --backend=unbound", "dns+udp://192.0.2.99"),
    "plaintext behind DoT": (
        ADDON + " --resolve-mode=backup\n%include part.ks\n%end\n",
        "dns+udp://192.0.2.99\ndns+tls://192.0.2.53#c.secret.example\n", 1,
        "is never used by dnsconfd", "dns+tls://192.0.2.53#c.secret.example"),
    "loopback": (
        ADDON + "\n" + GOOD + "\n%include part.ks\n%end\n",
        "dns+tls://127.0.0.53#d.secret.example\n", 1, "never queries the loopback server",
        "d.secret.example"),
    "link-local": (
        ADDON + "\n" + GOOD + "\n%include part.ks\n%end\n",
        "dns+tls://[fe80::53%eth0]#e.secret.example\n", 1, "link-local server",
        "e.secret.example"),
    "--ca unknown, header included": (
        "%include part.ks\n" + GOOD + "\n%end\n", ADDON + " --ca=secret-ca.pem\n", 1,
        "names no %certificate --filename", "secret-ca.pem"),
    "--ca unknown, known names included": (   # on the header, in the kickstart itself
        "%include part.ks\n" + ADDON + " --ca=dns-ca.pem\n" + GOOD + "\n%end\n",
        "{cert:secret-known.pem}", -2, "names no %certificate --filename", "secret-known.pem"),
    "second --filename": (
        "%include part.ks\n" + edns_section(GOOD),
        "{cert:secret-twice.pem}{cert:secret-twice.pem}", 0, "a second %certificate",
        "secret-twice.pem"),
    "placed on a file the addon writes": (
        "%include part.ks\n" + edns_section(GOOD),
        "{cert:60-edns-global-dns.conf:--dir=/etc/NetworkManager/conf.d}", 1,
        "a file this addon writes", "60-edns-global-dns.conf"),
    "placed where another must be a directory": (
        "%include part.ks\n" + edns_section(GOOD),
        "{cert:secret-block.pem}{cert:x.pem:--dir=/etc/pki/dns/secret-block.pem}", 1,
        "must be written below that path", "secret-block.pem"),
}


def included_case(tmp_path, pems, case, flat):
    """Write CASE's kickstart (FLAT: the included text in the main file); (main, part,
    the included text, the line of the problem in its file)."""
    main_text, part_text, line, _words, _secret = INCLUDED_VALUE_CASES[case]
    for spec in re.findall(r"\{cert:([^}]*)\}", part_text):
        filename, _, options = spec.partition(":")
        part_text = part_text.replace("{cert:%s}" % spec, certificate_section(
            pems.ca.pem, filename=filename, options=options or CA_DIR), 1)
    if line == 0:   # on the second %certificate
        line = part_text.splitlines().index(part_text.splitlines()[0], 1) + 1
    main, part = tmp_path / "ks.cfg", tmp_path / "part.ks"
    part.write_text(part_text)
    main.write_text(main_text.replace("%include part.ks\n", part_text) if flat else main_text)
    return main, part, part_text, line


@pytest.mark.parametrize("case", sorted(INCLUDED_VALUE_CASES))
def test_a_check_after_reading_names_the_included_line_without_its_values(
        tmp_path, pems, case):
    main, part, part_text, line = included_case(tmp_path, pems, case, flat=False)
    words, secret = INCLUDED_VALUE_CASES[case][3:]
    for json_output in (False, True):
        result = run_cli("validate", *(["--json"] if json_output else []), main)
        assert "Traceback" not in result.stdout + result.stderr
        if json_output:
            found = [(p["file"], p["line"], p["message"])
                     for p in json.loads(result.stdout)["problems"]]
        else:
            found = [(f, int(n), m) for f, n, m in re.findall(
                r"^(.*?):(\d+): (?:error|warning): (.*)$", result.stdout, re.M)]
        mine = [message for filename, lineno, message in found if words in message]
        assert mine, found
        place = (str(main), -line) if line < 0 else (str(part), line)
        assert place + (mine[0],) in found, found
        assert "..." in mine[0]
        output = result.stdout.replace(str(tmp_path), "TMP").lower()
        assert secret.lower() not in output and "secret" not in output, output


@pytest.mark.parametrize("case", sorted(INCLUDED_VALUE_CASES))
def test_the_same_check_in_the_kickstart_itself_quotes_the_value(tmp_path, pems, case):
    main, _part, _text, _line = included_case(tmp_path, pems, case, flat=True)
    words, secret = INCLUDED_VALUE_CASES[case][3:]
    result = run_cli("validate", main)
    assert [line for line in result.stdout.lower().splitlines()
            if words.lower() in line and secret.lower() in line], result.stdout


# --- %ksappend, as pykickstart's preprocessor puts a file in place of its line -----------
# Anaconda's initramfs reads the kickstart through pykickstart's preprocessKickstart
# (dracut/parse-kickstart process_kickstart), and stage 2 reads what it made
# (/run/install/ks.cfg; pyanaconda/kickstart.py parseKickstart: "preprocessing the
# kickstart file has already been handled in initramfs").

def read_as_the_initramfs_does(path):
    """(the preprocessed text, pykickstart's handler of it): pykickstart's own
    preprocessKickstart, then its parser as dracut/parse-kickstart sets it up
    (errorsAreFatal and missingIncludeIsFatal off, %addon a NullSection)."""
    from pykickstart.parser import KickstartParser, preprocessKickstart
    from pykickstart.sections import NullSection
    from pykickstart.version import makeVersion

    processed = preprocessKickstart(str(path))
    handler = makeVersion()
    parser = KickstartParser(handler, errorsAreFatal=False, missingIncludeIsFatal=False)
    parser.registerSection(NullSection(handler, sectionOpen="%addon"))
    parser.readKickstart(processed)
    with open(processed, encoding="utf-8") as text:
        return text.read(), handler


def test_kickstart_text_put_in_place_keeps_its_own_lines(tmp_path, pems):
    # (Test and file names hold no word of the sentences: a problem in another file than
    # the kickstart never repeats a run of that file's line, its path included.)
    part = tmp_path / "site.ks"
    part.write_text("# the site's CA and DNS\n" + certificate_section(pems.ca.pem)
                    + edns_section(GOOD, "dns+tls://192.0.2.54", options="--ca=dns-ca.pem"))
    main = tmp_path / "ks.cfg"
    main.write_text("text\n%%ksappend %s\nrootpw --lock\n" % part)

    result = parse(str(main))
    processed, handler = read_as_the_initramfs_does(main)

    # The installer reads the file's text where the line was, the line itself gone.
    assert processed == "text\n" + part.read_text() + "rootpw --lock\n"
    assert [(cert.filename, cert.dir, cert.cert) for cert in handler.certificates] == [
        (cert.filename, cert.directory, cert.pem) for cert in result.certificates]
    assert result.certificates[0].origin.filename == str(part)
    header = line_of(part.read_text(), ADDON)
    assert [(place.filename, place.lineno) for place in result.edns_places] == [
        (str(part), header)]
    assert [str(problem) for problem in result.problems] == [
        "%s:%d: error: the DoT server ... has no TLS name, so it cannot be authenticated; "
        "append #NAME as in its certificate, like ...#dot.example" % (part, header + 2)]


def test_a_nested_one_warns(tmp_path, pems):
    # Only the kickstart itself is preprocessed.
    (tmp_path / "ca.ks").write_text(certificate_section(pems.ca.pem))
    included = tmp_path / "inner.ks"
    included.write_text("%%ksappend %s\n" % (tmp_path / "ca.ks"))
    main = tmp_path / "ks.cfg"
    main.write_text("text\n%%include %s\n" % included + edns_section(GOOD))

    result = parse(str(main))
    _processed, handler = read_as_the_initramfs_does(main)

    assert handler.certificates == [] and result.certificates == []
    assert [str(problem) for problem in result.problems] == [
        "%s:1: warning: %%ksappend is followed only in the kickstart file itself (the installer "
        "preprocesses that file alone, and ignores this line); move it there, or use %%include"
        % included]


def test_a_ksappend_of_a_missing_file_is_an_error_where_the_installer_stops(tmp_path):
    from pykickstart.errors import KickstartError
    from pykickstart.parser import preprocessKickstart

    main = tmp_path / "ks.cfg"
    main.write_text("text\n%%ksappend %s\n" % (tmp_path / "missing.ks") + edns_section(GOOD))
    with pytest.raises(KickstartError, match="Unable to open %ksappend file"):
        preprocessKickstart(str(main))
    assert [str(problem) for problem in parse(str(main)).errors] == [
        "%s:2: error: %%ksappend %s: cannot read the file: No such file or directory; the "
        "installer stops reading the kickstart here (pykickstart's preprocessor: \"Unable to "
        "open %%ksappend file\")" % (main, tmp_path / "missing.ks")]


def test_a_ksappended_file_without_a_final_line_break_joins_the_next_line(tmp_path, pems):
    part = tmp_path / "ca.ks"
    part.write_text(certificate_section(pems.ca.pem).rstrip("\n"))
    main = tmp_path / "ks.cfg"
    main.write_text("%%ksappend %s\n" % part + edns_section(GOOD, options="--ca=dns-ca.pem"))

    processed, _handler = read_as_the_initramfs_does(main)

    assert "\n%end" + ADDON + " --ca=dns-ca.pem\n" in processed
    assert [str(problem) for problem in parse(str(main)).errors] == [
        "%s:%d: error: the file does not end with a line break, and %%ksappend puts its text "
        "in place of its line as it is: the installer reads this line and line 2 of %s as "
        "one; end the file with a line break" % (part, part.read_text().count("\n") + 1, main)]
