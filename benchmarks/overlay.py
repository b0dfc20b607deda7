"""`edns-addon overlay` against `edns-addon validate` of the same kickstart, as whole processes.

Generates a kickstart with 1 000 %certificate sections (fresh CA certificates),
then runs, in turn and several times each in the same run:
  - `edns-addon overlay KS -o IMAGE` (the archive built and written once),
  - `edns-addon validate KS` (the reading and checking that overlay also does),
and prints both medians (wall clock and CPU time) and the median of the pair
ratios. Goal: ratio <= 1.5. Prints figures; never fails on a time.

    PYTHONPATH=$PWD python3 benchmarks/overlay.py [--certificates N] [--runs N]
"""

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.whole_process import (certificates_kickstart, edns_addon, paired,  # noqa: E402
                                      print_paired)

GOAL = 1.5


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--certificates", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="edns-bench-") as directory:
        kickstart = Path(directory, "bench.ks")
        certificates_kickstart(kickstart, args.certificates)
        image = Path(directory, "overlay.img")
        print("kickstart: %d %%certificate sections, %d bytes"
              % (args.certificates, kickstart.stat().st_size))
        print_paired("edns-addon overlay", "edns-addon validate", paired(
            lambda: edns_addon("overlay", kickstart, "-o", image),
            lambda: edns_addon("validate", kickstart), args.runs), GOAL)
        print("  image: %d bytes" % image.stat().st_size)


if __name__ == "__main__":
    main()
