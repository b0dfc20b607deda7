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


"""FreeIPA's client files by release line, from a clone of freeipa/freeipa (FREEIPA_GIT).

No 4.12.x release tag has DNS over TLS (release-4-12-5's client has no dns_over_tls); the
ipa-4-12 branch got it (46ef43b2a "Add DNS over TLS support") after 4.12.5, and "dns:
disable all previous Unbound configuration before deploying ours" (bae780843) later
still: its parent is 4.12's DNS over TLS without that clean-up, as EL9's and EL10's 4.12
builds carry it. tests/test_peer_freeipa.py checks each line's client_dns takes the steps
the tests and the VM tier restate; this module only reads and fills in FreeIPA's files.
"""

import os
import re
import string
import subprocess

FREEIPA_GIT_ENV = "FREEIPA_GIT"
LINES = {"4.12": "bae780843^", "4.13": "release-4-13-0"}
# os.path.join(paths.OPENSSL_CERTS_DIR, "ca-bundle.crt") (ipaplatform/base/paths.py), the
# bundle 4.12's client names in its Unbound file.
SYSTEM_BUNDLE = "/etc/pki/tls/certs/ca-bundle.crt"


class FreeipaUnavailable(Exception):
    """No clone, or no such file at that commit of it; the message says which."""


def source(ref, path):
    """The text of PATH at REF of the FREEIPA_GIT clone (bare or not)."""
    clone = os.environ.get(FREEIPA_GIT_ENV)
    if not clone:
        raise FreeipaUnavailable("%s is not set: give a clone of freeipa/freeipa to run "
                                 "FreeIPA's own templates" % FREEIPA_GIT_ENV)
    result = subprocess.run(["git", "--git-dir", clone, "show", "%s:%s" % (ref, path)],
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0 and not clone.endswith(".git"):
        result = subprocess.run(["git", "-C", clone, "show", "%s:%s" % (ref, path)],
                                capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise FreeipaUnavailable("%s=%s has no %s:%s (%s)" % (
            FREEIPA_GIT_ENV, clone, ref, path, result.stderr.strip()))
    return result.stdout


def unbound_conf(line, forward_addr, client_dns_body):
    """zzz-ipa.conf as LINE's client_dns (its text CLIENT_DNS_BODY) writes it, forwarding to
    FORWARD_ADDR ("ADDRESS#NAME"), DNSSEC validation left on: the line's own template
    through string.Template(...).substitute, as ipapython/ipautil.py template_str does."""
    template = source(LINES[line], "client/share/unbound.conf.template")
    values = {"FORWARD_ADDRS": "forward-addr: %s" % forward_addr,
              "MODULE_CONFIG_ITERATOR": "# "}
    if "TLS_CERT_BUNDLE_PATH=" in client_dns_body:
        values["TLS_CERT_BUNDLE_PATH"] = SYSTEM_BUNDLE
    return string.Template(template).substitute(values)


def client_dns(line):
    """The text of LINE's client_dns (ipaclient/install/client.py)."""
    client = source(LINES[line], "ipaclient/install/client.py")
    return re.search(r"^def client_dns\(.*?(?=^def )", client, re.M | re.S).group(0)
