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

"""`make vm-proof`: the addon on the real stack, in booted initramfs images.

    python3 -m lab.vmlab.proof [--keep]

Builds (cached) the trixie tree and an installer-style initramfs, then boots
trixie's kernel in qemu (TCG) on a tap in a private network namespace, with
``edns-addon overlay`` appended to the image and ``edns-addon boot-args`` on
the kernel command line, and shows from the serial console and a capture of
the tap what each case does. With DNSCONFD_ROOT=DIR (an installed dnsconfd
tree, built elsewhere) the DoT resolution of NetworkManager's initramfs runs;
without it the proof says so and shows that the initramfs fails closed.
Prints one line per check and ends with "vm-proof: N passed, N failed".
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from lab.kickstarts import CA_FILENAME, edns_kickstart
from lab import certs
from lab.vmlab import guest, initramfs, tapnet, trixie_tree
from org_edns_addon import constants as c

REPO = Path(__file__).resolve().parents[2]
DNSCONFD_ENV = "DNSCONFD_ROOT"
# A network install: what an installer kickstart holds before our sections.
COMMANDS = "text\nnetwork --bootproto=dhcp\nrootpw --lock\n"
KS_URL = "https://ks.corp.example/ks.cfg"
STATIC_IP = ["ip=%s::%s:255.255.255.0::%s:none" % (tapnet.GUEST_IPV4, tapnet.GATEWAY_IPV4,
                                                     tapnet.GUEST_INTERFACE),
             "ip=[%s]::[%s]:64::%s:none" % (tapnet.GUEST_IPV6, tapnet.GATEWAY_IPV6,
                                              tapnet.GUEST_INTERFACE)]
DHCP_IP = ["ip=%s:dhcp" % tapnet.GUEST_INTERFACE]
MAIN_SERVER = "dns+tls://%s#dot.corp.example" % tapnet.MAIN_DOT
ROUTED_SERVER = "dns+tls://%s#dot.lab.example  domain=lab.example" % tapnet.ROUTED_DOT
IPV6_SERVER = "dns+tls://[%s]#dot.corp.example" % tapnet.MAIN_DOT_IPV6
TARGET_BASE_MODULES = ("base", "systemd", "systemd-initrd", "dracut-systemd", "dbus")
# The target's initramfs needs its network here (as for a network root): the lab adds
# NetworkManager, the proof runner, and the user creation dracut-ng 108 does itself.
TARGET_LAB_MODULES = ("network-manager", "edns-lab-proof")
SYSUSERS_RERUN = "edns-lab-sysusers"
# A boot that did not reach the proof's end shows this many lines of its console.
SERIAL_TAIL = 25

INSTALLER_CHECKS = """\
show /run/NetworkManager/conf.d/16-global-dns.conf
show /run/NetworkManager/conf.d/16-dns-backend.conf
global_dns
show /etc/resolv.conf
unit dnsconfd.service
unit unbound.service
resolve www.corp.example
resolve www.lab.example
fetch %s /etc/pki/dns/extracted/pem/tls-ca-bundle.pem
journal dnsconfd.service unbound.service
""" % KS_URL
TARGET_CHECKS = """\
show /etc/resolv.conf
unit dnsconfd.service
unit unbound.service
resolve www.corp.example
resolve www.lab.example
journal dnsconfd.service unbound.service
"""


class Proof:
    """Collects the checks and the figures, and prints them as they come."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def section(self, title):
        print("\n" + title, flush=True)

    def check(self, ok, text):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print("  %s  %s" % ("ok  " if ok else "FAIL", text), flush=True)
        return ok

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


def capture_checks(proof, frames, dhcp=False):
    """No packet to port 53, and no UDP but DHCP, left the guest."""
    counts = tapnet.by_port(frames)
    dns = [f for f in frames if f.port == 53 and f.kind in ("tcp", "udp")]
    udp = [f for f in frames if f.kind == "udp" and not (dhcp and f.port in (67, 547))]
    proof.check(not dns, "no packet to port 53 left the guest (%d)" % len(dns))
    proof.check(not udp, "no UDP left the guest%s (%d: %s)" % (
        " but DHCP" if dhcp else "", len(udp), sorted({"%s:%d" % (f.destination, f.port)
                                                      for f in udp})))
    proof.figure("packets from the guest by port: %s" % ", ".join(
        "%s %d" % item for item in sorted(counts.items())))
    tcp = Counter("%s:%d" % (f.destination, f.port) for f in frames if f.kind == "tcp")
    if tcp:
        proof.figure("TCP from the guest to: %s" % ", ".join(
            "%s %d" % item for item in sorted(tcp.items())))
    return counts


