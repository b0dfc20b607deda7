"""Real DNS over TLS on loopback for tests: a test PKI and Unbound processes.

Import the fixtures you need into a test module (pytest finds fixtures by the
names a module holds)::

    from tests.dot_fixtures import dot_pki, dot_upstream, unbound_forwarder  # noqa: F401

Fixtures
  ``dot_pki`` (session)       certificates written to files: ``ca`` signed the
                              server certificates for ``TLS_NAMES``; ``other_ca`` is
                              unrelated; ``expired_server`` is signed by ``ca`` but
                              expired yesterday.
  ``dot_upstream`` (session)  Unbound serving ``ZONE_RECORDS`` over TLS only, on
                              127.0.0.2@<free port> with the valid certificate.
  ``expired_upstream`` (session)  the same on 127.0.0.3 with the expired certificate.
  ``unbound_forwarder`` (function)  a factory ``(config_text, address) -> UnboundProcess``
                              running a local forwarder; stopped at teardown.

Plain helpers (also used by ``benchmarks/``): ``DotPki.create``, ``free_port``,
``start_unbound``, ``start_dot_upstream``, ``start_forwarder``,
``forward_zone_config``, ``ask`` (a UDP query) and ``dot_kickstart`` (kickstart
text naming upstreams and a CA). Every process started here is stopped by its
PID when its fixture ends, also when the test fails; a helper that cannot bring
Unbound up stops it before raising, with Unbound's log in the message. Each
Unbound also gets SIGTERM should the test process itself die.
"""

import ctypes
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, List, Optional, Sequence, Tuple

import pytest

from tests import certs
from tests.conftest import certificate_section

UNBOUND = "unbound"
# The name in the upstream's certificate, as a kickstart writes it after '#'.
TLS_NAME = "dot.test"
TLS_NAMES = (TLS_NAME, "resolver.test")
# What the upstream answers; a forwarder in a test resolves these through it.
ZONE = "test."
ANSWER_NAME = "www.zone.test"
ANSWER_ADDRESS = "192.0.2.80"
# Names the upstream refuses to answer (REFUSED), like a server serving other clients only.
REFUSED_ZONE = "refused.test"
ZONE_RECORDS = (
    "%s. 300 IN A %s" % (ANSWER_NAME, ANSWER_ADDRESS),
    "%s. 300 IN A 192.0.2.53" % TLS_NAME,
)
STARTUP_SECONDS = 10.0
STOP_SECONDS = 5.0
QUERY_SECONDS = 10.0
CA_FILENAME = "dns-ca.pem"
_PR_SET_PDEATHSIG = 1


@dataclass
class DotPki:
    """The certificates of a DoT test set-up, each also written as a file."""
    directory: Path
    ca: certs.Issued
    other_ca: certs.Issued
    server: certs.Issued
    expired_server: certs.Issued

    @classmethod
    def create(cls, directory):
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        ca = certs.make_ca("Test DNS CA")
        pki = cls(
            directory=directory,
            ca=ca,
            other_ca=certs.make_ca("Unrelated CA"),
            server=certs.make_server(ca, TLS_NAMES),
            expired_server=certs.make_server(ca, TLS_NAMES,
                                             not_before=certs.now() - 30 * certs.DAY,
                                             not_after=certs.now() - certs.DAY),
        )
        for stem in ("ca", "other_ca", "server", "expired_server"):
            getattr(pki, stem).write(directory, stem)
        return pki

    @property
    def ca_path(self):
        return self.directory / "ca.pem"

    @property
    def other_ca_path(self):
        return self.directory / "other_ca.pem"

    def files(self, stem):
        """(certificate path, key path) of the certificate STEM ("server", ...)."""
        return self.directory / ("%s.pem" % stem), self.directory / ("%s.key" % stem)


