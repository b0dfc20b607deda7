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

"""The installer initrd overlay: a gzip'd newc cpio the kernel unpacks over the installer's.

The overlay holds the kickstart in its ``%addon`` form (stock Anaconda's
``parse-kickstart`` reads all of it), the certificates, the DoT CA bundle and
the DoT configuration of the installer phase, all owned by root, and a dracut
pre-pivot hook that copies those files (not the kickstart) into the installer's
root before switch-root: the initramfs's /etc does not survive it, and stage
2's NetworkManager starts after it, long before the module's
``ConfigureWithTasks`` (see ``pre_pivot_hook``). The archive
is built in memory from the plan (no temporary tree) and is the same, byte
for byte, as ``cpio --create --format=newc --owner=0:0 --reproducible`` makes
of that tree: entries sorted, timestamps fixed, inode numbers counted from 0;
gzip carries no time stamp. So the same kickstart always gives the same bytes.
"""

import gzip
import io
import shlex
import stat

from org_edns_addon import constants as c
from org_edns_addon.confinement import RootError, file_name_bytes, path_components
from org_edns_addon.i18n import P_, _
from org_edns_addon.ks.convert import converted_bytes, fixed_by_conversion
from org_edns_addon.ks.source import iter_lines
from org_edns_addon.staging.networkmanager import BootOption, boot_options
from org_edns_addon.staging.plan import (Phase, Plan, PlannedFile, build_plan, initramfs_input,
                                         unbound_dropin_file)

# The kickstart may hold password hashes: only root reads it, in the overlay and in
# the image file that carries it.
KICKSTART_MODE = 0o600
IMAGE_MODE = 0o600
# dracut runs (sources) every *.sh of $hookdir/pre-pivot before switch-root, after the
# root is mounted at $NEWROOT. dracut-lib.sh sets hookdir=/lib/dracut/hooks up to
# dracut-ng 109, and /var/lib/dracut/hooks from 110 on (dracut-ng 7dcc0ad1 "finalize
# transition to /var/lib/dracut/hooks"), whose images no longer link /lib/dracut/hooks
# there (modules.d/80base/module-setup.sh: 108 and 109 still "symlink to old hooks
# location for compatibility"). The parents in the images: /lib -> usr/lib everywhere;
# usr/lib/dracut/hooks -> ../../../var/lib/dracut/hooks from dracut-ng 103 to 109; a real
# /lib/dracut/hooks and no /var/lib/dracut/hooks in EL9's dracut 057; a real
# /var/lib/dracut/hooks and no usr/lib/dracut/hooks from 110 on. The kernel, unpacking a
# directory entry over a symlink, removes the symlink first (init/initramfs.c,
# clean_path), which would empty every hook directory; a file entry follows them, and is
# left out when its directory does not exist (do_name: filp_open fails). So the archive
# holds the hook file alone, never its directories, at both places: each image keeps the
# one its dracut reads (from 103 to 109 both are that one file).
# 93: after Anaconda's own certificate copy (92, anaconda-copy-certs.sh on main).
PRE_PIVOT_HOOK_PATHS = ("/lib/dracut/hooks/pre-pivot/93-edns-addon.sh",
                        "/var/lib/dracut/hooks/pre-pivot/93-edns-addon.sh")
IMAGE_DIRECTORIES = ("lib", "lib/dracut", "lib/dracut/hooks", "lib/dracut/hooks/pre-pivot",
                     "var", "var/lib", "var/lib/dracut", "var/lib/dracut/hooks",
                     "var/lib/dracut/hooks/pre-pivot")
PRE_PIVOT_HOOK_MODE = 0o755


class OverlayError(Exception):
    """The overlay cannot be built; the message is a sentence for users."""


class BootOptionsError(OverlayError):
    """An initramfs cannot be given this configuration; the message says why."""


def check_initramfs_servers(servers):
    """Refuse SERVERS an initramfs cannot reach.

    NetworkManager's initramfs speaks DoT only through its dnsconfd plugin
    (``rd.net.dns-backend=dnsconfd``), and that plugin hands a ``[global-dns]``
    server to dnsconfd without its interface (NetworkManager
    src/core/dns/nm-dns-dnsconfd.c, parse_global_config), so a link-local
    server is unreachable there whatever ``--backend`` says.
    """
    link_local = [server.uri() for server in servers if server.is_link_local]
    if link_local:
        raise BootOptionsError(
            P_("the initramfs cannot use the link-local server %s: it speaks DoT only "
               "through NetworkManager's dnsconfd plugin, which drops the interface; give "
               "the initramfs a server by its global address",
               "the initramfs cannot use the link-local servers %s: it speaks DoT only "
               "through NetworkManager's dnsconfd plugin, which drops the interface; give "
               "the initramfs servers by their global addresses",
               len(link_local)) % ", ".join(link_local))


