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

"""The Python libraries the addon needs, and the sentence a user gets when one is missing.

One table: the import name, the name on PyPI, the oldest release the support
matrix proves (EL9's row; docs/support-matrix.md) and the Fedora/EL package.
``setup.py`` builds ``install_requires`` from it, so this file imports only
the standard library; ``requirements.txt`` and the RPM spec repeat the same
minimums, and ``tests/test_dependencies.py`` checks that all three agree.
"""

import importlib.util
from typing import NamedTuple, Optional


def _(text):
    # org_edns_addon.i18n's, imported when a sentence is made: setup.py loads this file
    # alone, where the package is not importable.
    from org_edns_addon.i18n import _ as translated
    return translated(text)


def N_(text):  # org_edns_addon.i18n's marker (see _ above)
    return text


class Library(NamedTuple):
    """A Python library the addon imports."""
    module: str                      # the top-level import name
    distribution: str                # its name on PyPI
    minimum: Optional[str]           # the oldest release proven to work
    rpm: str                         # its Fedora / EL package
    on_pypi: Optional[str] = None    # the oldest that works among PyPI's, if not the minimum

    @property
    def requirement(self):
        """The PEP 508 requirement, as in ``install_requires``."""
        if self.minimum is None:
            return self.distribution
        return "%s>=%s" % (self.distribution, self.minimum)

    @property
    def pip_hint(self):
        """The short requirement to tell users (the oldest release on PyPI that works)."""
        if self.minimum is None:
            return self.distribution
        return "%s>=%s" % (self.distribution, self.on_pypi or self.minimum)

    def missing(self, what):
        """The sentence saying WHAT (a command, a feature) needs this library, which is
        not installed, and how to install it."""
        return (_("%s needs the Python package %s%s, which is not installed; install it "
                "(dnf install %s, or pip install '%s')")
                % (what, self.distribution, self._at_least(), self.rpm, self.pip_hint))

    def unusable(self, what, error):
        """The sentence saying the installed release cannot serve WHAT (ERROR: the
        ImportError or other failure its import raised)."""
        return (_("%s needs the Python package %s%s, but the installed %s%s cannot be used "
                "(%s); install a release that fits (dnf install %s, or pip install '%s')")
                % (what, self.distribution, self._at_least(), self.distribution,
                   self._installed(), _first_line(error), self.rpm, self.pip_hint))

    def _at_least(self):
        if self.minimum is None:
            return ""
        if self.on_pypi:
            return _(" %s or later (a distribution's %s %s or later)") % (
                self.on_pypi, self.rpm, self.minimum)
        return _(" %s or later") % self.minimum

    def _installed(self):
        try:
            from importlib.metadata import version
            return " " + version(self.distribution)
        except Exception:  # noqa: BLE001 (no metadata: a bare checkout)
            return ""


# Every library setup.py installs, with the oldest release proven: EL9's, or where
# EL9's is not on PyPI the nearest PyPI release the CI tests (simpleline 1.8.2; EL9
# ships 1.8.3).
#
# pykickstart has %certificate on rhel9-branch (EL9) from 3.32.13, on rhel10-branch
# (EL10) from 3.52.7 and on its main line from 3.61; the main line's releases between
# (3.33 to 3.60, PyPI's 3.52; Fedora 35 to 40) have none. A version range cannot leave
# out those and keep the branches' (and excluding them one by one makes the RPM's
# generated Requires unreadable), so one of those is found at run time instead:
# commands then say to install 3.61 or later (``Library.unusable``).
REQUIRED = (
    Library("pykickstart", "pykickstart", "3.32.13", "python3-kickstart", on_pypi="3.61"),
    Library("cryptography", "cryptography", "36.0.1", "python3-cryptography"),
    Library("dns", "dnspython", "2.3.0", "python3-dns"),
    Library("idna", "idna", "2.10", "python3-idna"),
    Library("dasbus", "dasbus", "1.4", "python3-dasbus"),
    Library("simpleline", "simpleline", "1.8.2", "python3-simpleline"),
)
# Only for the stand-alone D-Bus service (tests, tools) and the installer, which has it:
# dasbus's bus connections and event loop need GLib. Distributions ship it; from PyPI
# it is built from C against the system's GLib (see docs/installation.md).
PYGOBJECT = Library("gi", "PyGObject", None, "python3-gobject-base")
LIBRARIES = {library.module: library for library in REQUIRED + (PYGOBJECT,)}

