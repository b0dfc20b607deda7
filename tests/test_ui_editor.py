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

"""The editor state behind every screen: edits are validated at once, with a sentence."""

import os
import re

import pytest

from lab import certs
from org_edns_addon.certificates.kickstart import KickstartCertificate
from org_edns_addon.constants import DOT_CA_BUNDLE_PATH, DOT_CA_DIR, SYSTEM_CA_BUNDLE_PATH
from org_edns_addon.echo import named
from org_edns_addon.model import Backend, EdnsConfig, ResolveMode
from org_edns_addon.problems import ModelError
from org_edns_addon.state import EdnsState
from org_edns_addon.ui.editor import EditError, EdnsEditor, read_ca_pem, read_ca_pem_file
from org_edns_addon.ui.words import status_line


def ca(filename, pem, directory=DOT_CA_DIR, cert_type=None):
    return KickstartCertificate.from_section(filename, pem, directory, cert_type)


def editor_with(*lines, mode=ResolveMode.EXCLUSIVE):
    editor = EdnsEditor(EdnsState(EdnsConfig(resolve_mode=mode)))
    for line in lines:
        # A kickstart's server line, as the screens take it: the address, its domains.
        address, _, domains = line.partition(" domain=")
        editor.add_server(address, domains.strip() or None)
    editor.dirty = False
    return editor


def test_added_server_is_kept_with_its_tls_name_and_domains():
    editor = EdnsEditor()
    server = editor.add_server("dns+tls://[2001:db8::53]:8853#DoT.Example",
                               "lab.example, test.example")
    assert editor.config.servers == (server,)
    assert (server.port, server.name, server.domains) == (8853, "dot.example",
                                                          ("lab.example", "test.example"))
    assert editor.dirty


def test_a_zone_left_only_on_loopback_is_an_error_shown_not_an_edit_refused():
    # The list lacks a server, not the loopback one a fault of its own: it may be added
    # first, and the usable one removed before another is added; the error says so
    # meanwhile, and stops staging (state.staging_input) as every error does.
    editor = EdnsEditor()
    editor.add_server("dns+tls://127.0.0.2#dot.example")
    no_dns = ("all names would have no DNS: the only server for them, "
              "dns+tls://127.0.0.2#dot.example, is on loopback")
    assert [message[:len(no_dns)] for message in editor.errors()] == [no_dns]
    editor.add_server("dns+tls://192.0.2.53#dot.example")
    assert editor.errors() == []
    assert [p.message.split(":")[0] for p in editor.problems()] == [
        "dnsconfd's Unbound never queries the loopback server dns+tls"]
    editor.remove_server(1)
    assert [message[:len(no_dns)] for message in editor.errors()] == [no_dns]


@pytest.mark.parametrize("line, words", [
    ("dns+tls://2001:db8::53#dot.example", "must be in brackets"),
    ("dns+tls://192.0.2.300#dot.example", "'192.0.2.300' is not an IPv4 or IPv6 address"),
    ("dns+tls://192.0.2.53:99999#dot.example",
     "port 99999 is out of range; use a number from 1 to 65535"),
    ("dns+tls://192.0.2.53", "has no TLS name, so it cannot be authenticated"),
    # In the words of the screens, which have a resolve mode to choose and no kickstart.
    ("dns+udp://192.0.2.53", "plaintext server dns+udp://192.0.2.53 is refused with "
                             "the resolve mode “exclusive”; use a DoT server with its TLS name "
                             "(plaintext is allowed only with the resolve mode “backup”)"),
    ("dns+tls://192.0.2.53#bad_name.example", "not a valid DNS TLS name"),
    # The address input takes an address, the routed domains have their own.
    ("dns+tls://192.0.2.53#dot.example domain=lab.example", "a server must be one word"),
])
def test_bad_server_is_refused_and_nothing_changes(line, words):
    editor = editor_with("dns+tls://192.0.2.1#dot.example")
    before = editor.config
    with pytest.raises(EditError) as caught:
        editor.add_server(line)
    assert words in str(caught.value)
    assert editor.config == before
    assert not editor.dirty


