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

"""A DNS-over-TLS lab on loopback: certificates, Unbound upstreams and resolvers.

The one place that starts, reaches and stops Unbound; the test fixtures
(``tests/dot_fixtures.py``), the end-to-end tests, the benchmarks and the
demo's proof (``scripts/prove.py``) all use it. Nothing here needs pytest.

- ``DotPki.create``: a test CA, server certificates for ``TLS_NAMES`` (one
  valid, one expired) and an unrelated CA, written to files.
- ``TwoTierPki.create``: a company's PKI, root CA and intermediate CA, and a server
  certificate the intermediate issued, sent with the intermediate or alone.
- ``start_dot_upstream``: Unbound as a DoT-only server answering a zone
  (``WITHOUT_INTERNET``: and nothing else, as a resolver without a route out).
- ``start_forwarder``: Unbound forwarding over TLS from a configuration text.
- ``PrivateNetwork``: a network namespace with nothing but loopback, so that a
  resolver can listen on its real address and port (127.0.0.55:53) and the
  upstreams on 853 without meeting anything else on this machine. The lab's
  hosts (``LAB_HOSTS``, documentation addresses) are local addresses there:
  a kickstart names a server there as it names one on the network (the
  resolvers never query loopback), and nothing reaches any other machine.
- ``stage_kickstart`` + ``start_staged_resolver``: stage a kickstart with the
  installer's own code, then run the local resolver as the installed system
  would, with the staged ``/etc`` over ``/etc`` in a private mount namespace
  (the host's ``/etc`` is never written); ``dnsconfd_unbound_config`` stands in
  for dnsconfd, which Debian does not package.
- ``ask``, ``resolve_with_libc``, ``LoopbackCapture``: the clients and the
  wire, from inside such a namespace too.

Every process is started with SIGTERM as its parent-death signal and stopped
by its PID (``stop``); a helper that cannot bring Unbound up stops it before
raising, with Unbound's log in the message.
"""

import configparser
import ctypes
import os
import re
import signal
import socket
import struct
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, List, Sequence, Tuple

from lab import certs
from org_edns_addon import constants as c
from org_edns_addon.staging import plan as staging_plan
from org_edns_addon.staging import apply as staging_apply
from org_edns_addon.ks.reader import parse_kickstart
from org_edns_addon.model import Backend

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
# An upstream's settings that leave it without the Internet, as an internal resolver
# with no route out: it may query no address at all, and answers SERVFAIL for every name
# it does not serve itself (and never tries to reach the root servers).
WITHOUT_INTERNET = ("do-not-query-address: 0.0.0.0/0", "do-not-query-address: ::/0")
STARTUP_SECONDS = 10.0
STOP_SECONDS = 5.0
QUERY_SECONDS = 10.0
# The C library gives up after 2 tries of 5 s (resolv.conf's defaults).
LIBC_LOOKUP_SECONDS = 30.0
_PR_SET_PDEATHSIG = 1
_CLONE_NEWNET = 0x40000000
_ETH_P_ALL = 0x0003
_IPPROTO_NAMES = {socket.IPPROTO_TCP: "tcp", socket.IPPROTO_UDP: "udp"}

# The lab's hosts: TEST-NET-2 (RFC 5737, documentation addresses), local to each
# PrivateNetwork's loopback alone (a "local" route, so that every address of it is
# one), and nowhere else. ``lab_host(2)`` is 198.51.100.2.
LAB_HOSTS = "198.51.100.0/24"


def lab_host(number):
    """The lab's host NUMBER (1-254) in LAB_HOSTS, as text."""
    assert 0 < number < 255, number
    return "198.51.100.%d" % number


# dnsconfd's defaults (dnsconfd.conf(5)): where its Unbound listens, and the CA
# bundles it uses, the first readable one, when no server names a CA.
DNSCONFD_LISTEN_ADDRESS = "127.0.0.1"
DNSCONFD_DEFAULT_CA_BUNDLES = (c.DOT_CA_BUNDLE_PATH, c.SYSTEM_CA_BUNDLE_PATH)
# Fedora's /etc/unbound/unbound.conf ends with this include.
SYSTEM_UNBOUND_INCLUDE = "/etc/unbound/conf.d/*.conf"