def run_boot(proof, lab, name, images, options, checks, dhcp=False):
    capture_path = lab.workdir / ("%s.pcap" % name)
    tcpdump = lab.network.start_capture(capture_path)
    try:
        boot = guest.boot(lab.network, lab.tree, lab.kernel,
                          list(images) + [guest.proof_cpio(checks)], options, lab.workdir, name)
    finally:
        lab.network.stop_capture(tcpdump)
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

    def __init__(self, workdir, tree, dnsconfd):
        self.workdir = workdir
        self.tree = tree
        self.dnsconfd = dnsconfd
        self.kernel = next((tree / "boot").glob("vmlinuz-*"))
        self.boots = []
        pki = workdir / "pki"
        pki.mkdir(exist_ok=True)
        self.ca = certs.make_ca("Lab DNS CA")
        self.other_ca = certs.make_ca("Unrelated CA")
        self.main_cert = certs.make_server(self.ca, ["dot.corp.example"]).write(pki, "main")
        self.lab_cert = certs.make_server(self.ca, ["dot.lab.example"]).write(pki, "lab")
        self.web_cert = certs.make_server(self.ca, ["ks.corp.example"]).write(pki, "web")
        self.network = tapnet.TapNetwork.create()
        self.services = []

    def start(self):
        net = self.network
        corp = ['%s. 300 IN A %s' % (name, address) for name, address in tapnet.ANSWERS.items()
                if name.endswith("corp.example")]
        self.main = net.start_dot(self.workdir / "dot-main", "dot.corp.example",
                                  [tapnet.MAIN_DOT], *self.main_cert, tapnet.CORP_ZONE, corp,
                                  tapnet.MAIN_DOT)
        self.ipv6 = net.start_dot(self.workdir / "dot-ipv6", "dot.corp.example",
                                  [tapnet.MAIN_DOT_IPV6, tapnet.IPV6_READY], *self.main_cert,
                                  tapnet.CORP_ZONE,
                                  ["www.corp.example. 300 IN A %s" % tapnet.IPV6_SERVER_ANSWER],
                                  tapnet.IPV6_READY)
        self.routed = net.start_dot(self.workdir / "dot-lab", "dot.lab.example",
                                    [tapnet.ROUTED_DOT], *self.lab_cert, tapnet.LAB_ZONE,
                                    ["www.lab.example. 300 IN A %s"
                                     % tapnet.ANSWERS["www.lab.example"]], tapnet.ROUTED_DOT)
        self.ks_file = edns_kickstart(self.ca.pem, servers=[MAIN_SERVER],
                                      commands=COMMANDS).encode()
        self.web = net.start_https(self.workdir / "https", *self.web_cert,
                                   {"ks.cfg": self.ks_file})
        self.services = [self.main, self.ipv6, self.routed, self.web]

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

    def write_ks(self, name, text):
        path = self.workdir / ("%s.ks" % name)
        path.write_text(text)
        return path


