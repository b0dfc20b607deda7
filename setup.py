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

import glob
import importlib.util
import os

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _dependencies():
    """org_edns_addon/dependencies.py, the one table of the libraries and their minimums
    (loaded from its file: the package's other modules need those libraries)."""
    path = os.path.join(HERE, "org_edns_addon", "dependencies.py")
    spec = importlib.util.spec_from_file_location("org_edns_addon_dependencies", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildWithDbusFiles(build_py):
    """Also copy data/'s D-Bus .service and .conf into the package (org_edns_addon/data/),
    and po/'s translations (org_edns_addon/po/): `edns-addon updates-img` puts them into
    the image, from an install too."""

    def run(self):
        super().run()
        for directory, patterns in (("data", ("*.service", "*.conf")), ("po", ("*.po",))):
            target = os.path.join(self.build_lib, "org_edns_addon", directory)
            self.mkpath(target)
            for path in sorted(path for pattern in patterns
                               for path in glob.glob(os.path.join(HERE, directory, pattern))):
                self.copy_file(path, target)


setup(
    name="org_edns_addon",
    version="0.1.0",
    description="Anaconda addon: system-wide encrypted DNS (DNS over TLS) from kickstart",
    license="GPL-2.0-or-later",
    packages=find_packages(include=["org_edns_addon", "org_edns_addon.*"]),
    python_requires=">=3.9",
    # pykickstart, cryptography, dnspython, idna, dasbus and simpleline: every command,
    # `edns-addon tui` included, works after `pip install .`. PyGObject is not here: only
    # the stand-alone D-Bus service needs it (see dependencies.PYGOBJECT).
    install_requires=_dependencies().install_requires(),
    entry_points={"console_scripts": ["edns-addon = org_edns_addon.cli:main"]},
    # The graphical spoke's glade file and icon (packaging.PACKAGE_DATA_SUFFIXES).
    package_data={"org_edns_addon.gui.spokes": ["*.glade", "*.svg"]},
    cmdclass={"build_py": BuildWithDbusFiles},
)
