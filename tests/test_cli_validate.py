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

"""`edns-addon validate` as a process: FILE:LINE lines, a summary, exit codes, --json,
and never a traceback, whatever it is given."""

import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from lab.kickstarts import ADDON, certificate_section, edns_section
from tests.conftest import REPO, run_cli
from tests.ks_fixtures import parse

GOOD = "dns+tls://192.0.2.53#dot.corp.example"


def assert_refused_file(result, path, message, lineno=None):
    """Exit 1, exactly `FILE[:LINE]: error: MESSAGE` and a summary, no traceback."""
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stderr == ""
    where = str(path) if lineno is None else "%s:%d" % (path, lineno)
    assert result.stdout.splitlines() == ["%s: error: %s" % (where, message),
                                          "%s: 1 error, 0 warnings" % path]


def test_a_clean_kickstart_exits_0_with_a_summary(write_ks, pems):
    path = write_ks(certificate_section(pems.ca.pem)
                    + edns_section(GOOD, options="--ca=dns-ca.pem"))
    result = run_cli("validate", path)
    assert (result.returncode, result.stdout, result.stderr) == (
        0, "%s: 0 errors, 0 warnings\n" % path, "")


def test_warnings_alone_exit_0(write_ks):
    path = write_ks("text\n")
    result = run_cli("validate", path)
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == "%s: 0 errors, 1 warning" % path


def test_a_top_level_edns_exits_1_as_the_installer_refuses_it_and_convert_fixes_it(write_ks,
                                                                                 tmp_path):
    # pykickstart's parser (and so ksvalidator and Anaconda) says "Unknown kickstart
    # section" (tests/test_ks_convert.py runs ksvalidator on such a file).
    path = write_ks(edns_section(GOOD, spelling="%edns"))
    result = run_cli("validate", path)
    assert result.returncode == 1
    assert "run 'edns-addon convert %s'" % path in result.stdout
    assert result.stdout.splitlines()[-1] == "%s: 1 error, 0 warnings" % path
    converted = tmp_path / "converted.ks"
    assert run_cli("convert", path, "-o", converted).returncode == 0
    again = run_cli("validate", converted)
    assert again.returncode == 0, again.stdout


def test_errors_are_printed_as_the_library_reports_them_and_exit_1(write_ks, pems):
    text = ("text\n" + certificate_section(pems.expired.pem) +
            edns_section(GOOD, "dns+tls://192.0.2.54", options="--ca=dns-ca.pem,other.pem"))
    path = write_ks(text)
    result = run_cli("validate", path)
    assert result.returncode == 1
    expected = [str(p) for p in parse(path).problems]
    assert len(expected) == 3
    assert result.stdout.splitlines() == expected + ["%s: 3 errors, 0 warnings" % path]


def test_bundled_example_is_clean():
    result = run_cli("validate", REPO / "data" / "examples" / "corp-dot.ks")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("0 errors, 0 warnings")


def test_several_files_are_checked_in_one_run_with_one_summary(write_ks):
    clean = write_ks(edns_section(GOOD))
    broken = write_ks(edns_section("dns+tls://192.0.2.54"))
    result = run_cli("validate", clean, broken)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "%s:2: error: the DoT server dns+tls://192.0.2.54 has no TLS name, so it cannot be "
        "authenticated; append #NAME as in its certificate, like "
        "dns+tls://192.0.2.54#dot.example" % broken,
        "2 files: 1 error, 0 warnings"]


def test_json_output_lists_every_problem_with_file_line_severity_and_message(write_ks):
    text = edns_section(GOOD, "dns+tls://192.0.2.54", spelling="%edns")
    path = write_ks(text)
    result = run_cli("validate", "--json", path)
    assert result.returncode == 1
    assert json.loads(result.stdout) == {
        "files": [path],
        "errors": 2,
        "warnings": 0,
        "problems": [
            {"file": path, "line": 1, "severity": "error",
             "message": "stock Anaconda rejects a top-level %%edns (\"Unknown kickstart "
                        "section\"), and so does ksvalidator: no installer takes this "
                        "kickstart as it is; run 'edns-addon convert %s' to rewrite it as "
                        "%%addon org_edns_addon" % path},
            {"file": path, "line": 3, "severity": "error",
             "message": "the DoT server dns+tls://192.0.2.54 has no TLS name, so it cannot be "
                        "authenticated; append #NAME as in its certificate, like "
                        "dns+tls://192.0.2.54#dot.example"},
        ],
        "omitted": 0}


