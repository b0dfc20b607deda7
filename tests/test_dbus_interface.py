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

"""The addon's D-Bus interface (dbus/interface.py), driven through a dasbus proxy over a
private dbus-daemon: what each member takes, stores, signals and refuses, and the bounds
of what a call may give (too many items, too large a value: refused before it is read,
and echoed short).

The service is the stand-alone ``python3 -m org_edns_addon.dbus.standalone``
(no pyanaconda): the same template Anaconda's module interface includes.
"""

import re

import pytest
from dasbus.typing import Bool, Str, Structure, UInt16, get_variant, unwrap_variant
from gi.repository import Gio, GLib

from lab.kickstarts import certificate_section
from lab import certs
from lab.bus import cpu_seconds, wait_for
from org_edns_addon.constants import (ECHO_MAX_CHARS, MAX_DBUS_CALL_BYTES, MAX_DBUS_NAME_CHARS,
                                      MAX_NAMES_PER_LIST, MAX_SERVERS)
from org_edns_addon.dbus.errors import (INVALID_VALUE_ERROR, InvalidConfigurationError,
                                        InvalidValueError)
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.dbus.structures import ConfigurationData, DotServerData
from tests.dbus_fixtures import (HUGE, HUGE_VALUES, configuration, configure,
                                 plain_structures, remote_error, running_template_service,
                                 server, servers_of, setting, validation)

PROPERTIES = "org.freedesktop.DBus.Properties"
BEGIN = "-----BEGIN CERTIFICATE-----\n"


def unwrapped(value):
    """VALUE (a structure, the properties of a PropertiesChanged, a variant) with plain
    values all the way down."""
    if isinstance(value, GLib.Variant):
        value = unwrap_variant(value)
    if isinstance(value, dict):
        return {name: unwrapped(item) for name, item in value.items()}
    if isinstance(value, list):
        return [unwrapped(item) for item in value]
    return value


def assert_still_answering(proxy, process):
    assert process.poll() is None, "the service died"
    assert setting(proxy, "resolve-mode") in ("exclusive", "prefer", "backup")


def test_fresh_service_has_defaults_and_says_what_is_missing(edns_proxy):
    proxy, _ = edns_proxy
    assert unwrapped(proxy.Configuration) == {
        "servers": [], "resolve-mode": "exclusive", "backend": "dnsconfd",
        "search-domains": [], "ca-names": []}
    assert validation(proxy) == ["error: no DNS server is given; add a line like "
                                "dns+tls://192.0.2.53#dot.example"]


def test_introspection_shows_the_typed_properties(edns_proxy, bus):
    introspectable = bus.get_proxy(EDNS.service_name, EDNS.object_path,
                                   interface_name="org.freedesktop.DBus.Introspectable")
    node = Gio.DBusNodeInfo.new_for_xml(introspectable.Introspect())
    interface = node.lookup_interface(EDNS.interface_name)
    types = {p.name: (p.signature, int(p.flags)) for p in interface.properties}
    readable = int(Gio.DBusPropertyInfoFlags.READABLE)
    readwrite = int(Gio.DBusPropertyInfoFlags.READABLE | Gio.DBusPropertyInfoFlags.WRITABLE)
    # One way to read and set the configuration, as Anaconda's modules have one property
    # per concept (the Security module's Realm structure); the lines it is judged for.
    assert types == {"Certificates": ("aa{sv}", readable), "Configuration": ("a{sv}", readwrite),
                     "JudgedLines": ("as", readable)}
    assert [m.name for m in interface.methods] == ["AddCertificate", "CheckServers",
                                                   "Validate"]
    add = interface.lookup_method("AddCertificate")
    assert ([(a.name, a.signature) for a in add.in_args], add.out_args) == (
        [("filename", "s"), ("pem", "s")], [])
    assert interface.lookup_method("Validate").out_args[0].signature == "a{sv}"
    check = interface.lookup_method("CheckServers")
    assert ([a.signature for a in check.in_args], [a.signature for a in check.out_args]) == \
        (["d"], ["aa{sv}"])


def test_servers_are_stored_normalized_and_valid(edns_proxy):
    proxy, _ = edns_proxy
    configure(proxy, servers=[
        server("192.0.2.53", "DOT.Corp.Example."),
        server("2001:db8::53", "dot.corp.example", port=8853),
        server("198.51.100.60", "dot.lab.example", domains=["Lab.Example"])])
    assert servers_of(proxy) == [
        ("192.0.2.53", 853, "dot.corp.example", [], True),
        ("2001:db8::53", 8853, "dot.corp.example", [], True),
        ("198.51.100.60", 853, "dot.lab.example", ["lab.example"], True)]
    # Valid, but Validate() judges for every installer line (the module for its own), and
    # before NetworkManager 1.54 dnsconfd never learns that port (line_rules.py).
    assert validation(proxy) == [
        "error: dns+tls://[2001:db8::53]:8853#dot.corp.example is on port 8853, but on EL9, "
        "EL10, Fedora 42 NetworkManager's dnsconfd plugin (before 1.54) does not pass a "
        "server's port to dnsconfd, which then asks port 853 in the installer's initramfs and "
        "in the installed system; serve it on port 853, or validate with --line=LINE for a "
        "line whose NetworkManager is 1.54 or later if only such lines install this kickstart"]


