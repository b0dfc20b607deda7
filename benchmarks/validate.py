"""Time `edns-addon validate` against pykickstart's `ksvalidator`, as whole processes.

Generates a kickstart with 200 %certificate sections (fresh CA certificates)
and 100 servers, then runs, interleaved and several times each, in the same run:
  - `edns-addon validate` on its %edns form (every certificate and server checked),
  - `ksvalidator` on its %addon form (which checks neither),
and prints both medians (wall clock, and CPU time, which other load on the
machine disturbs less) and their ratios. Goal: ratio <= 1.5. Prints figures;
never fails on a time.

    PYTHONPATH=$PWD python3 benchmarks/validate.py [--runs N] [--keep DIR]
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from org_edns_addon.ks.convert import convert_text  # noqa: E402
from tests import certs  # noqa: E402
from tests.ks_fixtures import ksvalidator_command  # noqa: E402

CERTIFICATES = 200
SERVERS = 100


def generated_kickstart():
    """A %edns kickstart: CERTIFICATES CA sections (half --ca, half anchors), SERVERS servers."""
    parts = ["text\nlang en_US.UTF-8\nkeyboard us\ntimezone UTC --utc\nrootpw --lock\n"]
    ca_names = []
    for index in range(CERTIFICATES):
        pem = certs.make_ca("Benchmark CA %d" % index).pem
        if index % 2:
            parts.append("%%certificate --filename=anchor-%d.pem --type=anchor\n%s%%end\n"
                         % (index, pem))
        else:
            name = "dns-ca-%d.pem" % index
            ca_names.append(name)
            parts.append("%%certificate --filename=%s --dir=/etc/pki/dns/\n%s%%end\n"
                         % (name, pem))
    parts.append("%%edns --resolve-mode=exclusive --backend=dnsconfd --search=corp.example "
                 "--ca=%s\n" % ",".join(ca_names))
    for index in range(SERVERS):
        if index % 4 == 0:
            line = "dns+tls://[2001:db8::%x]:853#dot%d.corp.example" % (index + 1, index)
        elif index % 4 == 1:
            line = "192.0.2.%d#dot%d.corp.example" % (index, index)
        elif index % 4 == 2:
            line = "dns+tls://198.51.100.%d:8853#dot%d.bücher.example" % (index, index)
        else:
            line = ("dns+tls://192.0.2.%d#dot%d.lab.example domain=lab%d.example,"
                    "test.lab%d.example" % (index, index, index, index))
        parts.append(line + "\n")
    parts.append("%end\n\n%packages\n@core\n%end\n")
    return "".join(parts)


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command):
    """(wall seconds, CPU seconds) of one run of COMMAND, which must succeed."""
    cpu, start = _children_cpu(), time.perf_counter()
    completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=dict(os.environ, PYTHONPATH=str(REPO)))
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if completed.returncode != 0:
        sys.exit("benchmark: %s failed (exit %d): %s" % (command[0], completed.returncode,
                                                        completed.stderr.decode()[-500:]))
    return elapsed, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", metavar="DIR", help="write the kickstarts here and keep them")
    args = parser.parse_args()

    directory = args.keep or tempfile.mkdtemp(prefix="edns-bench-")
    os.makedirs(directory, exist_ok=True)
    edns_form = Path(directory, "bench-edns.ks")
    addon_form = Path(directory, "bench-addon.ks")
    text = generated_kickstart()
    edns_form.write_text(text)
    header = [n for n, line in enumerate(text.splitlines(), 1) if line.startswith("%edns")]
    addon_form.write_text(convert_text(text, header))

    ours = [sys.executable, "-m", "org_edns_addon.cli", "validate", str(edns_form)]
    theirs = ksvalidator_command() + [str(addon_form)]
    timed(ours), timed(theirs)  # warm the page cache and .pyc files
    ours_runs, theirs_runs = [], []
    for _ in range(args.runs):
        ours_runs.append(timed(ours))
        theirs_runs.append(timed(theirs))
    print("kickstart: %d %%certificate sections, %d servers, %d bytes"
          % (CERTIFICATES, SERVERS, len(text.encode())))
    for label, runs in (("edns-addon validate (%edns form)", ours_runs),
                        ("ksvalidator (%addon form)", theirs_runs)):
        print("%-33s median %.3f s wall, %.3f s CPU over %d runs"
              % (label + ":", statistics.median(r[0] for r in runs),
                 statistics.median(r[1] for r in runs), args.runs))
    for index, what in ((0, "wall"), (1, "CPU")):
        ratio = statistics.median(r[index] for r in ours_runs) / \
            statistics.median(r[index] for r in theirs_runs)
        print("ratio (%s): %.2f (goal <= 1.5)" % (what, ratio))
    if not args.keep:
        for path in (edns_form, addon_form):
            path.unlink()
        os.rmdir(directory)


if __name__ == "__main__":
    main()
