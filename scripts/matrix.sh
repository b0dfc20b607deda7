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

# Run the tests on one row of the support matrix (docs/support-matrix.md): the row's
# Python from pyenv, in a venv holding exactly the row's library versions from PyPI
# (requirements-ROW.txt), everything but the pyanaconda tests (no registry has it).
#
#   scripts/matrix.sh el9|el10|fedora [pytest args]
#
# The venv is .matrix/ROW, made again when the row's requirements change. Installing
# the addon into it with `pip check` proves the pins satisfy setup.py's minimums.
set -euo pipefail
cd "$(dirname "$0")/.."
row=${1:?usage: matrix.sh el9|el10|fedora [pytest args]}
shift
requirements=requirements-$row.txt
[ -f "$requirements" ] || {
    echo "matrix: no $requirements; the rows are el9, el10 and fedora" >&2; exit 2; }
python=$(sed -n 's/^# matrix-python: *//p' "$requirements")
base=$(pyenv prefix "$python" 2>/dev/null) || {
    echo "matrix: Python $python (row $row) is not in pyenv; install it: pyenv install $python" >&2
    exit 1; }

started=$SECONDS
venv=.matrix/$row
stamp="$python $(cat "$requirements" requirements-test.txt | sha256sum | cut -c1-16)"
if [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "matrix: $row: making $venv (Python $python, $requirements)"
    rm -rf "$venv"
    "$base/bin/python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
    echo "$stamp" > "$venv/.stamp"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
    --no-build-isolation -e .
"$venv/bin/python" -m pip check
venv_seconds=$((SECONDS - started))

status=0
PATH="$PWD/$venv/bin:$PATH" PYTHON="$PWD/$venv/bin/python" PYTHONPATH="$PWD" \
    ./scripts/run-tests.sh "$@" || status=$?
echo "matrix: $row ($("$venv/bin/python" -V)): venv ${venv_seconds}s, tests" \
     "$((SECONDS - started - venv_seconds))s, exit $status"
exit $status
