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

"""certificates.py on real certificates generated here: what is read, refused and bundled."""

import base64
import re
import shlex
import subprocess

import pytest

from lab import certs
from lab.kickstarts import CA_FILENAME, certificate_section, edns_kickstart
from org_edns_addon import constants as c
from org_edns_addon.certificates import (SERVER_AUTH, CertificateError, ServerTrust,
                                         authentication_problem, build_bundle, ca_problem,
                                         landing_problem, load_pem_certificates, read_pem,
                                         server_auth_trust, validity_problem)
from org_edns_addon import initrd
from org_edns_addon.initrd import overlay_plan
from org_edns_addon.model import Phase
from org_edns_addon.staging.freeipa import handover_unit
from org_edns_addon.staging.plan import build_plan
from tests.conftest import run_cli
from tests.ks_fixtures import parse
from tests.staging_fixtures import require_namespaces, require_tools


def test_every_block_of_a_bundle_is_read_with_its_line(pems):
    text = pems.ca.pem + "\n" + pems.second_ca.pem
    first, second = load_pem_certificates(text)
    assert (first.subject, first.line) == ("CN=Corp DNS CA", 0)
    assert (second.subject, second.line) == ("CN=Corp DNS CA 2", len(pems.ca.pem.splitlines()) + 1)


def test_crlf_line_ends_and_indentation_around_blocks_are_accepted(pems):
    text = "  \r\n" + pems.ca.pem.replace("\n", "\r\n") + "\t\r\n"
    cert, = load_pem_certificates(text)
    assert cert.subject == "CN=Corp DNS CA"
    assert cert.line == 1


def test_the_bundle_keeps_the_given_order_and_drops_duplicates_by_fingerprint(pems):
    certificates = load_pem_certificates(pems.second_ca.pem + pems.ca.pem + pems.second_ca.pem)
    assert build_bundle(certificates).decode() == pems.second_ca.pem + pems.ca.pem


def test_the_bundle_is_the_same_bytes_every_time(pems):
    text = pems.ca.pem + pems.second_ca.pem
    assert build_bundle(load_pem_certificates(text)) == build_bundle(load_pem_certificates(text))


def test_a_non_ca_is_refused_with_freeipas_words(pems):
    cert, = load_pem_certificates(pems.not_ca.pem)
    assert ca_problem(cert).startswith("Not a valid CA certificate: CN=Not a CA")


def test_the_validity_window_is_checked_against_the_given_time(pems):
    cert, = load_pem_certificates(pems.ca.pem)
    assert (ca_problem(cert), validity_problem(cert)) == (None, None)
    assert "expired on" in validity_problem(cert, now=certs.now() + 365 * certs.DAY)
    assert "is not valid before" in validity_problem(cert, now=certs.now() - 365 * certs.DAY)


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
        load_pem_certificates(text)


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
                    load_pem_certificates(_damaged(pem, line, column, character))
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

