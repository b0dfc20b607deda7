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

"""The Anaconda module with the real pyanaconda: the boss's kickstart split, the module on a
private bus, GenerateKickstart, requirements and the tasks through Anaconda's Task machinery;
and the module stays responsive: Anaconda's boss can stop it (Quit) while a check runs, and
hand it a kickstart larger than any call of ours may be. (What it shares with the
stand-alone service, the handler's answers beside the main loop, its log lines and its
memory, is tested on both in test_dbus_handler.py.)

Needs an anaconda checkout on PYTHONPATH (see docs/testing.md); skipped otherwise.
"""

import json
import logging
import os
import signal
import subprocess
import sys
import time

import pytest
from pykickstart.parser import Certificate
from gi.repository import Gio

pytestmark = pytest.mark.anaconda

try:
    from pyanaconda.core.kernel import KernelArguments
    from pyanaconda.modules.boss.kickstart_manager.parser import (VALID_SECTIONS_ANACONDA,
                                                                  SplitKickstartParser)
    from pyanaconda.modules.common.structures.requirement import Requirement
    from pyanaconda.modules.common.task import sync_run_task
    from pykickstart.version import makeVersion
    from dasbus.error import DBusError
    from dasbus.typing import unwrap_variant
    from pyanaconda.modules.common.constants.interfaces import KICKSTART_MODULE
except ImportError as error:   # pragma: no cover - depends on the machine
    pytest.skip("pyanaconda is not importable (%s); put an anaconda checkout on PYTHONPATH, "
                "see docs/testing.md" % error, allow_module_level=True)

from lab.kickstarts import certificate_section, edns_kickstart
from lab import certs
from lab.bus import wait_for
from lab.dotlab import CLOSED_LAB_HOST, TLS_NAME, lab_host
from org_edns_addon import constants as c
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.dbus.errors import InvalidConfigurationError
from org_edns_addon.ks.reader import parse_kickstart
from org_edns_addon.model import DotServer
from org_edns_addon.service import edns as edns_module
from org_edns_addon.service.edns import EdnsService
from org_edns_addon.service.installation import StageEncryptedDnsTask
from org_edns_addon.staging.plan import Phase, build_plan
from tests.anaconda_fixtures import (BOSS_COMMANDS, EDNS_SECTION, SECURITY_SERVICE,
                                     boss_kickstart_manager, boss_read, kickstart)
from tests.conftest import REPO, run_cli
from tests.dbus_fixtures import (AsyncCalls, call_check_servers, configure,
                                 give_silent_server, plain_structures, setting, validation)
from tests.ks_fixtures import line_of
from tests.staging_fixtures import require_namespaces


def test_boss_split_gives_the_module_only_its_sections(test_ca, tmp_path):
    path = tmp_path / "ks.cfg"
    path.write_text(kickstart(test_ca.pem))
    service = EdnsService()
    elements = SplitKickstartParser(makeVersion(), VALID_SECTIONS_ANACONDA).split(str(path))
    ours = elements.get_and_process_elements(commands=service.kickstart_command_names,
                                             sections=service.kickstart_section_names,
                                             addons=service.kickstart_addon_names)
    assert [(e.name, e.lineno) for e in ours] == [
        ("certificate", line_of(path.read_text(), "%certificate")),
        ("org_edns_addon", line_of(path.read_text(), "%addon"))]
    part = elements.get_kickstart_from_elements(ours)
    assert "lang" not in part and "%packages" not in part
    report = service.read_kickstart(part)
    assert report.is_valid(), [str(m) for m in report.get_messages()]
    assert [server.uri() for server in service.servers] == [
        "dns+tls://192.0.2.53#dot.corp.example",
        "dns+tls://[2001:db8::53]#dot.corp.example",
        "dns+tls://198.51.100.60#dot.lab.example"]
    assert service.ca_names == ("dns-ca.pem",)
    assert service.search_domains == ()
    assert [cert.filename for cert in service.certificates] == ["dns-ca.pem"]


