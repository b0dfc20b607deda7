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

"""The commands of `edns-addon` (cli/commands.py) as processes: where each writes (`-o`,
`--root`), what each reads (a piped kickstart, once), and the sentence each says when it
does not do its job."""

import gzip
import os
import shutil
import stat
import subprocess
import sys

import pytest

from lab.kickstarts import certificate_section, edns_kickstart, edns_section
from org_edns_addon import constants as c
from tests.conftest import REPO, assert_sentence, run_cli, sticky_directory_with_a_planted_link

SERVER = "dns+tls://192.0.2.53#dot.example\n"


@pytest.fixture
def output_command(request, write_ks, test_ca):
    """The argv before `-o OUT` of each command that writes a file."""
    kickstart = write_ks(edns_kickstart(test_ca.pem, spelling="%edns"))
    return {"convert": ["convert", kickstart], "overlay": ["overlay", kickstart],
            "updates-img": ["updates-img"]}[request.param]


@pytest.mark.parametrize("output_command", ["convert", "overlay", "updates-img"],
                         indirect=True)
def test_an_output_that_is_not_a_regular_file_is_refused_not_replaced(output_command,
                                                                      tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = run_cli(*output_command, "-o", fifo)
    assert_sentence(result, 1, "cannot write %s: it exists and is not a regular file; "
                    "choose another path" % fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("output_command", ["convert", "overlay", "updates-img"],
                         indirect=True)
def test_an_output_that_is_a_directory_is_refused(output_command, tmp_path):
    result = run_cli(*output_command, "-o", tmp_path)
    assert_sentence(result, 1, "cannot write %s: it is a directory; give the path of a file "
                    "in it" % tmp_path)


@pytest.mark.parametrize("output_command", ["convert", "overlay", "updates-img"],
                         indirect=True)
def test_an_output_symlink_planted_in_a_sticky_directory_is_refused_by_name(output_command,
                                                                            tmp_path):
    """A world-writable sticky directory (as /tmp), where another user planted OUT as a
    symlink to a file of ours: the command refuses it, naming the link and its target,
    and neither the link nor the file changes; a plain OUT there is written."""
    shared, planted, victim = sticky_directory_with_a_planted_link(tmp_path)

    result = run_cli(*output_command, "-o", planted)

    assert_sentence(result, 1, "cannot write %s: it is a symbolic link (to %s); refusing to "
                    "replace what it points to: remove the link or give another path"
                    % (planted, victim))
    assert victim.read_text() == "precious\n"
    assert os.readlink(planted) == str(victim)
    assert sorted(p.name for p in shared.iterdir()) == ["out"]
    written = run_cli(*output_command, "-o", shared / "plain")
    assert written.returncode == 0, written.stderr
    assert (shared / "plain").stat().st_size > 0 and not (shared / "plain").is_symlink()


def test_overlay_onto_its_own_kickstart_is_a_usage_error_and_the_kickstart_survives(
        write_ks, test_ca, tmp_path):
    kickstart = write_ks(edns_kickstart(test_ca.pem))
    before = open(kickstart, "rb").read()
    result = run_cli("overlay", kickstart, "-o", os.path.relpath(kickstart, tmp_path),
                     cwd=tmp_path)
    assert_sentence(result, 2, "is the kickstart itself; name the image to write, like "
                    "-o overlay.img")
    assert open(kickstart, "rb").read() == before


@pytest.mark.parametrize("args", [("convert", "KS", "-o", ""), ("apply", "KS", "--root", ""),
                                  ("overlay", "KS", "-o", ""), ("updates-img", "-o", ""),
                                  ("tui", "-o", "")])
def test_an_empty_path_is_a_usage_error_and_nothing_lands_in_the_working_directory(
        write_ks, test_ca, tmp_path, args):
    kickstart = write_ks(edns_kickstart(test_ca.pem))
    work = tmp_path / "work"
    work.mkdir()
    result = run_cli(*[kickstart if arg == "KS" else arg for arg in args], cwd=work)
    assert_sentence(result, 2, "the path is empty")
    assert list(work.iterdir()) == []


def test_a_missing_output_directory_is_named_with_the_fix(write_ks, test_ca, tmp_path):
    result = run_cli("overlay", write_ks(edns_kickstart(test_ca.pem)), "-o",
                     tmp_path / "nowhere" / "o.img")
    assert_sentence(result, 1, "the directory %s does not exist; create it first"
                    % (tmp_path / "nowhere"))


def test_convert_of_a_piped_kickstart_prints_that_kickstart_converted():
    text = b"text\r\n%edns\r\n" + SERVER.replace("\n", "\r\n").encode() + b"%end\r\n"
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", "convert",
                             "/dev/stdin"], input=text, capture_output=True, timeout=60,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert result.returncode == 0, result.stderr
    assert result.stdout == text.replace(b"%edns", b"%addon org_edns_addon")


def test_overlay_of_a_piped_kickstart_holds_that_kickstart(test_ca, tmp_path):
    text = edns_kickstart(test_ca.pem, spelling="%edns")
    image = tmp_path / "o.img"
    result = run_cli("overlay", "/dev/stdin", "-o", image, input=text)
    assert result.returncode == 0, result.stderr
    inside = subprocess.run(["cpio", "-i", "--quiet", "--to-stdout",
                             c.OVERLAY_KICKSTART_PATH.lstrip("/")],
                            input=gzip.decompress(image.read_bytes()), capture_output=True,
                            check=True, timeout=60).stdout.decode()
    assert inside == text.replace("%edns", "%addon org_edns_addon")


@pytest.mark.parametrize("options, message", [
    ("--filename=ca.pem --dir=/etc/../../x/", "--dir=/etc/../../x/ must not contain '..'"),
    ("--filename=%s.pem --dir=/etc/pki/dns/" % ("x" * 300),
     "is longer than a file name may be (255 bytes); choose a shorter name"),
    ("--filename=ca.pem --dir=/etc/%s/" % ("d" * 256,),
     "has a directory name longer than 255 bytes; choose shorter names"),
])
def test_a_certificate_place_that_cannot_be_written_is_an_error_on_its_line(
        write_ks, test_ca, tmp_path, options, message):
    kickstart = write_ks(edns_kickstart(test_ca.pem, "", certificates="text\n%%certificate "
                                        "%s\n%s%%end\n" % (options, test_ca.pem)))
    validated = run_cli("validate", kickstart)
    assert validated.returncode == 1
    assert "%s:7: error: " % kickstart in validated.stdout and message in validated.stdout
    root = tmp_path / "root"
    root.mkdir()
    assert_sentence(run_cli("apply", kickstart, "--root", root), 1, message)
    assert list(root.iterdir()) == []


def test_the_overlay_needs_no_cpio_tool(write_ks, test_ca, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    result = run_cli("overlay", write_ks(edns_kickstart(test_ca.pem)), "-o", tmp_path / "o.img",
                 env={"PATH": str(empty)})
    assert_sentence(result, 0)
    assert gzip.decompress((tmp_path / "o.img").read_bytes()).startswith(b"070701")


@pytest.mark.parametrize("command, refusal", [("boot-args", "no boot options"),
                                              ("overlay", "no overlay written"),
                                              ("check", "not checked")])
def test_each_command_says_what_it_did_not_do(write_ks, tmp_path, command, refusal):
    kickstart = write_ks("text\n")
    extra = ["-o", tmp_path / "o.img"] if command == "overlay" else []
    result = run_cli(command, kickstart, *extra)
    assert_sentence(result, 1, "%s: %s: %s has no %%addon org_edns_addon section"
                    % (kickstart, refusal, kickstart))


@pytest.mark.skipif(shutil.which("setpriv") is None or os.geteuid() != 0,
                    reason="needs root and setpriv to drop the permission override")
def test_an_unwritable_root_names_the_directory_to_make_writable(write_ks, test_ca, tmp_path):
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc").chmod(0o555)
    capabilities = "-dac_override,-dac_read_search"
    result = run_cli("apply", write_ks(edns_kickstart(test_ca.pem)), "--root", root,
                     prefix=("setpriv", "--inh-caps=" + capabilities,
                             "--bounding-set=" + capabilities))
    assert_sentence(result, 1, "nothing was written: %s/etc/pki/dns/dns-ca.pem: its directory "
                    "is not writable (%s/etc); make that directory writable or choose "
                    "another root" % (root, root))
    assert list((root / "etc").iterdir()) == []


def test_tui_on_a_missing_kickstart_says_how_to_start_a_new_one(tmp_path):
    missing = tmp_path / "new.ks"
    result = run_cli("tui", missing)
    assert_sentence(result, 2, "%s does not exist; to write a new kickstart there, run "
                    "edns-addon tui -o %s" % (missing, missing))


def test_tui_without_standard_input_says_it_needs_a_terminal(tmp_path):
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", "tui", "-o",
                             tmp_path / "ks.cfg"], preexec_fn=lambda: os.close(0),
                            capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert_sentence(result, 2, "edns-addon tui: error: the text UI needs a terminal on "
                    "standard input")
    assert list(tmp_path.iterdir()) == []


def test_tui_refuses_an_output_in_a_missing_directory_before_editing(tmp_path):
    result = run_cli("tui", "-o", tmp_path / "nowhere" / "ks.cfg")
    assert_sentence(result, 2, "cannot write %s: %s is not a directory; give the path of a "
                    "file in an existing directory" % (tmp_path / "nowhere" / "ks.cfg",
                                                       tmp_path / "nowhere"))


def assert_every_command_refuses(kickstart, said, tmp_path):
    """Every command but validate refuses KICKSTART saying SAID and writes nothing."""
    root = tmp_path / "root"
    root.mkdir()
    image = tmp_path / "o.img"
    for argv, what in ((["boot-args"], "no boot options"), (["overlay", "-o", image],
                                                           "no overlay written"),
                       (["apply", "--root", root], "has errors"),
                       (["check"], "not checked")):
        result = run_cli(argv[0], kickstart, *argv[1:])
        assert_sentence(result, 1, said, what)
        assert result.stdout == ""
    assert list(root.iterdir()) == [] and not image.exists()


# A zone whose every server is on loopback has no DNS at all: the resolvers never query
# loopback (model.py, _never_queried). Every command refuses it alike, the server's line
# named, and writes nothing; beside a server that is asked, a loopback one is a warning.
ZONE_ONLY_ON_LOOPBACK = [
    pytest.param("all names", ["dns+tls://127.0.0.2#dot.example"], id="all names"),
    pytest.param("the names in lab.example",
                 [SERVER.strip(), "dns+tls://[::1]:8853#dot.lab.example domain=lab.example"],
                 id="a routed domain"),
]


@pytest.mark.parametrize("zone, servers", ZONE_ONLY_ON_LOOPBACK)
def test_a_zone_served_only_on_loopback_is_refused_by_every_command(write_ks, test_ca,
                                                                    tmp_path, zone, servers):
    text = edns_kickstart(test_ca.pem, servers=servers, commands="")
    kickstart = write_ks(text)
    line = text.splitlines().index(servers[-1]) + 1
    said = "%s:%d: error: %s would have no DNS: the only server for them, %s, is on " \
        "loopback" % (kickstart, line, zone, servers[-1].split()[0])

    validated = run_cli("validate", kickstart)
    assert validated.returncode == 1 and said in validated.stdout, validated.stdout
    assert "give the server's own address on the network instead" in validated.stdout
    # check refuses before it sends a packet.
    assert_every_command_refuses(kickstart, said, tmp_path)


@pytest.mark.parametrize("forms", [("intermediate",), ("root -addreject serverAuth",)],
                         ids=["the intermediate alone", "trust settings that reject serverAuth"])
def test_a_bundle_unbound_would_refuse_is_refused_by_every_command(write_ks, chain_pki,
                                                                   tmp_path, forms):
    kickstart = write_ks(certificate_section(chain_pki.bundle(*forms)) +
                         edns_section(SERVER.strip(), options="--ca=dns-ca.pem"))
    said = "%s:2: error: the " % kickstart
    validated = run_cli("validate", kickstart)
    assert validated.returncode == 1 and said in validated.stdout, validated.stdout
    assert_every_command_refuses(kickstart, said, tmp_path)


def test_a_loopback_server_beside_one_that_is_asked_is_a_warning_and_every_command_goes_on(
        write_ks, test_ca, tmp_path):
    loopback = "dns+tls://127.0.0.2#dot.example"
    text = edns_kickstart(test_ca.pem, servers=[SERVER.strip(), loopback], commands="")
    kickstart = write_ks(text)
    warned = "%s:%d: warning: dnsconfd's Unbound never queries the loopback server %s" % (
        kickstart, text.splitlines().index(loopback) + 1, loopback)
    validated = run_cli("validate", kickstart)
    assert validated.returncode == 0, validated.stdout
    assert warned in validated.stdout
    assert validated.stdout.splitlines()[-1] == "%s: 0 errors, 1 warning" % kickstart
    booted = run_cli("boot-args", kickstart)
    assert booted.returncode == 0, booted.stderr
    assert "rd.net.dns=%s" % SERVER.strip() in booted.stdout.split()
    root = tmp_path / "root"
    root.mkdir()
    for argv in (["overlay", "-o", tmp_path / "o.img"], ["apply", "--root", root]):
        result = run_cli(argv[0], kickstart, *argv[1:])
        assert result.returncode == 0, result.stderr
    assert (tmp_path / "o.img").exists()
    assert loopback in (root / c.NM_KEYFILE_PATH.lstrip("/")).read_text()
