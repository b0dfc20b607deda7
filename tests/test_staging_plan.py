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

"""What a plan holds, read back by the real consumers: NetworkManager and Unbound."""

import dataclasses

import pytest

from lab.kickstarts import certificate_section, edns_kickstart
from lab import certs
from org_edns_addon import constants as c
from org_edns_addon.staging import plan as staging_plan
from org_edns_addon.staging import apply as staging_apply
from org_edns_addon.staging import networkmanager
from org_edns_addon.model import Backend
from tests.conftest import needs_certificate_type
from tests.staging_fixtures import (networkmanager_config, require_tools,
                                    staging_input, unbound_checkconf)

DEFAULT_URIS = ["dns+tls://192.0.2.53#dot.corp.example",
                "dns+tls://[2001:db8::53]#dot.corp.example",
                "dns+tls://192.0.2.54#dot2.corp.example"]
LAB_URIS = ["dns+tls://198.51.100.60#dot.lab.example"]


def files_of(plan):
    return {planned.path: planned for planned in plan.files}


def test_dnsconfd_keyfile_is_read_by_networkmanager_with_our_values(write_ks, test_ca, tmp_path):
    require_tools("NetworkManager")
    data = staging_input(write_ks, edns_kickstart(
        test_ca.pem, "--ca=dns-ca.pem --search=corp.example,lab.example --resolve-mode=prefer"))
    keyfile = files_of(staging_plan.build_plan(data, staging_plan.Phase.TARGET, str(tmp_path)))[
        c.NM_KEYFILE_PATH].content

    printed = networkmanager_config(tmp_path, keyfile)

    assert printed["main"]["dns"] == "dnsconfd"
    assert printed["global-dns"]["resolve-mode"] == "prefer"
    assert printed["global-dns"]["certification-authority"] == c.DOT_CA_BUNDLE_PATH
    assert printed["global-dns"]["searches"].split(",") == ["corp.example", "lab.example"]
    assert printed["global-dns-domain-*"]["servers"].split(",") == DEFAULT_URIS
    assert printed["global-dns-domain-lab.example"]["servers"].split(",") == LAB_URIS
    assert printed["global-dns-domain-test.lab.example"]["servers"].split(",") == LAB_URIS


def test_without_ca_the_keyfile_names_no_bundle_and_plaintext_backup_is_kept(
        write_ks, test_ca, tmp_path):
    require_tools("NetworkManager")
    data = staging_input(write_ks, edns_kickstart(
        test_ca.pem, "--resolve-mode=backup",
        servers=("dns+tls://192.0.2.53#dot.corp.example", "dns+udp://192.0.2.99",
                 "[2001:db8::1]#dot.v6.example")))
    plan = staging_plan.build_plan(data, staging_plan.Phase.INSTALLER, "/")

    printed = networkmanager_config(tmp_path, files_of(plan)[c.NM_KEYFILE_PATH].content)

    assert "certification-authority" not in printed["global-dns"]
    assert printed["global-dns"]["resolve-mode"] == "backup"
    assert printed["global-dns-domain-*"]["servers"].split(",") == [
        "dns+tls://192.0.2.53#dot.corp.example", "dns+udp://192.0.2.99",
        "dns+tls://[2001:db8::1]#dot.v6.example"]
    assert c.DOT_CA_BUNDLE_PATH not in files_of(plan)


def test_unbound_backend_keyfile_tells_networkmanager_to_leave_dns_alone(
        write_ks, test_ca, tmp_path):
    require_tools("NetworkManager")
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, "--ca=dns-ca.pem "
                                                  "--backend=unbound"))
    files = files_of(staging_plan.build_plan(data, staging_plan.Phase.TARGET, str(tmp_path)))

    printed = networkmanager_config(tmp_path, files[c.NM_KEYFILE_PATH].content)

    assert printed["main"]["dns"] == "none"
    assert not any(name.startswith("global-dns") for name in printed.sections())
    assert files[c.RESOLV_CONF_PATH].content.decode().splitlines()[1:] == [
        "nameserver 127.0.0.55"]