def test_the_boss_drops_an_addon_section_of_a_close_name_which_validate_refuses(test_ca,
                                                                               tmp_path):
    """Anaconda's boss hands a module the %addon sections of its names alone: one of a
    misspelled name reaches no module, and the system is installed without encrypted DNS.
    Our own tools, which read the whole file, say so on its line."""
    path = tmp_path / "ks.cfg"
    text = kickstart(test_ca.pem).replace("%addon org_edns_addon", "%addon org_ends_addon")
    path.write_text(text)
    service = EdnsService()
    elements = SplitKickstartParser(makeVersion(), VALID_SECTIONS_ANACONDA).split(str(path))
    ours = elements.get_and_process_elements(commands=service.kickstart_command_names,
                                             sections=service.kickstart_section_names,
                                             addons=service.kickstart_addon_names)
    assert [element.name for element in ours] == ["certificate"]
    validated = run_cli("validate", path)
    assert validated.returncode == 1
    assert "%s:%d: error: %%addon org_ends_addon is not this addon's name" % (
        path, line_of(text, "%addon")) in validated.stdout


def test_the_security_module_writes_one_file_name_in_two_directories_as_validate_takes_it(
        tmp_path):
    """Anaconda's ImportCertificatesTask writes each %certificate at its --dir: one file
    name in two directories gives two files, and a second one at the same path replaces
    the first (what validate refuses: tests/test_ks_rules.py)."""
    from pyanaconda.modules.common.structures.security import CertificateData
    from pyanaconda.modules.security.certificates.installation import ImportCertificatesTask

    given = []
    for directory, pem in (("/etc/pki/dns", "first"), ("/etc/pki/tls/corp", "second"),
                           ("/etc/pki/dns", "third")):
        data = CertificateData()
        data.filename, data.dir, data.cert = "corp.pem", directory, pem
        given.append(data)
    ImportCertificatesTask(str(tmp_path), given).run()
    assert (tmp_path / "etc/pki/dns/corp.pem").read_text() == "third\n"
    assert (tmp_path / "etc/pki/tls/corp/corp.pem").read_text() == "second\n"


def test_parse_kickstart_writes_a_certificate_of_a_ksappended_file(test_ca, tmp_path):
    """The checkout's dracut/parse-kickstart, run as it is (lab/installer_sequence.py, in a
    private mount namespace), preprocesses %ksappend: the %certificate of the appended file
    is written at its --dir and carried to stage 2, as our reader counts it."""
    require_namespaces("--mount")
    part = tmp_path / "site.ks"
    part.write_text(certificate_section(test_ca.pem))
    main = tmp_path / "ks.cfg"
    main.write_text(BOSS_COMMANDS + "%%ksappend %s\n" % part + EDNS_SECTION)
    code = ("import json, sys\nfrom lab.installer_sequence import run_parse_kickstart\n"
            "print(json.dumps(run_parse_kickstart(json.loads(sys.argv[1]), sys.argv[2])))")
    job = json.dumps({"anaconda_src": os.environ["ANACONDA_SRC"], "kickstart": str(main)})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable,
                           "-c", code, job, str(scratch)], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                              [str(REPO), os.environ.get("PYTHONPATH", "")])))
    assert done.returncode == 0, done.stderr
    written = json.loads(done.stdout)["written"]
    pem = test_ca.pem.rstrip("\n") + "\n"
    assert written["/etc/pki/dns/dns-ca.pem"] == pem
    assert written["/run/install/certificates/path/etc/pki/dns/dns-ca.pem"] == pem
    parsed = parse_kickstart(str(main))
    assert parsed.errors == []
    assert [(cert.path, cert.origin.filename) for cert in parsed.certificates] == [
        ("/etc/pki/dns/dns-ca.pem", str(part))]


def test_module_on_the_bus_reads_the_kickstart_the_boss_sends(start_module, bus, test_ca,
                                                               tmp_path):
    proxy = start_module("org_edns_addon.service", EDNS.service_name)
    path = tmp_path / "ks.cfg"
    path.write_text(kickstart(test_ca.pem))
    report = boss_read(bus, path)
    assert report.is_valid(), [str(m) for m in report.get_messages()]
    assert proxy.Kickstarted
    assert proxy.KickstartAddons == ["org_edns_addon"]
    # A top-level %edns is not claimed: the boss refuses it before any module sees it.
    assert proxy.KickstartSections == ["certificate"]
    assert setting(proxy, "ca-names") == ["dns-ca.pem"]
    assert validation(proxy) == []


