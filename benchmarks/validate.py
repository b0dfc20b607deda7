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

"""Time `edns-addon validate` against pykickstart's `ksvalidator` on the same file, at each size.

For each size, a kickstart in the ``%addon org_edns_addon`` form (which both
tools read) is generated, and the two whole processes run in turn (ours,
theirs, ours, theirs ...), after one warm-up each. The ratio is taken pair by
pair, so a machine that slows down during the run moves both sides of a
ratio alike; the median of those ratios is printed, for wall clock and for
CPU time (which other load disturbs less). Goal: ratio <= 1.0 at every size.
`edns-addon validate` checks every server and certificate; `ksvalidator`
checks neither (it skips an %addon body and only collects %certificate text).

Prints figures; never fails on a time. Exit 1 only when a command fails.

    PYTHONPATH=$PWD python3 benchmarks/validate.py [--runs N] [--keep DIR]
    PYTHONPATH=$PWD python3 benchmarks/validate.py --smallest    # one run, smallest size
"""

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.paired import as_installed

from lab.kickstarts import ksvalidator_command, many_certificates_kickstart
from lab import certs
from benchmarks.whole_process import edns_addon, medians, paired, timed

# (servers, certificates): the servers series, then the certificates series.
SIZES = [(10, 10), (100, 10), (1000, 10), (10000, 10), (10, 100), (10, 1000)]
GOAL = 1.0


def server_line(index):
    """One server line; every fourth form of the syntax in turn (IDN names included)."""
    if index % 4 == 0:
        return "dns+tls://[2001:db8::%x]:853#dot%d.corp.example" % (index + 1, index)
    if index % 4 == 1:
        return "192.0.2.%d#dot%d.corp.example" % (index % 256, index)
    if index % 4 == 2:
        return "dns+tls://198.51.100.%d#dot%d.bücher.example" % (index % 256, index)
    return ("dns+tls://192.0.2.%d#dot%d.lab.example domain=lab%d.example,test.lab%d.example"
            % (index % 256, index, index, index))


def generated_kickstart(servers, certificates, pems):
    """A clean %addon kickstart: CERTIFICATES sections (half anchors, half --ca), SERVERS
    servers; PEMS a list of CA certificates to use in turn."""
    return many_certificates_kickstart(
        pems, certificates, ca_names=certificates, anchors=certificates // 2,
        servers=[server_line(index) for index in range(servers)],
        options="--resolve-mode=exclusive --backend=dnsconfd") + \
        "\n%packages\n@core\n%end\n"


def main():
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="pairs per size (default 7)")
    parser.add_argument("--smallest", action="store_true",
                        help="only the smallest size, one pair (what `make check` runs)")
    parser.add_argument("--keep", metavar="DIR", help="write the kickstarts here and keep them")
    args = parser.parse_args()
    sizes = SIZES[:1] if args.smallest else SIZES
    runs = 1 if args.smallest else args.runs

    pems = [certs.make_ca("Benchmark CA %d" % index).pem
            for index in range(min(max(c for _, c in sizes), 50))]
    scratch = None if args.keep else tempfile.TemporaryDirectory(prefix="edns-bench-")
    directory = Path(args.keep or scratch.name)
    directory.mkdir(parents=True, exist_ok=True)
    print("edns-addon validate / ksvalidator, same file, %d interleaved pairs per size "
          "(median of pairwise ratios; goal <= %.1f)" % (runs, GOAL))
    print("%8s %6s %9s | %9s %9s %6s | %9s %9s %6s" % (
        "servers", "certs", "bytes", "ours wall", "ks wall", "ratio",
        "ours CPU", "ks CPU", "ratio"))
    try:
        for servers, certificates in sizes:
            path = directory / ("bench-%d-servers-%d-certs.ks" % (servers, certificates))
            path.write_text(generated_kickstart(servers, certificates, pems))
            ours = edns_addon("validate", path)
            timed(ours, accept=lambda result: result.returncode == 0 and result.stdout.endswith(
                ": 0 errors, 0 warnings\n"))   # the generated kickstart is clean
            figures = medians(paired(ours, ksvalidator_command() + [str(path)], runs))
            print("%8d %6d %9d | %8.3fs %8.3fs %5.2fx | %8.3fs %8.3fs %5.2fx" % (
                servers, certificates, path.stat().st_size,
                *figures["wall"], *figures["CPU"]), flush=True)
    finally:
        if scratch is not None:
            scratch.cleanup()


if __name__ == "__main__":
    main()
