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

"""The VM proof's case table: every case of ``make vm-proof``, what it boots and what it
checks (``cases(lab)``), run by lab/vmlab/proof.py and, one at a time, by the sabotage
run (lab/vmlab/sabotage.py)."""

import hashlib
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lab import certs, freeipa, installer_sequence
from lab.kickstarts import CA_DIRECTORY_OPTION, CA_FILENAME, certificate_section, edns_kickstart
from lab.vmlab import (debian_tree, global_dns, guest, initramfs, networkmanager, repository,
                       site, stage2, tapnet, target_layout)
from lab.vmlab.checks import (COMMANDS, DHCP_CHECKS, DHCP_IP, DNSCONFD_ENV, INSTALLER_CHECKS, MODE,
                              NETWORK_CHECKS, PREFER, RESOLVER_UNITS, STATIC_IP, SYSUSERS_RERUN,
                              TARGET_BASE_MODULES, TARGET_LAB_MODULES, VERIFY_FAILED, CannotRun,
                              Expect, asked_for, capture_checks, cli, dhcp_domain_checks,
                              dhcp_fact, dnsconfd_servers, dnsconfd_start_checks, dnsconfd_status,
                              generated_checks, global_dns_checks, in_domain, ipv6_checks,
                              lease_of, network_checks, queries, resolution_checks, run_boot,
                              show_failed_units, split_at_beacons, target_probes, unit_checks)
from org_edns_addon import constants as c
from org_edns_addon import lines


def installer_case(proof, lab, image, name, ks_text, ip, expect):
    ks = lab.write_ks(name, ks_text)
    overlay = lab.workdir / ("%s-overlay.img" % name)
    cli("overlay", ks, "-o", overlay)
    boot_args = cli("boot-args", ks).stdout.split()
    proof.figure("kernel options: %s" % " ".join(boot_args + ["rd.neednet=1"] + ip))
    dhcp = lab.network.start_dhcp(lab.workdir / ("%s-dhcp" % name)) if ip == DHCP_IP else None
    offsets = lab.offsets()
    try:
        boot, frames = run_boot(proof, lab, name, [image, overlay],
                                boot_args + ["rd.neednet=1"] + ip,
                                INSTALLER_CHECKS + (DHCP_CHECKS if dhcp else ""))
    finally:
        if dhcp:
            dhcp.stop()
    lease = None
    if dhcp:
        lease = lease_of(dhcp)
        dhcp_fact(proof, dhcp)
    if not network_checks(proof, boot, frames, lease=lease or (dhcp and "no lease"),
                          expect=expect):
        proof.figure("no network: nothing else this boot shows can be told apart from it")
        return boot, frames
    global_dns_checks(proof, lab, boot, ks_text)
    generated_checks(proof, boot, ks_text)
    capture_checks(proof, frames, dhcp=ip == DHCP_IP,
                   plaintext_allowed=expect.plaintext_for_dhcp_domain)
    if ip == DHCP_IP and not expect.plaintext_for_dhcp_domain:
        to_plain = [f for f in frames if f.destination == site.PLAINTEXT_DNS]
        proof.check(not to_plain, "the plaintext DNS server DHCP offered (%s) received "
                    "nothing (%d packets)" % (site.PLAINTEXT_DNS, len(to_plain)))
    if ip == DHCP_IP:
        dhcp_domain_checks(proof, lab, boot, frames, expect, offsets)
    if expect.resolver_units:
        unit_checks(proof, boot, expect.resolver_units)
        dnsconfd_start_checks(proof, boot, expect.resolver_units)
    resolution_checks(proof, lab, boot, expect, offsets)
    if expect.resolves and expect.over_ipv6:
        ipv6_checks(proof, lab, frames, offsets, boot.resolved(site.TEST_NAME), ks_text)
    if expect.resolves and expect.routed:
        ok, detail = boot.fetched(site.KS_URL)
        proof.check(ok and detail == lab.sha256_of_served(),
                    "fetched %s over HTTPS by name (sha256 %s)" % (site.KS_URL, detail[:16]))
    show_failed_units(proof, boot)
    return boot, frames




# The port case: one DoT server, on a port other than 853, in the installer's initramfs
# with dnsconfd. NetworkManager reads the port (its keyfile reader and nm-initrd-generator
# alike), but its dnsconfd plugin passes it on only from 1.54
# (networkmanager.SENDS_PORT_TO_DNSCONFD); before, dnsconfd sets 853 for a dns+tls server
# without one (src/dbus_server.c, set_default_port) and its Unbound asks ADDR@853. dnsconfd
# gives its Unbound the forward zones with unbound-control (its file holds a placeholder);
# Unbound 1.26's list_forwards prints no port, so dnsconfd's status says what it gave.
PORT_CHECKS = """\
say "dnsconfd-status $(timeout 10 dnsconfd status --json 2>/dev/null | tr '\\n' ' ')"
"""


def cache_servers(boot, zone="."):
    """(address, port, name) of each server dnsconfd configured its Unbound with for ZONE
    (``dnsconfd status --json`` cache_config: URIs, without the port when it is 853)."""
    found = []
    for uri in ((dnsconfd_status(boot) or {}).get("cache_config") or {}).get(zone, []):
        match = re.fullmatch(r"dns\+tls://\[?([^\]#]+?)\]?(?::(\d+))?(?:#(\S+))?", uri)
        if match:
            found.append((match.group(1), int(match.group(2) or c.DOT_PORT), match.group(3)))
        else:
            found.append((uri, None, None))
    return found


def validated_port_error(ks, line):
    """(exit code, [(line number, severity, server, port)] of the port findings) of
    ``validate --line=LINE`` on the kickstart KS (lines.PORT_TO_DNSCONFD's rule)."""
    result = cli("validate", ks, "--line=%s" % line, check=False)
    found = [(int(m.group(1)), m.group(2), m.group(3), int(m.group(4))) for m in re.finditer(
        r"^%s:(\d+): (error|warning): (\S+) is on port (\d+)," % re.escape(str(ks)),
        result.stdout, re.MULTILINE)]
    return result.returncode, found


def port_case(proof, lab, image):
    name = "installer-port"
    change = lines.PORT_TO_DNSCONFD
    sends_port = lab.nm_version >= change.since
    asked = site.PORT_DOT_PORT if sends_port else c.DOT_PORT
    other = c.DOT_PORT if sends_port else site.PORT_DOT_PORT
    # The lines whose NetworkManager does with the port what this tree's does, and one that
    # keeps it, for which the kickstart is judged and the overlay made.
    alike = lines.lines_with(change) if sends_port else lines.lines_without(change)
    keeping = lines.lines_with(change)[0]
    proof.fact("NetworkManager %s %s a server's port to dnsconfd, as on %s (the lines' "
               "table: %s from %s on, %s); so dnsconfd must ask %s:%d" % (
                   lab.networkmanager, "sends" if sends_port else "does not send",
                   lines.names(alike), change.key, ".".join(map(str, change.since)),
                   change.commit, site.PORT_DOT, asked))
    ks_text = edns_kickstart(lab.ca.pem, "--resolve-mode=%s --ca=%s" % (MODE, CA_FILENAME),
                             [site.PORT_SERVER], commands=COMMANDS)
    ks = lab.write_ks(name, ks_text)
    server_line = ks_text.splitlines().index(site.PORT_SERVER) + 1
    status, found = validated_port_error(ks, alike[0].key)
    wanted = [] if sends_port else [(server_line, "error", site.PORT_SERVER.split()[0],
                                     site.PORT_DOT_PORT)]
    proof.check(status == (0 if sends_port else 1) and found == wanted,
                "validate --line=%s (%s, whose NetworkManager is %s) %s: exit %d, %s" % (
                    alike[0].key, alike[0].name, alike[0].networkmanager.value,
                    "accepts the server on port %d" % site.PORT_DOT_PORT if sends_port else
                    "refuses it on its line", status, "; ".join(
                        "line %d %s: %s on port %d" % item for item in found) or "no finding"))
    overlay = lab.workdir / ("%s-overlay.img" % name)
    cli("overlay", ks, "-o", overlay, "--line=%s" % keeping.key)
    boot_args = cli("boot-args", ks, "--line=%s" % keeping.key).stdout.split()
    options = boot_args + ["rd.neednet=1"] + STATIC_IP
    proof.figure("made for --line=%s (%s keeps the port); kernel options: %s" % (
        keeping.key, keeping.name, " ".join(options)))
    offsets = lab.offsets()
    boot, frames = run_boot(proof, lab, name, [image, overlay], options,
                            INSTALLER_CHECKS + PORT_CHECKS)
    if not network_checks(proof, boot, frames, expect=Expect(resolves=sends_port,
                                                              dot_tried=False)):
        proof.figure("no network: nothing else this boot shows can be told apart from it")
        return
    # NetworkManager runs the server with its port (global_dns compares the port too).
    global_dns_checks(proof, lab, boot, ks_text)
    unit_checks(proof, boot, RESOLVER_UNITS)
    known = [(s.get("address"), s.get("port"), s.get("name"))
             for s in dnsconfd_servers(boot) or []]
    proof.check(known == [(site.PORT_DOT, asked, site.MAIN_DOT_NAME)],
                "dnsconfd has the server as %s (address, port, name; `dnsconfd status`)" % (
                    "; ".join("%s, %s, %s" % server for server in known) or "nothing"))
    forwarded = cache_servers(boot)
    proof.check(forwarded == [(site.PORT_DOT, asked, site.MAIN_DOT_NAME)],
                "dnsconfd configured its Unbound to forward all names to %s (address, port, "
                "name of its cache_config)" % (
                    "; ".join("%s, %s, %s" % addr for addr in forwarded) or "nothing"))
    syn = Counter(f.port for f in frames if f.syn and f.destination == site.PORT_DOT)
    proof.check(syn[asked] > 0 and syn[other] == 0,
                "the guest opened DoT connections to %s:%d only: SYN to %s" % (
                    site.PORT_DOT, asked, ", ".join(
                        "%s:%d (%d)" % (site.PORT_DOT, port, count)
                        for port, count in sorted(syn.items())) or "nobody"))
    capture_checks(proof, frames)
    answer = boot.resolved(site.TEST_NAME)
    asked_of_server = bool(asked_for(lab.port, offsets["port"], site.TEST_NAME))
    if sends_port:
        proof.check(answer == site.PORT_SERVER_ANSWER and asked_of_server,
                    "%s -> %s, the answer of the server at %s:%d (it was %sasked)" % (
                        site.TEST_NAME, answer or "no answer", site.PORT_DOT,
                        site.PORT_DOT_PORT, "" if asked_of_server else "not "))
    else:
        proof.check(answer is None and not asked_of_server,
                    "%s -> %s: the server at %s:%d, the only one, was %sasked" % (
                        site.TEST_NAME, answer or "no answer", site.PORT_DOT,
                        site.PORT_DOT_PORT, "" if asked_of_server else "never "))
    show_failed_units(proof, boot)