def test_invalid_content_comes_back_in_the_report_with_file_and_line(start_module, bus,
                                                                       tmp_path):
    start_module("org_edns_addon.service", EDNS.service_name)
    not_a_ca = certs.make_ca("Leaf", ca=False)
    text = kickstart(not_a_ca.pem, "%addon org_edns_addon --ca=dns-ca.pem\n"
                                   "dns+tls://192.0.2.53\n%end\n")
    path = tmp_path / "bad.cfg"
    path.write_text(text)
    report = boss_read(bus, path)
    found = [(m.file_name, m.line_number, m.module_name, m.message)
             for m in report.error_messages]
    assert (str(path), line_of(text, "%certificate"), EDNS.service_name,
            "Not a valid CA certificate: CN=Leaf (basicConstraints CA:TRUE is missing); give "
            "the CA that issued the DNS servers' certificates") in found
    assert (str(path), line_of(text, "%addon"), EDNS.service_name,
            "the DoT server dns+tls://192.0.2.53 has no TLS name, so it cannot be "
            "authenticated; append #NAME as in its certificate, like "
            "dns+tls://192.0.2.53#dot.example") in found


class _InstallerOf:
    """Runs a module as on the installer whose os-release(5) is OS_RELEASE: a private mount
    namespace with that file over /etc/os-release (the module's NetworkManager is this
    machine's, read as on the installer: the system bus's Version, else NetworkManager
    --version)."""

    def __init__(self, os_release):
        self.os_release = os_release

    def command(self, argv):
        return ["unshare", "--mount", "--propagation", "private", "sh", "-ec",
                'mount --bind "$0" /etc/os-release; exec "$@"', str(self.os_release)] + \
            list(argv)


@pytest.mark.root
def test_the_module_judges_the_kickstart_for_the_line_of_its_installer(start_module, bus,
                                                                      tmp_path):
    os_release = tmp_path / "os-release"
    os_release.write_text('NAME="Fedora Linux"\nID=fedora\nVERSION_ID=42\n')
    start_module("org_edns_addon.service", EDNS.service_name,
                 network=_InstallerOf(os_release))
    text = ("%addon org_edns_addon --search=corp.example\n"
            "dns+tls://192.0.2.53:8853#dot.corp.example\n%end\n")
    path = tmp_path / "port.cfg"
    path.write_text(text)
    report = boss_read(bus, path)
    # Fedora 42's alone (NetworkManager 1.52.2, or this machine's older one), not every
    # line's: no EL9, no EL10; and --search adds to the connections' there: no warning.
    # (The module's report puts a server's problem on its section's header.)
    assert [(m.line_number, m.message) for m in report.error_messages] == [
        (1, "dns+tls://192.0.2.53:8853#dot.corp.example is on port 8853, but on Fedora 42 "
            "NetworkManager's dnsconfd plugin (before 1.54) does not pass a server's port to "
            "dnsconfd, which then asks port 853 in the installer's initramfs and in the "
            "installed system; serve it on port 853, or validate with --line=LINE for a line "
            "whose NetworkManager is 1.54 or later if only such lines install this "
            "kickstart")]
    assert [m.message for m in report.warning_messages] == []


def test_without_cryptography_in_the_image_the_report_and_the_log_say_so(start_module, bus,
                                                                       test_ca, tmp_path):
    start_module("org_edns_addon.service", EDNS.service_name, hide=["cryptography"])
    text = kickstart(test_ca.pem)
    path = tmp_path / "ks.cfg"
    path.write_text(text)
    report = boss_read(bus, path)
    assert [(m.line_number, m.message) for m in report.error_messages] == [
        (line_of(text, "%certificate"), "checking a %certificate needs the Python package "
         "cryptography 36.0.1 or later, which is not installed; install it (dnf install "
         "python3-cryptography, or pip install 'cryptography>=36.0.1')")]
    [warning] = [m.message for m in report.warning_messages]
    assert warning.startswith("this installer has no usable cryptography (python3-cryptography: ")
    assert warning.endswith("build the addon's RPM into the installer image (it requires "
                            "python3-cryptography), an updates image cannot carry it")
    log = (tmp_path / "org_edns_addon.service.log").read_text()
    assert "this installer has no usable cryptography" in log
    assert "Traceback" not in log


def test_without_dnspython_in_the_image_the_kickstart_is_read_with_a_warning(start_module, bus,
                                                                             test_ca, tmp_path):
    proxy = start_module("org_edns_addon.service", EDNS.service_name, hide=["dns"])
    path = tmp_path / "ks.cfg"
    path.write_text(kickstart(test_ca.pem))
    report = boss_read(bus, path)
    assert report.error_messages == []
    [warning] = [m.message for m in report.warning_messages]
    assert warning.startswith("this installer has no usable dnspython (python3-dns: ")
    assert "boot with an updates image made by edns-addon updates-img" in warning
    assert proxy.Kickstarted


