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

"""certificates/authority.py on real certificates generated here: what one certificate can
authenticate, its trust settings as OpenSSL counts them."""


import pytest

from lab import certs
from org_edns_addon.certificates.authority import (SERVER_AUTH, ServerTrust,
                                                   authentication_problem, ca_problem,
                                                   server_auth_trust, validity_problem)
from org_edns_addon.certificates.pem import build_bundle, read_pem


def read_blocks(text):
    """The certificate blocks of TEXT, as every edge reads them."""
    return read_pem(text).blocks


def test_a_non_ca_is_refused_with_freeipas_words(pems):
    cert, = read_blocks(pems.not_ca.pem)
    assert ca_problem(cert).startswith("Not a valid CA certificate: CN=Not a CA")


def test_the_validity_window_is_checked_against_the_given_time(pems):
    cert, = read_blocks(pems.ca.pem)
    assert (ca_problem(cert), validity_problem(cert)) == (None, None)
    assert "expired on" in validity_problem(cert, now=certs.now() + 365 * certs.DAY)
    assert "is not valid before" in validity_problem(cert, now=certs.now() - 365 * certs.DAY)


@pytest.mark.parametrize("form, trusted_for, rejected_for, trust", [
    ("root", None, None, ServerTrust.NEUTRAL),
    ("root -addtrust serverAuth", ("serverAuth",), None, ServerTrust.TRUSTED),
    ("root -addreject serverAuth", None, ("serverAuth",), ServerTrust.REJECTED),
    ("root -addtrust emailProtection", ("emailProtection",), None, ServerTrust.REJECTED),
])
def test_trust_settings_are_read_as_openssl_writes_them(chain_pki, form, trusted_for,
                                                        rejected_for, trust):
    block, = read_blocks(chain_pki.forms[form])
    names = {"serverAuth": SERVER_AUTH, "emailProtection": "1.3.6.1.5.5.7.3.4"}
    assert block.trusted_for == (tuple(names[name] for name in trusted_for)
                                 if trusted_for else None)
    assert block.rejected_for == (tuple(names[name] for name in rejected_for)
                                  if rejected_for else None)
    assert server_auth_trust(block) is trust
    # Bundled as read: the same trust settings reach Unbound's tls-cert-bundle.
    assert read_blocks(build_bundle([block], as_read=True))[0].trusted_for == \
        block.trusted_for


def test_an_alias_alone_is_no_trust_setting(chain_pki, tmp_path):
    # `openssl x509 -trustout -setalias`: an X509_CERT_AUX without trust or reject lists,
    # which obj_trust passes over (a self-signed root is then trusted as without it).
    block, = read_blocks(certs.with_trust_settings(
        certs.make_ca("Aliased Root"), tmp_path, "-setalias", "corp"))
    assert block.trusted is not None
    assert (block.trusted_for, block.rejected_for) == (None, None)
    assert server_auth_trust(block) is ServerTrust.NEUTRAL
    assert authentication_problem(block) is None
