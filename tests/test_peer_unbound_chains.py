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

"""A company's PKI through a real Unbound: the DoT bundle of a kickstart as Unbound's
``tls-cert-bundle``, a forwarder on loopback asking an Unbound DoT upstream of the
two-tier PKI that sends its certificate and the intermediate's (``two_tier_upstream``),
both in the lab's network namespace. The forwarder answers, or fails closed with
SERVFAIL, exactly as `validate` judged the bundle: an error means every server of the
PKI is refused, and a server refused with a bundle `validate` takes is one a warning
named. The pre-flight check of that kickstart agrees with Unbound."""

import dns.rcode
import pytest

from lab.dotlab import ANSWER_ADDRESS, ANSWER_NAME, TLS_NAME, ask, forward_zone_config
from lab.kickstarts import certificate_section, edns_section
from org_edns_addon.probe.check import check_staging_input
from org_edns_addon.trust import dot_trust
from tests.conftest import run_cli
from tests.ks_fixtures import parse

# bundle (forms of chain_pki): (what validate says: "clean", "warning" or "error", whether
# the forwarder resolves through the upstream sending leaf + intermediate)
CASES = {
    "the root alone": (("root",), "clean", True),
    "the root and the intermediate": (("root", "intermediate"), "clean", True),
    "the intermediate alone": (("intermediate",), "error", False),
    "an intermediate without its root, beside another root": (
        ("intermediate", "other root"), "warning", False),
    "the root and last year's intermediate": (("root", "expired intermediate"), "warning",
                                              False),
    "a root whose trust settings reject serverAuth": (("root -addreject serverAuth",), "error",
                                                      False),
    "a root trusted for emailProtection only": (("root -addtrust emailProtection",), "error",
                                                False),
    "a root trusted for serverAuth": (("root -addtrust serverAuth",), "clean", True),
    "an intermediate trusted for serverAuth, alone": (("intermediate -addtrust serverAuth",),
                                                      "clean", True),
}


def _verdict(result):
    if result.returncode != 0:
        return "error"
    return "warning" if ": warning: " in result.stdout else "clean"


@pytest.mark.root
@pytest.mark.parametrize("case", CASES)
def test_unbound_resolves_through_a_bundle_exactly_as_validate_judged_it(
        write_ks, tmp_path, chain_pki, two_tier_upstream, unbound_forwarder, lab_network, case):
    forms, verdict, resolves = CASES[case]
    path = write_ks(certificate_section(chain_pki.bundle(*forms)) +
                    edns_section(two_tier_upstream.server_line(), options="--ca=dns-ca.pem"))
    result = run_cli("validate", path)
    assert _verdict(result) == verdict, result.stdout
    # What staging writes at the DoT bundle path (the same for a refused kickstart).
    parsed = parse(path)
    bundle = tmp_path / "tls-ca-bundle.pem"
    bundle.write_bytes(dot_trust(parsed.edns.to_config(), parsed.certificates).bundle)

    forwarder = unbound_forwarder(forward_zone_config(bundle, [
        (two_tier_upstream.address, two_tier_upstream.port, TLS_NAME)]))
    offset = two_tier_upstream.log_offset()
    response = ask(forwarder.address, forwarder.port, ANSWER_NAME, network=lab_network)

    if resolves:
        assert response.rcode() == dns.rcode.NOERROR
        assert [rdata.address for rrset in response.answer for rdata in rrset] == \
            [ANSWER_ADDRESS]
        assert "%s. A IN" % ANSWER_NAME in two_tier_upstream.log_since(offset)
    else:
        assert response.rcode() == dns.rcode.SERVFAIL
        assert "certificate verify failed" in forwarder.log()
        assert ANSWER_NAME not in two_tier_upstream.log_since(offset)
    if verdict != "error":
        # The pre-flight check, on the trust the installation gets, agrees with Unbound,
        # and never asks for a CA the bundle holds.
        [checked] = lab_network.run(check_staging_input, parsed.staging_input(), timeout=5)
        assert checked.ok is resolves, checked.describe()
        assert "add the CA that issued it" not in checked.reason
