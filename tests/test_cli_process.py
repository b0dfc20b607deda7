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

"""What users get from every entry point on hostile input: exit code, a sentence, the files.

Each test runs the real process (`edns-addon`, `python3 -m org_edns_addon.dbus.standalone`,
`make install`) and asserts the exit code, the message and what is on disk afterwards.
"""

import gzip
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

from lab.kickstarts import certificate_section, edns_kickstart, many_certificates_kickstart
from lab import certs
from lab.bus import python_env, start_service, stop_service, template_service_argv, wait_for
from org_edns_addon import constants as c
from org_edns_addon.dbus.identifiers import EDNS
from org_edns_addon.dbus.errors import InvalidValueError
from tests.conftest import REPO, run_cli
from tests.dbus_fixtures import running_template_service
from tests.staging_fixtures import tree_digest

SERVER = "dns+tls://192.0.2.53#dot.example\n"
# C locale without Python's coercion to UTF-8: file names and output are ASCII.
ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}


def run(*args, env=None, module="org_edns_addon.cli", **kwargs):
    """Run `python3 -m MODULE ARGS` with ENV added; return the CompletedProcess."""
    environment = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], env=environment,
                          capture_output=True, text=True, timeout=120, **kwargs)


def assert_sentence(result, code, *fragments):
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def addon_kickstart(write_ks, test_ca, options="--ca=dns-ca.pem", name=None):
    return write_ks(edns_kickstart(test_ca.pem, options), name)


def files_below(path):
    return sorted(os.path.relpath(os.path.join(d, f), path)
                  for d, _, files in os.walk(path) for f in files)


# --- -o: where the output goes ------------------------------------------------------------

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


def test_an_output_symlink_is_followed_and_its_target_replaced(write_ks, tmp_path):
    kickstart = write_ks("%edns\n" + SERVER + "%end\n")
    target = tmp_path / "real.ks"
    target.write_text("old\n")
    (tmp_path / "link.ks").symlink_to("real.ks")
    result = run_cli("convert", kickstart, "-o", tmp_path / "link.ks")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "link.ks").is_symlink()
    assert target.read_text() == "%addon org_edns_addon\n" + SERVER + "%end\n"


def test_overlay_onto_its_own_kickstart_is_a_usage_error_and_the_kickstart_survives(
        write_ks, test_ca, tmp_path):
    kickstart = addon_kickstart(write_ks, test_ca)
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
    kickstart = addon_kickstart(write_ks, test_ca)
    work = tmp_path / "work"
    work.mkdir()
    result = run_cli(*[kickstart if arg == "KS" else arg for arg in args], cwd=work)
    assert_sentence(result, 2, "the path is empty")
    assert list(work.iterdir()) == []


def test_a_missing_output_directory_is_named_with_the_fix(write_ks, test_ca, tmp_path):
    result = run_cli("overlay", addon_kickstart(write_ks, test_ca), "-o",
                     tmp_path / "nowhere" / "o.img")
    assert_sentence(result, 1, "the directory %s does not exist; create it first"
                    % (tmp_path / "nowhere"))


# --- a kickstart is read once ---------------------------------------------------------------

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


# --- interrupted ------------------------------------------------------------------------------

def interrupt_when_writing_starts(argv, watched, signum, env=None):
    """Start ARGV, send SIGNUM once a file appears below WATCHED; return (code, stderr)."""
    environment = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    process = subprocess.Popen([sys.executable, "-m", "org_edns_addon.cli", *map(str, argv)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=environment)
    try:
        deadline = time.monotonic() + 60
        while not any(files for _, _, files in os.walk(watched)):
            assert process.poll() is None, "it ended before writing: %s" % (
                process.stderr.read().decode())
            assert time.monotonic() < deadline
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=60)
        return process.returncode, stderr.decode()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_apply_interrupted_while_writing_leaves_the_root_as_it_was(write_ks, tmp_path,
                                                                      signum):
    # An apply that writes 600 certificate files in 600 new directories.
    kickstart = write_ks(many_certificates_kickstart([certs.make_ca("Many").pem], 600,
                                                     directories=600))
    root = tmp_path / "root"
    root.mkdir()
    code, stderr = interrupt_when_writing_starts(["apply", kickstart, "--root", root], root,
                                                 signum)
    assert code == 130, stderr
    assert stderr.startswith("edns-addon apply: interrupted; nothing was applied: "), stderr
    assert stderr.count("\n") == 1 and "could not" not in stderr
    assert tree_digest(root) == {}      # no file, no temporary file, no directory made