NEVER_QUERIED = ("is on loopback, which dnsconfd's Unbound never queries (dnsconfd writes "
                 "'do-not-query-address: 127.0.0.1/8' and Unbound's default "
                 "'do-not-query-localhost: yes' also excludes ::1); give the server's own "
                 "address on the network instead")


def test_validate_refuses_a_zone_served_only_on_loopback_and_warns_beside_one_asked(service):
    proxy = service.proxy
    configure(proxy, servers=[server("127.0.0.2", "dot.example")])
    assert validation(proxy) == [
        "error: all names would have no DNS: the only server for them, "
        "dns+tls://127.0.0.2#dot.example, " + NEVER_QUERIED]
    # Refused before any packet is sent.
    with pytest.raises(InvalidConfigurationError) as refused:
        proxy.CheckServers(1.0)
    assert "all names would have no DNS" in str(refused.value)
    configure(proxy, servers=[server("192.0.2.53", "dot.example"),
                              server("127.0.0.2", "dot.example"),
                              server("::1", "dot.lab.example", domains=["lab.example"])])
    assert validation(proxy) == [
        "error: the names in lab.example would have no DNS: the only server for them, "
        "dns+tls://[::1]#dot.lab.example, " + NEVER_QUERIED,
        "warning: dnsconfd's Unbound never queries the loopback server "
        "dns+tls://127.0.0.2#dot.example: dnsconfd writes 'do-not-query-address: "
        "127.0.0.1/8' and Unbound's default 'do-not-query-localhost: yes' also excludes ::1; "
        "give the server's own address on the network"]


@pytest.mark.parametrize("field, value, expected", [
    ("resolve_mode", "prefer", "prefer"),
    ("backend", "unbound", "unbound"),
    ("search_domains", ["Corp.Example", "bücher.example"],
     ["corp.example", "xn--bcher-kva.example"]),
    ("ca_names", ["corp-ca.pem", "lab_ca.pem"], ["corp-ca.pem", "lab_ca.pem"]),
])
def test_setting_a_field_stores_it_and_signals_the_configuration(edns_proxy, field, value,
                                                                 expected):
    proxy, _ = edns_proxy
    changes = []
    proxy.PropertiesChanged.connect(lambda iface, changed, invalid: changes.append(
        (iface, unwrapped(changed), invalid)))
    configure(proxy, **{field: value})
    assert setting(proxy, field.replace("_", "-")) == expected
    wait_for(lambda: changes, what="PropertiesChanged")
    [(interface, changed, invalidated)] = changes
    assert (interface, list(changed), invalidated) == (EDNS.interface_name, ["Configuration"],
                                                       [])
    assert changed["Configuration"] == unwrapped(proxy.Configuration)


def test_setting_servers_signals_the_new_list(edns_proxy):
    proxy, _ = edns_proxy
    changes = []
    proxy.PropertiesChanged.connect(lambda iface, changed, invalid: changes.append(changed))
    configure(proxy, servers=[server("192.0.2.53", "dot.example")])
    wait_for(lambda: changes, what="PropertiesChanged")
    assert list(changes[0]) == ["Configuration"]
    assert [(d["address"], d["port"], d["name"]) for d in unwrapped(changes[0])[
        "Configuration"]["servers"]] == [("192.0.2.53", 853, "dot.example")]


def test_the_whole_configuration_is_set_at_once_and_signalled(edns_proxy):
    proxy, _ = edns_proxy
    changes = []
    proxy.PropertiesChanged.connect(lambda iface, changed, invalid: changes.append(
        (iface, unwrapped(changed), invalid)))
    proxy.Configuration = configuration(
        servers=[server("192.0.2.53", "DOT.example")], resolve_mode="backup",
        search_domains=["Corp.Example"], ca_names=["corp-ca.pem"])
    read = unwrapped(proxy.Configuration)
    assert servers_of(proxy) == [("192.0.2.53", 853, "dot.example", [], True)]
    assert {name: value for name, value in read.items() if name != "servers"} == {
        "resolve-mode": "backup", "backend": "dnsconfd", "search-domains": ["corp.example"],
        "ca-names": ["corp-ca.pem"]}
    wait_for(lambda: changes, what="PropertiesChanged")
    # One signal with the whole new value.
    assert changes == [(EDNS.interface_name, {"Configuration": read}, [])]