def test_the_same_server_twice_is_refused():
    editor = editor_with("dns+tls://192.0.2.1#dot.example")
    with pytest.raises(EditError, match="given twice"):
        editor.add_server("192.0.2.1#dot.example")


def test_incomplete_configuration_is_reported_not_refused():
    editor = EdnsEditor()
    editor.add_server("dns+tls://192.0.2.60#dot.lab.example", "lab.example")
    assert editor.errors() == ["every server has routed domains; add at least one server "
                               "without routed domains to serve all other names"]
    assert editor.status() == "1 error to fix"
    editor.add_server("dns+tls://192.0.2.53#dot.example")
    assert editor.errors() == []


def test_plaintext_server_needs_backup_mode_and_pins_it():
    editor = editor_with(mode=ResolveMode.BACKUP)
    editor.add_server("dns+udp://192.0.2.53")
    with pytest.raises(EditError, match="plaintext server dns\\+udp://192.0.2.53 is refused "
                                        "with the resolve mode “prefer”"):
        editor.set_resolve_mode("prefer")
    assert editor.config.resolve_mode == ResolveMode.BACKUP


def test_server_address_and_domains_are_edited_separately():
    editor = editor_with("dns+tls://192.0.2.1#dot.example domain=lab.example",
                         "dns+tls://192.0.2.2#dot.example")
    editor.set_server_address(0, "dns+tls://[2001:db8::1]:853#other.example")
    assert editor.config.servers[0].kickstart_line() == \
        "dns+tls://[2001:db8::1]#other.example domain=lab.example"
    editor.set_server_domains(0, "b.example, a.example,b.example")
    assert editor.config.servers[0].domains == ("b.example", "a.example")
    editor.set_server_domains(0, "-")
    assert editor.config.servers[0].domains == ()
    with pytest.raises(EditError, match="empty entry"):
        editor.set_server_domains(0, "a.example,,b.example")


def test_removing_a_server():
    editor = editor_with("dns+tls://192.0.2.1#one.example", "dns+tls://192.0.2.2#two.example")
    editor.remove_server(0)
    assert [s.name for s in editor.config.servers] == ["two.example"]


def test_options_and_search_domains():
    editor = editor_with("dns+tls://192.0.2.1#dot.example")
    editor.set_backend("unbound")
    editor.set_resolve_mode("backup")
    editor.set_searches("corp.example,lab.example")
    assert (editor.config.backend, editor.config.resolve_mode, editor.config.searches) == (
        Backend.UNBOUND, ResolveMode.BACKUP, ("corp.example", "lab.example"))
    editor.set_searches("-")
    assert editor.config.searches == ()
    with pytest.raises(EditError, match="not a valid DNS search domain"):
        editor.set_searches("corp example")


def test_status_lines():
    assert EdnsEditor().status() == "Not configured"
    editor = editor_with("dns+tls://192.0.2.1#one.example", "dns+tls://192.0.2.2#two.example")
    assert editor.status() == "2 DoT servers, exclusive"
    editor.set_resolve_mode("backup")
    editor.add_server("192.0.2.3")
    assert editor.status() == "2 DoT servers + 1 plaintext, backup"
    assert status_line(editor.config, ["the plaintext server is refused"]) == "1 error to fix"
    assert status_line(editor.config, ["one", "two"]) == "2 errors to fix"


# CA certificates.

