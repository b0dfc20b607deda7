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

"""The graphical spoke's page with a real GTK 3 on a private Xvfb display (no pyanaconda).

The page is the glade file's own (``gui/builder.load_page``), shown in a window of
Anaconda's smallest screen, over an editor read from the stand-alone module on a
private bus where the module matters; keys go through the X server.
"""

import socket

import pytest

from lab import certs
from lab.bus import TIMEOUT, wait_for
from lab.dotlab import TLS_NAME, lab_host, lab_port
from lab.kickstarts import certificate_section, edns_kickstart, edns_section
from org_edns_addon.constants import DOT_CA_BUNDLE_PATH, DOT_CA_DIR
from org_edns_addon.echo import named
from org_edns_addon.model import EdnsConfig
from org_edns_addon.state import EdnsState
from org_edns_addon.tui.kickstart_file import load_kickstart
from org_edns_addon.ui.editor import EdnsEditor
from org_edns_addon.ui.module_client import read_editor, read_config
from tests.dbus_fixtures import running_template_service
from tests.dot_fixtures import times_masked
from tests.conftest import run_cli
from tests.gui_fixtures import settle

SERVER = "dns+tls://192.0.2.53#dot.corp.example"
ROUTED = "dns+tls://198.51.100.60#dot.lab.example"


def editor_of(*lines, mode=None, certificates=(), ca_names=()):
    editor = EdnsEditor(EdnsState(EdnsConfig(ca_names=tuple(ca_names)), certificates))
    if mode:
        editor.set_resolve_mode(mode)
    for line in lines:
        # A kickstart's server line, as the screens take it: the address, its domains.
        address, _, domains = line.partition(" domain=")
        editor.add_server(address, domains.strip() or None)
    editor.dirty = False
    return editor


def rows(store):
    return [list(row) for row in store]


def test_the_page_shows_a_kickstart_read_from_the_module(shown_page, bus, bus_address,
                                                          write_ks, test_ca):
    kickstart = write_ks(edns_kickstart(test_ca.pem, servers=(
        SERVER, ROUTED + "  domain=lab.example,test.lab.example"),
        options="--ca=dns-ca.pem --search=corp.example --resolve-mode=prefer"))
    with running_template_service(bus, bus_address, kickstart) as (proxy, _):
        page, _, _ = shown_page(read_editor(proxy))
    assert rows(page.servers.store) == [
        [SERVER, "dot.corp.example", "every name"],
        [ROUTED, "dot.lab.example", "only lab.example, test.lab.example"]]
    assert page.options.mode_combo.get_active_id() == "prefer"
    assert page.options.mode_text.get_text() == (
        "these servers answer every name, but a name in a connection's own domains may also "
        "go to that connection's DNS servers (from DHCP, in plaintext)")
    assert page.options.backend_combo.get_active_id() == "dnsconfd"
    assert page.options.search_entry.get_text() == "corp.example"
    # A certificate the module read from a kickstart: where, only the module knew.
    [certificate] = rows(page.certificates.store)
    assert certificate[:2] == [True, "dns-ca.pem (the kickstart)"]
    assert certificate[2].startswith("CN=Test DNS CA, valid until ")
    # The trust's one sentence, in the page's words (validate's says "dns-ca.pem (--ca)").
    assert page.certificates.trust_label.get_text() == page.editor.trust_sentence() == \
        "dns-ca.pem alone authenticates the DNS servers, as the bundle %s. In it: the root CA " \
        "'CN=Test DNS CA'." % DOT_CA_BUNDLE_PATH
    assert page.editor.state.trust.describe() == \
        "dns-ca.pem (--ca) alone authenticates the DNS servers, as the bundle %s. In it: the " \
        "root CA 'CN=Test DNS CA'." % DOT_CA_BUNDLE_PATH
    # prefer says what plaintext it lets out (model.py, the header line's warning), beside
    # the mode and in the list, in the words of the page.
    said = ("The resolve mode “prefer” lets plaintext DNS leave the host: dnsconfd also sends "
            "each name in a connection's own domains to that connection's own DNS servers "
            "(from DHCP or router advertisements, in plaintext), and only other names go to "
            "these servers alone; use the resolve mode “exclusive” for no plaintext query at "
            "all.")
    assert page.options.mode_warning.get_visible()
    assert page.options.mode_warning_text.get_text() == said
    # The rules by line too, in the page's words (an editor judges for every line).
    assert page.problems_label.get_text().splitlines() == [
        "Warning: " + said,
        "Warning: The search domains corp.example: on Fedora 44, Anaconda main "
        "(NetworkManager 1.56 and later) these become the only search domains, replacing "
        "those of the connections (DHCP's, those set for a connection), while on EL9, EL10, "
        "Fedora 42, Fedora 43 they are added to them; list every search domain the system "
        "needs among the search domains."]
    assert page.warning is None