def installer_case(proof, lab, image, name, title, ks_text, ip, expect_resolution,
                   expect_routed=True, expected_answer=tapnet.ANSWERS["www.corp.example"]):
    proof.section(title)
    ks = lab.write_ks(name, ks_text)
    overlay = lab.workdir / ("%s-overlay.img" % name)
    cli("overlay", ks, "-o", overlay)
    boot_args = cli("boot-args", ks).stdout.split()
    proof.figure("kernel options: %s" % " ".join(boot_args + ["rd.neednet=1"] + ip))
    dhcp = lab.network.start_dhcp(lab.workdir / ("%s-dhcp" % name)) if ip == DHCP_IP else None
    offsets = {name: upstream.log_offset() for name, upstream in (
        ("main", lab.main), ("routed", lab.routed), ("ipv6", lab.ipv6))}
    try:
        boot, frames = run_boot(proof, lab, name, [image, overlay],
                                boot_args + ["rd.neednet=1"] + ip, INSTALLER_CHECKS,
                                dhcp=ip == DHCP_IP)
    finally:
        if dhcp:
            dhcp.stop()
    if dhcp:
        leases = [line for line in dhcp.log().splitlines() if "DHCPACK" in line]
        proof.check(bool(leases), "the DHCP server leased the guest an address (%s)"
                    % (leases[-1].split("DHCPACK", 1)[1].strip() if leases else "no lease"))
    global_dns = boot.global_dns() or {}
    domains = global_dns.get("domains", {})
    proof.check(global_dns.get("certification-authority") == c.DOT_CA_BUNDLE_PATH
                and (not expect_routed or "lab.example" in domains),
                "NetworkManager 1.52 in the initramfs runs the overlay's keyfile: CA %s, "
                "domains %s" % (global_dns.get("certification-authority"), sorted(domains)))
    proof.check(bool(boot.file_lines("/run/NetworkManager/conf.d/16-global-dns.conf")),
                "nm-initrd-generator wrote 16-global-dns.conf from the boot options")
    counts = capture_checks(proof, frames, dhcp=ip == DHCP_IP)
    to_plain = [f for f in frames if f.destination == tapnet.PLAINTEXT_DNS]
    if ip == DHCP_IP:
        proof.check(not to_plain, "the plaintext DNS server DHCP offered (%s) received "
                    "nothing (%d packets)" % (tapnet.PLAINTEXT_DNS, len(to_plain)))
    answer = boot.resolved("www.corp.example")
    if expect_resolution:
        proof.check(answer == expected_answer, "www.corp.example -> %s over DoT (expected %s)"
                    % (answer, expected_answer))
        if expect_routed:
            routed_log = lab.routed.log_since(offsets["routed"])
            main_log = lab.main.log_since(offsets["main"])
            proof.check(boot.resolved("www.lab.example") == tapnet.ANSWERS["www.lab.example"]
                        and "www.lab.example. A IN" in routed_log
                        and not re.search(r" \S*lab\.example\. ", main_log),
                        "www.lab.example -> %s, asked of its own server %s only (domain=)"
                        % (boot.resolved("www.lab.example"), tapnet.ROUTED_DOT))
            ok, detail = boot.fetched(KS_URL)
            proof.check(ok and detail == hashlib.sha256(lab.ks_file).hexdigest(),
                        "fetched %s over HTTPS by name (sha256 %s)" % (KS_URL, detail[:16]))
        proof.check(counts.get("tcp/853", 0) > 0, "the DoT traffic: %d packets to TCP 853"
                    % counts.get("tcp/853", 0))
    else:
        proof.check(answer is None and boot.resolved("www.lab.example") is None,
                    "nothing resolves (www.corp.example: %s)" % (answer or "no answer"))
        if lab.dnsconfd:
            proof.check(counts.get("tcp/853", 0) > 0, "not for want of trying: %d packets to "
                        "TCP 853, whose certificate the CA does not sign"
                        % counts.get("tcp/853", 0))
    show_failed_units(proof, boot)
    return boot, frames


def show_failed_units(proof, boot):
    """A failed dnsconfd or Unbound, with its journal (the serial log has it all)."""
    failed = [unit for unit in ("dnsconfd.service", "unbound.service")
              if boot.unit(unit).get("Result") not in (None, "success")]
    for unit in failed:
        proof.figure("%s: %s" % (unit, " ".join("%s=%s" % kv
                                                for kv in boot.unit(unit).items())))
    if failed:
        for line in boot.file_lines("journal")[-15:]:
            proof.figure("  " + line)


def stage_target(lab, name, ks_text):
    """A trixie root with `edns-addon apply --root` (phase target); returns its upper layer."""
    ks = lab.write_ks(name, ks_text)
    upper = lab.workdir / ("%s-root" % name)
    shutil.rmtree(upper, ignore_errors=True)
    upper.mkdir()
    layers = lab.layers()
    result = initramfs.run_in_overlay(
        lab.tree, layers,
        ["--host", "sh", "-c", '"$0" -m org_edns_addon.cli apply "$1" --root "$EDNS_MERGED"',
         sys.executable, str(ks)], lab.workdir, upper=upper, timeout=300)
    if result.returncode != 0:
        raise RuntimeError("apply --root failed: %s%s" % (result.stdout, result.stderr))
    return upper, result.stdout


def target_image(lab, name, upper, sysusers_rerun=True):
    image = lab.workdir / ("%s.img" % name)
    add = TARGET_LAB_MODULES + ((SYSUSERS_RERUN,) if sysusers_rerun else ())
    seconds = initramfs.dracut(lab.tree, [upper] + lab.layers(), image,
                               modules=TARGET_BASE_MODULES, add=add)
    return image, seconds


