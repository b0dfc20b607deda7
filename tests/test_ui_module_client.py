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

"""The editor read from and written to the module over a private bus (no pyanaconda).

The module is the stand-alone ``python3 -m org_edns_addon.dbus.standalone``: the
same interface template the Anaconda module publishes.
"""

from dataclasses import replace

import pytest
from dasbus.typing import Str, get_variant

from lab.kickstarts import certificate_section
from lab import certs
from lab.bus import wait_for
from org_edns_addon.model import Backend, DotServer, EdnsConfig, ResolveMode
from org_edns_addon.ui.editor import EditError, read_ca_pem
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.ui.module_client import (InstallerApply, ModuleView, hub_status,
                                             read_certificates, read_config, read_editor,
                                             write_config, write_editor)
from tests.conftest import needs_certificate_type
from tests.dbus_fixtures import (configure, plain_structures, running_template_service,
                                 setting)


def test_fresh_module_is_not_configured(edns_proxy):
    proxy, _ = edns_proxy
    status = hub_status(proxy)
    assert (status.configured, status.completed, status.line) == (False, False, "Not configured")
    assert read_editor(proxy).config.servers == ()


def test_edits_written_to_the_module_come_back(edns_proxy):
    proxy, _ = edns_proxy
    editor = read_editor(proxy)
    editor.add_server("dns+tls://[2001:db8::53]:853#dot.example")
    editor.add_server("192.0.2.60#dot.lab.example", "lab.example")
    editor.set_resolve_mode("backup")
    editor.add_server("dns+udp://192.0.2.1")
    editor.set_searches("corp.example")
    write_config(proxy, editor.config)
    assert read_editor(proxy).config == editor.config
    status = hub_status(proxy)
    assert (status.configured, status.completed, status.line) == (
        True, True, "2 DoT servers + 1 plaintext, backup")


@pytest.mark.parametrize("line, lines_named", [
    ("el9", ["EL9"]), ("fedora-43", None), (None, ["EL9", "EL10", "Fedora 42"])])
def test_the_editor_judges_for_the_lines_the_module_judges_for(bus, bus_address, line,
                                                               lines_named):
    # A server on its own port: dnsconfd never learns it before NetworkManager 1.54.
    with running_template_service(bus, bus_address, line=line) as (proxy, _process):
        assert proxy.JudgedLines == ([line] if line else [])
        editor = read_editor(proxy)
        editor.add_server("dns+tls://192.0.2.53:8853#dot.example")
        port = [problem.message for problem in editor.problems() if "8853" in problem.message]
        if lines_named is None:
            assert port == []
        else:
            [message] = port
            assert "on %s NetworkManager" % ", ".join(lines_named) in message, message


def test_module_errors_make_the_status_incomplete(edns_proxy):
    proxy, _ = edns_proxy
    editor = read_editor(proxy)
    editor.add_server("dns+tls://192.0.2.53#dot.example")
    write_config(proxy, editor.config)
    configure(proxy, ca_names=["missing.pem"])
    status = hub_status(proxy)
    assert status.configured and not status.completed
    # The hub's line is short; the spoke says which error.
    assert status.line == "1 error to fix"
    assert status.mandatory


def test_a_refused_value_becomes_an_edit_error(edns_proxy):
    proxy, _ = edns_proxy
    editor = read_editor(proxy)
    editor.add_server("dns+tls://192.0.2.53#dot.example")
    # A name the editor never produces, smuggled past it: the module says no.
    config = EdnsConfig(servers=editor.config.servers, ca_names=("../x",))
    with pytest.raises(EditError, match="^the installer refused the configuration: "
                                        "--ca=../x must be a plain file name, without '/'$"):
        write_config(proxy, config)


def test_a_configuration_the_module_refuses_leaves_it_as_it_was(edns_proxy):
    proxy, _ = edns_proxy
    editor = read_editor(proxy)
    editor.add_server("dns+tls://192.0.2.53#dot.example")
    write_config(proxy, editor.config)
    written = read_config(proxy)
    # New servers, mode and backend, and a search domain no editor makes, which the
    # module refuses: the whole configuration is refused, none of it half-applied.
    config = EdnsConfig(servers=(DotServer.parse_uri("dns+tls://192.0.2.99#other.example"),),
                        resolve_mode=ResolveMode.BACKUP, backend=Backend.UNBOUND,
                        searches=("not a domain",))
    with pytest.raises(EditError, match="^the installer refused the configuration: 'not a "
                                        "domain' is not a valid DNS search domain"):
        write_config(proxy, config)
    assert read_config(proxy) == written