def test_a_server_typed_wrong_is_named_under_its_entry_until_it_is_right(shown_page, gtk):
    page, window, keys = shown_page(editor_of(SERVER))
    servers = page.servers
    servers.new_entry.grab_focus()
    keys.type("dns+tls://192.0.2.54")
    assert servers.new_error.message == (
        "The DoT server dns+tls://192.0.2.54 has no TLS name, so it cannot be authenticated; "
        "append its TLS name after '#' as in its certificate, like "
        "dns+tls://192.0.2.54#dot.example.")
    assert servers.new_entry.get_icon_name(gtk.EntryIconPosition.SECONDARY) == \
        "dialog-error-symbolic"
    assert servers.new_entry.get_icon_tooltip_text(gtk.EntryIconPosition.SECONDARY) == \
        servers.new_error.message
    assert not servers.add_button.get_sensitive()
    keys.enter()                                  # refused: nothing is added
    assert [server.uri() for server in page.editor.config.servers] == [SERVER]

    keys.type("#dot2.corp.example")
    assert servers.new_error.message is None
    assert servers.new_entry.get_icon_name(gtk.EntryIconPosition.SECONDARY) is None
    assert servers.add_button.get_sensitive()
    keys.enter()
    assert [server.uri() for server in page.editor.config.servers] == [
        SERVER, "dns+tls://192.0.2.54#dot2.corp.example"]
    assert rows(servers.store)[1] == ["dns+tls://192.0.2.54#dot2.corp.example",
                                      "dot2.corp.example", "every name"]
    assert servers.new_entry.get_text() == ""
    assert servers.selected == 1
    assert servers.address_entry.get_text() == "dns+tls://192.0.2.54#dot2.corp.example"
    assert page.editor.dirty
    # Its routed domains in their own entry (Alt+R), as for any server selected.
    keys.alt("r")
    keys.type("lab.example")
    assert page.editor.config.servers[1].domains == ("lab.example",)
    assert rows(servers.store)[1][2] == "only lab.example"


def test_the_selected_server_is_edited_in_place_and_a_refusal_keeps_it(shown_page):
    page, _, keys = shown_page(editor_of(SERVER, ROUTED + " domain=lab.example"))
    servers = page.servers
    servers.select(1)
    assert servers.domains_entry.get_text() == "lab.example"

    servers.address_entry.set_text("dns+tls://[2001:db8::60:853#dot.lab.example")
    assert "[2001:db8::60:853" in servers.address_error.message
    assert page.editor.config.servers[1].uri() == ROUTED      # the editor kept it

    servers.address_entry.set_text("dns+tls://[2001:db8::60]:8853#dot.lab.example")
    assert servers.address_error.message is None
    assert rows(servers.store)[1] == ["dns+tls://[2001:db8::60]:8853#dot.lab.example",
                                      "dot.lab.example", "only lab.example"]

    servers.domains_entry.set_text("lab.example,,test.example")
    assert servers.domains_error.message == (
        "The list of domains has an empty entry; separate domains with single commas, "
        "like lab.example,test.example.")
    servers.domains_entry.set_text("")
    assert servers.domains_error.message is None
    assert rows(servers.store)[1][2] == "every name"

    servers.remove_button.clicked()
    assert [server.uri() for server in page.editor.config.servers] == [SERVER]
    assert servers.selected == 0
    assert servers.address_entry.get_text() == SERVER
    servers.remove_button.clicked()
    assert page.editor.config.servers == ()
    assert servers.selected is None
    assert not servers.address_entry.get_sensitive()
    assert page.problems_label.get_text().startswith("Error: No DNS server is given")
    assert page.warning is None           # nothing configured: encrypted DNS is optional