def target_case(proof, lab, backend, title, ks_text, expect_resolution):
    proof.section(title)
    name = "target-%s%s" % (backend, "" if expect_resolution else "-other-ca")
    upper, applied = stage_target(lab, name, ks_text)
    dropin = (upper / c.DRACUT_CONF_PATH.lstrip("/")).read_text()
    proof.figure("staged: %s" % ", ".join(line.split()[1] for line in applied.splitlines()
                                          if line.strip().startswith("wrote")))
    proof.figure("drop-in %s: %s" % (c.DRACUT_CONF_PATH, " | ".join(
        line for line in dropin.splitlines() if not line.startswith("#"))))
    image, seconds = target_image(lab, name, upper)
    proof.figure("its dracut built %s (%.1f MB) in %.0f s" % (image.name,
                                                              image.stat().st_size / 1e6, seconds))
    listing = initramfs.lsinitrd(lab.tree, image)
    wanted = [c.DOT_CA_BUNDLE_PATH, c.NM_KEYFILE_PATH]
    if backend == "unbound":
        wanted += [c.UNBOUND_CONF_PATH, "/usr/sbin/unbound"]
    missing = [path for path in wanted if " %s" % path.lstrip("/") not in listing]
    proof.check(not missing, "lsinitrd: %s inside%s" % (", ".join(wanted), (
        "; missing " + ", ".join(missing)) if missing else ""))
    inside = initramfs.lsinitrd_file(lab.tree, image, c.NM_KEYFILE_PATH)
    staged = (upper / c.NM_KEYFILE_PATH.lstrip("/")).read_text()
    proof.check(inside == staged, "the keyfile inside is the staged one (%s)" % (
        " ".join(line for line in staged.splitlines() if line.startswith("dns="))))
    boot, frames = run_boot(proof, lab, name, [image], ["rd.neednet=1"] + STATIC_IP,
                            TARGET_CHECKS)
    counts = capture_checks(proof, frames)
    answer = boot.resolved("www.corp.example")
    if expect_resolution:
        proof.check(answer == tapnet.ANSWERS["www.corp.example"]
                    and boot.resolved("www.lab.example") == tapnet.ANSWERS["www.lab.example"],
                    "resolves over DoT: www.corp.example -> %s, www.lab.example -> %s"
                    % (answer, boot.resolved("www.lab.example")))
    else:
        proof.check(answer is None and counts.get("tcp/853", 0) > 0,
                    "nothing resolves with an unrelated CA (%s), though it tried: %d packets "
                    "to TCP 853" % (answer or "no answer", counts.get("tcp/853", 0)))
    show_failed_units(proof, boot)
    return upper


def sysusers_case(proof, lab, backend, upper):
    """Item 4: without the users created after all modules, the service's user is missing."""
    image, _ = target_image(lab, "target-%s-no-rerun" % backend, upper, sysusers_rerun=False)
    passwd = initramfs.lsinitrd_file(lab.tree, image, "/etc/passwd")
    users = [line.split(":")[0] for line in passwd.splitlines() if ":" in line]
    user = "dnsconfd" if backend == "dnsconfd" else "unbound"
    proof.check(bool(users) and user not in users,
                "trixie's dracut 106 alone leaves the %s user out of the image (%d users in "
                "its /etc/passwd): %s.service would fail (217/USER); dracut-ng 108 creates "
                "it, and so does the lab's %s" % (user, len(set(users)), user,
                                                  SYSUSERS_RERUN))