@dataclass
class UnboundProcess:
    """A running Unbound: its process, where it listens, and its log file."""
    process: subprocess.Popen
    address: str
    port: int
    workdir: Path

    @property
    def log_path(self):
        return self.workdir / "unbound.log"

    def log(self):
        """Unbound's log so far (startup errors on stderr included)."""
        parts = [path.read_text(errors="replace")
                 for path in (self.workdir / "stderr", self.log_path) if path.exists()]
        return "".join(parts)

    def stop(self):
        """Stop this Unbound by its PID; kill it if it does not end in time."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@dataclass
class DotUpstream(UnboundProcess):
    """An Unbound DoT server; ``server_line`` is how a kickstart names it."""
    tls_name: str = TLS_NAME

    def server_line(self, tls_name=None):
        return "dns+tls://%s:%d#%s" % (self.address, self.port, tls_name or self.tls_name)


def free_port(address):
    """A TCP port nobody listens on at ADDRESS right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def _run_settings(workdir, address, port):
    """The server: settings every test Unbound needs to run unprivileged in WORKDIR."""
    return "\n".join([
        "server:",
        "  interface: %s@%d" % (address, port),
        "  do-daemonize: no",
        '  username: ""',
        '  chroot: ""',
        '  pidfile: ""',
        '  directory: "%s"' % workdir,
        "  use-syslog: no",
        '  logfile: "%s"' % (workdir / "unbound.log"),
        "  log-queries: yes",
        "  log-servfail: yes",
        "  verbosity: 2",
        "  do-ip6: no",
        # Test upstreams live on loopback, which Unbound never queries by default.
        "  do-not-query-localhost: no",
        "  access-control: 127.0.0.0/8 allow",
        "",
    ])


def start_unbound(workdir, config_text, address, port, process_class=UnboundProcess,
                  **fields):
    """Start Unbound on CONFIG_TEXT in WORKDIR; return once ADDRESS@PORT accepts.

    CONFIG_TEXT must hold the ``server:`` settings that make Unbound run in the
    foreground unprivileged (``_run_settings``). Raises RuntimeError with
    Unbound's log if it exits or does not listen within STARTUP_SECONDS.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    config_path = workdir / "unbound.conf"
    config_path.write_text(config_text)
    with open(workdir / "stderr", "wb") as stderr:
        process = subprocess.Popen([UNBOUND, "-d", "-c", str(config_path)],
                                   stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr,
                                   preexec_fn=_die_with_parent)
    unbound = process_class(process=process, address=address, port=port, workdir=workdir,
                            **fields)
    try:
        _wait_until_listening(unbound)
    except BaseException:
        unbound.stop()
        raise
    return unbound


def _die_with_parent():
    """In the child: get SIGTERM when the test process dies, even if killed outright."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _wait_until_listening(unbound):
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        if unbound.process.poll() is not None:
            raise RuntimeError("unbound exited with %d:\n%s" % (unbound.process.returncode,
                                                                unbound.log()))
        try:
            socket.create_connection((unbound.address, unbound.port), 0.5).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError("unbound does not listen on %s@%d after %.0f s:\n%s" % (
                    unbound.address, unbound.port, STARTUP_SECONDS, unbound.log())) from None
            time.sleep(0.02)


def start_dot_upstream(workdir, address, cert_path, key_path, records=ZONE_RECORDS,
                       zone=ZONE, tls_name=TLS_NAME, port=None):
    """Start Unbound as a DoT-only server on ADDRESS (a free port unless PORT).

    It answers RECORDS authoritatively for ZONE (NXDOMAIN for other names
    there, REFUSED below REFUSED_ZONE), does not serve plain UDP or TCP, and
    logs every query it gets.
    """
    workdir = Path(workdir)
    port = port or free_port(address)
    text = _run_settings(workdir, address, port) + "\n".join([
        "  tls-port: %d" % port,
        '  tls-service-key: "%s"' % key_path,
        '  tls-service-pem: "%s"' % cert_path,
        "  do-udp: no",
        '  local-zone: "%s" static' % zone,
        '  local-zone: "%s." refuse' % REFUSED_ZONE,
    ] + ['  local-data: "%s"' % record for record in records]) + "\n"
    return start_unbound(workdir, text, address, port, process_class=DotUpstream,
                         tls_name=tls_name)


