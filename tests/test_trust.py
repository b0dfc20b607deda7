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
from org_edns_addon.certificates.kickstart import KickstartCertificate
from org_edns_addon.model import DotServer, EdnsConfig
from org_edns_addon.problems import ModelError
from org_edns_addon.state import EdnsState
from org_edns_addon.trust import _first_below, dot_trust, trust_problems
from tests.conftest import run_cli
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
     "as the bundle %s. In it: the root CA 'CN=Corp DNS CA'." % c.DOT_CA_BUNDLE_PATH),
    ((), c.DOT_CA_BUNDLE_PATH.rsplit("/", 1)[0], "tls-ca-bundle.pem alone authenticates the "
     "DNS servers; it is placed at %s. In it: the root CA 'CN=Corp DNS CA'."
     % c.DOT_CA_BUNDLE_PATH),
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


# --- a bundle as strict as Unbound's tls-cert-bundle loading, and no stricter ----------

UNUSABLE = ("; only a warning, as another certificate of what authenticates the DNS servers "
            "can authenticate them and OpenSSL (Unbound's tls-cert-bundle) verifies through "
            "that one: remove this one from the bundle")
HIDDEN = ("OpenSSL never reads this PEM block: the non-ASCII character U+FEFF hides its "
          "-----BEGIN line (a byte order mark is taken only before the first block and right "
          "after an -----END line); remove that character")


def _said(forms, case):
    """What validate says of each case: [(severity, the BEGIN line it is on (the n-th of
    the kickstart), the message)]."""
    expired = "the certificate CN=Old CA expired on %s; replace it with a current one" % (
        forms.expired.not_after.strftime("%Y-%m-%d %H:%M:%S UTC"))
    not_ca = ("Not a valid CA certificate: CN=Leaf (basicConstraints CA:TRUE is missing); "
              "give the CA that issued the DNS servers' certificates")
    return {
        "an expired CA beside the CA": [("warning", 1, expired + UNUSABLE)],
        "a CA:FALSE certificate beside the CA": [("warning", 1, not_ca + UNUSABLE)],
        "a byte order mark before the first BEGIN line": [],
        "a byte order mark that hides a block after the CA": [("warning", 2, HIDDEN + UNUSABLE)],
        "an expired CA and a CA:FALSE certificate": [("error", 1, expired),
                                                     ("error", 2, not_ca)],
        "only a block that a byte order mark hides": [("error", 1, HIDDEN)],
    }[case]


CASES = ["an expired CA beside the CA", "a CA:FALSE certificate beside the CA",
         "a byte order mark before the first BEGIN line",
         "a byte order mark that hides a block after the CA",
         "an expired CA and a CA:FALSE certificate", "only a block that a byte order mark hides"]


@pytest.mark.parametrize("case", CASES)
def test_a_ca_bundle_is_an_error_only_when_openssl_verifies_through_none_of_it(
        write_ks, peer_pem_forms, case):
    """Unbound loads tls-cert-bundle with SSL_CTX_load_verify_locations (util/net_help.c
    connect_sslctx_create), that is X509_load_cert_crl_file and PEM_X509_INFO_read_bio:
    every certificate of the file is taken and none is judged, and a chain is built
    through one that can issue. `openssl verify -CAfile` reads the file the same way: it
    decides here, for the file as Anaconda writes the %certificate and for the DoT bundle
    we stage, whether the server is authenticated; validate exits 1 exactly when it is
    not, and names every certificate that cannot authenticate on its own BEGIN line."""
    text, openssl_takes_it = peer_pem_forms.mixed_bundles()[case]
    kickstart = certificate_section(text) + edns_section(GOOD, options="--ca=dns-ca.pem")
    path = write_ks(kickstart)

    result = run_cli("validate", path)

    assert peer_pem_forms.openssl_verifies_with(
        (text.rstrip("\n") + "\n").encode("utf-8")) is openssl_takes_it
    assert result.returncode == (0 if openssl_takes_it else 1), result.stdout
    said = [line for line in result.stdout.splitlines()
            if line.startswith(str(path) + ":") and (": error: " in line or ": warning: " in line)]
    begins = [number for number, line in enumerate(kickstart.splitlines(), 1)
              if "-----BEGIN " in line]
    assert said == ["%s:%d: %s: %s" % (path, begins[nth - 1], severity, message)
                    for severity, nth, message in _said(peer_pem_forms, case)]
    if openssl_takes_it:
        # What we stage as the DoT bundle authenticates the server to OpenSSL too.
        trust = parse(path).staging_input().trust
        assert peer_pem_forms.openssl_verifies_with(trust.bundle)


