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

"""`make vm-bench`: the boot-time cost of encrypted DNS, in booted images (issue 21 item 1).

    DNSCONFD_ROOT=DIR python3 -m lab.vmlab.bench [--boots N] [--part installer|target]

In one run, on the VM tier's lab (lab/vmlab/checks.py's network, servers and
images), boots alternately, N times each (default 5):

- the installer's initramfs (the same cached image): with the overlay and the
  boot options (DoT through dnsconfd and Unbound), against the same image with
  neither, resolving in plaintext with NetworkManager's default DNS
  (``nameserver=`` on the command line, the lab's plaintext server answering the
  same names);
- the installed system's initramfs, staged by ``edns-addon apply --root`` with
  each backend and built by the tree's own dracut with our drop-in, against the
  same root unstaged, in plaintext as above.

Each boot measures, from the guest's own clock (kernel start = uptime 0): when the
proof unit started, which is after NetworkManager's ``nm-wait-online-initrd``
(network-online) and the resolver's units, and when ``getent hosts`` first
answered (polled every 0.1 s). Prints the medians, their ratio and difference in
seconds. A boot counts only if it shows what it was meant to: the right answer,
and over DoT a SYN to port 853 and nothing to port 53, in plaintext packets to
the plaintext server's port 53 and no SYN to 853; otherwise the benchmark ends
with exit 1. Never fails on a time. Exit 2 when it cannot run (no root, no tree,
no DNSCONFD_ROOT: without dnsconfd nothing answers over DoT in the installer).
"""

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lab.kickstarts import CA_FILENAME, edns_kickstart
from lab.vmlab import cases, checks, debian_tree, guest, initramfs, site, tapnet
from org_edns_addon import constants as c

EXIT_FAILED = 1
EXIT_CANNOT_RUN = 2
GOAL = 1.10
FIRST_ANSWER_SECONDS = 60
# The first answer: polled from the moment the proof unit starts.
CHECKS = """\
address %(iface)s
first_deadline=$(( $(cut -d. -f1 /proc/uptime) + %(seconds)d ))
while :; do
    answer=$(timeout 5 getent hosts %(name)s | head -n 1 | tr -s ' ' ' ')
    [ -n "$answer" ] && break
    [ "$(cut -d. -f1 /proc/uptime)" -ge "$first_deadline" ] && break
    sleep 0.1
done
say "first-answer $(cut -d' ' -f1 /proc/uptime) $answer"
""" % {"iface": site.GUEST_INTERFACE, "name": site.TEST_NAME, "seconds": FIRST_ANSWER_SECONDS}
PLAINTEXT_IP = checks.STATIC_IP + ["nameserver=%s" % site.PLAINTEXT_DNS]


class BadBoot(Exception):
    """A boot did not show what it was meant to; the message says what it showed."""


def one_boot(lab, name, images, options, dot):
    """(network-online uptime, first-answer uptime) of one boot, after checking it."""
    capture_path = lab.workdir / ("%s.pcap" % name)
    tcpdump = lab.network.start_capture(capture_path)
    try:
        boot = guest.boot(lab.network, lab.tree, lab.kernel,
                          list(images) + [guest.proof_cpio(CHECKS)], options, lab.workdir,
                          name)
    finally:
        lab.network.stop_capture(tcpdump)
    frames = tapnet.read_capture(capture_path)
    line = next((line for line in boot.lines if line.startswith("first-answer ")), "")
    match = re.match(r"first-answer (\S+) (\S+)", line)
    answer = match.group(2) if match else None
    syn_853 = [f for f in frames if f.syn and f.port == c.DOT_PORT]
    to_53 = [f for f in frames if f.port == 53 and f.kind in ("tcp", "udp")]
    plain = [f for f in to_53 if f.destination == site.PLAINTEXT_DNS]
    expected = site.ANSWERS[site.TEST_NAME]
    if dot:
        ok = answer == expected and syn_853 and not to_53
    else:
        ok = answer == expected and plain and not syn_853
    shown = "answer %s, %d SYN to 853, %d packets to port 53 (%d to %s)" % (
        answer or "none", len(syn_853), len(to_53), len(plain), site.PLAINTEXT_DNS)
    if not ok:
        tail = "\n".join(boot.serial.splitlines()[-checks.SERIAL_TAIL:])
        raise BadBoot("%s: %s (expected %s, %s)\n%s" % (
            name, shown, expected, "over DoT, nothing to port 53" if dot else
            "in plaintext from %s, no DoT" % site.PLAINTEXT_DNS, tail))
    return boot.guest_uptime, float(match.group(1)), shown


def print_pair(title, dot_label, results, baseline):
    """Medians of both sides, their ratio and difference."""
    for what, index in (("network-online (the proof unit started)", 0),
                        ("first answer", 1)):
        ours = statistics.median(r[index] for r in results)
        theirs = statistics.median(r[index] for r in baseline)
        print("  %-40s %s median %6.2f s, plaintext %6.2f s: ratio %.2f, %+.2f s%s" % (
            what + ":", dot_label, ours, theirs, ours / theirs, ours - theirs,
            " (goal <= %.2f: %s)" % (GOAL, "met" if ours / theirs <= GOAL else "not met")
            if index == 1 else ""))
    print("  boots (online/answer, s): %s: %s; plaintext: %s" % (
        dot_label, " ".join("%.1f/%.1f" % r[:2] for r in results),
        " ".join("%.1f/%.1f" % r[:2] for r in baseline)))


