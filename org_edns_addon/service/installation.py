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

"""The module's task: stage the encrypted DNS configuration below a root.

One task class for both phases, as Anaconda's certificate import does: the
installer environment (root ``/``) and the installed system
(``conf.target.system_root``). ``run()`` only calls the pure staging function.
"""

from pyanaconda.anaconda_loggers import get_module_logger
from pyanaconda.modules.common.errors.installation import NonCriticalInstallationError
from pyanaconda.modules.common.task import Task

from org_edns_addon.problems import ValidationError
from org_edns_addon.staging import StagingError
from org_edns_addon.staging.failure import phase_failure
from org_edns_addon.terms import on_screen

log = get_module_logger(__name__)


class StageEncryptedDnsTask(Task):
    """Write the encrypted DNS configuration of a state below ROOT for PHASE."""

    def __init__(self, state, written_certificates, phase, root, runner=None, record=None):
        """STATE is an ``EdnsState`` (a copy, so later edits do not change the task);
        WRITTEN_CERTIFICATES the ``--filename``s of the certificates to write, as
        Anaconda's Security module writes the others; PHASE a ``staging.plan.Phase``;
        RECORD the module's ``staging.record.KeptRecord`` of the installer phase (None:
        nothing of a previous run to put back, as in the target)."""
        super().__init__()
        self._state = state
        self._written_certificates = written_certificates
        self._phase = phase
        self._root = root
        self._runner = runner
        self._record = record

    @property
    def name(self):
        return "Configure encrypted DNS (%s)" % self._phase.value

    def run(self):
        """Stage; return the ``ApplyReport`` (what was written and run).

        A failure is the installer's ``NonCriticalInstallationError``, which its
        error handler knows: an interactive installation asks whether to go on
        without encrypted DNS, a kickstart installation stops. It says what failed and
        what that means to the person installing (``staging.failure``), in the screens'
        words; the details (paths, commands, exit codes) go to the log.
        """
        # Loaded when the task runs, not at the module's start (the installer starts
        # every module at boot).
        from org_edns_addon.staging.apply import stage
        try:
            data = self._state.staging_input().writing_only(self._written_certificates)
            return stage(data, self._phase, self._root, runner=self._runner,
                         record=self._record)
        except (ValidationError, StagingError) as error:
            log.error("Encrypted DNS not configured (%s): %s", self._phase.value, error)
            with on_screen():
                sentence = phase_failure(self._phase, error)
            raise NonCriticalInstallationError(sentence) from None