def test_pasted_ca_is_added_selected_and_bundled(test_ca):
    editor = editor_with("dns+tls://192.0.2.1#dot.example")
    pem = read_ca_pem(test_ca.pem)
    name = editor.suggest_filename(pem)
    assert name == "test-dns-ca.pem"
    editor.add_certificate(pem, name)
    assert editor.config.ca_names == ("test-dns-ca.pem",)
    staged = editor.staging_input()
    assert staged.trust.bundle == test_ca.pem.encode("ascii")
    assert [(c.filename, c.directory, c.pem) for c in staged.certificates] == [
        ("test-dns-ca.pem", "/etc/pki/dns/", test_ca.pem.rstrip("\n"))]
    assert editor.added_certificates[0].kickstart_section() == (
        "%certificate --filename=test-dns-ca.pem --dir=/etc/pki/dns/\n" + test_ca.pem +
        "%end\n")
    assert editor.suggest_filename(pem) == "test-dns-ca-2.pem"


@pytest.mark.parametrize("make_text, words", [
    (lambda ca: ca.pem + ca.key_pem, "the PEM text, line 11: a private key is pasted here"),
    (lambda ca: certs.make_server(ca).pem, "Not a valid CA certificate: CN=dot.test"),
    (lambda ca: certs.make_ca("Old CA", not_before=certs.now() - 10 * certs.DAY,
                              not_after=certs.now() - certs.DAY).pem, "expired on"),
    (lambda ca: certs.make_ca("Future CA", not_before=certs.now() + certs.DAY).pem,
     "is not valid before"),
    (lambda ca: "hello\n", "the PEM text, line 1: no -----BEGIN CERTIFICATE----- block is "
     "found"),
    (lambda ca: "", "no -----BEGIN CERTIFICATE----- block is found"),
])
def test_pasted_pem_is_checked_as_the_kickstart_rules_do(test_ca, make_text, words):
    with pytest.raises(EditError) as caught:
        read_ca_pem(make_text(test_ca))
    assert words in str(caught.value)


def test_pem_file_is_read_and_its_name_suggested(tmp_path, test_ca):
    path, key_path = test_ca.write(tmp_path, "corp-ca")
    editor = EdnsEditor()
    pem = read_ca_pem_file(str(path))
    assert editor.suggest_filename(pem, str(path)) == "corp-ca.pem"
    # The path as every sentence quotes a user's value (cut when the temporary directory
    # makes it long, as under pytest-xdist).
    with pytest.raises(EditError, match="^the PEM text of %s, line 1: a private key"
                       % re.escape(named(str(key_path)))):
        read_ca_pem_file(str(key_path))
    missing = str(tmp_path / "missing.pem")
    with pytest.raises(EditError, match="cannot read %s: " % re.escape(named(missing))):
        read_ca_pem_file(missing)


@pytest.mark.parametrize("name, words", [
    ("../x.pem", "must be a plain file name, without '/'"),
    ("a/b.pem", "must be a plain file name, without '/'"),
    ("..", "must be a plain file name, without '/'"),
    ("", "must be a plain file name, without '/'"),
    ("a,b.pem", "the file name a,b.pem holds ',', which separates the names in the list of "
                "CA certificates selected for the DNS servers"),
    ("a\tb.pem", "holds a control character"),
])
def test_certificate_file_name_must_be_plain(test_ca, name, words):
    editor = EdnsEditor()
    with pytest.raises(EditError) as caught:
        editor.add_certificate(read_ca_pem(test_ca.pem), name)
    assert words in str(caught.value)
    assert editor.certificates == ()


def test_a_file_name_with_a_space_is_a_file_name_everywhere(test_ca):
    # One rule for a %certificate --filename: what validates as a %certificate
    # can be named in --ca, and prints back quoted.
    editor = editor_with("dns+tls://192.0.2.1#dot.example")
    editor.add_certificate(read_ca_pem(test_ca.pem), "ca cert.pem")
    assert editor.config.ca_names == ("ca cert.pem",) and editor.errors() == []
    assert "'--ca=ca cert.pem'" in editor.kickstart_section()


