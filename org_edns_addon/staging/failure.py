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

"""What a person installing reads when a phase could not be staged: what failed, in one
sentence, and what it means for the installation.

The error's own message (the paths written, the command and its exit code, what was
rolled back) is for the log; the module's task logs it and raises this sentence, which
the spokes show and Anaconda's error dialog asks about when the installation starts.
"""

from org_edns_addon.i18n import _
from org_edns_addon.model import Phase
from org_edns_addon.staging import StagingError


def _what_failed(phase, error):
    """One sentence: what of PHASE failed, from ERROR (a ``StagingError`` or the
    ``ValidationError`` of a configuration with errors)."""
    installer = phase is Phase.INSTALLER
    if not isinstance(error, StagingError):
        return _("The installer could not switch to encrypted DNS: the configuration has "
                 "errors.") if installer else \
            _("The installed system could not be configured for encrypted DNS: the "
              "configuration has errors.")
    if error.files_written:
        # TRANSLATORS: %s lists the steps that failed, like "reload NetworkManager".
        return (_("The installer could not switch to encrypted DNS: its configuration is "
                  "written, but these steps failed: %s.") if installer else
                _("The installed system could not be fully configured for encrypted DNS: its "
                  "configuration is written, but these steps failed: %s.")) \
            % ", ".join(error.failed_steps)
    return _("The installer could not switch to encrypted DNS: writing its configuration "
             "failed, and nothing of it is in use.") if installer else \
        _("The installed system could not be configured for encrypted DNS: writing its "
          "configuration failed, and nothing of it is in use.")


def _what_it_means(phase):
    if phase is Phase.INSTALLER:
        return _("Until it does, the installer resolves names as it did before, possibly "
                 "without encryption; the installed system is still configured for "
                 "encrypted DNS when it is installed.")
    return _("If you go on, the installed system may resolve names without encryption, or "
             "not at all, until encrypted DNS is configured there by hand.")


def phase_failure(phase, error):
    """What a person reads when PHASE (a ``model.Phase``) could not be staged because of
    ERROR: what failed, then what it means for the installation (two sentences)."""
    return "%s %s" % (_what_failed(phase, error), _what_it_means(phase))
