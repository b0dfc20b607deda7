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

"""dnsconfd in an initramfs: Unbound waits for dnsconfd's configuration.

Something may start Unbound in an initramfs before dnsconfd has configured it: an
unbound dracut module that enables it at boot, or Anaconda's ``start_dnsconfd``
(dracut/anaconda-lib.sh: ``systemctl start --no-block unbound.service``, from the
cmdline hook, whenever ``rd.net.dns-backend=dnsconfd``). dnsconfd then *restarts* an
active Unbound, and the stop half of its own restart writes ``stopped`` into its status
file (its unbound.service.d/dnsconfd.conf ``ExecStopPost``), which dnsconfd 2.2.2 takes
for the cache having stopped (src/service_management.c ``on_file_changed``, src/fsm/fsm.c
``on_systemd_job_finished``): it reloads, and the reload raises its configuration serial
past the one its answer to NetworkManager's ``Update`` promised (fsm.c ``update_context``).
NetworkManager 1.52 waits for exactly that serial (src/core/dns/nm-dns-dnsconfd.c
``dnsconfd_serial_changed``) and holds the device in ip-config until its 5 s limit
(nm-dns-manager.c ``UPDATE_PENDING_UNBLOCK_TIMEOUT_MSEC``): network-online came up to
3 s after dnsconfd was ready (make vm-bench, docs/performance.md).

Held back until dnsconfd has written its configuration, Unbound is started once, by
dnsconfd, and never runs on the distribution's own (recursive) configuration before. Outside
an initramfs the drop-in changes nothing.
"""

from org_edns_addon import constants as c
from org_edns_addon.staging.networkmanager import GENERATED_HEADER


def unbound_after_dnsconfd():
    """The unbound.service drop-in: in an initramfs, Unbound starts only once dnsconfd's
    configuration is there. Two triggering conditions (``|``): systemd starts the unit when
    either holds, so outside an initramfs it always may."""
    return ("\n".join([
        GENERATED_HEADER,
        "# In an initramfs, Unbound starts only once dnsconfd has written its",
        "# configuration: dnsconfd starts it then. An Unbound started before would be",
        "# restarted by dnsconfd, which then reloads, and NetworkManager waits 5 s for it.",
        "[Unit]",
        "ConditionPathExists=|!%s" % c.INITRD_RELEASE_PATH,
        "ConditionFileNotEmpty=|%s" % c.DNSCONFD_UNBOUND_CONF_PATH]) + "\n").encode("ascii")
