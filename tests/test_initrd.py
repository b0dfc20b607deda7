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

"""The installer initrd overlay, and the target initramfs built by real dracut."""

import gzip
import os
import re
import subprocess

import pytest

from lab.kickstarts import certificate_section, edns_kickstart, ksvalidator_env
from org_edns_addon import constants as c
from org_edns_addon import initrd
from org_edns_addon.staging import apply as staging_apply
from org_edns_addon.staging import networkmanager
from org_edns_addon.ks.reader import parse_kickstart
from tests.conftest import run_cli
from tests.staging_fixtures import (in_mount_namespace, require_namespaces, require_tools,
                                    staging_input, walk_initramfs)

INSTALLER_FILES = {
    "etc/pki/dns/dns-ca.pem": 0o100644,
    "etc/pki/dns/extracted/pem/tls-ca-bundle.pem": 0o100644,
    "etc/NetworkManager/conf.d/60-edns-global-dns.conf": 0o100644,
}
HOOK = initrd.PRE_PIVOT_HOOK_PATHS[0].lstrip("/")
HOOKS = [path.lstrip("/") for path in initrd.PRE_PIVOT_HOOK_PATHS]
# In the initramfs alone: Unbound waits for dnsconfd's configuration (staging/dnsconfd.py).
UNBOUND_DROPIN = c.UNBOUND_DNSCONFD_DROPIN_PATH.lstrip("/")
OVERLAY_FILES = dict(INSTALLER_FILES, **{"edns-ks.cfg": 0o100600, UNBOUND_DROPIN: 0o100644},
                     **{hook: 0o100755 for hook in HOOKS})
LISTED = re.compile(r"^[-dl][-rwxsStT]{9}\s")   # an `ls -l` style entry line
OVERLAY_DIRS = ["etc", "etc/NetworkManager", "etc/NetworkManager/conf.d", "etc/pki",
                "etc/pki/dns", "etc/pki/dns/extracted", "etc/pki/dns/extracted/pem",
                "etc/systemd", "etc/systemd/system", "etc/systemd/system/unbound.service.d"]


def overlay_of(parsed):
    return initrd.overlay_image(initrd.overlay_plan(parsed))


# --- tests ------------------------------------------------------------------------------

@pytest.fixture
def overlay_ks(write_ks, test_ca):
    """A kickstart written with the top-level %edns spelling, which ksvalidator refuses."""
    return write_ks(edns_kickstart(test_ca.pem, spelling="%edns"), "edns.ks")


@pytest.fixture
def overlay_image(overlay_ks, tmp_path):
    image = tmp_path / "overlay.img"
    result = run_cli("overlay", overlay_ks, "-o", image)
    assert result.returncode == 0, result.stderr
    return image


def test_overlay_is_a_gzipped_newc_archive_of_root_owned_files(overlay_image):
    entries = walk_initramfs(overlay_image.read_bytes())
    assert sorted(entries) == sorted(list(OVERLAY_FILES) + OVERLAY_DIRS)
    assert {name: e.mode for name, e in entries.items() if name in OVERLAY_FILES} == \
        OVERLAY_FILES
    assert {e.mode for name, e in entries.items() if name in OVERLAY_DIRS} == {0o40755}
    assert {(e.uid, e.gid) for e in entries.values()} == {(0, 0)}


def test_cpio_and_lsinitrd_list_the_overlay_with_owners_and_modes(overlay_image):
    require_tools("cpio", "lsinitrd")
    listing = subprocess.run(["cpio", "-itv"], input=gzip.decompress(overlay_image.read_bytes()),
                             capture_output=True, timeout=60).stdout.decode()
    lsinitrd = subprocess.run(["lsinitrd", str(overlay_image)], capture_output=True, text=True,
                              timeout=60).stdout
    for text in (listing, lsinitrd):
        lines = {line.split()[-1]: line.split() for line in text.splitlines()
                 if LISTED.match(line)}
        assert lines["edns-ks.cfg"][0] == "-rw-------"
        assert lines["etc/pki/dns/dns-ca.pem"][0] == "-rw-r--r--"
        assert lines["etc/pki/dns/extracted/pem"][0] == "drwxr-xr-x"
        assert lines[HOOK][0] == "-rwxr-xr-x"
        assert {(fields[2], fields[3]) for fields in lines.values()} == {("root", "root")}
        assert set(lines) == set(OVERLAY_FILES) | set(OVERLAY_DIRS)