@pytest.mark.parametrize("options, bundle", [
    ("--ca=dns-ca.pem --backend=unbound", c.DOT_CA_BUNDLE_PATH),
    ("--backend=unbound --search=corp.example", c.SYSTEM_CA_BUNDLE_PATH),
])
def test_unbound_conf_passes_unbound_checkconf(write_ks, test_ca, tmp_path, options, bundle):
    require_tools("unbound-checkconf")
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, options))
    root = tmp_path / "root"
    root.mkdir()
    staging_apply.stage(data, staging_plan.Phase.TARGET, str(root))

    checked = unbound_checkconf(tmp_path, root)
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert unbound_checkconf(tmp_path, root, "tls-cert-bundle").stdout.strip() == bundle
    assert unbound_checkconf(tmp_path, root, "interface").stdout.strip() == "127.0.0.55"
    text = (root / c.UNBOUND_CONF_PATH.lstrip("/")).read_text()
    assert 'name: "."' in text and 'name: "lab.example."' in text
    assert "forward-addr: 2001:db8::53@853#dot.corp.example" in text
    assert text.count("forward-tls-upstream: yes") == 3
    assert text.count("forward-first: no") == 3


def test_unbound_checkconf_would_reject_a_broken_file(write_ks, test_ca, tmp_path):
    """The check above can fail: a damaged copy of our file is refused."""
    require_tools("unbound-checkconf")
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, "--backend=unbound"))
    root = tmp_path / "root"
    root.mkdir()
    staging_apply.stage(data, staging_plan.Phase.TARGET, str(root))
    conf = root / c.UNBOUND_CONF_PATH.lstrip("/")
    conf.write_text(conf.read_text().replace("forward-tls-upstream: yes",
                                             "forward-tls-upstream: maybe"))
    assert unbound_checkconf(tmp_path, root).returncode != 0


@needs_certificate_type
def test_certificates_go_to_their_dir_or_type_place_with_mode_0644(write_ks, test_ca):
    anchor = certs.make_ca("Corp Root")
    text = edns_kickstart(test_ca.pem, certificates=(
        certificate_section(test_ca.pem) +
        certificate_section(anchor.pem, "corp-root.pem", "--type=anchor --dir=/ignored/")))
    plan = staging_plan.build_plan(staging_input(write_ks, text), staging_plan.Phase.TARGET, "/")
    files = files_of(plan)

    assert files["/etc/pki/dns/dns-ca.pem"].content == test_ca.pem.encode()   # --dir=/etc/pki/dns/
    assert files["/etc/pki/ca-trust/source/anchors/corp-root.pem"].content == anchor.pem.encode()
    assert {planned.mode for planned in plan.files} == {0o644}
    assert plan.actions[0] == staging_plan.Action("update-ca-trust")


def test_without_certificate_import_only_the_dot_bundle_is_planned(write_ks, test_ca):
    data = dataclasses.replace(staging_input(write_ks, edns_kickstart(test_ca.pem)),
                               certificates=())
    plan = staging_plan.build_plan(data, staging_plan.Phase.TARGET, "/")
    assert sorted(files_of(plan)) == sorted([c.DOT_CA_BUNDLE_PATH, c.NM_KEYFILE_PATH,
                                             c.DRACUT_CONF_PATH, c.UNBOUND_DNSCONFD_DROPIN_PATH])
    assert files_of(plan)[c.DOT_CA_BUNDLE_PATH].content == test_ca.pem.encode()


def test_a_certificate_placed_at_the_dot_bundle_path_and_named_by_ca_is_the_bundle(
        write_ks, test_ca):
    # As rhinstaller/kickstart-tests places one: the certificate file is the bundle,
    # written once, and NetworkManager is pointed at it.
    text = edns_kickstart(test_ca.pem, certificates=certificate_section(
        test_ca.pem, "tls-ca-bundle.pem", "--dir=/etc/pki/dns/extracted/pem/"),
        options="--ca=tls-ca-bundle.pem")
    plan = staging_plan.build_plan(staging_input(write_ks, text), staging_plan.Phase.TARGET, "/")
    paths = [planned.path for planned in plan.files]
    assert paths.count(c.DOT_CA_BUNDLE_PATH) == 1
    assert files_of(plan)[c.DOT_CA_BUNDLE_PATH].content == test_ca.pem.encode()
    assert ("certification-authority=%s" % c.DOT_CA_BUNDLE_PATH) in \
        files_of(plan)[c.NM_KEYFILE_PATH].content.decode().splitlines()


