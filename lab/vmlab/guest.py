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

"""Boot a kernel and initramfs in qemu (TCG) on the tap, and read the proof back.

The image booted is ``base + appended cpios``: the kernel unpacks each in turn,
so ``edns-addon overlay``'s image and the per-run proof script land over the
base image, as on an installer's ``initrd=initrd.img,overlay.img``.
"""

import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List

from lab.vmlab import site

# TCG boots the image to the proof in about 40 s on 2 idle cores, and several times that
# beside other work. A guest is cut when its console has said nothing for STALL_SECONDS
# (stuck), or at BOOT_CEILING_SECONDS whatever it says (a loop): bounds against a hang
# that restart on the guest's own progress, not a guess at how long a boot takes.
STALL_SECONDS = 240
BOOT_CEILING_SECONDS = 1800
# The exit status of a guest cut by either bound (timeout(1)'s, which the checks name).
CUT_STATUS = 124
MEMORY_MB = 1024
# Anywhere in a line: stage 2's systemd writes terminal queries before a service's first
# line on the console.
_PROOF_LINE = re.compile(r"EDNS-PROOF (.*)$", re.MULTILINE)


def proof_cpio(script_text, files=None):
    """A gzip'd newc archive with /etc/edns-proof/run.sh (the proof module runs it) and
    FILES ({path below /: bytes})."""
    return cpio(dict(files or {}, **{"etc/edns-proof/run.sh": script_text.encode()}))


def cpio(files):
    """A gzip'd newc archive of FILES ({path below /: bytes}) and their directories, all
    owned by root.

    Compressed: the kernel does not find an uncompressed archive right after a
    zstd one (dracut's), but does after a gzip one.
    """
    import gzip
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="edns-proof.") as tree:
        names = set()
        for path, content in files.items():
            target = os.path.join(tree, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as out:
                out.write(content)
            parts = path.split("/")
            names.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
        archive = subprocess.run(["cpio", "--create", "--format=newc", "--owner=0:0",
                                  "--quiet", "--null"],
                                 input=b"".join(name.encode() + b"\0" for name in sorted(names)),
                                 cwd=tree, capture_output=True, check=True, timeout=60).stdout
        return gzip.compress(archive, mtime=0)


@dataclass
class Boot:
    """What one boot showed: the proof lines, the serial log, timings."""
    lines: List[str]
    serial: str
    seconds: float           # qemu start to power-off
    guest_uptime: float      # guest's uptime when the proof began (kernel to network up)
    exit_code: int
    results: Dict[str, str] = field(default_factory=dict)

    def resolved(self, name):
        """The address NAME resolved to, or None."""
        for line in self.lines:
            match = re.match(r"resolve %s ok (\S+)" % re.escape(name), line)
            if match:
                return match.group(1)
        return None

    def fetched(self, url, pinned=False):
        """(ok, sha256 or curl's error) of the fetch of URL (PINNED: by address)."""
        label = "fetch-pinned" if pinned else "fetch"
        for line in self.lines:
            match = re.match(r"%s %s (ok|fail) ?(.*)" % (label, re.escape(url)), line)
            if match:
                return match.group(1) == "ok", match.group(2)
        return False, "no result"

    def librepo(self, url):
        """(ok, "REVISION PRIMARY-SHA256" or librepo's error) of the repository fetch of
        URL (lab/vmlab/stage2/edns-librepo-fetch.py), or (False, "no result")."""
        for line in self.lines:
            match = re.match(r"librepo %s (ok|fail) ?(.*)" % re.escape(url), line)
            if match:
                return match.group(1) == "ok", match.group(2)
        return False, "no result"

    def addresses(self, interface):
        """The addresses (without prefix length) INTERFACE had when the proof ran."""
        for line in self.lines:
            if line.startswith("address %s " % interface):
                return [word.split("/")[0] for word in line.split()[2:] if "/" in word]
        return []

    def digest(self, path):
        """The sha256 of PATH in the guest, "absent", or None if not asked."""
        for line in self.lines:
            if line.startswith("digest %s " % path):
                return line.split()[2]
        return None

    def journal_matches(self, pattern):
        """(how many journal lines matched PATTERN, the first) from ``grep_journal``."""
        for line in self.lines:
            match = re.match(r"journal-grep (\d+) %s :: ?(.*)" % re.escape(pattern), line)
            if match:
                return int(match.group(1)), match.group(2)
        return 0, ""

    def online(self):
        for line in self.lines:
            if line.startswith("online "):
                return line.split()[1]
        return None

    def file_lines(self, path):
        """The lines `show PATH` printed (or, for "journal", those `journal` printed)."""
        prefix = "journal: " if path == "journal" else "file %s: " % path
        return [line[len(prefix):] for line in self.lines if line.startswith(prefix)]

    def unit(self, name):
        for line in self.lines:
            if line.startswith("unit %s " % name):
                return dict(part.split("=", 1) for part in line.split()[2:] if "=" in part)
        return {}

    def global_dns(self):
        return self._busctl_json("nm-global-dns ")

    def dns_config(self):
        """NetworkManager's DnsManager Configuration (a list of {nameservers, domains,
        interface, ...}), or None if it was not read."""
        return self._busctl_json("nm-dns-config ")

    def _busctl_json(self, prefix):
        import json

        from lab.vmlab.networkmanager import _plain

        for line in self.lines:
            if line.startswith(prefix):
                try:
                    return _plain(json.loads(line[len(prefix):]))
                except ValueError:
                    return None
        return None

    def step(self, name):
        """The Boot of the lines between "step NAME" and the next step (stage 2)."""
        inside, lines = False, []
        for line in self.lines:
            if line.startswith("step "):
                inside = line == "step %s" % name
                continue
            if inside:
                lines.append(line)
        return Boot(lines, "", self.seconds, self.guest_uptime, self.exit_code)

    def serial_matches(self, pattern):
        return re.findall(pattern, self.serial, re.MULTILINE)


def _run_while_the_console_moves(argv, serial):
    """Run the guest ARGV until it ends; cut it (CUT_STATUS) when its console SERIAL has
    not grown for STALL_SECONDS, or at BOOT_CEILING_SECONDS. Its exit status."""
    from lab.dotlab import _die_with_parent, stop_process

    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=_die_with_parent)
    started = moved = time.monotonic()
    size = 0
    try:
        while process.poll() is None:
            now = time.monotonic()
            grown = serial.stat().st_size if serial.exists() else 0
            if grown != size:
                size, moved = grown, now
            if now - moved > STALL_SECONDS or now - started > BOOT_CEILING_SECONDS:
                stop_process(process)
                return CUT_STATUS
            time.sleep(0.5)
    finally:
        stop_process(process)
    return process.returncode


