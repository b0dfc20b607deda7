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

"""The screens rendered to text and fed input directly, without a terminal."""

import pytest
from simpleline import App
from simpleline.render.screen import InputState
from simpleline.render.screen_handler import ScreenHandler

from org_edns_addon.model import EdnsConfig, ResolveMode
from org_edns_addon.certificates.kickstart import KickstartCertificate
from org_edns_addon.constants import DOT_CA_BUNDLE_PATH, DOT_CA_DIR
from org_edns_addon.state import EdnsState
from org_edns_addon.ui.editor import EditError, EdnsEditor
from org_edns_addon.tui.kickstart_file import load_kickstart
from org_edns_addon.tui.screens import (CaScreen, CheckScreen, EntryScreen, MainScreen,
                                        ServerScreen, ServersScreen, SummaryScreen,
                                        add_server_screen, resolve_mode_screen, summary_lines)
from lab.kickstarts import edns_kickstart
from tests.dot_fixtures import times_masked
from tests.conftest import REPO, run_cli

EXAMPLE = str(REPO / "data" / "examples" / "corp-dot.ks")


@pytest.fixture(autouse=True)
def app():
    App.initialize()
    yield App


def render(screen):
    screen.refresh()
    screen.window.render(80)
    return "\n".join(line.rstrip() for line in screen.window.get_lines())


def top_screen():
    """The screen simpleline shows next (its scheduler offers no public way to ask)."""
    return App.get_scheduler()._screen_stack.pop(False).ui_screen


def main_screen(editor):
    return MainScreen(editor, lambda: None, "to save")


def test_first_screen_of_a_new_configuration():
    text = render(main_screen(EdnsEditor()))
    assert text.splitlines()[0] == "Encrypted DNS (DNS over TLS)"
    assert "1) Servers: none yet; add at least one" in text
    assert "2) Resolve mode: exclusive" in text
    assert "5) CA certificates: The system trust store authenticates the DNS servers." in text
    assert "6) Check servers (TLS handshake and one query each)" in text
    assert "7) Summary of what will be configured" in text
    assert "Status: Not configured" in text
    assert "Error: No DNS server is given; add a server like" in text


def test_first_screen_lists_the_kickstart_servers_with_their_routes():
    _, editor = load_kickstart(EXAMPLE)
    text = render(main_screen(editor))
    assert "     dns+tls://192.0.2.53#dot.corp.example (every name)" in text
    assert "     dns+tls://198.51.100.60#dot.lab.example (only lab.example,\n" \
           "   test.lab.example)" in text
    assert "4) Search domains: none" in text
    assert "5) CA certificates: corp-dns-ca.pem" in text
    assert "Status: 4 DoT servers, exclusive" in text


def test_server_list_shows_tls_names_and_routed_domains():
    _, editor = load_kickstart(EXAMPLE)
    text = render(ServersScreen(editor))
    assert "3) dns+tls://192.0.2.54#dot2.corp.example\n" \
           "      TLS name: dot2.corp.example; serves every name" in text
    assert "4) dns+tls://198.51.100.60#dot.lab.example\n" \
           "      TLS name: dot.lab.example; serves only lab.example, test.lab.example" in text
    assert "5) Add a server" in text


def test_selecting_an_item_opens_its_screen():
    screen = main_screen(EdnsEditor())
    render(screen)
    assert screen.input(None, "1") == InputState.PROCESSED
    assert "ServersScreen" in App.get_scheduler().dump_stack()
    assert screen.input(None, "r") == "r"  # not an item: the scheduler's own keys


def test_bad_server_is_refused_and_the_screen_stays(capsys):
    editor = EdnsEditor()
    screen = add_server_screen(editor)
    assert screen.input(None, "dns+tls://2001:db8::53#dot.example") == InputState.DISCARDED
    printed = " ".join(capsys.readouterr().out.split())
    assert printed == "Error: The IPv6 address in 'dns+tls://2001:db8::53#dot.example' must " \
                      "be in brackets, like dns+tls://[2001:db8::53]:853#dot.example."
    assert "Error: The IPv6 address in" in render(screen)  # a redraw shows it too
    assert editor.config.servers == ()
    # Taken; the next screen asks which domains only it serves.
    ScreenHandler.push_screen(screen)
    assert screen.input(None, "dns+tls://[2001:db8::53]#dot.example") == InputState.PROCESSED
    assert [s.uri() for s in editor.config.servers] == ["dns+tls://[2001:db8::53]#dot.example"]
    domains = top_screen()
    assert render(domains).splitlines()[0] == "Routed domains of server 1"
    assert domains.input(None, "lab.example") == InputState.PROCESSED_AND_CLOSE
    assert editor.config.servers[0].domains == ("lab.example",)