def test_dracut_drop_in_names_only_modules_the_target_has(write_ks, test_ca, tmp_path):
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))

    def drop_in():
        plan = staging_plan.build_plan(data, staging_plan.Phase.TARGET, str(tmp_path))
        return files_of(plan)[c.DRACUT_CONF_PATH].content.decode().splitlines()

    assert drop_in()[1:] == ['install_items+=" %s %s %s "' % (
        c.DOT_CA_BUNDLE_PATH, c.NM_KEYFILE_PATH, c.UNBOUND_DNSCONFD_DROPIN_PATH)]
    modules = tmp_path / c.DRACUT_MODULES_DIR.lstrip("/")
    (modules / "99dnsconfd").mkdir(parents=True)
    assert drop_in()[2] == 'add_dracutmodules+=" dnsconfd "'
    (modules / "91openssl").mkdir()
    assert drop_in()[2] == 'add_dracutmodules+=" dnsconfd openssl "'


def test_unbound_target_initramfs_carries_the_forwarder_files(write_ks, test_ca, tmp_path):
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, "--backend=unbound"))
    plan = staging_plan.build_plan(data, staging_plan.Phase.TARGET, str(tmp_path))
    assert files_of(plan)[c.DRACUT_CONF_PATH].content.decode().splitlines()[1] == (
        'install_items+=" %s %s %s %s "' % (c.SYSTEM_CA_BUNDLE_PATH, c.NM_KEYFILE_PATH,
                                           c.UNBOUND_CONF_PATH, c.RESOLV_CONF_PATH))


def test_unbound_target_initramfs_gets_unbound_itself_when_the_target_has_its_module(
        write_ks, test_ca, tmp_path):
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, "--backend=unbound"))

    def drop_in():
        plan = staging_plan.build_plan(data, staging_plan.Phase.TARGET, str(tmp_path))
        return files_of(plan)[c.DRACUT_CONF_PATH].content.decode().splitlines()[2:]

    assert drop_in() == ['omit_dracutmodules+=" dnsconfd "']
    (tmp_path / c.DRACUT_MODULES_DIR.lstrip("/") / "70unbound").mkdir(parents=True)
    (tmp_path / c.DRACUT_MODULES_DIR.lstrip("/") / "70dnsconfd").mkdir()
    assert drop_in() == ['add_dracutmodules+=" unbound "', 'omit_dracutmodules+=" dnsconfd "']


def test_unbound_target_initramfs_omits_dnsconfd_whatever_else_selects_it(
        write_ks, test_ca, tmp_path):
    """The network module installs dnsconfd-dracut because of rd.net.dns-backend=dnsconfd,
    and dracut's default selection takes it (lab/vmlab/cases.py, composed-unbound, shows
    both stacks in the image without this); the dnsconfd backend omits nothing."""
    (tmp_path / c.DRACUT_MODULES_DIR.lstrip("/") / "70dnsconfd").mkdir(parents=True)
    for options, omitted in (("--backend=unbound", True), ("", False)):
        data = staging_input(write_ks, edns_kickstart(test_ca.pem, options))
        plan = staging_plan.build_plan(data, staging_plan.Phase.TARGET, str(tmp_path))
        lines = files_of(plan)[c.DRACUT_CONF_PATH].content.decode().splitlines()
        assert ('omit_dracutmodules+=" dnsconfd "' in lines) is omitted, lines


def test_phases_differ_in_dracut_drop_in_and_actions(write_ks, test_ca):
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))
    target = staging_plan.build_plan(data, staging_plan.Phase.TARGET, "/")
    installer = staging_plan.build_plan(data, staging_plan.Phase.INSTALLER, "/")

    assert [a.describe() for a in target.actions] == [
        "enable dnsconfd.service", "disable systemd-resolved.service"]
    assert [a.describe() for a in installer.actions] == [
        "restart dnsconfd.service", "reload NetworkManager"]
    assert set(files_of(target)) - set(files_of(installer)) == {
        c.DRACUT_CONF_PATH, c.UNBOUND_DNSCONFD_DROPIN_PATH}


