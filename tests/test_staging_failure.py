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

"""What a person installing reads of a phase that could not be staged
(org_edns_addon/staging/failure.py), from the errors of real applies below a root."""

import pytest

from lab.kickstarts import edns_kickstart
from org_edns_addon.model import Phase
from org_edns_addon.problems import ValidationError
from org_edns_addon.staging import StagingError
from org_edns_addon.staging import apply as staging_apply
from org_edns_addon.staging.failure import phase_failure
from org_edns_addon.state import EdnsState
from tests.staging_fixtures import RecordingRunner, staging_input

UNIT = "[Service]\nExecStart=/usr/sbin/dnsconfd\n[Install]\nWantedBy=multi-user.target\n"


@pytest.fixture
def root(tmp_path):
    path = tmp_path / "root"
    (path / "usr/lib/systemd/system").mkdir(parents=True)
    (path / "usr/lib/systemd/system/dnsconfd.service").write_text(UNIT)
    return path


def test_a_step_failed_after_the_files_says_which_and_what_it_means(write_ks, test_ca, root):
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))
    with pytest.raises(StagingError) as raised:
        staging_apply.stage(data, "target", str(root), runner=RecordingRunner(fail=("systemctl",)))
    error = raised.value
    assert (error.files_written, error.failed_steps) == (True, ("enable dnsconfd.service",))
    # The details (the paths, the command and its exit code) are the error's own message,
    # for the log; the person reads what failed and what it means.
    assert "systemctl --root=%s enable -- dnsconfd.service failed with exit code 1" % root \
        in str(error)
    assert phase_failure(Phase.TARGET, error) == (
        "The installed system could not be fully configured for encrypted DNS: its "
        "configuration is written, but these steps failed: enable dnsconfd.service. If you go "
        "on, the installed system may resolve names without encryption, or not at all, until "
        "encrypted DNS is configured there by hand.")


def test_nothing_written_is_said_as_nothing_in_use(write_ks, test_ca, root):
    # Where the NetworkManager keyfile goes, a directory: the apply refuses before writing.
    (root / "etc/NetworkManager/conf.d/60-edns-global-dns.conf").mkdir(parents=True)
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))
    with pytest.raises(StagingError) as raised:
        staging_apply.stage(data, "installer", str(root), runner=RecordingRunner())
    error = raised.value
    assert str(error).startswith("nothing was written: ")
    assert (error.files_written, error.failed_steps) == (False, ())
    assert phase_failure(Phase.INSTALLER, error) == (
        "The installer could not switch to encrypted DNS: writing its configuration failed, "
        "and nothing of it is in use. Until it does, the installer resolves names as it did "
        "before, possibly without encryption; the installed system is still configured for "
        "encrypted DNS when it is installed.")


def test_a_configuration_with_errors_is_said_so():
    with pytest.raises(ValidationError) as raised:
        EdnsState().staging_input()
    assert phase_failure(Phase.INSTALLER, raised.value).startswith(
        "The installer could not switch to encrypted DNS: the configuration has errors. ")