def test_a_mode_the_rules_refuse_goes_back_and_says_why(shown_page):
    page, _, _ = shown_page(editor_of(SERVER, "dns+udp://192.0.2.1", mode="backup"))
    options = page.options
    assert options.mode_combo.get_active_id() == "backup"
    options.mode_combo.set_active_id("exclusive")
    assert options.options_error.message == (
        "The plaintext server dns+udp://192.0.2.1 is refused with the resolve mode "
        "“exclusive”; use a DoT server with its TLS name (plaintext is allowed only with the "
        "resolve mode “backup”).")
    assert options.mode_combo.get_active_id() == "backup"
    assert page.editor.config.resolve_mode.value == "backup"
    options.backend_combo.set_active_id("unbound")
    assert options.options_error.message == (
        "The plaintext server dns+udp://192.0.2.1 cannot be used with the backend “unbound”; "
        "use a DoT server with its TLS name or the backend “dnsconfd”.")
    assert options.backend_combo.get_active_id() == "dnsconfd"

    page.servers.select(1)
    page.servers.remove_button.clicked()
    options.backend_combo.set_active_id("unbound")
    assert options.options_error.message is None
    assert page.editor.config.backend.value == "unbound"
    assert options.backend_text.get_text() == \
        "a standalone Unbound forwarder on 127.0.0.55, NetworkManager dns=none"


def test_search_domains_are_checked_as_they_are_typed(shown_page):
    page, _, keys = shown_page(editor_of(SERVER))
    options = page.options
    options.search_entry.grab_focus()
    keys.type("corp.example,")
    assert options.search_error.message == (
        "The list of search domains has an empty entry; separate search domains with single "
        "commas, like corp.example,lab.example.")
    keys.type("lab.example")
    assert options.search_error.message is None
    assert page.editor.config.searches == ("corp.example", "lab.example")


@pytest.fixture
def kickstart_editor(write_ks, test_ca):
    """An editor of a kickstart file with two %certificate sections, neither named by --ca:
    the test CA and a server certificate it issued."""
    leaf = certs.make_server(test_ca, ("dot.corp.example",))
    path = write_ks(certificate_section(test_ca.pem) +
                    certificate_section(leaf.pem, "leaf.pem") + edns_section(SERVER))
    return load_kickstart(path)[1], path


def test_choosing_a_ca_changes_what_authenticates_the_servers(shown_page, kickstart_editor):
    editor, path = kickstart_editor
    page, _, _ = shown_page(editor)
    certificates = page.certificates
    assert [row[:2] for row in rows(certificates.store)] == [
        [False, "dns-ca.pem (%s:1)" % path], [False, "leaf.pem (%s:%d)" % (path, 1 + len(
            certificate_section(editor.certificates[0].pem).splitlines()))]]
    assert certificates.trust_label.get_text() == \
        "The system trust store authenticates the DNS servers."

    toggle = page_object(page, "ednsCertificateToggle")
    toggle.emit("toggled", "0")
    assert page.editor.config.ca_names == ("dns-ca.pem",)
    assert rows(certificates.store)[0][0] is True
    assert certificates.trust_label.get_text() == (
        "dns-ca.pem alone authenticates the DNS servers, as the bundle %s. In it: the root CA "
        "'CN=Test DNS CA'." % DOT_CA_BUNDLE_PATH)

    toggle.emit("toggled", "1")               # a server certificate cannot authenticate
    assert certificates.error.message == (
        "The PEM text of leaf.pem, line 1: Not a valid CA certificate: CN=dot.corp.example "
        "(basicConstraints CA:TRUE is missing); give the CA that issued the DNS servers' "
        "certificates.")
    assert page.editor.config.ca_names == ("dns-ca.pem",)


def test_a_bundle_unbound_would_refuse_is_said_in_chain_words_never_no_problems(
        shown_page, intermediate_alone):
    page, _, _ = shown_page(intermediate_alone.editor())
    assert page.certificates.trust_label.get_text() == intermediate_alone.trust
    assert page.problems_label.get_text() == intermediate_alone.error
    assert page.warning == intermediate_alone.error[len("Error: "):]


def page_object(page, object_id):
    return page.builder.get_object(object_id)


