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

"""The VM proof's parts that every case shares: the lab (its tree, certificates, network
and servers), one boot of a guest with its capture, and the checks that read what a boot
showed (lab/vmlab/proof.py runs the cases of lab/vmlab/cases.py with them).

Every counted check is a positive observation: the guest's address and its packets in
the capture, the value NetworkManager runs with, the unit that ran, the reason a
fail-closed case failed in the resolver's own words. What the lab or Debian's tools do
is printed as a fact and never counted.
"""

import hashlib
import os
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lab import certs
from lab.kickstarts import edns_kickstart
from lab.vmlab import (debian_tree, global_dns, guest, initramfs, networkmanager, repository,
                       site, stage2, tapnet, target_layout)
from org_edns_addon import constants as c

REPO = Path(__file__).resolve().parents[2]
DNSCONFD_ENV = "DNSCONFD_ROOT"
EXIT_FAILED = 1
EXIT_CANNOT_RUN = 2
# A network install: what an installer kickstart holds before our sections.
COMMANDS = "text\nnetwork --bootproto=dhcp\nrootpw --lock\n"
# The kickstarts' resolve mode: the proof checks NetworkManager runs exactly this.
MODE = "exclusive"
# The other side: a connection's own (DHCP, plaintext) servers serve its domains.
PREFER = "prefer"
STATIC_IP = ["ip=%s::%s:255.255.255.0::%s:none" % (site.GUEST_IPV4, site.GATEWAY_IPV4,
                                                     site.GUEST_INTERFACE),
             "ip=[%s]::[%s]:64::%s:none" % (site.GUEST_IPV6, site.GATEWAY_IPV6,
                                              site.GUEST_INTERFACE)]
DHCP_IP = ["ip=%s:dhcp" % site.GUEST_INTERFACE]
TARGET_BASE_MODULES = ("base", "systemd", "systemd-initrd", "dracut-systemd", "dbus")
# The target's initramfs needs its network here (as for a network root): the lab adds
# NetworkManager, the proof runner, and the user creation dracut-ng 108 does itself.
TARGET_LAB_MODULES = ("network-manager", "edns-lab-proof")
SYSUSERS_RERUN = "edns-lab-sysusers"
# A boot that did not reach the proof's end shows this many lines of its console.
SERIAL_TAIL = 25
# What OpenSSL says, through Unbound's log, when a server's certificate is not
# signed by the CA it was given.
VERIFY_FAILED = "certificate verify failed"
RESOLVER_UNITS = ("dnsconfd.service", "unbound.service")
# With dnsconfd, the boot-time start of Unbound is held back by the addon's drop-in
# (org_edns_addon/staging/dnsconfd.py) until dnsconfd has written its configuration:
# systemd's words for a start skipped on its (triggering) conditions; and dnsconfd's for
# the stop of an Unbound that ran before it, after which it reloads and NetworkManager
# waits up to 5 s for a serial that never comes (docs/performance.md, Boot).
UNBOUND_HELD_BACK = "no trigger condition checks were met"
DNSCONFD_RELOADED = "Cache stopped"

# What the guest runs and prints (lab/vmlab/dracut/99edns-lab-proof/edns-proof.sh).


def network_probes(bundle=c.DOT_CA_BUNDLE_PATH):
    """The guest's address, and a fetch by address authenticated by BUNDLE."""
    return "address %s\nfetch %s %s %s\n" % (site.GUEST_INTERFACE, site.KS_URL, bundle,
                                             site.HTTPS_SERVER)


NETWORK_CHECKS = network_probes()
RESOLVER_CHECKS = """\
show /etc/resolv.conf
unit dnsconfd.service
unit unbound.service
resolve %(name)s
resolve %(routed)s
grep_journal '%(verify)s' dnsconfd.service unbound.service
grep_journal '%(held)s' unbound.service
grep_journal '%(reloaded)s' dnsconfd.service
journal dnsconfd.service unbound.service
""" % {"name": site.TEST_NAME, "routed": site.ROUTED_TEST_NAME, "verify": VERIFY_FAILED,
       "held": UNBOUND_HELD_BACK, "reloaded": DNSCONFD_RELOADED}
INSTALLER_CHECKS = NETWORK_CHECKS + """\
show /run/NetworkManager/conf.d/16-global-dns.conf
show /run/NetworkManager/conf.d/16-dns-backend.conf
global_dns
""" + RESOLVER_CHECKS + "fetch %s %s\n" % (site.KS_URL, c.DOT_CA_BUNDLE_PATH)


def target_probes(bundle=c.DOT_CA_BUNDLE_PATH):
    """What a booted installed system shows, its fetch by address authenticated by BUNDLE."""
    return network_probes(bundle) + "global_dns\n" + RESOLVER_CHECKS