@pytest.mark.parametrize("fields, refusal", [
    ({"backend": "bind"}, "'bind' is not a backend; use one of dnsconfd, unbound"),
    ({"ca_names": ["../x.pem"]}, "--ca=../x.pem must be a plain file name, without '/'"),
    ({"servers": [server("192.0.2.300", "dot.example")]}, "'192.0.2.300' is not an IPv4"),
])
def test_a_configuration_with_one_bad_part_is_refused_whole(edns_proxy, fields, refusal):
    proxy, process = edns_proxy
    configure(proxy, servers=[server("192.0.2.53", "dot.example")])
    before = unwrapped(proxy.Configuration)
    changes = []
    proxy.PropertiesChanged.connect(lambda *change: changes.append(change))
    given = dict({"servers": [server("198.51.100.1", "other.example")],
                  "resolve_mode": "prefer", "search_domains": ["lab.example"]}, **fields)
    with pytest.raises(InvalidValueError, match=refusal):
        proxy.Configuration = configuration(**given)
    assert unwrapped(proxy.Configuration) == before
    assert_still_answering(proxy, process)
    # Signals arrive in the order they were sent: the first to arrive is the next write's.
    configure(proxy, backend="unbound")
    wait_for(lambda: changes, what="PropertiesChanged")
    assert [unwrapped(change[1])["Configuration"]["backend"] for change in changes] == \
        ["unbound"]


def test_a_configuration_of_too_many_servers_is_refused_before_any_is_read(edns_proxy):
    proxy, _ = edns_proxy
    with pytest.raises(InvalidValueError, match="^%d DNS servers are too many; give at most "
                                                "%d$" % (MAX_SERVERS + 1, MAX_SERVERS)):
        proxy.Configuration = configuration(
            servers=[server("192.0.2.53", "dot.example")] * (MAX_SERVERS + 1))
    assert servers_of(proxy) == []


BAD_VALUES = [
    ("resolve_mode", "strict", "'strict' is not a resolve mode; use one of exclusive, "
                              "prefer, backup"),
    ("backend", "systemd-resolved", "'systemd-resolved' is not a backend; use one of "
                                    "dnsconfd, unbound"),
    # Refused at the edge, quoted escaped (dbus/structures.py checked_name).
    ("search_domains", ["corp.example\nservers=dns+udp://203.0.113.1"],
     "the search domain 'corp.example\\nservers=dns+udp://203.0.113.1' holds a control "
     "character"),
    ("search_domains", ["a,b.example"], "is not a valid DNS search domain"),
    ("ca_names", ["../../etc/shadow"], "--ca=../../etc/shadow must be a plain file name"),
    ("ca_names", ["a.pem,b.pem"], "--ca=a.pem,b.pem holds ','"),
    ("servers", [server("192.0.2.300", "dot.example")], "'192.0.2.300' is not an IPv4 or "
                                                        "IPv6 address"),
    ("servers", [server("192.0.2.53", "dot#evil.example")], "is not a valid DNS TLS name"),
    ("servers", [server("192.0.2.53", "dot.example", domains=["lab]"])],
     "is not a valid DNS domain"),
    ("servers", [server("fe80::1", "dot.example")], "needs its interface"),
    ("servers", [server("192.0.2.53", "dot.example", tls=False)],
     "a plaintext server cannot carry a TLS name"),
    ("servers", [{"address": get_variant(Str, "192.0.2.53"),
                  "bogus": get_variant(Bool, True)}], "there is no field 'bogus'; the fields are "
                                                   "address, domains, name, port, tls"),
    ("servers", [{"address": get_variant(Str, "192.0.2.53"),
                  "port": get_variant(Str, "853")}], "the field 'port' must be of type 'q', not "
                                                     "'s'"),
    ("servers", [{"address": get_variant(Str, "192.0.2.53"),
                  "domains": get_variant(Str, "lab")}], "the field 'domains' must be of type "
                                                        "'as', not 's'"),
    ("servers", [{"address": get_variant(Str, "192.0.2.53"),
                  "tls": get_variant(Str, "no")}], "the field 'tls' must be of type 'b', not "
                                                   "'s'"),
]


@pytest.mark.parametrize("field, value, message", BAD_VALUES,
                         ids=["%s-%d" % (b[0], i) for i, b in enumerate(BAD_VALUES)])
def test_bad_value_is_refused_and_the_service_keeps_answering(edns_proxy, field, value,
                                                              message):
    proxy, process = edns_proxy
    before = unwrapped(proxy.Configuration)
    with pytest.raises(InvalidValueError) as raised:
        configure(proxy, **{field: value})
    assert message in str(raised.value)
    assert unwrapped(proxy.Configuration) == before
    assert_still_answering(proxy, process)


