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

"""The libraries the addon needs: one set of minimums in setup.py, requirements.txt, the RPM
spec and the matrix rows; and a sentence, never a traceback, when one is missing.

A library is hidden from a child process by ``sys.modules[NAME] = None`` (what Python does
for a module it must not import), set before the real entry point runs.
"""

import json
import subprocess
import sys

import pytest
from packaging.requirements import Requirement

from lab.kickstarts import edns_section
from org_edns_addon import dependencies
from tests.conftest import REPO

SPEC = REPO / "edns-anaconda-addon.spec"
ROWS = {"el9": "3.9", "el10": "3.12", "fedora": "3.13"}


def requirement_lines(path):
    """The requirement lines of a requirements file, without comments and -r includes."""
    return [line.strip() for line in path.read_text().splitlines()
            if line.strip() and not line.startswith(("#", "-r"))]


def pins(row):
    """{distribution: version} of a matrix row's requirements file."""
    found = {}
    for line in requirement_lines(REPO / ("requirements-%s.txt" % row)):
        name, _, version = line.partition("==")
        if version:
            found[name] = version
    return found


def hidden(modules, code):
    """Python code that hides MODULES, then runs CODE."""
    return "import sys\nsys.modules.update(dict.fromkeys(%r))\n%s" % (list(modules), code)


def run_python(code, *args, cwd=None):
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, timeout=120, cwd=cwd,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin",
                               "LC_ALL": "C.UTF-8"})


def cli_without(modules, *args, cwd=None):
    """`edns-addon ARGS` with MODULES hidden; the CompletedProcess."""
    return run_python(hidden(modules, "import runpy\nsys.argv[0] = 'edns-addon'\n"
                             "runpy.run_module('org_edns_addon.cli', run_name='__main__')"),
                      *args, cwd=cwd)


# --- one set of minimums ----------------------------------------------------------------------