def test_a_parse_error_is_reported_not_raised(tmp_path):
    service = EdnsService()
    report = service.read_kickstart("%addon org_edns_addon\n"
                                    "dns+tls://2001:db8::53#dot.example\n%end\n")
    assert [(m.line_number, m.message) for m in report.error_messages] == [
        (2, "the IPv6 address in 'dns+tls://2001:db8::53#dot.example' must be in brackets, "
            "like dns+tls://[2001:db8::53]:853#dot.example")]
    assert not service.configured


def test_generate_kickstart_round_trips(test_ca, anaconda_bus):
    first = EdnsService()
    assert first.read_kickstart(certificate_section(test_ca.pem) + EDNS_SECTION).is_valid()
    generated = first.generate_kickstart()
    # No Security module on the bus: the module generates the %certificate itself.
    assert generated == (str(Certificate(cert=test_ca.pem.rstrip("\n"), filename="dns-ca.pem",
                                         dir="/etc/pki/dns/")) +
                         "\n%addon org_edns_addon --resolve-mode=exclusive --backend=dnsconfd "
                         "--ca=dns-ca.pem\n"
                         "dns+tls://192.0.2.53#dot.corp.example\n"
                         "dns+tls://[2001:db8::53]#dot.corp.example\n"
                         "dns+tls://198.51.100.60#dot.lab.example domain=lab.example\n"
                         "%end\n")
    second = EdnsService()
    assert second.read_kickstart(generated).is_valid()
    assert second.config == first.config
    assert second.generate_kickstart() == generated


def test_a_top_level_edns_is_refused_by_the_boss_as_our_tools_warn(start_module, bus, test_ca,
                                                                   tmp_path):
    # What `edns-addon validate` warns about, Anaconda's boss does: %edns never reaches
    # a module, so the module does not claim it.
    start_module("org_edns_addon.service", EDNS.service_name)
    path = tmp_path / "edns.cfg"
    path.write_text(kickstart(test_ca.pem).replace("%addon org_edns_addon", "%edns"))
    report = boss_read(bus, path)
    assert [m.message for m in report.error_messages] == ["Unknown kickstart section: %edns"]
    assert "stock Anaconda rejects a top-level %edns" in run_cli("validate", path).stdout


def test_no_section_means_no_kickstart_and_no_tasks(test_ca):
    service = EdnsService()
    assert service.read_kickstart(certificate_section(test_ca.pem)).is_valid()
    assert service.generate_kickstart() == ""
    assert service.configure_with_tasks() == [] and service.install_with_tasks() == []
    assert service.collect_requirements() == []


def test_certificates_without_our_section_can_still_be_named_later(test_ca, anaconda_bus):
    service = EdnsService()
    assert service.read_kickstart(certificate_section(test_ca.pem)).is_valid()
    service.set_servers([DotServer.parse_uri("dns+tls://192.0.2.53#dot.example")])
    service.set_ca_names(["dns-ca.pem"])
    assert service.problems() == []
    assert "--ca=dns-ca.pem" in service.generate_kickstart()


def test_requirements_name_the_packages_with_reasons(start_module, bus, test_ca, tmp_path):
    proxy = start_module("org_edns_addon.service", EDNS.service_name)
    assert proxy.CollectRequirements() == []
    path = tmp_path / "ks.cfg"
    path.write_text(kickstart(test_ca.pem))
    assert boss_read(bus, path).is_valid()
    requirements = Requirement.from_structure_list(proxy.CollectRequirements())
    assert [(r.type, r.name) for r in requirements] == [("package", "dnsconfd"),
                                                         ("package", "ca-certificates")]
    assert all(r.reason for r in requirements)
    configure(proxy, backend="unbound")
    assert [r.name for r in Requirement.from_structure_list(proxy.CollectRequirements())] == \
        ["unbound", "ca-certificates"]


