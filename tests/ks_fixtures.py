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

"""Helpers of the kickstart tests: certificates of every kind (the ``pems`` fixture), the
line of a needle, and what the reader says about a kickstart file. The kickstart text
itself comes from ``lab.kickstarts``."""

import subprocess

import pytest

from lab import certs
from org_edns_addon.constants import DOT_CA_BUNDLE_PATH, DOT_CA_DIR
from org_edns_addon.ks.reader import parse_kickstart
from org_edns_addon.lines import line_named

# Every kickstart the suite reads clean, with an encrypted DNS section (``parse``, and
# conftest's ``run_cli`` for `validate`): at the end of the run each goes through staging
# for both phases and the overlay (tests/test_validated_kickstarts_stage.py), so
# validation and the installer's code path can never disagree.
VALIDATED_KICKSTARTS = []


def parse(path, now=None, line=None):
    """``parse_kickstart(PATH)``, as a test reads a kickstart (judged for every installer
    line, or for the one whose key is LINE): a clean result with an encrypted DNS section
    is kept in VALIDATED_KICKSTARTS, unless what staging needs is in a file missing here
    (one a %pre writes: staging refuses it, naming the file)."""
    result = parse_kickstart(path, now, **({"lines": (line_named(line),)} if line else {}))
    if not result.errors and result.config is not None and not result.unread_parts():
        VALIDATED_KICKSTARTS.append(result)
    return result


def line_of(text, needle, occurrence=1):
    """1-based number of the line of TEXT holding NEEDLE (its OCCURRENCE-th such line)."""
    found = [n for n, line in enumerate(text.splitlines(), 1) if needle in line]
    if len(found) < occurrence:
        raise AssertionError("%r is not in the kickstart %d time(s)" % (needle, occurrence))
    return found[occurrence - 1]


def messages(path, now=None):
    """What `edns-addon validate` prints for PATH, one string per problem."""
    return [str(problem) for problem in parse(path, now).problems]


def only_error(path):
    """The one error of the kickstart at PATH (failing if there is not exactly one)."""
    errors = [str(p) for p in parse(path).errors]
    assert len(errors) == 1, errors
    return errors[0]


class Certificates:
    """Fresh certificates of every kind a kickstart may carry (nothing checked in)."""

    def __init__(self):
        self.ca = certs.make_ca("Corp DNS CA")
        self.second_ca = certs.make_ca("Corp DNS CA 2")
        self.not_ca = certs.make_ca("Not a CA", ca=False, key_cert_sign=False)
        self.no_cert_sign = certs.make_ca("CA without keyCertSign", key_cert_sign=False)
        self.expired = certs.make_ca("Expired CA", not_before=certs.now() - 60 * certs.DAY,
                                     not_after=certs.now() - certs.DAY)
        self.not_yet_valid = certs.make_ca("Future CA", not_before=certs.now() + certs.DAY,
                                           not_after=certs.now() + 60 * certs.DAY)
        self.server = certs.make_server(self.ca, dns_names=("dot.corp.example",))


@pytest.fixture(scope="session")
def pems():
    return Certificates()


