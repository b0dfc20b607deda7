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

import pytest

from lab import certs
from org_edns_addon.ks.reader import parse_kickstart

# Every kickstart the suite reads clean, with an encrypted DNS section (``parse``, and
# conftest's ``run_cli`` for `validate`): at the end of the run each goes through staging
# for both phases and the overlay (tests/test_validated_kickstarts_stage.py), so
# validation and the installer's code path can never disagree.
VALIDATED_KICKSTARTS = []


def parse(path, now=None):
    """``parse_kickstart(PATH)``, as a test reads a kickstart: a clean result with an
    encrypted DNS section is kept in VALIDATED_KICKSTARTS, unless what staging needs is in
    a file missing here (one a %pre writes: staging refuses it, naming the file)."""
    result = parse_kickstart(path, now)
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