TARGET_CHECKS = target_probes()
# With DHCP: what NetworkManager has from the lease, then a name of the DHCP domain, which
# only the plaintext server DHCP offered answers, asked before and after NetworkManager is
# reloaded as the installer phase reloads it (constants.NM_RELOAD_COMMAND). NetworkManager
# 1.52 sends a connection's DNS to dnsconfd only on a DNS update after its lease: with a
# global "*" domain its DNS hash leaves the connections out (src/core/dns/nm-dns-manager.c,
# compute_hash), so the lease alone changes nothing; a reload sends everything
# (config_changed_cb: update_dns), and dnsconfd then has DHCP's server and decides by
# resolve-mode (src/dns_managers/unbound_manager.c, get_used_servers). The beacons mark the
# two steps in the capture.
DHCP_BEACONS = {1004: "after the reload", 1005: "end"}
DHCP_WAIT_SECONDS = 30
DHCP_CHECKS = """\
say "ip4config $(timeout 10 nmcli -t -f IP4.DNS,IP4.DOMAIN device show %(iface)s 2>&1 \\
    | tr '\\n' ' ')"
say 'step dhcp-before-reload'
say "dnsconfd-status $(timeout 10 dnsconfd status --json 2>/dev/null | tr '\\n' ' ')"
resolve %(name)s
beacon %(gateway)s 1004
say 'step dhcp-after-reload'
say "reload $(timeout 20 %(reload)s 2>&1 && echo done)"
if command -v dnsconfd >/dev/null; then
    for try in $(seq %(tries)d); do
        timeout 10 dnsconfd status --json 2>/dev/null | grep -q '"%(plain)s"' && break
        sleep 0.5
    done
fi
say "dnsconfd-status $(timeout 10 dnsconfd status --json 2>/dev/null | tr '\\n' ' ')"
show /run/dnsconfd/unbound.conf
resolve %(name)s
beacon %(gateway)s 1005
""" % {"iface": site.GUEST_INTERFACE, "name": site.DHCP_TEST_NAME, "gateway": site.GATEWAY_IPV4,
       "reload": " ".join(c.NM_RELOAD_COMMAND), "tries": DHCP_WAIT_SECONDS * 2,
       "plain": site.PLAINTEXT_DNS}


class CannotRun(Exception):
    """A case asked for cannot run here; the message says why."""


class Proof:
    """Collects the checks and the figures, and prints them as they come."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def section(self, title):
        print("\n" + title, flush=True)

    def check(self, ok, text):
        """A counted check: OK must be a positive observation of the addon's effect."""
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print("  %s  %s" % ("ok  " if ok else "FAIL", text), flush=True)
        return ok

    def fact(self, text):
        """What the lab or Debian's tools do: printed, never counted."""
        print("  fact  %s" % text, flush=True)

    def figure(self, text):
        print("        %s" % text, flush=True)


def cli(*args, check=True):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", *map(str, args)],
                            capture_output=True, text=True, env=env, timeout=120)
    if check and result.returncode != 0:
        raise RuntimeError("edns-addon %s failed: %s" % (" ".join(map(str, args)),
                                                         result.stderr))
    return result


def dnsconfd_root():
    """DNSCONFD_ROOT if it is an installed dnsconfd tree, None if unset; else an error."""
    value = os.environ.get(DNSCONFD_ENV)
    if not value:
        return None
    root = Path(value)
    modules = list(root.glob("usr/lib/dracut/modules.d/*dnsconfd"))
    if not (root / "usr/bin/dnsconfd").exists() or not modules:
        raise SystemExit("%s=%s: no usr/bin/dnsconfd and dracut module there; give the "
                         "DESTDIR an installed dnsconfd was installed into" % (DNSCONFD_ENV,
                                                                              value))
    return root


@dataclass
class Expect:
    """What a case must observe."""
    resolves: bool                 # names resolve over DoT
    ca_trusted: bool = True        # the bundle the guest has authenticates the lab's servers
    dot_tried: bool = True         # the guest opens connections to port 853
    routed: bool = True            # the routed domain goes to its own server
    answer: str = site.ANSWERS[site.TEST_NAME]
    resolver_units: tuple = RESOLVER_UNITS   # units that must exist and have run
    idle_units: tuple = ()         # units that must not have run (the other resolver stack)
        # The connection's (DHCP's) plaintext server answers the connection's domain:
    # resolve-mode prefer, where dnsconfd forwards a connection's domains to its own
    # servers (src/dns_managers/unbound_manager.c, get_used_servers).
    plaintext_for_dhcp_domain: bool = False
    # The server for all names is the IPv6 one: the guest must reach it over IPv6.
    over_ipv6: bool = False