def test_the_kickstart_inside_is_the_addon_form_and_passes_ksvalidator(overlay_image,
                                                                      overlay_ks, tmp_path):
    require_tools("ksvalidator")
    inside = tmp_path / "inside.ks"
    inside.write_bytes(walk_initramfs(overlay_image.read_bytes())["edns-ks.cfg"].data)

    scratch = tmp_path / "tmp"   # ksvalidator's leftover copies (lab.kickstarts.ksvalidator_env)
    scratch.mkdir()
    assert subprocess.run(["ksvalidator", overlay_ks], capture_output=True,
                          env=ksvalidator_env(scratch)).returncode != 0
    checked = subprocess.run(["ksvalidator", str(inside)], capture_output=True, text=True,
                             env=ksvalidator_env(scratch))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "%addon org_edns_addon --ca=dns-ca.pem\n" in inside.read_text()
    parsed = parse_kickstart(str(inside))
    assert parsed.errors == [] and parsed.config == parse_kickstart(overlay_ks).edns.to_config()


def test_the_overlay_files_are_the_installer_phase_files(overlay_image, tmp_path):
    entries = walk_initramfs(overlay_image.read_bytes())
    root = tmp_path / "installer"
    root.mkdir()
    # What the installer reads is the kickstart inside the overlay.
    inside = tmp_path / "inside.ks"
    inside.write_bytes(entries["edns-ks.cfg"].data)
    assert run_cli("apply", inside, "--root", root, "--phase", "installer").returncode == 0
    for name in INSTALLER_FILES:
        assert entries[name].data == (root / name).read_bytes()


def test_the_hook_is_a_file_in_both_hook_directories_without_entries_for_them(overlay_image):
    # dracut reads /lib/dracut/hooks up to dracut-ng 109, /var/lib/dracut/hooks from 110 on;
    # in the images /lib is a symlink to usr/lib, and from 103 to 109 usr/lib/dracut/hooks
    # one to var/lib/dracut/hooks: the kernel would replace a symlink by a directory entry
    # of that name, and with it every hook dracut put there.
    entries = walk_initramfs(overlay_image.read_bytes())
    assert HOOKS == ["lib/dracut/hooks/pre-pivot/93-edns-addon.sh",
                     "var/lib/dracut/hooks/pre-pivot/93-edns-addon.sh"]
    assert entries[HOOKS[0]].data == entries[HOOKS[1]].data
    assert not {name for name in entries if name in initrd.IMAGE_DIRECTORIES
                or name.startswith(("usr", "var")) and name not in HOOKS}


def run_hook(entries, names, tmp_path):
    """Source the overlay's hook as dracut does, with NEWROOT set and the files NAMES of
    ENTRIES (the overlay) over /etc in a private mount namespace, as in the initramfs;
    returns (the CompletedProcess, NEWROOT)."""
    require_namespaces()
    upper = tmp_path / "initramfs"
    for name in names:
        (upper / name).parent.mkdir(parents=True, exist_ok=True)
        (upper / name).write_bytes(entries[name].data)
        (upper / name).chmod(0o600)     # the hook sets the plan's mode, not this one
    hook = tmp_path / "hook.sh"
    hook.write_bytes(entries[HOOK].data)
    newroot = tmp_path / "sysroot"
    newroot.mkdir()
    result = in_mount_namespace(
        'mount -t overlay overlay -o "lowerdir=%s/etc:/etc" /etc\ncd %s\n'
        'NEWROOT=%s; . %s; set | grep _edns || echo "nothing left"'
        % (upper, tmp_path, newroot, hook))
    return result, newroot


