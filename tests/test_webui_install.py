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

"""An installation as Anaconda's Web UI drives it: no screen of the addon loaded, the
kickstart given, the Boss and the modules on Anaconda's own bus.

Fedora's graphical installs run the Web UI (anaconda main ``anaconda.spec.in``: GTK only
for the Server and Everything images), which loads no addon screens
(``pyanaconda/anaconda.py`` ``initialize_interface``: ``addon_paths = []``); the addon's
D-Bus module still runs, and the installation proceeds on the kickstart
(org_edns_addon/lines.py says which lines have which interfaces). lab/webui_install.py
runs such an installation on the checkout's own code (ANACONDA_SRC), the steps of the
Boss's queues that cannot run here skipped with the reason; this judges what it leaves:

- the Boss started our module by D-Bus activation, through its service file and
  ``start-module``, from ``/usr/share/anaconda/addons``, and no process imported anything
  of the addon's ``gui/``, ``tui/`` or ``ui/``;
- the Boss collected our installer phase in the installation environment's set-up and
  our target phase among the addons' configuration, and both ran;
- the installer's NetworkManager, which our installer phase reloads, runs exactly the
  kickstart's global DNS with ``dns=dnsconfd``; the DoT CA bundle holds the kickstart's
  certificate alone;
- the target's NetworkManager conf.d, read by NetworkManager 1.52, gives the same, with
  nothing it does not know; dnsconfd is the one resolver enabled; the dracut drop-in takes
  the bundle and the keyfile into the initramfs; the kickstart Anaconda writes into the
  target reads back to the same configuration;
- ``Validate()`` is the module's judgement for its own line (os-release and the running
  NetworkManager's Version), which differs here from the judgement for every line;
- no traceback in what the modules said during the installation;
- the Web UI's own call, the Boss's ``InstallWithTasks``, stops at the Payloads module,
  which is not here: the one reason the Boss's own queue cannot run.

Needs root, pyanaconda and ANACONDA_SRC (docs/testing.md), and the trixie tree (its
NetworkManager is the installer's); skipped otherwise, and on a line whose anaconda has no
Web UI (rhel-9: no ``pyanaconda/ui/webui``). rhel-10 has the Web UI's code (the Boss's
``InstallWithTasks``, ``CockpitUserInterface``) but its images ship no anaconda-webui
(lines.py): there every installation loads the addon's screens, and the run shows rhel-10's
Boss and modules carrying a kickstart installation with no screen taking part, its queues
driven over D-Bus as its UI's process drives them.
"""

import configparser
import os
import re

import pytest

from cryptography import x509

from lab import webui_install
from lab.kickstarts import edns_section
from lab.vmlab import networkmanager
from org_edns_addon import constants as c
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.dbus.structures import ValidationReport
from org_edns_addon.ks.reader import parse_kickstart
from org_edns_addon.lines import detect_line
from org_edns_addon.state import EdnsState
from org_edns_addon.trust import dot_trust
from tests.anaconda_fixtures import (SECURITY_SERVICE, anaconda_line, kickstart,
                                     skip_module_without)
from tests.ks_fixtures import parse
from tests.staging_fixtures import require_namespaces, require_tools

pytestmark = pytest.mark.anaconda

skip_module_without("pyanaconda.core.startup.dbus_launcher", "pyanaconda.installation_tasks")

# --search: NetworkManager 1.56 and later replace the connections' search domains with
# them (line_rules.py), so the judgement differs by line.
SECTION = edns_section("dns+tls://192.0.2.53#dot.corp.example",
                       "dns+tls://[2001:db8::53]:853#dot.corp.example",
                       "dns+tls://198.51.100.60#dot.lab.example  domain=lab.example",
                       options="--ca=dns-ca.pem --search=corp.example")
# PYTHONVERBOSE's line for each module it loads: from its source, or from its cached code.
ADDON_PACKAGE = re.compile(r"^# (?:code object from |\S+ matches )(\S*/org_edns_addon/\S*)$",
                           re.MULTILINE)
ADDON_IMPORT = re.compile(r"^import '(org_edns_addon(?:\.\w+)*)'", re.MULTILINE)
SCREENS = ("org_edns_addon.gui", "org_edns_addon.tui", "org_edns_addon.ui")


