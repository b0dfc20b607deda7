"""Shared fixtures: kickstart files on disk, fresh certificates, the CLI as a process."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pykickstart.errors import KickstartParseError
from pykickstart.parser import Certificate, KickstartParser
from pykickstart.version import makeVersion

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


def _pykickstart_version():
    try:
        from importlib.metadata import version
        return version("pykickstart")
    except Exception:  # pylint: disable=broad-except  # a checkout on PYTHONPATH has no metadata
        return "(version unknown)"


# %certificate --type came with pykickstart 3.73 (EL10's branch: 3.52.13); EL9's 3.32.x and
# Fedora 43's 3.66 refuse it as an unknown option, so their kickstarts cannot hold anchors.
CERTIFICATE_TYPE = hasattr(Certificate(cert="", filename="x"), "type")
def _pykickstart_requires_dir():
    try:
        KickstartParser(makeVersion()).readKickstartFromString(
            "%certificate --filename=a.pem\nx\n%end\n")
    except KickstartParseError as error:
        return "required: --dir" in str(error)
    return False


# EL9's 3.32.x and Fedora 43's 3.66 make --dir a required option of %certificate.
PYKICKSTART_REQUIRES_DIR = _pykickstart_requires_dir()
needs_certificate_type = pytest.mark.skipif(
    not CERTIFICATE_TYPE, reason="pykickstart %s has no %%certificate --type (3.73+, EL10's "
    "3.52.13+)" % _pykickstart_version())


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