def stage_target(lab, name, ks_text, below=()):
    """A root of the tree (BELOW over the target's layers) with `edns-addon apply --root`
    (phase target); returns its upper layer."""
    ks = lab.write_ks(name, ks_text)
    upper = lab.workdir / ("%s-root" % name)
    shutil.rmtree(upper, ignore_errors=True)
    upper.mkdir()
    result = initramfs.run_in_overlay(
        lab.tree, list(below) + lab.target_layers(),
        ["--host", "sh", "-c", '"$0" -m org_edns_addon.cli apply "$1" --root "$EDNS_MERGED"',
         sys.executable, str(ks)], lab.workdir, upper=upper, timeout=300)
    if result.returncode != 0:
        raise RuntimeError("apply --root failed: %s%s" % (result.stdout, result.stderr))
    return upper, result.stdout


def target_image(lab, name, upper, sysusers_rerun=True, below=(), selected=()):
    """The installed system's initramfs, made by its own dracut in UPPER over BELOW and the
    lab's layers; SELECTED: modules dracut's default selection would take besides ours."""
    image = lab.workdir / ("%s.img" % name)
    add = TARGET_LAB_MODULES + tuple(selected) + ((SYSUSERS_RERUN,) if sysusers_rerun else ())
    seconds = initramfs.dracut(lab.tree, [upper] + list(below) + lab.target_layers(), image,
                               modules=TARGET_BASE_MODULES, add=add)
    return image, seconds


def listed_paths(listing):
    """The paths of an `lsinitrd` listing (ls -l lines; a link's own path, before "->")."""
    paths = set()
    for line in listing.splitlines():
        words = line.split()
        if len(words) >= 9 and words[0][:1] in "-dlcbps":
            paths.add(words[words.index("->") - 1] if "->" in words else words[-1])
    return paths


def target_case(proof, lab, backend, name, ks_text, expect, probes="", seen=None):
    """The installed system staged by `apply --root` over a Fedora target's base (its
    systemd-resolved enabled, dnsconfd's unit; lab/installer_sequence.py target_base), its
    resolver stack read back, then its own initramfs booted."""
    base = installer_sequence.target_base(lab.workdir / ("%s-base" % name), False,
                                          lab.dnsconfd)
    upper, applied = stage_target(lab, name, ks_text, below=[base])
    proof.figure("staged: %s" % ", ".join(line.split()[1] for line in applied.splitlines()
                                          if line.strip().startswith("wrote")))
    resolver_stack_checks(proof, lab, backend, upper, [base])
    booted = boot_target(proof, lab, backend, name, upper, ["rd.neednet=1"] + STATIC_IP,
                         expect, below=[base], ks_text=ks_text, probes=probes)
    if seen and booted:
        seen(upper, *booted)
    return upper


# Names Unbound keeps to itself (issue 32): a routed domain under home.arpa and the reverse
# zone of 10/8, with the unbound backend, whose file opens each with a transparent local
# zone (org_edns_addon/staging/unbound.py; Unbound's services/localzone.c answers its
# default zones itself otherwise). The PTR is asked through the C library as every program
# asks it (getent hosts ADDRESS: gethostbyaddr).
PRIVATE_ZONES_PROBES = """\
resolve %(name)s
say "ptr %(address)s $(timeout 25 getent hosts %(address)s | head -n 1 | tr -s ' ' ' ')"
""" % {"name": site.HOME_TEST_NAME, "address": site.PRIVATE_ADDRESS}
LOCAL_ZONE = re.compile(r'^\s*local-zone:\s*"([^"]+)"\s+(\S+)\s*$', re.MULTILINE)


def private_zones_checks(proof, lab, upper, boot, frames, offsets):
    conf = (upper / c.UNBOUND_CONF_PATH.lstrip("/")).read_text()
    proof.figure("the staged Unbound's local zones: %s" % ", ".join(
        "%s %s" % zone for zone in LOCAL_ZONE.findall(conf)) or "none")
    answer = boot.resolved(site.HOME_TEST_NAME)
    asked = asked_for(lab.home, offsets["home"], site.HOME_TEST_NAME)
    proof.check(answer == site.ANSWERS[site.HOME_TEST_NAME] and bool(asked),
                "%s (under RFC 8375's home.arpa) -> %s, the answer of its own server %s, "
                "which logged %d queries for it" % (site.HOME_TEST_NAME, answer or "no answer",
                                                    site.HOME_DOT, len(asked)))
    ptr = next((line.split()[2:] for line in boot.lines
                if line.startswith("ptr %s " % site.PRIVATE_ADDRESS)), [])
    ptr_asked = asked_for(lab.home, offsets["home"], site.PRIVATE_PTR, "PTR")
    proof.check(ptr == [site.PRIVATE_ADDRESS, site.HOME_TEST_NAME] and bool(ptr_asked),
                "%s (the private reverse zone %s) -> %s, the PTR of its own server %s, which "
                "logged %d queries for %s" % (site.PRIVATE_ADDRESS, site.REVERSE_ZONE,
                                              " ".join(ptr[1:]) or "no name", site.HOME_DOT,
                                              len(ptr_asked), site.PRIVATE_PTR))
    elsewhere = [q for q in queries(lab.main.log_since(offsets["main"]))
                 if in_domain(q[1], site.HOME_DOMAIN) or in_domain(q[1], site.REVERSE_ZONE)]
    to_private = [f for f in frames if f.destination.startswith("10.")]
    proof.check(not elsewhere and not to_private,
                "the server for all names was asked none of them (%d queries), and nothing "
                "was sent to 10.0.0.0/8 (%d packets)" % (len(elsewhere), len(to_private)))


# The links below /etc/systemd/system of the installed system, as its overlay shows them.
ENABLED_PROBE = 'cd "$EDNS_MERGED/etc/systemd/system" && find . -type l -printf "%P %l\\n"'


def enabled_units(lab, upper, below):
    """{unit: [its links]} of the resolver units (installer_sequence.UNITS) enabled in the
    installed system UPPER over BELOW and the target's layers."""
    result = initramfs.run_in_overlay(lab.tree, list(below) + lab.target_layers(),
                                      ["--host", "sh", "-c", ENABLED_PROBE], lab.workdir,
                                      upper=upper, timeout=120)
    enabled = {unit: [] for unit in installer_sequence.UNITS}
    for line in result.stdout.splitlines():
        link, _, target = line.partition(" ")
        if posixpath.basename(target) in enabled:
            enabled[posixpath.basename(target)].append(link)
    return enabled


def resolver_stack_checks(proof, lab, backend, upper, below):
    """One resolver stack enabled in the installed system, the backend's, and
    systemd-resolved (enabled in the base, as Fedora's preset does) off."""
    stack = c.DNSCONFD_UNIT if backend == "dnsconfd" else c.UNBOUND_UNIT
    enabled = enabled_units(lab, upper, below)
    on = sorted(unit for unit, links in enabled.items() if links)
    proof.check(on == [stack], "one resolver stack enabled in the installed system: %s "
                "(wanted %s alone; %s)" % (", ".join(on) or "none", stack, "; ".join(
                    "%s: %s" % (unit, ", ".join(links) or "no link")
                    for unit, links in sorted(enabled.items()))))


