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

"""Writing the edited sections back: only their lines change, every other byte stays."""

import os

import pytest

from lab.kickstarts import certificate_section
from org_edns_addon.ui.editor import EdnsEditor, read_ca_pem
from org_edns_addon.tui.kickstart_file import (KickstartFileError, load_kickstart,
                                               new_kickstart, render_kickstart, save_kickstart)
from tests.conftest import run_cli

HEAD = "# head comment\ntext\nlang en_US.UTF-8\r\nrootpw --lock\n\n"
TAIL = "\n%packages\n@core\n%end\n# tail comment without newline"
SECTION = ("%addon org_edns_addon --ca=dns-ca.pem   # our section\n"
           "dns+tls://192.0.2.53#dot.example   # a comment\n"
           "%end\n")


def test_only_the_section_lines_change(write_ks, test_ca):
    cert = certificate_section(test_ca.pem)
    path = write_ks(HEAD + cert + "\n" + SECTION + TAIL)
    source, editor = load_kickstart(path)
    editor.add_server("dns+tls://[2001:db8::53]#dot.example")
    assert render_kickstart(source, editor) == (
        HEAD + cert + "\n" +
        "%addon org_edns_addon --resolve-mode=exclusive --backend=dnsconfd --ca=dns-ca.pem\n"
        "dns+tls://192.0.2.53#dot.example\n"
        "dns+tls://[2001:db8::53]#dot.example\n"
        "%end\n" + TAIL)


def test_unchanged_kickstart_is_written_back_byte_for_byte(write_ks, test_ca, tmp_path):
    text = HEAD + certificate_section(test_ca.pem) + SECTION + TAIL
    path = write_ks(text)
    source, editor = load_kickstart(path)
    save_kickstart(source, editor, str(tmp_path / "out.ks"))
    assert (tmp_path / "out.ks").read_bytes() == text.encode()


def test_top_level_edns_becomes_the_addon_form(write_ks):
    path = write_ks(HEAD + "%edns\n192.0.2.53#dot.example\n%end\n" + TAIL)
    source, editor = load_kickstart(path)
    editor.set_backend("unbound")
    assert render_kickstart(source, editor) == (
        HEAD + "%addon org_edns_addon --resolve-mode=exclusive --backend=unbound\n"
        "dns+tls://192.0.2.53#dot.example\n%end\n" + TAIL)


def test_new_and_removed_certificates(write_ks, test_ca):
    other = certificate_section(test_ca.pem, "old-ca.pem")
    path = write_ks(HEAD + other + SECTION.replace("dns-ca.pem", "old-ca.pem") + TAIL)
    source, editor = load_kickstart(path)
    editor.remove_certificate("old-ca.pem")
    editor.add_certificate(read_ca_pem(test_ca.pem), "new-ca.pem")
    assert render_kickstart(source, editor) == (
        HEAD + "%certificate --filename=new-ca.pem --dir=/etc/pki/dns/\n" + test_ca.pem +
        "%end\n\n"
        "%addon org_edns_addon --resolve-mode=exclusive --backend=dnsconfd --ca=new-ca.pem\n"
        "dns+tls://192.0.2.53#dot.example\n%end\n" + TAIL)


def test_section_is_appended_to_a_kickstart_without_one(write_ks):
    path = write_ks(HEAD + TAIL)
    source, editor = load_kickstart(path)
    editor.add_server("192.0.2.53#dot.example")
    assert render_kickstart(source, editor) == (
        HEAD + TAIL + "\n\n%addon org_edns_addon --resolve-mode=exclusive "
        "--backend=dnsconfd\ndns+tls://192.0.2.53#dot.example\n%end\n")


def test_new_kickstart_holds_only_our_sections(tmp_path):
    source, editor = new_kickstart(), EdnsEditor()
    editor.add_server("192.0.2.53#dot.example")
    out = tmp_path / "new.ks"
    save_kickstart(source, editor, str(out))
    assert out.read_text() == ("%addon org_edns_addon --resolve-mode=exclusive "
                               "--backend=dnsconfd\ndns+tls://192.0.2.53#dot.example\n%end\n")
    assert run_cli("validate", out).returncode == 0


def test_saving_with_errors_writes_nothing(write_ks, tmp_path):
    path = write_ks(HEAD + SECTION.replace(" --ca=dns-ca.pem", "") + TAIL)
    source, editor = load_kickstart(path)
    editor.set_server_domains(0, "lab.example")
    out = tmp_path / "out.ks"
    with pytest.raises(KickstartFileError) as caught:
        save_kickstart(source, editor, str(out))
    # Said on the standalone editor's screen: in its words.
    assert "every server has routed domains" in str(caught.value.problems[0])
    assert not out.exists()


def test_saving_keeps_the_file_mode(write_ks, tmp_path):
    path = write_ks(HEAD + SECTION.replace(" --ca=dns-ca.pem", ""))
    os.chmod(path, 0o600)
    source, editor = load_kickstart(path)
    editor.set_resolve_mode("prefer")
    save_kickstart(source, editor, path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert "--resolve-mode=prefer" in open(path).read()


def test_kickstart_with_errors_is_not_edited(write_ks):
    path = write_ks(HEAD + "%addon org_edns_addon\ndns+tls://192.0.2.53\n%end\n")
    with pytest.raises(KickstartFileError) as caught:
        load_kickstart(path)
    assert caught.value.message.startswith("fix these errors first")
    [problem] = caught.value.problems
    assert str(problem).startswith("%s:7: error: the DoT server dns+tls://192.0.2.53 has no "
                                   "TLS name" % path)


def test_section_in_an_included_file_is_not_edited(write_ks):
    included = write_ks(SECTION.replace(" --ca=dns-ca.pem", ""), "edns.ks")
    path = write_ks(HEAD + "%%include %s\n" % included)
    with pytest.raises(KickstartFileError, match="is in the included file .*edns.ks; edit "
                                                 "that file"):
        load_kickstart(path)


def test_file_changed_under_the_editor_is_not_overwritten(write_ks, tmp_path):
    path = write_ks(HEAD + SECTION.replace(" --ca=dns-ca.pem", ""))
    source, editor = load_kickstart(path)
    editor.set_backend("unbound")
    source.text = HEAD + "%addon org_edns_addon\n"
    with pytest.raises(KickstartFileError, match="does not end where it was read"):
        render_kickstart(source, editor)