def test_the_hook_copies_the_installer_files_into_the_new_root_with_their_modes(
        overlay_image, tmp_path):
    entries = walk_initramfs(overlay_image.read_bytes())
    result, newroot = run_hook(entries, INSTALLER_FILES, tmp_path)

    assert result.returncode == 0, result.stderr
    assert result.stdout == "nothing left\n" and result.stderr == ""
    copied = {str(path.relative_to(newroot)): path for path in newroot.rglob("*")
              if path.is_file()}
    assert sorted(copied) == sorted(INSTALLER_FILES)
    for name, path in copied.items():
        assert path.read_bytes() == entries[name].data
        assert path.stat().st_mode == INSTALLER_FILES[name]


def test_the_hook_quotes_every_path_for_the_shell(write_ks, test_ca, tmp_path):
    name = "ca$HOME;`touch${IFS}x`&*(1).pem"
    ks = write_ks(edns_kickstart(test_ca.pem, "--ca=" + name,
                                 certificates=certificate_section(test_ca.pem, name)))
    entries = walk_initramfs(overlay_of(parse_kickstart(ks)))
    certificate = "etc/pki/dns/" + name
    result, newroot = run_hook(entries, [certificate], tmp_path)

    assert result.returncode == 0, result.stderr
    assert (newroot / certificate).read_bytes() == entries[certificate].data
    assert not (tmp_path / "x").exists()