def boot_target(proof, lab, backend, name, upper, options, expect, below=(), selected=(),
                trust=c.DOT_CA_BUNDLE_PATH, ks_text=None, probes=""):
    """The staged target's initramfs (UPPER over BELOW), made by its own dracut with our
    drop-in (and SELECTED, see target_image): what is inside, then booted with OPTIONS.
    TRUST: the file that must authenticate the servers there."""
    dropin = (upper / c.DRACUT_CONF_PATH.lstrip("/")).read_text()
    proof.figure("drop-in %s: %s" % (c.DRACUT_CONF_PATH, " | ".join(
        line for line in dropin.splitlines() if not line.startswith("#"))))
    image, seconds = target_image(lab, name, upper, below=below, selected=selected)
    proof.figure("its dracut built %s (%.1f MB) in %.0f s" % (image.name,
                                                              image.stat().st_size / 1e6, seconds))
    listing = listed_paths(initramfs.lsinitrd(lab.tree, image))
    wanted = [trust, c.NM_KEYFILE_PATH]
    if backend == "unbound":
        wanted += [c.UNBOUND_CONF_PATH, "/usr/sbin/unbound"]
    missing = [path for path in wanted if path.lstrip("/") not in listing]
    proof.check(not missing, "lsinitrd: %s inside%s" % (", ".join(wanted), (
        "; missing " + ", ".join(missing)) if missing else ""))
    if backend == "unbound" and c.DRACUT_MODULE_DNSCONFD in selected:
        proof.check("usr/bin/dnsconfd" not in listing, "one resolver stack inside: dracut's "
                    "selection took dnsconfd's module, and the image has %s" % (
                        "dnsconfd all the same" if "usr/bin/dnsconfd" in listing
                        else "no dnsconfd"))
    inside = initramfs.lsinitrd_file(lab.tree, image, c.NM_KEYFILE_PATH)
    staged = (upper / c.NM_KEYFILE_PATH.lstrip("/")).read_text()
    proof.check(inside == staged, "the keyfile inside is the staged one (%s)" % (
        " ".join(line for line in staged.splitlines() if line.startswith("dns="))))
    offsets = lab.offsets()
    boot, frames = run_boot(proof, lab, name, [image], options, target_probes(trust) + probes)
    if not network_checks(proof, boot, frames, expect=expect):
        proof.figure("no network: nothing else this boot shows can be told apart from it")
        return None
    if backend == "dnsconfd" and ks_text:
        global_dns_checks(proof, lab, boot, ks_text)
    capture_checks(proof, frames)
    unit_checks(proof, boot, expect.resolver_units)
    dnsconfd_start_checks(proof, boot, expect.resolver_units)
    for unit in expect.idle_units:
        state = boot.unit(unit)
        started = state.get("ExecMainStartTimestampMonotonic", "0") not in ("0", "")
        proof.check(bool(state) and not started and state.get("ActiveState") != "active",
                    "one resolver stack: %s did not run (%s)" % (unit, " ".join(
                        "%s=%s" % (key, state.get(key)) for key in (
                            "LoadState", "ActiveState", "ExecMainStartTimestampMonotonic"))))
    resolution_checks(proof, lab, boot, expect, offsets)
    if expect.resolves and expect.over_ipv6:
        ipv6_checks(proof, lab, frames, offsets, boot.resolved(site.TEST_NAME), ks_text)
    show_failed_units(proof, boot)
    return boot, frames, offsets


def two_tier_case(proof, lab, name, ks_text, refused=False):
    """A kickstart of the two-tier PKI: validate takes it, then its target boots and
    resolves through the server that sends its intermediate; REFUSED (the intermediate
    CA alone): validate and apply refuse it, naming the root CA, and write nothing."""
    ks = lab.write_ks(name, ks_text)
    validated = cli("validate", ks, check=False)
    if not refused:
        proof.check(validated.returncode == 0, "validate takes it: %s"
                    % validated.stdout.strip().splitlines()[-1])
        target_case(proof, lab, "unbound", name, ks_text, Expect(
            resolves=True, resolver_units=("unbound.service",),
            answer=site.CHAIN_SERVER_ANSWER))
        return
    root = lab.workdir / ("%s-root" % name)
    root.mkdir()
    applied = cli("apply", ks, "--root", root, check=False)
    said = "add the root CA '%s'" % lab.ca.cert.subject.rfc4514_string()
    proof.check(validated.returncode == 1 and said in validated.stdout,
                "validate refuses it (exit %d), saying on its line to %s"
                % (validated.returncode, said))
    proof.check(applied.returncode == 1 and not any(root.iterdir()),
                "apply refuses it (exit %d) and writes nothing" % applied.returncode)


# The installed system without --ca on a Fedora 43 layout (issue 31): the system store
# authenticates the servers, and Fedora 43 has no /etc/pki/tls/certs/ca-bundle.crt; the
# extracted bundle is where every line has it (lab/vmlab/target_layout.py). The unbound
# backend reads the store itself (tls-cert-bundle), in the target's initramfs too (our
# dracut drop-in's install_items); with dnsconfd its own module carries Fedora's bundle,
# whatever our drop-in names.
LAYOUT_PROBE = ('for path; do if [ -e "$EDNS_MERGED$path" ]; then echo "$path $(sha256sum '
                '<"$EDNS_MERGED$path" | cut -c1-64)"; else echo "$path absent"; fi; done')


def installed_files(lab, upper, paths):
    """{path: sha256 or "absent"} of PATHS in the installed system: UPPER over the target's
    layers, as its overlay shows them (whiteouts hide)."""
    result = initramfs.run_in_overlay(lab.tree, lab.target_layers(),
                                      ["--host", "sh", "-c", LAYOUT_PROBE, "sh"] + list(paths),
                                      lab.workdir, upper=upper, timeout=120)
    return dict(line.split(" ", 1) for line in result.stdout.splitlines() if " " in line)


def system_store_case(proof, lab, image):
    name = "target-system-store"
    layout = target_layout.LAYOUTS[target_layout.TARGET_LINE]
    store = layout.store[0]
    ks_text = edns_kickstart(lab.ca.pem, "--resolve-mode=%s --backend=unbound" % MODE,
                             [site.MAIN_SERVER, site.ROUTED_SERVER], certificates="",
                             commands=COMMANDS)
    upper, applied = stage_target(lab, name, ks_text)
    proof.figure("staged (no --ca, no %%certificate): %s" % ", ".join(
        line.split()[1] for line in applied.splitlines() if line.strip().startswith("wrote")))
    found = installed_files(lab, upper, layout.store + layout.absent)
    lab_ca = hashlib.sha256(lab.ca.pem.encode()).hexdigest()
    proof.fact("the installed system is laid out as %s's: %s" % (layout.line, ", ".join(
        "%s %s" % (path, "the lab's CA" if found.get(path) == lab_ca else found.get(path))
        for path in layout.store + layout.absent)))
    conf = (upper / c.UNBOUND_CONF_PATH.lstrip("/")).read_text()
    bundles = re.findall(r"^\s*tls-cert-bundle:\s*(\S+)\s*$", conf, re.MULTILINE)
    proof.check(bundles == [store] and found.get(store) == lab_ca,
                "the staged Unbound authenticates with the system store where %s has it: "
                "tls-cert-bundle %s (there: %s)" % (
                    layout.line, ", ".join(bundles) or "none", ", ".join(
                        "%s %s" % (path, "the lab's CA" if found.get(path) == lab_ca
                                   else found.get(path, "?")) for path in bundles)))
    boot_target(proof, lab, "unbound", name, upper, ["rd.neednet=1"] + STATIC_IP,
                Expect(resolves=True, resolver_units=("unbound.service",)),
                trust=store)


def sysusers_fact(proof, lab, backend, upper):
    """Without the users created after all modules, the service's user is missing: a fact
    of trixie's dracut 106 (dracut-ng 108 on creates it), which the lab works around;
    printed, not counted."""
    image, _ = target_image(lab, "target-%s-no-rerun" % backend, upper, sysusers_rerun=False)
    passwd = initramfs.lsinitrd_file(lab.tree, image, "/etc/passwd")
    users = [line.split(":")[0] for line in passwd.splitlines() if ":" in line]
    user = "dnsconfd" if backend == "dnsconfd" else "unbound"
    proof.fact("%s's dracut %s alone %s the %s user (%d users in the image's /etc/passwd)%s; "
               "the lab's %s creates it in any case" % (
                   lab.suite, debian_tree.package_version(lab.tree, "dracut"),
                   "leaves out" if user not in users else "has", user, len(set(users)),
                   ": %s.service would fail (217/USER)" % user if user not in users else "",
                   SYSUSERS_RERUN))


# The installed system as the installer leaves it (issue 17 item 3): the target staged by
# the installer's own steps and ours, in its order, with the anaconda checkout's code
# (lab/installer_sequence.py), booted with the boot options the installed system keeps.
ANACONDA_PROBE = ("import pyanaconda.modules.network.installation, "
                  "pyanaconda.modules.security.certificates.installation")


def anaconda_checkout():
    """(ANACONDA_SRC, its line) when this interpreter imports that checkout's pyanaconda;
    else (None, why)."""
    src = os.environ.get(ANACONDA_ENV)
    if not src:
        return None, "%s is not set" % ANACONDA_ENV
    if not (Path(src) / "dracut" / "parse-kickstart").is_file():
        return None, "%s=%s has no dracut/parse-kickstart, which the composed cases run" % (
            ANACONDA_ENV, src)
    probe = subprocess.run([sys.executable, "-c", ANACONDA_PROBE], capture_output=True,
                           text=True, timeout=120)
    if probe.returncode != 0:
        return None, "%s cannot import its pyanaconda (%s); run the proof with the Python " \
            "and PYTHONPATH of docs/testing.md's anaconda tier" % (
                sys.executable, (probe.stderr.strip().splitlines() or ["?"])[-1])
    return src, installer_sequence.checkout_line(src) or "?"


def compose_target(lab, name, ks_text, boot_args, src, line):
    """The target the installer's sequence leaves for KS_TEXT booted with BOOT_ARGS, with
    the anaconda checkout SRC of LINE: (its upper layer, the line's base layer, the
    sequence's result)."""
    ks = lab.write_ks(name, ks_text)
    generated = networkmanager.initrd_generator(lab.tree, boot_args)
    base = installer_sequence.target_base(lab.workdir / ("%s-base" % name),
                                          line.startswith("rhel-"), lab.dnsconfd)
    scratch = lab.workdir / ("%s-sequence" % name)
    scratch.mkdir()
    upper = lab.workdir / ("%s-root" % name)
    job = installer_sequence.job(ks, boot_args, generated, lab.tree,
                                 [base] + lab.target_layers(),
                                 src, scratch, [c.DOT_CA_BUNDLE_PATH], keep=upper)
    result, results = installer_sequence.run([job], scratch, timeout=600)
    if result.returncode != 0 or not results or "error" in results[0]:
        raise RuntimeError("the installer's sequence failed: %s" % (
            results[0]["error"] if results and "error" in results[0] else result.stderr)[-3000:])
    return upper, base, results[0]


