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

"""pykickstart's own ``%certificate`` cases, and what we make of each.

The rows are the 15 test cases of pykickstart/pykickstart ``tests/certificate.py``
(as of commit 435ebbef, June 2026), each rebuilt here with our own certificates
(``lab/certs.py``) in place of its ``CERT_CONTENT`` ones, and checked against
pykickstart itself, run on the same text, and against our reader with and without
an encrypted DNS section:

======================================  ===================================================
pykickstart's case                      we
======================================  ===================================================
``Simple_Header_TestCase``              agree: accepted (the anchors directory by --dir)
``No_Closing_Quotation_TestCase``       agree: refused (pykickstart raises shlex's
                                        ValueError; we say it on the line, no traceback)
``Space_Without_Quotation_TestCase``    agree: refused, "unrecognized arguments"
``Missing_Dir_And_Type_TestCase``       agree: refused (pykickstart's own words); 3.61 to
                                        3.72 take it, the EL lines refuse it
``Missing_Filename_TestCase``           agree: refused (pykickstart's own words)
``Multiple_Terminated_TestCase``        agree: both accepted, bodies kept as given
``Multiple_Unterminated_TestCase``      agree: refused
``Missing_Certificate_Body_Fails_...``  agree: refused
``Cert_Content_Empty_Line_TestCase``    agree: accepted, a bundle with an empty line and a
                                        trailing newline, bodies kept as given
``Certificate_Quoting_TestCase``        differ on purpose: a ``--filename`` holding ``/``
                                        is refused (Anaconda would write outside
                                        ``--dir``); a ``--dir`` with a space and a quote
                                        agrees: we print it quoted and pykickstart reads
                                        it back the same
``Type_Anchor_TestCase``                agree: accepted, placed in the anchors directory
``Type_Anchor_With_Dir_TestCase``       agree: accepted; ``--type`` decides the place, as
                                        Anaconda's Security module decides it
``Dir_Only_No_Type_TestCase``           agree: accepted
``Type_Anchor_Str_TestCase``            agree: printed with ``--type=anchor`` and no
                                        ``--dir`` (quoted only where a shell-like split
                                        needs it; pykickstart reads both alike)
``Type_And_Dir_Str_TestCase``           agree: printed with both
======================================  ===================================================

pykickstart's printer cases use the body ``cert``, which is no certificate: we print
only what we have read, so our rows print a real one.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

import pytest
from pykickstart.errors import KickstartError
from pykickstart.parser import KickstartParser
from pykickstart.version import makeVersion

from lab.kickstarts import edns_section
from org_edns_addon import constants as c
from org_edns_addon.certificates.kickstart import KickstartCertificate
from org_edns_addon.certificates.pem import CertificateError
from tests.conftest import CERTIFICATE_TYPE, PYKICKSTART_REQUIRES_DIR
from tests.ks_fixtures import parse

SOURCE = "pykickstart/pykickstart tests/certificate.py"
GOOD = "dns+tls://192.0.2.53#dot.corp.example"
ANCHORS = c.CA_TRUST_ANCHORS_DIR
MISSING_DIR = ("the following arguments are required: --dir" if PYKICKSTART_REQUIRES_DIR
               else "One of --dir or --type must be specified for %certificate")


@dataclass(frozen=True)
class Case:
    """One of pykickstart's cases: its NAME, the kickstart TEXT (``{ca}``, ``{ca2}`` stand
    for the certificates), and exactly what we do: ``accepts`` ((file name, path) of each
    certificate) or ``refuses`` (the start of the one error)."""
    name: str
    text: str
    accepts: Optional[Tuple[Tuple[str, str], ...]] = None
    refuses: Optional[str] = None
    needs_type: bool = False
    # Taken by pykickstart 3.61 to 3.72 (neither --type nor a required --dir: the EL9 and
    # EL10 rows' PyPI stand-ins, the Fedora row's 3.66), refused by rhel9-branch (--dir
    # required), rhel10-branch and 3.73+ (one of --dir or --type) and by us, as they do.
    stand_in_takes: bool = False


CASES = [
    Case("Simple_Header_TestCase",
         "%certificate --filename=custom_certificate.pem --dir " + ANCHORS + "/\n{ca}%end\n",
         accepts=(("custom_certificate.pem", ANCHORS + "/custom_certificate.pem"),)),
    Case("No_Closing_Quotation_TestCase",
         "%certificate --filename=custom's-certificate.pem --dir=/etc/pki/edns\n{ca}%end\n",
         refuses="No closing quotation"),
    Case("Space_Without_Quotation_TestCase",
         "%certificate --filename=custom certificate.pem --dir=/etc/pki/edns\n{ca}%end\n",
         refuses="unrecognized arguments: certificate.pem"),
    Case("Missing_Dir_And_Type_TestCase",
         "%certificate --filename=custom_certificate.pem\n{ca}%end\n", refuses=MISSING_DIR,
         stand_in_takes=True),
    Case("Missing_Filename_TestCase", "%certificate\n{ca}%end\n",
         refuses="the following arguments are required: --filename"),
    Case("Multiple_Terminated_TestCase",
         "%certificate --filename=custom_certificate_1.pem --dir /etc/pki/edns\n{ca}%end\n\n"
         "%certificate --filename=custom_certificate_2.pem --dir /etc/pki/edns\n{ca2}%end\n",
         accepts=(("custom_certificate_1.pem", "/etc/pki/edns/custom_certificate_1.pem"),
                  ("custom_certificate_2.pem", "/etc/pki/edns/custom_certificate_2.pem"))),
    Case("Multiple_Unterminated_TestCase",
         "%certificate --filename=custom_certificate_1.pem --dir /etc/pki/edns\n{ca}\n"
         "%certificate --filename=custom_certificate_2.pem --dir /etc/pki/edns\n{ca2}",
         refuses="Section %certificate does not end with %end"),
    Case("Missing_Certificate_Body_Fails_TestCase",
         "%certificate --filename=custom_certificate.pem --dir " + ANCHORS + "/\n%end\n",
         refuses="The %certificate section is empty"),
    Case("Cert_Content_Empty_Line_TestCase",
         "%certificate --filename=custom_certificate_1.pem --dir /etc/pki/edns\n{ca}\n{ca2}"
         "%end\n\n%certificate --filename=custom_certificate_2.pem --dir /etc/pki/edns\n"
         "{ca}\n%end\n",
         accepts=(("custom_certificate_1.pem", "/etc/pki/edns/custom_certificate_1.pem"),
                  ("custom_certificate_2.pem", "/etc/pki/edns/custom_certificate_2.pem"))),
    Case("Type_Anchor_TestCase", "%certificate --filename=custom_ca.pem --type anchor\n{ca}%end\n",
         accepts=(("custom_ca.pem", ANCHORS + "/custom_ca.pem"),), needs_type=True),
    Case("Type_Anchor_With_Dir_TestCase",
         "%certificate --filename=custom_ca.pem --type anchor --dir /etc/pki/custom/\n{ca}%end\n",
         accepts=(("custom_ca.pem", ANCHORS + "/custom_ca.pem"),), needs_type=True),
    Case("Dir_Only_No_Type_TestCase",
         "%certificate --filename=custom_certificate.pem --dir /etc/pki/edns\n{ca}%end\n",
         accepts=(("custom_certificate.pem", "/etc/pki/edns/custom_certificate.pem"),)),
]


def _pykickstart_takes(text):
    """Whether pykickstart's own parser takes TEXT, as its test runs it."""
    parser = KickstartParser(makeVersion())
    try:
        parser.readKickstartFromString(text)
    except (KickstartError, ValueError):
        return False, ()
    return True, tuple(certificate.cert for certificate in parser.handler.certificates)