def test_a_server_added_without_routed_domains_serves_every_name():
    editor = EdnsEditor()
    screen = add_server_screen(editor)
    ScreenHandler.push_screen(screen)
    assert screen.input(None, "192.0.2.53#dot.example") == InputState.PROCESSED
    domains = top_screen()
    assert "Domains (empty line: every name)" in domains.prompt().message
    assert domains.input(None, "") == InputState.PROCESSED_AND_CLOSE
    assert editor.config.servers[0].domains == ()


def test_empty_line_goes_back_unchanged():
    editor = EdnsEditor()
    assert add_server_screen(editor).input(None, "") == InputState.PROCESSED_AND_CLOSE
    assert not editor.dirty


def test_entry_with_a_default_accepts_it_on_an_empty_line():
    taken = []
    screen = EntryScreen("t", "e", "Name", taken.append, default="ca.pem")
    assert screen.input(None, "") == InputState.PROCESSED_AND_CLOSE
    assert taken == ["ca.pem"]


def test_mode_choice_marks_the_current_one_and_refuses_what_breaks_a_server(capsys):
    editor = EdnsEditor(EdnsState(EdnsConfig(resolve_mode=ResolveMode.BACKUP)))
    editor.add_server("192.0.2.53")
    screen = resolve_mode_screen(editor)
    text = render(screen)
    assert "1) [ ] exclusive" in text and "3) [x] backup" in text
    assert screen.input(None, "1") == InputState.DISCARDED
    assert "plaintext server dns+udp://192.0.2.53 is refused" in \
        " ".join(capsys.readouterr().out.split())
    assert "Error: The plaintext server" in render(screen)
    assert editor.config.resolve_mode == ResolveMode.BACKUP


def test_server_screen_edits_and_removes():
    editor = EdnsEditor()
    editor.add_server("dns+tls://192.0.2.53#dot.example", "lab.example")
    screen = ServerScreen(editor, 0)
    text = render(screen)
    assert "1) Address: dns+tls://192.0.2.53#dot.example" in text
    assert "2) Routed domains: lab.example" in text
    assert screen.input(None, "3") == InputState.PROCESSED_AND_CLOSE
    assert editor.config.servers == ()


def test_ca_screen_marks_selected_certificates(test_ca):
    editor = EdnsEditor(EdnsState(EdnsConfig(), [KickstartCertificate.from_section(
        "corp-ca.pem", test_ca.pem, DOT_CA_DIR)]))
    editor.toggle_ca("corp-ca.pem")
    text = render(CaScreen(editor))
    assert "1) [x] corp-ca.pem (the kickstart)\n       (CN=Test DNS CA, valid until" in text
    assert "2) Paste a PEM certificate" in text and "3) Read a PEM file" in text


def test_summary_shows_the_section_and_the_messages():
    editor = EdnsEditor()
    editor.add_server("dns+tls://192.0.2.60#dot.lab.example", "lab.example")
    text = render(SummaryScreen(editor))
    assert "lab.example: dns+tls://192.0.2.60#dot.lab.example" in text
    assert "The system trust store authenticates the DNS servers." in text
    assert "Error: Every server has routed domains; add at least one server without routed\n" \
           "domains to serve all other names." in text
    # The installer's summary is no kickstart; the editor of a kickstart file shows the
    # section it writes there, as the file's text.
    assert "%addon" not in text
    assert "As the kickstart file gets it:\n" \
           "  %addon org_edns_addon --resolve-mode=exclusive --backend=dnsconfd\n" \
           "  dns+tls://192.0.2.60#dot.lab.example domain=lab.example\n  %end" in \
        render(SummaryScreen(editor, kickstart=True))


