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

"""certificates/placement.py: where a certificate may land, the same for validate, apply
and overlay."""

import re
import shlex
import subprocess

import pytest

from lab import certs
from lab.kickstarts import CA_FILENAME, certificate_section, edns_kickstart
from org_edns_addon import constants as c
from org_edns_addon.certificates.placement import landing_problem
from org_edns_addon import initrd
from org_edns_addon.initrd import overlay_plan
from org_edns_addon.model import Phase
from org_edns_addon.staging.freeipa import handover_unit
from org_edns_addon.staging.plan import build_plan
from tests.conftest import run_cli
from tests.ks_fixtures import parse


REFUSED_PLACES = [
    # rule 1: what the addon writes, which must stay a file
    ("/etc/NetworkManager/conf.d/60-edns-global-dns.conf/", "x.pem",
     "--dir places this certificate at /etc/NetworkManager/conf.d/60-edns-global-dns.conf/"
     "x.pem, below /etc/NetworkManager/conf.d/60-edns-global-dns.conf, a file this addon "
     "writes, which must stay a file; choose another --dir"),
    ("/etc/resolv.conf/", "x.pem",
     "--dir places this certificate at /etc/resolv.conf/x.pem, below /etc/resolv.conf, a "
     "file this addon writes, which must stay a file; choose another --dir"),
    # the copy of our Unbound file the FreeIPA handover unit puts back (--backend=unbound):
    # a certificate there would be replaced, or become Unbound's configuration in conf.d
    ("/etc/unbound/", "edns-forward.conf.kept",
     "--dir and --filename place this certificate at /etc/unbound/edns-forward.conf.kept, "
     "a file this addon writes; choose another --dir or --filename"),
    ("/etc/unbound/edns-forward.conf.kept/", "x.pem",
     "--dir places this certificate at /etc/unbound/edns-forward.conf.kept/x.pem, below "
     "/etc/unbound/edns-forward.conf.kept, a file this addon writes, which must stay a "
     "file; choose another --dir"),
    ("/var/lib/edns-addon/", "x.pem",
     "--dir places this certificate at /var/lib/edns-addon/x.pem, in /var/lib/edns-addon, "
     "where edns-addon keeps the record of what it wrote; choose another --dir"),
    # ... and no file of the system trust store of any line: the bundle every line has,
    # and the one Fedora 43 dropped, which EL9, EL10 and Fedora 42 still have.
    ("/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem/", "x.pem",
     "--dir places this certificate at /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem/"
     "x.pem, below /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem, the system's trust "
     "store, which must stay a file; choose another --dir"),
    ("/etc/pki/tls/certs/ca-bundle.crt/", "x.pem",
     "--dir places this certificate at /etc/pki/tls/certs/ca-bundle.crt/x.pem, below "
     "/etc/pki/tls/certs/ca-bundle.crt, the system's trust store, which must stay a file; "
     "choose another --dir"),
    ("/etc/pki/java/cacerts/", "x.pem",
     "--dir places this certificate at /etc/pki/java/cacerts/x.pem, below "
     "/etc/pki/java/cacerts, the system's trust store, which must stay a file; "
     "choose another --dir"),
    # rule 2: the top of the file system, dracut's /init
    ("/", "init",
     "--dir=/ places this certificate at /init, at the top of the file system, where the "
     "initramfs has /init and the system its top-level directories; give it a directory of "
     "its own, like --dir=/etc/pki/dns/"),
    ("/init/", "x.pem",
     "--dir places this certificate at /init/x.pem, below /init, a file the initramfs needs "
     "to start, which must stay a file; choose another --dir"),
    # rule 3: programs, libraries, kernel
    ("/usr/lib/", "x.pem",
     "--dir places this certificate at /usr/lib/x.pem, in /usr, which holds the system's "
     "programs, libraries, kernel or boot files (or is a kernel file system); place it below "
     "/etc/pki/ or /usr/share/pki/ instead"),
    ("/boot/", "vmlinuz",
     "--dir places this certificate at /boot/vmlinuz, in /boot, which holds the system's"),
    # rule 4: the system's tables directly in /etc
    ("/etc/", "passwd",
     "--dir=/etc places this certificate at /etc/passwd, among the system's own configuration "
     "files (passwd, fstab, hosts, ...); give it a directory of its own, like "
     "--dir=/etc/pki/dns/"),
    ("/etc/passwd/", "x.pem",
     "--dir places this certificate at /etc/passwd/x.pem, below /etc/passwd, a file the "
     "system needs to start, which must stay a file; choose another --dir"),
    # rule 5: configuration read at boot or login
    ("/etc/systemd/system/", "x.pem",
     "--dir places this certificate at /etc/systemd/system/x.pem, in /etc/systemd, whose "
     "every file is read as configuration at boot or at login; choose another --dir, like "
     "/etc/pki/dns/"),
]
# Where Anaconda's own tests and users place them: accepted by all three.
ACCEPTED_PLACES = ["/cert_dir/",            # pyanaconda's tests (test_certificates_kickstart)
                   "/etc/pki/dns/", "/etc/ssl/certs/", "/etc/pki/ca-trust/source/anchors/",
                   "/usr/share/pki/ca-trust-source/anchors/", "/run/install/certificates/x/"]


