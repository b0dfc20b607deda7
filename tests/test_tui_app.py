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

"""`edns-addon tui` driven in a real terminal (tmux, or a pseudo-terminal of its own): what a
user types, sees and gets."""

import os
import select
import subprocess
import sys
import time

import pytest

from lab.kickstarts import certificate_section
from lab import certs
from tests.conftest import REPO, assert_sentence, run_cli, sticky_directory_with_a_planted_link

PROMPT = "Please make a selection from the above"


def test_new_configuration_typed_in_is_written_exactly(terminal, tmp_path):
    out = tmp_path / "edns.ks"
    terminal.start("tui", "-o", str(out))
    first = terminal.wait_for(PROMPT)
    assert "Servers: none yet; add at least one" in first
    assert "Status: Not configured" in first

    terminal.type("1")
    assert "1) Add a server" in terminal.wait_for(PROMPT)
    terminal.type("1")
    terminal.wait_for("Server (empty line: back):")

    terminal.type("dns+tls://2001:db8::53#dot.example")
    shown = terminal.wait_for("Server (empty line: back):")
    assert "Error: The IPv6 address in 'dns+tls://2001:db8::53#dot.example' must be in" in shown
    assert "DNS servers" not in shown  # the screen stayed

    terminal.type("dns+tls://[2001:db8::53]#dot.example")
    # Its routed domains are asked next, on a screen of their own: none, every name.
    terminal.wait_for("Domains (empty line: every name):")
    terminal.type("")
    listed = terminal.wait_for(PROMPT)
    assert "1) dns+tls://[2001:db8::53]#dot.example\n" \
           "      TLS name: dot.example; serves every name" in listed
    terminal.type("2")
    terminal.wait_for("Server (empty line: back):")
    terminal.type("192.0.2.53:853#DoT2.example")
    terminal.wait_for("Domains (empty line: every name):")
    terminal.type("lab.example")
    listed = terminal.wait_for(PROMPT)
    assert "2) dns+tls://192.0.2.53#dot2.example\n" \
           "      TLS name: dot2.example; serves only lab.example" in listed

    terminal.type("c")
    terminal.wait_for(PROMPT)
    terminal.type("2")
    assert "1) [x] exclusive" in terminal.wait_for(PROMPT)
    terminal.type("2")
    main = terminal.wait_for(PROMPT)
    assert "2) Resolve mode: prefer" in main
    assert "Status: 2 DoT servers, prefer" in main

    terminal.type("c")
    assert terminal.exit_status() == 0
    assert out.read_text() == (
        "%addon org_edns_addon --resolve-mode=prefer --backend=dnsconfd\n"
        "dns+tls://[2001:db8::53]#dot.example\n"
        "dns+tls://192.0.2.53#dot2.example domain=lab.example\n"
        "%end\n")
    validated = run_cli("validate", out)
    assert validated.returncode == 0, validated.stdout
    # prefer says on the header line what plaintext it lets out, and nothing else is said.
    assert validated.stdout.startswith("%s:1: warning: --resolve-mode=prefer lets plaintext "
                                       "DNS leave the host" % out)
    assert validated.stdout.endswith("0 errors, 1 warning\n")


def test_pasted_ca_joins_the_kickstart_and_the_rest_is_untouched(terminal, tmp_path, test_ca):
    head = "# installer settings\ntext\nrootpw --lock\n\n"
    tail = "\n%packages\n@core\n%end\n"
    kickstart = tmp_path / "ks.cfg"
    kickstart.write_text(head + "%addon org_edns_addon\n192.0.2.53#dot.example\n%end\n" + tail)
    out = tmp_path / "out.cfg"
    terminal.start("tui", str(kickstart), "-o", str(out))
    terminal.wait_for(PROMPT)
    terminal.type("5")
    assert "1) Paste a PEM certificate" in terminal.wait_for(PROMPT)
    terminal.type("1")
    terminal.wait_for("PEM:")

    terminal.paste(certs.make_server(test_ca).pem)
    terminal.type("")
    assert "Error: The PEM text, line 1: Not a valid CA certificate: CN=dot.test" in \
        terminal.wait_for("paste it again")
    terminal.paste(test_ca.pem)
    terminal.type("")
    terminal.wait_for("File name [test-dns-ca.pem]:")
    terminal.type("corp-ca.pem")
    listed = terminal.wait_for(PROMPT)
    assert "1) [x] corp-ca.pem (added here)\n       (CN=Test DNS CA, valid until" in listed

    terminal.type("c")
    assert "5) CA certificates: corp-ca.pem" in terminal.wait_for(PROMPT)
    terminal.type("c")
    assert terminal.exit_status() == 0
    assert out.read_text() == (
        head + certificate_section(test_ca.pem, "corp-ca.pem") + "\n" +
        "%addon org_edns_addon --resolve-mode=exclusive --backend=dnsconfd --ca=corp-ca.pem\n"
        "dns+tls://192.0.2.53#dot.example\n%end\n" + tail)
    assert run_cli("validate", out).returncode == 0


