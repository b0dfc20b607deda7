"""`edns-addon tui` driven in a real terminal (tmux): what a user types, sees and gets."""

from tests import certs
from tests.conftest import certificate_section, run_cli
from tests.tui_fixtures import terminal  # noqa: F401  (fixture)

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
    assert "error: the IPv6 address in 'dns+tls://2001:db8::53#dot.example' must be in" in shown
    assert "DNS servers" not in shown  # the screen stayed

    terminal.type("dns+tls://[2001:db8::53]#dot.example")
    listed = terminal.wait_for(PROMPT)
    assert "1) dns+tls://[2001:db8::53]#dot.example\n" \
           "      TLS name: dot.example; serves every name" in listed
    terminal.type("2")
    terminal.wait_for("Server (empty line: back):")
    terminal.type("192.0.2.53:8853#DoT2.example domain=lab.example")
    listed = terminal.wait_for(PROMPT)
    assert "2) dns+tls://192.0.2.53:8853#dot2.example\n" \
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
        "dns+tls://192.0.2.53:8853#dot2.example domain=lab.example\n"
        "%end\n")
    validated = run_cli("validate", out)
    assert validated.returncode == 0, validated.stdout
    assert validated.stdout.endswith("0 errors, 0 warnings\n")


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
    assert "error: the pasted text: line 1: Not a valid CA certificate: CN=dot.test" in \
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
    assert "error: not written: the configuration has errors" in refused
    assert "error: no DNS server is given" in refused
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
    assert "%s:2: error: the DoT server dns+tls://192.0.2.53 has no TLS name" % kickstart in \
        shown.replace("\n", "")
    assert terminal.exit_status() == 1
