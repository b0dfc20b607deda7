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

"""Rules by line: each on the line of the kickstart it concerns, naming exactly the
installer lines that would do something other than the kickstart asks, for every line
by default and for the one --line names (validate, apply), and for the module's own line
(EdnsState.lines, what the installer module sets)."""

import json

import pytest

from lab.kickstarts import anchor_section, certificate_section, edns_kickstart, edns_section
from org_edns_addon.lines import LINE_KEYS, line_named
from org_edns_addon.state import EdnsState
from org_edns_addon.ks.reader import parse_kickstart
from org_edns_addon.model import DotServer, EdnsConfig

from tests.conftest import assert_sentence, run_cli
from tests.ks_fixtures import line_of

PORT_LINES = "on EL9, EL10, Fedora 42 NetworkManager's dnsconfd plugin (before 1.54)"
DOT_8853 = "dns+tls://192.0.2.53:8853#dot.corp.example"


def _validate(path, *options):
    result = run_cli("validate", "--json", *options, path)
    return result.returncode, [(p["line"], p["severity"], p["message"])
                               for p in json.loads(result.stdout)["problems"]]


def test_a_dot_port_of_its_own_is_an_error_on_its_line_naming_the_lines_that_drop_it(
        write_ks):
    text = edns_section("dns+tls://192.0.2.54#dot.corp.example\n" + DOT_8853)
    path = write_ks(text)
    code, problems = _validate(path)
    assert code == 1
    assert problems == [(line_of(text, DOT_8853), "error",
                         "%s is on port 8853, but %s does not pass a server's port to "
                         "dnsconfd, which then asks port 853 in the installer's initramfs "
                         "and in the installed system; serve it on port 853, or validate "
                         "with --line=LINE for a line whose NetworkManager is 1.54 or later "
                         "if only such lines install this kickstart" % (DOT_8853, PORT_LINES))]


@pytest.mark.parametrize("line, refused", [
    ("el9", True), ("el10", True), ("fedora-42", True), ("fedora-43", False),
    ("fedora-44", False), ("main", False)])
def test_line_names_the_one_line_a_port_is_judged_for(write_ks, line, refused):
    path = write_ks(edns_section(DOT_8853))
    code, problems = _validate(path, "--line=" + line)
    assert code == (1 if refused else 0)
    if refused:
        assert [message.split(" NetworkManager's")[0].split("but on ")[1]
                for _line, _severity, message in problems] == [line_named(line).name]
    else:
        assert problems == []


def test_with_the_unbound_backend_the_port_is_lost_in_the_initramfs_alone(write_ks):
    text = edns_section(DOT_8853, options="--backend=unbound")
    code, problems = _validate(write_ks(text))
    assert code == 1
    assert [message for _line, _severity, message in problems] == [
        "%s is on port 8853, but %s does not pass a server's port to dnsconfd, which then "
        "asks port 853 in the installer's initramfs; serve it on port 853, or validate with "
        "--line=LINE for a line whose NetworkManager is 1.54 or later if only such lines "
        "install this kickstart" % (DOT_8853, PORT_LINES)]


def test_a_plaintext_port_other_than_53_is_refused_alike_and_853_and_53_are_not(write_ks):
    plain = "dns+udp://192.0.2.55:5353"
    text = edns_section("dns+tls://192.0.2.53:853#dot.corp.example\n"
                        "dns+udp://192.0.2.56:53\n" + plain, options="--resolve-mode=backup")
    code, problems = _validate(write_ks(text))
    assert code == 1
    errors = [(line, message) for line, severity, message in problems if severity == "error"]
    assert [(line, message.split(",")[0]) for line, message in errors] == [
        (line_of(text, plain), "%s is on port 5353" % plain)]
    assert "which then asks port 53 " in errors[0][1]


