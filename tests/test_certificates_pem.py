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

"""certificates/pem.py on real certificates generated here: what is read, refused and
bundled, as OpenSSL and p11-kit read it."""

import base64
import re
import subprocess

import pytest

from org_edns_addon.certificates.pem import CertificateError, build_bundle, read_pem
from tests.staging_fixtures import require_namespaces, require_tools


def read_blocks(text):
    """The certificate blocks of TEXT, as every edge reads them."""
    return read_pem(text).blocks


def test_every_block_of_a_bundle_is_read_with_its_line(pems):
    text = pems.ca.pem + "\n" + pems.second_ca.pem
    first, second = read_blocks(text)
    assert (first.subject, first.line) == ("CN=Corp DNS CA", 0)
    assert (second.subject, second.line) == ("CN=Corp DNS CA 2", len(pems.ca.pem.splitlines()) + 1)


def test_crlf_line_ends_and_indentation_around_blocks_are_accepted(pems):
    text = "  \r\n" + pems.ca.pem.replace("\n", "\r\n") + "\t\r\n"
    cert, = read_blocks(text)
    assert cert.subject == "CN=Corp DNS CA"
    assert cert.line == 1


def test_the_bundle_keeps_the_given_order_and_drops_duplicates_by_fingerprint(pems):
    certificates = read_blocks(pems.second_ca.pem + pems.ca.pem + pems.second_ca.pem)
    assert build_bundle(certificates).decode() == pems.second_ca.pem + pems.ca.pem


def test_the_bundle_is_the_same_bytes_every_time(pems):
    text = pems.ca.pem + pems.second_ca.pem
    assert build_bundle(read_blocks(text)) == build_bundle(read_blocks(text))


@pytest.mark.parametrize("text, message", [
    (b"\xff\xfe", "the certificate is not PEM text"),
    ("", "no -----BEGIN CERTIFICATE----- block is found"),
    # Text outside a block is passed over (OpenSSL crypto/pem/pem_lib.c get_name): what
    # is left has no certificate.
    ("MIIB", "no -----BEGIN CERTIFICATE----- block is found"),
    ("see https://wiki.corp.example/pki/dns-ca for the CA of the DoT servers",
     "no -----BEGIN CERTIFICATE----- block is found"),
])
def test_text_without_a_certificate_is_refused(text, message):
    with pytest.raises(CertificateError, match=message):
        read_blocks(text)


def _damaged(pem, line, column, character):
    lines = pem.splitlines()
    body = lines[line]
    lines[line] = body[:column] + character + body[column + 1:]
    return "\n".join(lines) + "\n"


def test_every_one_character_damage_is_a_sentence_or_a_certificate(pems):
    # cryptography decodes a certificate's names and extensions lazily: damage that
    # load_pem_x509_certificate lets through must still fail here, at the edge, and as
    # a CertificateError (it raises ValueError, InvalidVersion, even KeyError).
    pem = pems.ca.pem
    refused = 0
    lines = pem.splitlines()
    for line in range(1, len(lines) - 1):
        for column in range(len(lines[line])):
            for character in "AB":
                try:
                    read_blocks(_damaged(pem, line, column, character))
                except CertificateError as error:
                    assert error.line == 0
                    if error.message.startswith("the PEM block "):
                        # A '=' of the padding replaced: OpenSSL's base64 decoder refuses it.
                        assert error.message == (
                            "the PEM block '-----BEGIN CERTIFICATE-----' is not base64 "
                            "(OpenSSL would load nothing of this file); paste it again from "
                            "the original file")
                        assert "=" in lines[line]
                        refused += 1
                        continue
                    # The reason in the brackets is cryptography's, in its version's words.
                    assert error.message.startswith("the certificate cannot be decoded (")
                    assert error.message.endswith("); paste it again from the original file")
                    refused += 1
    assert refused > 0


# --- where a certificate may land: one rule, one verdict from validate, apply, overlay -----


FORMS = ["comments", "text", "trusted"]


@pytest.mark.parametrize("form", FORMS)
def test_each_form_openssl_takes_is_read_as_its_certificate_and_staged_as_openssl_reads_it(
        peer_pem_forms, form):
    text = peer_pem_forms.forms()[form]
    # The peer itself takes the form as a CA file.
    assert peer_pem_forms.openssl_verifies_with(text.encode("utf-8"))
    [block] = read_blocks(text)
    [original] = read_blocks(peer_pem_forms.ca.pem)
    assert block.fingerprint == original.fingerprint
    # What the DoT bundle holds is read by OpenSSL as the same CA.
    assert peer_pem_forms.openssl_verifies_with(build_bundle([block], as_read=True))
    assert peer_pem_forms.openssl_verifies_with(build_bundle([block]))


def test_a_trusted_certificate_keeps_its_trust_settings_in_the_bundle(peer_pem_forms):
    [block] = read_blocks(peer_pem_forms.trusted)
    written = build_bundle([block], as_read=True).decode("ascii")
    assert written == peer_pem_forms.trusted
    # Python's ssl (the pre-flight check) reads only CERTIFICATE blocks: it gets the
    # certificate alone.
    assert build_bundle([block]).decode("ascii") == peer_pem_forms.ca.pem