@pytest.mark.parametrize("with_section", [False, True], ids=["alone", "with our section"])
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_each_parser_case_of_pykickstart_is_read_as_pykickstart_reads_it(write_ks, pems, case,
                                                                         with_section):
    if case.needs_type and not CERTIFICATE_TYPE:
        pytest.skip("this pykickstart has no %certificate --type")
    text = case.text.format(ca=pems.ca.pem, ca2=pems.second_ca.pem)
    if with_section:
        text += edns_section(GOOD)
    takes, bodies = _pykickstart_takes(text)
    result = parse(write_ks(text))
    errors = [problem.message for problem in result.errors]
    if case.refuses is not None:
        assert takes == (case.stand_in_takes and not PYKICKSTART_REQUIRES_DIR
                         and not CERTIFICATE_TYPE)
        assert len(errors) == 1 and errors[0].startswith(case.refuses), errors
        return
    assert takes and errors == []
    assert [(cert.filename, cert.path) for cert in result.certificates] == list(case.accepts)
    # The body is kept as pykickstart keeps it, and so as Anaconda writes it.
    assert tuple(cert.pem for cert in result.certificates) == bodies


def _read_back(section):
    parser = KickstartParser(makeVersion())
    parser.readKickstartFromString(section)
    [certificate] = parser.handler.certificates
    return certificate


def test_certificate_quoting_a_file_name_with_a_slash_is_refused_a_strange_dir_is_printed_back(
        pems):
    # Certificate_Quoting_TestCase: "/very /s'trange/ path" as --filename and --dir.
    strange = "/very /s'trange/ path"
    with pytest.raises(CertificateError, match="--filename=/very /s'trange/ path must be a "
                                               "plain file name, without '/'"):
        KickstartCertificate.from_section(strange, pems.ca.pem, strange)
    cert = KickstartCertificate.from_section("ca.pem", pems.ca.pem, strange)
    back = _read_back(cert.kickstart_section())
    assert (back.filename, back.dir, back.cert) == ("ca.pem", strange, cert.pem)


@pytest.mark.skipif(not CERTIFICATE_TYPE, reason="this pykickstart has no %certificate --type")
@pytest.mark.parametrize("directory", [None, "/custom"],
                         ids=["Type_Anchor_Str_TestCase", "Type_And_Dir_Str_TestCase"])
def test_an_anchor_is_printed_with_its_type_and_its_dir_only_when_given(pems, directory):
    cert = KickstartCertificate.from_section("ca.pem", pems.ca.pem, directory, "anchor")
    header = cert.kickstart_section().splitlines()[0]
    assert "--type=anchor" in header
    assert ("--dir=/custom" in header) is (directory is not None)
    back = _read_back(cert.kickstart_section())
    assert (back.filename, back.type, back.dir) == ("ca.pem", "anchor", directory)