def composed_case(proof, lab, backend, name, ks_text, expect):
    boot_args = cli("boot-args", lab.write_ks(name, ks_text)).stdout.split()
    options = ["rd.neednet=1"] + STATIC_IP + boot_args
    src, line = anaconda_checkout()
    upper, base, result = compose_target(lab, name, ks_text, options, src, line)
    parsed = result["parse_kickstart"]
    proof.check(parsed["returncode"] == 0 and any(
        path.startswith("/run/install/certificates/") for path in parsed["written"]),
                "the checkout's dracut/parse-kickstart ran: exit %d, wrote %s" % (
                    parsed["returncode"], ", ".join(sorted(parsed["written"]))[:200] or
                    "nothing"))
    proof.figure("composed on anaconda %s (%s): Security module %s, "
                 "network module enabled %s, ours wrote %d files" % (
                     line, src, result["security"],
                     ", ".join(u for u, links in result["after_network"].items() if links)
                     or "nothing", len(result["ours"]["written"])))
    target = result["target"]
    proof.figure("target conf.d: NetworkManager %s; Unbound %s" % (
        ", ".join(target["nm_conf_d"]), ", ".join(target["unbound_conf_d"])))
    stack = c.DNSCONFD_UNIT if backend == "dnsconfd" else c.UNBOUND_UNIT
    enabled = sorted(unit for unit, links in target["enabled"].items() if links)
    proof.check(enabled == [stack], "one resolver stack enabled in the target: %s (wanted "
                "%s alone)" % (", ".join(enabled) or "none", stack))
    status, said = target["checkconf"]
    proof.check(status == 0, "unbound-checkconf accepts the target's merged Unbound "
                "configuration (%s)" % (said.strip().splitlines() or ["no output"])[-1][:120])
    proof.figure("kernel options (rd.net.dns* kept on the installed system's command line): "
                 "%s" % " ".join(options))
    # The installed system's dracut runs with its default module selection, which takes
    # every module whose check() passes: dnsconfd's (distribution/dracut_module,
    # "require_binaries dnsconfd"), from dnsconfd-dracut, which the network module installs
    # whenever rd.net.dns-backend=dnsconfd; its install() enables dnsconfd.service in the
    # image. The lab names its modules (-m), so that selection is made here.
    selected = (c.DRACUT_MODULE_DNSCONFD,) if lab.dnsconfd else ()
    if not lab.dnsconfd:
        proof.fact("without %s the target has no dnsconfd, which the network module's "
                   "requirements install on a real one" % DNSCONFD_ENV)
    boot_target(proof, lab, backend, name, upper, options, expect, below=[base],
                selected=selected, ks_text=ks_text)


# The stage-2 case. Beacons: TCP connection attempts to the gateway that mark, in the
# capture, where the start-up window and the installer phase begin and where it ends.
BEACONS = {1001: "start-up window", 1002: "after the installer phase", 1003: "end"}
# How long stage 2 gives a name to resolve (dnsconfd just started or restarted); without
# dnsconfd nothing could answer, and one try is enough.
RESOLVE_SECONDS = 30
# Upstream's placement (rhinstaller/kickstart-tests dns-global-exclusive-tls*): the CA at
# the path dnsconfd reads by default.
UPSTREAM_CA_FILENAME = "tls-ca-bundle.pem"
UPSTREAM_CA_OPTIONS = "--dir=/etc/pki/dns/extracted/pem/"


def upstream_kickstart(ca_pem, servers):
    """A kickstart with upstream's placement of its CA (where dnsconfd reads it by
    default) and SERVERS."""
    return edns_kickstart(
        ca_pem, "--resolve-mode=%s --ca=%s" % (MODE, UPSTREAM_CA_FILENAME), servers,
        certificates=certificate_section(ca_pem, UPSTREAM_CA_FILENAME, UPSTREAM_CA_OPTIONS),
        commands=COMMANDS)


def certificate_dump(ks_path):
    """{path: bytes} of what parse-kickstart dumps under /run/install/certificates/path
    for the kickstart at KS_PATH (each %certificate at its --dir, as its own
    _dump_certificate writes it), read with pykickstart as it reads them."""
    from pykickstart.parser import KickstartParser
    from pykickstart.version import makeVersion

    handler = makeVersion()
    KickstartParser(handler, missingIncludeIsFatal=False).readKickstart(str(ks_path))
    dump = {}
    for cert in handler.certificates:
        path = "run/install/certificates/path%s/%s" % (cert.dir.rstrip("/"), cert.filename)
        dump[path.replace("//", "/")] = cert.cert.encode() + b"\n"   # as it writes it
    return dump


# The installation repository in the window, fetched by librepo as the payload would.
REPOSITORY_URL = "https://%s/%s" % (site.HTTPS_NAME, repository.PATH)


def stage2_script(ca_path, resolve_seconds, post_nochroot=False):
    """What stage 2 runs: the start-up window (the payload's source set-up fetches by
    name), then the installer phase as ConfigureWithTasks runs it, and the same again."""
    probes = "\n".join([
        "global_dns",
        "digest %s" % c.NM_KEYFILE_PATH,
        "digest %s" % c.DOT_CA_BUNDLE_PATH,
        "unit dnsconfd.service",
        "unit unbound.service",
        "resolve_within %d %s" % (resolve_seconds, site.TEST_NAME),
        "resolve_within %d %s" % (resolve_seconds, site.ROUTED_TEST_NAME),
        "fetch %s %s" % (site.KS_URL, ca_path),
        "python3 %s %s %s" % (stage2.LIBREPO_FETCH, REPOSITORY_URL, ca_path)])
    return "\n".join([
        "beacon %s 1001" % site.GATEWAY_IPV4, "say 'step start-up'", probes,
        "beacon %s 1002" % site.GATEWAY_IPV4, "say 'step configured'",
        "say \"apply $(python3 -m org_edns_addon.cli apply /run/install/ks.cfg --phase "
        "installer --root / 2>&1 | tr '\\n' ' ')\"",
        "wait_global_dns_ca || say 'no CA in the global DNS after 30 s'", probes] + ([
            "mkdir -p /mnt/sysroot/root",
            "bash /run/edns-proof/post-nochroot.sh >/dev/null 2>&1; say \"post-nochroot exit "
            "$?\"", "show /mnt/sysroot/root/RESULT"] if post_nochroot else []) + [
        "say 'step end'",
        "grep_journal '%s' dnsconfd.service unbound.service" % VERIFY_FAILED,
        "journal dnsconfd.service unbound.service NetworkManager.service",
        "beacon %s 1003" % site.GATEWAY_IPV4]) + "\n"


# The initramfs's part: hand over to stage 2 what the installer's initramfs leaves in /run
# (the kickstart, as fetch-kickstart copies an inst.ks=file: one; parse-kickstart's
# certificate dump), then go on to switch-root.
STAGE2_INITRAMFS_CHECKS = NETWORK_CHECKS + """\
global_dns
cp -a /etc/edns-proof/transport/run/. /run/
mkdir -p /run/install && cp %s /run/install/ks.cfg
say "handed over $(ls -R /run/install | tr '\\n' ' ')"
""" % c.OVERLAY_KICKSTART_PATH


def split_by_beacons(frames, beacons=None):
    """{window: frames} of FRAMES cut at the BEACONS (before the first: the initramfs)."""
    return split_at_beacons(frames, beacons or BEACONS, "initramfs and switch-root")


def stage2_case(proof, lab, image, name, ks_text, ca_path, over_ipv6=False):
    ks = lab.write_ks(name, ks_text)
    overlay = lab.workdir / ("%s-overlay.img" % name)
    cli("overlay", ks, "-o", overlay)
    boot_args = cli("boot-args", ks).stdout.split()
    root = lab.stage2_root()
    options = boot_args + ["rd.neednet=1"] + STATIC_IP + ["root=/dev/vda", "rootfstype=ext4",
                                                         "rw"]
    proof.figure("kernel options: %s" % " ".join(options))
    files = {"etc/edns-proof/continue": b"",
             "etc/edns-proof/transport/run/edns-proof/stage2.sh":
                 stage2_script(ca_path, RESOLVE_SECONDS if lab.dnsconfd else 0).encode()}
    files.update(("etc/edns-proof/transport/" + path, content)
                 for path, content in certificate_dump(ks).items())
    proof.fact("the stage-2 root %s holds none of the addon's files: %s" % (
        root.name, ", ".join(path for path in (c.NM_KEYFILE_PATH, c.DOT_CA_BUNDLE_PATH)
                             if lab.stage2_has(path)) or "none of the keyfile and bundle"))
    offsets = lab.offsets()
    boot, frames = run_boot(proof, lab, name, [image, overlay], options,
                            STAGE2_INITRAMFS_CHECKS, disks=[root], files=files)
    dnsconfd = bool(lab.dnsconfd)
    expect = Expect(resolves=dnsconfd, dot_tried=dnsconfd)
    proof.check(any(line.startswith("step end") for line in boot.lines)
                and any(line == "beacon 1003" for line in boot.lines),
                "switched root into the stage-2 stand-in and ran its proof there")
    if not network_checks(proof, boot, frames, expect=expect):
        return
    windows = split_by_beacons(frames)
    for window, seen in windows.items():
        counts = tapnet.by_port(seen)
        proof.figure("%s: packets by port: %s" % (window, ", ".join(
            "%s %d" % item for item in sorted(counts.items())) or "none"))
    capture_checks(proof, frames)
    for step, title in (("start-up", "in the start-up window, before any module ran"),
                        ("configured", "after the installer phase (ConfigureWithTasks)")):
        seen = boot.step(step)
        proof.figure("%s:" % title)
        global_dns_checks(proof, lab, seen, ks_text, title="%s stage 2's " % title.split(",")[0])
        if step == "configured":
            applied = [line for line in seen.lines if line.startswith("apply ")]
            proof.figure((applied[0] if applied else "apply: no output")[:300])
        if dnsconfd:
            unit_checks(proof, seen, RESOLVER_UNITS)
            answer, routed = seen.resolved(site.TEST_NAME), seen.resolved(site.ROUTED_TEST_NAME)
            proof.check(answer == (site.IPV6_SERVER_ANSWER if over_ipv6
                                   else site.ANSWERS[site.TEST_NAME])
                        and routed == site.ANSWERS[site.ROUTED_TEST_NAME],
                        "%s: %s -> %s, %s -> %s over DoT" % (
                            step, site.TEST_NAME, answer, site.ROUTED_TEST_NAME, routed))
            ok, detail = seen.fetched(site.KS_URL)
            proof.check(ok and detail == lab.sha256_of_served(),
                        "%s: fetched %s over HTTPS by name (curl, %s)" % (
                            step, site.KS_URL, detail[:60]))
            ok, detail = seen.librepo(REPOSITORY_URL)
            served = "%s %s" % (repository.REVISION, repository.primary_checksum())
            proof.check(ok and detail == served,
                        "%s: librepo, as the payload's source set-up, fetched %s by name "
                        "trusting the %%certificate %s alone: revision and primary checksum %s "
                        "(served: %s)" % (step, REPOSITORY_URL, ca_path, detail[:90], served))
        else:
            proof.fact("%s: librepo's fetch of %s: %s" % (
                step, REPOSITORY_URL, " ".join(map(str, seen.librepo(REPOSITORY_URL)))[:160]))
            answer = seen.resolved(site.TEST_NAME)
            proof.check(answer is None and seen.unit(c.DNSCONFD_UNIT).get("LoadState")
                        == "not-found", "%s: nothing resolves (%s: %s), for want of a "
                        "resolver that speaks DoT (%s is not installed)" % (
                            step, site.TEST_NAME, answer or "no answer", c.DNSCONFD_UNIT))
    if dnsconfd and over_ipv6:
        ipv6_checks(proof, lab, frames, offsets, boot.step("start-up").resolved(site.TEST_NAME),
                    ks_text)
    if dnsconfd:
        proof.figure("the routed server answered %d queries for %s" % (
            len(asked_for(lab.routed, offsets["routed"], site.ROUTED_TEST_NAME)),
            site.ROUTED_TEST_NAME))


