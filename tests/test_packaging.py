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

"""The shipped layout: `make install DESTDIR=...`, the updates image, the D-Bus files, the spec."""

import configparser
import fnmatch
import gettext
import gzip
import os
import re
import shutil
import stat
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

from importlib import metadata
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from org_edns_addon.constants import CARRIED_LIBRARIES_DIR as CARRIED
from org_edns_addon.constants import TRANSLATION_DOMAIN
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.packaging import MANUAL_PAGE
from tests.conftest import REPO, assert_sentence, run_cli
from tests.i18n_fixtures import german_po

ADDON = "usr/share/anaconda/addons/org_edns_addon"
SERVICE_FILE = "usr/share/anaconda/dbus/services/org.fedoraproject.Anaconda.Addons.Edns.service"
CONF_FILE = "usr/share/anaconda/dbus/confs/org.fedoraproject.Anaconda.Addons.Edns.conf"
SPEC = REPO / "edns-anaconda-addon.spec"
LOCALE = "usr/share/locale"
GERMAN_MO = "/%s/de/LC_MESSAGES/%s.mo" % (LOCALE, TRANSLATION_DOMAIN)

# In a parallel run (make test: --dist loadgroup) these tests stay on one worker: they
# share the module's rpmbuild and layout set-ups.
pytestmark = pytest.mark.xdist_group("packaging")


def source_files():
    """What the layout must hold: every .py of the package, the graphical spoke's glade
    file and icon, and the two D-Bus files."""
    expected = {}
    package = REPO / "org_edns_addon"
    for pattern in ("*.py", "*.glade", "*.svg"):
        for path in package.rglob(pattern):
            expected["%s/%s" % (ADDON, path.relative_to(package))] = path
    expected[SERVICE_FILE] = REPO / "data" / os.path.basename(SERVICE_FILE)
    expected[CONF_FILE] = REPO / "data" / os.path.basename(CONF_FILE)
    return expected


def files_below(root):
    found = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            found[os.path.relpath(path, root)] = path
    return found


def carried_files():
    """What the updates image carries besides the addon: this Python's dnspython, as
    {path below the root: source file}, and the name of its METADATA below the root."""
    import dns

    package = Path(dns.__file__).parent
    carried = {"%s/%s/dns/%s" % (ADDON, CARRIED, path.relative_to(package)): path
               for path in package.rglob("*") if path.suffix in (".py", ".typed")
               and "__pycache__" not in path.parts}
    info = "%s/%s/dnspython-%s.dist-info/METADATA" % (ADDON, CARRIED, metadata.version(
        "dnspython"))
    return carried, info


def assert_layout(root, carried=False, manual=False):
    """ROOT holds exactly the expected files (with CARRIED, also the libraries the updates
    image carries; with MANUAL, edns-addon(1) as make install writes it), each equal to its
    source, mode 0644."""
    expected = source_files()
    installed = files_below(root)
    if manual:
        page = installed.pop(MANUAL_PAGE.lstrip("/"))
        assert stat.S_IMODE(os.stat(page).st_mode) == 0o644
        assert Path(page).read_text().startswith(".TH EDNS\\-ADDON 1 ")
    if carried:
        libraries, info = carried_files()
        expected.update(libraries)
        assert installed.pop(info) and metadata.metadata("dnspython")["Name"] in \
            Path(root, info).read_text()
    assert sorted(installed) == sorted(expected)
    for relative, source in expected.items():
        with open(installed[relative], "rb") as stream:
            assert stream.read() == source.read_bytes(), relative
        assert stat.S_IMODE(os.stat(installed[relative]).st_mode) == 0o644, relative


@pytest.fixture(scope="module")
def updates_image(tmp_path_factory):
    path = tmp_path_factory.mktemp("updates") / "updates.img"
    result = run_cli("updates-img", "-o", path)
    assert result.returncode == 0, result.stderr
    assert "wrote %s" % path in result.stdout
    return path


