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

"""Kickstart text for the tests, the benchmarks and the proofs: the one place that writes
a ``%certificate`` section, an encrypted DNS section or a whole kickstart around them,
and that finds pykickstart's own validator to run on one."""

import os
import re
import shutil
import sys
from pathlib import Path

from org_edns_addon import constants as c

# The section as Anaconda delivers it (the other spelling, "%edns", only our tools read).
ADDON = c.ADDON_SECTION_OPEN
CA_FILENAME = "dns-ca.pem"
CA_DIRECTORY_OPTION = "--dir=" + c.DOT_CA_DIR
# The commands of an installation kickstart before its sections: five lines, so the
# first section starts on line 6.
COMMANDS = "text\nlang en_US.UTF-8\nkeyboard us\ntimezone UTC --utc\nrootpw --lock\n"
# Every form of server line: URI and short form, IPv6 with a port, a routed server.
SERVERS = ("dns+tls://192.0.2.53#dot.corp.example",
           "dns+tls://[2001:db8::53]:853#dot.corp.example",
           "192.0.2.54#dot2.corp.example",
           "dns+tls://198.51.100.60#dot.lab.example  domain=lab.example,test.lab.example")


def certificate_section(pem, filename=CA_FILENAME, options=CA_DIRECTORY_OPTION):
    """A %certificate section holding PEM (text that may be anything) as FILENAME."""
    return "%%certificate --filename=%s %s\n%s%s%%end\n" % (
        filename, options, pem, "" if pem.endswith("\n") or not pem else "\n")


def certificate_type_supported():
    """Whether this pykickstart has %certificate --type (3.73+, EL10's branch 3.52.13+):
    EL9's 3.32.x and Fedora 43's 3.66 refuse it as an unknown option."""
    from pykickstart.parser import Certificate
    return hasattr(Certificate(cert="", filename="x"), "type")


def anchor_options():
    """The %certificate options of a system trust anchor in the form this pykickstart
    reads: --type=anchor, or where it has no --type (EL9), the anchors directory as --dir."""
    if certificate_type_supported():
        return "--type=anchor"
    return "--dir=%s/" % c.CA_TRUST_ANCHORS_DIR


def anchor_section(pem, filename):
    """PEM as a system trust anchor (``anchor_options``)."""
    return certificate_section(pem, filename, anchor_options())


def edns_section(*servers, options="", spelling=ADDON):
    """An encrypted DNS section with the body lines SERVERS and the header OPTIONS."""
    header = spelling + (" " + options if options else "")
    return "\n".join([header, *servers, "%end"]) + "\n"


def edns_kickstart(ca_pem, options="--ca=" + CA_FILENAME, servers=SERVERS, certificates=None,
                   spelling=ADDON, commands=COMMANDS):
    """COMMANDS, then CA_PEM as the %certificate CA_FILENAME (or the section text
    CERTIFICATES instead), then an encrypted DNS section with SERVERS under OPTIONS."""
    if certificates is None:
        certificates = certificate_section(ca_pem)
    return commands + certificates + edns_section(*servers, options=options,
                                                  spelling=spelling)


def many_certificates_kickstart(pems, count, ca_names=1, anchors=0, directories=1,
                                servers=SERVERS, options="", commands=COMMANDS):
    """COMMANDS, COUNT %certificate sections, then an encrypted DNS section with SERVERS
    under OPTIONS: the one builder of kickstarts with many certificates.

    The certificates take the PEM texts of PEMS in turn (one CA for all, or one each).
    The first ANCHORS are system trust anchors (anchor0000.pem, ...); the others,
    c0000.pem, ..., are placed below /etc/pki/dns/, in DIRECTORIES directories of their
    own (d0000/, ...) when there are more than one, and the first CA_NAMES of them are
    named by --ca."""
    sections, names = [], []
    for index in range(count):
        pem = pems[index % len(pems)]
        if index < anchors:
            sections.append(anchor_section(pem, "anchor%04d.pem" % index))
            continue
        name = "c%04d.pem" % index
        if len(names) < ca_names:
            names.append(name)
        below = "d%04d/" % (index % directories) if directories > 1 else ""
        sections.append(certificate_section(pem, name, "--dir=%s%s" % (c.DOT_CA_DIR, below)))
    header = " ".join(filter(None, [options, "--ca=" + ",".join(names) if names else ""]))
    return commands + "".join(sections) + edns_section(*servers, options=header)


def ksvalidator_command():
    """The real `ksvalidator` script, run by this Python (no pyenv shim in between)."""
    beside = os.path.join(os.path.dirname(sys.executable), "ksvalidator")
    script = beside if os.path.exists(beside) else shutil.which("ksvalidator")
    if script is None:
        raise RuntimeError("pykickstart's ksvalidator is not installed")
    return [sys.executable, script]


def ksvalidator_env(scratch, env=None):
    """ENV (default: this process's environment) with TMPDIR at the directory SCRATCH:
    ksvalidator leaves a tmp*-ks.cfg copy of every kickstart it reads in the temporary
    directory (pykickstart/parser.py preprocessFromString: mkstemp(suffix="-ks.cfg"),
    never removed)."""
    return dict(os.environ if env is None else env, TMPDIR=str(scratch))


# data/kickstart-tests: the files in rhinstaller/kickstart-tests' format.
KICKSTART_TESTS_DIR = Path(__file__).resolve().parents[1] / "data" / "kickstart-tests"
KICKSTART_TESTS_CA_FRAGMENT = "data/edns-dot-ca.pem"
_KSAPPEND = re.compile(r"^%ksappend\s+(\S+)", re.MULTILINE)


def kickstart_tests_kickstart(name, workdir, ca_pem, values):
    """The kickstart-tests file NAME (``*.ks.in``) as that harness runs it, written in
    WORKDIR; returns its path. ``@KSTEST_*@`` are VALUES (lab/vmlab/site.py's
    ``KSTEST_VALUES``), and every ``%ksappend`` fragment is resolved by pykickstart's
    ``preprocessKickstart`` in a folder of fragments: the CA fragment is CA_PEM, the
    harness's shared fragments (its lab's business) empty stand-ins."""
    from pykickstart.parser import preprocessKickstart

    workdir = Path(workdir)
    text = (KICKSTART_TESTS_DIR / name).read_text()
    for key, value in values.items():
        text = text.replace("@%s@" % key, value)
    fragments = workdir / "fragments"
    for fragment in _KSAPPEND.findall(text):
        path = fragments / fragment
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ca_pem if fragment == KICKSTART_TESTS_CA_FRAGMENT else "")
    source = workdir / name
    source.write_text(text)
    cwd = os.getcwd()
    os.chdir(fragments)
    try:
        flat = preprocessKickstart(str(source))
    finally:
        os.chdir(cwd)
    out = workdir / name.replace(".ks.in", ".ks")
    out.write_text(Path(flat).read_text())
    os.unlink(flat)
    return out
