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

"""An installation repository's metadata as the lab's HTTPS server serves it: the rpm-md
``repodata/repomd.xml`` naming a ``primary`` file (no packages) by its checksum, which
librepo verifies (lab/vmlab/stage2/edns-librepo-fetch.py fetches it in the stage-2
window as the payload would)."""

import gzip
import hashlib

PATH = "repo/"
REVISION = "1796536000"
_PRIMARY = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<metadata xmlns="http://linux.duke.edu/metadata/common" '
            'xmlns:rpm="http://linux.duke.edu/metadata/rpm" packages="0">\n</metadata>\n')
_REPOMD = """<?xml version="1.0" encoding="UTF-8"?>
<repomd xmlns="http://linux.duke.edu/metadata/repo" xmlns:rpm="http://linux.duke.edu/metadata/rpm">
  <revision>%(revision)s</revision>
  <data type="primary">
    <checksum type="sha256">%(checksum)s</checksum>
    <open-checksum type="sha256">%(open_checksum)s</open-checksum>
    <location href="repodata/primary.xml.gz"/>
    <timestamp>%(revision)s</timestamp>
    <size>%(size)d</size>
    <open-size>%(open_size)d</open-size>
  </data>
</repomd>
"""


def files(revision=REVISION):
    """{path below the server's root: bytes} of the repository at PATH."""
    primary = _PRIMARY.encode()
    packed = gzip.compress(primary, mtime=0)
    repomd = _REPOMD % {"revision": revision, "checksum": hashlib.sha256(packed).hexdigest(),
                        "open_checksum": hashlib.sha256(primary).hexdigest(),
                        "size": len(packed), "open_size": len(primary)}
    return {PATH + "repodata/repomd.xml": repomd.encode(),
            PATH + "repodata/primary.xml.gz": packed}


def primary_checksum(revision=REVISION):
    """The sha256 of the primary file, as repomd.xml names it."""
    return hashlib.sha256(files(revision)[PATH + "repodata/primary.xml.gz"]).hexdigest()
