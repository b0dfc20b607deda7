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

"""The pre-flight check of a configuration's servers (``check_servers``), with the trust an
installation uses (``check_staging_input``): the TLS context loaded as Unbound loads its
bundle, then every server's probe run on one loop."""

import ssl
from dataclasses import dataclass
from typing import List, Optional

from org_edns_addon import terms
from org_edns_addon.i18n import _
from org_edns_addon.constants import CHECK_TIMEOUT_SECONDS
from org_edns_addon.model import EdnsConfig
from org_edns_addon.probe.loop import ProbeLoop
from org_edns_addon.probe.result import ServerCheck
from org_edns_addon.probe.server import ServerProbe


def check_servers(config: EdnsConfig, ca_bundle: Optional[bytes] = None,
                  qname: Optional[str] = None, timeout: float = CHECK_TIMEOUT_SECONDS,
                  anchors: Optional[bytes] = None,
                  within: Optional[float] = None, authorities=()) -> List[ServerCheck]:
    """Check every server of CONFIG; results in the order of the servers.

    CA_BUNDLE (PEM, as staging writes it) alone authenticates the DoT servers when
    given, loaded as Unbound loads its tls-cert-bundle; otherwise the system trust
    store plus ANCHORS (PEM) does. AUTHORITIES are the ``CertificateBlock``s of that
    bundle or of those anchors: a refused server is explained in chain words from them
    (``certificates.chains.refusal_reason``). QNAME is the name asked (default: ``query_name``).
    Each server gets TIMEOUT seconds for everything, from its connection's start. Up
    to ``CHECK_MAX_PARALLEL`` servers are connected at once (more wait for a free
    socket); WITHIN, when given, bounds the whole check: no server is checked past it,
    and one whose turn has not come by then is not checked.
    """
    # Loaded here, before any check's clock starts and before sockets hold descriptors.
    # An installer image may lack dnspython: then say so (dependencies.Unusable).
    from org_edns_addon.dependencies import load
    load("dns.message", _("the pre-flight check of the DNS servers"))
    load("dns.rcode", _("the pre-flight check of the DNS servers"))

    context = _verifying_context(ca_bundle, anchors)
    trust = Trust(str(terms.CA_OF_BUNDLE) if ca_bundle is not None else
                   _("a CA the system trusts (or %s)") % terms.ANCHOR,
                   tuple(authorities), ca_bundle is not None)
    queries = {}     # one query (and its wire) for each name asked
    probes = [ServerProbe(server, context, trust, qname, queries)
              for server in config.servers]
    ProbeLoop(probes, timeout, within).run()
    return [probe.result for probe in probes]


def check_staging_input(data, qname=None, timeout=CHECK_TIMEOUT_SECONDS, within=None):
    """``check_servers`` with the trust the installation will use for a StagingInput
    (``data.trust``: the kickstart's certificates alone, or the system store plus
    every ``%certificate --type=anchor``)."""
    from org_edns_addon.certificates.pem import build_bundle

    trust = data.trust
    if trust.explicit:
        # Each block as staging writes it: a TRUSTED CERTIFICATE keeps its trust settings.
        return check_servers(data.config, build_bundle(trust.blocks, as_read=True), qname,
                             timeout, within=within, authorities=trust.blocks)
    return check_servers(data.config, None, qname, timeout, build_bundle(trust.anchors) or None,
                         within=within, authorities=trust.anchors)


@dataclass(frozen=True)
class Trust:
    """What authenticates the servers, for explaining a refusal: ``said`` in words, the
    kickstart's ``authorities`` (``CertificateBlock``s), ``explicit`` when they alone do."""
    said: str
    authorities: tuple
    explicit: bool


def _verifying_context(ca_bundle, anchors):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)   # verifies chain and host name
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    # Unbound never accepts a chain that ends below a root CA (certificates/chains.py);
    # Python 3.13's create_default_context would, and this context must not.
    context.verify_flags &= ~getattr(ssl, "VERIFY_X509_PARTIAL_CHAIN", 0)
    if ca_bundle is not None:
        _load_as_unbound(context, ca_bundle)
    else:
        context.load_default_certs()
        if anchors:
            context.load_verify_locations(cadata=anchors.decode("ascii"))
    return context


def _load_as_unbound(context, ca_bundle):
    """Load CA_BUNDLE (PEM bytes) into CONTEXT as Unbound loads its tls-cert-bundle: as a
    file, through ``SSL_CTX_load_verify_locations`` (util/net_help.c
    ``connect_sslctx_create``), which keeps a TRUSTED CERTIFICATE's trust settings; Python's
    ``cadata`` reads CERTIFICATE blocks alone (``PEM_read_bio_X509``) and would pass over
    it."""
    import tempfile

    with tempfile.NamedTemporaryFile(prefix="edns-check-", suffix=".pem") as bundle:
        bundle.write(ca_bundle)
        bundle.flush()
        context.load_verify_locations(cafile=bundle.name)
