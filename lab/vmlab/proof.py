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

"""`make vm-proof`: the addon on the real stack, in booted initramfs images.

    EDNS_TREE=trixie|forky python3 -m lab.vmlab.proof [--case NAME]... [--keep] [--list]

Builds (cached) the Debian tree EDNS_TREE names (trixie by default: NetworkManager
1.52; forky: 1.58) and an installer-style initramfs, then boots that
tree's kernel in qemu (TCG) on a tap in a private network namespace, with
``edns-addon overlay`` appended to the image and ``edns-addon boot-args`` on
the kernel command line, and shows from the serial console and a capture of
the tap what each case does. With DNSCONFD_ROOT=DIR (a dnsconfd installed into
DIR, built elsewhere against that tree) the DoT resolution of NetworkManager's initramfs runs;
without it the proof says so and shows that the initramfs fails closed.

Every counted check is a positive observation: the guest's address and its
packets in the capture, the value NetworkManager runs with, the unit that ran,
the reason a fail-closed case failed in the resolver's own words. What the lab
or Debian's tools do is printed as a fact and never counted. Prints one line
per check and ends with "vm-proof: N passed, N failed"; exit 0 when all
passed, 1 when a check failed, 2 when a case asked for is unknown or cannot
run here.

This is the runner; the cases are lab/vmlab/cases.py's table, the lab and the checks
they share lab/vmlab/checks.py. The sabotage run (lab/vmlab/sabotage.py) runs this one
case at a time; nothing here imports it.
"""

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from lab import freeipa
from lab.vmlab import debian_tree, initramfs
from lab.vmlab.cases import ANACONDA_ENV, FREEIPA_LINE, anaconda_checkout, case_names, cases
from lab.vmlab.checks import (DNSCONFD_ENV, EXIT_CANNOT_RUN, EXIT_FAILED, CannotRun, Lab, Proof,
                              dnsconfd_root)


def run_case(proof, case, image):
    """Run CASE; one that cannot run or crashes fails alone, saying why, and the others go
    on. Returns 1 if it ran to its end."""
    try:
        case.run(proof, image)
        return 1
    except CannotRun as why:
        proof.check(False, "%s could not run: %s" % (case.name, why))
    except Exception as error:   # noqa: BLE001 - the case fails, the run goes on
        import traceback

        proof.check(False, "%s crashed: %s: %s" % (case.name, type(error).__name__,
                                                    str(error)[-600:]))
        for line in traceback.format_exc().splitlines()[-6:]:
            proof.figure("  " + line)
    return 0


def parse_arguments(argv):
    parser = argparse.ArgumentParser(prog="vm-proof", description=__doc__.split("\n")[0])
    parser.add_argument("--case", action="append", default=[], metavar="NAME",
                        help="run only this case (repeatable)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the work directory (serial logs, captures)")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    names = case_names()
    if args.list:
        print("\n".join(names))
        return 0
    unknown = [name for name in args.case if name not in names]
    if unknown:
        print("vm-proof: no case %s; the cases are: %s" % (", ".join(unknown),
                                                         ", ".join(names)))
        return EXIT_CANNOT_RUN
    started = time.monotonic()
    proof = Proof()
    try:
        suite = debian_tree.selected_suite()
        tree = debian_tree.ensure_tree(suite, log=lambda text: print(text, flush=True))
    except debian_tree.TreeUnavailable as error:
        print("vm-proof: no tree: %s" % error)
        return EXIT_CANNOT_RUN
    dnsconfd = dnsconfd_root()
    print("vm-proof: %s tree %s (%s)" % (suite, tree, debian_tree.describe(tree)))
    if dnsconfd:
        print("vm-proof: dnsconfd from %s=%s" % (DNSCONFD_ENV, dnsconfd))
    else:
        print("vm-proof: %s is not set: dnsconfd is packaged nowhere reachable, so its parts "
              "(DoT resolution in the installer's initramfs, the dnsconfd backend of the "
              "installed system) are not run; everything else is, and the installer's "
              "initramfs must fail closed" % DNSCONFD_ENV)
    workdir = Path(tempfile.mkdtemp(prefix="edns-vm-proof.", dir=str(tree.parent)))
    lab = Lab(workdir, tree, dnsconfd, suite=suite)
    chosen = [case for case in cases(lab) if not args.case or case.name in args.case]
    anaconda, anaconda_why = anaconda_checkout() if any(
        case.needs_anaconda for case in chosen) else (None, "")
    if anaconda:
        print("vm-proof: the composed cases run anaconda %s from %s=%s" % (
            anaconda_why, ANACONDA_ENV, anaconda))

    def missing(case):
        """What CASE needs that is not here, or None."""
        if case.needs_dnsconfd and not dnsconfd:
            return "dnsconfd (give %s)" % DNSCONFD_ENV
        if case.needs_anaconda and not anaconda:
            return "an anaconda checkout: %s" % anaconda_why
        if case.needs_freeipa:
            try:
                freeipa.client_dns(FREEIPA_LINE)
            except freeipa.FreeipaUnavailable as why:
                return "FreeIPA's client: %s" % why
        return None
    cannot = ["%s needs %s" % (case.name, missing(case)) for case in chosen if missing(case)]
    if args.case and cannot:
        lab.network.stop()
        shutil.rmtree(workdir, ignore_errors=True)
        print("vm-proof: cannot run: %s" % "; ".join(cannot))
        return EXIT_CANNOT_RUN
    print("vm-proof: work directory %s" % workdir)
    image, image_seconds = initramfs.installer_image(tree, dnsconfd)
    print("vm-proof: installer-style image %s (%s)" % (
        image.name, "built in %.0f s" % image_seconds if image_seconds else "cached"))
    ran = 0
    try:
        lab.start()
        for case in chosen:
            if missing(case):
                proof.section("%s [%s]: not run (it needs %s)" % (case.title, case.name,
                                                                  missing(case)))
                continue
            proof.section("%s [%s]" % (case.title, case.name))
            ran += run_case(proof, case, image)
    finally:
        lab.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print("\nvm-proof: %d cases, %d boots, %.0f s each on average; whole proof %.0f s%s" % (
        ran, len(lab.boots), sum(lab.boots) / max(len(lab.boots), 1),
        time.monotonic() - started, "" if dnsconfd else " (without dnsconfd)"))
    print("vm-proof: %d passed, %d failed" % (proof.passed, proof.failed))
    if ran == 0 or proof.passed == 0:
        print("vm-proof: nothing was proven")
        return EXIT_FAILED
    return 0 if proof.failed == 0 else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