def test_setup_py_installs_the_table_of_minimums():
    result = subprocess.run(
        [sys.executable, "-c", "import json, runpy, setuptools\n"
         "setuptools.setup = lambda **kw: print(json.dumps(kw['install_requires']))\n"
         "runpy.run_path('setup.py')"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == dependencies.install_requires()
    assert [Requirement(r).name for r in dependencies.install_requires()] == [
        "pykickstart", "cryptography", "dnspython", "idna", "dasbus", "simpleline"]


def test_requirements_txt_repeats_setup_py():
    lines = requirement_lines(REPO / "requirements.txt")
    assert lines[:len(dependencies.REQUIRED)] == dependencies.install_requires()


def test_the_spec_requires_the_same_minimums():
    requires = subprocess.run(["rpmspec", "-q", "--requires", str(SPEC)], capture_output=True,
                              text=True, timeout=60, check=True).stdout.splitlines()
    for library in dependencies.REQUIRED:
        assert "%s >= %s" % (library.rpm, library.minimum) in requires, requires


@pytest.mark.parametrize("row", sorted(ROWS))
def test_each_matrix_row_pins_every_library_within_the_minimums(row):
    pinned = pins(row)
    for requirement in map(Requirement, dependencies.install_requires()):
        assert requirement.specifier.contains(pinned[requirement.name]), (row, requirement)


def test_el9_pins_are_its_distribution_versions_where_pypi_has_them():
    # docs/support-matrix.md: EL9 ships these exact releases.
    assert {name: version for name, version in pins("el9").items()
            if name in ("cryptography", "dnspython", "idna", "dasbus")} == {
        "cryptography": "36.0.1", "dnspython": "2.3.0", "idna": "2.10", "dasbus": "1.4"}
    minimums = {library.distribution: library.minimum for library in dependencies.REQUIRED}
    assert all(minimums[name] == version for name, version in pins("el9").items()
               if name not in ("pykickstart", "PyGObject"))


# --- a missing library is a sentence ------------------------------------------------------

@pytest.mark.parametrize("command, module, package", [
    ("tui", "simpleline", "simpleline"),
    ("tui", "dasbus", "dasbus"),
    ("check", "dns", "dnspython"),
    ("validate", "cryptography", "cryptography"),
    ("validate", "pykickstart", "pykickstart"),
    ("apply", "idna", "idna"),
    ("updates-img", "dns", "dnspython"),
])
def test_a_command_without_a_library_it_needs_says_what_to_install(tmp_path, command, module,
                                                                   package):
    kickstart = tmp_path / "ks.cfg"
    kickstart.write_text(edns_section("dns+tls://127.0.0.1:1#dot.example"))
    args = {"tui": ["-o", tmp_path / "new.ks"], "updates-img": ["-o", tmp_path / "u.img"],
            "apply": [kickstart, "--root", tmp_path]}.get(command, [kickstart])
    result = cli_without([module], command, *args)
    library = dependencies.LIBRARIES[module]
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == library.missing("edns-addon " + command) + "\n"
    assert result.stderr.startswith("edns-addon %s needs the Python package %s "
                                    % (command, package))
    assert "dnf install %s, or pip install '%s>=" % (library.rpm, package) in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ks.cfg"]


def test_a_pykickstart_without_certificate_is_named_unusable(tmp_path):
    # What pykickstart's main line 3.33 to 3.60 (and PyPI's 3.32, 3.52) are: no
    # CertificateSection; setup.py's minimum lets them through (dependencies.REQUIRED).
    kickstart = tmp_path / "ks.cfg"
    kickstart.write_text(edns_section("dns+tls://127.0.0.1:1#dot.example"))
    result = run_python(
        "import runpy, sys, pykickstart.sections, pykickstart.parser\n"
        "del pykickstart.sections.CertificateSection, pykickstart.parser.Certificate\n"
        "sys.argv[0] = 'edns-addon'\n"
        "runpy.run_module('org_edns_addon.cli', run_name='__main__')", "validate", kickstart)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(
        "edns-addon validate needs the Python package pykickstart 3.61 or later (a "
        "distribution's python3-kickstart 3.32.13 or later), but the installed pykickstart ")
    assert "cannot be used (cannot import name 'Certificate" in result.stderr
    assert result.stderr.endswith("install a release that fits (dnf install python3-kickstart, "
                                  "or pip install 'pykickstart>=3.61')\n")


# --- the installer image: what is missing is said in the module's report --------------------

MODULE_REPORT = """
from pykickstart.parser import Certificate
from org_edns_addon.ks.edns import EdnsData
from org_edns_addon.ks.module import parsed_kickstart
addon = EdnsData()
addon.handle_header(["--ca=dns-ca.pem"], 5)
addon.handle_line("dns+tls://192.0.2.53#dot.example", 6)
addon.handle_end()
certificate = Certificate(cert=open(sys.argv[1]).read(), filename="dns-ca.pem",
                          dir="/etc/pki/dns/")
certificate.lineno = 1
for problem in parsed_kickstart(addon, [certificate]).problems:
    print(problem)
"""


def module_report(tmp_path, test_ca, modules):
    """What the Anaconda module's report says about a kickstart with a %certificate and
    our section, with MODULES hidden (the module's own code path, without pyanaconda)."""
    pem = tmp_path / "ca.pem"
    pem.write_text(test_ca.pem)
    result = run_python(hidden(modules, MODULE_REPORT), pem)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_without_cryptography_the_report_says_the_certificates_cannot_be_checked(tmp_path,
                                                                                 test_ca):
    report = module_report(tmp_path, test_ca, ["cryptography"])
    assert report[0] == ("<kickstart>:1: error: checking a %certificate needs the Python "
                         "package cryptography 36.0.1 or later, which is not installed; "
                         "install it (dnf install python3-cryptography, or pip install "
                         "'cryptography>=36.0.1')")
    [warning] = report[1:]
    assert warning.startswith("<kickstart>: warning: this installer has no usable cryptography "
                              "(python3-cryptography: ")
    assert warning.endswith("): the %certificate sections cannot be checked, so a kickstart "
                            "with them is refused; build the addon's RPM into the installer "
                            "image (it requires python3-cryptography), an updates image cannot "
                            "carry it")


def test_without_dnspython_the_report_warns_that_the_check_is_unavailable(tmp_path, test_ca):
    [warning] = module_report(tmp_path, test_ca, ["dns"])
    assert warning.startswith("<kickstart>: warning: this installer has no usable dnspython "
                              "(python3-dns: ")
    assert warning.endswith("): the pre-flight check of the DNS servers is not available (the "
                            "installation itself does not need it); boot with an updates image "
                            "made by edns-addon updates-img, which carries dnspython, or build "
                            "the addon's RPM into the installer image")


def test_a_dnspython_made_for_a_newer_python_is_named_unusable(tmp_path, test_ca):
    # dnspython 2.8 on EL9's Python 3.9: `int | str` in an annotation raises TypeError.
    package = tmp_path / "lib" / "dns"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "message.py").write_text("raise TypeError(\"unsupported operand type(s) for |: "
                                        "'type' and 'type'\")\n")
    pem = tmp_path / "ca.pem"
    pem.write_text(test_ca.pem)
    result = run_python("import sys\nsys.path.insert(0, %r)\n" % str(tmp_path / "lib") +
                        MODULE_REPORT, pem)
    assert result.stdout == (
        "<kickstart>: warning: this installer has no usable dnspython (python3-dns: "
        "unsupported operand type(s) for |: 'type' and 'type'): the pre-flight check of the "
        "DNS servers is not available (the installation itself does not need it); boot with "
        "an updates image made by edns-addon updates-img, which carries dnspython, or build "
        "the addon's RPM into the installer image\n"), result.stderr


def test_the_check_without_dnspython_raises_the_sentence_not_a_timeout():
    result = run_python(hidden(["dns"], """
from org_edns_addon.dependencies import Unusable
from org_edns_addon.model import DotServer, EdnsConfig
from org_edns_addon.probe.check import check_servers
config = EdnsConfig(servers=(DotServer.parse_uri("dns+tls://127.0.0.1:1#dot.example"),))
try:
    check_servers(config, timeout=2)
except Unusable as error:
    print(error)
"""))
    assert result.stdout == (
        "the pre-flight check of the DNS servers needs the Python package dnspython 2.3.0 or "
        "later, which is not installed; install it (dnf install python3-dns, or pip install "
        "'dnspython>=2.3.0')\n"), result.stderr