REFUSED_PLACES = [
    # rule 1: what the addon writes, which must stay a file
    ("/etc/NetworkManager/conf.d/60-edns-global-dns.conf/", "x.pem",
     "--dir places this certificate at /etc/NetworkManager/conf.d/60-edns-global-dns.conf/"
     "x.pem, below /etc/NetworkManager/conf.d/60-edns-global-dns.conf, a file this addon "
     "writes, which must stay a file; choose another --dir"),
    ("/etc/resolv.conf/", "x.pem",
     "--dir places this certificate at /etc/resolv.conf/x.pem, below /etc/resolv.conf, a "
     "file this addon writes, which must stay a file; choose another --dir"),
    # the copy of our Unbound file the FreeIPA handover unit puts back (--backend=unbound):
    # a certificate there would be replaced, or become Unbound's configuration in conf.d
    ("/etc/unbound/", "edns-forward.conf.kept",
     "--dir and --filename place this certificate at /etc/unbound/edns-forward.conf.kept, "
     "a file this addon writes; choose another --dir or --filename"),
    ("/etc/unbound/edns-forward.conf.kept/", "x.pem",
     "--dir places this certificate at /etc/unbound/edns-forward.conf.kept/x.pem, below "
     "/etc/unbound/edns-forward.conf.kept, a file this addon writes, which must stay a "
     "file; choose another --dir"),
    ("/var/lib/edns-addon/", "x.pem",
     "--dir places this certificate at /var/lib/edns-addon/x.pem, in /var/lib/edns-addon, "
     "where edns-addon keeps the record of what it wrote; choose another --dir"),
    # ... and no file of the system trust store of any line: the bundle every line has,
    # and the one Fedora 43 dropped, which EL9, EL10 and Fedora 42 still have.
    ("/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem/", "x.pem",
     "--dir places this certificate at /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem/"
     "x.pem, below /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem, the system's trust "
     "store, which must stay a file; choose another --dir"),
    ("/etc/pki/tls/certs/ca-bundle.crt/", "x.pem",
     "--dir places this certificate at /etc/pki/tls/certs/ca-bundle.crt/x.pem, below "
     "/etc/pki/tls/certs/ca-bundle.crt, the system's trust store, which must stay a file; "
     "choose another --dir"),
    ("/etc/pki/java/cacerts/", "x.pem",
     "--dir places this certificate at /etc/pki/java/cacerts/x.pem, below "
     "/etc/pki/java/cacerts, the system's trust store, which must stay a file; "
     "choose another --dir"),
    # rule 2: the top of the file system, dracut's /init
    ("/", "init",
     "--dir=/ places this certificate at /init, at the top of the file system, where the "
     "initramfs has /init and the system its top-level directories; give it a directory of "
     "its own, like --dir=/etc/pki/dns/"),
    ("/init/", "x.pem",
     "--dir places this certificate at /init/x.pem, below /init, a file the initramfs needs "
     "to start, which must stay a file; choose another --dir"),
    # rule 3: programs, libraries, kernel
    ("/usr/lib/", "x.pem",
     "--dir places this certificate at /usr/lib/x.pem, in /usr, which holds the system's "
     "programs, libraries, kernel or boot files (or is a kernel file system); place it below "
     "/etc/pki/ or /usr/share/pki/ instead"),
    ("/boot/", "vmlinuz",
     "--dir places this certificate at /boot/vmlinuz, in /boot, which holds the system's"),
    # rule 4: the system's tables directly in /etc
    ("/etc/", "passwd",
     "--dir=/etc places this certificate at /etc/passwd, among the system's own configuration "
     "files (passwd, fstab, hosts, ...); give it a directory of its own, like "
     "--dir=/etc/pki/dns/"),
    ("/etc/passwd/", "x.pem",
     "--dir places this certificate at /etc/passwd/x.pem, below /etc/passwd, a file the "
     "system needs to start, which must stay a file; choose another --dir"),
    # rule 5: configuration read at boot or login
    ("/etc/systemd/system/", "x.pem",
     "--dir places this certificate at /etc/systemd/system/x.pem, in /etc/systemd, whose "
     "every file is read as configuration at boot or at login; choose another --dir, like "
     "/etc/pki/dns/"),
]
# Where Anaconda's own tests and users place them: accepted by all three.
ACCEPTED_PLACES = ["/cert_dir/",            # pyanaconda's tests (test_certificates_kickstart)
                   "/etc/pki/dns/", "/etc/ssl/certs/", "/etc/pki/ca-trust/source/anchors/",
                   "/usr/share/pki/ca-trust-source/anchors/", "/run/install/certificates/x/"]


def _placed_kickstart(write_ks, test_ca, directory, filename):
    text = edns_kickstart(test_ca.pem, certificates=(
        certificate_section(test_ca.pem) +
        certificate_section(certs.make_ca("Placed").pem, filename, "--dir=%s" % directory)))
    header = "%%certificate --filename=%s --dir=%s" % (filename, directory)
    return write_ks(text), text.splitlines().index(header) + 1


@pytest.mark.parametrize("directory, filename, sentence", REFUSED_PLACES,
                         ids=[d + f for d, f, _s in REFUSED_PLACES])
