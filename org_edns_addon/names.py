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

"""DNS and TLS names as they may reach a configuration file: lower-case ASCII (IDNA
A-labels), every label checked, so that a newline, ``,``, ``#``, ``[``, ``]``, a space or
a quote can never be smuggled into a NetworkManager keyfile or an Unbound config line."""

import functools
import ipaddress
import re

import idna

from org_edns_addon.i18n import N_, _
from org_edns_addon.problems import ModelError

# \Z, not $: "$" also matches before a final newline, which must never pass.
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)\Z")
_DOMAIN_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)\Z")


# What a value is called in a refusal when its caller does not say (marked, translated
# when the sentence is made).
_A_NAME = N_("name")
_A_DOMAIN = N_("domain")


def normalize_dns_name(text, what=_A_NAME, underscore=False):
    """Return TEXT as a lower-case ASCII DNS name (IDNA A-labels), or raise ModelError.

    UNDERSCORE allows '_' in ASCII labels, as in ``_msdcs.corp.example``: a
    domain may hold it (dnsconfd's libidn2 idn2_lookup_u8, NetworkManager's
    [global-dns-domain-*] names and Unbound's zone names all take it), a host
    name, and so a TLS name, may not. WHAT names the value in a refusal, translated or
    marked with ``N_`` (translated then).
    """
    if not isinstance(text, str) or not text:
        raise ModelError(_("the %s is empty") % _(what))
    given = text
    if text.endswith(".") and text != ".":
        text = text[:-1]
    label_rule = _DOMAIN_LABEL if underscore else _LABEL
    if text.isascii():
        # Most names are plain ASCII: where IDNA would only lower-case them, skip its
        # (costly) per-character tables. Anything else, errors included, takes IDNA's path.
        name = text.lower()
        if len(name) <= 253 and all(label_rule.match(label) and label[2:4] != "--"
                                    for label in name.split(".")):
            return name
    else:
        name = _name_by_labels(text, label_rule)
        if name is not None:
            return name
    return _idna_name(given, text, what, underscore, label_rule)


def _name_by_labels(text, label_rule):
    """TEXT in A-labels, encoding each non-ASCII label once (server lines repeat their
    domains), or None where the whole-name path must decide (and word the error).

    The same result as IDNA on the whole name: UTS #46 maps character by character
    and its NFC never composes across a '.', and IDNA checks label by label; a label
    whose mapping yields a dot ('\uff0e') is split by the encoding as the whole name
    would be, and the joined name is checked again as a whole."""
    labels = []
    for label in text.split("."):
        if label.isascii():
            if label[2:4] == "--":   # an A-label given as such: IDNA must check it
                return None
            labels.append(label.lower())
        else:
            try:
                labels.append(_a_labels(label))
            except (idna.IDNAError, UnicodeError, ValueError):
                return None
    name = ".".join(labels)
    if len(name) <= 253 and all(label_rule.match(label) for label in name.split(".")):
        return name
    return None


@functools.lru_cache(maxsize=1024)
def _a_labels(label):
    return idna.encode(label, uts46=True).decode("ascii").lower()


def _idna_name(given, text, what, underscore, label_rule):
    what = _(what)   # given marked (N_) or translated already: the same words either way
    in_labels = _("letters, digits, '-' and '_'") if underscore else _("letters, digits and '-'")
    try:
        if underscore and "_" in text:
            ascii_name = _encode_with_underscores(text)
        else:
            ascii_name = idna.encode(text, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError) as error:
        raise ModelError(_("%r is not a valid DNS %s (%s); use %s, and '.' between labels")
                         % (given, what, error, in_labels)) from None
    ascii_name = ascii_name.lower()
    for label in ascii_name.split("."):
        if not label_rule.match(label):
            raise ModelError(_("%r is not a valid DNS %s: label %r may hold only %s, with "
                             "'-' only inside") % (given, what, label, in_labels))
    return ascii_name


def _encode_with_underscores(text):
    """TEXT in A-labels, its ASCII labels with '_' kept as they are (lower-cased)."""
    labels = []
    for label in idna.uts46_remap(text, std3_rules=False, transitional=False).split("."):
        if "_" in label:
            if not all(ord(character) < 128 for character in label):
                raise ValueError(_("'_' may appear only in an ASCII label, not in %r") % label)
            labels.append(label)
        else:
            labels.append(idna.alabel(label).decode("ascii"))
    name = ".".join(labels)
    if len(name) > 253:
        raise ValueError("Domain too long")
    return name