def test_install_task_stages_the_target_over_dbus(start_module, bus, anaconda_conf, test_ca,
                                                  tmp_path):
    _, sysroot = anaconda_conf
    proxy = start_module("org_edns_addon.service", EDNS.service_name)
    path = tmp_path / "ks.cfg"
    path.write_text(kickstart(test_ca.pem))
    assert boss_read(bus, path).is_valid()
    [task_path] = proxy.InstallWithTasks()
    task = bus.get_proxy(EDNS.service_name, task_path)
    assert task.Name == "Configure encrypted DNS (target)"
    sync_run_task(task)
    keyfile = (sysroot / c.NM_KEYFILE_PATH.lstrip("/")).read_text()
    assert "dns+tls://192.0.2.53#dot.corp.example" in keyfile
    assert (sysroot / c.DOT_CA_BUNDLE_PATH.lstrip("/")).read_text() == test_ca.pem
    assert (sysroot / c.DRACUT_CONF_PATH.lstrip("/")).is_file()
    # No Security module on this bus: the module writes the %certificate itself.
    assert (sysroot / "etc/pki/dns/dns-ca.pem").read_text().strip() == test_ca.pem.strip()
    # And nothing else: the installed system holds no file of the addon's own bookkeeping.
    plan = build_plan(parse_kickstart(str(path)).staging_input(), Phase.TARGET, str(sysroot))
    assert {"/" + str(file.relative_to(sysroot)) for file in sysroot.rglob("*")
            if not file.is_dir()} == {planned.path for planned in plan.files}


@pytest.fixture
def beside_security(start_module, bus, test_ca, tmp_path):
    """Anaconda's Security module and ours, both given kickstart(test_ca.pem) by the boss;
    yields our module's proxy."""
    start_module("pyanaconda.modules.security", SECURITY_SERVICE)
    proxy = start_module("org_edns_addon.service", EDNS.service_name)
    path = tmp_path / "ks.cfg"
    path.write_text(kickstart(test_ca.pem))
    assert boss_read(bus, path, (SECURITY_SERVICE, EDNS.service_name)).is_valid()
    return proxy


def test_with_anacondas_security_module_the_certificate_is_not_imported_twice(
        beside_security, bus, anaconda_conf, test_ca):
    _, sysroot = anaconda_conf
    proxy = beside_security
    [task_path] = proxy.InstallWithTasks()
    sync_run_task(bus.get_proxy(EDNS.service_name, task_path))
    assert not (sysroot / "etc/pki/dns/dns-ca.pem").exists()
    assert (sysroot / c.DOT_CA_BUNDLE_PATH.lstrip("/")).read_text() == test_ca.pem
    assert (sysroot / c.NM_KEYFILE_PATH.lstrip("/")).is_file()


def test_a_certificate_added_beside_the_security_module_is_written_and_generated_once(
        beside_security, bus, anaconda_conf, test_ca, tmp_path):
    _, sysroot = anaconda_conf
    proxy = beside_security
    corp_ca = certs.make_ca("Corp CA")
    proxy.AddCertificate("corp-ca.pem", corp_ca.pem)
    configure(proxy, ca_names=["dns-ca.pem", "corp-ca.pem"])
    assert validation(proxy) == []

    [task_path] = proxy.InstallWithTasks()
    sync_run_task(bus.get_proxy(EDNS.service_name, task_path))
    # Only this module has the added certificate, so it writes it; the Security module
    # writes the kickstart's own.
    assert (sysroot / "etc/pki/dns/corp-ca.pem").read_text() == corp_ca.pem
    assert not (sysroot / "etc/pki/dns/dns-ca.pem").exists()
    assert (sysroot / c.DOT_CA_BUNDLE_PATH.lstrip("/")).read_text() == \
        test_ca.pem + corp_ca.pem

    generated = boss_kickstart_manager(bus, (SECURITY_SERVICE, EDNS.service_name)) \
        .generate_kickstart()
    # Each %certificate as this branch's pykickstart prints it (quoted from 3.70 on).
    assert [line for line in generated.splitlines() if line.startswith("%certificate")] == [
        str(Certificate(cert="x", filename=name, dir="/etc/pki/dns/")).splitlines()[1]
        for name in ("corp-ca.pem", "dns-ca.pem")]
    again = tmp_path / "generated.ks"
    again.write_text(generated)
    validated = run_cli("validate", again)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert "--ca=dns-ca.pem,corp-ca.pem" in generated