def _placed_kickstart(write_ks, test_ca, directory, filename):
    text = edns_kickstart(test_ca.pem, certificates=(
        certificate_section(test_ca.pem) +
        certificate_section(certs.make_ca("Placed").pem, filename, "--dir=%s" % directory)))
    header = "%%certificate --filename=%s --dir=%s" % (filename, directory)
    return write_ks(text), text.splitlines().index(header) + 1


@pytest.mark.parametrize("directory, filename, sentence", REFUSED_PLACES,
                         ids=[d + f for d, f, _s in REFUSED_PLACES])
def test_validate_apply_and_overlay_refuse_a_place_alike(write_ks, test_ca, tmp_path,
                                                         directory, filename, sentence):
    kickstart, line = _placed_kickstart(write_ks, test_ca, directory, filename)
    said = "%s:%d: error: %s" % (kickstart, line, sentence)
    root = tmp_path / "root"
    root.mkdir()
    image = tmp_path / "o.img"

    validated = run_cli("validate", kickstart)
    applied = run_cli("apply", kickstart, "--root", root)
    packed = run_cli("overlay", kickstart, "-o", image)

    assert validated.returncode == 1 and said in validated.stdout, validated.stdout
    for result in (applied, packed):
        assert result.returncode == 1, result.stderr
        assert "Traceback" not in result.stderr
        assert said in result.stderr, result.stderr
    assert list(root.iterdir()) == [] and not image.exists()


@pytest.mark.parametrize("directory", ACCEPTED_PLACES)
def test_validate_apply_and_overlay_accept_a_place_alike(write_ks, test_ca, tmp_path,
                                                         directory):
    kickstart, _line = _placed_kickstart(write_ks, test_ca, directory, "placed.pem")
    root = tmp_path / "root"
    root.mkdir()
    for result in (run_cli("validate", kickstart),
                   run_cli("apply", kickstart, "--root", root),
                   run_cli("overlay", kickstart, "-o", tmp_path / "o.img")):
        assert result.returncode == 0, (result.stdout, result.stderr)
    assert (root / directory.lstrip("/") / "placed.pem").exists()


@pytest.mark.parametrize("backend", ["dnsconfd", "unbound"])
def test_every_file_the_addon_writes_or_moves_one_to_is_a_refused_place(write_ks, test_ca,
                                                                       backend):
    """The places rule 1 refuses are derived from the constants; here they are held against
    what the plans write (both phases, and the overlay) and every file the FreeIPA handover
    unit names (rule 1, or rule 5 for conf.d's)."""
    parsed = parse(write_ks(edns_kickstart(test_ca.pem, "--ca=%s --backend=%s"
                                           % (CA_FILENAME, backend))))
    data = parsed.staging_input()
    written = {planned.path for phase in Phase for planned in
               build_plan(data, phase, "/").files} | {
                   planned.path for planned in overlay_plan(parsed).files}
    written -= {cert.path for cert in data.certificates}
    # The initramfs's hooks: rule 3 (/lib) and rule 5 (/var/lib/dracut/hooks).
    written -= set(initrd.PRE_PIVOT_HOOK_PATHS)
    for hook in initrd.PRE_PIVOT_HOOK_PATHS:
        assert landing_problem(hook) is not None, hook
    unit = handover_unit().decode("ascii")
    named = set(re.findall(r"/etc/[^\s';]+", re.search(r"^ExecStart=(.+)$", unit,
                                                        re.M).group(1)))
    assert written <= set(c.ADDON_WRITTEN_PATHS)
    assert c.UNBOUND_CONF_KEPT_PATH in named
    for path in written | named:
        if path != c.DOT_CA_BUNDLE_PATH:
            assert landing_problem(path) is not None, path
            assert landing_problem(path + "/x.pem") is not None, path


def test_the_handover_unit_would_put_a_certificate_at_the_kept_place_into_conf_d(tmp_path):
    """Why the kept copy's place is refused: once FreeIPA's forwarder is gone, the unit's
    own ExecStart, run on a root where a %certificate lay there, copies it into Unbound's
    conf.d as our forwarder."""
    root = tmp_path / "root"
    (root / c.UNBOUND_CONF_DIR.lstrip("/")).mkdir(parents=True)
    certificate = root / c.UNBOUND_CONF_KEPT_PATH.lstrip("/")
    certificate.write_text(certs.make_ca("Placed").pem)
    command = re.search(r"^ExecStart=(.+)$", handover_unit().decode("ascii"), re.M).group(1)
    subprocess.run(shlex.split(command.replace("/etc/", "%s/etc/" % root)), check=True,
                   timeout=60)
    assert (root / c.UNBOUND_CONF_PATH.lstrip("/")).read_text() == certificate.read_text()


# --- what OpenSSL's PEM reader and p11-kit take (tests/ks_fixtures.py PeerPemForms) -----
