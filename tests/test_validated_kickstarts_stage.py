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

"""Validation and the installer's code path never disagree.

Every kickstart that the rest of the suite validated as clean (kept by
tests/ks_fixtures.py's ``parse`` and by ``run_cli``'s validate, generated ones
included) is staged here for both phases and packed as an overlay: any refusal
or exception fails.
"""

from org_edns_addon import initrd
from org_edns_addon.staging.apply import stage
from org_edns_addon.staging.plan import Phase
from tests.ks_fixtures import VALIDATED_KICKSTARTS
from tests.staging_fixtures import RecordingRunner


def test_every_kickstart_validated_clean_stages_in_both_phases_and_packs_as_an_overlay(
        tmp_path):
    assert len(VALIDATED_KICKSTARTS) >= 1, "the suite validated no kickstart clean"
    failures = []
    for number, parsed in enumerate(VALIDATED_KICKSTARTS):
        data = parsed.staging_input()
        for phase in Phase:
            root = tmp_path / ("%d-%s" % (number, phase.value))
            root.mkdir()
            try:
                stage(data, phase, str(root), runner=RecordingRunner())
            except Exception as error:  # noqa: BLE001 (any failure is what this test reports)
                failures.append("%s (%s): %r" % (parsed.filename, phase.value, error))
        try:
            initrd.overlay_image(initrd.overlay_plan(parsed))
        except initrd.OverlayError as error:
            # Refusals validation announced: an %include (flatten first), or servers an
            # initramfs cannot reach (warned about; the installed system can).
            announced = "%include" in str(error) or any(
                "initramfs" in warning.message for warning in parsed.warnings)
            if not announced:
                failures.append("%s (overlay): %r" % (parsed.filename, error))
        except Exception as error:  # noqa: BLE001 (any failure is what this test reports)
            failures.append("%s (overlay): %r" % (parsed.filename, error))
    assert failures == [], "\n".join(failures[:20])
