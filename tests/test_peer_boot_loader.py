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

"""The kernel command line's length, as Linux and GRUB bound it, and what boot-args and
overlay do about it.

Linux keeps COMMAND_LINE_SIZE bytes of command line (2048 on x86_64, aarch64 and
ppc64le, the NUL included) and tells x86 boot loaders so in its boot header
(``cmdline_size``, arch/x86/boot/header.S). GRUB's ``linux`` and ``linuxefi``
commands fill a buffer of that size with ``BOOT_IMAGE=`` and the options, and
drop each option that no longer fits, and all after it, without a word
(grub-core/lib/cmdline.c, grub_create_loader_cmdline). Past that length our
options would lose their last servers and ``rd.net.dns-backend=dnsconfd``.
"""

import glob
import os
import struct

import pytest

from lab.kickstarts import edns_section
from org_edns_addon import constants as c
from org_edns_addon import initrd
from tests.conftest import run_cli
from tests.ks_fixtures import parse

HEADER = "Linux arch/x86/boot/header.S cmdline_size"
GRUB = "GRUB (rhboot/grub2) grub-core/lib/cmdline.c grub_create_loader_cmdline"
# Where a kernel image may be: this machine's, and the Debian 13 tree the VM tests
# build (lab/vmlab/debian_tree.py: $EDNS_TRIXIE_TREE, else its default cache).
KERNEL_IMAGES = ("/boot/vmlinuz-*",
                 os.path.join(os.environ.get("EDNS_TRIXIE_TREE", "/var/cache/edns-addon/trixie"),
                              "boot", "vmlinuz-*"))


MAX_NAME = 253


# The servers below have a port of their own, which reaches dnsconfd from NetworkManager
# 1.54 on: the kickstarts are judged for such a line (Fedora 43); the older lines refuse
# the port itself (test_line_rules.py), whatever the length.
LINE = "fedora-43"


def ipv6_servers(count):
    """COUNT DoT servers by IPv6 address with a long TLS name, as big kickstarts have."""
    return ["dns+tls://[2001:db8:4000:%x::53]:8853#dot-%d.resolvers.corp.example" % (n, n)
            for n in range(count)]


def name_of_length(length):
    """A valid DNS name of exactly LENGTH characters."""
    labels = []
    while length > 64:
        labels.append("a" * 63)
        length -= 64
    return ".".join(labels + ["b" * length])


def options_of(write_ks, servers):
    """The boot options of SERVERS as the command line holds them, and the warning."""
    options, warning = initrd.boot_args(parse(write_ks(edns_section(*servers)),
                                              line=LINE).config)
    return [str(option) for option in options], warning


def test_the_limit_is_the_one_a_real_kernel_gives_its_boot_loader():
    images = sorted(path for pattern in KERNEL_IMAGES for path in glob.glob(pattern))
    if not images:
        pytest.skip("no x86 kernel image here (%s); the VM tests' Debian 13 tree has one"
                    % ", ".join(KERNEL_IMAGES))
    for image in images:
        with open(image, "rb") as stream:
            header = stream.read(0x240)
        # The x86 boot protocol: "HdrS" at 0x202, version at 0x206, cmdline_size at
        # 0x238 (protocol 2.06 and later).
        assert header[0x202:0x206] == b"HdrS", image
        assert struct.unpack_from("<H", header, 0x206)[0] >= 0x206, image
        assert struct.unpack_from("<I", header, 0x238)[0] == c.KERNEL_COMMAND_LINE_MAX_BYTES


@pytest.mark.parametrize("length, outcome", [
    pytest.param(c.KERNEL_COMMAND_LINE_MAX_BYTES - c.BOOT_LOADER_OPTIONS_RESERVE_BYTES,
                 "fits", id=GRUB + ": room left for BOOT_IMAGE= and the installer's options"),
    pytest.param(c.KERNEL_COMMAND_LINE_MAX_BYTES - c.BOOT_LOADER_OPTIONS_RESERVE_BYTES + 1,
                 "warned", id=GRUB + ": too little room left"),
    pytest.param(c.KERNEL_COMMAND_LINE_MAX_BYTES, "warned", id=HEADER + ": the last byte"),
    pytest.param(c.KERNEL_COMMAND_LINE_MAX_BYTES + 1, "refused", id=HEADER + ": one byte more"),
])
def test_boot_options_of_a_length(write_ks, length, outcome):
    servers = ipv6_servers(8)
    options, _ = options_of(write_ks, servers)
    # Stretch TLS names (to 253 characters at most) until the options are LENGTH bytes.
    missing = length - len(" ".join(options))
    for n, server in enumerate(servers):
        name = server.rpartition("#")[2]
        added = min(missing, MAX_NAME - len(name))
        servers[n] = server.replace(name, name_of_length(len(name) + added))
        missing -= added
    assert missing == 0
    if outcome == "refused":
        with pytest.raises(initrd.BootOptionsError) as refused:
            options_of(write_ks, servers)
        assert str(refused.value).startswith(
            "these boot options take %d bytes, more than the %d a kernel command line holds"
            % (length, c.KERNEL_COMMAND_LINE_MAX_BYTES))
        return
    options, warning = options_of(write_ks, servers)
    assert len(" ".join(options)) == length
    assert (warning is not None) == (outcome == "warned")


def test_forty_ipv6_servers_are_refused_by_boot_args_and_overlay_with_figures(
        write_ks, tmp_path):
    path = write_ks(edns_section(*ipv6_servers(40)))
    for command in (["boot-args", path], ["overlay", path, "-o", "overlay.img"]):
        result = run_cli(*command, "--line=" + LINE, cwd=tmp_path)
        assert result.returncode == 1
        assert result.stdout == ""
        assert "these boot options take " in result.stderr
        assert "more than the 2047 a kernel command line holds" in result.stderr
    assert not (tmp_path / "overlay.img").exists()


def test_twenty_ipv6_servers_are_printed_with_a_warning(write_ks, tmp_path):
    path = write_ks(edns_section(*ipv6_servers(20)))
    result = run_cli("boot-args", path, "--line=" + LINE, cwd=tmp_path)
    assert result.returncode == 0
    printed = result.stdout.strip()
    assert printed.count("rd.net.dns=") == 20
    assert result.stderr.splitlines()[0] == "%s: warning: these boot options take %d of the " \
        "2047 bytes a kernel command line holds, leaving %d for the boot loader's BOOT_IMAGE= " \
        "and the installer's own options (inst.stage2=, inst.repo=, ip=, console=); GRUB " \
        "drops every option past the limit without a word" % (
            path, len(printed), 2047 - len(printed))
    result = run_cli("overlay", path, "-o", "overlay.img", "--line=" + LINE, cwd=tmp_path)
    assert result.returncode == 0
    assert "warning: these boot options take" in result.stderr
    assert (tmp_path / "overlay.img").exists()
