"""`edns-addon check` against loopback Unbound DoT upstreams, versus kdig.

Whole processes, interleaved rounds, one run: prints the median wall time of
    kdig +tls-ca=CA +tls-hostname=NAME NAME A     (the C reference client)
    edns-addon check KS-1                            (one server)
    edns-addon check KS-10                           (ten servers, each its own Unbound)
    python3 -c PROBE_ONLY                            (check_servers on one server, no kickstart)
    python3 -c pass                                  (this interpreter's start-up floor)
and the ratios against the goals (check <= 3x kdig; ten <= 1.5x one). The
probe-only row is the same query without reading and validating a kickstart
(pykickstart, cryptography): what a Python DoT client costs here.

    PYTHONPATH=. python3 benchmarks/check.py [--rounds N]
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

from tests.dot_fixtures import TLS_NAME, DotPki, dot_kickstart, start_dot_upstream  # noqa: E402

SERVERS = 10
PROBE_ONLY = """
import sys
from org_edns_addon.model import DotServer, EdnsConfig
from org_edns_addon.probe import check_servers
with open(sys.argv[2], "rb") as ca_file:
    checks = check_servers(EdnsConfig(servers=(DotServer.parse_uri(sys.argv[1]),)), ca_file.read())
sys.exit(0 if checks[0].ok else 1)
"""
GOAL_VERSUS_KDIG = 3.0
GOAL_TEN_VERSUS_ONE = 1.5


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv, env):
    """(wall, CPU) seconds of one run of ARGV, which must succeed."""
    cpu_before = _children_cpu()
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit("benchmark: %s failed (%d):\n%s%s" % (
            " ".join(argv), result.returncode, result.stdout, result.stderr))
    return elapsed, _children_cpu() - cpu_before


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    rounds = parser.parse_args().rounds

    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory(prefix="edns-bench-") as scratch:
        scratch = Path(scratch)
        pki = DotPki.create(scratch / "pki")
        upstreams = []
        try:
            for index in range(SERVERS):
                cert, key = pki.files("server")
                upstreams.append(start_dot_upstream(scratch / ("upstream%d" % index),
                                                    "127.0.0.%d" % (index + 2), cert, key))
            one, ten = scratch / "one.ks", scratch / "ten.ks"
            one.write_text(dot_kickstart([upstreams[0].server_line()], pki.ca.pem))
            ten.write_text(dot_kickstart([u.server_line() for u in upstreams], pki.ca.pem))
            first = upstreams[0]
            commands = {
                "kdig": ["kdig", "@%s" % first.address, "-p", str(first.port),
                         "+tls-ca=%s" % pki.ca_path, "+tls-hostname=%s" % TLS_NAME,
                         TLS_NAME, "A"],
                "check, 1 server": [sys.executable, "-m", "org_edns_addon.cli", "check",
                                    str(one)],
                "check, %d servers" % SERVERS: [sys.executable, "-m", "org_edns_addon.cli",
                                                "check", str(ten)],
                "probe only": [sys.executable, "-c", PROBE_ONLY, first.server_line(),
                               str(pki.ca_path)],
                "python3 -c pass": [sys.executable, "-c", "pass"],
            }
            times = {name: [] for name in commands}
            for _ in range(rounds):
                for name, argv in commands.items():
                    times[name].append(timed(argv, env))
        finally:
            for upstream in upstreams:
                upstream.stop()

    medians = {name: statistics.median(wall for wall, _ in values) * 1000
               for name, values in times.items()}
    print("%d interleaved rounds, median per process (load average %.1f):"
          % (rounds, os.getloadavg()[0]))
    print("  %-18s %9s %9s" % ("", "wall", "CPU"))
    for name, value in medians.items():
        cpu = statistics.median(cpu for _, cpu in times[name]) * 1000
        print("  %-18s %6.1f ms %6.1f ms" % (name, value, cpu))
    one_ms, ten_ms = medians["check, 1 server"], medians["check, %d servers" % SERVERS]
    print("check (1 server) / kdig: %.2fx (goal <= %gx)"
          % (one_ms / medians["kdig"], GOAL_VERSUS_KDIG))
    print("check (%d servers) / check (1 server): %.2fx (goal <= %gx)"
          % (SERVERS, ten_ms / one_ms, GOAL_TEN_VERSUS_ONE))
    print("probe only / kdig: %.2fx; python3 -c pass / kdig: %.2fx"
          % (medians["probe only"] / medians["kdig"], medians["python3 -c pass"] / medians["kdig"]))


if __name__ == "__main__":
    main()