def test_the_hook_says_which_file_it_could_not_copy(overlay_image, tmp_path):
    hook = tmp_path / "hook.sh"
    hook.write_bytes(walk_initramfs(overlay_image.read_bytes())[HOOK].data)
    # Not in the initramfs (nothing lies over /etc here): said on stderr, nothing copied.
    result = subprocess.run(["sh", "-c", 'NEWROOT="$1"; . "$0"', str(hook), str(tmp_path / "r")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "edns-addon: could not copy /etc/pki/dns/dns-ca.pem into %s" % (tmp_path / "r") \
        in result.stderr
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").rglob("*.pem"))


def test_the_same_kickstart_gives_the_same_overlay_bytes(overlay_ks):
    parsed = parse_kickstart(overlay_ks)
    assert overlay_of(parsed) == overlay_of(parse_kickstart(overlay_ks))


def test_overlay_of_an_unbound_kickstart_configures_dnsconfd_for_the_initramfs(write_ks,
                                                                                  test_ca):
    parsed = parse_kickstart(write_ks(edns_kickstart(test_ca.pem, "--backend=unbound")))
    entries = walk_initramfs(overlay_of(parsed))
    keyfile = entries[c.NM_KEYFILE_PATH.lstrip("/")].data.decode()
    assert "dns=dnsconfd" in keyfile and "[global-dns-domain-*]" in keyfile
    assert c.UNBOUND_CONF_PATH.lstrip("/") not in entries


def test_overlay_prints_boot_options_and_both_ways_of_loading_it(overlay_ks, tmp_path):
    result = run_cli("overlay", overlay_ks, "-o", tmp_path / "edns.img")
    assert result.returncode == 0, result.stderr
    assert ("inst.ks=file:/edns-ks.cfg rd.neednet=1 "
            "rd.net.dns=dns+tls://192.0.2.53#dot.corp.example ") in result.stdout
    assert "rd.net.dns-resolve-mode=exclusive rd.net.dns-backend=dnsconfd" in result.stdout
    assert "initrd=initrd.img,edns.img" in result.stdout
    assert "initrd /images/pxeboot/initrd.img /images/pxeboot/edns.img" in result.stdout
    assert "cat initrd.img edns.img > initrd-edns.img" in result.stdout
    # Options and an overlay configure the initramfs; the installer must have the addon.
    assert result.stdout.endswith("note: the installer must also have the addon, or it "
                                  "ignores the %addon org_edns_addon section and the "
                                  "installed system gets no encrypted DNS: add "
                                  "inst.updates=URL-OF-updates.img (edns-addon updates-img "
                                  "writes it), or use an installer image with the "
                                  "edns-anaconda-addon package\n")


def test_boot_args_prints_one_line_of_options(write_ks, test_ca):
    path = write_ks(edns_kickstart(test_ca.pem), "addon.ks")
    result = run_cli("boot-args", path)
    assert result.returncode == 0
    assert result.stdout.split() == [str(option) for option in networkmanager.boot_options(
        parse_kickstart(path).config)]
    assert "routed domains (lab.example, test.lab.example)" in result.stderr
    assert "%s: note: the installer must also have the addon" % path in result.stderr


def test_boot_args_refuses_a_top_level_edns_which_the_installer_then_refuses(overlay_ks):
    # The installer reads the kickstart itself, where pykickstart refuses "%edns"
    # (parser.py _stateMachine: "Unknown kickstart section"); ksvalidator agrees.
    require_tools("ksvalidator")
    refused = subprocess.run(["ksvalidator", overlay_ks], capture_output=True, text=True)
    assert refused.returncode != 0
    assert "Unknown kickstart section: %edns" in refused.stdout + refused.stderr
    result = run_cli("boot-args", overlay_ks)
    assert result.returncode == 1 and result.stdout == ""
    assert ("error: stock Anaconda rejects a top-level %%edns (\"Unknown kickstart section\"), "
            "and so does ksvalidator: no installer takes this kickstart as it is; run "
            "'edns-addon convert %s' to rewrite it as %%addon org_edns_addon" % overlay_ks) \
        in result.stderr


@pytest.mark.parametrize("line, word, lineno", [
    ("%include other.ks", "%include", 2),
    ("'%include' other.ks", "%include", 2),      # quoted: pykickstart's shlex still reads it
    ('"%include" other.ks', "%include", 2),
    ("\u0085%include other.ks", "%include", 3),  # U+0085 ends a line for str.splitlines
    ("  %ksappend other.ks", "%ksappend", 2),    # pykickstart's preprocessor fetches it
])
def test_a_kickstart_that_names_another_file_is_refused(write_ks, test_ca, tmp_path, line,
                                                         word, lineno):
    # Inside the initrd the name would be a file of this machine, or be fetched.
    path = write_ks("text\n" + line + "\n" + edns_kickstart(test_ca.pem))
    write_ks("", "other.ks")
    result = run_cli("overlay", path, "-o", tmp_path / "o.img")
    assert result.returncode == 1, result.stdout
    assert "%s:%d: %s cannot be followed inside the initrd" % (path, lineno, word) \
        in result.stderr
    assert not (tmp_path / "o.img").exists()


def test_a_kickstart_with_errors_writes_no_overlay(write_ks, tmp_path):
    path = write_ks("%addon org_edns_addon\ndns+tls://192.0.2.53\n%end\n")
    result = run_cli("overlay", path, "-o", tmp_path / "o.img")
    assert result.returncode == 1
    assert "has no TLS name" in result.stderr
    assert not (tmp_path / "o.img").exists()


@pytest.fixture(scope="module")
def dracut_image(test_ca, tmp_path_factory):
    """A real dracut initramfs of a staged target (host dracut, /etc overlaid by the target's),
    built once for the tests that read it (xdist_group DRACUT_IMAGE keeps them on one worker)."""
    require_tools("dracut", "lsinitrd")
    require_namespaces()
    tmp_path = tmp_path_factory.mktemp("dracut-image")
    target = tmp_path / "target"
    target.mkdir()

    def write_ks(text):
        path = tmp_path / "ks.cfg"
        path.write_text(text)
        return str(path)
    data = staging_input(write_ks, edns_kickstart(test_ca.pem))
    staging_apply.stage(data, "target", str(target))
    work, temporary = tmp_path / "work", tmp_path / "dracut-tmp"
    work.mkdir()
    temporary.mkdir()
    image = tmp_path / "target-initramfs.img"
    result = in_mount_namespace(
        "mount -t overlay overlay -o lowerdir=/etc,upperdir={etc},workdir={work} /etc\n"
        "dracut --no-kernel --confdir /etc/dracut.conf.d --tmpdir {tmp} -m base --gzip "
        "-f {image}".format(etc=target / "etc", work=work, tmp=temporary, image=image))
    assert result.returncode == 0, result.stderr[-3000:]
    return image, target


DRACUT_IMAGE = pytest.mark.xdist_group("dracut_image")


@pytest.mark.root
@DRACUT_IMAGE
def test_dracut_puts_the_ca_bundle_and_dot_config_into_the_target_initramfs(dracut_image):
    image, target = dracut_image
    listing = subprocess.run(["lsinitrd", str(image)], capture_output=True, text=True,
                             timeout=120).stdout
    names = {line.split()[-1] for line in listing.splitlines() if LISTED.match(line)}
    assert c.DOT_CA_BUNDLE_PATH.lstrip("/") in names
    assert c.NM_KEYFILE_PATH.lstrip("/") in names
    entries = walk_initramfs(image.read_bytes())
    assert entries[c.NM_KEYFILE_PATH.lstrip("/")].data == \
        (target / c.NM_KEYFILE_PATH.lstrip("/")).read_bytes()


@pytest.mark.root
@DRACUT_IMAGE
def test_an_overlay_appended_to_a_dracut_image_lands_over_it(dracut_image, overlay_image,
                                                             tmp_path):
    image, _ = dracut_image
    combined = tmp_path / "initrd-edns.img"
    combined.write_bytes(image.read_bytes() + overlay_image.read_bytes())

    base = walk_initramfs(image.read_bytes())
    entries = walk_initramfs(combined.read_bytes())

    overlay = walk_initramfs(overlay_image.read_bytes())
    for name, entry in overlay.items():
        assert entries[name] == entry
    assert "edns-ks.cfg" not in base and len(base) > 50
    for name in set(base) - set(overlay):
        assert entries[name] == base[name]


# --- an %include of a file that a %pre writes -------------------------------------------
# As rhinstaller/kickstart-tests' files have it, among them (paths in that repository,
# commit c5fd7441, July 2026): bond2-pre.ks.in (`%include /tmp/ksinclude` and a %pre that
# echoes network commands into it; its excerpt is BOND2_PRE below), bindtomac-bond2-pre.ks.in,
# bridge-2devs-pre.ks.in, team-pre.ks.in, and certificate.ks.in (a %certificate that a
# %pre writes with `cat > /tmp/ksinclude <<EOF`, its '%' lines as '?' turned back by
# sed). Anaconda reads the kickstart without the file in its initramfs (anaconda
# dracut/parse-kickstart, process_kickstart: KickstartParser(...,
# missingIncludeIsFatal=False)) and before %pre in stage 2 (pyanaconda/kickstart.py,
# AnacondaPreParser), then whole, the file included (the boss's SplitKickstartParser,
# pyanaconda/modules/boss/kickstart_manager/kickstart_manager.py).

# rhinstaller/kickstart-tests bond2-pre.ks.in (commit c5fd7441), lines 4-8 as they are,
# but for /tmp/ksinclude, which is {include} here (the file is a test's own), and for the
# harness's @KSTEST_NETDEV2@ to @KSTEST_NETDEV5@, substituted as ens4 to ens7 (the names
# an older revision of the file, 128b0627, wrote itself).
BOND2_PRE = """\
%include {include}
%pre
echo "network --device bond0 --bootproto dhcp --bondslaves=ens4,ens5 --bondopts=mode=active-backup,primary=ens4 --activate --onboot=no" >> {include}
echo "network --device bond1 --bootproto dhcp --bondslaves=ens6,ens7 --bondopts=mode=active-backup,primary=ens6,miimon=100,fail_over_mac=2" >> {include}
%end
"""  # noqa: E501 (the file's own lines)

def pre_written(include, body):
    """A %pre that writes BODY to INCLUDE, as kickstart-tests' *-pre.ks.in do; a line of
    BODY that starts with '%' is written with '?' and turned back by sed (as
    certificate.ks.in does: a '%end' would end the %pre itself)."""
    hidden = "".join("?" + line[1:] if line.startswith("%") else line
                     for line in body.splitlines(True))
    return "%%pre\ncat > %s <<'EOF'\n%sEOF\nsed -i s/^?/%%/g %s\n%%end\n" % (
        include, hidden, include)


def overlay_kickstart_text(image):
    return walk_initramfs(image.read_bytes())["edns-ks.cfg"].data.decode()


def read_as_anaconda(text, tmp_path, missing_include_is_fatal):
    """TEXT read by pykickstart as Anaconda reads it (its %addon sections skipped, as
    dracut/parse-kickstart registers NullSection for them); the handler."""
    from pykickstart.parser import KickstartParser
    from pykickstart.sections import NullSection
    from pykickstart.version import makeVersion
    handler = makeVersion()
    parser = KickstartParser(handler, missingIncludeIsFatal=missing_include_is_fatal,
                             errorsAreFatal=True)
    parser.registerSection(NullSection(handler, sectionOpen="%addon"))
    path = tmp_path / "read.ks"
    path.write_text(text)
    parser.readKickstart(str(path))
    return handler


def test_an_include_a_pre_writes_is_kept_and_read_by_the_installer_after_pre(
        write_ks, test_ca, tmp_path):
    # rhinstaller/kickstart-tests bond2-pre.ks.in, with a top-level %edns; the file's own
    # lines are the next test's.
    include = tmp_path / "ksinclude"
    network = "network --device=bond0 --bootproto=dhcp --bondslaves=ens4,ens5\n"
    text = ("text\n%%include %s\n" % include + pre_written(include, network)
            + edns_kickstart(test_ca.pem, spelling="%edns", commands=""))
    path = write_ks(text, "bond2-pre.ks")
    validated = run_cli("validate", path)
    # The top-level %edns is an error (no installer takes it as it is); the overlay below,
    # whose kickstart is the rewritten one, reads past it.
    assert (validated.returncode, validated.stdout.splitlines()) == (1, [
        "%s:2: warning: %%include %s: cannot read the file: No such file or directory; if a "
        "%%pre script writes it, check that file separately" % (path, include),
        "%s:%d: error: stock Anaconda rejects a top-level %%edns (\"Unknown kickstart "
        "section\"), and so does ksvalidator: no installer takes this kickstart as it is; "
        "run 'edns-addon convert %s' to rewrite it as %%addon org_edns_addon"
        % (path, text.splitlines().index("%edns --ca=dns-ca.pem") + 1, path),
        "%s: 1 error, 1 warning" % path])

    image = tmp_path / "o.img"
    result = run_cli("overlay", path, "-o", image)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr == (
        "%s:2: note: the installer reads %%include %s later, after the %%pre scripts that "
        "write it; the overlay holds this line as it is, and nothing of that file is checked "
        "here\n" % (path, include))
    assert "%s: wrote %s" % (path, image) in result.stdout
    carried = overlay_kickstart_text(image)
    assert carried == text.replace("%edns", c.ADDON_SECTION_OPEN)
    assert set(walk_initramfs(image.read_bytes())) >= set(OVERLAY_FILES)

    # The installer's initramfs reads it without the file; after %pre ran, with it.
    assert read_as_anaconda(carried, tmp_path, False).network.network == []
    with pytest.raises(Exception, match="No such file"):
        read_as_anaconda(carried, tmp_path, True)
    pre = read_as_anaconda(carried, tmp_path, False).scripts[0]
    subprocess.run(["sh", "-e"], input=pre.script, text=True, check=True, timeout=60)
    assert [n.device for n in read_as_anaconda(carried, tmp_path, True).network.network] == \
        ["bond0"]


def test_the_include_of_kickstart_tests_bond2_pre_is_read_by_the_installer_after_its_pre(
        write_ks, test_ca, tmp_path):
    # rhinstaller/kickstart-tests bond2-pre.ks.in's %include and %pre (BOND2_PRE), and our
    # section in the kickstart itself.
    include = tmp_path / "ksinclude"
    text = "text\n" + BOND2_PRE.format(include=include) + edns_kickstart(test_ca.pem,
                                                                       commands="")
    path = write_ks(text, "bond2-pre.ks")
    validated = run_cli("validate", path)
    assert (validated.returncode, validated.stdout.splitlines()) == (0, [
        "%s:2: warning: %%include %s: cannot read the file: No such file or directory; if a "
        "%%pre script writes it, check that file separately" % (path, include),
        "%s: 0 errors, 1 warning" % path])

    image = tmp_path / "o.img"
    result = run_cli("overlay", path, "-o", image)
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        "%s:2: note: the installer reads %%include %s later, after the %%pre scripts that "
        "write it; the overlay holds this line as it is, and nothing of that file is checked "
        "here\n" % (path, include))
    carried = overlay_kickstart_text(image)
    assert carried == text

    # As the installer reads it: without the file first, then after the %pre wrote it.
    handler = read_as_anaconda(carried, tmp_path, False)
    assert handler.network.network == []
    subprocess.run(["sh", "-e"], input=handler.scripts[0].script, text=True, check=True,
                   timeout=60)
    bonds = read_as_anaconda(carried, tmp_path, True).network.network
    assert [(n.device, n.bondslaves) for n in bonds] == [("bond0", "ens4,ens5"),
                                                         ("bond1", "ens6,ens7")]


def test_a_ca_certificate_in_a_file_a_pre_writes_is_named_and_no_overlay_is_written(
        write_ks, test_ca, tmp_path):
    # rhinstaller/kickstart-tests certificate.ks.in writes a %certificate into
    # /tmp/ksinclude in %pre (there for the Security module; here named by --ca).
    include = tmp_path / "ksinclude"
    text = ("text\n" + pre_written(include, certificate_section(test_ca.pem))
            + "%%include %s\n" % include + edns_kickstart(test_ca.pem, certificates="",
                                                        commands=""))
    path = write_ks(text)
    header = text.splitlines().index(c.ADDON_SECTION_OPEN + " --ca=dns-ca.pem") + 1
    include_line = text.splitlines().index("%%include %s" % include) + 1
    validated = run_cli("validate", path)
    assert validated.returncode == 0, validated.stdout
    assert validated.stdout.splitlines()[:2] == [
        "%s:%d: warning: %%include %s: cannot read the file: No such file or directory; if "
        "a %%pre script writes it, check that file separately" % (path, include_line, include),
        "%s:%d: warning: --ca=dns-ca.pem names no %%certificate of the files read here; the "
        "installer takes this kickstart only if a file that is missing here (%s) holds that "
        "%%certificate when it is read; check that file separately" % (path, header, include)]
    result = run_cli("overlay", path, "-o", tmp_path / "o.img")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "%s:%d: error: --ca=dns-ca.pem names a %%certificate that is in no file read here, so "
        "its CA bundle cannot be made now; the installer may read it later from a file that "
        "does not exist here (%s): put that %%certificate in the kickstart itself"
        % (path, header, include),
        "%s: no overlay written: these parts of the kickstart are needed now, and they are "
        "in files that do not exist here" % path]
    assert not (tmp_path / "o.img").exists()
    # apply would write an empty CA bundle: nothing would authenticate the servers.
    root = tmp_path / "root"
    root.mkdir()
    for args, refusal in ((["apply", "--root", root], "not applied"),
                          (["boot-args"], "no boot options")):
        refused = run_cli(*args, path)
        assert (refused.returncode, refused.stdout) == (1, ""), refused.stderr
        assert refused.stderr.splitlines()[0] == result.stderr.splitlines()[0]
        assert refused.stderr.splitlines()[-1] == (
            "%s: %s: these parts of the kickstart are needed now, and they are in files that "
            "do not exist here" % (path, refusal))
    assert os.listdir(root) == []


