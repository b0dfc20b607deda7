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

"""Reading a kickstart is bounded in time and memory, whatever the kickstart holds.

Each test performs an attack on a real `edns-addon validate` process and checks
what it prints. Where time or memory is the point, the process's own CPU time
and peak memory (the kernel's accounting of that child alone) are compared with
the same command on a small kickstart: only generous ratios, never a clock.
"""

import json
import os
import re

import pytest
from hypothesis import given, settings, strategies as st

from lab.kickstarts import ADDON, certificate_section, edns_section
from org_edns_addon import constants as c
from org_edns_addon.ks.source import LinePlaces, iter_lines
from tests.conftest import run_measured

GOOD = "dns+tls://192.0.2.53#dot.corp.example"


@pytest.fixture
def small(write_ks, pems):
    """`validate` of a small clean kickstart (a certificate and a server): the baseline."""
    path = write_ks(certificate_section(pems.ca.pem)
                    + edns_section(GOOD, options="--ca=dns-ca.pem"))
    result = run_measured("validate", "--json", path)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def assert_no_traceback(result):
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stderr == ""


# --- time --------------------------------------------------------------------------------

def test_a_line_too_long_to_split_is_refused_on_its_line_without_splitting_it(write_ks, small):
    # pykickstart's tokenizer takes time growing with the square of a word's length.
    path = write_ks("text " + "x" * 800000 + "\n" + edns_section(GOOD))
    result = run_measured("validate", path)
    assert_no_traceback(result)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "%s:1: error: the line is 800005 characters long; a command, section header or "
        "server line may have at most %d: shorten it" % (path, c.MAX_KICKSTART_LINE),
        "%s: 1 error, 0 warnings" % path]
    assert result.cpu < 3 * small.cpu


@pytest.mark.parametrize("where", ["command", "section header", "server line"])
def test_every_line_that_is_split_has_the_bound(write_ks, where):
    long_word = "y" * (c.MAX_KICKSTART_LINE + 1)
    text = {"command": "network --hostname=%s\n" % long_word + edns_section(GOOD),
            "section header": edns_section(GOOD, options="--search=" + long_word),
            "server line": edns_section(GOOD, "dns+tls://192.0.2.54#" + long_word)}[where]
    path = write_ks(text)
    result = run_measured("validate", path)
    assert result.returncode == 1
    assert "error: the line is %d characters long" % (len(long_word) + len(
        {"command": "network --hostname=", "section header": ADDON + " --search=",
         "server line": "dns+tls://192.0.2.54#"}[where])) in result.stdout
    assert long_word not in result.stdout


def test_a_long_line_in_a_script_body_is_read_as_anaconda_reads_it(write_ks):
    # Scripts embed long blobs (echo BASE64 | base64 -d); pykickstart never splits them.
    path = write_ks("%post\necho " + "QUJD" * 50000 + " | base64 -d > /x\n%end\n" +
                    edns_section(GOOD))
    result = run_measured("validate", path)
    assert (result.returncode, result.stdout) == (0, "%s: 0 errors, 0 warnings\n" % path)


@pytest.mark.parametrize("first, refused", [("echo start\n", False), ("", True)])
def test_a_long_line_of_a_file_included_in_a_script_is_refused_only_where_it_is_split(
        tmp_path, first, refused):
    # pykickstart splits the first line of a file included inside a section, not the others.
    long_line = "echo " + "QUJD" * 5000 + "\n"
    (tmp_path / "part.sh").write_text("# a comment\n" + first + long_line)
    (tmp_path / "ks.cfg").write_text("%post\n%include part.sh\n%end\n" + edns_section(GOOD))
    result = run_measured("validate", tmp_path / "ks.cfg")
    assert result.returncode == int(refused), result.stdout
    assert ("%s:2: error: the line is %d characters long" % (tmp_path / "part.sh",
                                                             len(long_line) - 1)
            in result.stdout) == refused


