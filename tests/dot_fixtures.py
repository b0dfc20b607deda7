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

"""pytest fixtures of real DNS over TLS in private network namespaces, on the lab's hosts
(``LAB_HOSTS``, documentation addresses local to the namespace's loopback; the code is in
``lab/dotlab.py``). A kickstart names them as it names servers on a network: the
resolvers never query loopback. A program that reaches them runs in the namespace
(``lab_network.command``, ``lab_network.run``); each fixture skips, saying why, where
namespaces are not permitted.

``tests/conftest.py`` registers them for every test: a test names the ones it
needs as arguments, and imports the helpers from ``lab.dotlab``.

Fixtures
  ``dot_pki`` (session)       certificates written to files: ``ca`` signed the
                              server certificates for ``TLS_NAMES``; ``other_ca`` is
                              unrelated; ``expired_server`` is signed by ``ca`` but
                              expired yesterday.
  ``lab_network`` (session)   the private network namespace (``PrivateNetwork``) of
                              the upstreams below.
  ``dot_upstream`` (session)  Unbound serving ``ZONE_RECORDS`` over TLS only, on
                              198.51.100.2@<free port> in ``lab_network`` with the valid
                              certificate.
  ``expired_upstream`` (session)  the same on 198.51.100.3 with the expired certificate.
  ``two_tier_pki`` (session)  a root CA, its intermediate CA and a server certificate
                              the intermediate issued for ``TLS_NAMES`` (``TwoTierPki``).
  ``two_tier_upstream`` (session)  Unbound serving ``ZONE_RECORDS`` over TLS on
                              198.51.100.12@<free port> in ``lab_network``, sending its
                              certificate and the intermediate's, as servers of a
                              two-tier PKI do; ``leaf_only_upstream`` (198.51.100.13)
                              sends its certificate alone.
  ``unknown_issuer_said`` (session)  what the check says of a server whose issuer is
                              neither in the bundle nor sent, on this Python.
  ``unbound_forwarder`` (function)  a factory ``(config_text, address) -> UnboundProcess``
                              running a local forwarder in ``lab_network``; stopped at
                              teardown.
  ``dot_lab`` (session)       a private network namespace (``DotLab``) with two DoT
                              upstreams on port 853: ``upstream`` (198.51.100.2, the zone
                              ``test.``) and ``routed_upstream`` (198.51.100.3, only
                              ``ROUTED_ZONE``).
  ``private_zone_upstream`` (session)  a third upstream in ``dot_lab``'s network, on
                              198.51.100.4, serving ``PRIVATE_ZONES`` (names in zones
                              Unbound answers itself: home.arpa, 168.192.in-addr.arpa).
  ``staged_resolver`` (function)  a factory ``(kickstart_text) -> (UnboundProcess, root)``:
                              stages the kickstart into a fresh root and runs its local
                              resolver in ``dot_lab``; stopped at teardown.

Every process started here is stopped by its PID when its fixture ends, also
when the test fails.
"""

import re
from dataclasses import dataclass
from typing import List

import pytest

from lab.dotlab import (DotPki, DotUpstream, PrivateNetwork, TwoTierPki, UnboundProcess,
                        lab_host, stage_kickstart, start_dot_upstream, start_forwarder,
                        start_staged_resolver)
from org_edns_addon import constants as c
from tests.staging_fixtures import require_namespaces

# What the lab's routed upstream answers (and nothing else).
# Not in a zone Unbound answers itself (names.UNBOUND_DEFAULT_ZONES), which no dnsconfd
# forwards (tests/test_peer_unbound_local_zones.py).
ROUTED_ZONE = "routed.example"
ROUTED_ANSWER_NAME = "www." + ROUTED_ZONE
ROUTED_ANSWER_ADDRESS = "192.0.2.81"


@pytest.fixture(scope="session")
def dot_pki(tmp_path_factory):
    return DotPki.create(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="session")
def lab_network():
    require_namespaces("--net")
    network = PrivateNetwork.create()
    yield network
    network.stop()


def _session_upstream(tmp_path_factory, pki, network, address, stem):
    cert_path, key_path = pki.files(stem)
    return start_dot_upstream(tmp_path_factory.mktemp("upstream-" + stem), address,
                              cert_path, key_path, network=network)


@pytest.fixture(scope="session")
def dot_upstream(tmp_path_factory, dot_pki, lab_network):
    upstream = _session_upstream(tmp_path_factory, dot_pki, lab_network, lab_host(2), "server")
    yield upstream
    upstream.stop()


@pytest.fixture(scope="session")
def expired_upstream(tmp_path_factory, dot_pki, lab_network):
    upstream = _session_upstream(tmp_path_factory, dot_pki, lab_network, lab_host(3),
                                 "expired_server")
    yield upstream
    upstream.stop()


@pytest.fixture(scope="session")
def two_tier_pki(tmp_path_factory):
    return TwoTierPki.create(tmp_path_factory.mktemp("two-tier-pki"))


def _two_tier_upstream(tmp_path_factory, pki, network, address, chain):
    """The upstream of PKI on ADDRESS, sending the intermediate's certificate or not
    (CHAIN), for as long as the fixture lasts."""
    cert_path, key_path = pki.files(chain)
    upstream = start_dot_upstream(tmp_path_factory.mktemp("upstream-two-tier"), address,
                                  cert_path, key_path, network=network)
    try:
        yield upstream
    finally:
        upstream.stop()


