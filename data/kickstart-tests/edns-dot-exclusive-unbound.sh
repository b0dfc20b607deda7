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
#
# Encrypted DNS with the org_edns_addon addon, unbound backend (kickstart-tests format).
#
# The lab provides: a DoT server and a routed one it can reach, their CA as the
# fragment data/edns-dot-ca.pem, the KSTEST_EDNS_* values (README.md beside this
# file), and the addon's updates image (make updates.img) through
# run_kickstart_tests.sh -u URL, or KSTEST_EDNS_UPDATES=URL when -u is not given.

# Ignore unused variable parsed out by tooling scripts as test tags metadata
# shellcheck disable=SC2034
TESTTYPE=${TESTTYPE:-"network dns edns-addon"}
KICKSTART_NAME=edns-dot-exclusive-unbound

. ${KSTESTDIR}/functions.sh

kernel_args() {
    # What `edns-addon boot-args` prints for this kickstart: the servers for all names
    # (the routed domain reaches the installer only through the addon's ConfigureWithTasks;
    # the CA through the kickstart, which is injected into the initrd and whose
    # %certificate parse-kickstart imports).
    echo ${DEFAULT_BOOTOPTS} \
        rd.net.dns=dns+tls://${KSTEST_EDNS_DOT_SERVER}#${KSTEST_EDNS_DOT_NAME} \
        rd.net.dns-resolve-mode=exclusive rd.net.dns-backend=dnsconfd
}

prepare_updates() {
    # The harness adds inst.updates= for what this prints (run_one_test.py): one at most.
    echo "${UPDATES:-${KSTEST_EDNS_UPDATES}}"
}

additional_runner_args() {
    # Wait for reboot and shutdown of the VM, but exit after the specified timeout.
    echo "--wait $(get_timeout)"
}