def check_command_line(options):
    """Refuse OPTIONS that no kernel command line holds; a warning sentence when they
    leave too little room for the boot loader's and the installer's own, else None."""
    length = len(" ".join(map(str, options)).encode("utf-8"))
    limit = c.KERNEL_COMMAND_LINE_MAX_BYTES
    if length > limit:
        raise BootOptionsError(
            _("these boot options take %d bytes, more than the %d a kernel command line holds "
            "(Linux's COMMAND_LINE_SIZE on x86_64, aarch64 and ppc64le); GRUB drops every "
            "option past that without a word: give fewer servers without domain= (the "
            "routed ones are not boot options)") % (length, limit))
    if length > limit - c.BOOT_LOADER_OPTIONS_RESERVE_BYTES:
        return (_("these boot options take %d of the %d bytes a kernel command line holds, "
                "leaving %d for the boot loader's BOOT_IMAGE= and the installer's own "
                "options (inst.stage2=, inst.repo=, ip=, console=); GRUB drops every option "
                "past the limit without a word") % (length, limit, limit - length))
    return None


def boot_args(config):
    """(the kernel options for DoT in an initramfs, a warning sentence or None).

    BootOptionsError if an initramfs cannot use them.
    """
    check_initramfs_servers(config.default_servers)
    options = boot_options(config)
    return options, check_command_line(options)


def _ksappend_line(text):
    """The number of the first line pykickstart's preprocessor reads as ``%ksappend``
    (parser._preprocessStateMachine: a line that starts so once stripped), or None."""
    if "%ksappend" not in text:
        return None   # the common case, without a pass over every line
    for number, line in enumerate(iter_lines(text), 1):
        if line.strip().startswith("%ksappend"):
            return number
    return None


def read_later(parsed):
    """The ``%include``s the installer reads after the overlay's kickstart: files missing
    here, which a ``%pre`` script writes (the overlay keeps their lines as they are)."""
    return list(parsed.missing_includes)


def overlay_kickstart(parsed):
    """The kickstart text, as UTF-8, with every top-level ``%edns`` rewritten as
    ``%addon``.

    An ``%include`` that is followed here, or a ``%ksappend``, is refused: inside the
    initrd it would name a file of this machine, or fetch one. Decided on what
    pykickstart itself read (the reader records every ``%include``, however it was
    quoted), not on text. An ``%include`` of a file that does not exist here stays as
    it is: the installer reads the kickstart without it in its initramfs
    (dracut/parse-kickstart, ``missingIncludeIsFatal=False``) and with it after
    ``%pre`` wrote it (``ParsedKickstart.unread_parts`` says when the overlay needs what
    it holds; ``staging_input`` refuses then).
    """
    text = parsed.text
    missing = [item.include for item in parsed.missing_includes]
    found = [(include.filename, include.lineno, include.target) for include in parsed.includes
             if include not in missing]
    ksappend = _ksappend_line(text)
    if ksappend is not None:
        found.append((parsed.filename, ksappend, None))
    if found:
        filename, lineno, target = min(found, key=lambda place: (place[0] != parsed.filename,
                                                                  place[1]))
        word = "%ksappend" if target is None else "%include"
        if target is None or not missing:
            raise OverlayError(_("%s:%d: %s cannot be followed inside the initrd; flatten the "
                                 "kickstart first (ksflatten -c %s -o flat.ks)")
                               % (filename, lineno, word, parsed.filename))
        first = missing[0]
        raise OverlayError(_("%s:%d: %%include cannot be followed inside the initrd; put the "
                             "lines of %s in place of this line (ksflatten cannot: it stops "
                             "at %s:%d, an %%include of %s, which does not exist here)")
                           % (filename, lineno, target, first.filename, first.lineno,
                              first.target))
    headers = [place.lineno for place in parsed.edns_places
               if place.spelling == c.SECTION_OPEN and place.filename == parsed.filename]
    return converted_bytes(text, headers)


def pre_pivot_hook(files):
    """The pre-pivot hook that copies FILES (``PlannedFile``s) from the initramfs into
    the installer's root, at their paths and with the plan's modes.

    Anaconda carries only the ``%certificate`` files across switch-root
    (anaconda-copy-certs.sh on main, anaconda-import-initramfs-certs after it on
    every line); the keyfile and the bundle would be gone until the module's
    ``ConfigureWithTasks``, and stage 2's NetworkManager, its payload set-up
    included, would run without them. dracut sources the hook in its own shell,
    so it sets no option and ends with nothing but its own variables unset. The
    paths were validated (no newline, no ``..``) and are quoted for the shell.
    """
    lines = ["# Written by org_edns_addon: copy the installer phase's files from the "
             "initramfs", "# into the installer's root before switch-root (its /etc "
             "does not survive it).",
             '_edns_root="${NEWROOT:-/sysroot}"',
             "_edns_copy() {",
             '    if [ -f "$1" ] && mkdir -p "$_edns_root${1%/*}" && cp "$1" "$_edns_root$1" \\',
             '            && chmod "$2" "$_edns_root$1"; then',
             "        return 0",
             "    fi",
             '    echo "edns-addon: could not copy $1 into $_edns_root" >&2',
             "}"]
    lines += ["_edns_copy %s %o" % (shlex.quote(planned.path), planned.mode) for planned in files]
    lines += ["unset -f _edns_copy", "unset _edns_root"]
    return ("\n".join(lines) + "\n").encode("utf-8")