@pytest.mark.parametrize("form", FORMS)
def test_a_private_key_beside_any_form_is_still_refused(peer_pem_forms, form):
    with pytest.raises(CertificateError, match="a private key is pasted here") as refused:
        read_blocks(peer_pem_forms.forms()[form] + peer_pem_forms.ca.key_pem)
    assert refused.value.always


def test_a_trusted_certificate_whose_trust_settings_are_cut_is_refused_as_openssl_does(
        peer_pem_forms):
    lines = peer_pem_forms.trusted.splitlines()
    der = base64.b64decode("".join(lines[1:-1]))
    cut = base64.b64encode(der[:len(der) - 3]).decode("ascii")
    text = "-----BEGIN TRUSTED CERTIFICATE-----\n%s\n-----END TRUSTED CERTIFICATE-----\n" % cut
    # d2i_X509_AUX (crypto/x509/x_x509.c) fails on the cut X509_CERT_AUX, and OpenSSL then
    # loads nothing of the file.
    assert not peer_pem_forms.openssl_verifies_with(text.encode("ascii"))
    with pytest.raises(CertificateError, match="the TRUSTED CERTIFICATE block is not a "
                                               "certificate followed by its trust settings"):
        read_blocks(text)


# --- an indented PEM, as each reader of its path reads it ----------------------------------

def _indented(pem, body_only=False):
    lines = pem.rstrip("\n").split("\n")
    if body_only:
        return "\n".join([lines[0]] + ["    " + line for line in lines[1:-1]] + [lines[-1]])
    return "\n".join("    " + line for line in lines)


def test_openssl_reads_indented_base64_but_no_indented_begin_line_and_neither_do_we(
        peer_pem_forms):
    """OpenSSL's PEM reader (what reads a CA file other than an anchor: Unbound's
    tls-cert-bundle, update-ca-trust's output) takes a BEGIN line only at the start of a
    line (crypto/pem/pem_lib.c get_name) and skips the whitespace of base64 lines."""
    body_only = _indented(peer_pem_forms.ca.pem, body_only=True)
    whole = _indented(peer_pem_forms.ca.pem)
    assert peer_pem_forms.openssl_verifies_with(body_only.encode("ascii"))
    assert not peer_pem_forms.openssl_verifies_with(whole.encode("ascii"))
    [block] = read_pem(body_only).blocks
    assert block.fingerprint == read_blocks(peer_pem_forms.ca.pem)[0].fingerprint
    with pytest.raises(CertificateError) as refused:
        read_pem(whole)
    assert (refused.value.line, refused.value.message) == (0, (
        "OpenSSL never reads this PEM block: its -----BEGIN line is indented, and OpenSSL "
        "reads one only at the start of a line; remove the spaces before -----BEGIN and "
        "-----END"))


P11KIT_TRUST_MODULE = "/usr/share/p11-kit/modules/p11-kit-trust.module"


def p11kit_anchors(tmp_path, name, text):
    """The anchors p11-kit's trust module lists from an anchors directory holding only NAME
    with TEXT: this machine's trust module, in a private mount namespace where its module
    file reads that directory alone (the trust module's ``paths=`` option)."""
    require_tools("trust")
    require_namespaces("--mount")
    anchors = tmp_path / "p11" / "anchors"
    anchors.mkdir(parents=True)
    (anchors / name).write_text(text)
    module = tmp_path / "p11-kit-trust.module"
    module.write_text("module: p11-kit-trust.so\ntrust-policy: yes\n"
                      "x-init-reserved: paths=%s\n" % anchors.parent)
    listed = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c",
         'mount --bind "$1" %s && exec trust list --filter=ca-anchors' % P11KIT_TRUST_MODULE,
         "sh", str(module)], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    return re.findall(r"^\s*label: (.+)$", listed.stdout, re.M)


def test_p11kit_reads_an_indented_anchor_and_so_do_we_with_a_warning(peer_pem_forms, tmp_path):
    """p11-kit's PEM parser (common/pem.c pem_find_begin, pem_find_end) finds the BEGIN and
    END lines wherever they start: update-ca-trust takes an indented anchor."""
    whole = _indented(peer_pem_forms.ca.pem)
    assert p11kit_anchors(tmp_path, "corp.pem", whole + "\n") == ["Peer Forms CA"]
    read = read_pem(whole, anchor=True)
    assert [block.subject for block in read.blocks] == ["CN=Peer Forms CA"]
    assert read.indented == (0,)


def test_p11kit_passes_over_an_x509_certificate_block_of_an_anchor_and_so_do_we(
        peer_pem_forms, tmp_path):
    """p11-kit takes only CERTIFICATE and TRUSTED CERTIFICATE blocks (trust/parser.c
    on_pem_block); OpenSSL also reads the old X509 CERTIFICATE label."""
    old = peer_pem_forms.ca.pem.replace("-----BEGIN CERTIFICATE-----",
                                        "-----BEGIN X509 CERTIFICATE-----").replace(
        "-----END CERTIFICATE-----", "-----END X509 CERTIFICATE-----")
    assert p11kit_anchors(tmp_path, "corp.pem", old) == []
    assert peer_pem_forms.openssl_verifies_with(old.encode("ascii"))
    assert len(read_pem(old).blocks) == 1
    with pytest.raises(CertificateError, match="no -----BEGIN CERTIFICATE----- block is found"):
        read_pem(old, anchor=True)