class PeerPemForms:
    """One CA in the forms OpenSSL's PEM reader and p11-kit take and people paste, each
    made by the tool that writes it (``openssl`` on this machine), beside the CA's server
    certificate for ``openssl verify``.

    - ``comments``: the block between "# Issuer:"/"# Label:" lines, as ca-certificates'
      certdata2pem.py writes its bundles (a UTF-8 label, as its NetLock roots have);
    - ``text``: ``openssl x509 -text`` output, the block after it;
    - ``trusted``: ``openssl x509 -trustout -addtrust serverAuth``, a ``BEGIN TRUSTED
      CERTIFICATE`` block (the DER certificate, then OpenSSL's X509_AUX trust settings).
    """

    def __init__(self, directory):
        self.ca = certs.make_ca("Peer Forms CA")
        self.server = certs.make_server(self.ca, dns_names=("dot.corp.example",))
        self.directory = directory
        ca_path = directory / "ca.pem"
        ca_path.write_text(self.ca.pem)
        self.server_path = directory / "server.pem"
        self.server_path.write_text(self.server.pem)
        self.comments = (
            "# Issuer: CN=Peer Forms CA\n# Subject: CN=Peer Forms CA\n"
            "# Label: \"Peer Forms CA F\u0151tan\u00fas\u00edtv\u00e1ny\"\n"
            "# Serial: 1\n" + self.ca.pem + "\n")
        self.text = self._openssl("x509", "-in", ca_path, "-text")
        self.trusted = self._openssl("x509", "-in", ca_path, "-trustout", "-addtrust",
                                     "serverAuth")
        assert self.text.startswith("Certificate:\n") and "BEGIN CERTIFICATE" in self.text
        assert self.trusted.startswith("-----BEGIN TRUSTED CERTIFICATE-----\n")
        self.expired = certs.make_ca("Old CA", not_before=certs.now() - 60 * certs.DAY,
                                     not_after=certs.now() - certs.DAY)
        self.not_ca = certs.make_ca("Leaf", ca=False, key_cert_sign=False)
        self.other = certs.make_ca("Other CA")

    def mixed_bundles(self):
        """CA files of the CA beside a certificate that cannot authenticate the server,
        and files where none can: {name: (text, whether the CA is in what OpenSSL reads)}.

        A UTF-8 byte order mark is dropped on the first line of each block OpenSSL
        reads (crypto/pem/pem_lib.c sanitize_line, OpenSSL 3): before the first
        BEGIN line and right after an END line; anywhere else it hides the block."""
        ca, expired, not_ca, other = (self.ca.pem, self.expired.pem, self.not_ca.pem,
                                      self.other.pem)
        return {
            "an expired CA beside the CA": (expired + ca, True),
            "a CA:FALSE certificate beside the CA": (not_ca + ca, True),
            "a byte order mark before the first BEGIN line": ("\ufeff" + other + ca, True),
            "a byte order mark that hides a block after the CA": (
                ca + "\n\ufeff" + other, True),
            "an expired CA and a CA:FALSE certificate": (expired + not_ca, False),
            "only a block that a byte order mark hides": (
                "# the CA of the DoT servers\n\ufeff" + ca, False),
        }

    @staticmethod
    def _openssl(*args):
        return subprocess.run(["openssl", *map(str, args)], capture_output=True, text=True,
                              check=True, timeout=60).stdout

    def forms(self):
        return {"comments": self.comments, "text": self.text, "trusted": self.trusted}

    def openssl_verifies_with(self, bundle):
        """Whether ``openssl verify -CAfile`` BUNDLE (bytes) takes the server: the CA file
        read by X509_load_cert_crl_file, as SSL_CTX_load_verify_locations reads Unbound's
        tls-cert-bundle (util/net_help.c connect_sslctx_create), and the chain checked
        for the purpose a TLS client checks a server for (ssl/ssl_cert.c
        ssl_verify_cert_chain: "ssl_server"), which a TRUSTED CERTIFICATE's trust
        settings answer."""
        path = self.directory / "bundle-under-test.pem"
        path.write_bytes(bundle)
        result = subprocess.run(["openssl", "verify", "-purpose", "sslserver", "-CAfile",
                                 str(path), str(self.server_path)], capture_output=True,
                                text=True, timeout=60)
        return result.returncode == 0 and result.stdout.strip().endswith(": OK")


@pytest.fixture(scope="session")
def peer_pem_forms(tmp_path_factory):
    return PeerPemForms(tmp_path_factory.mktemp("peer-pem-forms"))