def _made(directory):
    """DIRECTORY as a Path, made if it is missing."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


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
        directory = _made(directory)
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
class TwoTierPki:
    """A company's two-tier PKI: a root CA, the intermediate CA it issued, and a DoT
    server's certificate for ``TLS_NAMES`` that the intermediate issued, each also a
    file. ``files(chain=True)`` is the server's certificate file as a server sends it
    (its certificate, then the intermediate's), ``files(chain=False)`` its certificate
    alone."""
    directory: Path
    root: certs.Issued
    intermediate: certs.Issued
    server: certs.Issued

    @classmethod
    def create(cls, directory):
        root = certs.make_ca("Corp Root CA")
        intermediate = certs.make_intermediate(root, "Corp Issuing CA")
        server = certs.make_server(intermediate, TLS_NAMES)
        directory = _made(directory)
        server.write(directory, "server")
        (directory / "server-chain.pem").write_text(server.pem + intermediate.pem)
        return cls(directory, root, intermediate, server)

    def files(self, chain=True):
        """(certificate path, key path) of the server, with the intermediate or not."""
        return (self.directory / ("server-chain.pem" if chain else "server.pem"),
                self.directory / "server.key")


def _die_with_parent():
    """In the child: get SIGTERM when the test process dies, even if killed outright."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def stop_process(process):
    """Stop PROCESS by its PID; kill it if it does not end in time."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# ---------------------------------------------------------------------------
# Networks: this process's own, or a private namespace


class HostNetwork:
    """The network this process is in."""

    def socket(self, family=socket.AF_INET, kind=socket.SOCK_DGRAM, protocol=0):
        return socket.socket(family, kind, protocol)

    def command(self, argv):
        return list(argv)

    def run(self, function, *args, **kwargs):
        return function(*args, **kwargs)


HOST_NETWORK = HostNetwork()


class PrivateNetwork:
    """A network namespace with only loopback (up), held open by a sleeping process;
    every address of LAB_HOSTS is a local address of that loopback (unless made without).

    Programs join it through ``command(argv)`` (nsenter); this process talks
    into it with sockets made inside it (``socket``): a socket stays in the
    namespace it was made in, whichever thread uses it later. ``run`` calls a
    function in a thread inside it (every socket the function makes is there).
    """

    def __init__(self, holder):
        self.holder = holder

    @classmethod
    def create(cls, lab_hosts=True):
        """The namespace; its loopback holds LAB_HOSTS unless lab_hosts is False (for a
        network that gives such addresses to an interface of its own, lab/vmlab/tapnet.py)."""
        local = "ip route add local %s dev lo; " % LAB_HOSTS if lab_hosts else ""
        holder = subprocess.Popen(
            ["unshare", "--net", "sh", "-ec",
             "ip link set lo up; %secho up; exec sleep infinity" % local],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=_die_with_parent)
        if holder.stdout.readline() != b"up\n":
            stop_process(holder)
            raise RuntimeError("cannot make a private network namespace: %s"
                               % holder.stderr.read().decode(errors="replace").strip())
        return cls(holder)

    @property
    def path(self):
        return "/proc/%d/ns/net" % self.holder.pid

    def command(self, argv):
        return ["nsenter", "--net=%s" % self.path] + list(argv)

    def socket(self, family=socket.AF_INET, kind=socket.SOCK_DGRAM, protocol=0):
        return self.run(socket.socket, family, kind, protocol)

    def run(self, function, *args, **kwargs):
        """FUNCTION(*ARGS, **KWARGS) in a thread inside this namespace; what it returns,
        or the exception it raised."""
        made = []

        def call_inside():
            # setns() moves only the calling thread, and this thread ends right after.
            try:
                with open(self.path) as namespace:
                    if ctypes.CDLL(None, use_errno=True).setns(namespace.fileno(),
                                                               _CLONE_NEWNET) != 0:
                        raise OSError(ctypes.get_errno(), "setns %s" % self.path)
                made.append((True, function(*args, **kwargs)))
            except BaseException as error:  # noqa: BLE001 (raised again in the caller's thread)
                made.append((False, error))
        thread = threading.Thread(target=call_inside)
        thread.start()
        thread.join()
        returned, value = made[0]
        if not returned:
            raise value
        return value

    def stop(self):
        stop_process(self.holder)
        self.holder.stdout.close()
        self.holder.stderr.close()


# ---------------------------------------------------------------------------
# Unbound processes


@dataclass
class UnboundProcess:
    """A running Unbound: its process, where it listens, and its log file."""
    process: subprocess.Popen
    address: str
    port: int
    workdir: Path
    network: object = field(default=HOST_NETWORK, repr=False)

    @property
    def log_path(self):
        return self.workdir / "unbound.log"

    def log(self):
        """Unbound's log so far (startup errors on stderr included)."""
        parts = [path.read_text(errors="replace")
                 for path in (self.workdir / "stderr", self.log_path) if path.exists()]
        return "".join(parts)

    def log_offset(self):
        """Where the log ends now; ``log_since`` reads what comes after."""
        return self.log_path.stat().st_size if self.log_path.exists() else 0

    def log_since(self, offset):
        with open(self.log_path, "rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")

    def stop(self):
        """Stop this Unbound by its PID; kill it if it does not end in time."""
        stop_process(self.process)


@dataclass
class DotUpstream(UnboundProcess):
    """An Unbound DoT server; ``server_line`` is how a kickstart names it."""
    tls_name: str = TLS_NAME

    def server_line(self, tls_name=None):
        port = "" if self.port == c.DOT_PORT else ":%d" % self.port
        return "dns+tls://%s%s#%s" % (self.address, port, tls_name or self.tls_name)


def free_port(address, network=HOST_NETWORK):
    """A TCP port nobody listens on at ADDRESS right now (in NETWORK)."""
    with network.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def lab_port(address, network=HOST_NETWORK, wanted=c.DOT_PORT):
    """The port a lab server takes at ADDRESS in NETWORK: WANTED (853, DoT's own; 53 for
    plaintext DNS) in a private network where it is free, so that a kickstart names the
    server as every installer line reads it (NetworkManager before 1.54 hands dnsconfd no
    port: lines.PORT_TO_DNSCONFD), else any free port (on the host, where tests share
    the addresses)."""
    if network is not HOST_NETWORK:
        with network.socket(socket.AF_INET6 if ":" in address else socket.AF_INET,
                            socket.SOCK_STREAM) as probe:
            # As the server will bind it: past the TIME_WAIT of a server stopped before.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((address, wanted))
                return wanted
            except OSError:
                pass
    return free_port(address, network)


# A lab host no lab server listens on: a server there refuses every connection.
CLOSED_LAB_HOST = 9


def _run_settings(workdir, address=None, port=None, query_loopback=True):
    """The server: settings every lab Unbound needs to run unprivileged in WORKDIR.

    Without ADDRESS no ``interface`` is set: the included configuration sets it.
    QUERY_LOOPBACK False keeps Unbound's default ``do-not-query-localhost: yes``, as
    the installed system's resolver has it.
    """
    lines = ["server:"]
    if address is not None:
        lines.append("  interface: %s@%d" % (address, port))
    lines += [
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
    ]
    if query_loopback:
        # A test's own forwarder may ask an upstream on loopback, which Unbound never
        # queries by default.
        lines.append("  do-not-query-localhost: no")
    lines += [
        "  access-control: 127.0.0.0/8 allow",
        "  access-control: %s allow" % LAB_HOSTS,
    ]
    return "\n".join(lines) + "\n"


def with_staged_etc(root, argv):
    """ARGV in a private mount namespace where ROOT/etc lies over /etc (read-only overlay).

    Staged files appear at their real paths; the rest of /etc is the host's,
    and the host's own /etc is never written.
    """
    script = 'mount -t overlay overlay -o "lowerdir=$1/etc:/etc" /etc; shift; exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "sh", "-ec", script, "sh",
            str(root)] + list(argv)