# Every field of a server a client sends (a DotServerData), with values of
# other D-Bus types: each is refused naming the field and both types, nothing is stored.
WRONG_TYPES = [
    ("address", GLib.Variant("i", 1)), ("address", GLib.Variant("as", ["192.0.2.53"])),
    ("address", GLib.Variant("ay", b"192.0.2.53")),
    ("port", GLib.Variant("s", "853")), ("port", GLib.Variant("i", 853)),
    ("port", GLib.Variant("u", 853)), ("port", GLib.Variant("x", 853)),
    ("port", GLib.Variant("d", 853.0)), ("port", GLib.Variant("b", True)),
    ("name", GLib.Variant("b", True)), ("name", GLib.Variant("as", ["dot.example"])),
    ("name", GLib.Variant("o", "/dot/example")),
    ("domains", GLib.Variant("s", "lab")), ("domains", GLib.Variant("ay", b"lab")),
    ("domains", GLib.Variant("av", [GLib.Variant("s", "lab")])),
    ("domains", GLib.Variant("aas", [["lab"]])),
    ("tls", GLib.Variant("s", "no")), ("tls", GLib.Variant("i", 0)),
    ("tls", GLib.Variant("y", 0)), ("tls", GLib.Variant("as", [])),
]


@pytest.mark.parametrize("name, value", WRONG_TYPES,
                         ids=["%s-%s" % (n, v.get_type_string()) for n, v in WRONG_TYPES])
def test_a_server_field_of_another_type_is_refused(edns_proxy, name, value):
    proxy, process = edns_proxy
    configure(proxy, servers=[server("192.0.2.53", "dot.example")])
    fields = {"address": get_variant(Str, "192.0.2.54"), "name": get_variant(Str, "dot.example"),
              "port": get_variant(UInt16, 853), "domains": GLib.Variant("as", []),
              "tls": get_variant(Bool, True), name: value}
    expected = DotServerData.to_structure(DotServerData())[name].get_type_string()
    with pytest.raises(InvalidValueError) as raised:
        configure(proxy, servers=[fields])
    assert str(raised.value) == "the field %r must be of type %r, not %r" % (
        name, expected, value.get_type_string())
    assert servers_of(proxy) == [("192.0.2.53", 853, "dot.example", [], True)]
    assert_still_answering(proxy, process)


@pytest.mark.parametrize("field, value", [
    ("servers", GLib.Variant("as", ["192.0.2.53"])), ("resolve-mode", GLib.Variant("as", [])),
    ("backend", GLib.Variant("i", 1)), ("search-domains", GLib.Variant("s", "lab")),
    ("ca-names", GLib.Variant("s", "ca.pem"))])
def test_a_configuration_field_of_another_type_is_refused(edns_proxy, field, value):
    proxy, process = edns_proxy
    before = unwrapped(proxy.Configuration)
    expected = configuration()[field].get_type_string()
    with pytest.raises(InvalidValueError) as raised:
        proxy.Configuration = {field: value}
    assert str(raised.value) == "the field %r must be of type %r, not %r" % (
        field, expected, value.get_type_string())
    assert unwrapped(proxy.Configuration) == before
    assert_still_answering(proxy, process)


@pytest.mark.parametrize("value", [GLib.Variant("as", []), GLib.Variant("s", "unbound"),
                                   GLib.Variant("aa{sv}", [])])
def test_a_configuration_of_another_type_is_refused_by_gdbus(edns_proxy, bus, value):
    proxy, process = edns_proxy
    before = unwrapped(proxy.Configuration)
    with pytest.raises(GLib.Error) as raised:
        set_property_variant(bus, "Configuration", value)
    assert Gio.DBusError.get_remote_error(raised.value) == \
        "org.freedesktop.DBus.Error.InvalidArgs"
    assert "Expected type" in raised.value.message
    assert unwrapped(proxy.Configuration) == before
    assert_still_answering(proxy, process)


def test_bad_value_travels_as_the_invalid_value_dbus_error(edns_proxy, bus):
    proxy, process = edns_proxy
    with pytest.raises(GLib.Error) as raised:
        set_property_variant(bus, "Configuration",
                             GLib.Variant("a{sv}", {"backend": GLib.Variant("s", "bind")}))
    assert Gio.DBusError.get_remote_error(raised.value) == INVALID_VALUE_ERROR
    assert "'bind' is not a backend" in raised.value.message
    assert_still_answering(proxy, process)


def test_refused_value_sends_no_change_signal(edns_proxy):
    proxy, _ = edns_proxy
    changes = []
    proxy.PropertiesChanged.connect(lambda iface, changed, invalid: changes.append(
        unwrapped(changed)))
    with pytest.raises(InvalidValueError):
        configure(proxy, backend="bind")
    configure(proxy, resolve_mode="backup")
    wait_for(lambda: changes, what="PropertiesChanged")
    assert [change["Configuration"]["resolve-mode"] for change in changes] == ["backup"]