# FreeIPA 4.12 enrolling an installed system made with --backend=unbound (issue 17 item 4).
# The stage-2 stand-in plays the installed system: Unbound as Fedora has it (its
# unbound.conf includes conf.d; the lab's 70unbound files), our target phase applied to
# it, then FreeIPA 4.12's client_dns steps as that line's code takes them (lab/freeipa.py
# from FREEIPA_GIT; tests/test_peer_freeipa.py checks the steps against it), the lab's
# corporate DoT server standing for the IPA server, whose CA the client puts in the system
# store. The client's own "unbound.restart()" must run the handover unit first.
FREEIPA_LINE = "4.12-dot"  # lab/freeipa.py STATES: ipa-4-12 before bae780843
FREEIPA_BEACONS = {1001: "our Unbound", 1002: "after FreeIPA %s's enrollment" % FREEIPA_LINE,
                   1003: "end"}
FREEIPA_FILES = "run/edns-proof/freeipa"
# What dnsconfd-prepare links into Unbound's conf.d each time dnsconfd starts (dnsconfd
# distribution/dnsconfd-prepare.sh: "revert enablement of as112 domain resolution").
DNSCONFD_AS112_LINK = "/etc/unbound/conf.d/dnsconfd-as112.conf"
FREEIPA_NM_CONF = "# auto-generated by IPA installer\\n[main]\\ndns=none\\n"
FREEIPA_RESOLV_CONF = "# auto-generated by IPA installer\\nsearch .\\nnameserver 127.0.0.55\\n"


def freeipa_script():
    """What the stand-in runs: our target phase, then FreeIPA 4.12's enrollment."""
    files = "/" + FREEIPA_FILES
    probes = ["show /etc/resolv.conf", "unit %s" % c.UNBOUND_UNIT,
              "unit %s" % c.FREEIPA_HANDOVER_UNIT,
              "say \"conf.d $(ls /etc/unbound/conf.d | tr '\\n' ' ')\"",
              "say \"unbound-processes $(pgrep -c -x unbound)\"",
              "resolve_within %d %s" % (RESOLVE_SECONDS, site.TEST_NAME),
              "resolve %s" % site.ROUTED_TEST_NAME]
    return "\n".join([
        # The installed system: dnsconfd as our plan leaves it (disabled, so it never ran:
        # the include dnsconfd-unbound installs reads the empty file its tmpfiles.d makes,
        # and there is no link to the AS112 zones, which dnsconfd-prepare makes in conf.d
        # when dnsconfd starts, as it did in this stand-in's boot), Unbound as Fedora's.
        "systemctl disable --now %s 2>/dev/null" % c.DNSCONFD_UNIT,
        "if [ -e %s ]; then : > %s; fi" % (installer_sequence.DNSCONFD_RUNTIME_CONF,
                                          installer_sequence.DNSCONFD_RUNTIME_CONF),
        "rm -f %s" % DNSCONFD_AS112_LINK,
        "rm -f /etc/systemd/system/%s" % c.UNBOUND_UNIT,
        "cp %s/unbound.service /etc/systemd/system/%s" % (files, c.UNBOUND_UNIT),
        "mkdir -p /etc/unbound/conf.d && cp %s/unbound.conf /etc/unbound/unbound.conf" % files,
        "say \"apply $(python3 -m org_edns_addon.cli apply /run/install/ks.cfg --root / 2>&1 "
        "| tr '\\n' ' ')\"",
        "systemctl daemon-reload",
        "timeout 20 nmcli general reload",
        "systemctl restart %s" % c.UNBOUND_UNIT,
        "beacon %s 1001" % site.GATEWAY_IPV4, "say 'step ours'"] + probes + [
        # FreeIPA 4.12's client_dns, in its order.
        "mkdir -p %s && cp %s/ipa-ca.pem %s" % (posixpath.dirname(freeipa.SYSTEM_BUNDLE),
                                                 files, freeipa.SYSTEM_BUNDLE),
        "cp %s/zzz-ipa.conf %s" % (files, c.FREEIPA_UNBOUND_CONF_PATH),
        "printf '%s' > %s" % (FREEIPA_NM_CONF, c.FREEIPA_NM_CONF_PATH),
        "timeout 20 nmcli general reload",
        "printf '%s' > /etc/resolv.conf" % FREEIPA_RESOLV_CONF,
        "systemctl enable %s" % c.UNBOUND_UNIT,
        "say \"restart $(systemctl restart %s 2>&1 && echo done)\"" % c.UNBOUND_UNIT,
        "beacon %s 1002" % site.GATEWAY_IPV4, "say 'step enrolled'"] + probes + [
        "journal %s %s" % (c.UNBOUND_UNIT, c.FREEIPA_HANDOVER_UNIT),
        "say 'step end'", "beacon %s 1003" % site.GATEWAY_IPV4]) + "\n"


def freeipa_case(proof, lab, image):
    ks_text = edns_kickstart(lab.ca.pem, "--resolve-mode=%s --ca=%s --backend=unbound" % (
        MODE, CA_FILENAME), [site.MAIN_SERVER, site.ROUTED_SERVER], commands=COMMANDS)
    name = "freeipa-%s" % FREEIPA_LINE
    ks = lab.write_ks(name, ks_text)
    overlay = lab.workdir / ("%s-overlay.img" % name)
    cli("overlay", ks, "-o", overlay)
    options = cli("boot-args", ks).stdout.split() + ["rd.neednet=1"] + STATIC_IP + [
        "root=/dev/vda", "rootfstype=ext4", "rw"]
    zzz = freeipa.unbound_conf(FREEIPA_LINE, "%s#%s" % (site.MAIN_DOT, site.MAIN_DOT_NAME),
                               freeipa.client_dns(FREEIPA_LINE))
    proof.figure("FreeIPA %s's %s (its template, from %s): %s" % (
        FREEIPA_LINE, c.FREEIPA_UNBOUND_CONF_PATH, freeipa.FREEIPA_GIT_ENV, " | ".join(
            line.strip() for line in zzz.splitlines() if line.strip())))
    transport = "etc/edns-proof/transport/" + FREEIPA_FILES
    files = {"etc/edns-proof/continue": b"",
             "etc/edns-proof/transport/run/edns-proof/stage2.sh": freeipa_script().encode(),
             transport + "/zzz-ipa.conf": zzz.encode(),
             transport + "/ipa-ca.pem": lab.ca.pem.encode(),
             transport + "/unbound.conf": (stage2.UNBOUND_MODULE / "unbound.conf").read_bytes(),
             transport + "/unbound.service":
                 (stage2.UNBOUND_MODULE / "unbound.service").read_bytes()}
    files.update(("etc/edns-proof/transport/" + path, content)
                 for path, content in certificate_dump(ks).items())
    boot, frames = run_boot(proof, lab, name, [image, overlay], options,
                            STAGE2_INITRAMFS_CHECKS, disks=[lab.stage2_root()], files=files)
    proof.check(any(line.startswith("step end") for line in boot.lines),
                "switched root into the stand-in and ran the enrollment there")
    if not network_checks(proof, boot, frames):
        return
    windows = split_by_beacons(frames, FREEIPA_BEACONS)
    for window, seen in windows.items():
        proof.figure("%s: packets by port: %s" % (window, ", ".join(
            "%s %d" % item for item in sorted(tapnet.by_port(seen).items())) or "none"))
    capture_checks(proof, frames)
    ours, enrolled = boot.step("ours"), boot.step("enrolled")
    applied = [line for line in boot.lines if line.startswith("apply ")]
    proof.figure((applied[0] if applied else "apply: no output")[:300])
    for step, seen in (("ours", ours), ("enrolled", enrolled)):
        conf_d = next((line.split()[1:] for line in seen.lines if line.startswith("conf.d")),
                      None)
        processes = next((line.split()[1] for line in seen.lines
                          if line.startswith("unbound-processes ")), "?")
        state = seen.unit(c.UNBOUND_UNIT)
        handover = seen.unit(c.FREEIPA_HANDOVER_UNIT)
        ran = handover.get("ExecMainStartTimestampMonotonic", "0") not in ("0", "")
        wanted = ["edns-forward.conf"] if step == "ours" else ["zzz-ipa.conf"]
        title = "with our Unbound" if step == "ours" else \
            "after FreeIPA %s's enrollment and its restart of Unbound" % FREEIPA_LINE
        proof.check(state.get("ActiveState") == "active" and processes == "1"
                    and [name for name in conf_d or [] if name != "unbound.conf"] == wanted,
                    "%s: one Unbound (%s, %s process), conf.d %s" % (
                        title, state.get("ActiveState"), processes, " ".join(conf_d or ["?"])))
        proof.check(ran == (step == "enrolled") and handover.get("LoadState") == "loaded"
                    and handover.get("Result") == "success",
                    "%s: %s %s (%s)" % (title, c.FREEIPA_HANDOVER_UNIT,
                                        "ran" if ran else "did not run", " ".join(
                                            "%s=%s" % (key, handover.get(key)) for key in (
                                                "LoadState", "Result"))))
        answer = seen.resolved(site.TEST_NAME)
        proof.check(answer == site.ANSWERS[site.TEST_NAME], "%s: %s -> %s over DoT" % (
            title, site.TEST_NAME, answer))
    routed = enrolled.resolved(site.ROUTED_TEST_NAME)
    after = windows.get(FREEIPA_BEACONS[1002], [])
    proof.check(ours.resolved(site.ROUTED_TEST_NAME) == site.ANSWERS[site.ROUTED_TEST_NAME]
                and routed is None
                and not [f for f in after if f.destination == site.ROUTED_DOT],
                "whose forwarder serves what: ours sent %s to its own server (%s), FreeIPA's "
                "forwarder alone serves every name after the enrollment (%s: %s, nothing to "
                "%s)" % (site.ROUTED_TEST_NAME, ours.resolved(site.ROUTED_TEST_NAME),
                         site.ROUTED_TEST_NAME, routed or "no answer", site.ROUTED_DOT))