def network_checks(proof, boot, frames, lease=None, expect=None):
    """The guest had its address and the capture holds its packets: the address
    exchange (DHCP, ARP or neighbour discovery), a connection by address to the HTTPS
    server, authenticated by the bundle the guest has, and (if DoT is expected) a SYN
    to port 853. Returns False when the guest had no network (nothing else then tells)."""
    expect = expect or Expect(resolves=True)
    wanted = lease or site.GUEST_IPV4
    addresses = boot.addresses(site.GUEST_INTERFACE)
    sent = [f for f in frames if f.source == wanted]
    proof.fact("nm-online says %s (it says yes without a link too)" % boot.online())
    had = proof.check(wanted in addresses and bool(sent),
                      "the guest had its address %s on %s (it has %s) and sent %d packets "
                      "from it" % (wanted, site.GUEST_INTERFACE, ", ".join(addresses) or
                                   "none", len(sent)))
    if lease:
        exchange = [f for f in frames if f.kind == "udp" and f.port == 67]
        proof.check(bool(exchange), "its DHCP exchange is in the capture (%d packets to UDP "
                    "67)" % len(exchange))
    else:
        exchange = [f for f in frames if f.kind == "arp" or f.icmp_type in tapnet.ND_TYPES]
        proof.check(bool(exchange), "its address exchange is in the capture (%d ARP and "
                    "neighbour discovery packets)" % len(exchange))
    ok, detail = boot.fetched(site.KS_URL, pinned=True)
    syn_443 = [f for f in frames if f.syn and f.destination == site.HTTPS_SERVER
               and f.port == 443]
    if expect.ca_trusted:
        proof.check(ok and bool(syn_443), "it reached %s by address (%d SYN to TCP 443), and "
                    "the bundle it has authenticates the lab's servers (%s)"
                    % (site.HTTPS_SERVER, len(syn_443), "sha256 " + detail[:16] if ok
                       else detail))
    else:
        proof.check(not ok and bool(syn_443) and "certificate" in detail,
                    "it reached %s by address (%d SYN to TCP 443), and the bundle it has "
                    "does not authenticate the lab's servers (%s)"
                    % (site.HTTPS_SERVER, len(syn_443), detail.strip()[:90] or "no error"))
    if expect.dot_tried:
        syn_853 = Counter(f.destination for f in frames if f.syn and f.port == c.DOT_PORT)
        proof.check(bool(syn_853), "it opened DoT connections: SYN to TCP 853 of %s" % (
            ", ".join("%s (%d)" % item for item in sorted(syn_853.items())) or "nobody"))
    return had


def to_plaintext_server(frame):
    return frame.destination == site.PLAINTEXT_DNS and frame.port == 53


def capture_checks(proof, frames, dhcp=False, plaintext_allowed=False):
    """No packet to port 53, and no UDP but DHCP, left the guest (in a capture that
    ``network_checks`` showed holds the guest's packets). PLAINTEXT_ALLOWED: but those to
    port 53 of the server DHCP offered (resolve-mode prefer; ``dhcp_domain_checks`` holds
    what they asked)."""
    counts = tapnet.by_port(frames)
    allowed = to_plaintext_server if plaintext_allowed else (lambda frame: False)
    dns = [f for f in frames if f.port == 53 and f.kind in ("tcp", "udp") and not allowed(f)]
    udp = [f for f in frames if f.kind == "udp" and not (dhcp and f.port in (67, 547))
           and not allowed(f)]
    but = " but to the DHCP server's %s:53" % site.PLAINTEXT_DNS if plaintext_allowed else ""
    proof.check(bool(frames) and not dns, "no packet to port 53 left the guest%s (%d of %d)"
                % (but, len(dns), len(frames)))
    proof.check(bool(frames) and not udp, "no UDP left the guest%s%s (%d: %s)" % (
        " but DHCP" if dhcp else "", but and " and" + but[4:], len(udp),
        sorted({"%s:%d" % (f.destination, f.port) for f in udp})))
    proof.figure("packets from the guest by port: %s" % ", ".join(
        "%s %d" % item for item in sorted(counts.items())))
    tcp = Counter("%s:%d" % (f.destination, f.port) for f in frames if f.kind == "tcp")
    if tcp:
        proof.figure("TCP from the guest to: %s" % ", ".join(
            "%s %d" % item for item in sorted(tcp.items())))
    return counts


def unit_checks(proof, boot, units):
    """Each of UNITS is installed and ran (systemctl show on a unit that is not there
    says Result=success too, so LoadState and its start time are read)."""
    for unit in units:
        state = boot.unit(unit)
        started = state.get("ExecMainStartTimestampMonotonic", "0") not in ("0", "")
        proof.check(state.get("LoadState") == "loaded" and started
                    and state.get("ActiveState") == "active",
                    "%s is installed and ran (%s)" % (unit, " ".join(
                        "%s=%s" % (key, state.get(key)) for key in (
                            "LoadState", "ActiveState", "Result", "NRestarts"))))


def dnsconfd_start_checks(proof, boot, units):
    """With dnsconfd among UNITS: Unbound's boot-time start was held back, and dnsconfd
    started it once, without the reload that keeps NetworkManager from network-online."""
    if "dnsconfd.service" not in units:
        return
    held, line = boot.journal_matches(UNBOUND_HELD_BACK)
    reloaded, why = boot.journal_matches(DNSCONFD_RELOADED)
    proof.check(held >= 1 and reloaded == 0,
                "Unbound's boot-time start was held back until dnsconfd's configuration "
                "(%s), and dnsconfd started it without reloading (%d '%s' in its journal%s)"
                % (line or "no start of it was skipped", reloaded, DNSCONFD_RELOADED,
                   ": " + why if why else ""))