def test_an_overlay_interrupted_at_any_moment_leaves_no_partial_image(write_ks, test_ca,
                                                                      tmp_path):
    """SIGTERM at moments spread over a whole run: the image is complete or absent, and
    nothing else is ever left in its directory (nor in $TMPDIR)."""
    kickstart = addon_kickstart(write_ks, test_ca)
    output, temporary = tmp_path / "out", tmp_path / "tmp"
    output.mkdir()
    temporary.mkdir()
    reference = tmp_path / "reference.img"
    assert run_cli("overlay", kickstart, "-o", reference).returncode == 0
    environment = dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(temporary))
    outcomes = set()
    for attempt in range(24):
        image = output / "o.img"
        process = subprocess.Popen([sys.executable, "-m", "org_edns_addon.cli", "overlay",
                                    kickstart, "-o", image], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, env=environment)
        time.sleep(0.025 * attempt)
        process.send_signal(signal.SIGTERM)
        stderr = process.communicate(timeout=60)[1].decode()
        assert "Traceback" not in stderr
        assert process.returncode in (0, 130, -signal.SIGTERM), stderr
        if process.returncode == 130:   # the command is named once its arguments are read
            assert stderr in ("edns-addon overlay: interrupted\n", "edns-addon: interrupted\n")
        if image.exists():
            assert image.read_bytes() == reference.read_bytes()
            assert stat.S_IMODE(image.stat().st_mode) == 0o600
            image.unlink()
        outcomes.add(process.returncode)
        assert list(output.iterdir()) == [] and list(temporary.iterdir()) == []
    assert 130 in outcomes


# --- standard output ---------------------------------------------------------------------------

def test_output_cut_off_by_the_reader_is_a_failure_not_a_traceback(tmp_path):
    kickstart = tmp_path / "bad.ks"
    kickstart.write_text("".join("bogus%d\n" % n for n in range(3000)))
    process = subprocess.Popen([sys.executable, "-m", "org_edns_addon.cli", "validate",
                                str(kickstart)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=dict(os.environ,
                                                                PYTHONPATH=str(REPO)))
    try:
        process.stdout.readline()    # like `| head -1`
        process.stdout.close()
        stderr = process.stderr.read().decode()
        assert process.wait(timeout=60) == 1
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert stderr == ""


@pytest.mark.parametrize("command", ["validate", "boot-args", "convert", "apply", "overlay"])
def test_a_standard_output_that_cannot_be_written_is_a_sentence(write_ks, test_ca, tmp_path,
                                                                command):
    kickstart = write_ks(edns_kickstart(test_ca.pem, spelling="%edns"
                                        if command == "convert" else "%addon org_edns_addon"))
    (tmp_path / "root").mkdir()
    extra = {"apply": ["--root", tmp_path / "root"], "overlay": ["-o", tmp_path / "o.img"]}
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", command,
                                 kickstart, *map(str, extra.get(command, []))], stdout=full,
                                stderr=subprocess.PIPE, text=True, timeout=120,
                                env=dict(os.environ, PYTHONPATH=str(REPO)))
    sentence = "edns-addon %s: cannot write to standard output: No space left on device; " \
        "what it would have printed is lost\n" % command
    assert_sentence(result, 1, sentence)
    assert result.stderr.endswith(sentence) and result.stderr.count(sentence) == 1


# What pip writes for the console script `edns-addon` (setup.py's entry point).
CONSOLE_SCRIPT = """import re
import sys
from org_edns_addon.cli import main
if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
    sys.exit(main())
"""


@pytest.mark.parametrize("form, signum", [("module", signal.SIGINT), ("module", signal.SIGTERM),
                                          ("module", signal.SIGHUP), ("script", signal.SIGINT)])