def start_unbound(workdir, config_text, address, port, process_class=UnboundProcess,
                  network=HOST_NETWORK, staged_root=None, unbound=(UNBOUND,), **fields):
    """Start Unbound on CONFIG_TEXT in WORKDIR; return once ADDRESS@PORT accepts.

    CONFIG_TEXT must hold the ``server:`` settings that make Unbound run in the
    foreground unprivileged (``_run_settings``). It runs in NETWORK, and with
    STAGED_ROOT's /etc over /etc if given. UNBOUND is the command that runs it (another
    release's binary). Raises RuntimeError with Unbound's log if it exits or does not
    listen within STARTUP_SECONDS.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if _accepts(network, address, port):
        # Unbound binds with SO_REUSEPORT: a second one would share the port unnoticed.
        raise RuntimeError("something already listens on %s@%d; stop it first" % (address, port))
    config_path = workdir / "unbound.conf"
    config_path.write_text(config_text)
    argv = [*unbound, "-d", "-c", str(config_path)]
    if staged_root is not None:
        argv = with_staged_etc(staged_root, argv)
    with open(workdir / "stderr", "wb") as stderr:
        process = subprocess.Popen(network.command(argv), stdin=subprocess.DEVNULL,
                                   stdout=stderr, stderr=stderr, preexec_fn=_die_with_parent)
    unbound = process_class(process=process, address=address, port=port, workdir=workdir,
                            network=network, **fields)
    try:
        _wait_until_listening(unbound)
    except BaseException:
        unbound.stop()
        raise
    return unbound


def _accepts(network, address, port):
    """Whether a TCP connection to ADDRESS@PORT in NETWORK is accepted."""
    try:
        with network.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.settimeout(0.5)
            probe.connect((address, port))
        return True
    except OSError:
        return False


def _wait_until_listening(unbound):
    deadline = time.monotonic() + STARTUP_SECONDS
    while not _accepts(unbound.network, unbound.address, unbound.port):
        if unbound.process.poll() is not None:
            raise RuntimeError("unbound exited with %d:\n%s" % (unbound.process.returncode,
                                                                unbound.log()))
        if time.monotonic() > deadline:
            raise RuntimeError("unbound does not listen on %s@%d after %.0f s:\n%s" % (
                unbound.address, unbound.port, STARTUP_SECONDS, unbound.log()))
        time.sleep(0.02)


def start_dot_upstream(workdir, address, cert_path, key_path, records=ZONE_RECORDS,
                       zone=ZONE, tls_name=TLS_NAME, port=None, network=HOST_NETWORK,
                       settings=()):
    """Start Unbound as a DoT-only server on ADDRESS (a free port unless PORT).

    It answers RECORDS authoritatively for ZONE (a name, or a tuple of them; NXDOMAIN
    for other names there, REFUSED below REFUSED_ZONE), does not serve plain UDP or TCP,
    and logs every query it gets. SETTINGS are more ``server:`` lines
    (``WITHOUT_INTERNET``).
    """
    workdir = Path(workdir)
    port = port or lab_port(address, network)
    zones = (zone,) if isinstance(zone, str) else tuple(zone)
    text = _run_settings(workdir, address, port) + "\n".join([
        "  tls-port: %d" % port,
        '  tls-service-key: "%s"' % key_path,
        '  tls-service-pem: "%s"' % cert_path,
        "  do-udp: no",
    ] + ['  local-zone: "%s" static' % name for name in zones] + [
        '  local-zone: "%s." refuse' % REFUSED_ZONE,
    ] + ['  local-data: "%s"' % record for record in records] +
        ["  %s" % line for line in settings]) + "\n"
    return start_unbound(workdir, text, address, port, process_class=DotUpstream,
                         network=network, tls_name=tls_name)


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


def _special_use_zones(zones):
    # Unbound answers special-use zones (like test.) itself unless told not to.
    return "".join('  local-zone: "%s" nodefault\n' % zone for zone in zones)


def start_forwarder(workdir, config_text, address, port=None,
                    plain_zones: Sequence[str] = (ZONE,), network=HOST_NETWORK,
                    unbound=(UNBOUND,)):
    """Start Unbound as a local forwarder from CONFIG_TEXT, as an installed system would.

    CONFIG_TEXT is what the system's Unbound would read (``server:`` with
    ``tls-cert-bundle``, ``forward-zone:`` clauses); it is included unchanged
    after the settings a test run needs, so it must not set ``interface`` to an
    address another test uses. ``plain_zones`` are special-use zones (like
    ``test.``) that Unbound would otherwise answer itself instead of forwarding. It
    runs in NETWORK, as the command UNBOUND.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    port = port or lab_port(address, network, c.PLAIN_DNS_PORT)
    included = workdir / "forward.conf"
    included.write_text(config_text)
    text = _run_settings(workdir, address, port) + _special_use_zones(plain_zones) + \
        'include: "%s"\n' % included
    return start_unbound(workdir, text, address, port, network=network, unbound=unbound)


