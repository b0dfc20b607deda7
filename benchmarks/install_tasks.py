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

"""The module's installation tasks against Anaconda's Security module importing the same
%certificate sections on the same roots (the anaconda tier).

    $PYTHON benchmarks/install_tasks.py [--certificates 1,1000] [--runs N]

with a line's variables exported as docs/testing.md's anaconda tier says (ANACONDA_SRC,
PYTHONPATH, ANACONDA_CONFIG_TMP, and PYTHON, the interpreter that imports pyanaconda).

For each size, a kickstart with that many %certificate sections (fresh CAs; a tenth
system trust anchors, the first 20 of the others the DoT CAs, as benchmarks/apply.py's),
read once, as the module and the Security module read it. Then, in every round and in
an order that rotates, each side runs its tasks into a fresh pair of empty roots (an
installer root and a target root):

- ours: the tasks ``ConfigureWithTasks`` (installer phase) and ``InstallWithTasks``
  (target phase) return, ``StageEncryptedDnsTask.run()`` with the real command runner,
  beside the Security module (it writes no %certificate: the DoT bundle, the keyfile, the
  drop-in; the installer's case) and alone (it writes every %certificate too, as
  without the Security module);
- Anaconda's: ``CertificatesModule.import_with_task()`` (the installer) and
  ``install_with_task()`` (the target), the Security module's ``ImportCertificatesTask``
  on the same roots.

``update-ca-trust extract`` is run by whichever side writes a ``--type=anchor``
certificate, inside the root (``chroot``), as both do in the installer; an empty root has
none, and the benchmark says for each side how often it was run, skipped or failed for
that reason (Fedora's update-ca-trust is not in Debian: on this machine neither side's
extraction is timed). Prints medians and the median of the round-by-round ratios (goal:
ours <= 1.5x the Security module's import). Not a test: it never fails on a time.
Without ANACONDA_SRC or an importable pyanaconda it says why and exits 0.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GOAL = 1.5
TITLE = ("The module's ConfigureWithTasks and InstallWithTasks against Anaconda's Security "
         "module importing the same %certificate sections on the same roots")


def _skip_reason():
    """Why this benchmark cannot run here, or None."""
    if not os.environ.get("ANACONDA_SRC"):
        return "ANACONDA_SRC names no anaconda checkout (docs/testing.md, the anaconda tier)"
    if not os.environ.get("ANACONDA_CONFIG_TMP"):
        return "ANACONDA_CONFIG_TMP names no anaconda.conf (the checkout's data/anaconda.conf)"
    try:
        import pyanaconda.modules.security.certificates.installation  # noqa: F401
    except ImportError as error:
        return "pyanaconda is not importable (%s); put ANACONDA_SRC on PYTHONPATH" % error
    return None


class Sides:
    """What each side runs into a pair of roots, for one kickstart."""

    def __init__(self, kickstart):
        from pyanaconda.modules.security.certificates.certificates import CertificatesModule
        from org_edns_addon.ks.reader import parse_kickstart
        from org_edns_addon.state import EdnsState

        parsed = parse_kickstart(str(kickstart))
        assert not parsed.errors, [str(p) for p in parsed.errors]
        self.state = EdnsState(parsed.config, parsed.certificates)
        self.certificates = CertificatesModule()
        self.certificates.process_kickstart(parsed.handler)
        self.all_names = {cert.filename for cert in parsed.certificates}
        self.notes = {}

    def _note(self, side, what):
        self.notes.setdefault(side, {}).setdefault(what, 0)
        self.notes[side][what] += 1

    def ours(self, written, side):
        def run(installer, target):
            from org_edns_addon.service.installation import StageEncryptedDnsTask
            from org_edns_addon.staging.plan import Phase
            for phase, root in ((Phase.INSTALLER, installer), (Phase.TARGET, target)):
                report = StageEncryptedDnsTask(self.state.copy(), written, phase,
                                               str(root)).run()
                for action in report.actions_done:
                    if action.startswith("update-ca-trust"):
                        self._note(side, "update-ca-trust run")
                for action, reason in report.actions_skipped:
                    if action.startswith("update-ca-trust"):
                        self._note(side, "update-ca-trust skipped (%s)" % reason.replace(
                            str(root), "the root"))
        return run

    def security(self, installer, target):
        from pyanaconda.modules.common.errors.installation import SecurityInstallationError
        from pyanaconda.modules.security.certificates import installation
        from pyanaconda.modules.security.certificates.installation import \
            ImportCertificatesTask
        # rhel-9's Security module has no --type and runs no update-ca-trust: no such set.
        needs_update = getattr(installation, "CERT_TYPES_REQUIRING_UPDATE", ())
        certificates = self.certificates.certificates
        anchors = any(getattr(cert, "type", None) in needs_update for cert in certificates)
        # import_with_task() is this task with sysroot="/", install_with_task() with
        # conf.target.system_root; here both on the round's roots.
        for root in (installer, target):
            try:
                ImportCertificatesTask(sysroot=str(root), certificates=certificates).run()
                if anchors:
                    self._note("Security module", "update-ca-trust run")
            except (SecurityInstallationError, FileNotFoundError) as error:
                # The root has no update-ca-trust: its anchors are written, then the
                # extraction fails, as in the composed installer sequence's trixie target.
                self._note("Security module", "update-ca-trust failed (%s)"
                           % str(error).split(":")[0])


def rounds(sides, runs, directory):
    """{side: [seconds, ...]} of SIDES ({name: run(installer, target)}), RUNS rounds after
    one uncounted warm-up each, each run into fresh empty roots, the order rotating."""
    names = list(sides)
    times = {name: [] for name in names}
    counter = iter(range(10 ** 9))

    def once(name):
        base = Path(directory, "r%d" % next(counter))
        installer, target = base / "installer", base / "target"
        installer.mkdir(parents=True)
        target.mkdir()
        os.sync()
        started = time.perf_counter()
        sides[name](installer, target)
        elapsed = time.perf_counter() - started
        # Kept until the end (benchmarks/apply.py: ext4 is slow to create files right
        # after many were removed nearby).
        return elapsed

    for name in names:
        once(name)
    for number in range(runs):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(once(name))
    return times


def ratio(times, numerator, denominator):
    return statistics.median(a / b for a, b in zip(times[numerator], times[denominator]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=TITLE)
    parser.add_argument("--certificates", default="1,1000",
                        help="comma-separated sizes (default 1,1000)")
    parser.add_argument("--runs", type=int, default=7, help="rounds per size")
    args = parser.parse_args(argv)
    reason = _skip_reason()
    if reason:
        print("skipped: %s" % reason)
        return 0

    from benchmarks.whole_process import certificates_kickstart
    print(TITLE)
    print("anaconda %s (%s)" % (__import__("pyanaconda.version").version.__version__,
                                os.environ["ANACONDA_SRC"]))
    for count in (int(word) for word in args.certificates.split(",")):
        with tempfile.TemporaryDirectory(prefix="edns-bench-tasks-", dir="/var/tmp") as top:
            kickstart = Path(top, "bench.ks")
            certificates_kickstart(kickstart, count)
            sides = Sides(kickstart)
            ours_beside = "ours beside the Security module"
            ours_alone = "ours alone (every %certificate too)"
            runners = {"Security module's import": sides.security,
                       ours_beside: sides.ours(set(), ours_beside),
                       ours_alone: sides.ours(sides.all_names, ours_alone)}
            times = rounds(runners, args.runs, Path(top, "roots"))
            print("%d %%certificate sections (%d anchors), installer root + target root, "
                  "%d rounds (load average %.1f):" % (count, count // 10, args.runs,
                                                      os.getloadavg()[0]))
            width = max(len(name) for name in times)
            for name, samples in times.items():
                print("  %-*s median %8.1f ms  min %8.1f ms" % (
                    width, name, statistics.median(samples) * 1000, min(samples) * 1000))
            for name in (ours_beside, ours_alone):
                print("  ratio %s / Security module's import: %.2fx (goal <= %.1fx)"
                      % (name, ratio(times, name, "Security module's import"), GOAL))
            for side, notes in sorted(sides.notes.items()):
                for what, number in sorted(notes.items()):
                    print("  %s: %s, %d times" % (side, what, number))
            shutil.rmtree(Path(top, "roots"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