def test_existing_certificate_is_checked_when_selected(test_ca):
    server_cert = certs.make_server(test_ca)
    known = [ca("ca.pem", test_ca.pem), ca("server.pem", server_cert.pem)]
    editor = EdnsEditor(EdnsState(EdnsConfig(), known))
    editor.toggle_ca("ca.pem")
    assert editor.config.ca_names == ("ca.pem",)
    with pytest.raises(EditError, match="^the PEM text of server.pem, line 1: "
                                        "Not a valid CA certificate"):
        editor.toggle_ca("server.pem")
    editor.toggle_ca("ca.pem")
    assert editor.config.ca_names == ()


def test_removing_a_certificate_deselects_it(test_ca):
    editor = EdnsEditor()
    editor.add_certificate(read_ca_pem(test_ca.pem), "ca.pem")
    editor.remove_certificate("ca.pem")
    assert editor.certificates == () and editor.config.ca_names == ()
    assert editor.removed_certificates == ()  # added here: nothing to cut from a file


def test_unknown_ca_name_is_an_error():
    editor = EdnsEditor(EdnsState(EdnsConfig(ca_names=("gone.pem",))))
    assert "the selected certificate gone.pem names no certificate of that name (there is no " \
           "certificate at all); add that certificate or fix the name" in editor.errors()


def test_servers_are_checked_with_the_trust_the_module_stages(test_ca):
    anchor_ca = certs.make_ca("Anchor CA")
    known = [ca("anchor.pem", anchor_ca.pem, None, "anchor"), ca("dns-ca.pem", test_ca.pem)]
    editor = EdnsEditor(EdnsState(EdnsConfig(), known))
    editor.add_server("dns+tls://192.0.2.1#dot.example")
    # Without --ca: no DoT bundle, the system store plus the anchor (probe.check_staging_input).
    staged = editor.staging_input()
    assert (staged.trust.path, staged.trust.bundle) == (SYSTEM_CA_BUNDLE_PATH, None)
    assert [block.subject for block in staged.trust.anchors] == ["CN=Anchor CA"]
    assert [(c.filename, c.cert_type) for c in staged.certificates] == [
        ("anchor.pem", "anchor"), ("dns-ca.pem", None)]
    editor.toggle_ca("dns-ca.pem")
    assert (editor.staging_input().trust.path, editor.staging_input().trust.bundle) == (
        DOT_CA_BUNDLE_PATH, test_ca.pem.encode("ascii"))


def test_a_configuration_with_errors_is_not_checked():
    editor = editor_with("dns+tls://192.0.2.1#dot.example domain=lab.example")
    with pytest.raises(EditError, match="^the encrypted DNS configuration has errors: every "
                                        "server has routed domains"):
        editor.check_servers()


def test_kickstart_section_is_the_addon_form():
    editor = editor_with("dns+tls://192.0.2.1#dot.example",
                         "192.0.2.2#two.example domain=x.example")
    editor.set_searches("corp.example")
    assert editor.kickstart_section() == (
        "%addon org_edns_addon --resolve-mode=exclusive --backend=dnsconfd "
        "--search=corp.example\n"
        "dns+tls://192.0.2.1#dot.example\n"
        "dns+tls://192.0.2.2#two.example domain=x.example\n"
        "%end\n")


def test_a_kickstart_over_the_server_limit_can_be_shrunk_but_not_grown():
    """A kickstart is read with all its servers; an edit never adds past MAX_SERVERS, but
    removing or changing one of them works (the user is not stuck with the file)."""
    from org_edns_addon.constants import MAX_SERVERS
    from org_edns_addon.model import DotServer

    servers = tuple(DotServer.parse_uri("dns+tls://192.0.2.%d#dot.example" % (number % 250 + 1))
                    for number in range(MAX_SERVERS + 2))
    editor = EdnsEditor(EdnsState(EdnsConfig(servers=servers)))
    with pytest.raises(EditError, match="^%d DNS servers are too many; give at most %d$"
                       % (MAX_SERVERS + 3, MAX_SERVERS)):
        editor.add_server("dns+tls://198.51.100.1#dot.example")
    assert editor.config.servers == servers
    editor.set_server_domains(0, "lab.example")
    editor.remove_server(1)
    assert len(editor.config.servers) == MAX_SERVERS + 1
    assert editor.config.servers[0].domains == ("lab.example",)
    editor.remove_server(0)
    with pytest.raises(EditError, match="too many"):
        editor.add_server("dns+tls://198.51.100.1#dot.example")
    assert len(editor.config.servers) == MAX_SERVERS