class ChainPki:
    """A company's two-tier PKI (``two_tier_pki``) in every form a ``--ca`` bundle may hold
    it, and servers to verify against a bundle with OpenSSL itself (``verifies``).

    ``forms``: {what: PEM text}: the root, the intermediate, another root, the
    intermediate expired (same name and key: last year's), the root expired (same name
    and key), and trust settings written by ``openssl x509 -trustout``. ``servers``:
    {what: (certificate, the chain it sends after it)}: the two-tier server sending the
    intermediate or not, a server the root issued directly, one of the other root."""

    def __init__(self, directory, pki):
        self.directory = directory
        root, intermediate = pki.root, pki.intermediate
        other_root = certs.make_ca("Other Root CA")
        past = certs.now() - 60 * certs.DAY, certs.now() - certs.DAY
        expired_intermediate = certs.make_intermediate(root, "Corp Issuing CA", *past,
                                                       key=intermediate.key)
        expired_root = certs.make_ca("Corp Root CA", *past, key=root.key)
        self.expired_intermediate = expired_intermediate
        self.forms = {
            "root": root.pem, "intermediate": intermediate.pem, "other root": other_root.pem,
            "expired intermediate": expired_intermediate.pem, "expired root": expired_root.pem,
        }
        for name, issued, options in (
                ("root -addreject serverAuth", root, ("-addreject", "serverAuth")),
                ("root -addtrust emailProtection", root, ("-addtrust", "emailProtection")),
                ("root -addtrust serverAuth", root, ("-addtrust", "serverAuth")),
                ("intermediate -addtrust serverAuth", intermediate, ("-addtrust", "serverAuth")),
                ("intermediate -addreject serverAuth", intermediate,
                 ("-addreject", "serverAuth"))):
            self.forms[name] = certs.with_trust_settings(issued, directory, *options)
        self.servers = {
            "leaf + intermediate": (pki.server, [intermediate]),
            "leaf alone": (pki.server, []),
            "issued by the root": (certs.make_server(root, ("dot.corp.example",)), []),
            "issued by the other root": (certs.make_server(other_root, ("dot.corp.example",)),
                                         []),
        }

    def bundle(self, *forms):
        return "".join(self.forms[form] for form in forms)

    def verifies(self, bundle, server, openssl=("openssl",), env=None, partial_chain=False):
        """Whether ``openssl verify -purpose sslserver -CAfile BUNDLE`` (bytes) takes SERVER
        (a key of ``servers``) with the chain it sends as -untrusted: how libssl verifies
        a server for Unbound (ssl/ssl_cert.c ssl_verify_cert_chain, "ssl_server"), without
        X509_V_FLAG_PARTIAL_CHAIN unless PARTIAL_CHAIN. OPENSSL is the command (another
        tree's binary through its loader), ENV its environment."""
        leaf, sent = self.servers[server]
        paths = {"bundle": bundle, "leaf": leaf.pem.encode(),
                 "sent": "".join(cert.pem for cert in sent).encode()}
        for name, content in paths.items():
            (self.directory / ("verify-%s.pem" % name)).write_bytes(content)
        argv = list(openssl) + ["verify", "-purpose", "sslserver", "-CAfile",
                                str(self.directory / "verify-bundle.pem")]
        if sent:
            argv += ["-untrusted", str(self.directory / "verify-sent.pem")]
        if partial_chain:
            argv.append("-partial_chain")
        result = subprocess.run(argv + [str(self.directory / "verify-leaf.pem")],
                                capture_output=True, text=True, timeout=60, env=env)
        return result.returncode == 0 and result.stdout.strip().endswith(": OK")


@pytest.fixture(scope="session")
def chain_pki(tmp_path_factory, two_tier_pki):
    return ChainPki(tmp_path_factory.mktemp("chain-pki"), two_tier_pki)


class IntermediateAlone:
    """A configuration whose --ca names a %certificate of the intermediate CA alone, which
    Unbound would refuse, and what the screens must say of it: ``trust`` (its
    ``DotTrust.describe``), ``error`` (its problem's line on a screen). A kickstart validate
    refuses cannot be loaded: the screens get there by editing (``editor``)."""

    def __init__(self, chain_pki):
        self.pem = chain_pki.forms["intermediate"]
        self.trust = (
            "dns-ca.pem cannot authenticate the DNS servers: no chain in the bundle %s ends "
            "at a root CA that OpenSSL trusts. In it: the intermediate CA 'CN=Corp Issuing "
            "CA', which authenticates nothing without the root CA 'CN=Corp Root CA'."
            % DOT_CA_BUNDLE_PATH)
        self.error = (
            "Error: The intermediate CA 'CN=Corp Issuing CA' is in this bundle without "
            "'CN=Corp Root CA', the CA that issued it: OpenSSL, and so Unbound, accepts only "
            "a chain that ends at a self-signed root CA of the bundle (it takes no partial "
            "chain); add the root CA 'CN=Corp Root CA' (with any CA between) to this bundle.")

    def editor(self):
        from org_edns_addon.certificates.kickstart import KickstartCertificate
        from org_edns_addon.model import DotServer, EdnsConfig
        from org_edns_addon.state import EdnsState
        from org_edns_addon.ui.editor import EdnsEditor
        return EdnsEditor(EdnsState(
            EdnsConfig(servers=(DotServer.parse_uri("dns+tls://192.0.2.53#dot.example"),),
                       ca_names=("dns-ca.pem",)),
            [KickstartCertificate.from_section("dns-ca.pem", self.pem, DOT_CA_DIR)]))


@pytest.fixture(scope="session")
def intermediate_alone(chain_pki):
    return IntermediateAlone(chain_pki)