def test_a_pem_file_picked_in_the_file_chooser_is_added_and_authenticates(
        shown_page, gtk, tmp_path):
    page, _, _ = shown_page(editor_of(SERVER))
    corp = certs.make_ca("Corp DNS CA")
    pem_file = tmp_path / "corp-ca.pem"
    pem_file.write_text(corp.pem)
    certificates = page.certificates

    certificates.read_button.clicked()
    settle(gtk)
    dialog = certificates.dialog
    assert dialog is not None and dialog.get_visible()
    assert dialog.get_action() == gtk.FileChooserAction.OPEN
    dialog.set_filename(str(pem_file))
    wait_for(lambda: dialog.get_filename() == str(pem_file), what="the file to be chosen")
    dialog.response(gtk.ResponseType.ACCEPT)
    settle(gtk)

    assert certificates.dialog is None
    [row] = rows(certificates.store)
    assert row[:2] == [True, "corp-ca.pem (added here)"]
    added = page.editor.certificate("corp-ca.pem")
    assert added.directory == DOT_CA_DIR and added.blocks[0].subject == "CN=Corp DNS CA"
    assert page.editor.added_certificates == (added,)
    assert certificates.trust_label.get_text().startswith(
        "corp-ca.pem alone authenticates the DNS servers, as the bundle ")

    certificates.view.get_selection().select_path(0)
    assert certificates.remove_button.get_sensitive()
    certificates.remove_button.clicked()
    assert page.editor.certificates == () and page.editor.config.ca_names == ()


def test_a_private_key_picked_by_mistake_is_refused_by_name(shown_page, tmp_path):
    page, _, _ = shown_page(editor_of(SERVER))
    key_file = tmp_path / "corp-ca.key"
    key_file.write_text(certs.make_ca("Corp DNS CA").key_pem)
    assert not page.certificates.add_file(str(key_file))
    assert named(str(key_file)) in page.certificates.error.message
    assert "private key" in page.certificates.error.message
    assert page.editor.certificates == ()


def test_mnemonics_are_unique_and_each_focuses_what_its_label_names(shown_page, gtk):
    page, window, keys = shown_page(editor_of(SERVER))
    page.servers.select(0)
    settle(gtk)
    labels = {}
    for widget in walk(page.widget, gtk):
        if isinstance(widget, gtk.Label) and widget.get_use_underline():
            text = widget.get_label()
            letter = text[text.index("_") + 1].lower()
            assert letter not in labels, "%r and %r share the mnemonic %s" % (
                labels.get(letter), text, letter)
            labels[letter] = text
    # Anaconda's spoke window has its own: _Done.
    assert "d" not in labels
    expected = {"n": "ednsNewServerEntry", "e": "ednsServerAddressEntry",
                "r": "ednsServerDomainsEntry", "m": "ednsResolveModeCombo",
                "b": "ednsBackendCombo", "s": "ednsSearchEntry"}
    for letter, object_id in expected.items():
        keys.alt(letter)
        target = page_object(page, object_id)
        focus = window.get_focus()
        assert focus is target or focus.is_ancestor(target), (letter, focus)


def walk(widget, gtk):
    yield widget
    if isinstance(widget, gtk.Container):
        for child in widget.get_children():
            yield from walk(child, gtk)


def test_tab_goes_through_the_inputs_in_reading_order(shown_page, gtk):
    page, window, keys = shown_page(editor_of(SERVER, ROUTED))
    page.servers.select(0)
    page.servers.new_entry.set_text("dns+tls://192.0.2.54#dot.example")
    page.servers.new_entry.grab_focus()
    settle(gtk)
    order = []
    for _ in range(12):
        keys.tab()
        order.append(focus_name(window.get_focus(), gtk))
    # The page scrolled down with the focus.
    assert page.widget.get_vadjustment().get_value() > 0
    # What is insensitive (Remove certificate: none is selected) is passed over.
    assert order == [
        "ednsAddServerButton", "ednsServersView", "ednsServerAddressEntry",
        "ednsServerDomainsEntry", "ednsRemoveServerButton", "ednsResolveModeCombo",
        "ednsBackendCombo", "ednsSearchEntry", "ednsCertificatesView", "ednsReadPemButton",
        "ednsCheckButton", "ednsCheckView"]