# The kickstart-tests case: data/kickstart-tests delivered as rhinstaller/kickstart-tests'
# harness delivers them (scripts/launcher: virt-install --initrd-inject of the kickstart,
# inst.ks=file:/NAME, the test's kernel_args(), no overlay), on the lab's DHCP.
KICKSTART_TEST = "edns-dot-exclusive"
# The harness's functions.sh DEFAULT_BOOTOPTS but debug=1, whose systemd debug log on a
# TCG serial console would add minutes to the boot.
HARNESS_BOOTOPTS = "inst.debug rd.shell=0 rd.emergency=poweroff"


def harness_kernel_args(name, workdir):
    """What the test's kernel_args() prints, its functions.sh a stand-in with the
    harness's defaults; the words."""
    (workdir / "functions.sh").write_text('DEFAULT_BOOTOPTS="%s"\n' % HARNESS_BOOTOPTS)
    from lab.kickstarts import KICKSTART_TESTS_DIR

    result = subprocess.run(["bash", "-c", '. "$0"; kernel_args',
                             str(KICKSTART_TESTS_DIR / ("%s.sh" % name))],
                            capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, KSTESTDIR=str(workdir), **site.KSTEST_VALUES))
    if result.returncode != 0:
        raise RuntimeError("kernel_args of %s.sh failed: %s" % (name, result.stderr))
    return result.stdout.split()


ANACONDA_ENV = "ANACONDA_SRC"
PARSE_KICKSTART_SECONDS = 120
# In a private mount namespace: tmpfs over /run, this machine's /etc under an overlay
# whose upper layer keeps what parse-kickstart writes there, its --tmpdir a scratch one.
_PARSE_KICKSTART = """
mount -t tmpfs tmpfs /run
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc
mkdir -p "$1/tmp"
cd "$2/dracut"
"$3" parse-kickstart --tmpdir "$1/tmp" "$4"
mkdir -p "$1/run"
[ ! -d /run/install ] || cp -a /run/install "$1/run/"
"""


def parse_kickstart_results(src, ks_path, workdir):
    """{path below /: bytes} of the certificate files the checkout SRC's
    dracut/parse-kickstart writes for the kickstart at KS_PATH (at each --dir, and its dump
    under /run/install/certificates), and its dracut output lines."""
    scratch = Path(tempfile.mkdtemp(prefix="parse-kickstart.", dir=str(workdir)))
    (scratch / "upper").mkdir()
    (scratch / "work").mkdir()
    result = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-ec",
                             _PARSE_KICKSTART, "sh", str(scratch), str(src), sys.executable,
                             str(ks_path)], capture_output=True, text=True,
                            timeout=PARSE_KICKSTART_SECONDS)
    if result.returncode != 0:
        raise RuntimeError("%s/dracut/parse-kickstart failed: %s" % (src, result.stderr[-2000:]))
    files = {}
    for base, prefix in ((scratch / "upper" / "pki", "etc/pki/"),
                         (scratch / "run" / "install" / "certificates",
                          "run/install/certificates/")):
        for path in sorted(base.rglob("*")) if base.exists() else ():
            if path.is_file():
                files[prefix + str(path.relative_to(base))] = path.read_bytes()
    return files, result.stdout.splitlines()


def parse_kickstart_files(proof, ks, workdir):
    """{path below /: bytes} of what parse-kickstart writes in the installer's initramfs
    for the kickstart KS: each %certificate at its --dir (dracut/parse-kickstart,
    process_certificates and _dump_certificate) and its dump under
    /run/install/certificates. By the checkout's own parse-kickstart when ANACONDA_SRC
    names one (which must have it: else CannotRun), else as it writes them from
    pykickstart's reading; a fact says which."""
    src = os.environ.get(ANACONDA_ENV)
    if src:
        if not (Path(src) / "dracut" / "parse-kickstart").is_file():
            raise CannotRun("%s=%s has no dracut/parse-kickstart" % (ANACONDA_ENV, src))
        written, output = parse_kickstart_results(src, ks, workdir)
        proof.fact("parse-kickstart of %s=%s wrote %s; its dracut options: %s" % (
            ANACONDA_ENV, src, ", ".join("/" + path for path in written) or "nothing",
            " ".join(output) or "none"))
        return written
    written = dict(certificate_dump(ks))
    written.update((path[len("run/install/certificates/path/"):], content)
                   for path, content in certificate_dump(ks).items())
    proof.fact("no %s: parse-kickstart's certificate files made as it makes them, from "
               "pykickstart's reading (%s)" % (ANACONDA_ENV, ", ".join(
                   "/" + path for path in written)))
    return written


# The boot-options road (issue 33 item 1): the installer's initramfs as a stock installer
# and kickstart-tests boot it, with what `edns-addon boot-args` prints and no overlay; the
# kickstart injected and read by parse-kickstart, which puts each %certificate at its --dir
# (upstream's placement: where dnsconfd reads its CA by default). The boot options carry
# the servers for all names and the mode, nothing else (global_dns.ROAD_BOOT_OPTIONS).
BOOT_OPTIONS_CASE = "installer-boot-options"


def boot_options_case(proof, lab, image, ks_text):
    name = BOOT_OPTIONS_CASE
    ks = lab.write_ks(name, ks_text)
    workdir = lab.workdir / name
    workdir.mkdir(exist_ok=True)
    written = parse_kickstart_files(proof, ks, workdir)
    # /run is a tmpfs in the initramfs: the dump there matters to stage 2 alone.
    files = {path: content for path, content in written.items() if not path.startswith("run/")}
    boot_args = cli("boot-args", ks).stdout.split()
    options = boot_args + ["inst.ks=file:/%s" % ks.name, "rd.neednet=1"] + STATIC_IP
    proof.figure("kernel options: %s; no overlay; the kickstart injected at /%s" % (
        " ".join(options), ks.name))
    injected = guest.cpio({ks.name: ks.read_bytes()})
    offsets = lab.offsets()
    checks = INSTALLER_CHECKS + PORT_CHECKS + "digest %s\ndigest %s\n" % (
        c.NM_KEYFILE_PATH, c.DOT_CA_BUNDLE_PATH)
    boot, frames = run_boot(proof, lab, name, [image, injected], options, checks, files=files)
    dnsconfd = bool(lab.dnsconfd)
    expect = Expect(resolves=dnsconfd, dot_tried=dnsconfd, routed=False,
                    answer=site.IPV6_SERVER_ANSWER, over_ipv6=True,
                    resolver_units=RESOLVER_UNITS if dnsconfd else ())
    if not network_checks(proof, boot, frames, expect=expect):
        proof.figure("no network: nothing else this boot shows can be told apart from it")
        return
    bundle = hashlib.sha256(written.get(c.DOT_CA_BUNDLE_PATH.lstrip("/"), b"")).hexdigest()
    proof.check(boot.digest(c.NM_KEYFILE_PATH) == "absent"
                and boot.digest(c.DOT_CA_BUNDLE_PATH) == bundle,
                "the boot options alone: no keyfile at %s (%s), and the %%certificate at %s "
                "is what parse-kickstart wrote there (sha256 %s)" % (
                    c.NM_KEYFILE_PATH, boot.digest(c.NM_KEYFILE_PATH), c.DOT_CA_BUNDLE_PATH,
                    (boot.digest(c.DOT_CA_BUNDLE_PATH) or "?")[:16]))
    running = global_dns_checks(proof, lab, boot, ks_text, road=global_dns.ROAD_BOOT_OPTIONS)
    generated_checks(proof, boot, ks_text)
    capture_checks(proof, frames)
    if not dnsconfd:
        resolution_checks(proof, lab, boot, expect, offsets)
        return
    unit_checks(proof, boot, RESOLVER_UNITS)
    known = tuple(global_dns.server_of(s.get("address"), s.get("port"), s.get("name"))
                  for s in dnsconfd_servers(boot) or [])
    wanted = running.domains.get(global_dns.ALL_NAMES, ())
    proof.check(bool(known) and known == global_dns.from_kickstart(
        ks_text, global_dns.ROAD_BOOT_OPTIONS).domains.get(global_dns.ALL_NAMES),
                "dnsconfd has the boot options' servers, field by field (`dnsconfd status`): "
                "%s (NetworkManager: %s)" % (", ".join(map(str, known)) or "nothing",
                                             ", ".join(map(str, wanted)) or "nothing"))
    resolution_checks(proof, lab, boot, expect, offsets)
    ipv6_checks(proof, lab, frames, offsets, boot.resolved(site.TEST_NAME), ks_text)
    routed = boot.resolved(site.ROUTED_TEST_NAME)
    routed_asked = asked_for(lab.routed, offsets["routed"], site.ROUTED_TEST_NAME)
    proof.check(routed is None and not routed_asked,
                "the boot options carry no routed domain: %s -> %s, its server %s asked "
                "nothing (%d queries)" % (site.ROUTED_TEST_NAME, routed or "no answer",
                                          site.ROUTED_DOT, len(routed_asked)))
    show_failed_units(proof, boot)