def resolution_checks(proof, lab, boot, expect, offsets):
    """Names resolve over DoT (or not), and a fail-closed case names its cause."""
    answer = boot.resolved(site.TEST_NAME)
    if expect.resolves:
        proof.check(answer == expect.answer, "%s -> %s over DoT (expected %s)"
                    % (site.TEST_NAME, answer, expect.answer))
        if expect.routed:
            routed_asked = asked_for(lab.routed, offsets["routed"], site.ROUTED_TEST_NAME)
            elsewhere = [q for q in queries(lab.main.log_since(offsets["main"]))
                         if in_domain(q[1], site.ROUTED_DOMAIN)]
            proof.check(boot.resolved(site.ROUTED_TEST_NAME)
                        == site.ANSWERS[site.ROUTED_TEST_NAME] and bool(routed_asked)
                        and not elsewhere,
                        "%s -> %s, asked of its own server %s only (domain=; it logged %d "
                        "queries for it, the server for all names %d of %s)"
                        % (site.ROUTED_TEST_NAME, boot.resolved(site.ROUTED_TEST_NAME),
                           site.ROUTED_DOT, len(routed_asked), len(elsewhere),
                           site.ROUTED_DOMAIN))
        return
    routed = boot.resolved(site.ROUTED_TEST_NAME)
    proof.check(answer is None and routed is None, "nothing resolves (%s: %s, %s: %s)" % (
        site.TEST_NAME, answer or "no answer", site.ROUTED_TEST_NAME, routed or "no answer"))
    if not expect.ca_trusted:
        count, first = boot.journal_matches(VERIFY_FAILED)
        proof.check(count > 0, "because the servers' certificates fail verification: %d "
                    "journal lines say '%s' (%s)" % (count, VERIFY_FAILED, first[:100]))
    elif not lab.dnsconfd:
        state = boot.unit(c.DNSCONFD_UNIT)
        proof.check(state.get("LoadState") == "not-found",
                    "because it has no resolver that speaks DoT: %s is not installed "
                    "(LoadState=%s), and NetworkManager's initramfs speaks DoT only through "
                    "it" % (c.DNSCONFD_UNIT, state.get("LoadState")))


# An Unbound of the lab's logs each query it is asked (log-queries): "info: CLIENT NAME.
# TYPE CLASS", or "query: ..." with log-tag-queryreply (util/net_help.c, log_query_in).
_QUERY = re.compile(r"(?:info|query): (\S+) (\S+)\. (\S+) IN$", re.MULTILINE)


def queries(log):
    """[(client address, name, type)] of each query an Unbound of the lab logged in LOG."""
    return _QUERY.findall(log)


def in_domain(name, domain):
    return name == domain or name.endswith("." + domain)


def asked_for(server, offset, name, kind="A"):
    """The queries for NAME (of type KIND) the lab's SERVER logged since OFFSET."""
    return [q for q in queries(server.log_since(offset)) if q[1:] == (name, kind)]


def ipv6_checks(proof, lab, frames, offsets, answer, ks_text):
    """The guest reached the IPv6 DoT server over IPv6 (its SYNs to [ADDRESS]:853 in the
    capture, its query from the guest's IPv6 address in the server's log, the server's own
    answer), and the IPv4 path did not answer: no DoT connection to an IPv4 address but
    the kickstart's routed servers', and the IPv4 server for all names was asked nothing."""
    reached = Counter((f.source, f.destination, f.port) for f in frames
                      if f.syn and f.kind == "tcp" and ":" in f.destination)
    wanted = (site.GUEST_IPV6, site.MAIN_DOT_IPV6, c.DOT_PORT)
    asked = [q for q in queries(lab.ipv6.log_since(offsets["ipv6"]))
             if q == (site.GUEST_IPV6, site.TEST_NAME, "A")]
    proof.check(reached[wanted] > 0 and bool(asked) and answer == site.IPV6_SERVER_ANSWER,
                "over IPv6: SYN from %s to [%s]:%d (%d; all IPv6 SYNs: %s), that server was "
                "asked %s from %s %d times, and %s -> %s is its own answer (%s)" % (
                    site.GUEST_IPV6, site.MAIN_DOT_IPV6, c.DOT_PORT, reached[wanted], ", ".join(
                        "%s->[%s]:%d %d" % (key + (count,)) for key, count in sorted(
                            reached.items())) or "none", site.TEST_NAME, site.GUEST_IPV6,
                    len(asked), site.TEST_NAME, answer or "no answer", site.IPV6_SERVER_ANSWER))
    routed = {server.address for domain, servers in global_dns.from_kickstart(
        ks_text).domains.items() if domain != global_dns.ALL_NAMES for server in servers}
    over_ipv4 = Counter("%s:%d" % (f.destination, f.port) for f in frames
                        if f.syn and f.port == c.DOT_PORT and ":" not in f.destination
                        and f.destination not in routed)
    main_asked = [q for q in queries(lab.main.log_since(offsets["main"]))
                  if q[1] == site.TEST_NAME]
    proof.check(not over_ipv4 and not main_asked,
                "the IPv4 path did not answer: SYNs to port 853 of IPv4 addresses other than "
                "the routed servers' (%s): %s; and %s was asked nothing (%d queries for %s)" % (
                    ", ".join(sorted(routed)) or "none", ", ".join(
                        "%s %d" % item for item in sorted(over_ipv4.items())) or "none",
                    site.MAIN_DOT, len(main_asked), site.TEST_NAME))


