"""The installer initrd overlay: a gzip'd newc cpio the kernel unpacks over the installer's.

The overlay holds the kickstart in its ``%addon`` form (stock Anaconda's
``parse-kickstart`` reads all of it), the certificates, the DoT CA bundle and
the DoT configuration of the installer phase, all owned by root. The same
kickstart always gives the same bytes: entries are sorted, timestamps fixed,
inode numbers renumbered, and gzip carries no time stamp.
"""

import gzip
import os
import re
import subprocess

from org_edns_addon import constants as c
from org_edns_addon.fileio import temporary_directory
from org_edns_addon.ks.convert import convert_text
from org_edns_addon.staging.apply import apply_plan
from org_edns_addon.staging.networkmanager import boot_options
from org_edns_addon.staging.plan import Phase, Plan, PlannedFile, build_plan, initramfs_input

# The kickstart may hold password hashes: only root reads it.
KICKSTART_MODE = 0o600
_INCLUDE = re.compile(r"^\s*%include\s", re.MULTILINE)


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
            "the initramfs cannot use the link-local server%s %s: it speaks DoT only "
            "through NetworkManager's dnsconfd plugin, which drops the interface; give "
            "the initramfs a server by its global address" % (
                "s" if len(link_local) > 1 else "", ", ".join(link_local)))


def check_command_line(options):
    """Refuse OPTIONS that no kernel command line holds; a warning sentence when they
    leave too little room for the boot loader's and the installer's own, else None."""
    length = len(" ".join(options).encode("utf-8"))
    limit = c.KERNEL_COMMAND_LINE_MAX_BYTES
    if length > limit:
        raise BootOptionsError(
            "these boot options take %d bytes, more than the %d a kernel command line holds "
            "(Linux's COMMAND_LINE_SIZE on x86_64, aarch64 and ppc64le); GRUB drops every "
            "option past that without a word: give fewer servers without domain= (the "
            "routed ones are not boot options)" % (length, limit))
    if length > limit - c.BOOT_LOADER_OPTIONS_RESERVE_BYTES:
        return ("these boot options take %d of the %d bytes a kernel command line holds, "
                "leaving %d for the boot loader's BOOT_IMAGE= and the installer's own "
                "options (inst.stage2=, inst.repo=, ip=, console=); GRUB drops every option "
                "past the limit without a word" % (length, limit, limit - length))
    return None


def boot_args(config):
    """(the kernel options for DoT in an initramfs, a warning sentence or None).

    BootOptionsError if an initramfs cannot use them.
    """
    check_initramfs_servers(config.default_servers)
    options = boot_options(config)
    return options, check_command_line(options)


def overlay_kickstart(parsed):
    """The kickstart text with every top-level ``%edns`` rewritten as ``%addon``."""
    text = parsed.text
    match = _INCLUDE.search(text)
    if match:
        lineno = text.count("\n", 0, match.start()) + 1
        raise OverlayError("%s:%d: %%include cannot be followed inside the initrd; flatten "
                           "the kickstart first (ksflatten -c %s -o flat.ks)"
                           % (parsed.filename, lineno, parsed.filename))
    headers = [place.lineno for place in parsed.edns_places
               if place.spelling == c.SECTION_OPEN and place.filename == parsed.filename]
    return convert_text(text, headers)


def overlay_plan(parsed):
    """The files of the overlay: the installer phase as its initramfs runs it, and the kickstart."""
    data = initramfs_input(parsed.staging_input())
    check_initramfs_servers(data.config.servers)
    files = build_plan(data, Phase.INSTALLER, "/").files
    kickstart = PlannedFile(c.OVERLAY_KICKSTART_PATH, overlay_kickstart(parsed).encode("utf-8"),
                            KICKSTART_MODE)
    return Plan(Phase.INSTALLER, files + (kickstart,), ())


def _entries(tree):
    """Every path below TREE (not TREE itself), sorted, so parents come first."""
    found = []
    for directory, subdirs, files in os.walk(tree):
        for name in subdirs + files:
            found.append(os.path.relpath(os.path.join(directory, name), tree))
    return sorted(found)


def newc_archive(tree):
    """A deterministic newc cpio of TREE's contents, every entry owned by root."""
    names = _entries(tree)
    for name in reversed(names):   # children first, so a directory's time is not touched again
        os.utime(os.path.join(tree, name), (c.OVERLAY_MTIME, c.OVERLAY_MTIME),
                 follow_symlinks=False)
    try:
        result = subprocess.run(["cpio", "--create", "--format=newc", "--owner=0:0",
                                 "--reproducible", "--quiet", "--null"],
                                input=b"".join(os.fsencode(name) + b"\0" for name in names),
                                cwd=tree, capture_output=True, check=False)
    except OSError as error:
        raise OverlayError("cannot run cpio: %s; install cpio (the package of that name)"
                           % (error.strerror or error)) from None
    if result.returncode != 0:
        raise OverlayError("cpio failed: %s" % result.stderr.decode(errors="replace").strip())
    return result.stdout


def overlay_image(plan):
    """The overlay image (gzip'd newc cpio) of PLAN (from ``overlay_plan``)."""
    with temporary_directory("edns-overlay.") as tree:
        apply_plan(plan, tree)
        archive = newc_archive(tree)
    return gzip.compress(archive, compresslevel=9, mtime=0)


def overlay_boot_options(config):
    """Kernel options to boot the installer with the overlay."""
    return (["%s=file:%s" % (c.BOOT_OPTION_KICKSTART, c.OVERLAY_KICKSTART_PATH),
             c.BOOT_OPTION_NEEDNET] + boot_options(config))