# What the module's report says of --resolve-mode=backup, as validate does on the header
# line (tests/test_peer_dnsconfd.py holds the rule's cases).
BACKUP_PLAINTEXT = (
    "warning: --resolve-mode=backup lets plaintext DNS leave the host for every name: "
    "dnsconfd may use each connection's own DNS servers (from DHCP or router advertisements, "
    "in plaintext) beside these servers, for any name; use --resolve-mode=exclusive for no "
    "plaintext query at all")


SEARCH_REPLACES = (
    "warning: --search=%s: on Fedora 44, Anaconda main (NetworkManager 1.56 and later) these "
    "become the only search domains, replacing those of the connections (DHCP's, a network "
    "--ipv4-dns-search), while on EL9, EL10, Fedora 42, Fedora 43 they are added to them; "
    "list every search domain the system needs in --search")


def test_validate_reports_rules_that_span_fields(edns_proxy):
    proxy, _ = edns_proxy
    configure(proxy, servers=[server("192.0.2.53", tls=False, port=53),
                              server("192.0.2.54", "dot.example", domains=["lab.example"])],
              ca_names=["corp-ca.pem"], search_domains=["corp.example", "corp.example"])
    assert validation(proxy) == [
        "error: --ca=corp-ca.pem names no %certificate --filename (there is no %certificate at "
        "all); add that %certificate or fix the name",
        "error: the plaintext server dns+udp://192.0.2.53 is refused with "
        "--resolve-mode=exclusive; use dns+tls://ADDR#NAME (plaintext is allowed only with "
        "--resolve-mode=backup)",
        "error: --search lists a name twice",
        SEARCH_REPLACES % "corp.example,corp.example",
    ]
    configure(proxy, resolve_mode="backup", ca_names=[], search_domains=["corp.example"])
    assert validation(proxy) == [BACKUP_PLAINTEXT, SEARCH_REPLACES % "corp.example"]


def test_server_without_a_port_gets_the_default_port_of_its_kind(edns_proxy):
    proxy, _ = edns_proxy
    # The plaintext servers serve their own domain: beside a DoT server dnsconfd
    # would never use them (a warning).
    lab = ["lab.example"]
    configure(proxy, resolve_mode="backup", servers=[
        server("192.0.2.53", "dot.example"), server("192.0.2.54", tls=False, domains=lab),
        server("192.0.2.55", tls=False, port=0, domains=lab)])
    assert [(address, port) for address, port, _, _, _ in servers_of(proxy)] == [
        ("192.0.2.53", 853), ("192.0.2.54", 53), ("192.0.2.55", 53)]
    assert validation(proxy) == [BACKUP_PLAINTEXT]


def test_server_port_keeps_its_dbus_type(edns_proxy):
    proxy, _ = edns_proxy
    configure(proxy, servers=[{"address": get_variant(Str, "192.0.2.53"),
                               "name": get_variant(Str, "dot.example"),
                               "port": get_variant(UInt16, 8853)}])
    [read] = ConfigurationData.from_structure(proxy.Configuration).servers
    assert read["port"].get_type_string() == "q"
    assert servers_of(proxy) == [("192.0.2.53", 8853, "dot.example", [], True)]


# Certificates.

def test_added_certificate_is_listed_and_signalled_as_invalidated_and_can_be_named(
        edns_proxy, test_ca):
    proxy, _ = edns_proxy
    changes = []
    proxy.PropertiesChanged.connect(lambda iface, changed, invalid: changes.append(
        (iface, unwrapped(changed), invalid)))
    proxy.AddCertificate("corp-ca.pem", "\n" + test_ca.pem.replace("\n", "\r\n") + "\n\n")
    added = {"filename": "corp-ca.pem", "cert": test_ca.pem.rstrip("\n"),
             "dir": "/etc/pki/dns/", "type": "", "added": True}
    assert plain_structures(proxy.Certificates) == [added]
    wait_for(lambda: changes, what="PropertiesChanged")
    # The change without the value (it can be megabytes): a client reads it when it wants.
    assert changes == [(EDNS.interface_name, {}, ["Certificates"])]
    configure(proxy, servers=[server("192.0.2.53", "dot.example")], ca_names=["corp-ca.pem"])
    assert validation(proxy) == []


def test_validate_says_a_bundle_of_the_intermediate_alone_needs_its_root(service, chain_pki):
    # Each added certificate is a CA (AddCertificate judges it alone); the bundle they make
    # is judged as OpenSSL builds a chain through it (certificates/chains.py).
    proxy = service.proxy
    proxy.AddCertificate("issuing.pem", chain_pki.forms["intermediate"])
    configure(proxy, servers=[server("192.0.2.53", "dot.example")], ca_names=["issuing.pem"])
    assert validation(proxy) == [
        "error: the intermediate CA 'CN=Corp Issuing CA' is in this bundle without 'CN=Corp "
        "Root CA', the CA that issued it: OpenSSL, and so Unbound, accepts only a chain that "
        "ends at a self-signed root CA of the bundle (it takes no partial chain); add the "
        "root CA 'CN=Corp Root CA' (with any CA between) to this bundle"]
    with pytest.raises(InvalidConfigurationError, match="is in this bundle without"):
        proxy.CheckServers(1.0)
    proxy.AddCertificate("root.pem", chain_pki.forms["root"])
    configure(proxy, ca_names=["root.pem", "issuing.pem"])
    assert validation(proxy) == []