def global_dns_checks(proof, lab, boot, ks_text, road=global_dns.ROAD_KEYFILE, title=""):
    """NetworkManager runs exactly what the kickstart asks, as ROAD carries it: every
    domain's servers (address, port, TLS name), the mode, the CA (lab/vmlab/global_dns.py).
    Returns what it runs."""
    expected = global_dns.from_kickstart(ks_text, road)
    running = global_dns.from_dbus(boot.global_dns())
    wrong = global_dns.differences(expected, running)
    proof.check(boot.global_dns() is not None and not wrong,
                "%sNetworkManager %s runs the kickstart's servers as %s carry them (D-Bus "
                "GlobalDnsConfiguration, field by field): %s%s" % (
                    title, lab.networkmanager, "the boot options" if road ==
                    global_dns.ROAD_BOOT_OPTIONS else "the addon's keyfile", running,
                    "; DIFFERS: " + "; ".join(wrong) if wrong else ""))
    return running


def generated_checks(proof, boot, ks_text):
    """nm-initrd-generator's 16-global-dns.conf, read as NetworkManager reads it, holds
    exactly what the boot options can carry of the kickstart."""
    path = "/run/NetworkManager/conf.d/16-global-dns.conf"
    text = "\n".join(boot.file_lines(path))
    generated = global_dns.from_file(text) if text != "(absent)" else global_dns.GlobalDns()
    wrong = global_dns.differences(
        global_dns.from_kickstart(ks_text, global_dns.ROAD_BOOT_OPTIONS), generated)
    proof.check(bool(text) and not wrong,
                "nm-initrd-generator wrote %s from the boot options, field by field the "
                "kickstart's servers for all names and its mode: %s%s" % (
                    path, generated, "; DIFFERS: " + "; ".join(wrong) if wrong else ""))


def dnsconfd_status(boot):
    """``dnsconfd status --json`` as the guest printed it ({} if it was not JSON), or None
    if it was not asked."""
    import json

    for line in boot.lines:
        if line.startswith("dnsconfd-status "):
            text = line[len("dnsconfd-status "):]
            try:
                return json.loads(text[text.index("{"):])
            except ValueError:
                return {}
    return None


def dnsconfd_servers(boot):
    """The servers dnsconfd has (``dnsconfd status --json``), or None if not asked."""
    status = dnsconfd_status(boot)
    return None if status is None else status.get("servers", [])


def split_at_beacons(frames, beacons, first):
    """{window: frames} of FRAMES cut at the BEACONS ({port: the window it opens}: TCP SYNs
    to the gateway), the frames before the first beacon in the window FIRST."""
    windows, current = {first: []}, first
    for frame in frames:
        if frame.syn and frame.destination == site.GATEWAY_IPV4 and frame.port in beacons:
            current = beacons[frame.port]
            windows.setdefault(current, [])
            continue
        windows[current].append(frame)
    return windows


def dhcp_windows(frames):
    """{window: frames} of FRAMES cut at the DHCP steps' beacons."""
    return split_at_beacons(frames, DHCP_BEACONS, "before the reload")


