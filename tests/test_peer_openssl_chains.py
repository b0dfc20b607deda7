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

"""A company's PKI in a ``--ca`` bundle, judged by OpenSSL itself and by `validate`.

Each case is a bundle (forms of ``chain_pki``: roots, intermediates, expired ones,
trust settings written by ``openssl x509 -trustout``) and servers of that PKI (the
two-tier server sending its intermediate or not, a server the root issued directly,
one of another root). ``openssl verify -purpose sslserver -CAfile`` decides, without
``-partial_chain``, as libssl decides for Unbound (certificates/chains.py says why); the case
records what it decided, and `validate` must refuse the bundle exactly when OpenSSL
takes no server at all, and name on its line every certificate through which
OpenSSL refuses a server."""

from dataclasses import dataclass
from typing import Dict, Tuple

import pytest

from lab.kickstarts import certificate_section, edns_section
from tests.conftest import run_cli
from tests.ks_fixtures import parse

GOOD = "dns+tls://192.0.2.53#dot.corp.example"
ROOT, INTERMEDIATE, OTHER = "CN=Corp Root CA", "CN=Corp Issuing CA", "CN=Other Root CA"
NO_ROOT = ("the intermediate CA '%s' is in this bundle without '%s', the CA that issued it: "
           "OpenSSL, and so Unbound, accepts only a chain that ends at a self-signed root CA "
           "of the bundle (it takes no partial chain)" % (INTERMEDIATE, ROOT))
REJECTS = ("the trust settings of the TRUSTED CERTIFICATE %s reject server authentication "
           "(serverAuth)")
EMAIL_ONLY = ("the trust settings of the TRUSTED CERTIFICATE %s trust it only for "
              "emailProtection, not for server authentication (serverAuth)")
EXPIRED = "the certificate %s expired on "
TWICE = ("the same certificate (%s) is earlier in this bundle with other trust settings: "
         "OpenSSL keeps the first copy and passes over this one")


@dataclass(frozen=True)
class Case:
    bundle: Tuple[str, ...]
    openssl: Dict[str, bool]            # server: whether OpenSSL takes it
    said: Tuple[Tuple[str, int, str], ...] = ()   # (severity, nth form, how it starts)


CASES = {
    "the root alone, servers sending their intermediate": Case(
        ("root",), {"leaf + intermediate": True, "leaf alone": False}),
    "the root and the intermediate": Case(
        ("root", "intermediate"), {"leaf + intermediate": True, "leaf alone": True}),
    "the intermediate before the root": Case(
        ("intermediate", "root"), {"leaf + intermediate": True, "leaf alone": True}),
    "the intermediate alone": Case(
        ("intermediate",), {"leaf + intermediate": False, "leaf alone": False},
        (("error", 1, NO_ROOT + "; add the root CA '%s'" % ROOT),)),
    "an intermediate without its root, beside another root": Case(
        ("intermediate", "other root"),
        {"leaf + intermediate": False, "issued by the other root": True},
        (("warning", 1, NO_ROOT + "; servers whose certificates it issued are refused, even "
          "when they send '%s' themselves" % ROOT),)),
    "the root and last year's intermediate": Case(
        ("root", "expired intermediate"),
        {"leaf + intermediate": False, "leaf alone": False, "issued by the root": True},
        (("warning", 2, EXPIRED % INTERMEDIATE),)),
    "an expired root and the intermediate": Case(
        ("expired root", "intermediate"), {"leaf + intermediate": False, "leaf alone": False},
        (("error", 1, EXPIRED % ROOT),
         ("error", 2, "the chain of the intermediate CA '%s' goes on in this bundle to '%s', "
          "which cannot end it: it expired on " % (INTERMEDIATE, ROOT)))),
    "a root whose trust settings reject serverAuth": Case(
        ("root -addreject serverAuth",), {"leaf + intermediate": False},
        (("error", 1, REJECTS % ROOT),)),
    "a root trusted for emailProtection only": Case(
        ("root -addtrust emailProtection",), {"leaf + intermediate": False},
        (("error", 1, EMAIL_ONLY % ROOT),)),
    "a root trusted for serverAuth": Case(
        ("root -addtrust serverAuth",), {"leaf + intermediate": True}),
    "an intermediate trusted for serverAuth, alone": Case(
        ("intermediate -addtrust serverAuth",), {"leaf + intermediate": True,
                                                 "leaf alone": True}),
    "the root and an intermediate that rejects serverAuth": Case(
        ("root", "intermediate -addreject serverAuth"),
        {"leaf + intermediate": False, "issued by the root": True},
        (("warning", 2, REJECTS % INTERMEDIATE),)),
    "a rejecting root below an intermediate trusted for serverAuth": Case(
        ("root -addreject serverAuth", "intermediate -addtrust serverAuth"),
        {"leaf alone": True, "issued by the root": False},
        (("warning", 1, REJECTS % ROOT),)),
    "the root twice, first with settings that reject": Case(
        ("root -addreject serverAuth", "root"), {"leaf + intermediate": False},
        (("error", 1, REJECTS % ROOT), ("warning", 2, TWICE % ROOT))),
    "the root twice, first as it is": Case(
        ("root", "root -addreject serverAuth"), {"leaf + intermediate": True},
        (("warning", 2, TWICE % ROOT),)),
}