def test_a_root_whose_trust_settings_reject_serverauth_is_refused_when_added(service,
                                                                             chain_pki):
    with pytest.raises(InvalidValueError, match="the PEM text of rejected.pem, line 1: the "
                       "trust settings of the TRUSTED CERTIFICATE CN=Corp Root CA reject "
                       r"server authentication \(serverAuth\)"):
        service.proxy.AddCertificate("rejected.pem", chain_pki.forms["root -addreject serverAuth"])


def test_kickstart_certificates_come_first_and_keep_their_names(bus, bus_address, tmp_path,
                                                                 test_ca):
    kickstart = tmp_path / "ks.cfg"
    kickstart.write_text(certificate_section(test_ca.pem) +
                         "%addon org_edns_addon --ca=dns-ca.pem\n192.0.2.53#dot.example\n"
                         "%end\n")
    with running_template_service(bus, bus_address, kickstart) as (proxy, process):
        with pytest.raises(InvalidValueError, match="%certificate --filename=dns-ca.pem exists "
                                                    "already; choose another name"):
            proxy.AddCertificate("dns-ca.pem", certs.make_ca("Other CA").pem)
        proxy.AddCertificate("other-ca.pem", certs.make_ca("Other CA").pem)
        assert [(c["filename"], c["dir"], c["added"])
                for c in plain_structures(proxy.Certificates)] == [
            ("dns-ca.pem", "/etc/pki/dns/", False), ("other-ca.pem", "/etc/pki/dns/", True)]
        assert_still_answering(proxy, process)


BAD_CERTIFICATES = [
    ("corp-ca.pem", lambda ca: ca.pem + ca.key_pem,
     "the PEM text of corp-ca.pem, line 11: a private key is pasted here"),
    ("corp-ca.pem", lambda ca: ca.key_pem, "a private key is pasted here"),
    ("corp-ca.pem", lambda ca: certs.make_server(ca).pem,
     "the PEM text of corp-ca.pem, line 1: Not a valid CA certificate: CN=dot.test "
     "(basicConstraints CA:TRUE is missing)"),
    ("corp-ca.pem", lambda ca: certs.make_ca("No Sign", key_cert_sign=False).pem,
     "keyUsage lacks keyCertSign"),
    ("corp-ca.pem", lambda ca: certs.make_ca("Old CA", not_before=certs.now() - 10 * certs.DAY,
                                             not_after=certs.now() - certs.DAY).pem,
     "expired on"),
    ("corp-ca.pem", lambda ca: "garbage\n", "no -----BEGIN CERTIFICATE----- block is found"),
    ("corp-ca.pem", lambda ca: ca.pem.replace("-----END CERTIFICATE-----", ""),
     "has no matching -----END line"),
    ("corp-ca.pem", lambda ca: "", "no -----BEGIN CERTIFICATE----- block is found"),
    ("../../etc/shadow", lambda ca: ca.pem, "--filename=../../etc/shadow must be a plain "
                                            "file name"),
    ("corp\nca.pem", lambda ca: ca.pem, "holds a control character"),
    ("corp-ca.pem", lambda ca: "x" * (1024 * 1024 + 1), "larger than 1024 KiB"),
]


@pytest.mark.parametrize("filename, make_text, message", BAD_CERTIFICATES,
                         ids=["%d" % i for i in range(len(BAD_CERTIFICATES))])
def test_bad_certificate_is_refused_and_the_service_keeps_answering(edns_proxy, test_ca,
                                                                    filename, make_text,
                                                                    message):
    proxy, process = edns_proxy
    with pytest.raises(InvalidValueError) as raised:
        proxy.AddCertificate(filename, make_text(test_ca))
    assert message in str(raised.value)
    assert proxy.Certificates == []
    assert_still_answering(proxy, process)


def test_text_around_the_block_is_passed_over_and_never_reaches_the_kickstart(edns_proxy,
                                                                             test_ca):
    # OpenSSL's PEM reader passes over what is outside a block (crypto/pem/pem_lib.c
    # get_name); what the module keeps is the block alone, so no "%end" it was sent can
    # end the %certificate it generates.
    proxy, _ = edns_proxy
    proxy.AddCertificate("corp-ca.pem", test_ca.pem + "%end\n%post\nrm -rf /\n%end\n")
    [added] = plain_structures(proxy.Certificates)
    assert added["cert"] == test_ca.pem.rstrip("\n")