def test_a_key_held_down_past_the_repeat_delay_is_one_press(shown_page, gtk):
    # Xvfb's auto-repeat starts after 660 ms; lab.display turns it off, so a Tab that a
    # loaded machine holds down between xdotool's press and release moves the focus once.
    page, window, keys = shown_page(editor_of(SERVER, ROUTED))
    page.servers.new_entry.set_text("dns+tls://192.0.2.54#dot.example")
    page.servers.new_entry.grab_focus()
    settle(gtk)
    keys.hold("Tab", 1.5)
    assert focus_name(window.get_focus(), gtk) == "ednsAddServerButton"


def focus_name(widget, gtk):
    """The glade id of WIDGET or of the nearest of its parents that has one."""
    while widget is not None and not gtk.Buildable.get_name(widget).startswith("edns"):
        widget = widget.get_parent()
    return None if widget is None else gtk.Buildable.get_name(widget)


def test_the_page_fits_anaconda_smallest_screen(shown_page, gtk):
    page, window, _ = shown_page(editor_of(SERVER, ROUTED))
    # 800x600 less the spoke window's side padding (24 px each side, the glade file).
    minimum, _natural = page.widget.get_preferred_width()
    assert minimum <= 800 - 2 * 24


@pytest.fixture
def never_answering(lab_network):
    """A TCP port of the lab's host 198.51.100.5 in ``lab_network`` that accepts and then
    says nothing: a check of it runs until its timeout."""
    listener = lab_network.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((lab_host(5), lab_port(lab_host(5), lab_network)))
    listener.listen(8)
    port = listener.getsockname()[1]
    yield "dns+tls://%s%s#%s" % (lab_host(5), "" if port == 853 else ":%d" % port, TLS_NAME)
    listener.close()


@pytest.mark.root
def test_the_check_runs_in_the_module_while_the_window_keeps_answering(
        shown_page, gtk, bus, bus_address, write_ks, lab_network, dot_upstream, dot_pki,
        never_answering):
    misnamed = dot_upstream.server_line("wrong.test")
    kickstart = write_ks(edns_kickstart(dot_pki.ca.pem, servers=(
        dot_upstream.server_line(), misnamed, never_answering), commands=""))
    # The module runs where the lab's servers are; this window talks to it over the bus.
    with running_template_service(bus, bus_address, kickstart,
                                  network=lab_network) as (proxy, _):
        def start_check(editor, done):
            # The stand-alone module's CheckServers, called without waiting (the spoke runs
            # the Anaconda module's CheckServersWithTask task the same way).
            def replied(call):
                try:
                    done(call())
                except Exception as error:  # noqa: BLE001 (a D-Bus error, shown as text)
                    done(error=str(error))
            proxy.CheckServers(3.0, callback=replied, timeout=int(TIMEOUT * 1000))

        page, _, keys = shown_page(read_editor(proxy), start_check)
        check = page.check
        check.button.clicked()
        assert check.running and check.spinner.get_visible()
        # The page scrolled to the results, below the window's fold.
        assert page.widget.get_vadjustment().get_value() > 0
        assert not check.button.get_sensitive()
        assert check.status.get_text() == "Checking 3 servers…"
        # While the module checks, the window answers: an input is judged at once.
        page.options.search_entry.grab_focus()
        keys.type("corp..example")
        assert page.options.search_error.message
        assert check.running

        wait_for(lambda: not check.running, what="the check's reply")
    assert not check.spinner.get_visible() and check.button.get_sensitive()
    good, wrong, silent = rows(check.store)
    assert good[:2] == ["emblem-ok-symbolic", dot_upstream.server_line()]
    assert good[2].startswith("ok, ") and good[2].endswith("; dot.test A: NOERROR, 1 record)")
    assert wrong[:2] == ["dialog-error-symbolic", misnamed]
    assert wrong[2].startswith("name mismatch: ")
    assert silent[:2] == ["dialog-error-symbolic", never_answering]
    assert silent[2].startswith("timeout: ")
    assert check.status.get_text() == "1 of 3 servers passed the check."
    # One source: each row says what `edns-addon check` says of the same server (the
    # times are each run's own).
    cli = run_cli("check", kickstart, "--timeout", "3", prefix=lab_network.command([]))
    assert cli.returncode == 1, cli.stderr
    assert [times_masked("%s: %s" % (uri, result)) for _icon, uri, result in
            rows(check.store)] == [times_masked(line) for line in cli.stdout.splitlines()]


