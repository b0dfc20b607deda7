"""Time staging: plan + write of the bundled example, and of 50..200 certificates.

Prints medians, the per-certificate cost, and the ratio to a baseline measured
in the same run: the same files written by plain atomic writes (no plan, no
root confinement, no checks). Not a test: it prints figures and never fails.
Run: PYTHONPATH=. python3 benchmarks/apply.py
"""

import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from org_edns_addon.staging import plan as staging_plan  # noqa: E402
from org_edns_addon.staging import apply as staging_apply  # noqa: E402
from org_edns_addon.staging import actions as staging_actions  # noqa: E402
from org_edns_addon.certificates import CaCertificate  # noqa: E402
from org_edns_addon.fileio import write_atomically  # noqa: E402
from org_edns_addon.ks.reader import parse_kickstart  # noqa: E402
from tests import certs  # noqa: E402

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "data", "examples", "corp-dot.ks")
RUNS = 31


class NoCommands(staging_actions.CommandRunner):
    def run(self, argv):
        pass


def medians_ms(functions, runs=RUNS):
    """Median (wall, CPU) milliseconds of each of FUNCTIONS(fresh root), run interleaved
    so that disk noise hits them alike; wall includes waiting for fsync."""
    walls = [[] for _ in functions]
    cpus = [[] for _ in functions]
    for _ in range(runs):
        for number, function in enumerate(functions):
            with tempfile.TemporaryDirectory() as root:
                wall, cpu = time.perf_counter(), time.process_time()
                function(root)
                walls[number].append(time.perf_counter() - wall)
                cpus[number].append(time.process_time() - cpu)
    return [(statistics.median(w) * 1000, statistics.median(c) * 1000)
            for w, c in zip(walls, cpus)]


def stage(data):
    return lambda root: staging_apply.stage(data, staging_plan.Phase.TARGET, root, runner=NoCommands())


def plain_writes(data):
    """The baseline: the same files, written with plain atomic writes."""
    files = staging_plan.build_plan(data, staging_plan.Phase.TARGET, "/").files

    def write(root):
        for planned in files:
            path = os.path.join(root, planned.path.lstrip("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_atomically(path, planned.content, planned.mode)
    return write


def with_certificates(data, count, pem):
    extra = tuple(CaCertificate.from_section("bench-%03d.pem" % number, pem, "/etc/pki/bench")
                  for number in range(count))
    return replace(data, certificates=data.certificates + extra)


def main():
    example = parse_kickstart(EXAMPLE).staging_input()
    pem = certs.make_ca("Benchmark CA").pem

    (example_ms, example_cpu), (baseline_ms, baseline_cpu) = medians_ms(
        [stage(example), plain_writes(example)])
    with tempfile.TemporaryDirectory() as root:
        staging_apply.stage(example, staging_plan.Phase.TARGET, root, runner=NoCommands())
        start = time.perf_counter()
        for _ in range(RUNS):
            staging_apply.stage(example, staging_plan.Phase.TARGET, root, runner=NoCommands())
        again_ms = (time.perf_counter() - start) / RUNS * 1000

    print("medians; wall includes waiting for the disk (fsync; noisy on a shared machine), "
          "CPU is user + system time")
    print("example (%d files), plan + write:   wall %7.2f ms  CPU %6.2f ms  (goal < 20 ms)"
          % (len(staging_plan.build_plan(example, "target", "/").files), example_ms, example_cpu))
    print("  baseline, plain atomic writes:    wall %7.2f ms  CPU %6.2f ms  (ratio wall %.2f, "
          "CPU %.2f)" % (baseline_ms, baseline_cpu, example_ms / baseline_ms,
                         example_cpu / baseline_cpu))
    print("  again, nothing to write:          wall %7.2f ms" % again_ms)
    results = {}
    for count in (50, 100, 200):
        data = with_certificates(example, count, pem)
        results[count], base = medians_ms([stage(data), plain_writes(data)], runs=5)
        print("example + %3d certificates:         wall %7.2f ms  CPU %6.2f ms  (baseline CPU "
              "%6.2f ms, ratio %.2f)" % (count, results[count][0], results[count][1], base[1],
                                         results[count][1] / base[1]))
    for what, index in (("wall", 0), ("CPU", 1)):
        example_cost = (example_ms, example_cpu)[index]
        per_certificate = (results[200][index] - example_cost) / 200
        linearity = (results[200][index] - example_cost) / (2 * (results[100][index]
                                                                  - example_cost))
        print("per certificate (%4s):             %7.3f ms;  cost(200) / 2 cost(100) = %.2f "
              "(1.00 is linear)" % (what, per_certificate, linearity))


if __name__ == "__main__":
    main()