@pytest.mark.parametrize("read_here", [["dns+tls://192.0.2.53#dot.corp.example"], []])
def test_servers_in_a_file_a_pre_writes_are_named_and_no_overlay_is_written(
        write_ks, test_ca, tmp_path, read_here):
    # With none read here, "no DNS server is given" would be a false error.
    include = tmp_path / "servers"
    text = ("text\n" + pre_written(include, "dns+tls://192.0.2.54#dot.corp.example\n")
            + edns_kickstart(test_ca.pem, commands="", servers=read_here + [
                "%%include %s" % include]))
    path = write_ks(text)
    include_line = text.splitlines().index("%%include %s" % include) + 1
    validated = run_cli("validate", path)
    assert (validated.returncode, validated.stdout.splitlines()[-1]) == (
        0, "%s: 0 errors, 1 warning" % path)
    result = run_cli("overlay", path, "-o", tmp_path / "o.img")
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        "%s:%d: error: the %%addon org_edns_addon section includes %s, which does not exist "
        "here; every line of the section is needed now: put them in the kickstart itself"
        % (path, include_line, include))
    assert not (tmp_path / "o.img").exists()


def test_a_section_only_a_pre_writes_is_named_and_no_overlay_is_written(write_ks, tmp_path):
    include = tmp_path / "ksinclude"
    text = ("text\n%%include %s\n" % include
            + pre_written(include, "%addon org_edns_addon\ndns+tls://192.0.2.53#dot.example\n"
                                   "%end\n"))
    path = write_ks(text)
    validated = run_cli("validate", path)
    assert validated.stdout.splitlines()[0] == (
        "%s: warning: no %%addon org_edns_addon section in the files read here; encrypted DNS "
        "is configured only if a file that is missing here (%s) holds it when the installer "
        "reads it" % (path, include))
    result = run_cli("overlay", path, "-o", tmp_path / "o.img")
    assert (result.returncode, result.stderr.splitlines()[0]) == (1, (
        "%s: error: no %%addon org_edns_addon section is in the files read here; the "
        "installer may read one later from a file that does not exist here (%s): put the "
        "section in the kickstart itself" % (path, include)))


