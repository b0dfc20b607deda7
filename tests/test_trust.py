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

"""What authenticates the DNS servers (trust.py): one decision, and the rules about it."""

import pytest
from hypothesis import given, strategies as st

from lab.kickstarts import anchor_section, certificate_section, edns_section
from lab import certs
from org_edns_addon import constants as c
from org_edns_addon.certificates import KickstartCertificate
from org_edns_addon.model import DotServer, EdnsConfig
from org_edns_addon.trust import _first_below, dot_trust, trust_problems
from tests.ks_fixtures import line_of, parse

GOOD = "dns+tls://192.0.2.53#dot.corp.example"
CONFIG = EdnsConfig(servers=(DotServer.parse_uri(GOOD),))


def ca(filename, pem, directory="/etc/pki/dns/", cert_type=None):
    return KickstartCertificate.from_section(filename, pem, directory, cert_type)


def test_a_self_signed_v1_anchor_is_a_ca_as_openssl_takes_it(write_ks, tmp_path):
    # rhinstaller/kickstart-tests' certificate tests carry such an anchor; OpenSSL's
    # check_ca() (crypto/x509/v3_purp.c) calls a self-signed v1 certificate a CA.
    v1 = certs.make_v1_root("V1 Root", tmp_path)
    path = write_ks(anchor_section(v1, "v1.pem") + edns_section(GOOD))
    result = parse(path)
    assert result.errors == []
    assert [block.subject for block in result.staging_input().trust.anchors] == ["CN=V1 Root"]


@pytest.mark.parametrize("directory, anchor", [
    ("/etc/pki/ca-trust/source/anchors/", True), ("/etc/pki/ca-trust/source/anchors", True),
    ("//etc/pki/ca-trust/source/./anchors/", True), ("/etc/pki/ca-trust/source/anchors/x/", False),
    ("/etc/pki/ca-trust/source/", False), ("/etc/pki/dns/", False)])
def test_a_certificate_in_the_anchors_directory_is_an_anchor_also_without_type(pems, directory,
                                                                             anchor):
    # EL9's pykickstart has no --type: anchors are placed with --dir, as before --type.
    cert = ca("root.pem", pems.ca.pem, directory)
    assert cert.is_anchor is anchor
    trust = dot_trust(CONFIG, [cert])
    assert (trust.path, len(trust.anchors)) == (c.SYSTEM_CA_BUNDLE_PATH, 1 if anchor else 0)


def test_without_an_encrypted_dns_section_no_anchor_is_judged_as_a_dns_ca(write_ks, pems):
    # The certificates belong to Anaconda's Security module alone then.
    path = write_ks(anchor_section(pems.not_ca.pem, "leaf.pem"))
    assert [str(p) for p in parse(path).errors] == []


def test_an_anchor_that_is_no_ca_is_an_error_where_it_authenticates_servers(write_ks, pems):
    text = anchor_section(pems.not_ca.pem, "leaf.pem") + edns_section(GOOD)
    path = write_ks(text)
    assert [str(p) for p in parse(path).errors] == [
        "%s:%d: error: Not a valid CA certificate: CN=Not a CA (basicConstraints CA:TRUE is "
        "missing); give the CA that issued the DNS servers' certificates"
        % (path, line_of(text, "BEGIN CERTIFICATE"))]


def test_a_certificate_at_the_bundle_path_without_ca_is_the_trust_and_a_warning(write_ks,
                                                                                 pems):
    text = certificate_section(pems.ca.pem, "tls-ca-bundle.pem",
                               "--dir=/etc/pki/dns/extracted/pem/") + edns_section(GOOD)
    path = write_ks(text)
    result = parse(path)
    assert [str(p) for p in result.problems] == [
        "%s:1: warning: this certificate is placed at %s, which dnsconfd reads before the "
        "system trust store: it alone will authenticate the DNS servers; name it in --ca to "
        "say so, or place it elsewhere" % (path, c.DOT_CA_BUNDLE_PATH)]
    trust = result.staging_input().trust
    assert (trust.path, trust.bundle, trust.explicit) == (c.DOT_CA_BUNDLE_PATH, None, True)


def test_a_certificate_at_the_bundle_path_beside_other_ca_names_is_refused(write_ks, pems):
    text = (certificate_section(pems.ca.pem, "tls-ca-bundle.pem",
                                "--dir=/etc/pki/dns/extracted/pem/")
            + certificate_section(pems.second_ca.pem, "corp.pem")
            + edns_section(GOOD, options="--ca=corp.pem"))
    path = write_ks(text)
    assert [str(p) for p in parse(path).errors] == [
        "%s:1: error: this certificate is placed at %s, where the DoT CA bundle of "
        "--ca=corp.pem is written; place it elsewhere (like --dir=/etc/pki/dns/) and name it "
        "in --ca" % (path, c.DOT_CA_BUNDLE_PATH)]


