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

"""The stage-2 window's repository fetch (lab/vmlab/stage2/edns-librepo-fetch.py) on this
machine's librepo (Debian's python3-librepo, the library of Anaconda's payload), over
loopback: the lab's repository metadata (lab/vmlab/repository.py) is fetched and its
checksum verified when the kickstart's CA signed the server, and refused when it did not."""

import functools
import http.server
import os
import ssl
import subprocess
import threading
from pathlib import Path

import pytest

from lab import certs
from lab.vmlab import repository

SCRIPT = Path(__file__).resolve().parents[1] / "lab" / "vmlab" / "stage2" / \
    "edns-librepo-fetch.py"
# Debian's python3-librepo is for Debian's own Python.
SYSTEM_PYTHON = "/usr/bin/python3"


def system_librepo():
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        return False
    return subprocess.run([SYSTEM_PYTHON, "-c", "import librepo"], capture_output=True,
                          timeout=60).returncode == 0


pytestmark = pytest.mark.skipif(not system_librepo(), reason="no python3-librepo for %s "
                                "(Debian's python3-librepo; make setup installs it)"
                                % SYSTEM_PYTHON)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def served_repository(tmp_path, test_ca):
    root = tmp_path / "www"
    for path, content in repository.files().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(content)
    cert, key = certs.make_server(test_ca, ["localhost"]).write(tmp_path, "server")
    server = http.server.HTTPServer(("127.0.0.1", 0), functools.partial(Quiet,
                                                                       directory=str(root)))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "https://localhost:%d/%s" % (server.server_address[1], repository.PATH)
    server.shutdown()
    server.server_close()


def fetch(url, ca_path):
    return subprocess.run([SYSTEM_PYTHON, str(SCRIPT), url, str(ca_path)], capture_output=True,
                          text=True, timeout=120)


def test_fetches_the_metadata_trusting_the_kickstarts_ca(served_repository, tmp_path, test_ca):
    ca = tmp_path / "dns-ca.pem"
    ca.write_text(test_ca.pem)
    result = fetch(served_repository, ca)
    assert (result.returncode, result.stdout.split()) == (0, [
        "EDNS-PROOF", "librepo", served_repository, "ok", repository.REVISION,
        repository.primary_checksum()]), result.stderr


def test_refuses_a_server_another_ca_signed(served_repository, tmp_path):
    ca = tmp_path / "other-ca.pem"
    ca.write_text(certs.make_ca("Unrelated CA").pem)
    result = fetch(served_repository, ca)
    assert result.returncode == 1
    assert result.stdout.startswith("EDNS-PROOF librepo %s fail " % served_repository)