@pytest.fixture
def installed(installed_addon, target_base, trixie, test_ca, tmp_path):
    """The installation of lab/webui_install.py run once: (its results, the parsed
    kickstart, the job's directory)."""
    require_namespaces("--mount", "--net", "--pid", "--fork")
    require_tools("unshare", "mount", "chroot", "systemctl", "nmcli", "dbus-daemon", "ip")
    line = anaconda_line()
    if os.geteuid() != 0 or "ANACONDA_SRC" not in os.environ:
        pytest.skip("needs root and ANACONDA_SRC (the anaconda checkout whose code runs)")
    if not os.path.isdir(os.path.join(os.environ["ANACONDA_SRC"], "pyanaconda", "ui", "webui")):
        pytest.skip("anaconda %s (%s) has no Web UI (no pyanaconda/ui/webui): its "
                    "installations load the addon's screens" % (line, os.environ["ANACONDA_SRC"]))
    if line not in webui_install.OS_RELEASES:
        pytest.skip("no os-release of the line %s here (lab/webui_install.py OS_RELEASES: "
                    "%s)" % (line, ", ".join(webui_install.OS_RELEASES)))
    text = kickstart(test_ca.pem, edns=SECTION)
    path = tmp_path / "ks.cfg"
    path.write_text(text)
    parsed = parse(path)
    assert parsed.errors == [] and parsed.config is not None
    workdir = tmp_path / "installation"
    workdir.mkdir()
    trust = dot_trust(parsed.config, parsed.certificates)
    job = webui_install.job(workdir, os.environ["ANACONDA_SRC"], installed_addon, trixie,
                            target_base, text, webui_install.OS_RELEASES[line],
                            [cert.path for cert in parsed.certificates] + [trust.path])
    result, results = webui_install.run(job)
    assert result.returncode == 0 and results is not None, result.stderr[-4000:]
    assert "error" not in results, results["error"]
    return results, parsed, workdir


def _global_dns(config, trust):
    """The global DNS NetworkManager publishes for CONFIG (its GlobalDnsConfiguration)."""
    domains = {}
    for server in config.servers:
        for domain in server.domains or ("*",):
            domains.setdefault(domain, []).append(server.uri())
    return {"searches": list(config.searches), "certification-authority": trust.path,
            "resolve-mode": config.resolve_mode.value,
            "domains": {name: {"servers": servers} for name, servers in domains.items()}}


def _certificates(path):
    """The certificates of the PEM file at PATH, in their order."""
    return [x509.load_pem_x509_certificate(block.encode()) for block in re.findall(
        r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", path.read_text(),
        re.DOTALL)]


def _after_reload(log):
    """NetworkManager's log lines from its last reload on."""
    lines = log.splitlines()
    starts = [n for n, line in enumerate(lines) if 'op="reload"' in line]
    return lines[starts[-1]:] if starts else []