def test_saving_an_incomplete_configuration_is_refused(terminal, tmp_path):
    out = tmp_path / "edns.ks"
    terminal.start("tui", "-o", str(out))
    terminal.wait_for(PROMPT)
    terminal.type("c")
    refused = terminal.wait_for(PROMPT)
    assert "Error: Not written: the configuration has errors" in refused
    assert "Error: No DNS server is given" in refused
    terminal.type("q")
    terminal.wait_for("Please respond 'yes' or 'no'")
    terminal.type("yes")
    assert terminal.exit_status() == 1
    assert not out.exists()


def test_kickstart_with_errors_is_refused_before_the_ui(terminal, tmp_path):
    kickstart = tmp_path / "bad.ks"
    kickstart.write_text("%addon org_edns_addon\ndns+tls://192.0.2.53\n%end\n")
    terminal.start("tui", str(kickstart))
    shown = terminal.wait_for("not edited")
    # The terminal wraps long lines wherever the path's length puts the edge.
    expected = "%s:2: error: the DoT server dns+tls://192.0.2.53 has no TLS name" % kickstart
    assert "".join(expected.split()) in "".join(shown.split())
    assert terminal.exit_status() == 1


# A terminal that goes away under a session whose shell ignores SIGHUP (nohup, a parent
# that set SIG_IGN): the kernel's hang-up signal is not seen, reads see the end or fail.

# The child's first lines, as a shell with `trap '' HUP` would start it: the pseudo-terminal
# becomes its controlling terminal (it leads a new session), SIGHUP is ignored, then the
# command runs. (Not pty.fork(): forking the multi-threaded test process may deadlock.)
IGNORE_HUP_ON_THIS_TERMINAL = """import fcntl, os, signal, sys, termios
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
os.execv(sys.executable, [sys.executable] + sys.argv[1:])
"""


