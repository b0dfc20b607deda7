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

"""`edns-addon overlay` against `edns-addon validate` of the same kickstart, as whole processes.

Generates a kickstart with 1 000 %certificate sections (fresh CA certificates),
then runs, in turn and several times each in the same run:
  - `edns-addon overlay KS -o IMAGE` (the archive built and written once),
  - `edns-addon validate KS` (the reading and checking that overlay also does),
and prints both medians (wall clock and CPU time) and the median of the pair
ratios. Goal: ratio <= 1.5. Prints figures; never fails on a time.

    PYTHONPATH=$PWD python3 benchmarks/overlay.py [--certificates N] [--runs N]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.whole_process import certificates_benchmark, edns_addon, paired, print_paired

GOAL = 1.5


def main():
    with certificates_benchmark(__doc__.splitlines()[0]) as (args, directory, kickstart):
        image = Path(directory, "overlay.img")
        print_paired("edns-addon overlay", "edns-addon validate", paired(
            edns_addon("overlay", kickstart, "-o", image),
            edns_addon("validate", kickstart), args.runs), GOAL)
        print("  image: %d bytes" % image.stat().st_size)


if __name__ == "__main__":
    main()