def overlay_plan(parsed):
    """The files of the overlay: the installer phase as its initramfs runs it, the hook
    that carries them into the installer's root, and the kickstart."""
    # The overlay holds the kickstart rewritten (overlay_kickstart): a top-level %edns
    # is no error in what the installer reads.
    data = initramfs_input(parsed.staging_input(ignored=fixed_by_conversion(parsed)))
    check_initramfs_servers(data.config.servers)
    files = build_plan(data, Phase.INSTALLER, "/").files
    hook = pre_pivot_hook(files)
    hooks = tuple(PlannedFile(path, hook, PRE_PIVOT_HOOK_MODE) for path in PRE_PIVOT_HOOK_PATHS)
    # For the initramfs alone (inert after switch-root, so the hook leaves it behind).
    files += (unbound_dropin_file(),)
    kickstart = PlannedFile(c.OVERLAY_KICKSTART_PATH, overlay_kickstart(parsed), KICKSTART_MODE)
    return Plan(Phase.INSTALLER, files + hooks + (kickstart,), ())


_NEWC_MAGIC = b"070701"
_NEWC_TRAILER = b"TRAILER!!!"
_NEWC_BLOCK = 512     # cpio pads the whole archive to its block size


def _newc_entry(ino, mode, nlink, name, data):
    """One newc entry: the header's 13 fields in hex, the name and the data, each
    padded to 4 bytes."""
    fields = (ino, mode, 0, 0, nlink, c.OVERLAY_MTIME, len(data), 0, 0, 0, 0, len(name) + 1, 0)
    header = _NEWC_MAGIC + b"".join(b"%08X" % value for value in fields) + name + b"\0"
    return [header, b"\0" * (-len(header) % 4), data, b"\0" * (-len(data) % 4)]


def newc_archive(files, image_directories=()):
    """``newc_chunks`` as one bytes value."""
    return b"".join(newc_chunks(files, image_directories))


def newc_chunks(files, image_directories=()):
    """A deterministic newc cpio of FILES (``PlannedFile``s, paths below a root) and the
    directories that hold them (mode 0755), every entry owned by root, except
    IMAGE_DIRECTORIES (paths below the root): those the image it lands on has, which
    may be symlinks there, are left out; in pieces, which hold each file's content
    as it is (never a copy of it)."""
    skipped = {tuple(part.encode() for part in path.split("/")) for path in image_directories}
    contents = {}
    directories = {}     # components (bytes) -> number of subdirectories
    for planned in files:
        try:
            parts = tuple(file_name_bytes(part) for part in path_components(planned.path))
        except RootError as error:
            raise OverlayError(str(error)) from None
        if parts in contents:
            raise OverlayError(_("%s is planned twice") % planned.path)
        contents[parts] = planned
        for depth in range(1, len(parts)):   # a loop, not recursion: a --dir may be deep
            directory = parts[:depth]
            if directory in skipped:
                continue
            if directory not in directories:
                directories[directory] = 0
                if depth > 1 and parts[:depth - 1] in directories:
                    directories[parts[:depth - 1]] += 1
    for parts in contents:
        if parts in directories:
            raise OverlayError(_("%s is planned as a file and as the directory of another "
                               "file") % contents[parts].path)
    entries = sorted([(b"/".join(parts), parts) for parts in list(contents) + list(directories)])
    chunks = []
    for ino, (name, parts) in enumerate(entries):
        if parts in directories:
            chunks += _newc_entry(ino, stat.S_IFDIR | c.DIR_MODE, 2 + directories[parts],
                                  name, b"")
        else:
            planned = contents[parts]
            chunks += _newc_entry(ino, stat.S_IFREG | planned.mode, 1, name, planned.content)
    chunks += _newc_entry(0, 0, 1, _NEWC_TRAILER, b"")
    size = sum(len(chunk) for chunk in chunks)
    chunks.append(b"\0" * (-size % _NEWC_BLOCK))
    return chunks


def overlay_image(plan):
    """The overlay image (gzip'd newc cpio) of PLAN (from ``overlay_plan``)."""
    # The archive is never made whole: the kickstart in it may be 16 MiB.
    return gzipped(newc_chunks(plan.files, IMAGE_DIRECTORIES))


def gzipped(data):
    """DATA (bytes, or an iterable of bytes) gzip'd with no time stamp and no name, in
    the same header on every Python: gzip.compress() writes zlib's own header (OS 3) on
    3.11 and 3.12, GzipFile's (OS 255) on 3.9 and 3.13, so the same kickstart would give
    other bytes elsewhere."""
    image = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=image,
                       mtime=0) as stream:
        for chunk in ([data] if isinstance(data, (bytes, bytearray)) else data):
            stream.write(chunk)
    return image.getvalue()


def overlay_boot_options(config):
    """Kernel options to boot the installer with the overlay, as ``BootOption``s."""
    return ([BootOption(c.BOOT_OPTION_KICKSTART, "file:" + c.OVERLAY_KICKSTART_PATH),
             BootOption(c.BOOT_OPTION_NEEDNET, "1")] + boot_options(config))
