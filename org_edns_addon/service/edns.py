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

"""The encrypted DNS module: kickstart in and out, requirements and tasks.

State and every rule live in the pure ``EdnsState`` and the model; this class
maps Anaconda's kickstart handler to and from them and returns tasks.
"""

from dasbus.error import DBusError

from pyanaconda.anaconda_loggers import get_module_logger
from pyanaconda.core.configuration.anaconda import conf
from pyanaconda.core.dbus import DBus, error_mapper
from pyanaconda.core.kernel import kernel_arguments
from pyanaconda.modules.common.base import KickstartService
from pyanaconda.modules.common.constants.services import SECURITY
from pyanaconda.modules.common.containers import TaskContainer
from pyanaconda.modules.common.structures.kickstart import KickstartMessage
from pyanaconda.modules.common.structures.requirement import Requirement

from org_edns_addon.constants import ADDON_NAME
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.dbus.errors import register_errors
from org_edns_addon.dbus.handler import EdnsObjectHandler
from org_edns_addon.ks.module import parsed_kickstart
from org_edns_addon.lines import installer_line
from org_edns_addon.model import Phase
from org_edns_addon.problems import Severity
from org_edns_addon.service.check import CheckServersTask
from org_edns_addon.service.edns_interface import EdnsInterface
from org_edns_addon.service.installation import StageEncryptedDnsTask
from org_edns_addon.service.kickstart import EdnsKickstartSpecification
from org_edns_addon.service.requirements import (BOOT_OPTION_NAMES, boot_option_differences,
                                                 required_packages)
from org_edns_addon.staging.networkmanager import boot_options
from org_edns_addon.state import EdnsState

log = get_module_logger(__name__)

INSTALLER_ROOT = "/"


def security_module_imports_certificates():
    """True if Anaconda's Security module has its ``Certificates`` object on the bus:
    then it writes the ``%certificate`` files itself, in both phases."""
    try:
        from pyanaconda.modules.common.constants.objects import CERTIFICATES
    except ImportError:
        return False  # an Anaconda older than its own %certificate support
    try:
        SECURITY.get_proxy(CERTIFICATES).Certificates  # noqa: B018 (the read is the call)
    except (DBusError, AttributeError) as error:
        log.debug("No Certificates object of the Security module: %s", error)
        return False
    return True


def running_networkmanager_version():
    """NetworkManager's ``Version`` property on the system bus, or None (then
    ``lines.installer_line`` asks ``NetworkManager --version``)."""
    try:
        from pyanaconda.core.dbus import SystemBus
        version = SystemBus.get_proxy("org.freedesktop.NetworkManager",
                                      "/org/freedesktop/NetworkManager").Version
    except Exception as error:  # noqa: BLE001 (any failure: ask the binary instead)
        log.debug("NetworkManager's Version property could not be read: %s", error)
        return None
    return str(version)


class EdnsService(KickstartService, EdnsState):
    """The ``org.fedoraproject.Anaconda.Addons.Edns`` D-Bus service."""

    def __init__(self):
        super().__init__()
        self._kickstart_problems = []
        # What the installer phase wrote last, in memory: a spoke runs it again after
        # each change, and the next run puts back what this configuration no longer has.
        self._installer_record = None
        # The installer's own line: the rules judge for it alone (line_rules.py).
        version = running_networkmanager_version()
        line = installer_line(INSTALLER_ROOT, version,
                              "NetworkManager's D-Bus Version property" if version else None)
        if line is None:
            log.info("This installer is no line of the table (lines.py); judging for every "
                     "line.")
        else:
            log.info("This installer's line: %s (NetworkManager %s).", line.name,
                     line.networkmanager.value)
            self.lines = (line,)

    def publish(self):
        """Publish the module."""
        register_errors(error_mapper)
        TaskContainer.set_namespace(EDNS.namespace)
        # Our handler: no memory kept per call, one short line per refusal, and
        # CheckServers answered from a worker thread (see dbus/handler.py).
        DBus.publish_object(EDNS.object_path, EdnsInterface(self),
                            server_factory=EdnsObjectHandler)
        DBus.register_service(EDNS.service_name)

    @property
    def kickstart_specification(self):
        return EdnsKickstartSpecification

    def read_kickstart(self, s):
        """Read the module's part; every rule's problem joins the report with its line."""
        self._kickstart_problems = []
        report = super().read_kickstart(s)
        for problem in self._kickstart_problems:
            message = KickstartMessage()
            message.message = problem.message
            message.line_number = problem.lineno or 0
            if problem.severity is Severity.ERROR:
                report.error_messages.append(message)
            else:
                report.warning_messages.append(message)
        return report

    def process_kickstart(self, data):
        """Check the section and the certificates together; keep them if valid.

        Without our section the certificates are kept too: a user interface may
        still configure encrypted DNS and name them in its ``Configuration``'s
        ``ca-names``.
        """
        parsed = parsed_kickstart(getattr(data.addons, ADDON_NAME), data.certificates,
                                  **({"lines": self.lines} if self.lines else {}))
        self._kickstart_problems = parsed.problems
        # The installer log says it too: a library missing from the image is no
        # kickstart mistake, and the report may be read by no one (an automated install).
        for problem in parsed.problems:
            (log.error if problem.severity is Severity.ERROR else log.warning)("%s", problem)
        if parsed.errors:
            return
        self.set_kickstart(parsed.config or self.config, parsed.certificates)
        if parsed.config is None:
            return
        present = {name: kernel_arguments.get(name) for name in BOOT_OPTION_NAMES
                   if name in kernel_arguments}
        for sentence in boot_option_differences(boot_options(parsed.config), present):
            log.warning("%s.", sentence)

    def written_certificates(self):
        """The certificates this module writes and generates itself: those added in the
        installer, which only it has, and the kickstart's too when Anaconda's Security
        module is not there to do it."""
        if security_module_imports_certificates():
            return self.added_certificates
        return self.certificates

    def setup_kickstart(self, data):
        """Emit ``%addon org_edns_addon`` and the ``%certificate`` sections this module
        writes (the Security module emits the kickstart's), when there is a configuration
        to install: a kickstart generated here installs what this installation does."""
        if self.configured:
            getattr(data.addons, ADDON_NAME).set_config(self.config)
            data.certificates.extend(cert.kickstart_data()
                                     for cert in self.written_certificates())

    def collect_requirements(self):
        if not self.configured:
            return []
        return [Requirement.for_package(name, reason=reason)
                for name, reason in required_packages(self.config, INSTALLER_ROOT)]

    def check_servers_with_task(self):
        """The pre-flight check of the servers as a task; ``ValidationError`` if the
        configuration has errors."""
        return CheckServersTask(self.staging_input())

    def _stage_tasks(self, phase, root, record=None):
        if not self.configured:
            return []
        written = {cert.filename for cert in self.written_certificates()}
        return [StageEncryptedDnsTask(self.copy(), written, phase, root, record=record)]

    def _installer_phase_record(self):
        if self._installer_record is None:
            # Loaded when the first task is made, not at the module's start.
            from org_edns_addon.staging.record import KeptRecord
            self._installer_record = KeptRecord()
        return self._installer_record

    def configure_with_tasks(self):
        """Stage into the installer environment, so the installation itself uses DoT."""
        return self._stage_tasks(Phase.INSTALLER, INSTALLER_ROOT,
                                 self._installer_phase_record())

    def install_with_tasks(self):
        """Stage into the installed system, its initramfs drop-in included; nothing of the
        addon's own (no record) is left there."""
        return self._stage_tasks(Phase.TARGET, conf.target.system_root)
