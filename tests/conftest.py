"""Shared fixtures: kickstart files on disk, fresh certificates, the CLI as a process."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import certs

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def write_ks(tmp_path):
    """Write kickstart TEXT to a file and return its path (as str)."""
    counter = [0]

    def write(text, name=None):
        counter[0] += 1
        path = tmp_path / (name or "ks%d.cfg" % counter[0])
        path.write_text(text)
        return str(path)
    return write


@pytest.fixture(scope="session")
def test_ca():
    return certs.make_ca("Test DNS CA")


def certificate_section(pem, filename="dns-ca.pem", options="--dir=/etc/pki/dns/"):
    return "%%certificate --filename=%s %s\n%s%%end\n" % (filename, options, pem)


def run_cli(*args, input=None, cwd=None, prefix=()):
    """Run `edns-addon ARGS` as a real process (after the command words PREFIX, if any);
    return the CompletedProcess."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([*prefix, sys.executable, "-m", "org_edns_addon.cli",
                           *map(str, args)],
                          input=input, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=120)


# Fixtures of the kickstart tests (certificates of every kind).
pytest_plugins = ["tests.ks_fixtures"]
