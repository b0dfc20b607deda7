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

"""The addon's installed layout: below a DESTDIR (``make install``) or as an updates image.

One list of files serves both, so an Anaconda developer finds the same files
in the same places either way: the ``org_edns_addon`` package under
``/usr/share/anaconda/addons/`` (its Python files, and the graphical spoke's
glade file and icon), the D-Bus ``.service`` and ``.conf`` under
``/usr/share/anaconda/dbus/``, and a translation catalogue for each ``po/LANG.po``
(compiled by gettext's ``msgfmt``) at
``/usr/share/locale/LANG/LC_MESSAGES/edns-anaconda-addon.mo``. Built from a source
checkout. ``make install`` also installs edns-addon(1), generated from the command's
parser; the updates image, which no one reads a manual in, does not carry it.

The updates image also carries the pure-Python libraries an installer image
may lack (``dependencies.CARRIED_IN_UPDATES_IMAGE``: dnspython), copied from
where it is built into the addon's ``site-packages/``; the RPM has Requires
instead. cryptography is compiled code for one Python and OpenSSL, so no image
carries it.

    python3 -m org_edns_addon.packaging --destdir DIR
"""

import argparse
import os
import re
import stat
import subprocess
import sys

from org_edns_addon import constants as c
from org_edns_addon import dependencies
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.fileio import error_text
from org_edns_addon.i18n import N_, _
from org_edns_addon.staging import StagingError
from org_edns_addon.staging.apply import apply_plan
from org_edns_addon.staging.plan import Phase, Plan, PlannedFile

# edns-addon(1), where man looks for section 1 (the RPM's %{_mandir}/man1).
MANUAL_PAGE = "/usr/share/man/man1/edns-addon.1"
# The D-Bus files of the module, named after its service (data/).
DBUS_SERVICE_FILE = EDNS.service_name + ".service"
DBUS_CONF_FILE = EDNS.service_name + ".conf"

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# data/ of a source checkout, or the copy of its D-Bus files that setup.py puts into an
# installed package (pip, the edns-addon RPM), so updates-img works from there too.
INSTALLED_DATA_DIR = os.path.join(PACKAGE_DIR, "data")
DATA_DIR = INSTALLED_DATA_DIR if os.path.isdir(INSTALLED_DATA_DIR) else \
    os.path.join(os.path.dirname(PACKAGE_DIR), "data")
# po/ of a source checkout (the translations), or setup.py's copy in an installed package.
INSTALLED_PO_DIR = os.path.join(PACKAGE_DIR, "po")
PO_DIR = INSTALLED_PO_DIR if os.path.isdir(INSTALLED_PO_DIR) else \
    os.path.join(os.path.dirname(PACKAGE_DIR), "po")
# Files of the package besides its Python: the graphical spoke's glade file and icon
# (setup.py's package_data names the same).
PACKAGE_DATA_SUFFIXES = (".glade", ".svg")
MSGFMT = "msgfmt"


class PackagingError(Exception):
    """The layout cannot be built; the message is a sentence for users."""


# What a file that is not a regular file is, for the sentence that refuses it.
_FILE_KINDS = ((stat.S_ISLNK, N_("a symbolic link")), (stat.S_ISDIR, N_("a directory")),
               (stat.S_ISFIFO, N_("a FIFO")), (stat.S_ISSOCK, N_("a socket")),
               (stat.S_ISCHR, N_("a character device")), (stat.S_ISBLK, N_("a block device")))


def _not_regular(path, mode):
    kind = next((_(text) for test, text in _FILE_KINDS if test(mode)), _("not a regular file"))
    return PackagingError(_("%s is %s: the addon's layout holds regular files only; replace "
                            "it with the file itself") % (path, kind))