def test_a_certificate_of_as_many_blocks_as_fit_costs_time_in_proportion(write_ks, pems):
    # Once quadratic (8 000 blocks: 44 s): a tenth of the blocks must cost about a tenth.
    blocks = c.MAX_PEM_BYTES // len(pems.ca.pem)
    runs = {}
    for count in (blocks // 10, blocks):
        path = write_ks(certificate_section(pems.ca.pem * count) +
                        edns_section(GOOD, options="--ca=dns-ca.pem"))
        runs[count] = run_measured("validate", path)
        assert (runs[count].returncode, runs[count].stdout) == (
            0, "%s: 0 errors, 0 warnings\n" % path)
    assert runs[blocks].cpu < 4 * runs[blocks // 10].cpu


def test_a_certificate_body_past_the_size_bound_stops_growing(write_ks, pems, small):
    # A million blank lines after a certificate: refused for its size, in little memory.
    path = write_ks(certificate_section(pems.ca.pem + "\n" * (c.MAX_PEM_BYTES * 4)) +
                    edns_section(GOOD))
    result = run_measured("validate", path)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == (
        "%s:1: error: the certificate text is larger than %d KiB; that is not a CA "
        "certificate or bundle" % (path, c.MAX_PEM_BYTES // 1024))
    assert result.peak_kib < 2 * small.peak_kib


def test_include_breadth_is_bounded_with_an_error_on_the_include_line(tmp_path, small):
    # Six small files of ten %includes each: 10^5 reads.
    for level in range(6):
        (tmp_path / ("f%d.ks" % level)).write_text(
            "%%include f%d.ks\n" % (level + 1) * 10 if level < 5 else "# leaf\n")
    result = run_measured("validate", tmp_path / "f0.ks")
    assert_no_traceback(result)
    assert result.returncode == 1
    refused = re.compile(r"%s/f\d\.ks:\d+: error: %%include %s/f\d\.ks: more than %d files "
                         r"are included in all \(a file included from several places counts "
                         r"each time\); include fewer, or flatten the kickstart \(ksflatten\)\Z"
                         % (tmp_path, tmp_path, c.MAX_INCLUDES))
    lines = result.stdout.splitlines()
    warning = "%s/f0.ks: warning: no %s section; encrypted DNS is not configured" % (tmp_path,
                                                                                   ADDON)
    assert warning in lines
    problems = [line for line in lines[:-1] if line != warning]
    assert problems and all(refused.match(line) for line in problems)
    assert lines[-1] == "%s/f0.ks: %d errors, 1 warning" % (tmp_path, len(problems))
    assert result.cpu < 10 * small.cpu


def test_includes_together_larger_than_the_bound_are_refused_on_the_include_line(tmp_path):
    # Each file alone is under the bound; a long comment line is read without splitting.
    half = c.MAX_KICKSTART_BYTES // 2 + 1
    for name in ("a.ks", "b.ks"):
        (tmp_path / name).write_text("# " + "z" * (half - 3) + "\n")
    (tmp_path / "ks.cfg").write_text("%include a.ks\n%include b.ks\n" + edns_section(GOOD))
    result = run_measured("validate", tmp_path / "ks.cfg")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "%s/ks.cfg:2: error: %%include %s/b.ks: the kickstart and its included files are "
        "larger than %d MiB in all; that is not a kickstart"
        % (tmp_path, tmp_path, c.MAX_KICKSTART_BYTES // (1024 * 1024)),
        "%s/ks.cfg: 1 error, 0 warnings" % tmp_path]


def test_an_include_of_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "ks.cfg").write_text(edns_section(GOOD) + "%include fifo\n")
    result = run_measured("validate", tmp_path / "ks.cfg")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "%s/ks.cfg:4: error: %%include %s: it is a FIFO (named pipe), not a regular file; "
        "only files are included" % (tmp_path, fifo),
        "%s/ks.cfg: 1 error, 0 warnings" % tmp_path]


def test_an_include_of_a_terminal_is_refused_without_reading_it(tmp_path):
    controller, terminal = os.openpty()
    try:
        name = os.ttyname(terminal)
        (tmp_path / "ks.cfg").write_text("%%include %s\n" % name + edns_section(GOOD))
        result = run_measured("validate", tmp_path / "ks.cfg")
    finally:
        os.close(terminal)
        os.close(controller)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == (
        "%s/ks.cfg:1: error: %%include %s: it is a character device (a terminal or a device), "
        "not a regular file; only files are included" % (tmp_path, name))


def test_an_include_of_a_directory_is_refused(tmp_path):
    (tmp_path / "ks.cfg").write_text("%include /\n" + edns_section(GOOD))
    result = run_measured("validate", tmp_path / "ks.cfg")
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == (
        "%s/ks.cfg:1: error: %%include /: it is a directory, not a regular file; only files "
        "are included" % tmp_path)


def test_commands_past_the_bound_stop_reading_with_an_error(write_ks, small):
    # pykickstart compares each user line with every earlier one: 10 000 took 20 s.
    path = write_ks(edns_section(GOOD) + "".join("user --name=u%d\n" % n for n in range(10000)))
    result = run_measured("validate", path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "%s:%d: error: more than %d commands; the rest of the kickstart is not checked: "
        "a kickstart needs far fewer"
        % (path, c.MAX_KICKSTART_COMMANDS + 4, c.MAX_KICKSTART_COMMANDS),
        "%s: 1 error, 0 warnings" % path]
    assert result.cpu < 10 * small.cpu


def test_a_long_package_list_is_read_in_time_in_proportion(write_ks, small):
    # pykickstart sorts the whole list again for each line it is given: 20 000 took minutes.
    path = write_ks(edns_section(GOOD) + "%packages\n@core\n-@dial-up\n" +
                    "".join("package-%d\n" % n for n in range(20000)) + "-package-7\n%end\n")
    result = run_measured("validate", path)
    assert (result.returncode, result.stdout) == (0, "%s: 0 errors, 0 warnings\n" % path)
    assert result.cpu < 3 * small.cpu


# --- memory ------------------------------------------------------------------------------

def test_a_megabyte_of_unknown_commands_stops_after_the_problem_bound(write_ks, small):
    # Once 758 MB for `validate --json`: every problem was kept.
    path = write_ks("x\n" * (512 * 1024))
    result = run_measured("validate", "--json", path)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert (report["errors"], report["warnings"], report["omitted"]) == (c.MAX_PROBLEMS + 1,
                                                                         0, 0)
    assert report["problems"][0] == {"file": path, "line": 1, "severity": "error",
                                     "message": "Unknown command: x"}
    assert report["problems"][-1] == {
        "file": path, "line": c.MAX_PROBLEMS + 1, "severity": "error",
        "message": "more than %d problems; the rest of the kickstart is not checked: fix "
                   "these first" % c.MAX_PROBLEMS}
    assert result.peak_kib < 2 * small.peak_kib


def test_millions_of_comment_lines_are_read_one_at_a_time(write_ks, small):
    # Once 685 MB for 16 MiB: the file was split into a list of lines first.
    path = write_ks("#\n" * (2 * 1024 * 1024) + edns_section(GOOD))
    result = run_measured("validate", "--json", path)
    assert result.returncode == 0, result.stdout
    assert result.peak_kib < 2 * small.peak_kib


def test_problems_past_the_bound_are_counted_and_said_not_listed(write_ks):
    servers = ["dns+tls://[2001:db8::%x]" % (n + 1) for n in range(1500)]
    path = write_ks(edns_section(GOOD, *servers))
    result = run_measured("validate", path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == c.MAX_PROBLEMS + 2
    assert lines[-2:] == [
        "%s: ... and 500 more problems (500 errors, 0 warnings) not listed; fix those above "
        "and run again" % path,
        "%s: 1500 errors, 0 warnings" % path]
    report = json.loads(run_measured("validate", "--json", path).stdout)
    assert (report["errors"], len(report["problems"]), report["omitted"]) == (
        1500, c.MAX_PROBLEMS, 500)


# --- the pieces that keep it so ----------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.one_of(st.sampled_from(list("ab #%\t\r\n\x0b\x0c\x1c\x1d\x1e\x85"
                                                      "\u2028\u2029")), st.characters())))
def test_lines_are_handed_over_one_by_one_as_pykickstart_splits_them(text):
    assert list(iter_lines(text)) == text.splitlines(True)


def test_line_places_are_kept_as_runs_and_read_back_one_by_one():
    places = [("a.ks", 3), ("a.ks", 4), ("a.ks", 5), ("b.ks", 1), ("b.ks", 2), ("a.ks", 7)]
    kept = LinePlaces()
    for place in places:
        kept.append(place)
    assert list(kept) == places and len(kept) == 6 and kept[-1] == ("a.ks", 7)
    assert [kept.index(place) for place in places] == list(range(6))
    assert len(kept._runs) == 3
    with pytest.raises(ValueError):
        kept.index(("a.ks", 6))