def test_a_signal_at_any_moment_of_start_up_ends_the_run_cleanly(write_ks, tmp_path, form,
                                                                 signum):
    """The signal sent 0, 8, 16, ... ms after the start, until a run has ended by itself:
    every run ends with 130 and the sentence, or finishes its work, or ends before our
    code's first line runs: SIGTERM and SIGHUP then kill it silently; SIGINT is Python's
    own until then (its start-up and site files may report it), never through our code."""
    kickstart = write_ks("%addon org_edns_addon\n" + SERVER + "%end\n")
    script = tmp_path / "edns-addon"
    script.write_text(CONSOLE_SCRIPT)
    program = ["-m", "org_edns_addon.cli"] if form == "module" else [str(script)]
    outcomes = {}
    for delay in range(0, 5000, 8):
        process = subprocess.Popen([sys.executable, *program, "validate", kickstart],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=dict(os.environ, PYTHONPATH=str(REPO)))
        time.sleep(delay / 1000)
        ended_by_itself = process.poll() is not None
        process.send_signal(signum)   # (nothing, once the run has ended)
        stdout, stderr = (stream.decode() for stream in process.communicate(timeout=60))
        assert not OUR_FRAME.search(stderr), stderr   # no frame of our code, ever
        if process.returncode == 0:
            assert stdout == "%s: 0 errors, 0 warnings\n" % kickstart
            if signum != signal.SIGINT:   # (a SIGINT in site's .pth files: its report)
                assert stderr == ""
            if ended_by_itself:
                break
            # The signal came after the exit code was decided (held back, never delivered),
            # or Python's start-up swallowed it: later delays still reach our handler.
            outcomes[0] = outcomes.get(0, 0) + 1
            continue
        if process.returncode == 130:
            assert stderr in ("edns-addon validate: interrupted\n", "edns-addon: interrupted\n")
        elif signum == signal.SIGINT:  # ended by Python before our first line: no output
            assert stdout == "" and "interrupted" not in stderr, (process.returncode, stderr)
        else:
            assert (process.returncode, stdout, stderr) == (-signum, "", "")
        outcomes[process.returncode] = outcomes.get(process.returncode, 0) + 1
    assert outcomes.get(130), outcomes


# Python's start-up hooks (on PYTHONPATH first), each a Ctrl-C in one moment of start-up:
# in the command line's first lines, where it is about to hold the signals back; or before any line
# of ours, in the first import of a module of the package, whichever it is.
INTERRUPTING_SITECUSTOMIZE = {"cli's first lines": """import signal
def interrupting(*args):
    raise KeyboardInterrupt
signal.pthread_sigmask = interrupting
""", "before our first line": """import sys
class Interrupting:
    def find_spec(self, name, path=None, target=None):
        if name.startswith("org_edns_addon."):
            raise KeyboardInterrupt
sys.meta_path.insert(0, Interrupting())
"""}


def interrupted_start(tmp_path, program, where):
    """Run PROGRAM (after python3) with a Ctrl-C WHERE (INTERRUPTING_SITECUSTOMIZE)."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(INTERRUPTING_SITECUSTOMIZE[where])
    script = tmp_path / "edns-addon"
    script.write_text(CONSOLE_SCRIPT)
    argv = [str(script) if word == "SCRIPT" else word for word in program]
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH="%s%s%s" % (hooks, os.pathsep, REPO)))


# A traceback's frame of this package's code (not any line that names one of its files: an
# importer interrupted before our first line may print such a path in its own message).
OUR_FRAME = re.compile(r'^\s*File "[^"]*/org_edns_addon/[^"]*", line \d+', re.MULTILINE)


@pytest.mark.parametrize("program", [["-m", "org_edns_addon.cli", "--version"],
                                     ["SCRIPT", "--version"]], ids=["module", "script"])
def test_a_ctrl_c_in_the_command_lines_first_lines_ends_the_run_with_the_sentence(
        tmp_path, program):
    result = interrupted_start(tmp_path, program, "cli's first lines")
    assert (result.returncode, result.stdout, result.stderr) == (
        130, "", "edns-addon: interrupted\n")


@pytest.mark.parametrize("program", [
    ["-m", "org_edns_addon.cli", "--version"], ["SCRIPT", "--version"],
    # Anaconda starts the module so; the stand-alone service starts the same way.
    ["-m", "org_edns_addon.service"], ["-m", "org_edns_addon.dbus.standalone"]],
    ids=["cli module", "cli script", "anaconda module", "stand-alone service"])
def test_a_ctrl_c_before_our_first_line_is_pythons_own_never_the_command_lines(tmp_path,
                                                                              program):
    """The package runs nothing when imported: only the command line handles start-up
    signals, from its own first line; before that, and in every other program of the
    package, a Ctrl-C is Python's KeyboardInterrupt, without a frame of ours."""
    result = interrupted_start(tmp_path, program, "before our first line")
    assert result.returncode == -signal.SIGINT, result.stderr
    assert result.stderr.endswith("\nKeyboardInterrupt\n"), result.stderr
    assert "interrupted" not in result.stderr and not OUR_FRAME.search(result.stderr), \
        result.stderr