@pytest.fixture(scope="session")
def two_tier_upstream(tmp_path_factory, two_tier_pki, lab_network):
    yield from _two_tier_upstream(tmp_path_factory, two_tier_pki, lab_network, lab_host(12),
                                  chain=True)


@pytest.fixture(scope="session")
def leaf_only_upstream(tmp_path_factory, two_tier_pki, lab_network):
    yield from _two_tier_upstream(tmp_path_factory, two_tier_pki, lab_network, lab_host(13),
                                  chain=False)


@pytest.fixture(scope="session")
def unknown_issuer_said():
    """Factory: ``unknown_issuer_said(issuer)``, what the check says of a server whose
    issuer ISSUER is neither in the --ca bundle nor sent by the server, on this Python:
    before 3.10 ``ssl`` cannot tell what else a server sent, and the check says so less
    surely (``chains.refusal_reason``)."""
    import ssl

    shows_chain = hasattr(ssl.SSLObject, "get_unverified_chain") or \
        hasattr(ssl._ssl._SSLSocket, "get_unverified_chain")

    def said(issuer):
        if shows_chain:
            return ("its issuer '%s' is neither in the bundle nor sent by the server: if it is "
                    "an intermediate CA of a root CA in the bundle, have the server send it "
                    "(its certificate chain file); else add its root CA to the bundle" % issuer)
        return ("its issuer '%s' is not in the bundle: if it is an intermediate CA of a root "
                "CA in the bundle, the server must send it (its certificate chain file); else "
                "add its root CA to the bundle" % issuer)
    said.shows_chain = shows_chain
    return said


@pytest.fixture
def unbound_forwarder(tmp_path, lab_network):
    """Factory: ``unbound_forwarder(config_text, address="127.0.0.10")`` -> UnboundProcess
    in ``lab_network``."""
    started: List[UnboundProcess] = []

    def start(config_text, address="127.0.0.10", port=None):
        workdir = tmp_path / ("forwarder%d" % len(started))
        forwarder = start_forwarder(workdir, config_text, address, port, network=lab_network)
        started.append(forwarder)
        return forwarder
    yield start
    for forwarder in started:
        forwarder.stop()


@dataclass
class DotLab:
    """A private network with two DoT upstreams, as a routed kickstart names them."""
    network: PrivateNetwork
    upstream: DotUpstream
    routed_upstream: DotUpstream


@pytest.fixture(scope="session")
def dot_lab(tmp_path_factory, dot_pki):
    require_namespaces("--net", "--mount")
    directory = tmp_path_factory.mktemp("lab")
    cert_path, key_path = dot_pki.files("server")
    network = PrivateNetwork.create()
    started = []
    try:
        for address, zone, records in (
                (lab_host(2), "test.", None),
                (lab_host(3), ROUTED_ZONE + ".",
                 ("%s. 300 IN A %s" % (ROUTED_ANSWER_NAME, ROUTED_ANSWER_ADDRESS),))):
            options = {"records": records} if records else {}
            started.append(start_dot_upstream(directory / address, address, cert_path,
                                              key_path, zone=zone, port=c.DOT_PORT,
                                              network=network, **options))
        yield DotLab(network, *started)
    finally:
        for upstream in started:
            upstream.stop()
        network.stop()


# Names Unbound keeps to itself (names.UNBOUND_DEFAULT_ZONES) that real networks use: RFC
# 8375's home.arpa and the reverse zone of RFC 1918 space, served by an upstream of the lab.
PRIVATE_ZONES = ("corp.home.arpa", "168.192.in-addr.arpa")
PRIVATE_ANSWERS = {("host.corp.home.arpa", "A"): "192.0.2.90",
                   ("5.1.168.192.in-addr.arpa", "PTR"): "host.corp.home.arpa."}


@pytest.fixture(scope="session")
def private_zone_upstream(tmp_path_factory, dot_pki, dot_lab):
    """A DoT upstream in ``dot_lab``'s network answering PRIVATE_ANSWERS in PRIVATE_ZONES."""
    cert_path, key_path = dot_pki.files("server")
    records = tuple("%s. 300 IN %s %s" % (name, kind, value)
                    for (name, kind), value in PRIVATE_ANSWERS.items())
    upstream = start_dot_upstream(tmp_path_factory.mktemp("upstream-private"), lab_host(4),
                                  cert_path, key_path, records=records,
                                  zone=tuple(zone + "." for zone in PRIVATE_ZONES),
                                  port=c.DOT_PORT, network=dot_lab.network)
    yield upstream
    upstream.stop()


@pytest.fixture
def staged_resolver(tmp_path, dot_lab):
    """Factory: ``staged_resolver(kickstart_text)`` -> (resolver UnboundProcess, staged root)."""
    started: List[UnboundProcess] = []

    def start(kickstart_text):
        name = "system%d" % len(started)
        kickstart = tmp_path / (name + ".ks")
        kickstart.write_text(kickstart_text)
        root = tmp_path / name / "root"
        root.mkdir(parents=True)
        data, _ = stage_kickstart(kickstart, root)
        resolver = start_staged_resolver(tmp_path / name / "resolver", root,
                                         data.config.backend, dot_lab.network)
        started.append(resolver)
        return resolver, root
    yield start
    for resolver in started:
        resolver.stop()


def times_masked(line):
    """A check's LINE with its times (" 1.2 ms") as " N ms": each run's are its own, the
    rest of what two checks of the same servers say is the same."""
    return re.sub(r" [0-9]+\.[0-9] ms", " N ms", line)