def dhcp_domain_checks(proof, lab, boot, frames, expect, offsets):
    """Both sides of resolve-mode with DHCP's plaintext server and domain. NetworkManager
    has them from the lease; with dnsconfd, once NetworkManager has sent them (after the
    reload the installer phase runs), dnsconfd has them too, and in prefer the name of the
    DHCP domain is answered by that server in plaintext (packets to its port 53, for that
    domain only), in exclusive it is asked of the DoT server and nothing reaches port 53."""
    lease = " ".join(line for line in boot.lines if line.startswith("ip4config "))
    # nmcli -t: "IP4.DNS[1]:ADDRESS IP4.DOMAIN[1]:DOMAIN", one field a word.
    fields = {}
    for word in lease.split()[1:]:
        key, _, value = word.partition(":")
        fields.setdefault(key.split("[")[0], []).append(value)
    proof.check(fields.get("IP4.DNS") == [site.PLAINTEXT_DNS]
                and fields.get("IP4.DOMAIN") == [site.DHCP_DOMAIN],
                "NetworkManager has DHCP's plaintext server %s and domain %s on %s (%s)" % (
                    site.PLAINTEXT_DNS, site.DHCP_DOMAIN, site.GUEST_INTERFACE,
                    lease[len("ip4config "):].strip() or "nothing"))
    if not lab.dnsconfd:
        return
    windows = dhcp_windows(frames)
    asked = [q[1] for q in queries(lab.plaintext.log_since(offsets["plaintext"]))]
    asked_of_dot = asked_for(lab.main, offsets["main"], site.DHCP_TEST_NAME)

    def plain_figure(window):
        plain = [f for f in windows.get(window, []) if to_plaintext_server(f)]
        kinds = Counter("%s %d" % (f.kind.upper(), f.port) for f in plain)
        return plain, "%d packets to %s:53%s" % (len(plain), site.PLAINTEXT_DNS, (
            " (%s)" % ", ".join("%s %d" % item for item in sorted(kinds.items()))
            if kinds else ""))

    def has_dhcp_server(step):
        servers = dnsconfd_servers(boot.step(step)) or []
        return [s for s in servers if s.get("address") == site.PLAINTEXT_DNS
                and s.get("interface") == site.GUEST_INTERFACE
                and site.DHCP_DOMAIN in s.get("routing_domains", [])]

    before_plain, before_figure = plain_figure("before the reload")
    proof.fact("before NetworkManager is reloaded, dnsconfd %s DHCP's server (NetworkManager "
               "%s sends a connection's DNS on its next DNS update only); %s -> %s; %s" % (
                   "has" if has_dhcp_server("dhcp-before-reload") else "does not have",
                   lab.networkmanager,
                   site.DHCP_TEST_NAME,
                   boot.step("dhcp-before-reload").resolved(site.DHCP_TEST_NAME) or "no answer",
                   before_figure))
    reload_line = " ".join(line for line in boot.step("dhcp-after-reload").lines
                           if line.startswith("reload "))
    known = has_dhcp_server("dhcp-after-reload")
    proof.check(bool(known) and reload_line.endswith("done"),
                "after `%s` (as the installer phase runs it), dnsconfd has DHCP's server: %s"
                % (" ".join(c.NM_RELOAD_COMMAND), "; ".join(
                    "%s on %s for %s" % (s["address"], s["interface"],
                                         ", ".join(s["routing_domains"])) for s in known)
                   or "not there (%s)" % (reload_line or "no reload")))
    after = boot.step("dhcp-after-reload").resolved(site.DHCP_TEST_NAME)
    after_plain, after_figure = plain_figure("after the reload")
    all_plain = [f for f in frames if to_plaintext_server(f)]
    if expect.plaintext_for_dhcp_domain:
        proof.check(after == site.ANSWERS[site.DHCP_TEST_NAME] and bool(after_plain)
                    and site.DHCP_TEST_NAME in asked,
                    "then %s -> %s, answered in plaintext by the server DHCP offered (%s; it "
                    "was asked %s)" % (site.DHCP_TEST_NAME, after or "no answer", after_figure,
                                       ", ".join(sorted(set(asked))) or "nothing"))
        proof.check(bool(asked) and all(in_domain(name, site.DHCP_DOMAIN) for name in asked),
                    "it was asked for names of the DHCP domain %s only (%s)"
                    % (site.DHCP_DOMAIN, ", ".join(sorted(set(asked))) or "nothing"))
    else:
        proof.check(bool(asked_of_dot) and after is None
                    and bool(known) and not all_plain and not asked,
                    "then %s was asked of the DoT server %s (no answer: it serves %s only), "
                    "and the server DHCP offered, known to dnsconfd, got nothing (%d packets to "
                    "%s:53 in the whole capture; it was asked %s)" % (
                        site.DHCP_TEST_NAME, site.MAIN_DOT, site.CORP_ZONE, len(all_plain),
                        site.PLAINTEXT_DNS, ", ".join(sorted(set(asked))) or "nothing"))


def kernel_panicked_early(boot):
    """Whether the guest's kernel panicked before its userspace printed anything: under
    TCG on a loaded host this happens now and then in the kernel's own start (an Oops in
    a timer softirq at 1.4 s was seen once in some 60 boots), before anything under
    test has run."""
    return "Kernel panic" in boot.serial and not boot.lines


def run_boot(proof, lab, name, images, options, checks, disks=(), files=None):
    capture_path = lab.workdir / ("%s.pcap" % name)
    for attempt in (1, 2):
        tcpdump = lab.network.start_capture(capture_path)
        try:
            boot = guest.boot(lab.network, lab.tree, lab.kernel,
                              list(images) + [guest.proof_cpio(checks, files)], options,
                              lab.workdir, name, disks=disks)
        finally:
            lab.network.stop_capture(tcpdump)
        if attempt == 2 or not kernel_panicked_early(boot):
            break
        panic = [line for line in boot.serial.splitlines() if "RIP:" in line or "Oops" in line]
        proof.fact("the guest's kernel panicked before its userspace started (%s), under "
                   "TCG: booted once more" % (" ".join(panic[:2]).strip()[:120] or "panic"))
        lab.boots.append(boot.seconds)
    frames = tapnet.read_capture(capture_path)
    if not proof.check("end uptime" in " ".join(boot.lines),
                       "booted and ran the proof (qemu exit %d; serial log %s, kept with "
                       "--keep)" % (boot.exit_code, lab.workdir / ("%s.serial.log" % name))):
        proof.figure("the serial log's last lines:")
        for line in boot.serial.splitlines()[-SERIAL_TAIL:]:
            proof.figure("  " + re.sub(r"\x1b\[[0-9;]*m", "", line.rstrip("\r")))
    proof.figure("boot: %.0f s in qemu (TCG), network up and proof started at guest "
                 "uptime %.1f s" % (boot.seconds, boot.guest_uptime))
    lab.boots.append(boot.seconds)
    return boot, frames