class PtySession:
    """`edns-addon tui` on a pseudo-terminal of its own, SIGHUP ignored."""

    def __init__(self, *argv):
        env = dict(os.environ, PYTHONPATH=str(REPO), TERM="xterm")
        self.master, terminal = os.openpty()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", IGNORE_HUP_ON_THIS_TERMINAL, "-m", "org_edns_addon.cli",
                 *argv], stdin=terminal, stdout=terminal, stderr=terminal, env=env,
                start_new_session=True)
        finally:
            os.close(terminal)
        self.screen = b""

    def wait_for(self, text, seconds=15, at_end=False):
        """Read the terminal until TEXT is on it (AT_END: is the last thing written)."""
        deadline = time.monotonic() + seconds
        while not (self.screen.endswith(text.encode()) if at_end else
                   text.encode() in self.screen):
            assert time.monotonic() < deadline, "no %r on the screen: %r" % (text, self.screen)
            if select.select([self.master], [], [], 0.1)[0]:
                self.screen += os.read(self.master, 65536)

    def type(self, keys):
        os.write(self.master, keys)

    def exit_status(self, seconds=15):
        """The exit status, or None if the process still runs after SECONDS (then killed)."""
        try:
            return self.process.wait(seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None

    def close(self):
        try:
            os.close(self.master)
        except OSError:
            pass


@pytest.mark.parametrize("ending", ["terminal closed", "end of input (Ctrl-D)"])
def test_a_terminal_that_goes_away_ends_the_session_with_130_and_nothing_written(
        tmp_path, ending):
    out = tmp_path / "edns.ks"
    session = PtySession("tui", "-o", str(out))
    try:
        session.wait_for(PROMPT)
        session.screen = b""
        session.type(b"1\n")
        session.wait_for("1) Add a server")
        session.wait_for("'c' to continue")
        session.wait_for("refresh]: ", at_end=True)
        session.screen = b""
        if ending == "terminal closed":
            session.close()
        else:
            session.type(b"\x04")
        status = session.exit_status()
        if ending != "terminal closed":
            # What the session printed after the end: nothing (no traceback, no prompt).
            while select.select([session.master], [], [], 0.2)[0]:
                try:
                    session.screen += os.read(session.master, 65536)
                except OSError:
                    break
            assert b"Traceback" not in session.screen and PROMPT.encode() not in session.screen
    finally:
        session.close()
    assert status == 130
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


# A pasted value is refused in a few lines (ui/editor.py echoed_short, echo.py): the terminal
# echoes the paste itself (30 of its 40 lines here), and the error after it stays in view.
PASTED = "dns+tls://" + "203.0.113." * 300


def _one_line(text):
    return "".join(text.split())


@pytest.mark.parametrize("item, question, sentence", [
    ("1", "Server (empty line: back):",
     "Error: '%s… (%d characters) is not an IPv4 or IPv6 address."),
    ("5", "Path (empty line: back):",
     "Error: Cannot read '%s… (%d characters): File name too long."),
])
def test_a_pasted_value_is_refused_short_and_the_error_stays_on_the_screen(
        terminal, tmp_path, item, question, sentence):
    terminal.start("tui", "-o", str(tmp_path / "edns.ks"))
    terminal.wait_for(PROMPT)
    terminal.type(item)
    terminal.wait_for(PROMPT)
    # Add a server (servers), or Read a PEM file (CA certificates: paste, file).
    terminal.type("1" if item == "1" else "2")
    terminal.wait_for(question)
    typed = PASTED[len("dns+tls://"):] if item == "5" else PASTED
    shown_value = typed[:79] if item == "5" else typed[10:89]
    terminal.type(typed)
    terminal.wait_for("Error:")
    terminal.wait_for(question)
    screen = terminal.screen()
    # Where the value was taken apart: the address after the scheme, or the path whole.
    expected = sentence % ((PASTED[10:89] if item == "1" else shown_value), len(
        PASTED[10:] if item == "1" else typed))
    assert _one_line(expected) in _one_line(screen), screen
    # The refusal is two lines at most on 100 columns, the question under it.
    after = screen[screen.index("Error:"):]
    assert len(after.splitlines()) <= 3, after
    assert after.splitlines()[-1].startswith(question)


def test_reading_a_fifo_is_refused_at_once_and_a_file_is_read_after_it(
        terminal, tmp_path, test_ca):
    fifo = tmp_path / "ca.pipe"
    os.mkfifo(fifo)
    path, _key = test_ca.write(tmp_path, "corp-ca")
    terminal.start("tui", "-o", str(tmp_path / "edns.ks"))
    terminal.wait_for(PROMPT)
    terminal.type("5")
    terminal.wait_for(PROMPT)
    terminal.type("2")
    terminal.wait_for("Path (empty line: back):")
    terminal.type(str(fifo))
    # Opening it for reading would wait for a writer that never comes.
    refused = terminal.wait_for("Path (empty line: back):")
    assert _one_line("Error: %s is a FIFO (a named pipe), not a file; give the path of a PEM "
                     "file." % fifo) in _one_line(refused)
    terminal.type(str(tmp_path))
    assert _one_line("Error: %s is a directory; give the path of a PEM file in it."
                     % tmp_path) in _one_line(terminal.wait_for("Path (empty line: back):"))
    terminal.type(str(path))
    terminal.wait_for("File name [corp-ca.pem]:")


def _drain(session, seconds=0.3):
    while select.select([session.master], [], [], seconds)[0]:
        try:
            data = os.read(session.master, 65536)
        except OSError:
            return
        if not data:
            return
        session.screen += data


@pytest.mark.parametrize("answer", ["no, then Ctrl-D twice", "yes"])
def test_ctrl_d_with_edits_not_saved_asks_before_ending(tmp_path, answer):
    out = tmp_path / "edns.ks"
    question = "Quit without writing %s?" % out
    session = PtySession("tui", "-o", str(out))
    try:
        session.wait_for(PROMPT)
        session.type(b"1\n")
        session.wait_for("1) Add a server")
        session.wait_for("refresh]: ", at_end=True)
        session.type(b"1\n")
        session.wait_for("Server (empty line: back): ", at_end=True)
        session.type(b"192.0.2.53#dot.example\n")
        session.wait_for("Domains (empty line: every name): ", at_end=True)
        session.type(b"\n")
        session.wait_for("1) dns+tls://192.0.2.53#dot.example")
        session.wait_for("refresh]: ", at_end=True)
        session.screen = b""
        session.type(b"\x04")
        session.wait_for("Please respond 'yes' or 'no': ", at_end=True)
        # The question is wrapped where the path's length puts the edge.
        assert _one_line(question) in _one_line(session.screen.decode())
        if answer == "yes":
            session.type(b"yes\n")
            expected = 1
        else:
            session.type(b"no\n")
            # Still editing: the screen is drawn again with the edit.
            session.wait_for("1) dns+tls://192.0.2.53#dot.example")
            session.wait_for("refresh]: ", at_end=True)
            session.screen = b""
            session.type(b"\x04")
            session.wait_for("Please respond 'yes' or 'no': ", at_end=True)
            # A second end while asked: nobody is there to answer.
            session.type(b"\x04")
            expected = 130
        status = session.exit_status()
        _drain(session)
        assert b"Traceback" not in session.screen
    finally:
        session.close()
    assert status == expected
    assert not out.exists()


# --- where it writes: -o, or the kickstart it edits ----------------------------------------

LINK_REFUSED = ("cannot write %s: it is a symbolic link (to %s); refusing to replace what it "
                "points to: remove the link or give another path")


def test_an_output_symlink_planted_in_a_sticky_directory_is_refused_by_name(terminal,
                                                                            tmp_path):
    """As overlay -o, convert -o and updates-img -o (tests/test_cli_commands.py): the link
    is refused by name, before the screens when it is there at the start, and when it is
    planted during the session, at saving; neither the link nor its file changes."""
    shared, planted, victim = sticky_directory_with_a_planted_link(tmp_path)
    kickstart = tmp_path / "ks.cfg"
    kickstart.write_text("%addon org_edns_addon\ndns+tls://192.0.2.53#dot.example\n%end\n")
    for argv in (("tui", kickstart, "-o", planted), ("tui", planted), ("tui", "-o", planted)):
        assert_sentence(run_cli(*argv), 1, LINK_REFUSED % (planted, victim))

    planted.unlink()
    terminal.start("tui", str(kickstart), "-o", str(planted))
    terminal.wait_for(PROMPT)
    planted.symlink_to(victim)
    if os.geteuid() == 0:
        os.lchown(planted, 1234, 1234)
    terminal.type("c")
    refused = terminal.wait_for(PROMPT)
    # The same sentence, as the screen says a sentence alone.
    assert _one_line("Error: C" + LINK_REFUSED[1:] % (planted, victim) + ".") in \
        _one_line(refused)
    terminal.type("q")
    terminal.wait_for("Please respond 'yes' or 'no'")
    terminal.type("yes")
    assert terminal.exit_status() == 1
    assert victim.read_text() == "precious\n"
    assert os.readlink(planted) == str(victim)
    assert sorted(p.name for p in shared.iterdir()) == ["out"]


def test_a_kickstart_edited_in_place_in_a_sticky_directory_is_written(terminal, tmp_path):
    # tui KICKSTART writes KICKSTART itself: a regular file there is replaced.
    shared, _planted, _victim = sticky_directory_with_a_planted_link(tmp_path)
    in_place = shared / "ks.cfg"
    in_place.write_text("%addon org_edns_addon\ndns+tls://192.0.2.53#dot.example\n%end\n")
    terminal.start("tui", str(in_place))
    terminal.wait_for(PROMPT)
    terminal.type("2")
    assert "1) [x] exclusive" in terminal.wait_for(PROMPT)
    terminal.type("2")
    assert "2) Resolve mode: prefer" in terminal.wait_for(PROMPT)
    terminal.type("c")
    assert terminal.exit_status() == 0
    assert not in_place.is_symlink()
    assert in_place.read_text() == ("%addon org_edns_addon --resolve-mode=prefer "
                                    "--backend=dnsconfd\ndns+tls://192.0.2.53#dot.example\n"
                                    "%end\n")
    assert sorted(p.name for p in shared.iterdir()) == ["ks.cfg", "out"]