def written_editor_adding_a_certificate(proxy, test_ca):
    """An editor of the module with a server written to it and a certificate added but not
    yet written: (the editor, the configuration the module holds)."""
    editor = read_editor(proxy)
    editor.add_server("dns+tls://192.0.2.53#dot.example")
    write_editor(proxy, editor)
    written = read_config(proxy)
    editor.add_certificate(read_ca_pem(test_ca.pem), "corp-ca.pem")
    return editor, written


def test_a_configuration_the_module_refuses_adds_none_of_the_editors_certificates(
        edns_proxy, test_ca):
    proxy, _ = edns_proxy
    editor, written = written_editor_adding_a_certificate(proxy, test_ca)
    # A search domain no editor makes, smuggled past it: the module refuses the whole.
    editor.state.set_kickstart(replace(editor.config, searches=("not a domain",)),
                               editor.certificates)
    assert [cert.filename for cert in editor.added_certificates] == ["corp-ca.pem"]
    with pytest.raises(EditError, match="^the installer refused the configuration: 'not a "
                                        "domain' is not a valid DNS search domain"):
        write_editor(proxy, editor)
    assert read_config(proxy) == written
    assert proxy.Certificates == []


def test_a_certificate_refused_after_the_configuration_puts_the_configuration_back(
        edns_proxy, test_ca):
    proxy, _ = edns_proxy
    editor, written = written_editor_adding_a_certificate(proxy, test_ca)
    editor.set_resolve_mode("backup")
    # Another client takes the name after the editor read the module.
    other = certs.make_ca("Other CA")
    proxy.AddCertificate("corp-ca.pem", other.pem)
    with pytest.raises(EditError, match="^the installer refused the certificate corp-ca.pem: "
                                        "%certificate --filename=corp-ca.pem exists "
                                        "already"):
        write_editor(proxy, editor)
    assert read_config(proxy) == written
    assert [(c["filename"], c["cert"]) for c in plain_structures(proxy.Certificates)] == [
        ("corp-ca.pem", other.pem.rstrip("\n"))]


def test_certificates_of_anaconda_structures(test_ca):
    structures = [
        {"filename": get_variant(Str, "dns-ca.pem"), "cert": get_variant(Str, test_ca.pem),
         "dir": get_variant(Str, "/etc/pki/dns/"), "type": get_variant(Str, "")},
        {"filename": get_variant(Str, "junk.pem"), "cert": get_variant(Str, "junk"),
         "dir": get_variant(Str, "/etc/pki/dns/"), "type": get_variant(Str, "")}]
    [cert] = read_certificates(structures)
    assert (cert.filename, cert.directory, cert.cert_type, cert.added) == (
        "dns-ca.pem", "/etc/pki/dns/", None, False)
    assert cert.pem + "\n" == test_ca.pem


def test_a_certificate_added_in_the_editor_reaches_the_module_once(edns_proxy, test_ca):
    proxy, _ = edns_proxy
    editor = read_editor(proxy)
    editor.add_server("dns+tls://192.0.2.53#dot.example")
    editor.add_certificate(read_ca_pem(test_ca.pem), "corp-ca.pem")
    write_editor(proxy, editor)
    write_editor(proxy, editor)  # again, as after a failed leave: not added twice
    assert [(c["filename"], c["cert"], c["added"]) for c in plain_structures(
        proxy.Certificates)] == [("corp-ca.pem", test_ca.pem.rstrip("\n"), True)]
    assert setting(proxy, "ca-names") == ["corp-ca.pem"]
    assert hub_status(proxy).completed
    editor = read_editor(proxy)
    [cert] = editor.certificates
    assert (cert.filename, editor.source(cert), editor.removable(cert), cert.is_anchor) == (
        "corp-ca.pem", "added in the installer", False, False)