@pytest.mark.root
def test_check_screen_reaches_a_dot_server_of_the_lab(dot_pki, dot_upstream, write_ks):
    editor = EdnsEditor(EdnsState(EdnsConfig(), [KickstartCertificate.from_section(
        "dns-ca.pem", dot_pki.ca.pem, DOT_CA_DIR)]))
    servers = (dot_upstream.server_line(), dot_upstream.server_line("wrong.test"))
    for server in servers:
        editor.add_server(server)
    editor.toggle_ca("dns-ca.pem")
    # The screen checks as it is drawn, here in the lab's network.
    lines = dot_upstream.network.run(render, CheckScreen(editor)).splitlines()
    assert lines[0] == "Check servers"
    assert lines[2].startswith("%s: ok, " % dot_upstream.server_line())
    # The ok line may wrap: its times take more than the 80 columns left; so may the next.
    assert any(" ".join(lines[index:]).startswith(
        "%s: name mismatch: the server's certificate is" % dot_upstream.server_line("wrong.test"))
        for index in (3, 4))
    # One source: the lines `edns-addon check` prints for the same servers (each run's
    # times its own).
    shown = dot_upstream.network.run(CheckScreen(editor).lines)
    cli = run_cli("check", write_ks(edns_kickstart(dot_pki.ca.pem, servers=servers,
                                                   commands="")),
                  prefix=dot_upstream.network.command([]))
    assert [times_masked(line) for line in shown] == \
        [times_masked(line) for line in cli.stdout.splitlines()], cli.stderr



def test_check_screen_without_servers():
    assert "No server to check; add one first." in render(CheckScreen(EdnsEditor()))


def test_check_screen_says_why_a_configuration_with_errors_is_not_checked():
    editor = EdnsEditor()
    editor.add_server("dns+tls://192.0.2.1#dot.example", "lab.example")
    assert "Not checked: the encrypted DNS configuration has errors: every server has " \
           "routed domains" in " ".join(render(CheckScreen(editor)).split())


def test_save_refusal_keeps_the_first_screen(capsys):
    def save():
        raise EditError("not written: the configuration has errors")
    screen = MainScreen(EdnsEditor(), save, "to save")
    assert screen.input(None, "c") == InputState.DISCARDED
    assert not screen.saved
    assert "Error: Not written: the configuration has errors." in capsys.readouterr().out


def test_every_sentence_naming_the_trust_says_what_staging_uses(test_ca):
    # A %certificate at dnsconfd's bundle path, without --ca: staging and the check use
    # that certificate alone (trust.dot_trust), and so must the screens say.
    editor = EdnsEditor(EdnsState(EdnsConfig(), [KickstartCertificate.from_section(
        "tls-ca-bundle.pem", test_ca.pem, DOT_CA_BUNDLE_PATH.rsplit("/", 1)[0] + "/")]))
    editor.add_server("dns+tls://192.0.2.53#dot.example")
    assert editor.staging_input().trust.blocks == editor.certificates[0].blocks
    said = "tls-ca-bundle.pem alone authenticates the DNS servers; it is placed at %s." \
        % DOT_CA_BUNDLE_PATH
    assert "5) CA certificates: %s" % said in " ".join(render(main_screen(editor)).split())
    summary = summary_lines(editor)
    assert [line for line in summary if line.startswith(said)]
    # What is configured comes before a blank line, the problems after it.
    assert not [line for line in summary[:summary.index("")] if "system trust store" in line]


def test_a_bundle_unbound_would_refuse_is_said_in_chain_words_never_no_problems(
        intermediate_alone):
    editor = intermediate_alone.editor()
    main = " ".join(render(main_screen(editor)).split())
    assert "5) CA certificates: %s" % intermediate_alone.trust in main
    assert intermediate_alone.error in main
    summary = " ".join(render(SummaryScreen(editor)).split())
    assert intermediate_alone.trust in summary and intermediate_alone.error in summary
    assert "No problems." not in summary


def test_each_mode_says_what_it_does_and_what_plaintext_it_lets_out_where_it_is_chosen():
    editor = EdnsEditor()
    editor.add_server("dns+tls://192.0.2.53#dot.example")
    text = " ".join(render(resolve_mode_screen(editor)).split())
    exclusive, prefer, backup = (text[text.index("%d) [" % n):] for n in (1, 2, 3))
    assert "Warning:" not in exclusive[:exclusive.index("2) [")]
    assert prefer.startswith("2) [ ] prefer (these servers answer every name, but a name in a "
                             "connection's own domains may also go to that connection's DNS "
                             "servers (from DHCP, in plaintext) Warning: The resolve mode "
                             "“prefer” lets plaintext DNS leave the host: ")
    assert backup.startswith("3) [ ] backup (these servers and every connection's own DNS "
                             "servers (from DHCP, in plaintext) answer side by side, for every "
                             "name: not a fallback when these fail; the only mode that allows "
                             "plaintext servers here Warning: The resolve mode “backup” lets "
                             "plaintext DNS leave the host for every name: ")