def test_a_web_ui_installation_installs_what_the_kickstart_asks_without_the_addons_screens(
        installed, trixie, test_ca):
    results, parsed, workdir = installed
    config = parsed.config
    trust = dot_trust(config, parsed.certificates)
    expected_dns = _global_dns(config, trust)
    bus_log = (workdir / "dbus.log").read_text(errors="replace")
    installation_log = bus_log[:results["bus_log_installation"]]

    # The Boss started our module from its service file: start-module ran it from the
    # addons directory; nothing of the screens was imported by any process.
    assert results["modules"] == sorted([EDNS.service_name, SECURITY_SERVICE])
    loaded = ADDON_PACKAGE.findall(bus_log)
    assert loaded and all(path.startswith(webui_install.ADDONS + "/org_edns_addon/")
                          for path in loaded), loaded
    imported = set(ADDON_IMPORT.findall(bus_log))
    assert "org_edns_addon.service.edns" in imported
    assert [name for name in imported if name.startswith(SCREENS)] == []
    assert [name for name in results["modules_imported_here"]
            if name.startswith(SCREENS)] == []
    # Anaconda's own configuration, with the profile of this os-release.
    assert results["configuration"][0] == "/etc/anaconda/anaconda.conf"
    assert any(path.startswith("/etc/anaconda/profile.d/") for path in results["configuration"])

    # The Boss's collection: our two phases, each where the Boss puts it; every step that
    # could run here ran, the others say why not.
    assert results["collected"]["CollectConfigureRuntimeTasks"] == [
        [EDNS.service_name, "Configure encrypted DNS (installer)"]]
    assert results["collected"]["CollectInstallSystemTasks"] == [
        [EDNS.service_name, "Configure encrypted DNS (target)"]]
    outcomes = {(step["queue"], step["step"]): step["outcome"] for step in results["steps"]}
    assert outcomes[("Installation environment setup", "the modules' ConfigureWithTasks")] \
        == "ran"
    assert outcomes[("Anaconda addon configuration", "the modules' InstallWithTasks")] == "ran"
    assert sorted(set(outcomes.values())) == ["ran", "skipped"], [
        step for step in results["steps"] if step["outcome"] == "failed"]
    assert all(step.get("detail") for step in results["steps"]
               if step["outcome"] == "skipped")

    # The installer: its NetworkManager, reloaded by our installer phase, runs the
    # kickstart's global DNS, with dnsconfd; before, it had none.
    assert results["global_dns_before"] == {}
    assert results["global_dns_after"] == expected_dns
    nm_log = (workdir / "networkmanager.log").read_text(errors="replace")
    reload_lines = _after_reload(nm_log)
    assert any("dns-mgr: init: dns=dnsconfd," in line for line in reload_lines), nm_log[-2000:]
    reading = networkmanager.NetworkManagerReading(results["global_dns_after"],
                                                   "\n".join(reload_lines))
    assert reading.config_warnings == []
    installer_etc = workdir / "etc-upper"
    keyfile = configparser.ConfigParser(interpolation=None)
    keyfile.read_string((installer_etc / os.path.relpath(c.NM_KEYFILE_PATH, "/etc"))
                        .read_text())
    assert keyfile["main"]["dns"] == "dnsconfd"
    ca = x509.load_pem_x509_certificate(test_ca.pem.encode())
    assert _certificates(installer_etc / os.path.relpath(trust.path, "/etc")) == [ca]

    # The target: NetworkManager 1.52 reads its conf.d as the kickstart asked, dnsconfd is
    # the one resolver enabled, the initramfs takes the bundle and the keyfile.
    target = results["target"]
    conf_d = {name: text.encode() for name, text in target["nm_conf_d"].items()}
    target_reading = networkmanager.read_config(trixie, conf_d)
    assert target_reading.global_dns == expected_dns
    assert target_reading.dns_mode == "dnsconfd"
    assert target_reading.config_warnings == []
    assert sorted(unit for unit, links in target["enabled"].items() if links) == [
        c.DNSCONFD_UNIT]
    assert all(target["exists"].values()), target["exists"]
    target_upper = workdir / "target-upper"
    assert _certificates(target_upper / trust.path.lstrip("/")) == [ca]
    dracut = (target_upper / c.DRACUT_CONF_PATH.lstrip("/")).read_text()
    [items] = re.findall(r'^install_items\+="([^"]*)"$', dracut, re.MULTILINE)
    assert {trust.path, c.NM_KEYFILE_PATH} <= set(items.split())
    # The kickstart Anaconda leaves in the target (Boss.GenerateKickstart) gives back the
    # same configuration and certificate.
    written = parse_kickstart(str(target_upper / "root/anaconda-ks.cfg"))
    assert written.errors == []
    assert written.config == config
    assert [(cert.filename, cert.pem) for cert in written.certificates] == [
        (cert.filename, cert.pem) for cert in parsed.certificates]

    # Validate(): the module's judgement for its own line, read from the os-release and
    # the running NetworkManager; here it differs from the judgement for every line.
    line = detect_line(webui_install.OS_RELEASES[anaconda_line()],
                       results["networkmanager_version"])
    assert "INFO:anaconda.org_edns_addon.service.edns:This installer's line: %s " \
           "(NetworkManager %s)." % (line.name, results["networkmanager_version"]) in bus_log
    for_line = EdnsState(config, parsed.certificates)
    for_line.lines = (line,)
    expected = ValidationReport.of_problems(for_line.problems())
    every_line = ValidationReport.of_problems(EdnsState(config, parsed.certificates).problems())
    assert results["validate"] == {"error-messages": expected.error_messages,
                                   "warning-messages": expected.warning_messages}
    assert every_line.warning_messages != expected.warning_messages

    # Nothing went wrong in any module during the installation.
    assert "Traceback" not in installation_log, installation_log[
        installation_log.index("Traceback") - 2000:][:6000]

    # The Web UI's own call: the Boss builds its queue itself, and stops at its first
    # call of a module that is not here.
    assert results["webui_install"]["error"] == (
        "AnacondaError: The name org.fedoraproject.Anaconda.Modules.Payloads was not "
        "provided by any .service files")
