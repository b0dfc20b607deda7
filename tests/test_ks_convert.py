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

"""`edns-addon convert`: %edns becomes %addon org_edns_addon, every other byte stays,
the result validates cleanly, and pykickstart's own ksvalidator accepts it."""

import os
import stat
import subprocess
import sys
import tempfile

import pytest

from lab.kickstarts import (ADDON, certificate_section, edns_section, ksvalidator_command,
                            ksvalidator_env)
from tests.conftest import REPO, run_cli, run_measured
from tests.staging_fixtures import walk_initramfs

EXAMPLE = REPO / "data" / "examples" / "corp-dot-edns.ks"
GOOD = "dns+tls://192.0.2.53#dot.corp.example"


def ksvalidator(path):
    with tempfile.TemporaryDirectory(prefix="edns-test-ksvalidator-") as scratch:
        return subprocess.run(ksvalidator_command() + [str(path)], capture_output=True,
                              text=True, timeout=120, env=ksvalidator_env(scratch))


def convert_bytes(tmp_path, data):
    """Write DATA, convert it with -o; return (the process, the bytes written)."""
    source, output = tmp_path / "in.ks", tmp_path / "out.ks"
    source.write_bytes(data)
    result = run_cli("convert", source, "-o", output)
    return result, output.read_bytes() if output.exists() else None


def test_the_converted_example_validates_cleanly_and_ksvalidator_accepts_it(tmp_path):
    output = tmp_path / "corp-dot.ks"
    result = run_cli("convert", EXAMPLE, "-o", output)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "%s: wrote %s (1 section rewritten as %%addon org_edns_addon)\n" % (
        EXAMPLE, output)
    validated = run_cli("validate", output)
    assert (validated.returncode, validated.stdout) == (
        0, "%s: 0 errors, 0 warnings\n" % output)
    accepted = ksvalidator(output)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


def test_ksvalidator_refuses_the_edns_spelling_that_convert_rewrites():
    refused = ksvalidator(EXAMPLE)
    assert refused.returncode != 0
    assert "Unknown kickstart section: %edns" in refused.stdout


def test_only_the_header_word_changes_and_the_rest_stays_byte_for_byte(tmp_path):
    original = EXAMPLE.read_bytes()
    result, converted = convert_bytes(tmp_path, original)
    assert result.returncode == 0
    before, after = original.splitlines(True), converted.splitlines(True)
    changed = [n for n, (a, b) in enumerate(zip(before, after), 1) if a != b]
    assert len(before) == len(after) and len(changed) == 1
    line = before[changed[0] - 1]
    assert after[changed[0] - 1] == line.replace(b"%edns", ADDON.encode(), 1)


def test_crlf_tabs_indentation_and_a_missing_last_newline_survive(tmp_path, pems):
    text = ("# made on Windows  \r\ntext\t\r\n"
            + certificate_section(pems.ca.pem).replace("\n", "\r\n")
            + "  %edns\t--ca=dns-ca.pem   --backend=unbound \r\n"
            + "\t" + GOOD + "   # main\r\n\r\n"
            + "dns+tls://[2001:db8::53]#dot.corp.example\r\n%end\r\n"
            + "%post\r\necho 'not %edns\t here'\r\n%end")
    result, converted = convert_bytes(tmp_path, text.encode())
    assert result.returncode == 0, result.stderr
    assert converted == text.replace("  %edns\t", "  %addon org_edns_addon\t").encode()
    validated = run_cli("validate", tmp_path / "out.ks")
    assert (validated.returncode, validated.stdout.splitlines()[-1]) == (
        0, "%s: 0 errors, 0 warnings" % (tmp_path / "out.ks"))
    assert ksvalidator(tmp_path / "out.ks").returncode == 0


def test_non_ascii_text_is_written_to_standard_output_unchanged(write_ks):
    text = "# Zertifikat für DNS — ドメイン\n" + edns_section(
        "dns+tls://192.0.2.53#dot.bücher.example", spelling="%edns")
    path = write_ks(text)
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", "convert", path],
                            capture_output=True, timeout=60,
                            env=dict(os.environ, PYTHONPATH=str(REPO), PYTHONIOENCODING="ascii"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == text.replace("%edns", ADDON).encode()


def test_a_kickstart_with_errors_is_not_converted_and_nothing_is_written(tmp_path):
    text = edns_section("dns+tls://192.0.2.53", spelling="%edns")
    result, converted = convert_bytes(tmp_path, text.encode())
    assert result.returncode == 1
    assert converted is None
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "%s:2: error: the DoT server dns+tls://192.0.2.53 has no TLS name, so it cannot be "
        "authenticated; append #NAME as in its certificate, like "
        "dns+tls://192.0.2.53#dot.example" % (tmp_path / "in.ks"),
        "%s: not converted: fix the errors above first" % (tmp_path / "in.ks")]
    assert sorted(os.listdir(tmp_path)) == ["in.ks"]