def test_json_output_of_an_unreadable_file_has_a_null_line(tmp_path):
    missing = tmp_path / "missing.ks"
    result = run_cli("validate", "--json", missing)
    assert result.returncode == 1
    assert json.loads(result.stdout)["problems"] == [
        {"file": str(missing), "line": None, "severity": "error",
         "message": "cannot read the file: No such file or directory"}]


@pytest.mark.parametrize("args", [[], ["--no-such-flag", "ks.cfg"], ["valdiate", "ks.cfg"]])
def test_usage_errors_exit_2_with_a_usage_line(args):
    result = run_cli("validate", *args) if args[:1] != ["valdiate"] else run_cli(*args)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: edns-addon")
    assert "Traceback" not in result.stderr


# --- whatever the input: exit 1, a FILE: error line, no traceback -----------------------

def test_binary_garbage_is_refused_without_a_traceback(tmp_path):
    path = tmp_path / "garbage.ks"
    path.write_bytes(b"text\n" + bytes(range(256)) * 64)
    assert_refused_file(run_cli("validate", path), path,
                        "the file holds NUL bytes; it is binary, not a kickstart", lineno=2)


def test_invalid_utf8_is_refused_on_its_line(tmp_path):
    path = tmp_path / "latin1.ks"
    path.write_bytes(("text\n" + edns_section(GOOD)).encode() + b"# caf\xe9\n")
    assert_refused_file(run_cli("validate", path), path,
                        "the file is not UTF-8 text (byte 0xe9); save it as UTF-8", lineno=5)


def test_a_50_mb_file_is_refused_quickly_without_reading_it_all(tmp_path):
    path = tmp_path / "huge.ks"
    with open(path, "w") as stream:
        stream.write(("# " + "x" * 1021 + "\n") * (50 * 1024))
    assert path.stat().st_size == 50 * 1024 * 1024
    assert_refused_file(run_cli("validate", path), path,
                        "the file is larger than 16 MiB; that is not a kickstart")


def test_a_file_without_read_permission_is_refused(tmp_path):
    path = tmp_path / "locked.ks"
    path.write_text(edns_section(GOOD))
    path.chmod(0)
    # root reads anything; without these capabilities it is refused like anyone.
    prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"] \
        if os.geteuid() == 0 else []
    assert_refused_file(run_cli("validate", path, prefix=prefix), path,
                        "cannot read the file: Permission denied")


def test_a_directory_is_refused(tmp_path):
    assert_refused_file(run_cli("validate", tmp_path), tmp_path,
                        "cannot read the file: Is a directory")


def test_a_missing_file_is_refused(tmp_path):
    assert_refused_file(run_cli("validate", tmp_path / "missing.ks"), tmp_path / "missing.ks",
                        "cannot read the file: No such file or directory")


def test_a_path_through_a_file_is_refused(write_ks):
    path = write_ks("text\n")
    assert_refused_file(run_cli("validate", path + "/ks.cfg"), path + "/ks.cfg",
                        "cannot read the file: Not a directory")