def test_validate_apply_and_overlay_refuse_a_place_alike(write_ks, test_ca, tmp_path,
                                                         directory, filename, sentence):
    kickstart, line = _placed_kickstart(write_ks, test_ca, directory, filename)
    said = "%s:%d: error: %s" % (kickstart, line, sentence)
    root = tmp_path / "root"
    root.mkdir()
    image = tmp_path / "o.img"

    validated = run_cli("validate", kickstart)
    applied = run_cli("apply", kickstart, "--root", root)
    packed = run_cli("overlay", kickstart, "-o", image)

    assert validated.returncode == 1 and said in validated.stdout, validated.stdout
    for result in (applied, packed):
        assert result.returncode == 1, result.stderr
        assert "Traceback" not in result.stderr
        assert said in result.stderr, result.stderr
    assert list(root.iterdir()) == [] and not image.exists()


@pytest.mark.parametrize("directory", ACCEPTED_PLACES)
def test_validate_apply_and_overlay_accept_a_place_alike(write_ks, test_ca, tmp_path,
                                                         directory):
    kickstart, _line = _placed_kickstart(write_ks, test_ca, directory, "placed.pem")
    root = tmp_path / "root"
    root.mkdir()
    for result in (run_cli("validate", kickstart),
                   run_cli("apply", kickstart, "--root", root),
                   run_cli("overlay", kickstart, "-o", tmp_path / "o.img")):
        assert result.returncode == 0, (result.stdout, result.stderr)
    assert (root / directory.lstrip("/") / "placed.pem").exists()


@pytest.mark.parametrize("backend", ["dnsconfd", "unbound"])
def test_every_file_the_addon_writes_or_moves_one_to_is_a_refused_place(write_ks, test_ca,
                                                                       backend):
    """The places rule 1 refuses are derived from the constants; here they are held against
    what the plans write (both phases, and the overlay) and every file the FreeIPA handover
    unit names (rule 1, or rule 5 for conf.d's)."""
    parsed = parse(write_ks(edns_kickstart(test_ca.pem, "--ca=%s --backend=%s"
                                           % (CA_FILENAME, backend))))
    data = parsed.staging_input()
    written = {planned.path for phase in Phase for planned in
               build_plan(data, phase, "/").files} | {
                   planned.path for planned in overlay_plan(parsed).files}
    written -= {cert.path for cert in data.certificates}
    # The initramfs's hooks: rule 3 (/lib) and rule 5 (/var/lib/dracut/hooks).
    written -= set(initrd.PRE_PIVOT_HOOK_PATHS)
    for hook in initrd.PRE_PIVOT_HOOK_PATHS:
        assert landing_problem(hook) is not None, hook
    unit = handover_unit().decode("ascii")
    named = set(re.findall(r"/etc/[^\s';]+", re.search(r"^ExecStart=(.+)$", unit,
                                                        re.M).group(1)))
    assert written <= set(c.ADDON_WRITTEN_PATHS)
    assert c.UNBOUND_CONF_KEPT_PATH in named
    for path in written | named:
        if path != c.DOT_CA_BUNDLE_PATH:
            assert landing_problem(path) is not None, path
            assert landing_problem(path + "/x.pem") is not None, path


def test_the_handover_unit_would_put_a_certificate_at_the_kept_place_into_conf_d(tmp_path):
    """Why the kept copy's place is refused: once FreeIPA's forwarder is gone, the unit's
    own ExecStart, run on a root where a %certificate lay there, copies it into Unbound's
    conf.d as our forwarder."""
    root = tmp_path / "root"
    (root / c.UNBOUND_CONF_DIR.lstrip("/")).mkdir(parents=True)
    certificate = root / c.UNBOUND_CONF_KEPT_PATH.lstrip("/")
    certificate.write_text(certs.make_ca("Placed").pem)
    command = re.search(r"^ExecStart=(.+)$", handover_unit().decode("ascii"), re.M).group(1)
    subprocess.run(shlex.split(command.replace("/etc/", "%s/etc/" % root)), check=True,
                   timeout=60)
    assert (root / c.UNBOUND_CONF_PATH.lstrip("/")).read_text() == certificate.read_text()