def test_a_followed_include_beside_a_missing_one_gets_advice_that_works(write_ks, test_ca,
                                                                        tmp_path):
    # ksflatten -c would stop at the missing file ("Unable to open input kickstart file").
    write_ks("# disks\n", "disks.ks")
    include = tmp_path / "ksinclude"
    path = write_ks("text\n%%include %s\n%%include disks.ks\n" % include
                    + edns_kickstart(test_ca.pem, commands=""))
    flattened = subprocess.run(["ksflatten", "-c", path, "-o", str(tmp_path / "flat.ks")],
                               capture_output=True, text=True, timeout=60)
    assert flattened.returncode != 0
    result = run_cli("overlay", path, "-o", tmp_path / "o.img")
    assert result.returncode == 1
    assert result.stderr == (
        "%s: no overlay written: %s:3: %%include cannot be followed inside the initrd; put "
        "the lines of disks.ks in place of this line (ksflatten cannot: it stops at %s:2, an "
        "%%include of %s, which does not exist here)\n"
        % (path, path, path, include))


def test_a_refusal_for_a_missing_ca_shows_no_name_read_from_an_included_file(
        write_ks, tmp_path):
    write_ks(c.ADDON_SECTION_OPEN + " --ca=secret-ca.pem\ndns+tls://192.0.2.53#dot.example\n"
             "%end\n", "dns.ks")
    include = tmp_path / "ksinclude"
    path = write_ks("text\n%%include dns.ks\n%%include %s\n" % include)
    root = tmp_path / "root"
    root.mkdir()
    result = run_cli("apply", path, "--root", root)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        "%s:1: error: a --ca name of this line names a %%certificate that is in no file read "
        "here, so its CA bundle cannot be made now; the installer may read it later from a "
        "file that does not exist here (%s): put that %%certificate in the kickstart itself"
        % (tmp_path / "dns.ks", include))
    assert "secret" not in result.stdout + result.stderr
    assert os.listdir(root) == []