def test_the_installer_takes_a_bundle_with_a_certificate_that_cannot_authenticate(
        peer_pem_forms):
    # AddCertificate and the text UI judge the certificate alone: one that can
    # authenticate is enough, and a warning names the other once --ca names it.
    text, _takes = peer_pem_forms.mixed_bundles()["an expired CA beside the CA"]
    state = EdnsState()
    state.set_servers(CONFIG.servers)
    state.add_certificate(KickstartCertificate.from_section("dns-ca.pem", text,
                                                            "/etc/pki/dns/", added=True))
    state.set_ca_names(["dns-ca.pem"])
    assert [(p.severity.value, p.message.split(";")[0]) for p in state.problems()] == [
        ("warning", "the certificate CN=Old CA expired on %s" % (
            peer_pem_forms.expired.not_after.strftime("%Y-%m-%d %H:%M:%S UTC")))]
    none_can, _takes = peer_pem_forms.mixed_bundles()["an expired CA and a CA:FALSE certificate"]
    with pytest.raises(ModelError, match="the PEM text of other.pem, line 1: the certificate "
                                         "CN=Old CA expired on "):
        state.add_certificate(KickstartCertificate.from_section("other.pem", none_can,
                                                                "/etc/pki/dns/", added=True))


def test_a_ca_text_without_a_certificate_beside_one_that_can_is_a_warning(write_ks,
                                                                           peer_pem_forms):
    # The DoT bundle of --ca=a,b is both texts in one file: OpenSSL loads nothing of the
    # first and verifies through the second.
    wiki = "the CA of the DoT servers is on https://wiki.corp.example/pki\n"
    assert peer_pem_forms.openssl_verifies_with((wiki + peer_pem_forms.ca.pem).encode())
    text = (certificate_section(wiki, "wiki.pem") + certificate_section(peer_pem_forms.ca.pem)
            + edns_section(GOOD, options="--ca=wiki.pem,dns-ca.pem"))
    path = write_ks(text)
    result = parse(path)
    assert result.errors == []
    assert [str(p) for p in result.warnings] == [
        "%s:2: warning: no -----BEGIN CERTIFICATE----- block is found; paste the CA "
        "certificate in PEM form%s" % (path, UNUSABLE)]
    alone = write_ks(certificate_section(wiki, "wiki.pem") + edns_section(
        GOOD, options="--ca=wiki.pem"))
    assert [p.message for p in parse(alone).errors] == [
        "no -----BEGIN CERTIFICATE----- block is found; paste the CA certificate in PEM form"]


def test_an_expired_certificate_at_the_bundle_path_is_an_error_beside_a_good_anchor(write_ks,
                                                                                    pems):
    # dnsconfd reads the file at its bundle path before the system store: the anchors
    # do not authenticate the servers then, so nothing there can.
    text = (certificate_section(pems.expired.pem, "tls-ca-bundle.pem",
                                "--dir=/etc/pki/dns/extracted/pem/")
            + anchor_section(pems.ca.pem, "root.pem") + edns_section(GOOD))
    path = write_ks(text)
    assert [p.message.split(";")[0] for p in parse(path).errors] == [
        "the certificate CN=Expired CA expired on %s"
        % pems.expired.not_after.strftime("%Y-%m-%d %H:%M:%S UTC")]