def normalize_tls_name(text):
    """Return TEXT as the name a DoT server's certificate must hold, or raise ModelError.

    An IP address is kept as an address, in its canonical form: Unbound then
    checks it against the certificate's IP addresses, not its DNS names
    (util/net_help.c, set_auth_name_on_ssl; OpenSSL's SSL_set1_host).
    """
    if isinstance(text, str) and "%" not in text:
        try:
            return str(ipaddress.ip_address(text))
        except ValueError:
            pass
    # Marked, not translated: the word is translated only if a sentence is made of it
    # (``_idna_name``); this runs once for every server line.
    name = normalize_dns_name(text, N_("TLS name"))
    if name.rpartition(".")[2].isdigit():
        # A name whose last label is all digits is read as an IPv4 address.
        raise ModelError(_("%r is neither an IPv4 address nor a DNS name (the last label of "
                         "a name is not all digits); write the address like 192.0.2.53 or "
                         "the name as in the certificate") % text)
    return name


def normalize_domains(domains, what=_A_DOMAIN):
    """Each of DOMAINS through ``normalize_dns_name`` (with '_' allowed), in order."""
    return [normalize_dns_name(domain, what, underscore=True) for domain in domains]


# The zones Unbound answers itself unless told otherwise (services/localzone.c
# local_zone_enter_defaults, util/as112.c as112_zone_array; the same from 1.17, Debian 12's,
# to 1.26, Debian 13's, but for resolver.arpa and service.arpa, added in 1.24): a name
# in one gets NXDOMAIN at once (localhost's names their loopback address), whatever
# forward zone names it, with any backend. A ``local-zone`` of the name ends that: a
# more specific one (the routed domain, ``transparent``) takes the names below it
# (local_zones_lookup finds the closest zone), and an equal one replaces the default
# (lz_exists). tests/test_peer_unbound_local_zones.py holds the list against both
# Unbound releases.
UNBOUND_LOOPBACK_ZONES = (
    "localhost",
    "127.in-addr.arpa",
    "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa",
)
UNBOUND_SPECIAL_USE_ZONES = ("test", "invalid", "onion", "home.arpa", "resolver.arpa",
                             "service.arpa")
# RFC 6303's and RFC 6761's reverse zones (AS112), those of documentation addresses too;
# ``unblock-lan-zones: yes`` removes them all, for every forward zone.
UNBOUND_AS112_ZONES = tuple(
    ["10.in-addr.arpa"] + ["%d.172.in-addr.arpa" % octet for octet in range(16, 32)]
    + ["168.192.in-addr.arpa", "0.in-addr.arpa"]
    + ["%d.100.in-addr.arpa" % octet for octet in range(64, 128)]
    + ["254.169.in-addr.arpa", "2.0.192.in-addr.arpa", "100.51.198.in-addr.arpa",
       "113.0.203.in-addr.arpa", "255.255.255.255.in-addr.arpa",
       ".".join(["0"] * 32) + ".ip6.arpa", "d.f.ip6.arpa", "8.e.f.ip6.arpa", "9.e.f.ip6.arpa",
       "a.e.f.ip6.arpa", "b.e.f.ip6.arpa", "8.b.d.0.1.0.0.2.ip6.arpa"])
UNBOUND_DEFAULT_ZONES = UNBOUND_LOOPBACK_ZONES + UNBOUND_SPECIAL_USE_ZONES + \
    UNBOUND_AS112_ZONES


def is_below(domain, zone):
    """Whether DOMAIN (a normalized name) is ZONE or a name in it."""
    return domain == zone or domain.endswith("." + zone)


def unbound_zone_of(domain):
    """The default zone of Unbound's that DOMAIN is, or is a name in; None if none."""
    return next((zone for zone in UNBOUND_DEFAULT_ZONES if is_below(domain, zone)), None)


def unbound_zones_below(domain):
    """Unbound's default zones strictly below DOMAIN, in their order."""
    return tuple(zone for zone in UNBOUND_DEFAULT_ZONES
                 if zone != domain and is_below(zone, domain))
