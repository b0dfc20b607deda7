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

"""The ``--filename``, ``--dir`` and ``--type`` rules of a ``%certificate``, and
where a certificate may land.

Where a certificate may land (``landing_problem``) is one rule, judged where a
certificate is validated (the kickstart reader with our section, ``validate``,
the module's ``AddCertificate`` and the text UI), so that ``apply`` and
``overlay``, which take only validated input, never meet a placement they must
refuse. Anaconda itself refuses no ``--dir``: its Security module joins it to
the root and writes there (``pyanaconda/modules/security/certificates/
installation.py`` ``_dump_certificate``), and the initramfs does the same at
``/`` and below ``/run/install/certificates/path/`` (``dracut/parse-kickstart``
``_dump_certificate``, ``process_certificates``); Anaconda's own tests place
one at ``--dir=/cert_dir``. So the rule does not list where a certificate may
go (that would refuse what Anaconda takes); it refuses, by category, the
places where a PEM file would break what the addon writes or what the
initramfs and the system need to start:

1. what this addon writes or moves a file to (``constants.ADDON_WRITTEN_PATHS``,
   derived from the paths it names: the DoT CA bundle, the copy the FreeIPA
   handover unit puts back; the state directory of apply's record): on one,
   below one as if it were a directory (it must stay a file), or where one
   needs a directory; nor below a file of the system's trust store of any line
   (``SYSTEM_TRUST_STORE_FILES``) as a directory;
2. the top of the file system (``--dir=/``): the initramfs's ``/init`` and
   ``/shutdown``, the top-level directories and their usr-merge symlinks;
   nor below ``/init`` or ``/shutdown`` as directories;
3. the trees of the system's programs, libraries, kernel and boot loader, and
   the kernel's own file systems (``/usr``, ``/bin``, ``/sbin``, ``/lib*``,
   ``/boot``, ``/efi``, ``/proc``, ``/sys``, ``/dev``), but for the trust-store
   trees below ``/usr`` (``/usr/share/pki/``, ``/usr/share/ca-certificates/``,
   ``/usr/local/share/ca-certificates/``), where p11-kit and ca-certificates
   read certificates;
4. directly in ``/etc``, among the system's own tables (``passwd``,
   ``shadow``, ``fstab``, ``hosts``, ...), nor below one of those as if it
   were a directory;
5. the directories whose every file is read as configuration at boot or at
   login (units and drop-ins: ``/etc/systemd``, ``/etc/pam.d``,
   ``/etc/NetworkManager/conf.d``, ``/etc/unbound/conf.d``, ..., and the
   initramfs's dracut hooks in ``/var/lib/dracut/hooks``), where a PEM is a
   configuration file that does not parse.
"""

import posixpath

from org_edns_addon import constants as c
from org_edns_addon import terms
from org_edns_addon.constants import (CERT_TYPE_ANCHOR, CERT_TYPE_DIRS, MAX_FILE_NAME_BYTES,
                                      MAX_PATH_BYTES)
from org_edns_addon.i18n import _


def _has_control_character(text):
    return any(ord(char) < 0x20 or ord(char) == 0x7f for char in text)


def file_name_problem(name, option=terms.FILE_NAME):
    """A sentence unless NAME can be a ``%certificate --filename`` that ``--ca`` can name;
    OPTION is how the user gave it, a ``terms.Term`` taking the name (a ``--ca`` name,
    ``terms.CA_NAME``, must be such a file name too)."""
    shown = option(name)
    if not name or name in (".", "..") or "/" in name:
        return _("%s must be a plain file name, without '/'") % shown
    if "," in name:
        return _("%s holds ',', which separates the names in %s; choose a file name "
                 "without it") % (shown, terms.CA_LIST)
    if _has_control_character(name):
        return _("%s holds a control character; use a plain file name like "
                 "corp-ca.pem") % option(repr(name))
    if len(name.encode("utf-8", "surrogateescape")) > MAX_FILE_NAME_BYTES:
        return _("%s is longer than a file name may be (%d bytes); choose a shorter "
                 "name") % (option(name[:70] + "..."), MAX_FILE_NAME_BYTES)
    return None


