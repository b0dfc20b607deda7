#!/bin/bash
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

# Run the test suite against real parts. A private dbus-daemon is started here
# for the whole run; tests start their own Unbound and dracut runs as fixtures.
# pytest's "no tests ran" (exit 5) is a failure, never a pass.
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

bus_dir=$(mktemp -d)
bus_info=$(dbus-daemon --session --print-address=1 --print-pid=1 --fork \
           --address="unix:path=$bus_dir/bus") || { echo "cannot start dbus-daemon"; exit 1; }
bus_address=$(echo "$bus_info" | sed -n 1p)
bus_pid=$(echo "$bus_info" | sed -n 2p)
trap 'kill "$bus_pid" 2>/dev/null; rm -rf "$bus_dir"' EXIT
export EDNS_TEST_BUS_ADDRESS="$bus_address"
echo "run-tests: private dbus-daemon pid $bus_pid at $bus_address"

"$PYTHON" -m pytest "$@"
status=$?
if [ $status -eq 5 ]; then
    echo "run-tests: pytest collected no tests; that is a failure"
    exit 1
fi
exit $status