def test_a_closed_standard_output_is_a_usage_error(write_ks):
    kickstart = write_ks("%edns\n" + SERVER + "%end\n")
    result = subprocess.run([sys.executable, "-m", "org_edns_addon.cli", "convert", kickstart],
                            preexec_fn=lambda: os.close(1), stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=60)
    assert_sentence(result, 2, "edns-addon convert: error: standard output is closed; "
                    "redirect it to a file or to /dev/null instead")


# --- the kickstart's certificates and %include ------------------------------------------------

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


def test_a_certificate_file_name_is_one_rule_also_in_ca(write_ks, test_ca):
    # What a %certificate --filename may be, a --ca name may be (it names that file).
    kickstart = write_ks(certificate_section(test_ca.pem, '"ca é.pem"') +
                         "%addon org_edns_addon '--ca=ca é.pem'\n" + SERVER + "%end\n")
    result = run_cli("validate", kickstart)
    assert (result.returncode, result.stdout) == (0, "%s: 0 errors, 0 warnings\n" % kickstart)


def test_includes_nested_too_deep_are_an_error_with_the_fix(tmp_path):
    depth = c.MAX_INCLUDE_DEPTH + 20
    for level in range(depth):
        (tmp_path / ("%d.ks" % level)).write_text("%%include %d.ks\n" % (level + 1))
    (tmp_path / ("%d.ks" % depth)).write_text("text\n")
    result = run_cli("validate", tmp_path / "0.ks")
    assert result.returncode == 1
    last = tmp_path / ("%d.ks" % (c.MAX_INCLUDE_DEPTH - 1))
    assert "%s:1: error: %%include %s is nested more than %d files deep; include the files " \
        "from fewer levels, or flatten the kickstart (ksflatten)" % (
            last, tmp_path / ("%d.ks" % c.MAX_INCLUDE_DEPTH), c.MAX_INCLUDE_DEPTH) \
        in result.stdout
    assert "recursion" not in result.stdout


# --- locales ----------------------------------------------------------------------------------

def test_a_non_ascii_file_name_in_an_ascii_locale_is_written_as_utf_8(write_ks, test_ca,
                                                                      tmp_path):
    # The name is the kickstart's (UTF-8 text), read by the installed system in a UTF-8
    # locale: the same bytes whatever the locale apply runs in.
    kickstart = write_ks(certificate_section(test_ca.pem, "ca-é.pem") +
                         "%addon org_edns_addon\n" + SERVER + "%end\n")
    root = tmp_path / "root"
    root.mkdir()
    result = run("apply", kickstart, "--root", root, env=ASCII_LOCALE)
    assert_sentence(result, 0)
    assert "wrote /etc/pki/dns/ca-\\xe9.pem\n" in result.stdout   # escaped on an ASCII terminal
    assert os.listdir(os.fsencode(root / "etc/pki/dns")) == ["ca-é.pem".encode("utf-8")]
    assert (root / "etc/pki/dns/ca-é.pem").read_text() == test_ca.pem