# What each part needs at least (import names).
READS_KICKSTART = ("pykickstart", "cryptography", "idna")
CHECKS_SERVERS = READS_KICKSTART + ("dns",)
TEXT_UI = CHECKS_SERVERS + ("simpleline", "dasbus")
# What an installer loses without each library its image may lack (docs/installation.md: the
# installer image), and how to bring it: (import name, the module that must load, why).
INSTALLER_MAY_LACK = (
    ("cryptography", "cryptography.x509",
     N_("the %(certificates)s cannot be checked, so a kickstart with them is refused; "
     "build the addon's RPM into the installer image (it requires python3-cryptography), "
     "an updates image cannot carry it")),
    ("dns", "dns.message",
     N_("the pre-flight check of the DNS servers is not available (the installation itself "
     "does not need it); boot with an updates image made by edns-addon updates-img, which "
     "carries dnspython, or build the addon's RPM into the installer image")),
)
# The Python each line's installer runs (docs/support-matrix.md), oldest first.
INSTALLER_PYTHONS = (("EL9", (3, 9)), ("EL10", (3, 12)), ("Fedora 43", (3, 14)))
# Pure Python, so the updates image carries them, copied from where it is built.
CARRIED_IN_UPDATES_IMAGE = ("dns",)
BUILDS_UPDATES_IMAGE = ("pykickstart",) + CARRIED_IN_UPDATES_IMAGE


class Unusable(ImportError):
    """A library cannot be loaded; the message is the sentence for users."""


def _carried_libraries_on_path():
    """Put the libraries an updates image carries (``edns-addon updates-img``: the
    pure-Python ones an installer image may lack, dnspython) on the path, once, before
    any library is looked for: they are in a directory beside the package, last on the
    path, so a library the image has (an RPM's Requires) wins."""
    import os
    import sys

    from org_edns_addon.constants import CARRIED_LIBRARIES_DIR

    carried = os.path.join(os.path.dirname(os.path.abspath(__file__)), CARRIED_LIBRARIES_DIR)
    if os.path.isdir(carried) and carried not in sys.path:
        sys.path.append(carried)


def load(module, what):
    """Import MODULE (say ``dns.message``) for WHAT, or raise ``Unusable`` saying which
    package to install. A copy that fails to load for another reason (one made for a
    newer Python, say) is unusable too."""
    _carried_libraries_on_path()
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise Unusable(explain(error, what), name=module.split(".")[0]) from None
    except Exception as error:  # noqa: BLE001 (a copy for another Python, say)
        library = LIBRARIES[module.split(".")[0]]
        raise Unusable(library.unusable(what, error), name=library.module) from None


def installer_gaps():
    """A sentence for each library this installer cannot load (INSTALLER_MAY_LACK),
    saying what is lost and how to bring it."""
    from org_edns_addon import terms
    _carried_libraries_on_path()
    gaps = []
    for name, module, consequence in INSTALLER_MAY_LACK:
        library = LIBRARIES[name]
        try:
            importlib.import_module(module)
        except Exception as error:  # noqa: BLE001 (SyntaxError, too)
            gaps.append(_("this installer has no usable %s (%s: %s): %s") % (
                library.distribution, library.rpm, _first_line(error),
                _(consequence) % {"certificates": terms.CERTIFICATE_SECTIONS}))
    return gaps


def install_requires():
    """setup.py's ``install_requires``."""
    return [library.requirement for library in REQUIRED]


def missing(modules):
    """The ``Library`` of each of MODULES (import names) that cannot be found."""
    return [LIBRARIES[name] for name in modules if not _findable(name)]


def _findable(module):
    _carried_libraries_on_path()
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):   # a broken or half-imported package
        return False


def library_of(error):
    """The ``Library`` whose import raised the ImportError ERROR, or None if it is not one
    of ours (then the error is a bug, not a missing library)."""
    name = getattr(error, "name", None) or ""
    return LIBRARIES.get(name.split(".")[0])


def explain(error, what):
    """The sentence for the ImportError ERROR of one of our libraries, which WHAT needed:
    missing (the package itself is not found) or unusable (too old, or broken)."""
    if isinstance(error, Unusable):
        return str(error)
    library = library_of(error)
    if not _findable(library.module):
        return library.missing(what)
    return library.unusable(what, error)


def _first_line(error):
    text = str(error) or type(error).__name__
    return text.splitlines()[0]