def test_a_check_the_module_refuses_says_why(shown_page, bus, bus_address):
    with running_template_service(bus, bus_address) as (proxy, _):
        def start_check(editor, done):
            def replied(call):
                try:
                    done(call())
                except Exception as error:  # noqa: BLE001
                    done(error=str(error))
            proxy.CheckServers(3.0, callback=replied)

        # The module holds no configuration: it refuses to check (InvalidConfiguration).
        page, _, _ = shown_page(editor_of(SERVER), start_check)
        page.check.start()
        wait_for(lambda: not page.check.running, what="the check's reply")
        assert read_config(proxy).servers == ()
    assert page.check.status.get_text().startswith("Not checked: ")
    assert rows(page.check.store) == []


def in_view(page, widget):
    """Whether WIDGET is wholly inside the page's visible part (not below its fold)."""
    position = widget.translate_coordinates(page.widget, 0, 0)
    return position is not None and widget.get_mapped() and \
        0 <= position[1] and position[1] + widget.get_allocated_height() <= \
        page.widget.get_allocated_height()


@pytest.mark.parametrize("presses, mode", [(1, "prefer"), (2, "backup")])
def test_what_plaintext_a_mode_lets_out_is_said_where_it_is_chosen(shown_page, gtk, presses,
                                                                  mode):
    page, _, keys = shown_page(editor_of(SERVER, ROUTED + " domain=lab.example"))
    options = page.options
    assert not options.mode_warning.get_visible()
    keys.alt("m")
    keys.press(*["Down"] * presses)
    assert options.mode_combo.get_active_id() == mode
    # Right under the mode, with the warning icon, and the page scrolled to it.
    wait_for(lambda: settle(gtk) or in_view(page, options.mode_warning),
             what="the warning in view")
    combo_y = options.mode_combo.translate_coordinates(page.widget, 0, 0)[1]
    warning_y = options.mode_warning.translate_coordinates(page.widget, 0, 0)[1]
    assert 0 < warning_y - combo_y <= 2 * options.mode_combo.get_allocated_height()
    assert page_object(page, "ednsResolveModeWarningIcon").get_icon_name()[0] == \
        "dialog-warning-symbolic"
    said = options.mode_warning_text.get_text()
    assert said.startswith("The resolve mode “%s” lets plaintext DNS leave the host" % mode)
    assert "Warning: " + said in page.problems_label.get_text().splitlines()
    # What the mode does, beside it: no failover, whichever it is.
    assert "fail" not in options.mode_text.get_text().replace("not a fallback when these fail",
                                                              "")
    keys.press("Up")
    assert options.mode_combo.get_active_id() == ("exclusive" if presses == 1 else "prefer")
    assert options.mode_warning.get_visible() == (presses == 2)


def test_the_file_chooser_fits_the_window_and_gives_the_keyboard_back_to_its_button(
        shown_page, gtk):
    page, window, keys = shown_page(editor_of(SERVER))
    certificates = page.certificates
    keys.alt("p")
    wait_for(lambda: settle(gtk) or (certificates.dialog is not None and
                                     certificates.dialog.get_mapped()),
             what="the file chooser on the screen")
    dialog = certificates.dialog
    keys.focus(dialog)
    assert dialog.is_active()
    # Within Anaconda's smallest screen (this window is 800x600), centred on it.
    width, height = dialog.get_size()
    x, y = dialog.get_position()
    assert 0 <= x and x + width <= 800 and 0 <= y and y + height <= 600, (x, y, width, height)

    keys.press("Escape")
    wait_for(lambda: settle(gtk) or window.is_active(), what="the page with the keyboard")
    assert certificates.dialog is None
    assert focus_name(window.get_focus(), gtk) == "ednsReadPemButton"
    # So Return opens it again (never presses something else of the window).
    keys.enter()
    wait_for(lambda: settle(gtk) or certificates.dialog is not None, what="the chooser again")
    certificates.dialog.response(gtk.ResponseType.CANCEL)
    settle(gtk)
    assert page.editor.certificates == ()