def test_make_install_puts_every_file_where_anaconda_looks(tmp_path):
    result = subprocess.run(["make", "-s", "install", "DESTDIR=%s" % tmp_path], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert_layout(tmp_path, manual=True)
    assert (tmp_path / ADDON / "service" / "__main__.py").is_file()


def test_updates_image_is_a_gzipped_newc_cpio_owned_by_root(updates_image):
    data = updates_image.read_bytes()
    assert data[:2] == b"\x1f\x8b"
    assert gzip.decompress(data)[:6] == b"070701"   # newc magic
    listing = subprocess.run(["cpio", "-itv", "--quiet"], input=gzip.decompress(data),
                             capture_output=True, timeout=60, check=True).stdout.decode()
    entries = [line.split() for line in listing.splitlines()]
    assert entries and all(fields[2:4] == ["root", "root"] for fields in entries)
    names = [fields[-1] for fields in entries]
    assert "." not in names and not any(name.startswith("/") for name in names)
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in names)


def test_updates_image_unpacks_to_the_install_layout(updates_image, tmp_path):
    subprocess.run(["cpio", "-idm", "--quiet", "--no-absolute-filenames"],
                   input=gzip.decompress(updates_image.read_bytes()), cwd=tmp_path,
                   timeout=60, check=True)
    assert_layout(tmp_path, carried=True)
    for directory, subdirs, _ in os.walk(tmp_path):
        for name in subdirs:
            assert stat.S_IMODE(os.stat(os.path.join(directory, name)).st_mode) == 0o755