def forward_zone_config(ca_bundle_path, upstreams: Iterable[Tuple[str, int, str]],
                        zone="."):
    """Unbound settings forwarding ZONE over TLS to UPSTREAMS (address, port, TLS name)."""
    lines = ["server:",
             '  tls-cert-bundle: "%s"' % ca_bundle_path,
             "forward-zone:",
             '  name: "%s"' % zone,
             "  forward-tls-upstream: yes"]
    lines += ["  forward-addr: %s@%d#%s" % upstream for upstream in upstreams]
    return "\n".join(lines) + "\n"


def start_forwarder(workdir, config_text, address, port=None,
                    plain_zones: Sequence[str] = (ZONE,)):
    """Start Unbound as a local forwarder from CONFIG_TEXT, as an installed system would.

    CONFIG_TEXT is what the system's Unbound would read (``server:`` with
    ``tls-cert-bundle``, ``forward-zone:`` clauses); it is included unchanged
    after the settings a test run needs, so it must not set ``interface`` to an
    address another test uses. ``plain_zones`` are special-use zones (like
    ``test.``) that Unbound would otherwise answer itself instead of forwarding.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    port = port or free_port(address)
    included = workdir / "forward.conf"
    included.write_text(config_text)
    text = _run_settings(workdir, address, port) + "".join(
        '  local-zone: "%s" nodefault\n' % zone for zone in plain_zones) + \
        'include: "%s"\n' % included
    return start_unbound(workdir, text, address, port)


def ask(address, port, name, rdtype="A", timeout=QUERY_SECONDS):
    """Ask a plain DNS server (a forwarder) over UDP; return the dnspython response."""
    import dns.message
    import dns.query

    return dns.query.udp(dns.message.make_query(name, rdtype), address, port=port,
                         timeout=timeout)


def dot_kickstart(server_lines, ca_pem, header_options="--ca=" + CA_FILENAME,
                  certificate_options="--dir=/etc/pki/dns/"):
    """Kickstart text: CA_PEM as %certificate CA_FILENAME, then our section with SERVER_LINES."""
    return (certificate_section(ca_pem, CA_FILENAME, certificate_options) +
            "%%addon org_edns_addon %s\n%s\n%%end\n" % (header_options,
                                                       "\n".join(server_lines)))


@pytest.fixture(scope="session")
def dot_pki(tmp_path_factory):
    return DotPki.create(tmp_path_factory.mktemp("pki"))


def _session_upstream(tmp_path_factory, pki, address, stem):
    cert_path, key_path = pki.files(stem)
    return start_dot_upstream(tmp_path_factory.mktemp("upstream-" + stem), address,
                              cert_path, key_path)


@pytest.fixture(scope="session")
def dot_upstream(tmp_path_factory, dot_pki):
    upstream = _session_upstream(tmp_path_factory, dot_pki, "127.0.0.2", "server")
    yield upstream
    upstream.stop()


@pytest.fixture(scope="session")
def expired_upstream(tmp_path_factory, dot_pki):
    upstream = _session_upstream(tmp_path_factory, dot_pki, "127.0.0.3", "expired_server")
    yield upstream
    upstream.stop()


@pytest.fixture
def unbound_forwarder(tmp_path):
    """Factory: ``unbound_forwarder(config_text, address="127.0.0.10")`` -> UnboundProcess."""
    started: List[UnboundProcess] = []

    def start(config_text, address="127.0.0.10", port: Optional[int] = None):
        workdir = tmp_path / ("forwarder%d" % len(started))
        forwarder = start_forwarder(workdir, config_text, address, port)
        started.append(forwarder)
        return forwarder
    yield start
    for forwarder in started:
        forwarder.stop()