def test_configure_task_targets_the_installer_and_runs_on_a_scratch_root(
        test_ca, tmp_path, anaconda_bus):
    service = EdnsService()
    assert service.read_kickstart(certificate_section(test_ca.pem) + EDNS_SECTION).is_valid()
    [task] = service.configure_with_tasks()
    assert task.name == "Configure encrypted DNS (installer)"
    scratch = tmp_path / "installer"
    scratch.mkdir()
    started, stopped = [], []
    scratch_task = StageEncryptedDnsTask(
        service.copy(), {cert.filename for cert in service.certificates}, Phase.INSTALLER,
        str(scratch))
    scratch_task.started_signal.connect(lambda: started.append(True))
    scratch_task.stopped_signal.connect(lambda: stopped.append(True))
    report = scratch_task.run_with_signals()
    assert started == stopped == [True]
    assert (scratch / c.NM_KEYFILE_PATH.lstrip("/")).is_file()
    assert not (scratch / c.DRACUT_CONF_PATH.lstrip("/")).exists()
    # Reloading NetworkManager and restarting the resolver apply to "/" only.
    assert sorted(action for action, _ in report.actions_skipped) == sorted(
        ["reload NetworkManager", "restart dnsconfd.service"])
    again = scratch_task.run_with_signals()
    assert again.written == [] and len(again.unchanged) == len(report.written)


def _run_tasks(bus, paths):
    """Run each task at PATHS to its end; the messages of those that failed."""
    failures = []
    for path in paths:
        try:
            sync_run_task(bus.get_proxy(EDNS.service_name, path))
        except DBusError as error:
            failures.append(str(error))
    return failures


def test_the_installer_phase_again_puts_back_what_the_last_one_wrote(installer, bus, test_ca):
    """A spoke runs ConfigureWithTasks after each change (the module's /etc here is an
    overlay): the module keeps in memory what the last run wrote, and the next one, for
    dnsconfd, removes the unbound backend's forwarder file and puts /etc/resolv.conf back
    as this machine has it."""
    module, etc_upper, load = installer
    load(kickstart(test_ca.pem, edns=EDNS_SECTION.replace("--ca=", "--backend=unbound --ca=")))
    forwarder = etc_upper / c.UNBOUND_CONF_PATH[len("/etc/"):]
    resolv_conf = etc_upper / c.RESOLV_CONF_PATH[len("/etc/"):]
    # NetworkManager does not run here: its reload fails, after the files are written (the
    # task says so to the person; its command and exit code are in the module's log).
    assert ["its configuration is written, but these steps failed: reload NetworkManager."
            in failure for failure in _run_tasks(bus, module.ConfigureWithTasks())] == [True]
    assert forwarder.exists() and "127.0.0.55" in resolv_conf.read_text()
    configure(module, backend="dnsconfd")

    assert len(_run_tasks(bus, module.ConfigureWithTasks())) == 1

    assert not forwarder.exists()
    assert resolv_conf.read_bytes() == open(c.RESOLV_CONF_PATH, "rb").read()
    assert "dns=dnsconfd" in (etc_upper / c.NM_KEYFILE_PATH[len("/etc/"):]).read_text()


def test_boot_options_that_differ_are_logged_and_the_kickstart_wins(test_ca, monkeypatch,
                                                                      caplog):
    monkeypatch.setattr(edns_module, "kernel_arguments", KernelArguments.from_string(
        "rd.net.dns=dns+tls://203.0.113.9#other.example rd.net.dns-resolve-mode=exclusive"))
    service = EdnsService()
    with caplog.at_level(logging.WARNING):
        assert service.read_kickstart(certificate_section(test_ca.pem) +
                                      EDNS_SECTION).is_valid()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ["the boot option rd.net.dns=dns+tls://203.0.113.9#other.example "
                        "differs from the kickstart (rd.net.dns=dns+tls://192.0.2.53#"
                        "dot.corp.example, rd.net.dns=dns+tls://[2001:db8::53]#"
                        "dot.corp.example); the kickstart wins."]
    assert service.servers[0].uri() == "dns+tls://192.0.2.53#dot.corp.example"


