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

"""ks/module.py: the Anaconda module's verdict on its part of a kickstart is the one
'edns-addon validate' gives on the whole file (the module's code path, without
pyanaconda: the anaconda tier runs it under the real boss)."""

import pytest
from pykickstart.parser import Certificate

from lab.kickstarts import certificate_section, edns_section
from org_edns_addon.ks.edns import EdnsData
from org_edns_addon.dependencies import installer_gaps
from org_edns_addon.ks.module import parsed_kickstart
from org_edns_addon.problems import Severity
from tests.conftest import run_cli

GOOD = "dns+tls://192.0.2.53#dot.corp.example"


def _module_errors(forms, pem, with_section):
    addon = EdnsData()
    certificates = []
    if with_section:
        addon.handle_header(["--ca=dns-ca.pem"], 5)
        addon.handle_line(GOOD, 6)
        addon.handle_end()
        certificates.append(Certificate(cert=forms.ca.pem.rstrip("\n"), filename="dns-ca.pem",
                                        dir="/etc/pki/dns/"))
    certificates.append(Certificate(cert=pem.rstrip("\n"), filename="other.pem",
                                    dir="/etc/pki/tls/certs/"))
    for lineno, certificate in enumerate(certificates, 1):
        certificate.lineno = lineno
    result = parsed_kickstart(addon, certificates)
    return [p.message for p in result.problems if p.severity == Severity.ERROR]


def _cli_errors(write_ks, forms, pem, with_section):
    text = certificate_section(pem, "other.pem", "--dir=/etc/pki/tls/certs/")
    if with_section:
        text += certificate_section(forms.ca.pem) + edns_section(GOOD, options="--ca=dns-ca.pem")
    result = run_cli("validate", write_ks(text))
    return result.returncode, [line.split(": error: ", 1)[1]
                               for line in result.stdout.splitlines() if ": error: " in line]


def _cases(forms):
    ca = forms.ca.pem
    return {
        # a certificate the DoT resolver never loads, that OpenSSL could not read
        "unreadable": (ca.replace("-----END CERTIFICATE-----", ""), None),
        "private key": (ca + forms.ca.key_pem, "a private key is pasted here"),
        "comments": (forms.comments, None),
        "text": (forms.text, None),
        "trusted": (forms.trusted, None),
    }


@pytest.mark.parametrize("with_section", [False, True], ids=["alone", "with our section"])
@pytest.mark.parametrize("case", ["unreadable", "private key", "comments", "text", "trusted"])
def test_the_module_and_validate_give_one_verdict_on_a_certificate_that_is_not_for_dns(
        write_ks, peer_pem_forms, case, with_section):
    pem, refusal = _cases(peer_pem_forms)[case]
    module = _module_errors(peer_pem_forms, pem, with_section)
    returncode, cli = _cli_errors(write_ks, peer_pem_forms, pem, with_section)
    assert module == cli
    if refusal is None:
        assert (returncode, cli) == (0, [])
    else:
        assert returncode == 1 and len(cli) == 1 and cli[0].startswith(refusal)


def _module_problems(pem):
    addon = EdnsData()
    addon.handle_header(["--ca=dns-ca.pem"], 5)
    addon.handle_line(GOOD, 6)
    addon.handle_end()
    certificate = Certificate(cert=pem.rstrip("\n"), filename="dns-ca.pem", dir="/etc/pki/dns/")
    certificate.lineno = 1
    result = parsed_kickstart(addon, [certificate])
    return [(p.severity.value, p.message) for p in result.problems
            if p.message not in installer_gaps()]


@pytest.mark.parametrize("case", ["an expired CA beside the CA",
                                  "a CA:FALSE certificate beside the CA",
                                  "a byte order mark before the first BEGIN line",
                                  "a byte order mark that hides a block after the CA",
                                  "an expired CA and a CA:FALSE certificate",
                                  "only a block that a byte order mark hides"])
def test_the_module_and_validate_give_one_verdict_on_a_dns_bundle_with_unusable_certificates(
        write_ks, peer_pem_forms, case):
    # tests/test_trust.py has openssl verify decide each case; here the module agrees.
    pem, _openssl_takes_it = peer_pem_forms.mixed_bundles()[case]
    result = run_cli("validate", write_ks(certificate_section(pem) + edns_section(
        GOOD, options="--ca=dns-ca.pem")))
    cli = [tuple(line.split(": ", 1)[1].split(": ", 1)) for line in result.stdout.splitlines()
           if ": error: " in line or ": warning: " in line]
    assert _module_problems(pem) == cli