def test_unbound_backend_enables_unbound(write_ks, test_ca):
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, "--backend=unbound"))
    assert staging_plan.build_plan(data, "target", "/").actions[0] == staging_plan.Action(
        "enable-unit", "unbound.service")


def test_unbound_backend_disables_the_dnsconfd_anacondas_network_module_enabled(
        write_ks, test_ca):
    """Our rd.net.dns-backend=dnsconfd makes the network module enable dnsconfd in the
    target before the addons run (tests/test_installer_sequence.py shows it on each line)."""
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, "--backend=unbound"))
    assert [a.describe() for a in staging_plan.build_plan(data, "target", "/").actions] == [
        "enable unbound.service", "disable systemd-resolved.service",
        "disable dnsconfd.service", "enable edns-freeipa-handover.service"]
    installer = staging_plan.build_plan(data, "installer", "/")
    assert [a.describe() for a in installer.actions] == [
        "restart unbound.service", "reload NetworkManager"]


DNSCONFD_UNIT_FILE = ("[Service]\nExecStart=/usr/bin/dnsconfd\n[Install]\n"
                      "WantedBy=sysinit.target\nAlias=dbus-com.redhat.dnsconfd.service\n")
UNBOUND_UNIT_FILE = ("[Service]\nExecStart=/usr/sbin/unbound\n[Install]\n"
                     "WantedBy=multi-user.target\n")


@pytest.mark.parametrize("backend, enabled", [
    ("unbound", ["multi-user.target.wants/unbound.service",
                 "unbound.service.wants/" + c.FREEIPA_HANDOVER_UNIT]),
    ("dnsconfd", ["dbus-com.redhat.dnsconfd.service", "sysinit.target.wants/dnsconfd.service"]),
])
def test_one_resolver_stack_is_left_enabled_after_anacondas_network_module(
        write_ks, test_ca, tmp_path, backend, enabled):
    require_tools("systemctl")
    root = tmp_path / "root"
    units = root / "usr/lib/systemd/system"
    units.mkdir(parents=True)
    (units / c.DNSCONFD_UNIT).write_text(DNSCONFD_UNIT_FILE)
    (units / c.UNBOUND_UNIT).write_text(UNBOUND_UNIT_FILE)
    # As NetworkInstallationTask._enable_dnsconfd leaves it (systemctl --root enable).
    system = root / "etc/systemd/system"
    (system / "sysinit.target.wants").mkdir(parents=True)
    for link in ("sysinit.target.wants/dnsconfd.service", "dbus-com.redhat.dnsconfd.service"):
        (system / link).symlink_to("/usr/lib/systemd/system/dnsconfd.service")
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, "--backend=" + backend))

    staging_apply.stage(data, "target", str(root))   # this machine's systemctl --root

    links = sorted(str(path.relative_to(system)) for path in system.rglob("*")
                   if path.is_symlink())
    assert links == enabled


def test_boot_options_carry_the_servers_for_all_names(write_ks, test_ca):
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, "--backend=unbound "
                                                  "--resolve-mode=prefer"))
    assert [str(option) for option in networkmanager.boot_options(data.config)] == (
        ["rd.net.dns=%s" % uri for uri in DEFAULT_URIS] +
        ["rd.net.dns-resolve-mode=prefer", "rd.net.dns-backend=dnsconfd"])


def test_same_input_gives_the_same_plan(write_ks, test_ca):
    text = edns_kickstart(test_ca.pem)
    first = staging_plan.build_plan(staging_input(write_ks, text), "target", "/")
    second = staging_plan.build_plan(staging_input(write_ks, text), "target", "/")
    assert first == second


def test_initramfs_input_switches_only_the_backend(write_ks, test_ca):
    data = staging_input(write_ks, edns_kickstart(test_ca.pem, "--backend=unbound"))
    initramfs = staging_plan.initramfs_input(data)
    assert initramfs.config == dataclasses.replace(data.config, backend=Backend.DNSCONFD)
    assert initramfs.certificates == data.certificates
