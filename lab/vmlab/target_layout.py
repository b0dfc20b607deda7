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

"""The installed system's stand-in laid out as a line's: its system trust store's files.

The booted target cases stage a Debian tree, whose trust store is Debian's
(``/etc/ssl/certs/ca-certificates.crt``). An installed system of the lines has
Fedora's layout, and the file the system store is read from differs between
them: Fedora 43 dropped ``/etc/pki/tls/certs/ca-bundle.crt`` and
``/etc/pki/tls/cert.pem`` (Fedora Changes/dropingOfCertPemFile; FreeIPA hit it,
freeipa PR 7914), while ``/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem``,
which update-ca-trust extracts, is there on every line. ``layer`` makes the
layer that puts a line's files over the tree, holding the lab's CA as the whole
system store (without ``--ca`` the system store is what authenticates the
servers), and hides Debian's.

(The facts per line are here until the package's own table of the lines holds
them, branch `lines`; then this reads them there.)
"""

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Tuple

# update-ca-trust's extraction, on every line (ca-certificates, p11-kit's trust extract).
EXTRACTED_BUNDLE = "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"
# The legacy names, symlinks to it up to Fedora 42 and on EL, gone from Fedora 43.
LEGACY_BUNDLE = "/etc/pki/tls/certs/ca-bundle.crt"
LEGACY_CERT_PEM = "/etc/pki/tls/cert.pem"
# Debian's store, which no line has.
DEBIAN_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"


@dataclass(frozen=True)
class Layout:
    """A line's trust store: the files that hold it, and those it does not have."""
    line: str
    store: Tuple[str, ...]
    legacy_links: Tuple[str, ...]      # symlinks to the extracted bundle
    absent: Tuple[str, ...]


LAYOUTS = {
    "fedora-43": Layout("fedora-43", (EXTRACTED_BUNDLE,), (),
                        (LEGACY_BUNDLE, LEGACY_CERT_PEM, DEBIAN_BUNDLE)),
    "fedora-42": Layout("fedora-42", (EXTRACTED_BUNDLE,), (LEGACY_BUNDLE, LEGACY_CERT_PEM),
                        (DEBIAN_BUNDLE,)),
}
# The line the booted target cases' installed systems are laid out as.
TARGET_LINE = "fedora-43"


def _whiteout(path):
    """An overlayfs whiteout at PATH: the file of a lower layer is not there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mknod(path, 0o600 | 0o020000, os.makedev(0, 0))


def layer(stage, ca_pem, line=TARGET_LINE):
    """Make STAGE the layer with LINE's trust store files, holding CA_PEM alone; returns it."""
    layout = LAYOUTS[line]
    stage = Path(stage)
    for path in layout.store:
        target = stage / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(ca_pem)
    for path in layout.legacy_links:
        target = stage / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(os.path.relpath(EXTRACTED_BUNDLE, os.path.dirname(path)))
    for path in layout.absent:
        _whiteout(stage / path.lstrip("/"))
    return stage