def post_nochroot_body(ks_text):
    """The body of the kickstart's %post --nochroot section."""
    match = re.search(r"^%post --nochroot\n(.*?)^%end", ks_text, re.MULTILINE | re.DOTALL)
    return match.group(1)


def kickstart_tests_case(proof, lab, image):
    from lab.kickstarts import kickstart_tests_kickstart

    workdir = lab.workdir / "kickstart-tests"
    workdir.mkdir(exist_ok=True)
    ks = kickstart_tests_kickstart(KICKSTART_TEST + ".ks.in", workdir, lab.ca.pem,
                                   site.KSTEST_VALUES)
    validated = cli("validate", ks, check=False)
    proof.check(validated.returncode == 0, "edns-addon validate accepts %s as the harness "
                "substitutes it (%s)" % (ks.name, validated.stdout.strip().splitlines()[-1]))
    boot_args = cli("boot-args", ks).stdout.split()
    kernel_args = harness_kernel_args(KICKSTART_TEST, workdir)
    proof.check(kernel_args[len(HARNESS_BOOTOPTS.split()):] == boot_args,
                "its kernel_args() are what edns-addon boot-args prints")
    options = kernel_args + ["inst.ks=file:/%s" % ks.name, "rd.neednet=1"] + DHCP_IP + [
        "root=/dev/vda", "rootfstype=ext4", "rw"]
    proof.figure("kernel options: %s" % " ".join(options))
    text = ks.read_text()
    # parse-kickstart's results in the initramfs: each %certificate at its --dir, and its
    # dump under /run (the lab's image has no Anaconda module: they are made here, by the
    # checkout's own parse-kickstart when ANACONDA_SRC names one).
    written = parse_kickstart_files(proof, ks, workdir)
    files = {"etc/edns-proof/continue": b"",
             "etc/edns-proof/transport/run/edns-proof/stage2.sh": stage2_script(
                 c.DOT_CA_BUNDLE_PATH, RESOLVE_SECONDS, post_nochroot=True).encode(),
             "etc/edns-proof/transport/run/edns-proof/post-nochroot.sh":
                 post_nochroot_body(text).encode()}
    for path, content in written.items():
        files[("etc/edns-proof/transport/" + path) if path.startswith("run/") else path] = \
            content
    # virt-install --initrd-inject: the file at the initrd's top.
    injected = guest.cpio({ks.name: ks.read_bytes()})
    root = lab.stage2_root()
    dhcp = lab.network.start_dhcp(workdir / "dhcp")
    offsets = lab.offsets()
    try:
        boot, frames = run_boot(proof, lab, KICKSTART_TEST, [image, injected], options,
                                KICKSTART_TESTS_INITRAMFS_CHECKS % ks.name, disks=[root],
                                files=files)
    finally:
        dhcp.stop()
    lease = lease_of(dhcp)
    dhcp_fact(proof, dhcp)
    proof.check(any(line.startswith("step end") for line in boot.lines),
                "switched root into the stage-2 stand-in and ran its proof there")
    if not network_checks(proof, boot, frames, lease=lease or "no lease",
                          expect=Expect(resolves=True)):
        return
    for window, seen in split_by_beacons(frames).items():
        proof.figure("%s: packets by port: %s" % (window, ", ".join(
            "%s %d" % item for item in sorted(tapnet.by_port(seen).items())) or "none"))
    capture_checks(proof, frames, dhcp=True)
    to_plain = [f for f in frames if f.destination == site.PLAINTEXT_DNS]
    proof.check(not to_plain, "the plaintext DNS server DHCP offered (%s) received nothing "
                "(%d packets)" % (site.PLAINTEXT_DNS, len(to_plain)))
    start = boot.step("start-up")
    answer = start.resolved(site.TEST_NAME)
    proof.check(answer == site.ANSWERS[site.TEST_NAME],
                "before any module ran, the boot options' server is authenticated by the "
                "%%certificate at %s: %s -> %s" % (c.DOT_CA_BUNDLE_PATH, site.TEST_NAME, answer))
    proof.fact("before the addon's ConfigureWithTasks nothing routes %s (no overlay): %s -> %s"
               % (site.ROUTED_DOMAIN, site.ROUTED_TEST_NAME,
                  start.resolved(site.ROUTED_TEST_NAME)))
    done = boot.step("configured")
    proof.check(done.resolved(site.ROUTED_TEST_NAME) == site.ANSWERS[site.ROUTED_TEST_NAME]
                and bool(asked_for(lab.routed, offsets["routed"], site.ROUTED_TEST_NAME)),
                "after it, %s -> %s, asked of its own server %s" % (
                    site.ROUTED_TEST_NAME, done.resolved(site.ROUTED_TEST_NAME),
                    site.ROUTED_DOT))
    result = boot.file_lines("/mnt/sysroot/root/RESULT")
    ran = any(line.startswith("post-nochroot exit") for line in boot.lines)
    proof.check(ran and result in ([], ["(absent)"]),
                "the kickstart's own %%post --nochroot passes there (RESULT: %s)" % (
                    " | ".join(result) or "empty"))


KICKSTART_TESTS_INITRAMFS_CHECKS = NETWORK_CHECKS + """\
cp -a /etc/edns-proof/transport/run/. /run/
mkdir -p /run/install && cp /%s /run/install/ks.cfg
say "handed over"
"""


@dataclass
class Case:
    """One case of the proof: its name (for --case), whether it needs dnsconfd, how it runs
    (a function of the proof, the lab and the installer image), and whether it needs an
    anaconda checkout whose pyanaconda this interpreter imports."""
    name: str
    title: str
    needs_dnsconfd: bool
    run: Callable
    needs_anaconda: bool = False
    needs_freeipa: bool = False