class Lab:
    """The tree, the kernel, the network and its servers, the certificates."""

    def __init__(self, workdir, tree, dnsconfd, plaintext_corp=False, suite=None):
        self.workdir = workdir
        # The benchmark's plaintext baseline: the server DHCP offers answers the corporate
        # names too (the proof never lets it).
        self.plaintext_corp = plaintext_corp
        self.tree = tree
        self.suite = suite or debian_tree.selected_suite()
        # Its NetworkManager: the version, as numbers (for its facts) and as said.
        self.nm_version = networkmanager.version(tree)
        self.networkmanager = ".".join(map(str, self.nm_version))
        self.dnsconfd = dnsconfd
        self.kernel = next((tree / "boot").glob("vmlinuz-*"))
        self.boots = []
        pki = workdir / "pki"
        pki.mkdir(exist_ok=True)
        self.ca = certs.make_ca("Lab DNS CA")
        self.other_ca = certs.make_ca("Unrelated CA")
        self.main_cert = certs.make_server(self.ca, [site.MAIN_DOT_NAME]).write(pki, "main")
        self.lab_cert = certs.make_server(self.ca, [site.ROUTED_DOT_NAME]).write(pki, "lab")
        self.web_cert = certs.make_server(self.ca, [site.HTTPS_NAME]).write(pki, "web")
        self.home_cert = certs.make_server(self.ca, [site.HOME_DOT_NAME]).write(pki, "home")
        # A two-tier PKI with the lab's CA as its root: a server whose certificate an
        # intermediate CA issued, and which sends it with the intermediate's.
        self.intermediate = certs.make_intermediate(self.ca, "Lab Issuing CA")
        chain = certs.make_server(self.intermediate, [site.MAIN_DOT_NAME])
        self.chain_cert = chain.write(pki, "chain")
        self.chain_cert[0].write_text(chain.pem + self.intermediate.pem)
        self.network = tapnet.TapNetwork.create()
        self.services = []

    def start(self):
        net = self.network
        corp = ['%s. 300 IN A %s' % (name, address) for name, address in site.ANSWERS.items()
                if name.endswith(site.CORP_ZONE.rstrip("."))]
        self.main = net.start_dot(self.workdir / "dot-main", site.MAIN_DOT_NAME,
                                  [site.MAIN_DOT], *self.main_cert, site.CORP_ZONE, corp,
                                  site.MAIN_DOT)
        self.ipv6 = net.start_dot(self.workdir / "dot-ipv6", site.MAIN_DOT_NAME,
                                  [site.MAIN_DOT_IPV6, site.IPV6_READY], *self.main_cert,
                                  site.CORP_ZONE,
                                  ["%s. 300 IN A %s" % (site.TEST_NAME, site.IPV6_SERVER_ANSWER),
                                   # The HTTPS server too: the repository fetched by name.
                                   "%s. 300 IN A %s" % (site.HTTPS_NAME, site.HTTPS_SERVER)],
                                  site.IPV6_READY)
        # dot.corp.example on another port only (the port case): its own answer names it.
        self.port = net.start_dot(self.workdir / "dot-port", site.MAIN_DOT_NAME,
                                  [site.PORT_DOT], *self.main_cert, site.CORP_ZONE,
                                  ["%s. 300 IN A %s" % (site.TEST_NAME, site.PORT_SERVER_ANSWER)],
                                  site.PORT_DOT, port=site.PORT_DOT_PORT)
        self.routed = net.start_dot(self.workdir / "dot-lab", site.ROUTED_DOT_NAME,
                                    [site.ROUTED_DOT], *self.lab_cert, site.LAB_ZONE,
                                    ["%s. 300 IN A %s" % (site.ROUTED_TEST_NAME,
                                                          site.ANSWERS[site.ROUTED_TEST_NAME])],
                                    site.ROUTED_DOT)
        # home.arpa and 10.in-addr.arpa, which Unbound keeps to itself by default (issue 32).
        self.home = net.start_dot(self.workdir / "dot-home", site.HOME_DOT_NAME,
                                  [site.HOME_DOT], *self.home_cert,
                                  [site.HOME_DOMAIN + ".", site.REVERSE_ZONE + "."],
                                  ["%s. 300 IN A %s" % (site.HOME_TEST_NAME,
                                                        site.ANSWERS[site.HOME_TEST_NAME]),
                                   "%s. 300 IN PTR %s." % (site.PRIVATE_PTR,
                                                           site.HOME_TEST_NAME)],
                                  site.HOME_DOT)
        self.chain = net.start_dot(self.workdir / "dot-chain", site.MAIN_DOT_NAME,
                                   [site.CHAIN_DOT], *self.chain_cert, site.CORP_ZONE,
                                   ["%s. 300 IN A %s" % (site.TEST_NAME,
                                                         site.CHAIN_SERVER_ANSWER)],
                                   site.CHAIN_DOT)
        self.ks_file = edns_kickstart(self.ca.pem, servers=[site.MAIN_SERVER],
                                      commands=COMMANDS).encode()
        self.web = net.start_https(self.workdir / "https", *self.web_cert,
                                   dict(repository.files(), **{"ks.cfg": self.ks_file}))
        self.plaintext = net.start_plaintext_dns(
            self.workdir / "plaintext-dns", [site.DHCP_DOMAIN + "."] + (
                [site.CORP_ZONE] if self.plaintext_corp else []),
            ["%s. 300 IN A %s" % (site.DHCP_TEST_NAME, site.ANSWERS[site.DHCP_TEST_NAME])] + (
                corp if self.plaintext_corp else []))
        self.services = [self.main, self.ipv6, self.chain, self.port, self.routed, self.home,
                         self.web, self.plaintext]

    def stop(self):
        for service in self.services:
            service.stop()
        self.network.stop()

    def layers(self):
        """The lower layers of an installed system: the lab's modules, dnsconfd if given."""
        stage = self.workdir / "lab-modules"
        if not stage.exists():
            initramfs.lab_layer(stage)
        return [stage] + ([self.dnsconfd] if self.dnsconfd else [])

    def target_layers(self):
        """The lower layers of an installed system of the target line: its trust store's
        files (lab/vmlab/target_layout.py, the lab's CA as the system store), then
        ``layers``."""
        stage = self.workdir / ("layout-%s" % target_layout.TARGET_LINE)
        if not stage.exists():
            target_layout.layer(stage, self.ca.pem)
        return [stage] + self.layers()

    def write_ks(self, name, text):
        path = self.workdir / ("%s.ks" % name)
        path.write_text(text)
        return path

    def offsets(self):
        return {name: upstream.log_offset() for name, upstream in (
            ("main", self.main), ("routed", self.routed), ("ipv6", self.ipv6),
            ("port", self.port), ("home", self.home), ("plaintext", self.plaintext))}

    def sha256_of_served(self):
        return hashlib.sha256(self.ks_file).hexdigest()

    def stage2_root(self):
        """The stage-2 stand-in's root image, made once per run (it holds this tree's addon)."""
        path = self.workdir / "stage2-root.img"
        if not path.exists():
            started = time.monotonic()
            stage2.root_image(self.tree, REPO, self.dnsconfd, path)
            print("        made the stage-2 root image (%.0f MB) in %.0f s" % (
                path.stat().st_size / 1e6, time.monotonic() - started), flush=True)
        return path

    def stage2_has(self, path):
        """Whether the stage-2 root holds PATH before the guest runs (from its layers)."""
        return any((layer / path.lstrip("/")).exists() for layer in [self.tree] + (
            [self.dnsconfd] if self.dnsconfd else []))


