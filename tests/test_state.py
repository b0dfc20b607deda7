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

"""The state the module and the text UI edit (state.py): the bounds of what it takes."""

import dataclasses

import pytest

from lab import certs
from org_edns_addon.certificates.kickstart import KickstartCertificate
from org_edns_addon.constants import DOT_CA_DIR, MAX_KICKSTART_BYTES
from org_edns_addon.problems import ModelError
from org_edns_addon.state import EdnsState


def test_certificates_beyond_what_a_kickstart_holds_are_refused():
    # In the state itself (the module's and the text UI's): reading 16 MiB of certificates
    # over D-Bus would only make the test slow.
    bundle = KickstartCertificate.from_section(
        "bundle.pem", "".join(certs.make_ca("Bundle %d" % n).pem for n in range(100)),
        DOT_CA_DIR, added=True)
    state = EdnsState()
    added = 0
    with pytest.raises(ModelError, match="^the certificates would not fit in a kickstart "
                                         r"\(16384 KiB at most\); remove one first$"):
        while True:
            state.add_certificate(dataclasses.replace(bundle, filename="b%d.pem" % added))
            added += 1
    assert added == MAX_KICKSTART_BYTES // len(bundle.pem) == len(state.certificates)