@pytest.mark.parametrize("directory, filename, written", [
    ("/etc/NetworkManager/conf.d", "60-edns-global-dns.conf", c.NM_KEYFILE_PATH),
    ("/etc/dracut.conf.d", "60-edns.conf", c.DRACUT_CONF_PATH),
    ("/", "edns-ks.cfg", c.OVERLAY_KICKSTART_PATH),
])
def test_a_certificate_on_a_file_the_addon_writes_is_refused(write_ks, pems, directory,
                                                             filename, written):
    path = write_ks(certificate_section(pems.ca.pem, filename, "--dir=%s" % directory) +
                    edns_section(GOOD))
    assert [str(p) for p in parse(path).errors] == [
        "%s:1: error: --dir and --filename place this certificate at %s, a file this addon "
        "writes; choose another --dir or --filename" % (path, written)]


def test_a_certificate_where_another_file_needs_a_directory_is_refused(write_ks, pems):
    text = (certificate_section(pems.ca.pem, "pki", "--dir=/etc") +
            certificate_section(pems.second_ca.pem, "corp.pem") + edns_section(GOOD))
    path = write_ks(text)
    assert [str(p) for p in parse(path).errors] == [
        "%s:1: error: --dir and --filename place this certificate at /etc/pki, but "
        "/etc/pki/dns/extracted/pem/tls-ca-bundle.pem must be written below that path, as a "
        "directory; choose another --dir or --filename" % path]


def test_the_trust_with_ca_is_the_named_certificates_in_ca_order(pems):
    first, second = ca("a.pem", pems.ca.pem), ca("b.pem", pems.second_ca.pem)
    trust = dot_trust(EdnsConfig(servers=CONFIG.servers, ca_names=("b.pem", "a.pem")),
                      [first, second])
    assert trust.bundle == (pems.second_ca.pem + pems.ca.pem).encode()
    assert trust.path == c.DOT_CA_BUNDLE_PATH


def test_problems_of_certificates_given_outside_a_kickstart_have_no_place(pems):
    problems = trust_problems(EdnsConfig(servers=CONFIG.servers, ca_names=("leaf.pem",)),
                              [ca("leaf.pem", pems.not_ca.pem)])
    assert [(p.filename, p.lineno, p.message.split(":")[0]) for p in problems] == [
        (None, None, "Not a valid CA certificate")]


def test_a_file_name_with_a_space_is_one_name_in_certificate_and_ca(write_ks, pems):
    # The --filename bug: the same name validated as a %certificate was refused in --ca.
    text = (certificate_section(pems.ca.pem, '"ca cert.pem"') +
            edns_section(GOOD, options="'--ca=ca cert.pem'"))
    result = parse(write_ks(text))
    assert result.errors == []
    assert result.staging_input().trust.bundle == pems.ca.pem.encode()


@pytest.mark.parametrize("ca_names, placed, said", [
    (("corp.pem",), "/etc/pki/dns/", "corp.pem (--ca) alone authenticates the DNS servers, "
     "as the bundle %s." % c.DOT_CA_BUNDLE_PATH),
    ((), c.DOT_CA_BUNDLE_PATH.rsplit("/", 1)[0], "tls-ca-bundle.pem alone authenticates the "
     "DNS servers; it is placed at %s." % c.DOT_CA_BUNDLE_PATH),
    ((), c.CA_TRUST_ANCHORS_DIR, "The system trust store and the anchor root.pem authenticate "
     "the DNS servers."),
    ((), "/etc/pki/elsewhere/", "The system trust store authenticates the DNS servers."),
])
def test_the_trust_says_in_words_what_authenticates_the_servers(pems, ca_names, placed, said):
    name = "corp.pem" if ca_names else ("tls-ca-bundle.pem" if "dns" in placed else "root.pem")
    config = EdnsConfig(servers=CONFIG.servers, ca_names=ca_names)
    assert dot_trust(config, [ca(name, pems.ca.pem, placed)]).describe() == said


# Which certificate stands in another path's way: found in one pass over all paths.
_PATHS = st.lists(st.lists(st.sampled_from(["a", "b", "ab", "etc", "pki"]), min_size=1,
                           max_size=4).map(lambda parts: "/" + "/".join(parts)), max_size=12)


@given(_PATHS, st.sampled_from(["/a", "/a/b", "/etc", "/ab", "/etc/pki/a", "/b/ab"]))
def test_the_first_path_below_a_directory_is_the_first_in_order(paths, directory):
    below = [path for path in paths if path.startswith(directory + "/")]
    assert _first_below(paths).get(directory) == (below[0] if below else None)
