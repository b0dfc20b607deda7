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

"""`make vm-proof-sabotage`: the VM proof's own mutation test.

    EDNS_TREE=trixie|forky python3 -m lab.vmlab.sabotage [--only NAME]...

Each sabotage breaks the addon or the lab in a scratch copy of this tree (one
edit of one file, which must match exactly once, or the sabotage itself is out
of date and the run fails), then runs there the fastest case of ``make
vm-proof`` that must catch it. Caught: that case reports a failed check.
Reports each sabotage with the checks that failed, and exits 0 only when
every one was caught. The cases boot the tree EDNS_TREE names, as ``make
vm-proof`` does. With DNSCONFD_ROOT (a dnsconfd built for that tree) the cases run
with dnsconfd, as in ``DNSCONFD_ROOT=... make vm-proof``; a sabotage whose case
needs it is then caught by the DoT resolution itself.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from lab import certs
from lab.vmlab import checks, debian_tree, site

REPO = Path(__file__).resolve().parents[2]
# One case boots once (installer cases) or builds an image and boots (target cases).
CASE_SECONDS = 900
SABOTAGE_CA_ENV = "EDNS_SABOTAGE_CA"


@dataclass(frozen=True)
class Edit:
    """Replace OLD (found exactly once) by NEW in PATH."""
    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Sabotage:
    """One defect, put in by EDITS, and the case that must catch it."""
    name: str
    what: str
    edits: tuple
    case: str


_OVERLAY_FILES = '    files = build_plan(data, Phase.INSTALLER, "/").files\n'
_KEYFILE_MODE = '    global_dns = [("resolve-mode", config.resolve_mode.value)]\n'
_BOOT_MODE = ("    options.append(BootOption(c.BOOT_OPTION_RESOLVE_MODE, "
              "config.resolve_mode.value))\n")
_BOOT_SERVERS = ("    options = [BootOption(c.BOOT_OPTION_DNS, server.uri())\n"
                 "               for server in config.default_servers]\n")
_KEYFILE_SERVERS = "                    s.uri() for s in config.default_servers))])]\n"
_PREFER = '{"exclusive": "prefer"}.get(config.resolve_mode.value, config.resolve_mode.value)'

SABOTAGES = (
    Sabotage("keyfile-dropped", "the overlay leaves out the NetworkManager keyfile",
             (Edit("org_edns_addon/initrd.py", _OVERLAY_FILES,
                   '    files = tuple(f for f in build_plan(data, Phase.INSTALLER, "/").files\n'
                   '                  if f.path != c.NM_KEYFILE_PATH)\n'),),
             "installer"),
    Sabotage("wrong-ca", "the overlay's DoT CA bundle holds an unrelated CA",
             (Edit("org_edns_addon/initrd.py", _OVERLAY_FILES,
                   '    files = tuple(PlannedFile(f.path, __import__("pathlib").Path(__import__('
                   '"os").environ["%s"]).read_bytes(), f.mode) if f.path == '
                   'c.DOT_CA_BUNDLE_PATH else f for f in build_plan(data, Phase.INSTALLER, '
                   '"/").files)\n' % SABOTAGE_CA_ENV),),
             "installer"),
    Sabotage("prefer-for-exclusive", "the addon writes resolve-mode prefer for exclusive "
             "(keyfile and rd.net.dns-resolve-mode)",
             (Edit("org_edns_addon/staging/networkmanager.py", _KEYFILE_MODE,
                   '    global_dns = [("resolve-mode", %s)]\n' % _PREFER),
              Edit("org_edns_addon/staging/networkmanager.py", _BOOT_MODE,
                   "    options.append(BootOption(c.BOOT_OPTION_RESOLVE_MODE, %s))\n"
                   % _PREFER)),
             "installer"),
    # The same defect where DHCP offers a plaintext server and a domain: with dnsconfd,
    # prefer sends the DHCP domain to that server in plaintext once NetworkManager is
    # reloaded, so the capture and the plaintext server's log catch it, not only the mode.
    Sabotage("prefer-for-exclusive-dhcp", "the addon writes resolve-mode prefer for "
             "exclusive, where DHCP offers a plaintext server and a domain",
             (Edit("org_edns_addon/staging/networkmanager.py", _KEYFILE_MODE,
                   '    global_dns = [("resolve-mode", %s)]\n' % _PREFER),
              Edit("org_edns_addon/staging/networkmanager.py", _BOOT_MODE,
                   "    options.append(BootOption(c.BOOT_OPTION_RESOLVE_MODE, %s))\n"
                   % _PREFER)),
             "installer-dhcp"),
    Sabotage("no-network", "the guest never gets a network: its NIC moves to another PCI "
             "slot, so ip= names a NIC it lacks",
             (Edit("lab/vmlab/guest.py", '"virtio-net-pci,netdev=n0,mac=%s"',
                   '"virtio-net-pci,netdev=n0,addr=0x5,mac=%s"'),),
             "installer"),
    # Neither dns=default in the keyfile nor resolve-mode backup made NetworkManager 1.52
    # (exclusive from the boot options) or dnsconfd use DHCP's server, in the initramfs or
    # in stage 2: so the guest's resolver itself is pointed at it, as one that fell back
    # to DHCP's server would be.
    Sabotage("plaintext-server-used", "the guest's resolver asks the DNS server DHCP "
             "offered, which must stay unused",
             (Edit("lab/vmlab/dracut/99edns-lab-proof/edns-proof.sh",
                   "resolve() {\n",
                   "resolve() {\n    echo 'nameserver %s' > /etc/resolv.conf\n"
                   % site.PLAINTEXT_DNS),),
             "installer-dhcp"),
    # dnsconfd then restarts the Unbound the lab's image started at boot, takes the stop
    # for its cache stopping, reloads, and NetworkManager waits 5 s for network-online.
    Sabotage("unbound-before-dnsconfd", "the overlay leaves out the unbound.service drop-in "
             "that holds Unbound back until dnsconfd has configured it",
             (Edit("org_edns_addon/initrd.py",
                   "    files += (unbound_dropin_file(),)\n",
                   "    files += () and (unbound_dropin_file(),)\n"),),
             "installer"),
    Sabotage("no-pre-pivot-hook", "the overlay has no pre-pivot hook: the keyfile and the "
             "bundle stay in the initramfs, and stage 2 starts without them",
             (Edit("org_edns_addon/initrd.py",
                   "    return Plan(Phase.INSTALLER, files + hooks + (kickstart,), ())\n",
                   "    return Plan(Phase.INSTALLER, files + (kickstart,), ())\n"),),
             "stage2"),
    # On a NetworkManager that sends dnsconfd the port (forky), dnsconfd then asks 853 of a
    # server that answers on another port only; on one that does not (trixie), what
    # NetworkManager runs is no longer the kickstart's server.
    Sabotage("port-dropped", "the addon writes a DoT server's URI without its port "
             "(keyfile and rd.net.dns)",
             (Edit("org_edns_addon/model.py",
                   "        if self.port != self.default_port:\n",
                   "        if False:\n"),),
             "installer-port"),
    # The trust-store switch undone: Fedora 43 has no /etc/pki/tls/certs/ca-bundle.crt.
    Sabotage("system-store-legacy-path", "without --ca the servers are authenticated by "
             "/etc/pki/tls/certs/ca-bundle.crt, which Fedora 43 no longer has",
             (Edit("org_edns_addon/constants.py",
                   'SYSTEM_CA_BUNDLE_PATH = "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"\n',
                   'SYSTEM_CA_BUNDLE_PATH = "/etc/pki/tls/certs/ca-bundle.crt"\n'),),
             "target-system-store"),
    Sabotage("bundle-not-in-target-initramfs", "the installed system's dracut drop-in leaves "
             "the DoT CA bundle out of its initramfs",
             (Edit("org_edns_addon/staging/dracut.py",
                   "    items = [data.trust.path] + dns_config_paths(data.config)\n",
                   "    items = dns_config_paths(data.config)\n"),),
             "target-unbound"),
    # The boot-options road alone (issue 33): what a stock installer and kickstart-tests
    # get. Without dnsconfd as with it, NetworkManager's running servers and the generated
    # 16-global-dns.conf are compared with the kickstart's field by field.
    Sabotage("boot-options-lose-ipv6", "`boot-args` leaves out the IPv6 servers",
             (Edit("org_edns_addon/staging/networkmanager.py", _BOOT_SERVERS,
                   _BOOT_SERVERS.replace("config.default_servers]",
                                         'config.default_servers if "[" not in server.uri()]')),),
             "installer-boot-options"),
    Sabotage("boot-options-lose-tls-name", "`boot-args` writes the servers without their TLS "
             "name (#NAME)",
             (Edit("org_edns_addon/staging/networkmanager.py", _BOOT_SERVERS,
                   _BOOT_SERVERS.replace("server.uri())", 'server.uri().split("#")[0])')),),
             "installer-boot-options"),
    Sabotage("keyfile-mode-disagrees", "the overlay's keyfile says resolve-mode prefer where "
             "the boot options say exclusive",
             (Edit("org_edns_addon/staging/networkmanager.py", _KEYFILE_MODE,
                   '    global_dns = [("resolve-mode", %s)]\n' % _PREFER),),
             "installer"),
    Sabotage("keyfile-servers-disagree", "the overlay's keyfile lists the servers for all "
             "names without their TLS name, where the boot options have it",
             (Edit("org_edns_addon/staging/networkmanager.py", _KEYFILE_SERVERS,
                   _KEYFILE_SERVERS.replace("s.uri() for", 's.uri().split("#")[0] for')),),
             "installer"),
    Sabotage("resolved-left-on", "the target phase leaves systemd-resolved enabled in the "
             "installed system",
             (Edit("org_edns_addon/staging/plan.py",
                   "        actions.append(Action(ActionKind.DISABLE_UNIT, c.RESOLVED_UNIT))\n",
                   ""),),
             "target-unbound"),
    # The lab's own: the DHCP case must see the server it says DHCP offered, or the
    # "plaintext server unused" checks would pass on a lease that offered none.
    Sabotage("dhcp-offers-no-server", "the lab's DHCP server offers no DNS server",
             (Edit("lab/vmlab/tapnet.py",
                   '"--dhcp-option=option:dns-server,%s" % dns_server,',
                   '"--dhcp-option=option:dns-server",'),),
             "installer-dhcp"),
    # Issue 32: Unbound answers home.arpa and 10.in-addr.arpa itself (NXDOMAIN) unless our
    # file opens them.
    Sabotage("private-zones-not-lifted", "the unbound backend's file leaves out the "
             "transparent local zones that open Unbound's default zones to a routed domain",
             (Edit("org_edns_addon/staging/unbound.py",
                   "    lines += ['    local-zone: \"%s.\" transparent' % zone for zone in "
                   "config.unbound_zones_lifted()]\n", ""),),
             "target-unbound-private-zones"),
    # Needs an anaconda checkout (the composed cases run its Security and network modules)
    # and DNSCONFD_ROOT (the target has dnsconfd, as the network module's requirements make
    # a real one have).
    Sabotage("dnsconfd-in-unbound-initramfs", "with --backend=unbound the installed "
             "system's drop-in no longer omits dnsconfd's dracut module, which the network "
             "module installed",
             (Edit("org_edns_addon/staging/dracut.py",
                   "        lines.append('omit_dracutmodules+=\" %s \"' % "
                   "c.DRACUT_MODULE_DNSCONFD)\n",
                   "        pass\n"),),
             "composed-unbound"),
    # Needs an anaconda checkout: the composed IPv6 case, whose Unbound must forward over
    # IPv6 through the installer's sequence.
    Sabotage("unbound-ipv6-forward-dropped", "the unbound backend writes no forward-addr "
             "for an IPv6 server",
             (Edit("org_edns_addon/staging/unbound.py",
                   '    lines += ["    forward-addr: %s" % s.unbound_forward_addr() for s in '
                   'servers]\n',
                   '    lines += ["    forward-addr: %s" % s.unbound_forward_addr() for s in '
                   'servers\n              if ":" not in str(s.address)]\n'),),
             "composed-unbound-ipv6"),
    # Needs FREEIPA_GIT (FreeIPA 4.12's own template and client_dns).
    Sabotage("no-freeipa-handover", "with --backend=unbound the handover unit is written "
             "but not enabled, so FreeIPA 4.12's restart of Unbound does not run it",
             (Edit("org_edns_addon/staging/plan.py",
                   "            actions.append(Action(ActionKind.ENABLE_UNIT, "
                   "c.FREEIPA_HANDOVER_UNIT))\n", ""),),
             "freeipa-4.12"),
)


def scratch_copy(destination):
    """This tree's files (as git knows them, with their working-tree contents)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO, capture_output=True,
                            check=True, timeout=60).stdout.split(b"\0")
    for name in filter(None, listed):
        source = REPO / os.fsdecode(name)
        if not source.is_file():
            continue
        target = destination / os.fsdecode(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def apply(sabotage, tree):
    """Put SABOTAGE into TREE; a ValueError if an edit does not match exactly once."""
    for edit in sabotage.edits:
        path = tree / edit.path
        text = path.read_text()
        if text.count(edit.old) != 1:
            raise ValueError("%s: %s holds the text to replace %d times, not once: the "
                             "sabotage is out of date" % (sabotage.name, edit.path,
                                                          text.count(edit.old)))
        path.write_text(text.replace(edit.old, edit.new))


@dataclass
class Outcome:
    sabotage: Sabotage
    caught: bool
    failed_checks: list
    summary: str
    seconds: float


def run_one(sabotage, scratch_root, env):
    tree = scratch_root / sabotage.name
    scratch_copy(tree)
    apply(sabotage, tree)
    started = time.monotonic()
    # The scratch tree in this tree's place on the path; the rest (an anaconda checkout for
    # the composed cases) kept.
    path = [str(tree)] + [entry for entry in env.get("PYTHONPATH", "").split(os.pathsep)
                          if entry and Path(entry).resolve() != REPO]
    result = subprocess.run([sys.executable, "-m", "lab.vmlab.proof", "--case", sabotage.case],
                            cwd=tree, env=dict(env, PYTHONPATH=os.pathsep.join(path)),
                            capture_output=True, text=True, timeout=CASE_SECONDS)
    seconds = time.monotonic() - started
    output = result.stdout + result.stderr
    summary = re.search(r"^vm-proof: (\d+) passed, (\d+) failed$", output, re.MULTILINE)
    failed = [line.strip()[len("FAIL"):].strip() for line in output.splitlines()
              if line.strip().startswith("FAIL ")]
    # Caught only by a failed check of a proof that ran: a crash or a refusal is not, nor a
    # case that could not run (lab/vmlab/proof.py run_case says so in a failed line).
    observed = [line for line in failed if not re.match(r"\S+ (crashed|could not run): ", line)]
    caught = bool(summary) and bool(observed) and result.returncode == checks.EXIT_FAILED
    text = summary.group(0) if summary else "the proof did not run (exit %d): %s" % (
        result.returncode, output.strip()[-600:])
    return Outcome(sabotage, caught, failed, text, seconds)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="vm-proof-sabotage", description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only this sabotage (repeatable)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    chosen = [s for s in SABOTAGES if not args.only or s.name in args.only]
    unknown = set(args.only) - {s.name for s in SABOTAGES}
    if unknown:
        print("vm-proof-sabotage: no sabotage %s; they are: %s" % (
            ", ".join(sorted(unknown)), ", ".join(s.name for s in SABOTAGES)))
        return checks.EXIT_CANNOT_RUN
    started = time.monotonic()
    scratch_root = Path(tempfile.mkdtemp(prefix="edns-sabotage."))
    ca_path = scratch_root / "unrelated-ca.pem"
    ca_path.write_text(certs.make_ca("Sabotage: an unrelated CA").pem)
    env = dict(os.environ, **{SABOTAGE_CA_ENV: str(ca_path)})
    print("vm-proof-sabotage: %d sabotages, each in a scratch copy below %s, on the %s tree%s" % (
        len(chosen), scratch_root, os.environ.get(debian_tree.SELECT_ENV) or
        debian_tree.DEFAULT_SUITE, "; with dnsconfd from %s" % os.environ[checks.DNSCONFD_ENV]
        if os.environ.get(checks.DNSCONFD_ENV) else "; without dnsconfd"), flush=True)
    outcomes = []
    try:
        for sabotage in chosen:
            print("\n%s: %s (%s; case %s)" % (sabotage.name, sabotage.what, ", ".join(
                sorted({edit.path for edit in sabotage.edits})), sabotage.case), flush=True)
            outcome = run_one(sabotage, scratch_root, env)
            outcomes.append(outcome)
            print("  %s  %s in %.0f s" % ("caught    " if outcome.caught else "NOT CAUGHT",
                                         outcome.summary, outcome.seconds), flush=True)
            for line in outcome.failed_checks:
                print("      failed: %s" % line[:160], flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(scratch_root, ignore_errors=True)
    caught = sum(outcome.caught for outcome in outcomes)
    print("\nvm-proof-sabotage: %d of %d sabotages caught in %.0f s (lab: guest %s on %s)" % (
        caught, len(outcomes), time.monotonic() - started, site.GUEST_IPV4, site.TAP))
    return 0 if caught == len(outcomes) else checks.EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
