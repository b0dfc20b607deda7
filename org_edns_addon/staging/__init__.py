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

"""From a validated configuration to files and actions below a root.

``plan`` turns a ``StagingInput`` into the files and actions of one phase,
from the renderers of what each peer reads (``networkmanager``, ``unbound``,
``dracut``); ``apply`` writes a plan below a root, atomically and with a
roll-back; ``actions`` runs what comes after the files (units, trust store,
NetworkManager reload). Every module trusts input validated at the edge.
"""


class StagingError(Exception):
    """Staging cannot go on; the message is a sentence for users (the details: what was
    written, restored, run). ``files_written``: the phase's files are written and stay,
    and only steps after them failed (``failed_steps``, each as ``Action.describe``
    says it); otherwise nothing of this run was put in use."""

    def __init__(self, message, files_written=False, failed_steps=()):
        super().__init__(message)
        self.files_written = files_written
        self.failed_steps = tuple(failed_steps)