@pytest.mark.root
def test_check_servers_task_publishes_the_results(start_module, bus, dot_upstream, dot_pki,
                                                  tmp_path):
    # The module runs where the lab's servers are.
    proxy = start_module("org_edns_addon.service", EDNS.service_name,
                         network=dot_upstream.network)
    closed = lab_host(CLOSED_LAB_HOST)
    path = tmp_path / "ks.cfg"
    path.write_text("lang en_US.UTF-8\n" + edns_kickstart(dot_pki.ca.pem, servers=[
        dot_upstream.server_line(), "dns+tls://%s#%s" % (closed, TLS_NAME)], commands=""))
    assert boss_read(bus, path).is_valid()
    task = bus.get_proxy(EDNS.service_name, proxy.CheckServersWithTask())
    assert task.Name == "Check the encrypted DNS servers"
    sync_run_task(task)
    good, refused = plain_structures(unwrap_variant(task.GetResult()))
    assert (good["address"], good["port"], good["name"], good["outcome"], good["reason"]) == \
        (dot_upstream.address, dot_upstream.port, TLS_NAME, "ok",
         "dot.test A: NOERROR, 1 record")
    assert good["rtt-ms"] > 0
    assert (refused["address"], refused["port"], refused["outcome"], refused["rtt-ms"]) == \
        (closed, c.DOT_PORT, "connection refused", 0.0)


def test_check_servers_task_is_refused_for_a_configuration_with_errors(start_module):
    proxy = start_module("org_edns_addon.service", EDNS.service_name)
    with pytest.raises(InvalidConfigurationError) as raised:
        proxy.CheckServersWithTask()
    assert "no DNS server is given" in str(raised.value)
    assert validation(proxy)


def test_module_interface_has_the_template_members_and_the_task_method(start_module, bus):
    start_module("org_edns_addon.service", EDNS.service_name)
    introspectable = bus.get_proxy(EDNS.service_name, EDNS.object_path,
                                   interface_name="org.freedesktop.DBus.Introspectable")
    node = Gio.DBusNodeInfo.new_for_xml(introspectable.Introspect())
    ours = node.lookup_interface(EDNS.interface_name)
    assert [m.name for m in ours.methods] == ["AddCertificate", "CheckServers",
                                              "CheckServersWithTask", "Validate"]
    assert [p.name for p in ours.properties] == ["Certificates", "Configuration",
                                                 "JudgedLines"]
    assert ours.lookup_method("CheckServersWithTask").out_args[0].signature == "o"
    anacondas = node.lookup_interface(KICKSTART_MODULE.interface_name)
    assert anacondas.lookup_method("GenerateKickstart") is not None


# --- the module stays responsive -----------------------------------------------------------

MODULE = "org_edns_addon.service"


def module_pid(bus):
    return bus.proxy.GetConnectionUnixProcessID(EDNS.service_name)


def exit_status(pid, seconds):
    """The exit status of our child PID (a negative signal number if killed), or None if it
    still runs after SECONDS."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found, status = os.waitpid(pid, os.WNOHANG)
        if found:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    return None


@pytest.mark.root
@pytest.mark.parametrize("stop", ["Quit", "SIGTERM"])
def test_the_module_stops_at_once_while_a_check_runs(start_module, bus, lab_network,
                                                     silent_server, stop):
    proxy = start_module(MODULE, EDNS.service_name, network=lab_network)
    give_silent_server(proxy, silent_server)
    pid = module_pid(bus)
    calls = AsyncCalls(bus.connection)
    call_check_servers(calls, "check", 20.0)
    wait_for(lambda: silent_server.accepted == 1, what="the check to connect")
    if stop == "Quit":
        # What Anaconda's boss does at the end (ModuleManager.stop_modules): answered at
        # once, and the module leaves its loop a second later (Anaconda's deferred stop).
        proxy.Quit()
        expected = 0
    else:
        # Anaconda's modules take no signals of their own: SIGTERM's default action.
        os.kill(pid, signal.SIGTERM)
        expected = -signal.SIGTERM
    # Within half the check's own time.
    assert exit_status(pid, 10) == expected


def test_a_kickstart_larger_than_one_call_of_ours_still_reaches_the_module(start_module, bus,
                                                                         tmp_path):
    # The size limit is for the addon's own members; Anaconda's boss hands the module its
    # part of the kickstart in one ReadKickstart call, and certificates make it large.
    proxy = start_module(MODULE, EDNS.service_name)
    bundle = "".join(certs.make_ca("Bundle %d" % n).pem for n in range(1400))
    text = kickstart(bundle) + "".join(certificate_section(bundle, "more%d.pem" % n)
                                       for n in range(3))
    assert len(text) > c.MAX_DBUS_CALL_BYTES
    path = tmp_path / "ks.cfg"
    path.write_text(text)
    report = boss_read(bus, path)
    assert report.is_valid(), [str(m) for m in report.get_messages()]
    assert len(proxy.Certificates) == 4 and validation(proxy) == []