def test_output_replaces_the_old_file_by_rename_leaving_no_temporary_file(tmp_path):
    source, output = tmp_path / "in.ks", tmp_path / "out.ks"
    source.write_text(edns_section(GOOD, spelling="%edns"))
    source.chmod(0o600)
    output.write_text("old\n")
    os.link(output, tmp_path / "old-link.ks")
    result = run_cli("convert", source, "-o", output)
    assert result.returncode == 0, result.stderr
    # A rename gives out.ks a new inode: the hard link still holds the old bytes,
    # so no reader could ever have seen a half-written out.ks.
    assert (tmp_path / "old-link.ks").read_text() == "old\n"
    assert output.read_text() == edns_section(GOOD)
    assert output.stat().st_mode & 0o777 == 0o600
    assert sorted(os.listdir(tmp_path)) == ["in.ks", "old-link.ks", "out.ks"]


@pytest.mark.parametrize("source_mode, output_mode, expected", [
    (0o644, 0o600, 0o600), (0o600, 0o644, 0o600), (0o640, 0o604, 0o600), (0o644, 0o644, 0o644)])
def test_output_is_never_looser_than_the_kickstart_or_the_file_it_replaces(
        tmp_path, source_mode, output_mode, expected):
    source, output = tmp_path / "in.ks", tmp_path / "out.ks"
    source.write_text(edns_section(GOOD, spelling="%edns"))
    source.chmod(source_mode)
    output.write_text("old\n")
    output.chmod(output_mode)
    result = run_cli("convert", source, "-o", output)
    assert result.returncode == 0, result.stderr
    assert output.read_text() == edns_section(GOOD)
    assert stat.S_IMODE(output.stat().st_mode) == expected


def test_converting_in_place_works(write_ks):
    path = write_ks(edns_section(GOOD, spelling="%edns"))
    assert run_cli("convert", path, "-o", path).returncode == 0
    with open(path) as stream:
        assert stream.read() == edns_section(GOOD)


def test_an_output_directory_that_does_not_exist_is_an_error_not_a_traceback(write_ks, tmp_path):
    path = write_ks(edns_section(GOOD, spelling="%edns"))
    result = run_cli("convert", path, "-o", tmp_path / "nowhere" / "out.ks")
    assert result.returncode == 1
    assert result.stderr == "%s: not converted: cannot write %s: the directory %s does not " \
        "exist; create it first\n" % (path, tmp_path / "nowhere" / "out.ks", tmp_path / "nowhere")


def test_an_addon_kickstart_is_left_as_it_is(write_ks):
    text = "text\n" + edns_section(GOOD)
    result = run_cli("convert", write_ks(text))
    assert (result.returncode, result.stdout) == (0, text)


def test_an_edns_section_in_an_included_file_is_not_converted_here(write_ks):
    write_ks(edns_section(GOOD, spelling="%edns"), "dns.ks")
    path = write_ks("text\n%include dns.ks\n")
    result = run_cli("convert", path)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        "%s: not converted: %%edns is in the included file %s; convert that file"
        % (path, path.replace(os.path.basename(path), "dns.ks")))


# --- a large kickstart: the same bytes, and memory within validate's bound ----------------

def large_kickstart(lines):
    """A kickstart of LINES short lines around a %edns section, as long files are: CRLF,
    non-ASCII text and the line ends of str.splitlines() (which pykickstart splits on)
    before the header, far past the first MiB."""
    filler = ("# Zertifikat f\u00fcr DNS\r\n#\n\u2028#\x85\n" + "#\n" * 95) * (lines // 200)
    return ("text\r\n" + filler + "  %edns\t--backend=unbound \r\n" + GOOD + "\r\n%end\r\n"
            + filler)


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """A kickstart of a million lines, its text, and `validate` of it measured."""
    path = tmp_path_factory.mktemp("large") / "large.ks"
    text = large_kickstart(1000000)
    path.write_bytes(text.encode())
    validated = run_measured("validate", path)
    # 1: the top-level %edns is an error; validate still reads the whole file.
    assert validated.returncode == 1, validated.stdout
    assert validated.stdout.splitlines()[-1].endswith(": 1 error, 0 warnings"), validated.stdout
    return path, text, validated


@pytest.mark.parametrize("command", ["convert -o", "convert", "overlay -o"])
def test_convert_and_overlay_of_a_large_kickstart_give_the_same_bytes_within_the_memory_of_validate(
        large, tmp_path, command):
    # 8 million lines once took 636 MiB to convert against 63 MiB to validate: each line
    # was held as a string in a list (here 2.8 times validate's peak on that code). The
    # kernel's peak of each process alone is compared; no clock.
    path, text, validated = large
    assert len(text) > 2 * 1024 * 1024   # many pieces (_CHUNK), the header past the first
    output = tmp_path / "out"
    name, *option = command.split()
    ran = run_measured(name, path, *(option + [output] if option else []))
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    expected = text.replace("  %edns\t", "  %addon org_edns_addon\t", 1).encode()
    if name == "overlay":
        made = walk_initramfs(output.read_bytes())["edns-ks.cfg"].data
    else:
        made = output.read_bytes() if option else ran.stdout.encode()
    assert made == expected
    assert ran.peak_kib < 1.25 * validated.peak_kib, (ran.peak_kib, validated.peak_kib)