@needs_certificate_type
def test_the_editor_offers_the_kickstart_certificates_of_the_module(bus, bus_address,
                                                                    tmp_path, test_ca):
    kickstart = tmp_path / "ks.cfg"
    kickstart.write_text(certificate_section(test_ca.pem) + certificate_section(
        certs.make_ca("Anchor CA").pem, "anchor.pem", "--type=anchor") +
        "%addon org_edns_addon\n192.0.2.53#dot.example\n%end\n")
    with running_template_service(bus, bus_address, kickstart) as (proxy, _):
        editor = read_editor(proxy)
        assert [(c.filename, c.directory, c.cert_type, editor.source(c), editor.removable(c))
                for c in editor.certificates] == [
            ("dns-ca.pem", "/etc/pki/dns/", None, "the kickstart", False),
            ("anchor.pem", None, "anchor", "the kickstart", False)]
        editor.toggle_ca("dns-ca.pem")
        write_editor(proxy, editor)
        assert setting(proxy, "ca-names") == ["dns-ca.pem"]
        assert plain_structures([proxy.Validate()]) == [
            {"error-messages": [], "warning-messages": []}]


def test_a_certificate_the_module_refuses_becomes_an_edit_error(edns_proxy, test_ca):
    proxy, _ = edns_proxy
    editor = read_editor(proxy)
    editor.add_certificate(read_ca_pem(test_ca.pem), "corp-ca.pem")
    # Another client took the name since the editor read the module.
    proxy.AddCertificate("corp-ca.pem", certs.make_ca("Other CA").pem)
    with pytest.raises(EditError, match="^the installer refused the certificate corp-ca.pem: "
                                        "%certificate --filename=corp-ca.pem exists "
                                        "already; choose another name"):
        write_editor(proxy, editor)
    assert setting(proxy, "ca-names") == []


class CountingProxy:
    """The module's proxy, counting every property read and method call made through it."""

    def __init__(self, proxy):
        self._proxy = proxy
        self.calls = []

    def __getattr__(self, name):
        if name != "PropertiesChanged":
            self.calls.append(name)
        return getattr(self._proxy, name)


def test_a_hub_redraw_asks_the_module_once_and_again_only_after_it_changed(edns_proxy, bus):
    proxy, _ = edns_proxy
    configure(proxy, servers=[{"address": get_variant(Str, "192.0.2.53"),
                               "name": get_variant(Str, "dot.example")}])
    counting = CountingProxy(proxy)
    view = ModuleView(counting)
    # What a hub asks a spoke at every redraw: status, completed, mandatory.
    for _ in range(3):
        assert (view.status.line, view.status.completed, view.status.configured) == (
            "1 DoT server, exclusive", True, True)
    assert sorted(counting.calls) == ["Configuration", "Validate"]
    # Another client changes the module: PropertiesChanged makes the view read it again.
    other = bus.get_proxy(EDNS.service_name, EDNS.object_path)
    configure(other, resolve_mode="backup")
    wait_for(lambda: view.status.line == "1 DoT server, backup", what="PropertiesChanged")
    assert counting.calls.count("Validate") == 2


def test_a_failed_apply_stops_the_hub_until_the_person_decides(edns_proxy):
    proxy, _ = edns_proxy
    write_config(proxy, EdnsConfig(servers=(DotServer.parse_uri(
        "dns+tls://192.0.2.53#dot.example"),)))
    judged = hub_status(proxy)
    assert judged.completed and not judged.mandatory
    applying = InstallerApply()

    applying.start()
    shown = applying.seen_by_hub(judged)
    assert shown.line == "Applying encrypted DNS to the installer…"
    applying.finished("The installer could not switch to encrypted DNS: ...")
    # Anaconda's hub: a mandatory spoke not completed gets the warning icon and holds
    # Begin Installation (hubs/__init__.py _updateCompleteness, continuePossible).
    shown = applying.seen_by_hub(judged)
    assert (shown.line, shown.completed, shown.mandatory) == (
        "Error applying encrypted DNS to the installer", False, True)
    applying.accept()
    shown = applying.seen_by_hub(judged)
    assert (shown.line, shown.completed, shown.mandatory) == (
        "1 DoT server, exclusive; installed system only", True, False)
    # A new apply forgets the failure and the decision.
    applying.start()
    applying.finished()
    assert applying.seen_by_hub(judged) == judged


def test_a_failed_apply_of_a_configuration_since_removed_stops_nothing(edns_proxy):
    proxy, _ = edns_proxy
    applying = InstallerApply()
    applying.start()
    applying.finished("The installer could not switch to encrypted DNS: ...")
    # Every server removed: encrypted DNS is not configured, and optional again.
    shown = applying.seen_by_hub(hub_status(proxy))
    assert (shown.line, shown.completed, shown.mandatory) == ("Not configured", False, False)