def cases(lab):
    """Every case of the proof, in order, whether or not it can run here."""
    servers = [site.MAIN_SERVER, site.ROUTED_SERVER]
    base = "--resolve-mode=%s --ca=%s" % (MODE, CA_FILENAME)
    unbound_options = base + " --backend=unbound"
    ks_main = edns_kickstart(lab.ca.pem, base, servers, commands=COMMANDS)
    ks_prefer = edns_kickstart(lab.ca.pem, "--resolve-mode=%s --ca=%s" % (PREFER, CA_FILENAME),
                               servers, commands=COMMANDS)
    ks_other = edns_kickstart(lab.other_ca.pem, base, servers, commands=COMMANDS)
    ks_ipv6 = edns_kickstart(lab.ca.pem, base, [site.IPV6_SERVER], commands=COMMANDS)
    # IPv6 for all names, a routed domain on IPv4 (the installed systems, stage 2).
    ipv6_servers = [site.IPV6_SERVER, site.ROUTED_SERVER]
    ks_ipv6_routed = edns_kickstart(lab.ca.pem, base, ipv6_servers, commands=COMMANDS)
    ks_unbound_ipv6 = edns_kickstart(lab.ca.pem, unbound_options, ipv6_servers,
                                     commands=COMMANDS)
    ks_boot_options = upstream_kickstart(lab.ca.pem, ipv6_servers)
    over_ipv6 = Expect(resolves=True, answer=site.IPV6_SERVER_ANSWER, over_ipv6=True)
    ks_private = edns_kickstart(lab.ca.pem, unbound_options, [site.MAIN_SERVER, site.HOME_SERVER],
                                commands=COMMANDS)
    ks_unbound = edns_kickstart(lab.ca.pem, unbound_options, servers, commands=COMMANDS)
    ks_unbound_other = edns_kickstart(lab.other_ca.pem, unbound_options, servers,
                                      commands=COMMANDS)
    ks_upstream = upstream_kickstart(lab.ca.pem, servers)
    two_tier = [site.CHAIN_SERVER, site.ROUTED_SERVER]
    ks_root_alone = edns_kickstart(lab.ca.pem, unbound_options, two_tier, commands=COMMANDS)
    ks_root_and_intermediate = edns_kickstart(lab.ca.pem + lab.intermediate.pem,
                                              unbound_options, two_tier, commands=COMMANDS)
    ks_intermediate_alone = edns_kickstart(lab.intermediate.pem, unbound_options, two_tier,
                                           commands=COMMANDS)
    with_dnsconfd = bool(lab.dnsconfd)
    closed = Expect(resolves=False, dot_tried=False, resolver_units=())
    found = [
        Case("installer", "Installer initramfs (resolve-mode %s): the kickstart's CA, a routed "
             "domain, HTTPS by name (static IPv4)%s" % (
                 MODE, "" if with_dnsconfd else "; without dnsconfd it fails closed"), False,
             lambda proof, image: installer_case(
                 proof, lab, image, "installer", ks_main, STATIC_IP,
                 Expect(resolves=True) if with_dnsconfd else closed)),
        Case("installer-dhcp", "Installer initramfs (resolve-mode %s): DHCP offers a plaintext "
             "DNS server and a domain, both unused" % MODE, False,
             lambda proof, image: installer_case(
                 proof, lab, image, "installer-dhcp", ks_main, DHCP_IP,
                 Expect(resolves=True) if with_dnsconfd else closed)),
        Case("installer-dhcp-prefer", "Installer initramfs (resolve-mode %s): DHCP's plaintext "
             "server answers DHCP's domain, the DoT servers everything else" % PREFER, True,
             lambda proof, image: installer_case(
                 proof, lab, image, "installer-dhcp-prefer", ks_prefer, DHCP_IP,
                 Expect(resolves=True, plaintext_for_dhcp_domain=True))),
        Case("installer-other-ca", "Installer initramfs: an unrelated CA", True,
             lambda proof, image: installer_case(
                 proof, lab, image, "installer-other-ca", ks_other, STATIC_IP,
                 Expect(resolves=False, ca_trusted=False))),
        Case("installer-ipv6", "Installer initramfs: an IPv6 DoT server", True,
             lambda proof, image: installer_case(
                 proof, lab, image, "installer-ipv6", ks_ipv6, STATIC_IP,
                 Expect(resolves=True, routed=False, answer=site.IPV6_SERVER_ANSWER,
                        over_ipv6=True))),
        Case(BOOT_OPTIONS_CASE, "Installer initramfs with the boot options alone, as a stock "
             "installer and kickstart-tests boot it: no overlay, the %%certificate where "
             "parse-kickstart puts it, an IPv6 DoT server for all names%s" % (
                 "" if with_dnsconfd else "; without dnsconfd it fails closed"), False,
             lambda proof, image: boot_options_case(proof, lab, image, ks_boot_options)),
        Case("installer-port", "Installer initramfs: a DoT server on port %d alone, as "
             "NetworkManager %s passes it on to dnsconfd" % (
                 site.PORT_DOT_PORT, getattr(lab, "networkmanager", "?")), True,
             lambda proof, image: port_case(proof, lab, image)),
        Case("target-dnsconfd", "Installed system, dnsconfd backend: apply --root, its own "
             "dracut, booted", True,
             lambda proof, image: sysusers_fact(proof, lab, "dnsconfd", target_case(
                 proof, lab, "dnsconfd", "target-dnsconfd", ks_main, Expect(resolves=True)))),
        Case("target-unbound", "Installed system, unbound backend: apply --root, its own "
             "dracut, booted", False,
             lambda proof, image: sysusers_fact(proof, lab, "unbound", target_case(
                 proof, lab, "unbound", "target-unbound", ks_unbound,
                 Expect(resolves=True, resolver_units=("unbound.service",))))),
        Case("target-dnsconfd-ipv6", "Installed system, dnsconfd backend, an IPv6 DoT server "
             "for all names", True,
             lambda proof, image: target_case(proof, lab, "dnsconfd", "target-dnsconfd-ipv6",
                                              ks_ipv6_routed, over_ipv6)),
        Case("target-unbound-ipv6", "Installed system, unbound backend, an IPv6 DoT server "
             "for all names (Unbound's IPv6 forward-addr)", False,
             lambda proof, image: target_case(
                 proof, lab, "unbound", "target-unbound-ipv6", ks_unbound_ipv6,
                 Expect(resolves=True, answer=site.IPV6_SERVER_ANSWER, over_ipv6=True,
                        resolver_units=("unbound.service",)))),
        Case("target-unbound-private-zones", "Installed system, unbound backend: a routed "
             "domain under home.arpa and the reverse zone of 10/8, which Unbound keeps to "
             "itself by default", False,
             lambda proof, image: target_case(
                 proof, lab, "unbound", "target-unbound-private-zones", ks_private,
                 Expect(resolves=True, routed=False, resolver_units=("unbound.service",)),
                 probes=PRIVATE_ZONES_PROBES,
                 seen=lambda upper, boot, frames, offsets: private_zones_checks(
                     proof, lab, upper, boot, frames, offsets))),
        Case("target-system-store", "Installed system on a %s layout, unbound backend, no "
             "--ca: the system store authenticates the servers" % target_layout.TARGET_LINE,
             False, lambda proof, image: system_store_case(proof, lab, image)),
        Case("target-unbound-other-ca", "Installed system, unbound backend, an unrelated CA",
             False,
             lambda proof, image: target_case(
                 proof, lab, "unbound", "target-unbound-other-ca", ks_unbound_other,
                 Expect(resolves=False, ca_trusted=False,
                        resolver_units=("unbound.service",)))),
        Case("two-tier-root", "Installed system, unbound backend, a two-tier PKI: --ca the "
             "root CA alone, the server sends its certificate and the intermediate CA's", False,
             lambda proof, image: two_tier_case(proof, lab, "two-tier-root", ks_root_alone)),
        Case("two-tier-root-and-intermediate", "Installed system, unbound backend, a two-tier "
             "PKI: --ca the root CA and the intermediate CA", False,
             lambda proof, image: two_tier_case(proof, lab, "two-tier-root-and-intermediate",
                                                ks_root_and_intermediate)),
        Case("two-tier-intermediate-alone", "A two-tier PKI: --ca the intermediate CA alone, "
             "which Unbound would refuse", False,
             lambda proof, image: two_tier_case(proof, lab, "two-tier-intermediate-alone",
                                                ks_intermediate_alone, refused=True)),
        Case("composed-dnsconfd", "Installed system as the installer's sequence leaves it, "
             "dnsconfd backend: the line's Security and network modules, then ours", True,
             lambda proof, image: composed_case(
                 proof, lab, "dnsconfd", "composed-dnsconfd", ks_main,
                 Expect(resolves=True)), needs_anaconda=True),
        Case("composed-unbound", "Installed system as the installer's sequence leaves it, "
             "unbound backend: dnsconfd enabled by the network module, disabled by ours", False,
             lambda proof, image: composed_case(
                 proof, lab, "unbound", "composed-unbound", ks_unbound,
                 Expect(resolves=True, resolver_units=("unbound.service",),
                        idle_units=("dnsconfd.service",))), needs_anaconda=True),
        Case("composed-unbound-other-ca", "Installed system as the installer's sequence leaves "
             "it, unbound backend, an unrelated CA", False,
             lambda proof, image: composed_case(
                 proof, lab, "unbound", "composed-unbound-other-ca", ks_unbound_other,
                 Expect(resolves=False, ca_trusted=False,
                        resolver_units=("unbound.service",), idle_units=("dnsconfd.service",))),
             needs_anaconda=True),
        Case("composed-dnsconfd-ipv6", "Installed system as the installer's sequence leaves "
             "it, dnsconfd backend, an IPv6 DoT server for all names", True,
             lambda proof, image: composed_case(
                 proof, lab, "dnsconfd", "composed-dnsconfd-ipv6", ks_ipv6_routed, over_ipv6),
             needs_anaconda=True),
        Case("composed-unbound-ipv6", "Installed system as the installer's sequence leaves "
             "it, unbound backend, an IPv6 DoT server for all names (Unbound's IPv6 "
             "forward-addr)", False,
             lambda proof, image: composed_case(
                 proof, lab, "unbound", "composed-unbound-ipv6", ks_unbound_ipv6,
                 Expect(resolves=True, answer=site.IPV6_SERVER_ANSWER, over_ipv6=True,
                        resolver_units=("unbound.service",), idle_units=("dnsconfd.service",))),
             needs_anaconda=True),
        Case("stage2", "Stage 2 before the installation starts, the README's placement (%s "
             "--ca): the overlay's pre-pivot hook carries the keyfile and bundle across "
             "switch-root" % CA_DIRECTORY_OPTION, False,
             lambda proof, image: stage2_case(proof, lab, image, "stage2", ks_main,
                                              c.DOT_CA_DIR + CA_FILENAME)),
        Case("stage2-ipv6", "Stage 2 before the installation starts, an IPv6 DoT server for "
             "all names", True,
             lambda proof, image: stage2_case(proof, lab, image, "stage2-ipv6", ks_ipv6_routed,
                                              c.DOT_CA_DIR + CA_FILENAME, over_ipv6=True)),
        Case("stage2-upstream", "Stage 2 before the installation starts, upstream's placement "
             "(%s --filename=%s)" % (UPSTREAM_CA_OPTIONS, UPSTREAM_CA_FILENAME), False,
             lambda proof, image: stage2_case(proof, lab, image, "stage2-upstream",
                                              ks_upstream, c.DOT_CA_BUNDLE_PATH)),
        Case("freeipa-4.12", "Installed system, unbound backend, then FreeIPA %s's "
             "ipa-client-install --dns-over-tls: one Unbound, FreeIPA's forwarder alone"
             % FREEIPA_LINE, False,
             lambda proof, image: freeipa_case(proof, lab, image), needs_freeipa=True),
        Case("kickstart-tests", "data/kickstart-tests/%s delivered as rhinstaller/"
             "kickstart-tests' harness delivers it: the kickstart injected into the initrd, "
             "its kernel_args(), no overlay" % KICKSTART_TEST, True,
             lambda proof, image: kickstart_tests_case(proof, lab, image)),
    ]
    return found




def case_names():
    """The names of every case (without building a lab)."""
    class NoLab:
        ca = other_ca = intermediate = certs.make_ca("names only")
        dnsconfd = None
    return [case.name for case in cases(NoLab())]