# ---------------------------------------------------------------------------
# Staging a kickstart and running its resolver


def stage_kickstart(path, root, phase=staging_plan.Phase.TARGET):
    """Stage the kickstart at PATH below ROOT with the installer's code (``staging_apply.stage``).

    Returns the staging input and the ApplyReport; ValueError with the
    kickstart's problems if it has errors.
    """
    parsed = parse_kickstart(str(path))
    if parsed.errors:
        raise ValueError("\n".join(str(problem) for problem in parsed.errors))
    data = parsed.staging_input()
    return data, staging_apply.stage(data, phase, str(root))


_SERVER_URI = re.compile(r"dns\+tls://(\[(?P<ipv6>[^\]]+)\]|(?P<ipv4>[^:#\[]+))"
                         r"(:(?P<port>\d+))?(#(?P<name>.+))?\Z")


def dnsconfd_unbound_config(keyfile_text, root):
    """The Unbound configuration dnsconfd writes for our NetworkManager keyfile.

    How the real pieces do it: NetworkManager's dnsconfd plugin
    (NetworkManager src/core/dns/nm-dns-dnsconfd.c, ``parse_global_config``)
    sends dnsconfd every server of each ``[global-dns-domain-D]`` with the
    routing domain D (``*`` becomes ``.``) and ``[global-dns]
    certification-authority`` as each server's CA. dnsconfd
    (InfrastructureServices/dnsconfd src/dns_managers/unbound_manager.c,
    ``write_configuration``) then writes ``interface:`` its listen address,
    ``tls-cert-bundle:`` that CA (or the first readable of its default bundles),
    and per routing domain one ``forward-zone`` with each server as
    ``forward-addr: ADDR@PORT#NAME`` (port 853 when the URI has none) and
    ``forward-tls-upstream: yes``, after ``do-not-query-address: 127.0.0.1/8``
    (``generate_listen_address``). Left out here: its ``module-config``.
    Only ``dns+tls://`` servers are translated; ROOT is where "readable" is decided.
    """
    keyfile = configparser.ConfigParser(interpolation=None, delimiters=("=",),
                                        comment_prefixes=("#",))
    keyfile.optionxform = str
    keyfile.read_string(keyfile_text)
    bundle = keyfile.get("global-dns", "certification-authority", fallback=None) or next(
        (path for path in DNSCONFD_DEFAULT_CA_BUNDLES
         if os.access(os.path.join(str(root), path.lstrip("/")), os.R_OK)), None)
    if bundle is None:
        raise ValueError("no CA bundle: neither certification-authority nor any of %s"
                         % ", ".join(DNSCONFD_DEFAULT_CA_BUNDLES))
    lines = ["server:", "  interface: %s" % DNSCONFD_LISTEN_ADDRESS,
             "  do-not-query-address: 127.0.0.1/8", "  tls-cert-bundle: %s" % bundle]
    for section in keyfile.sections():
        if not section.startswith("global-dns-domain-"):
            continue
        domain = section[len("global-dns-domain-"):]
        lines += ["forward-zone:", '  name: "%s"' % ("." if domain == "*" else domain)]
        for uri in keyfile.get(section, "servers").split(","):
            match = _SERVER_URI.match(uri.strip())
            if match is None:
                raise ValueError("not a dns+tls:// server: %r" % uri)
            lines.append("  forward-addr: %s@%s%s" % (
                match.group("ipv6") or match.group("ipv4"), match.group("port") or c.DOT_PORT,
                "#" + match.group("name") if match.group("name") else ""))
        lines.append("  forward-tls-upstream: yes")
    return "\n".join(lines) + "\n"


