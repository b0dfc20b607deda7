"""`edns-addon validate` on the bundled examples and the most common mistakes."""

from tests.conftest import REPO, certificate_section, run_cli

EXAMPLE = REPO / "data" / "examples" / "corp-dot.ks"


def test_bundled_example_is_clean():
    result = run_cli("validate", EXAMPLE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("0 errors, 0 warnings")


def test_missing_tls_name_is_reported_with_its_line(write_ks, test_ca):
    path = write_ks(certificate_section(test_ca.pem) +
                    "%addon org_edns_addon --ca=dns-ca.pem\n"
                    "dns+tls://192.0.2.53#dot.example\n"
                    "dns+tls://192.0.2.54\n"
                    "%end\n")
    lineno = len(test_ca.pem.splitlines()) + 2 + 3
    result = run_cli("validate", path)
    assert result.returncode == 1
    assert "%s:%d: error: the DoT server dns+tls://192.0.2.54 has no TLS name" % (
        path, lineno) in result.stdout


def test_usage_error_exits_2():
    result = run_cli("validate")
    assert result.returncode == 2
    assert "usage:" in result.stderr