def dhcp_offered(dhcp):
    """(DNS servers, domain) dnsmasq's log says it sent the guest (--log-dhcp: "sent size:
    N option:  6 dns-server  ADDRESS", "option: 15 domain-name  DOMAIN")."""
    log = dhcp.log()
    servers = sorted(set(re.findall(r"option:\s*6 dns-server\s+(\S+)", log)))
    domains = sorted(set(re.findall(r"option:\s*15 domain-name\s+(\S+)", log)))
    return servers, domains


def dhcp_fact(proof, dhcp):
    """What the DHCP server says it leased and offered (its own log), as a fact."""
    servers, domains = dhcp_offered(dhcp)
    proof.fact("the DHCP server's log: it leased the guest %s and offered the DNS servers %s "
               "and the domain %s" % (lease_of(dhcp) or "no address", ", ".join(servers)
                                      or "none", ", ".join(domains) or "none"))


def lease_of(dhcp):
    """The address dnsmasq acknowledged to the guest, or None."""
    for line in reversed(dhcp.log().splitlines()):
        match = re.search(r"DHCPACK\(\S+\) (\S+) %s" % re.escape(site.GUEST_MAC), line)
        if match:
            return match.group(1)
    return None


def show_failed_units(proof, boot):
    """A failed dnsconfd or Unbound, with its journal (the serial log has it all)."""
    failed = [unit for unit in RESOLVER_UNITS
              if boot.unit(unit).get("Result") not in (None, "success")]
    for unit in failed:
        proof.figure("%s: %s" % (unit, " ".join("%s=%s" % kv
                                                for kv in boot.unit(unit).items())))
    if failed:
        for line in boot.file_lines("journal")[-15:]:
            proof.figure("  " + line)