def test_a_file_name_that_is_not_utf8_is_printed_escaped(tmp_path):
    path = os.path.join(os.fsencode(tmp_path), b"\xff.ks")
    with open(path, "w") as stream:
        stream.write(edns_section("dns+tls://192.0.2.54"))
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONIOENCODING="ascii")
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", "validate", path],
                            capture_output=True, env=env, timeout=60)
    assert result.returncode == 1
    assert b"Traceback" not in result.stderr
    assert result.stdout.splitlines()[0].startswith(
        os.fsencode(tmp_path) + b"/\\udcff.ks:2: error: the DoT server")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(
    st.text(max_size=30),
    st.sampled_from(["\n", "%end\n", ADDON + " ", "%edns ", "%certificate --filename=a --dir=/",
                     "%include ", "-----BEGIN CERTIFICATE-----\n", "dns+tls://", "#", "'",
                     "%packages\n", "%pre\n", "domain=", "--ca=", "\r\n", "\x85"])),
    max_size=25).map("".join))
def test_any_text_gives_problems_never_an_exception(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "ks.cfg"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    for problem in parse(str(path)).problems:
        assert problem.message and problem.filename


def test_a_certificate_file_name_is_one_rule_also_in_ca(write_ks, test_ca):
    # What a %certificate --filename may be, a --ca name may be (it names that file).
    kickstart = write_ks(certificate_section(test_ca.pem, '"ca é.pem"') + edns_section(
        "dns+tls://192.0.2.53#dot.example", options="'--ca=ca é.pem'"))
    result = run_cli("validate", kickstart)
    assert (result.returncode, result.stdout) == (0, "%s: 0 errors, 0 warnings\n" % kickstart)


def test_a_control_character_of_a_value_reaches_the_terminal_escaped(write_ks):
    # The %include target is quoted as written; ESC [2J would clear the user's screen,
    # a newline cannot be in a kickstart line.
    path = write_ks("text\n%include /nonexistent/a\x1b[2Jb\x07.ks\n")
    result = run_cli("validate", path)
    assert result.returncode == 0
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "%s:2: warning: %%include /nonexistent/a\\x1b[2Jb\\x07.ks: cannot read the file" % path \
        in result.stdout


# --- certificates in the forms OpenSSL and p11-kit take (tests/ks_fixtures.py PeerPemForms)

@pytest.mark.parametrize("form", ["comments", "text", "trusted"])
def test_a_ca_in_any_form_openssl_takes_validates_and_its_bundle_is_what_openssl_loads(
        write_ks, peer_pem_forms, form):
    path = write_ks(certificate_section(peer_pem_forms.forms()[form]) +
                    edns_section(GOOD, options="--ca=dns-ca.pem"))
    result = run_cli("validate", path)
    assert result.returncode == 0, result.stdout
    assert result.stdout == "%s: 0 errors, 0 warnings\n" % path
    # The DoT bundle staging writes (Unbound's tls-cert-bundle) is one OpenSSL loads.
    bundle = parse(path).staging_input().trust.bundle
    assert peer_pem_forms.openssl_verifies_with(bundle)
    # A TRUSTED CERTIFICATE reaches it with its trust settings, which OpenSSL honours.
    assert (b"-----BEGIN TRUSTED CERTIFICATE-----" in bundle) == (form == "trusted")


def test_a_certificate_openssl_cannot_read_is_a_warning_unless_it_authenticates_dns(
        write_ks, peer_pem_forms):
    # Anaconda's Security module writes a %certificate as it is; only one that the DoT
    # resolver loads must load (Unbound: nothing of a file OpenSSL cannot read).
    unreadable = peer_pem_forms.ca.pem.replace("-----END CERTIFICATE-----", "")
    other = write_ks(certificate_section(unreadable, "other.pem") +
                     certificate_section(peer_pem_forms.ca.pem) +
                     edns_section(GOOD, options="--ca=dns-ca.pem"))
    result = run_cli("validate", other)
    assert result.returncode == 0, result.stdout
    assert "%s:2: warning: '-----BEGIN CERTIFICATE-----' has no matching -----END line" % other \
        in result.stdout
    named = write_ks(certificate_section(unreadable) +
                     edns_section(GOOD, options="--ca=dns-ca.pem"))
    refused = run_cli("validate", named)
    assert refused.returncode == 1
    assert "%s:2: error: '-----BEGIN CERTIFICATE-----' has no matching -----END line" % named \
        in refused.stdout
