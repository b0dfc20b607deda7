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

"""`edns-addon apply` against `edns-addon validate` of the same kickstart, as whole processes.

Generates a kickstart with 1 000 %certificate sections (fresh CA certificates;
a tenth anchors, 20 of the others the DoT CAs), then runs, in turn and
several times each in the same run:
  - `edns-addon apply KS --root R --phase target` into a fresh empty root R
    (every file written as the installer writes a target, not synced: R is not
    this machine's /; actions skipped: the root has no tools),
  - `edns-addon validate KS` (the reading and checking that apply also does),
and prints both medians (wall clock, which includes waiting for the disk, and
CPU time) and the median of the pair ratios. Goal: ratio <= 1.5. Then the same
for an apply where every file is already up to date. Prints figures; never
fails on a time.

    PYTHONPATH=$PWD python3 benchmarks/apply.py [--certificates N] [--runs N]
"""

import itertools
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.whole_process import (certificates_benchmark, edns_addon, paired,
                                      print_paired, timed)

GOAL = 1.5


def main():
    with certificates_benchmark(__doc__.splitlines()[0]) as (args, directory, kickstart):
        numbers = itertools.count()
        roots = []

        def fresh_root():
            # Kept until the end: right after a removal of 1 000 files, ext4 spends
            # most of a file creation skipping their recently deleted inodes.
            roots.append(Path(directory, "root-%d" % next(numbers)))
            roots[-1].mkdir()
            os.sync()   # no data of an earlier run left for the disk to write meanwhile

        def apply_fresh():
            return edns_addon("apply", kickstart, "--root", roots[-1], "--phase", "target")

        validate = edns_addon("validate", kickstart)
        print("apply into an empty root (writes %d files):" % (args.certificates + 3))
        print_paired("edns-addon apply", "edns-addon validate",
                     paired(apply_fresh, validate, args.runs, before_each=fresh_root), GOAL)

        up_to_date = Path(directory, "up-to-date")
        up_to_date.mkdir()
        timed(edns_addon("apply", kickstart, "--root", up_to_date))
        print("apply where every file is already up to date (writes nothing):")
        print_paired("edns-addon apply", "edns-addon validate", paired(
            edns_addon("apply", kickstart, "--root", up_to_date), validate, args.runs), GOAL)


if __name__ == "__main__":
    main()