def test_a_certificate_name_is_refused_twice(edns_proxy, test_ca):
    proxy, process = edns_proxy
    proxy.AddCertificate("corp-ca.pem", test_ca.pem)
    with pytest.raises(InvalidValueError, match="%certificate --filename=corp-ca.pem exists "
                                                "already"):
        proxy.AddCertificate("corp-ca.pem", certs.make_ca("Other CA").pem)
    assert [c["filename"] for c in plain_structures(proxy.Certificates)] == ["corp-ca.pem"]
    assert_still_answering(proxy, process)


def test_a_certificate_name_too_long_for_a_file_is_refused_over_d_bus(bus, bus_address,
                                                                      test_ca):
    name = "x" * 252 + ".pem"
    with running_template_service(bus, bus_address) as (proxy, process):
        with pytest.raises(InvalidValueError, match="is longer than a file name may be "
                           r"\(255 bytes\); choose a shorter name"):
            proxy.AddCertificate(name, test_ca.pem)
        assert proxy.Certificates == []
        assert process.poll() is None


def add_certificate_seconds(proxy, pid, pem, runs=3):
    """The least CPU time the service PID spent on one of RUNS AddCertificate calls with
    PEM (each refused), in seconds."""
    times = []
    for _ in range(runs):
        start = cpu_seconds(pid)
        with pytest.raises(InvalidValueError, match="has no matching -----END line"):
            proxy.AddCertificate("attack.pem", pem)
        times.append(cpu_seconds(pid) - start)
    return min(times)


