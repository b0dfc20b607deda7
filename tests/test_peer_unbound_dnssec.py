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

"""DNSSEC and the unbound backend: a private zone under a signed parent.

Fedora's Unbound validates by default (its unbound.conf: ``module-config:
"ipsecmod validator iterator"``, trust anchors for the root and from
``/etc/unbound/keys.d``); dnsconfd writes ``module-config: "ipsecmod
iterator"`` (validation only with its ``dnssec_enabled: yes``, default no).
A corporate DoT resolver answers its private zone unsigned, while the public
parent is signed: a validating forwarder asks for the private zone's DS, gets
the parent's signed proof that no such delegation exists, and calls the answer
bogus (SERVFAIL). So the same kickstart would resolve with one backend and
fail with the other. The unbound backend matches dnsconfd: its conf.d file
turns validation off; the DoT upstream, authenticated by the kickstart's CA, is
trusted as dnsconfd trusts it.

The lab: an upstream Unbound (DoT) serving the signed parent ``example.`` as an
auth-zone and the private ``corp.example.`` as local data; the staged unbound
backend under a main configuration like Fedora's (validation on, the parent's
DS as trust anchor in the role of the root's).
"""

import dns.name
import dns.rcode
import dns.zone
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from lab.kickstarts import CA_FILENAME, edns_kickstart
from lab import dotlab
from org_edns_addon import constants as c
from tests.staging_fixtures import require_namespaces, require_tools

pytestmark = pytest.mark.root

PARENT = "example."
PRIVATE = "corp.example."
SIGNED_NAME, SIGNED_ADDRESS = "www.example.", "192.0.2.90"
PRIVATE_NAME, PRIVATE_ADDRESS = "www.corp.example.", "192.0.2.91"
UPSTREAM = dotlab.lab_host(2)
TLS_NAME = "dot.test"


def signed_parent(path):
    """Write the signed zone PARENT to PATH; return the DS record text of its key.

    Signed RRset by RRset, with its NSEC chain written here: dnspython's sign_zone()
    exists from 2.4 only, and the EL9 row has 2.3."""
    import importlib

    import dns.dnssec
    try:
        import dns._features
    except ImportError:   # before 2.5: no feature gate
        pass
    else:
        # dnspython asks for a newer cryptography for DNSSEC than the signing done here
        # needs; the matrix rows pin older ones.
        dns._features.force("dnssec", True)
        importlib.reload(dns.dnssec)
    import dns.rdata
    import dns.rdataclass
    import dns.rdatatype
    import dns.rrset

    origin = dns.name.from_text(PARENT)
    key = ec.generate_private_key(ec.SECP256R1())
    dnskey = dns.dnssec.make_dnskey(key.public_key(), dns.dnssec.Algorithm.ECDSAP256SHA256,
                                    flags=257)
    zone = dns.zone.from_text(
        "$TTL 300\n@ SOA ns.example. host.example. 1 3600 600 86400 300\n@ NS ns.example.\n"
        "ns A 192.0.2.1\nwww A %s\n" % SIGNED_ADDRESS, origin=PARENT, relativize=False)
    zone.find_rdataset(origin, dns.rdatatype.DNSKEY, create=True).add(dnskey, 300)
    # The NSEC chain in canonical order: the signed proof that corp.example has no DS.
    names = sorted(zone.nodes)
    for name, following in zip(names, names[1:] + names[:1]):
        types = sorted({rdataset.rdtype for rdataset in zone.nodes[name]} |
                       {dns.rdatatype.NSEC, dns.rdatatype.RRSIG})
        nsec = dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.NSEC, "%s %s" % (
            following, " ".join(dns.rdatatype.to_text(rdtype) for rdtype in types)))
        zone.find_rdataset(name, dns.rdatatype.NSEC, create=True).add(nsec, 300)
    for name in names:
        for rdataset in list(zone.nodes[name]):
            rrset = dns.rrset.RRset(name, rdataset.rdclass, rdataset.rdtype)
            rrset.update(rdataset)
            signature = dns.dnssec.sign(rrset, key, origin, dnskey, lifetime=30 * 86400)
            zone.find_rdataset(name, dns.rdatatype.RRSIG, rdataset.rdtype,
                               create=True).add(signature, rdataset.ttl)
    path.write_text(zone.to_text())
    return "%s DS %s" % (PARENT, dns.dnssec.make_ds(origin, dnskey, "SHA256"))