def test_in_the_image_the_addon_loads_the_carried_dnspython_where_the_system_has_none(
        updates_image, tmp_path):
    # As Anaconda runs the module: the addons directory on PYTHONPATH (start-module),
    # and no dnspython on the system path (no installer image has it). That drops this
    # Python's site-packages, so cryptography is gone too, as in EL9's image.
    subprocess.run(["cpio", "-idm", "--quiet", "--no-absolute-filenames"],
                   input=gzip.decompress(updates_image.read_bytes()), cwd=tmp_path,
                   timeout=60, check=True)
    addons = tmp_path / "usr/share/anaconda/addons"
    result = subprocess.run([sys.executable, "-c", """
import os, sys
sys.path[:] = [p for p in sys.path if not os.path.isdir(os.path.join(p, "dns"))]
sys.path.insert(0, sys.argv[1])
from org_edns_addon.dependencies import installer_gaps, load
print(load("dns.message", "the check").__file__)
print("\\n".join(installer_gaps()))
""", str(addons)], env={"PATH": os.environ["PATH"]}, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    loaded, *gaps = result.stdout.splitlines()
    assert loaded == str(addons / ("org_edns_addon/%s/dns/message.py" % CARRIED))
    assert [gap.split(" (")[0] for gap in gaps] == [
        "this installer has no usable cryptography"]


def test_updates_img_says_which_installers_cannot_load_the_carried_dnspython(tmp_path):
    requires = SpecifierSet(metadata.metadata("dnspython").get("Requires-Python") or "")
    result = run_cli("updates-img", "-o", tmp_path / "u.img")
    assert result.returncode == 0, result.stderr
    if not requires.contains("3.9"):
        # This Python's dnspython is too new for EL9's 3.9 (2.8: >=3.10).
        assert result.stderr.startswith(
            "%s: note: the image carries dnspython %s, which needs Python 3." % (
                tmp_path / "u.img", metadata.version("dnspython")))
        assert "EL9's installer (Python 3.9) cannot load it (the module says so in its " \
            "report); for EL9" in result.stderr
    else:
        assert result.stderr == ""


def test_updates_image_is_byte_identical_when_built_twice(updates_image, tmp_path):
    again = tmp_path / "again.img"
    assert run_cli("updates-img", "-o", again).returncode == 0
    assert again.read_bytes() == updates_image.read_bytes()


def test_make_updates_img_writes_the_same_image(updates_image, tmp_path):
    built = tmp_path / "made.img"
    result = subprocess.run(["make", "-s", "-C", str(REPO), "updates.img",
                             "UPDATES_IMG=%s" % built], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert built.read_bytes() == updates_image.read_bytes()


def test_updates_img_to_an_unwritable_place_fails_with_a_sentence(tmp_path):
    result = run_cli("updates-img", "-o", tmp_path / "missing-dir" / "updates.img")
    assert result.returncode == 1
    assert "cannot write" in result.stderr and "Traceback" not in result.stderr


def test_dbus_service_file_starts_the_module_with_start_module():
    parser = configparser.ConfigParser()
    parser.read_string((REPO / "data" / os.path.basename(SERVICE_FILE)).read_text())
    section = parser["D-BUS Service"]
    assert section["Name"] == EDNS.service_name
    assert section["Exec"] == "/usr/libexec/anaconda/start-module org_edns_addon.service"
    assert section["User"] == "root"


def test_dbus_policy_lets_only_root_own_the_name():
    tree = ElementTree.parse(REPO / "data" / os.path.basename(CONF_FILE))
    policies = {(p.get("user") or p.get("context")): p for p in tree.getroot()}
    assert policies["root"].find("allow[@own='%s']" % EDNS.service_name) is not None
    assert policies["default"].find("deny[@own='%s']" % EDNS.service_name) is not None
    assert policies["default"].find(
        "allow[@send_destination='%s']" % EDNS.service_name) is not None


def rpmspec(*args):
    return subprocess.run(["rpmspec", *args, str(SPEC)], capture_output=True, text=True,
                          timeout=60)


def test_spec_parses_and_declares_the_dependencies():
    assert rpmspec("-P").returncode == 0
    requires = rpmspec("-q", "--requires").stdout.split()
    assert {"anaconda-core", "python3-kickstart", "python3-cryptography",
            "python3-dns"} <= set(requires)
    recommends = rpmspec("-q", "--qf", "[%{RECOMMENDNAME}\n]").stdout.split()
    assert set(recommends) == {"dnsconfd", "unbound"}


def test_spec_files_cover_the_install_layout():
    parsed = rpmspec("-P").stdout
    files = parsed.split("%files", 1)[1].split("%changelog", 1)[0].split()
    listed = [entry.lstrip("/") for entry in files if entry.startswith("/")]
    for relative in source_files():
        assert any(relative == entry or relative.startswith(entry + "/")
                   for entry in listed), relative


class BuiltRpms(dict):
    """{package name: path} of one `make rpm`, with what that build printed (its rpmlint
    run included) and whether the tree had a translation."""

    def __init__(self, paths, output, translated):
        super().__init__(paths)
        self.output = output
        self.translated = translated


@pytest.fixture(scope="module", params=["no translation", "a translation"])
def built_rpms(request, tmp_path_factory):
    """scripts/build-rpm.sh (what `make rpm` runs) on a copy of the tree's files, with this
    Python for the wheel and the import check: as the tree is (po/ holds no LANG.po yet) and
    with the German test catalogue as po/de.po (tests/i18n_fixtures.py)."""
    if shutil.which("rpmbuild") is None or shutil.which("rpmlint") is None:
        pytest.skip("rpmbuild or rpmlint is not installed (Debian: apt-get install rpm "
                    "rpmlint); make setup installs them")
    tree = tmp_path_factory.mktemp("tree")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO, capture_output=True,
                            check=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (REPO / name).is_file() and not fnmatch.fnmatch(name, "po/*.po"):
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, tree / name)
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True, timeout=60)
    translated = request.param == "a translation"
    if translated:
        (tree / "po" / "de.po").write_text(german_po(), encoding="utf-8")
    out = tmp_path_factory.mktemp("rpms")
    result = subprocess.run([str(tree / "scripts" / "build-rpm.sh"), str(out)],
                            env=dict(os.environ, PYTHON=sys.executable), cwd=tree,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return BuiltRpms({rpm_query(path, "%{NAME}"): path for path in out.glob("*.rpm")},
                     result.stdout + result.stderr, translated)


def rpm_query(path, *args):
    return subprocess.run(["rpm", "-qp", *(["--qf", args[0]] if len(args) == 1 and "%" in
                                           args[0] else args), str(path)],
                          capture_output=True, text=True, timeout=60, check=True).stdout


def test_rpmbuild_makes_the_addon_package_and_the_command_subpackage(built_rpms):
    assert sorted(built_rpms) == ["edns-addon", "edns-anaconda-addon"]
    addon_files = rpm_query(built_rpms["edns-anaconda-addon"], "-l").split()
    assert sorted(f.lstrip("/") for f in addon_files if os.path.splitext(f)[1]
                  in (".py", ".service", ".conf", ".glade", ".svg")) == sorted(source_files())
    command_files = rpm_query(built_rpms["edns-addon"], "-l").split()
    # Both hold the catalogues: the spokes and the command line translate through them.
    catalogues = [f for f in addon_files + command_files if f.endswith(".mo")]
    assert catalogues == ([GERMAN_MO, GERMAN_MO] if built_rpms.translated else [])
    assert "/usr/bin/edns-addon" in command_files
    assert any(f.startswith("/usr/share/man/man1/edns-addon.1") for f in command_files)
    sitelib = "/usr/lib/python%d.%d/site-packages" % sys.version_info[:2]
    assert "%s/org_edns_addon/cli/__init__.py" % sitelib in command_files
    assert not any(f.startswith("/usr/share/anaconda") for f in command_files)


def test_the_addon_package_requires_nothing_graphical(built_rpms):
    # A text-only installer image has no GTK: the addon must install there, and its
    # graphical spoke is only ever loaded by anaconda-gui, which brings GTK.
    requires = rpm_query(built_rpms["edns-anaconda-addon"], "--requires").lower()
    for graphical in ("gtk", "anaconda-gui", "gobject", "anacondawidgets", "xorg"):
        assert graphical not in requires, requires


def test_the_command_subpackage_requires_the_minimums_from_setup_py(built_rpms):
    from org_edns_addon import dependencies

    requires = rpm_query(built_rpms["edns-addon"], "--requires").splitlines()
    python = "python%d.%ddist" % sys.version_info[:2]
    for library in dependencies.REQUIRED:
        # rpm's generator writes a version as Python normalises it (2.3.0 -> 2.3).
        assert any(line.startswith("%s(%s) >= %s" % (python, library.distribution,
                                                      library.minimum.rstrip(".0")))
                   for line in requires), (library, requires)


def test_the_packaged_command_runs(built_rpms, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    payload = subprocess.run(["rpm2cpio", str(built_rpms["edns-addon"])], capture_output=True,
                             check=True, timeout=60).stdout
    subprocess.run(["cpio", "-idm", "--quiet"], input=payload, cwd=root, check=True, timeout=60)
    script = root / "usr" / "bin" / "edns-addon"
    assert script.read_text().startswith("#!/usr/bin/python3\n")
    sitelib = root / ("usr/lib/python%d.%d/site-packages" % sys.version_info[:2])
    example = REPO / "data" / "examples" / "corp-dot.ks"
    result = subprocess.run([sys.executable, str(script), "validate", str(example)],
                            env=dict(os.environ, PYTHONPATH=str(sitelib)), cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout) == (0, "%s: 0 errors, 0 warnings\n" % example)
    if not built_rpms.translated:
        return
    # In German, from the catalogue the package installed.
    bad = tmp_path / "bad.ks"
    bad.write_text("%addon org_edns_addon\ndns+tls://192.0.2.54\n%end\n")
    result = subprocess.run([sys.executable, str(script), "validate", str(bad)],
                            env=dict(os.environ, PYTHONPATH=str(sitelib), LANGUAGE="de",
                                     LC_ALL="C.UTF-8", TEXTDOMAINDIR=str(root / LOCALE)),
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "der DoT-Server dns+tls://192.0.2.54 hat keinen TLS-Namen" in result.stdout, \
        result.stdout + result.stderr


def test_make_rpm_ends_with_rpmlint_clean_on_the_spec_and_both_packages(built_rpms):
    # One run over the spec and both packages: a filter of the rpmlintrc that matches
    # nothing there is an error ("unused-rpmlintrc-filter"), so this also holds the
    # rpmlintrc to filters that are needed.
    assert "2 packages and 1 specfiles checked; 0 errors, 0 warnings, 0 badness" \
        in built_rpms.output, built_rpms.output


def test_the_spec_names_the_project_home_and_its_release_tarball():
    url, version = rpmspec("-q", "--srpm", "--qf", "%{URL} %{VERSION}").stdout.split()
    assert url.startswith("https://")
    sources = rpmspec("-P").stdout
    assert "Source0:        %s/archive/v%s/edns-anaconda-addon-%s.tar.gz" % (
        url, version, version) in sources.splitlines(), sources


def make_install(destdir):
    return subprocess.run(["make", "-s", "install", "DESTDIR=%s" % destdir], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_make_install_refuses_a_symlink_leading_out_of_destdir(tmp_path):
    destdir, outside = tmp_path / "dest", tmp_path / "outside"
    destdir.mkdir()
    outside.mkdir()
    (destdir / "usr").symlink_to(outside)
    result = make_install(destdir)
    assert_sentence(result, 2, "not installed: nothing was written: %s/usr is a symlink to "
                    "%s, outside %s" % (destdir, outside, destdir))
    assert list(outside.iterdir()) == []


def test_make_install_onto_a_file_is_a_sentence(tmp_path):
    destdir = tmp_path / "file"
    destdir.write_text("x\n")
    result = make_install(destdir)
    assert_sentence(result, 2, "not installed: cannot install below %s: %s: File exists"
                    % (destdir, destdir))
    assert destdir.read_text() == "x\n"


def test_install_to_an_empty_destdir_is_refused(tmp_path):
    result = run_cli("--destdir", "", module="org_edns_addon.packaging", cwd=tmp_path)
    assert_sentence(result, 1, "not installed: the destination directory is empty")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def source_copy(tmp_path):
    """A copy of the checkout's package, data/ and po/, to plant things in."""
    copy = tmp_path / "checkout"
    shutil.copytree(REPO / "org_edns_addon", copy / "org_edns_addon",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "data", copy / "data")
    shutil.copytree(REPO / "po", copy / "po")
    return copy


def build_from(copy, *args):
    """`edns-addon ARGS` (updates-img) or `python3 -m org_edns_addon.packaging` (install)
    run from COPY as a real process."""
    env = dict(os.environ, PYTHONPATH=str(copy))
    return subprocess.run([sys.executable, "-m", *args], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=120)


def both_builds(copy, out):
    return [build_from(copy, "org_edns_addon.cli", "updates-img", "-o", out / "updates.img"),
            build_from(copy, "org_edns_addon.packaging", "--destdir", out / "root")]


@pytest.mark.parametrize("planted", ["file", "directory"])
def test_a_symbolic_link_in_the_source_tree_is_refused_by_name(source_copy, tmp_path, planted):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "shadow.py").write_text("the builder's secret\n")
    os.chmod(secret / "shadow.py", 0o600)
    link = source_copy / "org_edns_addon" / ("leak.py" if planted == "file" else "leak")
    link.symlink_to(secret / "shadow.py" if planted == "file" else secret)
    out = tmp_path / "out"
    out.mkdir()
    for result in both_builds(source_copy, out):
        assert result.returncode == 1, result.stdout
        assert "%s is a symbolic link" % link in result.stderr
        assert "Traceback" not in result.stderr
    assert not (out / "updates.img").exists()
    assert not (out / "root").exists() or "the builder's secret" not in "".join(
        path.read_text() for path in (out / "root").rglob("*.py"))


def test_a_fifo_in_the_source_tree_is_refused_as_a_fifo_without_blocking(source_copy, tmp_path):
    fifo = source_copy / "org_edns_addon" / "pipe.py"
    os.mkfifo(fifo)
    out = tmp_path / "out"
    out.mkdir()
    for result in both_builds(source_copy, out):
        assert result.returncode == 1
        assert "%s is a FIFO" % fifo in result.stderr, result.stderr
    assert not (out / "updates.img").exists()


def test_the_layout_keeps_a_source_file_unreadable_to_others(source_copy, tmp_path):
    private = source_copy / "org_edns_addon" / "constants.py"
    os.chmod(private, 0o600)
    os.chmod(source_copy / "org_edns_addon" / "echo.py", 0o666)
    out = tmp_path / "out"
    out.mkdir()
    image, install = both_builds(source_copy, out)
    assert image.returncode == 0 and install.returncode == 0, image.stderr + install.stderr
    installed = out / "root" / ADDON
    assert stat.S_IMODE((installed / "constants.py").stat().st_mode) == 0o600
    assert stat.S_IMODE((installed / "echo.py").stat().st_mode) == 0o644
    listing = subprocess.run(["cpio", "-itv", "--quiet"], input=gzip.decompress(
        (out / "updates.img").read_bytes()), capture_output=True, timeout=60).stdout.decode()
    assert re.search(r"^-rw------- .* %s/constants.py$" % ADDON, listing, re.MULTILINE)
    assert re.search(r"^-rw-r--r-- .* %s/echo.py$" % ADDON, listing, re.MULTILINE)


def test_each_translation_is_compiled_into_the_locale_directory(source_copy, tmp_path):
    (source_copy / "po" / "de.po").write_text(german_po(), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    image, install = both_builds(source_copy, out)
    assert image.returncode == 0 and install.returncode == 0, image.stderr + install.stderr
    installed = out / "root" / GERMAN_MO.lstrip("/")
    assert stat.S_IMODE(installed.stat().st_mode) == 0o644
    german = gettext.translation(TRANSLATION_DOMAIN, localedir=str(out / "root" / LOCALE),
                                 languages=["de"])
    assert german.gettext("_Encrypted DNS") == "_Verschlüsseltes DNS"
    assert german.ngettext("%d error", "%d errors", 2) == "%d Fehler"
    listing = subprocess.run(["cpio", "-it", "--quiet"], input=gzip.decompress(
        (out / "updates.img").read_bytes()), capture_output=True, timeout=60).stdout.decode()
    assert GERMAN_MO.lstrip("/") in listing.split()


@pytest.mark.parametrize("given, broken", [
    ('msgstr[0] "%d Fehler"', 'msgstr[0] "Fehler"'),                     # one too few
    ('like %s#dot.example"', 'like %s#dot.example %s"'),                  # one too many
    ('"%(count)d DoT-Server, %(mode)s"', '"%(anzahl)d DoT-Server, %(mode)s"'),  # renamed
], ids=["drops a placeholder", "adds a placeholder", "renames a placeholder"])
def test_a_translation_whose_placeholders_do_not_fit_is_refused_by_name(source_copy, tmp_path,
                                                                      given, broken):
    assert given in german_po()
    po = source_copy / "po" / "de.po"
    po.write_text(german_po().replace(given, broken, 1), encoding="utf-8")
    shutil.copy(REPO / "Makefile", source_copy / "Makefile")
    out = tmp_path / "out"
    out.mkdir()
    for result in both_builds(source_copy, out):
        assert result.returncode == 1, result.stdout
        assert "%s is not a valid translation: " % po in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert not (out / "updates.img").exists() and not (out / "root").exists()
    # make potfile and make update-po check every catalogue the same way.
    checked = subprocess.run(["make", "--no-print-directory", "check-po"], cwd=source_copy,
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode != 0
    assert "check-po: po/de.po is not a valid translation" in checked.stderr, checked.stderr
    po.write_text(german_po(), encoding="utf-8")
    checked = subprocess.run(["make", "--no-print-directory", "check-po"], cwd=source_copy,
                             capture_output=True, text=True, timeout=120)
    assert (checked.returncode, checked.stdout) == (0, "check-po: po/de.po\n"), checked.stderr


def test_the_text_ui_loads_in_an_image_without_gtk():
    # A text-only installer image has no GTK: the text UI and everything it shares with
    # the graphical one load without it (the spoke's own module needs pyanaconda, which
    # tests/test_tui_spoke.py loads).
    code = ("import sys\n"
            "sys.modules['gi.repository.Gtk'] = sys.modules['gi.repository.Gdk'] = None\n"
            "import org_edns_addon.tui.app, org_edns_addon.tui.screens\n"
            "import org_edns_addon.ui.editor, org_edns_addon.ui.module_client\n"
            "import org_edns_addon.ui.words, org_edns_addon.gui\n"
            "print('loaded')\n")
    result = subprocess.run([sys.executable, "-c", code], env=dict(os.environ,
                            PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout) == (0, "loaded\n"), result.stderr