# --- what OpenSSL's PEM reader and p11-kit take (tests/ks_fixtures.py PeerPemForms) -----

FORMS = ["comments", "text", "trusted"]


@pytest.mark.parametrize("form", FORMS)
def test_each_form_openssl_takes_is_read_as_its_certificate_and_staged_as_openssl_reads_it(
        peer_pem_forms, form):
    text = peer_pem_forms.forms()[form]
    # The peer itself takes the form as a CA file.
    assert peer_pem_forms.openssl_verifies_with(text.encode("utf-8"))
    [block] = load_pem_certificates(text)
    [original] = load_pem_certificates(peer_pem_forms.ca.pem)
    assert block.fingerprint == original.fingerprint
    # What the DoT bundle holds is read by OpenSSL as the same CA.
    assert peer_pem_forms.openssl_verifies_with(build_bundle([block], as_read=True))
    assert peer_pem_forms.openssl_verifies_with(build_bundle([block]))


def test_a_trusted_certificate_keeps_its_trust_settings_in_the_bundle(peer_pem_forms):
    [block] = load_pem_certificates(peer_pem_forms.trusted)
    written = build_bundle([block], as_read=True).decode("ascii")
    assert written == peer_pem_forms.trusted
    # Python's ssl (the pre-flight check) reads only CERTIFICATE blocks: it gets the
    # certificate alone.
    assert build_bundle([block]).decode("ascii") == peer_pem_forms.ca.pem


@pytest.mark.parametrize("form", FORMS)
def test_a_private_key_beside_any_form_is_still_refused(peer_pem_forms, form):
    with pytest.raises(CertificateError, match="a private key is pasted here") as refused:
        load_pem_certificates(peer_pem_forms.forms()[form] + peer_pem_forms.ca.key_pem)
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
        load_pem_certificates(text)


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
    assert block.fingerprint == load_pem_certificates(peer_pem_forms.ca.pem)[0].fingerprint
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


@pytest.mark.parametrize("form, trusted_for, rejected_for, trust", [
    ("root", None, None, ServerTrust.NEUTRAL),
    ("root -addtrust serverAuth", ("serverAuth",), None, ServerTrust.TRUSTED),
    ("root -addreject serverAuth", None, ("serverAuth",), ServerTrust.REJECTED),
    ("root -addtrust emailProtection", ("emailProtection",), None, ServerTrust.REJECTED),
])
def test_trust_settings_are_read_as_openssl_writes_them(chain_pki, form, trusted_for,
                                                        rejected_for, trust):
    block, = load_pem_certificates(chain_pki.forms[form])
    names = {"serverAuth": SERVER_AUTH, "emailProtection": "1.3.6.1.5.5.7.3.4"}
    assert block.trusted_for == (tuple(names[name] for name in trusted_for)
                                 if trusted_for else None)
    assert block.rejected_for == (tuple(names[name] for name in rejected_for)
                                  if rejected_for else None)
    assert server_auth_trust(block) is trust
    # Bundled as read: the same trust settings reach Unbound's tls-cert-bundle.
    assert load_pem_certificates(build_bundle([block], as_read=True))[0].trusted_for == \
        block.trusted_for


def test_an_alias_alone_is_no_trust_setting(chain_pki, tmp_path):
    # `openssl x509 -trustout -setalias`: an X509_CERT_AUX without trust or reject lists,
    # which obj_trust passes over (a self-signed root is then trusted as without it).
    block, = load_pem_certificates(certs.with_trust_settings(
        certs.make_ca("Aliased Root"), tmp_path, "-setalias", "corp"))
    assert block.trusted is not None
    assert (block.trusted_for, block.rejected_for) == (None, None)
    assert server_auth_trust(block) is ServerTrust.NEUTRAL
    assert authentication_problem(block) is None
