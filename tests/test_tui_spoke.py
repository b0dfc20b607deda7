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

"""The Anaconda spoke against the real modules on a private bus.

Anaconda's Security module and ours run as processes on a private
dbus-daemon; the kickstart reaches them the way the boss sends it. Ours runs
in a private mount namespace whose /etc is an overlay, so the installer
phase it stages when the spoke is left lands in a scratch directory, never
in this machine's /etc.

Needs pyanaconda (an anaconda checkout on PYTHONPATH) and its text UI's
``meh`` (python-meh) and ``pwquality``; skipped otherwise.
"""

import os
import sys

import pytest

pytestmark = pytest.mark.anaconda

try:
    from pyanaconda.core.constants import DBUS_ANACONDA_SESSION_ADDRESS
    from pyanaconda.ui.tui.spokes import NormalTUISpoke  # noqa: F401  (the text UI imports)
except ImportError as error:   # pragma: no cover - depends on the machine
    pytest.skip("pyanaconda's text UI is not importable (%s); put an anaconda checkout and "
                "python-meh on PYTHONPATH, see docs/testing.md" % error,
                allow_module_level=True)

from simpleline import App
from simpleline.render.screen import InputState

from lab import certs
from lab.bus import python_env
from org_edns_addon.constants import DOT_CA_BUNDLE_PATH, NM_KEYFILE_PATH
from org_edns_addon.tui.screens import CaScreen
from org_edns_addon.tui.spokes.edns import EncryptedDnsSpoke
from tests.dbus_fixtures import configure, plain_structures, setting, validation
from tests.anaconda_fixtures import EDNS_SECTION, NOT_SWITCHED, kickstart

PROMPT = "Please make a selection from the above"

# The spoke as the only screen of a simpleline App, as the hub shows it, in a terminal.
SPOKE_IN_A_TERMINAL = """
from simpleline import App
from org_edns_addon.tui.spokes.edns import EncryptedDnsSpoke
App.initialize()
App.get_scheduler().schedule_screen(EncryptedDnsSpoke(None, None, None))
App.run()
"""

def spoke_environment(bus_address, conf_path):
    """What a process showing the spoke needs: this checkout, pyanaconda and Anaconda's bus."""
    return {"PYTHONPATH": python_env()["PYTHONPATH"], DBUS_ANACONDA_SESSION_ADDRESS: bus_address,
            "ANACONDA_CONFIG_TMP": str(conf_path)}


@pytest.fixture
def spoke():
    App.initialize()
    return EncryptedDnsSpoke(None, None, None)


def hub_view(spoke):
    """The spoke as the hub shows it: checkbox, title and status."""
    spoke.render(60)
    return "\n".join(line.rstrip() for line in spoke.get_lines())


def screen_text(spoke):
    spoke.setup(None)
    spoke.refresh()
    spoke.window.render(80)
    return "\n".join(line.rstrip() for line in spoke.window.get_lines())


def stops_an_automated_install(spoke):
    """What Anaconda's SummaryHub asks of every spoke before it installs on its own."""
    return spoke.mandatory and not spoke.completed


def test_without_a_section_the_spoke_is_optional(installer, spoke):
    installer[2](kickstart(certs.make_ca().pem, edns=""))
    assert (spoke.status, spoke.mandatory, spoke.completed) == ("Not configured", False, False)
    assert not stops_an_automated_install(spoke)
    assert hub_view(spoke) == "[ ] Encrypted DNS\n    (Not configured)"


def test_valid_kickstart_section_completes_the_spoke(installer, spoke, test_ca):
    _, _, load = installer
    load(kickstart(test_ca.pem))
    assert spoke.status == "3 DoT servers, exclusive"
    assert spoke.completed and not stops_an_automated_install(spoke)
    assert hub_view(spoke) == "[x] Encrypted DNS\n    (3 DoT servers, exclusive)"
    text = screen_text(spoke)
    assert "     dns+tls://[2001:db8::53]#dot.corp.example (every name)" in text
    assert "     dns+tls://198.51.100.60#dot.lab.example (only lab.example)" in text
    assert "4) Search domains: none" in text
    assert "5) CA certificates: dns-ca.pem" in text
    assert "Status: 3 DoT servers, exclusive" in text


def test_ca_screen_offers_the_kickstart_certificates_and_new_ones(installer, spoke, test_ca):
    installer[2](kickstart(test_ca.pem))
    spoke.setup(None)
    ca_screen = CaScreen(spoke._editor)
    ca_screen.refresh()
    ca_screen.window.render(80)
    text = "\n".join(line.rstrip() for line in ca_screen.window.get_lines())
    assert "1) [x] dns-ca.pem (the kickstart)\n       (CN=Test DNS CA, valid until" in text
    assert "2) Paste a PEM certificate\n3) Read a PEM file" in text


