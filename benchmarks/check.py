"""`edns-addon check` against loopback Unbound DoT upstreams, versus kdig.

Whole processes, interleaved rounds, one run: prints the median wall time of
    kdig +tls-ca=CA +tls-hostname=NAME NAME A     (the C reference client)
    edns-addon check KS-1                            (one server)
    edns-addon check KS-10                           (ten servers, each its own Unbound)
    python3 -c pass                                  (this interpreter's start-up floor)
and the ratios against the goals (check <= 3x kdig; ten <= 1.5x one).

    PYTHONPATH=. python3 benchmarks/check.py [--rounds N]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.dot_fixtures import TLS_NAME, DotPki, start_dot_upstream  # noqa: E402

SERVERS = 10
GOAL_VERSUS_KDIG = 3.0
GOAL_TEN_VERSUS_ONE = 1.5


def kickstart(pki, upstreams):
    return ("%%certificate --filename=dns-ca.pem --dir=/etc/pki/dns/\n%s%%end\n"
            "%%addon org_edns_addon --ca=dns-ca.pem\n%s\n%%end\n"
            % (pki.ca.pem, "\n".join(u.server_line() for u in upstreams)))


def timed(argv, env):
    """Wall seconds of one run of ARGV, which must succeed."""
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit("benchmark: %s failed (%d):\n%s%s" % (
            " ".join(argv), result.returncode, result.stdout, result.stderr))
    return elapsed


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
            one.write_text(kickstart(pki, upstreams[:1]))
            ten.write_text(kickstart(pki, upstreams))
            first = upstreams[0]
            commands = {
                "kdig": ["kdig", "@%s" % first.address, "-p", str(first.port),
                         "+tls-ca=%s" % pki.ca_path, "+tls-hostname=%s" % TLS_NAME,
                         TLS_NAME, "A"],
                "check, 1 server": [sys.executable, "-m", "org_edns_addon.cli", "check",
                                    str(one)],
                "check, %d servers" % SERVERS: [sys.executable, "-m", "org_edns_addon.cli",
                                                "check", str(ten)],
                "python3 -c pass": [sys.executable, "-c", "pass"],
            }
            times = {name: [] for name in commands}
            for _ in range(rounds):
                for name, argv in commands.items():
                    times[name].append(timed(argv, env))
        finally:
            for upstream in upstreams:
                upstream.stop()

    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    print("%d interleaved rounds, median wall time per process:" % rounds)
    for name, value in medians.items():
        print("  %-20s %7.1f ms" % (name, value))
    one_ms, ten_ms = medians["check, 1 server"], medians["check, %d servers" % SERVERS]
    print("check (1 server) / kdig: %.2fx (goal <= %gx)"
          % (one_ms / medians["kdig"], GOAL_VERSUS_KDIG))
    print("check (%d servers) / check (1 server): %.2fx (goal <= %gx)"
          % (SERVERS, ten_ms / one_ms, GOAL_TEN_VERSUS_ONE))


if __name__ == "__main__":
    main()