def start_staged_resolver(workdir, root, backend, network,
                          plain_zones: Sequence[str] = (ZONE,), settings: Sequence[str] = ()):
    """Run the local resolver of the system staged in ROOT, on its real address and port.

    Unbound reads a minimal main configuration (run settings, like Fedora's
    /etc/unbound/unbound.conf) that includes the system's own: for the unbound
    backend the staged ``/etc/unbound/conf.d/*.conf`` itself, listening on
    127.0.0.55; for dnsconfd the translation of the staged NetworkManager
    keyfile (``dnsconfd_unbound_config``), listening on dnsconfd's 127.0.0.1.
    It runs in NETWORK with ROOT/etc over /etc, so every path is the real one.
    What the main configuration adds for the lab: logging, running unprivileged,
    and ``PLAIN_ZONES`` (special-use zones like ``test.`` that Unbound would
    otherwise answer itself); like the installed system's resolver, it never
    queries loopback, so the upstreams are on the lab's hosts. SETTINGS are more
    ``server:`` lines after those (a benchmark turns the query log off with them).
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if Backend(backend) == Backend.UNBOUND:
        include, address = SYSTEM_UNBOUND_INCLUDE, c.UNBOUND_LISTEN_ADDRESS
    else:
        keyfile = Path(root, c.NM_KEYFILE_PATH.lstrip("/")).read_text()
        include, address = workdir / "dnsconfd-unbound.conf", DNSCONFD_LISTEN_ADDRESS
        include.write_text(dnsconfd_unbound_config(keyfile, root))
    text = _run_settings(workdir, query_loopback=False) + _special_use_zones(plain_zones) + \
        "".join("  %s\n" % line for line in settings) + 'include: "%s"\n' % include
    return start_unbound(workdir, text, address, c.PLAIN_DNS_PORT, network=network,
                         staged_root=root)


# ---------------------------------------------------------------------------
# Clients and the wire


def ask(address, port, name, rdtype="A", timeout=QUERY_SECONDS, network=HOST_NETWORK):
    """Ask a plain DNS server (a forwarder) over UDP; return the dnspython response."""
    import dns.message
    import dns.query

    with network.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.setblocking(False)
        return dns.query.udp(dns.message.make_query(name, rdtype), address, port=port,
                             timeout=timeout, sock=sock)


def resolve_with_libc(resolver, name):
    """``getent hosts NAME`` inside RESOLVER's network and mount namespaces.

    The C library reads the staged /etc/resolv.conf there, as every program
    of the installed system would. Returns the CompletedProcess.
    """
    return subprocess.run(["nsenter", "--target", str(resolver.process.pid), "--net",
                           "--mount", "getent", "hosts", name],
                          capture_output=True, text=True, timeout=LIBC_LOOKUP_SECONDS)


@dataclass(frozen=True)
class Packet:
    """One IPv4 packet seen on loopback."""
    protocol: str                    # "tcp", "udp" or the IP protocol number
    source: Tuple[str, int]
    destination: Tuple[str, int]
    data: bytes                      # the whole IP packet

    def involves(self, address, port=None):
        return any(end[0] == address and port in (None, end[1])
                   for end in (self.source, self.destination))


class LoopbackCapture:
    """Every IPv4 packet on NETWORK's loopback from now on (a packet socket; needs root)."""

    def __init__(self, network):
        self.sock = network.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(_ETH_P_ALL))
        self.sock.bind(("lo", _ETH_P_ALL))
        self.sock.setblocking(False)

    def packets(self) -> List[Packet]:
        """The packets captured since the last call (each once, not also as sent)."""
        found = []
        while True:
            try:
                data, (_, _, kind, _, _) = self.sock.recvfrom(65535)
            except BlockingIOError:
                return found
            if kind == socket.PACKET_OUTGOING or data[0] >> 4 != 4:
                continue
            header = (data[0] & 0x0F) * 4
            protocol = data[9]
            ports = struct.unpack("!HH", data[header:header + 4]) \
                if protocol in _IPPROTO_NAMES else (0, 0)
            found.append(Packet(_IPPROTO_NAMES.get(protocol, str(protocol)),
                                (socket.inet_ntoa(data[12:16]), ports[0]),
                                (socket.inet_ntoa(data[16:20]), ports[1]), data))

    def close(self):
        self.sock.close()