def test_a_ca_pasted_in_the_spoke_reaches_the_module_and_the_installer(
        installer, terminal, bus_address, anaconda_conf, test_ca):
    module, etc_upper, load = installer
    load(kickstart(test_ca.pem, edns=EDNS_SECTION.replace(" --ca=dns-ca.pem", "")))
    terminal.start_command(["env", *("%s=%s" % item for item in spoke_environment(
        bus_address, anaconda_conf[0]).items()), sys.executable, "-c", SPOKE_IN_A_TERMINAL])
    assert "5) CA certificates: The system trust store" in terminal.wait_for(PROMPT)
    terminal.type("5")
    assert "2) Paste a PEM certificate" in terminal.wait_for(PROMPT)
    terminal.type("2")
    terminal.wait_for("PEM:")
    corp_ca = certs.make_ca("Corp CA")
    terminal.paste(corp_ca.pem)
    terminal.type("")
    terminal.wait_for("File name [corp-ca.pem]:")
    terminal.type("")
    assert "2) [x] corp-ca.pem (added here)" in terminal.wait_for(PROMPT)
    terminal.type("c")
    assert "5) CA certificates: corp-ca.pem" in terminal.wait_for(PROMPT)
    terminal.type("c")
    # The module has it; NetworkManager does not run here, so the spoke says what failed
    # and what it means, and stays; 'c' again goes on that way.
    said = " ".join(terminal.wait_for(PROMPT).split())
    assert "Error: " + NOT_SWITCHED + " Press c again to go on without encrypted DNS in the " \
        "installer, or change the configuration and press c to try again." in said
    assert "nmcli" not in said
    terminal.type("c")
    assert terminal.exit_status() == 0

    assert [(c["filename"], c["added"]) for c in plain_structures(module.Certificates)] == [
        ("dns-ca.pem", False), ("corp-ca.pem", True)]
    assert setting(module, "ca-names") == ["corp-ca.pem"]
    assert validation(module) == []
    # Staged into the installer: the Security module writes the kickstart's certificate,
    # ours the one only it has, and the bundle of the CA the servers are checked with.
    pki = etc_upper / "pki/dns"
    assert (pki / "corp-ca.pem").read_text() == corp_ca.pem
    assert not (pki / "dns-ca.pem").exists()
    assert (etc_upper / DOT_CA_BUNDLE_PATH[len("/etc/"):]).read_text() == corp_ca.pem


def test_an_error_in_the_module_stops_an_automated_install(installer, spoke, test_ca):
    module, _, load = installer
    load(kickstart(test_ca.pem))
    configure(module, ca_names=["missing.pem"])
    assert not spoke.completed and stops_an_automated_install(spoke)
    # The hub's line is short; the spoke's screen says which error, in its words.
    assert spoke.status == "1 error to fix"
    assert hub_view(spoke) == "[!] Encrypted DNS\n    (1 error to fix)"
    assert "Error: The selected certificate missing.pem names no certificate of that name" \
        in " ".join(screen_text(spoke).split())


def test_leaving_writes_the_module_and_stages_the_installer(installer, spoke, test_ca, capsys):
    module, etc_upper, load = installer
    load(kickstart(test_ca.pem))
    screen_text(spoke)
    spoke._editor.set_resolve_mode("prefer")
    state = spoke.input(None, "c")
    assert setting(module, "resolve-mode") == "prefer"
    keyfile = etc_upper / NM_KEYFILE_PATH[len("/etc/"):]
    assert "resolve-mode=prefer" in keyfile.read_text()
    assert not os.path.exists(NM_KEYFILE_PATH)  # the overlay took it, not this machine
    # NetworkManager does not run here: reloading it fails; the spoke says what failed and
    # what it means, stays, and the hub would stop here until the person decides.
    assert state == InputState.DISCARDED
    printed = " ".join(capsys.readouterr().out.split())
    assert printed == "Error: " + NOT_SWITCHED + " Press c again to go on without encrypted " \
        "DNS in the installer, or change the configuration and press c to try again.", printed
    assert (spoke.status, spoke.completed, spoke.mandatory) == (
        "Error applying encrypted DNS to the installer", False, True)
    assert hub_view(spoke).startswith("[!] Encrypted DNS")
    # 'c' again: the person's decision to go on without it in the installer.
    assert spoke.input(None, "c") == InputState.PROCESSED_AND_CLOSE
    assert (spoke.status, spoke.completed, spoke.mandatory) == (
        "3 DoT servers, prefer; installed system only", True, False)