def alternate(boots, dot_boot, plain_boot):
    dot, plain = [], []
    for run in range(boots):
        order = ((dot_boot, dot), (plain_boot, plain))
        for boot, into in (order if run % 2 == 0 else order[::-1]):
            into.append(boot(run))
            print("    %s" % into[-1][2], flush=True)
    return dot, plain


def installer_part(lab, image, boots):
    ks_text = edns_kickstart(lab.ca.pem, "--resolve-mode=%s --ca=%s" % (checks.MODE, CA_FILENAME),
                             [site.MAIN_SERVER, site.ROUTED_SERVER], commands=checks.COMMANDS)
    ks = lab.write_ks("bench-installer", ks_text)
    overlay = lab.workdir / "bench-installer-overlay.img"
    checks.cli("overlay", ks, "-o", overlay)
    boot_args = checks.cli("boot-args", ks).stdout.split()
    print("\nInstaller initramfs %s: overlay + %s, against the same image, no overlay, "
          "%s" % (image.name, " ".join(boot_args), " ".join(PLAINTEXT_IP)), flush=True)
    dot, plain = alternate(
        boots,
        lambda run: one_boot(lab, "installer-dot-%d" % run, [image, overlay],
                             boot_args + ["rd.neednet=1"] + checks.STATIC_IP, True),
        lambda run: one_boot(lab, "installer-plain-%d" % run, [image],
                             ["rd.neednet=1"] + PLAINTEXT_IP, False))
    print_pair("installer", "DoT (dnsconfd)", dot, plain)


def target_part(lab, boots):
    servers = [site.MAIN_SERVER, site.ROUTED_SERVER]
    base = "--resolve-mode=%s --ca=%s" % (checks.MODE, CA_FILENAME)
    images = {}
    for backend, options in (("dnsconfd", base), ("unbound", base + " --backend=unbound")):
        if backend == "dnsconfd" and not lab.dnsconfd:
            continue
        upper, _ = cases.stage_target(lab, "bench-target-%s" % backend,
                                      edns_kickstart(lab.ca.pem, options, servers,
                                                     commands=checks.COMMANDS))
        images[backend], seconds = cases.target_image(lab, "bench-target-%s" % backend, upper)
        print("  built the %s target's image (%.1f MB) in %.0f s" % (
            backend, images[backend].stat().st_size / 1e6, seconds), flush=True)
    plain_image = lab.workdir / "bench-target-plain.img"
    add = checks.TARGET_LAB_MODULES + (checks.SYSUSERS_RERUN,)
    seconds = initramfs.dracut(lab.tree, lab.layers(), plain_image,
                               modules=checks.TARGET_BASE_MODULES, add=add)
    print("  built the unstaged target's image (%.1f MB) in %.0f s" % (
        plain_image.stat().st_size / 1e6, seconds), flush=True)
    for backend, image in images.items():
        print("\nInstalled system's initramfs, %s backend (apply --root, our drop-in), against "
              "the same root unstaged, %s" % (backend, " ".join(PLAINTEXT_IP)), flush=True)
        dot, plain = alternate(
            boots,
            lambda run, backend=backend, image=image: one_boot(
                lab, "target-%s-%d" % (backend, run), [image],
                ["rd.neednet=1"] + checks.STATIC_IP, True),
            lambda run, backend=backend: one_boot(
                lab, "target-plain-%s-%d" % (backend, run), [plain_image],
                ["rd.neednet=1"] + PLAINTEXT_IP, False))
        print_pair("target", "DoT (%s)" % backend, dot, plain)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="vm-bench", description=__doc__.split("\n")[0])
    parser.add_argument("--boots", type=int, default=5, help="boots of each side")
    parser.add_argument("--part", choices=("installer", "target"), action="append",
                        default=[], help="only this part (repeatable)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    parts = args.part or ["installer", "target"]
    if os.geteuid() != 0:
        print("vm-bench: not run: it needs root (namespaces, a tap, dracut)")
        return EXIT_CANNOT_RUN
    try:
        tree = debian_tree.ensure_tree(debian_tree.selected_suite(),
                                       log=lambda text: print(text, flush=True))
    except debian_tree.TreeUnavailable as error:
        print("vm-bench: not run: no tree: %s" % error)
        return EXIT_CANNOT_RUN
    dnsconfd = checks.dnsconfd_root()
    if "installer" in parts and not dnsconfd:
        print("vm-bench: not run: the installer's DoT needs dnsconfd (give %s)"
              % checks.DNSCONFD_ENV)
        return EXIT_CANNOT_RUN
    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="edns-vm-bench.", dir=str(tree.parent)))
    print("vm-bench: %d boots of each side; work directory %s%s" % (
        args.boots, workdir, "; dnsconfd from %s" % dnsconfd if dnsconfd else ""), flush=True)
    lab = checks.Lab(workdir, tree, dnsconfd, plaintext_corp=True)
    try:
        lab.start()
        if "installer" in parts:
            image, _ = initramfs.installer_image(tree, dnsconfd)
            installer_part(lab, image, args.boots)
        if "target" in parts:
            target_part(lab, args.boots)
    except BadBoot as error:
        print("vm-bench: a boot did not show what it was meant to: %s" % error)
        return EXIT_FAILED
    finally:
        lab.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print("\nvm-bench: %.0f s" % (time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