def test_begin_lines_without_end_take_time_in_proportion_to_their_size(edns_proxy):
    proxy, process = edns_proxy
    small = BEGIN * (16 * 1024 // len(BEGIN))
    large = BEGIN * (256 * 1024 // len(BEGIN))
    ratio = add_certificate_seconds(proxy, process.pid, large) / \
        add_certificate_seconds(proxy, process.pid, small)
    # 16 times the text: a linear reader takes at most ~16 times as long (the fixed cost of
    # a call makes it less); the old rescan to the end for every BEGIN took 256 times.
    assert ratio < 64, "256 KiB took %.0f times as long as 16 KiB" % ratio
    assert proxy.Certificates == [] and process.poll() is None


def set_property_variant(bus, name, value):
    """Set property NAME to the GLib.Variant VALUE with a plain call (built in C: dasbus
    takes longer to build 100 000 structures than the service needs to refuse them)."""
    bus.connection.call_sync(EDNS.service_name, EDNS.object_path, PROPERTIES, "Set",
                             GLib.Variant("(ssv)", (EDNS.interface_name, name, value)),
                             None, 0, -1, None)


def servers_variant(one, count):
    """A Configuration of COUNT times the server ONE (a variant), built in C."""
    return GLib.Variant("a{sv}", {"servers": GLib.Variant.new_array(None, [one] * count)})


def test_a_write_of_100000_servers_is_refused_before_any_is_read(edns_proxy, bus):
    proxy, process = edns_proxy
    configure(proxy, servers=[server("192.0.2.53", "dot.example")])
    one = get_variant(Structure, server("192.0.2.54", "dot.example"))
    with pytest.raises(GLib.Error) as raised:
        set_property_variant(bus, "Configuration", servers_variant(one, 100000))
    # Refused at once, never "Timeout was reached" (which a caller cannot tell from a write
    # that was applied).
    assert remote_error(raised.value) == INVALID_VALUE_ERROR
    assert re.search(r": the values of this call take 108000\d\d bytes; give at most %d$"
                     % MAX_DBUS_CALL_BYTES, raised.value.message), raised.value.message
    # Counted before dasbus reads one: a server whose port is text would be refused by
    # name once read.
    unread = GLib.Variant("a{sv}", {"address": GLib.Variant("s", "192.0.2.54"),
                                    "port": GLib.Variant("s", "853")})
    with pytest.raises(GLib.Error) as raised:
        set_property_variant(bus, "Configuration", servers_variant(unread, 1000))
    assert raised.value.message.endswith("1000 DNS servers are too many; give at most %d"
                                         % MAX_SERVERS)
    assert servers_of(proxy) == [("192.0.2.53", 853, "dot.example", [], True)]
    set_property_variant(bus, "Configuration", servers_variant(one, MAX_SERVERS))
    assert len(servers_of(proxy)) == MAX_SERVERS and process.poll() is None


@pytest.mark.parametrize("field", ["search_domains", "ca_names"])
def test_a_list_of_too_many_names_is_refused(edns_proxy, field):
    proxy, _ = edns_proxy
    with pytest.raises(InvalidValueError, match="%d .* are too many; give at most %d" % (
            MAX_NAMES_PER_LIST + 1, MAX_NAMES_PER_LIST)):
        configure(proxy, **{field: ["n%d.example" % i for i in range(MAX_NAMES_PER_LIST + 1)]})
    assert setting(proxy, field.replace("_", "-")) == []


@pytest.mark.parametrize("servers, per_server", [(1, MAX_NAMES_PER_LIST + 1),
                                                  (MAX_SERVERS, 5)])
def test_too_many_routed_domains_are_refused_before_any_is_read(edns_proxy, servers,
                                                                per_server):
    proxy, _ = edns_proxy
    listed = [server("192.0.2.%d" % (number % 250 + 1), "dot.example",
                     domains=["d%d-%d.example" % (number, i) for i in range(per_server)])
              for number in range(servers)]
    with pytest.raises(InvalidValueError) as raised:
        configure(proxy, servers=listed)
    assert str(raised.value) == "%d routed domains are too many; give at most %d" % (
        servers * per_server, MAX_NAMES_PER_LIST)
    assert servers_of(proxy) == []


@pytest.mark.parametrize("field, value, start", HUGE_VALUES,
                         ids=["%s-%d" % (v[0], i) for i, v in enumerate(HUGE_VALUES)])
def test_a_refused_huge_value_is_echoed_short(edns_proxy, field, value, start):
    proxy, process = edns_proxy
    with pytest.raises(InvalidValueError) as raised:
        configure(proxy, **{field: value})
    message = str(raised.value)
    assert message.startswith(start) and "… (1000000 characters)" in message
    assert len(message) < 2 * ECHO_MAX_CHARS + 150, message
    assert process.poll() is None


def test_a_huge_certificate_file_name_is_echoed_short(edns_proxy, test_ca):
    proxy, _ = edns_proxy
    with pytest.raises(InvalidValueError) as raised:
        proxy.AddCertificate(HUGE, test_ca.pem)
    assert str(raised.value) == (
        "the certificate file name '%s… (1000000 characters) is longer than %d characters; "
        "no certificate file name is" % ("x" * (ECHO_MAX_CHARS - 1), MAX_DBUS_NAME_CHARS))


def test_a_10_mb_value_is_refused_unread_in_one_short_sentence(edns_proxy):
    proxy, process = edns_proxy
    for field in ("resolve_mode", "backend"):
        with pytest.raises(InvalidValueError) as raised:
            configure(proxy, **{field: "x" * 10000000})
        assert re.fullmatch(r"the values of this call take 10000\d\d\d bytes; give at most %d"
                            % MAX_DBUS_CALL_BYTES, str(raised.value)), str(raised.value)
    with pytest.raises(InvalidValueError, match="^the values of this call take 10000"):
        proxy.AddCertificate("corp-ca.pem", "x" * 10000000)
    assert setting(proxy, "resolve-mode") == "exclusive" and process.poll() is None


def test_repeated_adds_signal_the_change_without_the_list(edns_proxy):
    proxy, _ = edns_proxy
    changes = []
    proxy.PropertiesChanged.connect(lambda iface, changed, invalid: changes.append(
        (iface, dict(changed), invalid)))
    cas = [certs.make_ca("CA %d" % number) for number in range(100)]
    for number, ca in enumerate(cas):
        proxy.AddCertificate("ca%d.pem" % number, ca.pem)
    wait_for(lambda: len(changes) == len(cas), what="a PropertiesChanged per add")
    # The same few bytes after the 100th add as after the first (the list was sent whole:
    # 2 000 adds took 917 s).
    assert changes == [(EDNS.interface_name, {}, ["Certificates"])] * len(cas)
    assert [c["filename"] for c in plain_structures(proxy.Certificates)] == \
        ["ca%d.pem" % number for number in range(len(cas))]


@pytest.mark.parametrize("form", ["comments", "text", "trusted"])
def test_add_certificate_takes_every_form_the_cli_takes_and_keeps_its_trust_settings(
        edns_proxy, peer_pem_forms, form):
    # One verdict with 'edns-addon validate' (tests/test_cli_validate.py runs the same
    # forms as a --ca certificate).
    proxy, _ = edns_proxy
    proxy.AddCertificate("corp-ca.pem", peer_pem_forms.forms()[form])
    [added] = plain_structures(proxy.Certificates)
    expected = peer_pem_forms.trusted if form == "trusted" else peer_pem_forms.ca.pem
    assert added["cert"] == expected.rstrip("\n")
    configure(proxy, servers=[server("192.0.2.53", "dot.corp.example")],
              ca_names=["corp-ca.pem"])
    assert validation(proxy) == []


def test_add_certificate_refuses_a_private_key_beside_any_form(edns_proxy, peer_pem_forms):
    proxy, _ = edns_proxy
    for text in peer_pem_forms.forms().values():
        with pytest.raises(InvalidValueError, match="a private key is pasted here"):
            proxy.AddCertificate("corp-ca.pem", text + peer_pem_forms.ca.key_pem)
    assert proxy.Certificates == []