def read_source(path):
    """(content, mode) of the regular file PATH, never through a symbolic link and without
    blocking on a FIFO; its permission bits are kept, less write for group and others.
    PackagingError names anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise PackagingError(_("%s is missing; build from a source checkout of the addon")
                             % path) from None
    except OSError as error:
        if os.path.islink(path):
            raise _not_regular(path, stat.S_IFLNK) from None
        raise PackagingError(_("cannot read %s: %s") % (path, error_text(error))) \
            from None
    with os.fdopen(fd, "rb") as stream:
        mode = os.fstat(stream.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode)
        return stream.read(), stat.S_IMODE(mode) & 0o755


def _python_files(package, suffixes=(".py", ".typed")):
    """Every file below PACKAGE whose name ends with one of SUFFIXES, relative to it,
    sorted; a directory or such a file there that is a symbolic link is refused, since it
    may lead anywhere."""
    found = []
    for directory, subdirs, files in os.walk(package):
        for name in subdirs + files:
            if os.path.islink(os.path.join(directory, name)) and \
                    (name in subdirs or name.endswith(suffixes)):
                raise _not_regular(os.path.join(directory, name), stat.S_IFLNK)
        subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
        found += [os.path.relpath(os.path.join(directory, name), package)
                  for name in files if name.endswith(suffixes)]
    return sorted(found)


def _package_files():
    """The package's source files (Python and ``PACKAGE_DATA_SUFFIXES``), relative to the
    package directory, sorted."""
    return _python_files(PACKAGE_DIR, (".py",) + PACKAGE_DATA_SUFFIXES)


def layout():
    """Every installed file as (path below the root, source path), sorted by path."""
    addon_dir = os.path.join(c.ANACONDA_ADDONS_DIR, c.ADDON_NAME)
    files = [(os.path.join(addon_dir, name), os.path.join(PACKAGE_DIR, name))
             for name in _package_files()]
    files.append((os.path.join(c.ANACONDA_DBUS_SERVICES_DIR, DBUS_SERVICE_FILE),
                  os.path.join(DATA_DIR, DBUS_SERVICE_FILE)))
    files.append((os.path.join(c.ANACONDA_DBUS_CONFS_DIR, DBUS_CONF_FILE),
                  os.path.join(DATA_DIR, DBUS_CONF_FILE)))
    return sorted(files)


def carried_libraries():
    """The files of each library the updates image carries (its package's Python files
    and its METADATA), as ``PlannedFile``s sorted by path. Raises
    PackagingError if one is not installed where the image is built."""
    import importlib.util
    from importlib.metadata import PackageNotFoundError, distribution

    target = os.path.join(c.ANACONDA_ADDONS_DIR, c.ADDON_NAME, c.CARRIED_LIBRARIES_DIR)
    files = []
    for module in dependencies.CARRIED_IN_UPDATES_IMAGE:
        library = dependencies.LIBRARIES[module]
        try:
            found = distribution(library.distribution)
            spec = importlib.util.find_spec(module)
        except (PackageNotFoundError, ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            raise PackagingError(library.missing(_("the updates image, which carries it,")))
        package = spec.submodule_search_locations[0]
        for name in _python_files(package):
            content, mode = read_source(os.path.join(package, name))
            files.append(PlannedFile(os.path.join(target, module, name), content, mode))
        info = "%s-%s.dist-info" % (found.metadata["Name"], found.version)
        metadata = found.read_text("METADATA") or found.read_text("PKG-INFO") or ""
        files.append(PlannedFile(os.path.join(target, info, "METADATA"),
                                 metadata.encode("utf-8"), c.FILE_MODE))
    return sorted(files, key=lambda planned: planned.path)


def carried_notes():
    """A sentence for each carried library whose release cannot load in some installer
    (its Requires-Python asks for a newer Python than that installer's)."""
    from importlib.metadata import metadata

    notes = []
    for module in dependencies.CARRIED_IN_UPDATES_IMAGE:
        library = dependencies.LIBRARIES[module]
        found = metadata(library.distribution)
        needed = re.findall(r">=\s*(\d+)\.(\d+)", found.get("Requires-Python") or "")
        oldest = max((int(major), int(minor)) for major, minor in needed) if needed else None
        left_out = [(name, python) for name, python in dependencies.INSTALLER_PYTHONS
                    if oldest and python < oldest]
        if left_out:
            notes.append(
                _("the image carries %s %s, which needs Python %d.%d or later: %s cannot load "
                "it (the module says so in its report); for %s, build the image where a %s "
                "for Python %d.%d is installed") % (
                    library.distribution, found["Version"], oldest[0], oldest[1],
                    " and ".join(_("%s's installer (Python %d.%d)") % (name, *python)
                                 for name, python in left_out),
                    " and ".join(name for name, _python in left_out), library.distribution,
                    *left_out[0][1]))
    return notes


def catalogue_sources():
    """(language, path) of each translation, ``po/LANG.po``, sorted."""
    try:
        names = os.listdir(PO_DIR)
    except FileNotFoundError:
        return []
    return sorted((name[:-len(".po")], os.path.join(PO_DIR, name))
                  for name in names if name.endswith(".po"))


def catalogue_path(language):
    """Where the catalogue of LANGUAGE is installed, below the root."""
    return os.path.join(c.LOCALE_DIR, language, "LC_MESSAGES", c.TRANSLATION_DOMAIN + ".mo")


def compile_catalogue(path):
    """The ``.mo`` bytes of the translation PATH, by gettext's msgfmt (which also checks
    that each translation keeps its sentence's placeholders); PackagingError otherwise."""
    content, _mode = read_source(path)
    try:
        result = subprocess.run([MSGFMT, "--check", "--output-file=-", "-"], input=content,
                                capture_output=True, timeout=120)
    except FileNotFoundError:
        raise PackagingError(_("%s is not installed, and %s needs it; install gettext")
                             % (MSGFMT, path)) from None
    if result.returncode != 0:
        raise PackagingError(_("%s is not a valid translation: %s") % (
            path, result.stderr.decode("utf-8", "replace").strip().replace(
                "<stdin>", os.path.basename(path))))
    return result.stdout


def catalogue_files():
    """The compiled catalogues as ``PlannedFile``s, sorted by language."""
    return [PlannedFile(catalogue_path(language), compile_catalogue(path), c.FILE_MODE)
            for language, path in catalogue_sources()]


def _layout_files():
    """The layout as ``PlannedFile``s (their bytes and permission bits read from the
    checkout), and the catalogues compiled from it."""
    return [PlannedFile(path, *read_source(source)) for path, source in layout()] + \
        catalogue_files()


def manual_files():
    """edns-addon(1), generated from the command's parser (``cli/manpage.py``)."""
    from org_edns_addon.cli.manpage import manual_page
    return [PlannedFile(MANUAL_PAGE, manual_page().encode("utf-8"), c.FILE_MODE)]


def install_tree(destdir, extra=()):
    """Install the layout below DESTDIR (created if needed), and the EXTRA files,
    (path below the root, content); return the paths installed.

    The files are written the way staging writes a root: confined to DESTDIR
    (a symlink inside it that leads outside is refused), each atomically, and
    nothing at all when any path is refused. Raises PackagingError.
    """
    if not destdir:
        raise PackagingError(_("the destination directory is empty; give one, like "
                             "--destdir=/tmp/edns-root"))
    destdir = os.path.abspath(destdir)
    try:
        files = _layout_files() + manual_files()
        files += [PlannedFile(path, content, c.FILE_MODE) for path, content in extra]
        os.makedirs(destdir, mode=c.DIR_MODE, exist_ok=True)
        apply_plan(Plan(Phase.TARGET, tuple(files), ()), destdir)
    except OSError as error:
        raise PackagingError(_("cannot install below %s: %s: %s") % (
            destdir, error.filename, error_text(error))) from None
    except StagingError as error:
        raise PackagingError(str(error)) from None
    return [os.path.join(destdir, planned.path.lstrip("/")) for planned in files]


def updates_image_files():
    """Every file of the updates image as ``PlannedFile``s: the layout and the libraries
    it carries."""
    return _layout_files() + carried_libraries()


def updates_image():
    """The updates image: a deterministic, root-owned, gzip'd newc cpio of the layout."""
    # initrd's cpio writer is the project's one; it loads pykickstart, so only here.
    from org_edns_addon.initrd import OverlayError, gzipped, newc_archive
    try:
        archive = newc_archive(updates_image_files())
    except OSError as error:
        raise PackagingError(_("cannot read %s: %s") % (error.filename, error_text(error))) \
            from None
    except OverlayError as error:
        raise PackagingError(str(error)) from None
    return gzipped(archive)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m org_edns_addon.packaging",
                                     description=_("Install the addon's files below DESTDIR."))
    parser.add_argument("--destdir", required=True, help=_("the root to install below"))
    args = parser.parse_args(argv)
    try:
        for path in install_tree(args.destdir):
            print(path)
    except PackagingError as error:
        print(_("not installed: %s") % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