@pytest.fixture
def lab(tmp_path, dot_pki):
    require_tools("unbound")
    require_namespaces("--net")
    network = dotlab.PrivateNetwork.create()
    started = []
    try:
        zonefile = tmp_path / "example.zone"
        anchor = signed_parent(zonefile)
        cert, key = dot_pki.files("server")
        upstream_text = dotlab._run_settings(tmp_path / "upstream", UPSTREAM, 853) + "\n".join([
            "  tls-port: 853", '  tls-service-key: "%s"' % key,
            '  tls-service-pem: "%s"' % cert, "  do-udp: no",
            # The corporate resolver's private zone, answered unsigned.
            '  local-zone: "%s" static' % PRIVATE,
            '  local-data: "%s 300 IN A %s"' % (PRIVATE_NAME, PRIVATE_ADDRESS),
            "auth-zone:", '  name: "%s"' % PARENT, '  zonefile: "%s"' % zonefile,
            "  for-downstream: yes", "  for-upstream: no"]) + "\n"
        (tmp_path / "upstream").mkdir()
        started.append(dotlab.start_unbound(tmp_path / "upstream", upstream_text, UPSTREAM, 853,
                                            network=network))
        yield network, anchor, started
    finally:
        for process in started:
            process.stop()
        network.stop()


def staged_root(write_ks, tmp_path, dot_pki, name):
    from org_edns_addon.model import Phase
    from lab.dotlab import stage_kickstart

    text = edns_kickstart(dot_pki.ca.pem, "--ca=%s --backend=unbound" % CA_FILENAME,
                          ["dns+tls://%s#%s" % (UPSTREAM, TLS_NAME)], commands="")
    root = tmp_path / name
    root.mkdir()
    stage_kickstart(write_ks(text), root, Phase.TARGET)
    return root


def fedora_like_forwarder(tmp_path, network, anchor, root, name):
    """Unbound on the staged conf.d under a main configuration that validates like Fedora's."""
    workdir = tmp_path / name
    workdir.mkdir()
    (workdir / "parent.key").write_text(anchor + "\n")
    text = (dotlab._run_settings(workdir) + '  module-config: "validator iterator"\n'
            '  trust-anchor-file: "%s"\n' % (workdir / "parent.key")
            + 'include: "%s"\n' % dotlab.SYSTEM_UNBOUND_INCLUDE)
    return dotlab.start_unbound(workdir, text, c.UNBOUND_LISTEN_ADDRESS, c.PLAIN_DNS_PORT,
                                network=network, staged_root=root)


def test_the_unbound_backend_resolves_a_private_zone_under_a_signed_parent(
        lab, write_ks, tmp_path, dot_pki):
    network, anchor, started = lab
    root = staged_root(write_ks, tmp_path, dot_pki, "root")
    started.append(fedora_like_forwarder(tmp_path, network, anchor, root, "forwarder"))

    private = dotlab.ask(c.UNBOUND_LISTEN_ADDRESS, 53, PRIVATE_NAME, network=network)
    signed = dotlab.ask(c.UNBOUND_LISTEN_ADDRESS, 53, SIGNED_NAME, network=network)

    assert 'module-config: "iterator"' in (root / c.UNBOUND_CONF_PATH.lstrip("/")).read_text()
    assert dns.rcode.to_text(private.rcode()) == "NOERROR"
    assert [r.address for rrset in private.answer for r in rrset] == [PRIVATE_ADDRESS]
    assert [r.address for rrset in signed.answer for r in rrset] == [SIGNED_ADDRESS]


def test_with_validation_as_fedora_has_it_the_private_zone_is_bogus(
        lab, write_ks, tmp_path, dot_pki):
    """Not vacuous: without our module-config line, Fedora's validator fails the zone."""
    network, anchor, started = lab
    root = staged_root(write_ks, tmp_path, dot_pki, "root")
    conf = root / c.UNBOUND_CONF_PATH.lstrip("/")
    conf.write_text("\n".join(line for line in conf.read_text().splitlines()
                              if "module-config" not in line) + "\n")
    forwarder = fedora_like_forwarder(tmp_path, network, anchor, root, "forwarder")
    started.append(forwarder)

    private = dotlab.ask(c.UNBOUND_LISTEN_ADDRESS, 53, PRIVATE_NAME, network=network)
    signed = dotlab.ask(c.UNBOUND_LISTEN_ADDRESS, 53, SIGNED_NAME, network=network)

    assert dns.rcode.to_text(private.rcode()) == "SERVFAIL"
    assert "validation failure <%s A IN>" % PRIVATE_NAME in forwarder.log()
    assert [r.address for rrset in signed.answer for r in rrset] == [SIGNED_ADDRESS]