def test_a_certificate_that_cannot_authenticate_is_refused_in_one_sentence_everywhere(
        tmp_path, test_ca):
    # One rule (a CA, valid now) and one sentence, whichever edge the certificate comes in
    # by: the module's state (AddCertificate), a PEM file or a kickstart's certificate
    # selected in the text UI.
    leaf = certs.make_server(test_ca)
    sentence = ("the PEM text of %s, line 1: Not a valid CA certificate: CN=dot.test "
                "(basicConstraints CA:TRUE is missing); give the CA that issued the DNS "
                "servers' certificates")
    with pytest.raises(ModelError) as state_said:
        EdnsState().add_certificate(ca("leaf.pem", leaf.pem))
    path = tmp_path / "leaf.pem"
    path.write_text(leaf.pem)
    with pytest.raises(EditError) as file_said:
        read_ca_pem_file(str(path))
    with pytest.raises(EditError) as toggle_said:
        EdnsEditor(EdnsState(EdnsConfig(), [ca("leaf.pem", leaf.pem)])).toggle_ca("leaf.pem")
    assert [str(state_said.value), str(file_said.value), str(toggle_said.value)] == [
        sentence % "leaf.pem", sentence % named(str(path)), sentence % "leaf.pem"]


def test_only_a_regular_file_is_read_as_pem_and_nothing_waits(tmp_path):
    # A FIFO opened for reading waits for a writer; it is opened with O_NONBLOCK and refused.
    fifo = tmp_path / "ca.pipe"
    os.mkfifo(fifo)
    refusals = {fifo: "%s is a FIFO (a named pipe), not a file; give the path of a PEM file",
                tmp_path: "%s is a directory; give the path of a PEM file in it",
                "/dev/null": "%s is a device, not a file; give the path of a PEM file"}
    for path, sentence in refusals.items():
        with pytest.raises(EditError) as said:
            read_ca_pem_file(str(path))
        assert str(said.value) == sentence % named(str(path))


@pytest.mark.parametrize("edit, typed, expected", [
    (EdnsEditor.add_server, "x" * 3000,
     "'%s… (3000 characters) is not an IPv4 or IPv6 address" % ("x" * 79)),
    (EdnsEditor.add_server, "dns+tls://192.0.2.53#" + "a" * 500,
     "'%s… (500 characters) is not a valid DNS TLS name" % ("a" * 79)),
    (EdnsEditor.set_searches, "s" * 400,
     "'%s… (400 characters) is not a valid DNS search domain" % ("s" * 79)),
])
def test_a_refused_value_is_echoed_short_and_the_reason_kept(edit, typed, expected):
    with pytest.raises(EditError) as said:
        edit(EdnsEditor(), typed)
    assert str(said.value).startswith(expected), str(said.value)
    assert len(str(said.value)) < 300


def test_a_long_path_is_echoed_short_in_every_refusal(tmp_path):
    long_dir = tmp_path / ("d" * 200)
    long_dir.mkdir()
    (long_dir / "x.pem").write_text("hello\n")
    for path, words in ((long_dir / "missing.pem", ": No such file or directory"),
                        (long_dir, " is a directory; give the path of a PEM file in it"),
                        (long_dir / "x.pem",
                         ", line 1: no -----BEGIN CERTIFICATE----- block is found")):
        with pytest.raises(EditError) as said:
            read_ca_pem_file(str(path))
        assert "'%s… (%d characters)%s" % (str(path)[:79], len(str(path)), words) \
            in str(said.value), str(said.value)
        assert str(path) not in str(said.value)