def boot(network, tree, kernel, images, kernel_options, workdir, name, disks=()):
    """Boot KERNEL with IMAGES concatenated, on NETWORK's tap; return the Boot.

    DISKS are raw images given as virtio disks (/dev/vda, ...) with snapshot=on: the
    guest writes to a throw-away layer, the image itself stays as it was.

    ``tsc=unstable``: under TCG the guest's TSC drifts from its HPET whenever the
    host is busy, so the clocksource watchdog marks the TSC unstable some seconds
    into the boot, and the kernel then patches the sched_clock static key while
    the other vCPU is running through it: "Oops: int3" in sched_clock_cpu, a
    panic, and a guest that powers off before the proof (2 boots in 9 here; none
    in 16 in a row with it, nor in any vm-proof since).
    Deciding it at boot leaves nothing to patch at run time.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    initrd = workdir / ("%s.initrd" % name)
    with open(initrd, "wb") as out:
        for image in images:
            out.write(Path(image).read_bytes() if isinstance(image, (str, Path)) else image)
    serial = workdir / ("%s.serial.log" % name)
    if serial.exists():
        serial.unlink()
    argv = ["qemu-system-x86_64", "-accel", "tcg", "-smp", "2", "-m", str(MEMORY_MB),
            "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
            "-kernel", str(kernel), "-initrd", str(initrd),
            "-append", " ".join(["console=ttyS0", "panic=-1", "rd.shell=0",
                                 "rd.emergency=poweroff", "tsc=unstable"]
                                + list(kernel_options)),
            "-serial", "file:%s" % serial,
            "-netdev", "tap,id=n0,ifname=%s,script=no,downscript=no" % site.TAP,
            "-device", "virtio-net-pci,netdev=n0,mac=%s" % site.GUEST_MAC]
    for disk in disks:
        argv += ["-drive", "file=%s,format=raw,if=virtio,snapshot=on" % disk]
    started = time.monotonic()
    returncode = _run_while_the_console_moves(network.command(argv), serial)
    seconds = time.monotonic() - started
    text = serial.read_text(errors="replace") if serial.exists() else ""
    lines = [line.rstrip("\r") for line in _PROOF_LINE.findall(text)]
    uptime = next((float(line.split()[2]) for line in lines if line.startswith("begin uptime")),
                  float("nan"))
    initrd.unlink()
    return Boot(lines, text, seconds, uptime, returncode)