def directory_problem(directory):
    """A sentence unless DIRECTORY can be a ``--dir`` below a root."""
    shown = directory[:80] + ("..." if len(directory) > 80 else "")
    if not posixpath.isabs(directory):
        return _("%s must be an absolute path, like /etc/pki/dns/") % terms.DIRECTORY_VALUE(shown)
    parts = directory.split("/")
    if ".." in parts:
        return _("%s must not contain '..'; give the directory itself, like "
                 "/etc/pki/dns/") % terms.DIRECTORY_VALUE(shown)
    if _has_control_character(directory):
        return _("%s holds a control character; give a plain directory like "
                 "/etc/pki/dns/") % terms.DIRECTORY_VALUE(repr(shown))
    encoded = directory.encode("utf-8", "surrogateescape")
    if any(len(part.encode("utf-8", "surrogateescape")) > MAX_FILE_NAME_BYTES
           for part in parts):
        return _("%s has a directory name longer than %d bytes; choose shorter names") \
            % (terms.DIRECTORY_VALUE(shown), MAX_FILE_NAME_BYTES)
    if len(encoded) > MAX_PATH_BYTES:
        return _("%s is longer than a path may be (%d bytes); choose a shorter "
                 "directory") % (terms.DIRECTORY_VALUE(shown), MAX_PATH_BYTES)
    return None


# Rule 2: what the initramfs has at its top as files (dracut's modules.d/99base).
_TOP_LEVEL_FILES = ("/init", "/shutdown")
# Rule 3: the system's programs, libraries, kernel, boot loader; the kernel's file systems.
_SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot",
                 "/efi", "/proc", "/sys", "/dev")
# ... but where p11-kit (trust-paths: /usr/share/pki/ca-trust-source) and
# ca-certificates (/usr/share/ca-certificates, /usr/local/share/ca-certificates) read.
_TRUST_TREES = ("/usr/share/pki", "/usr/share/ca-certificates",
                "/usr/local/share/ca-certificates")
# Rule 4: files every system has directly in /etc, which must stay files.
_ETC_FILES = ("passwd", "shadow", "group", "gshadow", "fstab", "crypttab", "hosts",
              "hostname", "machine-id", "os-release", "nsswitch.conf", "resolv.conf",
              "ld.so.cache", "ld.so.conf", "localtime", "sudoers", "login.defs",
              "locale.conf", "vconsole.conf", "environment")
# Rule 5: directories whose every file is configuration read at boot or at login.
_CONFIGURATION_DIRS = ("/etc/systemd", "/etc/pam.d", "/etc/security", "/etc/selinux",
                       "/etc/sudoers.d", "/etc/modprobe.d", "/etc/modules-load.d",
                       "/etc/sysctl.d", "/etc/tmpfiles.d", "/etc/udev", "/etc/ld.so.conf.d",
                       "/etc/dracut.conf.d", "/etc/kernel", "/etc/default",
                       "/etc/NetworkManager/conf.d", "/etc/NetworkManager/system-connections",
                       "/etc/NetworkManager/dispatcher.d", "/etc/unbound/conf.d",
                       "/etc/unbound/local.d",
                       # dracut-ng 110 and later source the initramfs's hooks from here
                       # alone (the overlay's pre-pivot hook is there too, initrd.py).
                       "/var/lib/dracut/hooks")


def _below(path, tree):
    return path.startswith(tree + "/")


def directory_needed_problem(path, written):
    """The sentence refusing a certificate at PATH when WRITTEN, a file something writes,
    must be below it: PATH must then be a directory."""
    return _("%s place this certificate at %s, but %s must be written below that path, as a "
             "directory; choose another %s") % (terms.DIRECTORY_AND_FILE_NAME, path, written,
                                                terms.DIRECTORY_OR_FILE_NAME)