def _kickstart(write_ks, bundle_text):
    text = certificate_section(bundle_text) + edns_section(GOOD, options="--ca=dns-ca.pem")
    return write_ks(text), text


@pytest.mark.parametrize("case", CASES)
def test_validate_refuses_a_bundle_exactly_when_openssl_takes_no_server(write_ks, chain_pki,
                                                                        case):
    expected = CASES[case]
    text = chain_pki.bundle(*expected.bundle)
    path, kickstart = _kickstart(write_ks, text)

    result = run_cli("validate", path)

    # The peer, on the file as Anaconda writes the %certificate.
    assert {server: chain_pki.verifies(text.encode(), server)
            for server in expected.openssl} == expected.openssl
    assert result.returncode == (0 if any(expected.openssl.values()) else 1), result.stdout
    begins = [number for number, line in enumerate(kickstart.splitlines(), 1)
              if "-----BEGIN " in line]
    said = [line for line in result.stdout.splitlines() if line.startswith("%s:" % path)
            and (": error: " in line or ": warning: " in line)]
    assert len(said) == len(expected.said), result.stdout
    for line, (severity, nth, start) in zip(said, expected.said):
        assert line.startswith("%s:%d: %s: %s" % (path, begins[nth - 1], severity, start)), line
    if result.returncode == 0:
        # The bundle staging writes for Unbound: OpenSSL takes the same servers from it.
        bundle = parse(path).staging_input().trust.bundle
        assert {server: chain_pki.verifies(bundle, server)
                for server in expected.openssl} == expected.openssl


def test_only_a_partial_chain_would_take_the_intermediate_alone(chain_pki):
    # X509_V_FLAG_PARTIAL_CHAIN, which Unbound never sets, is the whole difference.
    bundle = chain_pki.bundle("intermediate").encode()
    assert not chain_pki.verifies(bundle, "leaf + intermediate")
    assert chain_pki.verifies(bundle, "leaf + intermediate", partial_chain=True)


@pytest.mark.parametrize("case", CASES)
def test_openssl_35_of_debian_13_decides_every_case_alike(trixie, chain_pki, case):
    """Debian 13's Unbound links OpenSSL 3.5 (this machine's is 3.0): its own openssl,
    through the tree's loader and libraries, takes the same servers."""
    loader = trixie / "lib64" / "ld-linux-x86-64.so.2"
    openssl = (str(loader), "--library-path", str(trixie / "usr/lib/x86_64-linux-gnu"),
               str(trixie / "usr/bin/openssl"))
    env = {"OPENSSL_CONF": str(trixie / "usr/lib/ssl/openssl.cnf"), "PATH": "/usr/bin:/bin"}
    expected = CASES[case]
    text = chain_pki.bundle(*expected.bundle).encode()
    assert {server: chain_pki.verifies(text, server, openssl, env)
            for server in expected.openssl} == expected.openssl