def cases(proof, lab, image):
    """[(name, run)] of the proof's cases, in order; which run depends on DNSCONFD_ROOT."""
    servers = [MAIN_SERVER, ROUTED_SERVER]
    unbound_options = "--ca=%s --backend=unbound" % CA_FILENAME
    ks_main = edns_kickstart(lab.ca.pem, servers=servers, commands=COMMANDS)
    ks_other = edns_kickstart(lab.other_ca.pem, servers=servers, commands=COMMANDS)
    ks_unbound = edns_kickstart(lab.ca.pem, unbound_options, servers, commands=COMMANDS)
    ks_unbound_other = edns_kickstart(lab.other_ca.pem, unbound_options, servers,
                                      commands=COMMANDS)
    found = []
    if lab.dnsconfd:
        found += [
            ("installer", lambda: installer_case(
                proof, lab, image, "installer", "Installer initramfs: the kickstart's CA, a "
                "routed domain, HTTPS by name (static IPv4)", ks_main, STATIC_IP, True)),
            ("installer-other-ca", lambda: installer_case(
                proof, lab, image, "installer-other-ca", "Installer initramfs: an unrelated "
                "CA", ks_other, STATIC_IP, False)),
            ("installer-dhcp", lambda: installer_case(
                proof, lab, image, "installer-dhcp", "Installer initramfs: DHCP offers a "
                "plaintext DNS server (exclusive)", ks_main, DHCP_IP, True)),
            ("installer-ipv6", lambda: installer_case(
                proof, lab, image, "installer-ipv6", "Installer initramfs: an IPv6 DoT "
                "server", edns_kickstart(lab.ca.pem, servers=[IPV6_SERVER], commands=COMMANDS),
                STATIC_IP, True,
                expect_routed=False, expected_answer=tapnet.IPV6_SERVER_ANSWER)),
            ("target-dnsconfd", lambda: sysusers_case(proof, lab, "dnsconfd", target_case(
                proof, lab, "dnsconfd", "Installed system, dnsconfd backend: apply --root, "
                "its own dracut, booted", ks_main, True))),
        ]
    else:
        found += [
            ("installer", lambda: installer_case(
                proof, lab, image, "installer", "Installer initramfs without dnsconfd: the "
                "overlay's keyfile is taken, and it fails closed", ks_main, STATIC_IP, False)),
            ("installer-dhcp", lambda: installer_case(
                proof, lab, image, "installer-dhcp", "Installer initramfs without dnsconfd: "
                "DHCP offers a plaintext DNS server (exclusive)", ks_main, DHCP_IP, False)),
            ("target-dnsconfd", lambda: proof.section(
                "Installed system, dnsconfd backend: not run (no %s)" % DNSCONFD_ENV)),
        ]
    found += [
        ("target-unbound", lambda: sysusers_case(proof, lab, "unbound", target_case(
            proof, lab, "unbound", "Installed system, unbound backend: apply --root, its own "
            "dracut, booted", ks_unbound, True))),
        ("target-unbound-other-ca", lambda: target_case(
            proof, lab, "unbound", "Installed system, unbound backend, an unrelated CA",
            ks_unbound_other, False)),
    ]
    return found


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    # --case NAME (repeatable): run only these cases (for development).
    only = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--case"]
    started = time.monotonic()
    proof = Proof()
    try:
        tree = trixie_tree.ensure_tree(log=lambda text: print(text, flush=True))
    except trixie_tree.TreeUnavailable as error:
        print("vm-proof: no trixie tree: %s" % error)
        return 1
    dnsconfd = dnsconfd_root()
    print("vm-proof: trixie tree %s (kernel %s, NetworkManager %s, dracut %s, unbound %s)" % (
        tree, trixie_tree.kernel_release(tree), trixie_tree.package_version(
            tree, "network-manager"), trixie_tree.package_version(tree, "dracut"),
        trixie_tree.package_version(tree, "unbound")))
    if dnsconfd:
        print("vm-proof: dnsconfd from %s=%s" % (DNSCONFD_ENV, dnsconfd))
    else:
        print("vm-proof: %s is not set: dnsconfd is packaged nowhere reachable, so its parts "
              "(DoT resolution in the installer's initramfs, the dnsconfd backend of the "
              "installed system) are not run; everything else is, and the installer's "
              "initramfs must fail closed" % DNSCONFD_ENV)
    workdir = Path(tempfile.mkdtemp(prefix="edns-vm-proof.", dir=str(tree.parent)))
    print("vm-proof: work directory %s" % workdir)
    image, image_seconds = initramfs.installer_image(tree, dnsconfd)
    print("vm-proof: installer-style image %s (%s)" % (
        image.name, "built in %.0f s" % image_seconds if image_seconds else "cached"))
    lab = Lab(workdir, tree, dnsconfd)
    try:
        lab.start()
        for name, case in cases(proof, lab, image):
            if not only or name in only:
                case()
    finally:
        lab.stop()
        if "--keep" not in argv:
            shutil.rmtree(workdir, ignore_errors=True)
    print("\nvm-proof: %d boots, %.0f s each on average; whole proof %.0f s%s" % (
        len(lab.boots), sum(lab.boots) / max(len(lab.boots), 1), time.monotonic() - started,
        "" if dnsconfd else " (without dnsconfd)"))
    print("vm-proof: %d passed, %d failed" % (proof.passed, proof.failed))
    return 0 if proof.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