def landing_problem(path):
    """A sentence unless a certificate may be written at PATH (below a root): the rule
    of the module's docstring, the same for every edge."""
    values = {"path": path, "dir": terms.DIRECTORY, "another": terms.DIRECTORY_NOUN,
              "both": terms.DIRECTORY_AND_FILE_NAME, "either": terms.DIRECTORY_OR_FILE_NAME,
              "own": terms.DIRECTORY_VALUE(c.DOT_CA_DIR)}
    # Rule 1: every file the addon writes or moves one to (constants.ADDON_WRITTEN_PATHS,
    # derived from the paths staging names: the copy the FreeIPA handover unit puts back
    # too, where a certificate would be replaced, or would be put into conf.d as ours).
    for written in c.ADDON_WRITTEN_PATHS:
        if path == written and written != c.DOT_CA_BUNDLE_PATH:
            return _("%(both)s place this certificate at %(path)s, a file this addon writes; "
                     "choose another %(either)s") % values
        if _below(path, written):
            return _("%(dir)s places this certificate at %(path)s, below %(file)s, a file "
                     "this addon writes, which must stay a file; choose another %(another)s") \
                % dict(values, file=written)
        if _below(written, path):
            return directory_needed_problem(path, written)
    if _below(path, c.APPLY_STATE_DIR):
        return _("%(dir)s places this certificate at %(path)s, in %(state)s, where edns-addon "
                 "keeps the record of what it wrote; choose another %(another)s") \
            % dict(values, state=c.APPLY_STATE_DIR)
    if path.count("/") == 1:
        return _("%(top)s places this certificate at %(path)s, at the top of the file system, "
                 "where the initramfs has /init and the system its top-level directories; "
                 "give it a directory of its own, like %(own)s") \
            % dict(values, top=terms.DIRECTORY_VALUE("/"))
    for store in c.SYSTEM_TRUST_STORE_FILES:
        if _below(path, store):
            return _("%(dir)s places this certificate at %(path)s, below %(file)s, the "
                     "system's trust store, which must stay a file; choose another "
                     "%(another)s") % dict(values, file=store)
    for top in _TOP_LEVEL_FILES:
        if _below(path, top):
            return _("%(dir)s places this certificate at %(path)s, below %(file)s, a file the "
                     "initramfs needs to start, which must stay a file; choose another "
                     "%(another)s") % dict(values, file=top)
    if not any(_below(path, tree) for tree in _TRUST_TREES):
        for tree in _SYSTEM_TREES:
            if _below(path, tree):
                return _("%(dir)s places this certificate at %(path)s, in %(tree)s, which "
                         "holds the system's programs, libraries, kernel or boot files (or is "
                         "a kernel file system); place it below /etc/pki/ or /usr/share/pki/ "
                         "instead") % dict(values, tree=tree)
    if path.count("/") == 2 and path.startswith("/etc/"):
        return _("%(etc)s places this certificate at %(path)s, among the system's own "
                 "configuration files (passwd, fstab, hosts, ...); give it a directory of "
                 "its own, like %(own)s") % dict(values, etc=terms.DIRECTORY_VALUE("/etc"))
    for name in _ETC_FILES:
        if _below(path, "/etc/" + name):
            return _("%(dir)s places this certificate at %(path)s, below /etc/%(name)s, a "
                     "file the system needs to start, which must stay a file; choose another "
                     "%(another)s") % dict(values, name=name)
    for directory in _CONFIGURATION_DIRS:
        if _below(path, directory) or path == directory:
            return _("%(dir)s places this certificate at %(path)s, in %(directory)s, whose "
                     "every file is read as configuration at boot or at login; choose another "
                     "%(another)s, like %(dns)s") % dict(values, directory=directory,
                                                         dns=c.DOT_CA_DIR)
    return None


def type_problem(cert_type):
    """A sentence unless CERT_TYPE is None or a ``--type`` Anaconda knows."""
    if cert_type is None or cert_type in CERT_TYPE_DIRS:
        return None
    return _("%s is unknown; the only type is %s") % (terms.CERTIFICATE_TYPE(cert_type),
                                                      CERT_TYPE_ANCHOR)


def placement_problems(filename, directory, cert_type):
    """Every sentence about where a ``%certificate`` would be written."""
    problems = [file_name_problem(filename), type_problem(cert_type)]
    if directory is not None:
        problems.append(directory_problem(directory))
    elif cert_type is None:
        problems.append(_("One of %s or %s must be specified for %s") % (
            terms.DIRECTORY_NOUN, terms.TYPE_NOUN, terms.CERTIFICATE_SECTION))
    return [problem for problem in problems if problem]


def landing_directory(directory, cert_type):
    """The directory a certificate of DIRECTORY (``--dir``) and CERT_TYPE goes to, as one
    absolute path without a trailing '/'."""
    directory = CERT_TYPE_DIRS.get(cert_type) or directory
    return "/" + "/".join(part for part in directory.split("/") if part not in ("", "."))


def is_anchor_place(directory, cert_type):
    """Whether a certificate of DIRECTORY (``--dir``) and CERT_TYPE goes to the anchors
    directory (``KickstartCertificate.is_anchor``), whose files p11-kit reads."""
    return landing_directory(directory, cert_type) == CERT_TYPE_DIRS[CERT_TYPE_ANCHOR]


def indented_anchor_warning():
    """What an anchor's indented PEM block is to the peers that read it."""
    return _("p11-kit reads this indented PEM block into the system trust (update-ca-trust), "
             "but OpenSSL reads a -----BEGIN line only at the start of a line, and "
             "Anaconda's initramfs appends an anchor's text as it is to the CA bundle "
             "OpenSSL reads there (dracut/parse-kickstart on the main and rhel-10 lines): in "
             "the installer's initramfs it authenticates nothing; remove the spaces before "
             "-----BEGIN and -----END")