def test_apply_refuses_what_the_named_line_would_lose_and_takes_it_for_a_line_that_keeps_it(
        write_ks, tmp_path):
    path = write_ks(edns_section(DOT_8853))
    root = tmp_path / "root"
    root.mkdir()
    assert_sentence(run_cli("apply", "--line=el9", path, "--root", root), 1,
                    "is on port 8853, but on EL9 NetworkManager's", "not applied")
    assert not (root / "etc").exists()
    applied = run_cli("apply", "--line=fedora-43", path, "--root", root)
    assert applied.returncode == 0, applied.stderr
    keyfile = (root / "etc/NetworkManager/conf.d/60-edns-global-dns.conf").read_text()
    assert "servers=%s\n" % DOT_8853 in keyfile


def _one_header_warning(write_ks, text):
    """The kickstart TEXT, written: its path, and the one problem validate says of it for
    every line, a warning on its section's header (failing otherwise)."""
    path = write_ks(text)
    code, problems = _validate(path)
    assert code == 0
    [(line, severity, message)] = problems
    assert (line, severity) == (line_of(text, "%addon"), "warning")
    return path, message


def test_search_is_a_warning_on_the_header_naming_where_it_replaces_and_where_it_adds(
        write_ks):
    path, message = _one_header_warning(write_ks, edns_section(
        "dns+tls://192.0.2.53#dot.corp.example", options="--search=corp.example"))
    assert message == ("--search=corp.example: on Fedora 44, Anaconda main (NetworkManager "
                       "1.56 and later) these become the only search domains, replacing those "
                       "of the connections (DHCP's, a network --ipv4-dns-search), while on "
                       "EL9, EL10, Fedora 42, Fedora 43 they are added to them; list every "
                       "search domain the system needs in --search")
    assert _validate(path, "--line=fedora-43") == (0, [])
    code, problems = _validate(path, "--line=fedora-44")
    assert [message for _line, _severity, message in problems] == [
        "--search=corp.example: on Fedora 44 (NetworkManager 1.56 and later) these become "
        "the only search domains, replacing those of the connections (DHCP's, a network "
        "--ipv4-dns-search); list every search domain the system needs in --search"]


def test_anchors_without_ca_are_a_warning_naming_the_lines_whose_initramfs_lacks_them(
        write_ks, pems):
    path, message = _one_header_warning(write_ks, anchor_section(
        pems.ca.pem, "corp-root.pem") + edns_section("dns+tls://192.0.2.53#dot.corp.example"))
    assert message == ("the anchors corp-root.pem authenticate the DNS servers, but on EL9, "
                       "Fedora 42, Fedora 43, Fedora 44 the installer's initramfs does not add "
                       "anchors to the system trust store (dracut/parse-kickstart), so there "
                       "the servers are authenticated by the system store alone until the "
                       "installer starts; name the certificates in --ca to have them "
                       "authenticate the servers from the first packet on every line")
    for line in ("el10", "main"):
        assert _validate(path, "--line=" + line) == (0, [])
    # Named in --ca, the certificate authenticates everywhere: nothing to say.
    named = certificate_section(pems.ca.pem, "corp-root.pem") + \
        edns_section("dns+tls://192.0.2.53#dot.corp.example", options="--ca=corp-root.pem")
    assert _validate(write_ks(named)) == (0, [])


def test_a_kickstart_every_line_honours_gets_nothing(write_ks, pems):
    path = write_ks(edns_kickstart(pems.ca.pem))
    assert not parse_kickstart(path).problems
    for key in LINE_KEYS:
        assert not parse_kickstart(path, lines=(line_named(key),)).problems


def test_the_modules_validation_judges_for_its_own_line():
    config = EdnsConfig(servers=(DotServer.parse_uri(DOT_8853),))
    state = EdnsState(config)
    # Every line until the module knows its own (the stand-alone service, the text UI).
    assert [problem.message.split(" NetworkManager")[0] for problem in state.problems()] == [
        "%s is on port 8853, but on EL9, EL10, Fedora 42" % DOT_8853]
    state.lines = (line_named("fedora-43"),)
    assert state.problems() == []
    state.lines = (line_named("el10"),)
    assert [problem.message.split(" NetworkManager")[0] for problem in state.problems()] == [
        "%s is on port 8853, but on EL10" % DOT_8853]
    assert state.copy().lines == state.lines