def test_an_idna_query_name_typed_in_an_ascii_locale_is_understood(write_ks):
    kickstart = write_ks("%addon org_edns_addon\ndns+tls://127.0.0.1:1#dot.example\n%end\n")
    result = run("check", kickstart, "--timeout", "2", "--name", "bücher.example",
                 env=ASCII_LOCALE)
    assert result.returncode == 1, result.stderr      # port 1 refuses: the check ran
    assert "dns+tls://127.0.0.1:1#dot.example: connection refused" in result.stdout


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf", "300.5", "1e9", "soon"])
def test_a_check_timeout_out_of_range_is_a_usage_error_naming_the_range(write_ks, timeout):
    kickstart = write_ks("%addon org_edns_addon\n" + SERVER + "%end\n")
    result = run_cli("check", kickstart, "--timeout", timeout)
    assert_sentence(result, 2, "argument --timeout: %r is not a number of seconds above 0 and "
                    "at most %g" % (timeout, c.CHECK_TIMEOUT_MAX_SECONDS))


# --- missing tools, wording -------------------------------------------------------------------

def test_the_overlay_needs_no_cpio_tool(write_ks, test_ca, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    result = run("overlay", addon_kickstart(write_ks, test_ca), "-o", tmp_path / "o.img",
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
    result = run_cli("apply", addon_kickstart(write_ks, test_ca), "--root", root,
                     prefix=("setpriv", "--inh-caps=" + capabilities,
                             "--bounding-set=" + capabilities))
    assert_sentence(result, 1, "nothing was written: %s/etc/pki/dns/dns-ca.pem: its directory "
                    "is not writable (%s/etc); make that directory writable or choose "
                    "another root" % (root, root))
    assert list((root / "etc").iterdir()) == []


# --- tui: what can be said before the screens start ---------------------------------------

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


# --- make install ---------------------------------------------------------------------------

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
    result = run("--destdir", "", module="org_edns_addon.packaging", cwd=tmp_path)
    assert_sentence(result, 1, "not installed: the destination directory is empty")
    assert list(tmp_path.iterdir()) == []


# --- the stand-alone D-Bus service -------------------------------------------------------------

@pytest.mark.parametrize("address, reason", [
    ("garbage", "Address element “garbage” does not contain a colon (:)"),
    ("unix:path=/nonexistent/bus", "Could not connect: No such file or directory"),
    ("", "The given address is empty"),
])
def test_the_service_on_a_bad_address_says_which_address_to_give(address, reason):
    result = run("--address", address, module="org_edns_addon.dbus.standalone")
    assert_sentence(result, 1, "cannot serve on the D-Bus bus at %r: %s" % (address, reason),
                    "give the address that dbus-daemon --print-address printed")


def test_a_second_service_on_the_same_bus_says_the_name_is_taken(bus, bus_address):
    with running_template_service(bus, bus_address):
        result = run("--address", bus_address, module="org_edns_addon.dbus.standalone")
    assert_sentence(result, 1, "%s is already owned on the bus at %s; stop the service that "
                    "owns it first" % (EDNS.service_name, bus_address))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_service_stopped_with_a_signal_right_after_start_exits_130(bus, bus_address,
                                                                       tmp_path, signum):
    # Sent as soon as the name is owned, possibly before the loop runs: it must
    # not be lost (a lost quit() left the service running forever), nor print a traceback.
    log = tmp_path / "service.log"
    process = start_service(template_service_argv(bus_address), bus, EDNS.service_name,
                            env=python_env(), log_path=log)
    try:
        process.send_signal(signum)
        code = process.wait(timeout=30)
    finally:
        stop_service(process)
        wait_for(lambda: not bus.proxy.NameHasOwner(EDNS.service_name),
                 what="the service name to be released")
    assert (code, log.read_text()) == (130, "")


def test_the_service_with_an_empty_kickstart_path_is_a_usage_error():
    result = run("--address", "unix:path=/nonexistent/bus", "--kickstart", "",
                 module="org_edns_addon.dbus.standalone")
    assert_sentence(result, 2, "argument --kickstart: the path is empty")


def test_a_certificate_name_too_long_for_a_file_is_refused_over_d_bus(bus, bus_address,
                                                                      test_ca):
    name = "x" * 252 + ".pem"
    with running_template_service(bus, bus_address) as (proxy, process):
        with pytest.raises(InvalidValueError, match="is longer than a file name may be "
                           r"\(255 bytes\); choose a shorter name"):
            proxy.AddCertificate(name, test_ca.pem)
        assert proxy.Certificates == []
        assert process.poll() is None
