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

# Build the binary RPMs (edns-anaconda-addon, edns-addon) of this tree into OUTDIR.
#
#   scripts/build-rpm.sh OUTDIR
#
# The source tarball holds the tree as it is (tracked and new files, not ignored ones),
# as `git archive` would for a commit of it. Where rpm has Fedora's Python macros
# (Fedora, EL) the build is the real one, build dependencies checked. Elsewhere (the
# Debian CI machine) scripts/rpm-macros-debian stands in for those macros, and
# --nodeps skips the BuildRequires that Debian does not have (python3-devel,
# pyproject-rpm-macros, and the libraries of the %check import test, which come from
# the Python running the build: PYTHON, default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
# Built from the tarball alone, never from a checkout on the path.
unset PYTHONPATH
out=${1:?usage: build-rpm.sh OUTDIR}
spec=edns-anaconda-addon.spec
name=$(rpmspec -q --srpm --qf '%{NAME}' "$spec")
version=$(rpmspec -q --srpm --qf '%{VERSION}' "$spec")

top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT
mkdir -p "$top/SOURCES"
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' path; do [ -e "$path" ] && printf '%s\0' "$path"; done |
    tar --null -T - --transform "s,^,$name-$version/," -czf "$top/SOURCES/$name-$version.tar.gz"

options=()
lint_options=()
if [ -z "$(rpm --eval '%{?pyproject_wheel:yes}')" ]; then
    options=(--nodeps --load scripts/rpm-macros-debian --define "__python3 ${PYTHON:-python3}")
    lint_options=(--config scripts/rpmlint-debian.toml)
fi
rpmbuild -bb --quiet "${options[@]}" --define "_topdir $top" "$spec"
mkdir -p "$out"
cp "$top"/RPMS/noarch/*.rpm "$out"/
ls "$out"/*.rpm

# rpmlint on the spec and both packages in one run, as Fedora's review does: the
# rpmlintrc's filters are each for the spec or for the packages, and a filter that
# matches nothing in the whole run is an error.
rpms=()
for package in $(rpmspec -q --qf '%{NAME}-%{VERSION}-%{RELEASE}.noarch.rpm\n' "$spec"); do
    rpms+=("$out/$package")
done
rpmlint "${lint_options[@]}" --rpmlintrc "$name.rpmlintrc" "$spec" "${rpms[@]}"
