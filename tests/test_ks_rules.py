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

"""Every rule of the kickstart syntax and every refused input, each reported as
FILE:LINE: error: ... on exactly the line that holds the mistake.

The messages are what `edns-addon validate` prints (test_cli_validate.py shows
the command prints these very lines).
"""

import shlex

import pytest

from lab.kickstarts import ADDON, anchor_options, certificate_section, edns_section
from tests.conftest import (CERTIFICATE_TYPE, PYKICKSTART_REQUIRES_DIR, needs_certificate_type,
                            run_cli)
from tests.ks_fixtures import line_of, messages, only_error, parse

GOOD = "dns+tls://192.0.2.53#dot.corp.example"
# A %certificate without --dir (or --type): EL9's pykickstart 3.32.x and Fedora 43's 3.66
# refuse it themselves (--dir is required there); 3.61 and 3.73+ leave it to our rules.
MISSING_DIR = ("the following arguments are required: --dir" if PYKICKSTART_REQUIRES_DIR
               else "One of --dir or --type must be specified for %certificate")


def error_at(path, lineno, message_start):
    return "%s:%d: error: %s" % (path, lineno, message_start)


def assert_one_error(path, text, needle, message_start, occurrence=1):
    error = only_error(path)
    expected = error_at(path, line_of(text, needle, occurrence), message_start)
    assert error.startswith(expected), "%s\n  does not start with\n%s" % (error, expected)


# --- the section header -------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    pytest.param("--resolv-mode=backup", "unknown option --resolv-mode (did you mean "
                 "--resolve-mode?); the options are --backend, --ca, --resolve-mode, --search",
                 id="a misspelled option is named with the option it meant"),
    pytest.param("--resolve-mode=paranoid", "argument --resolve-mode: invalid choice: "
                 "'paranoid' (choose from 'exclusive', 'prefer', 'backup')",
                 id="an unknown resolve mode lists the valid ones"),
    pytest.param("--backend=systemd-resolved", "argument --backend: invalid choice: "
                 "'systemd-resolved' (choose from 'dnsconfd', 'unbound')",
                 id="an unknown backend lists the valid ones"),
    pytest.param("exclusive", "unexpected 'exclusive'; the options are",
                 id="a word that is no option"),
    # pykickstart (and Anaconda) read "--search=corp.example#x --backend=..." as
    # "--search=corp.example": what follows (a --ca!) would vanish without a word.
    pytest.param("--search=corp.example#x --backend=unbound", "the '#' in "
                 "'--search=corp.example#x' starts a comment, so this line is read only up to "
                 "'--search=corp.example'",
                 id="a hash glued to an option would silently drop the rest of the header"),
    pytest.param('"--search=corp.example lab.example"', "--search: 'corp.example lab.example' "
                 "is not a valid DNS search domain", id="a search domain with a space"),
    pytest.param("--search=corp.example,CORP.example.", "--search lists a name twice",
                 id="a search domain given twice"),
    pytest.param("--ca=../ca.pem/", "--ca=../ca.pem/ must be a plain file name, without '/'",
                 id="a ca name that is not a file name"),
])
def test_a_bad_header_is_refused_on_the_header_line(write_ks, options, message):
    text = "text\n" + edns_section(GOOD, options=options)
    path = write_ks(text)
    assert_one_error(path, text, ADDON, message)


def test_a_misspelled_option_is_named_also_where_argparse_speaks_another_language(
        write_ks, monkeypatch):
    # argparse translates its own "unrecognized arguments: " (its module's gettext): the
    # hint must not depend on reading that sentence back.
    import argparse

    english = argparse._
    monkeypatch.setattr(argparse, "_", lambda text: "argumentos no reconocidos: %s"
                        if text == "unrecognized arguments: %s" else english(text))
    text = "text\n" + edns_section(GOOD, options="--resolv-mode=backup")
    path = write_ks(text)
    assert_one_error(path, text, ADDON, "unknown option --resolv-mode (did you mean "
                     "--resolve-mode?); the options are --backend, --ca, --resolve-mode, "
                     "--search")


def test_a_comment_after_a_space_on_the_header_is_fine(write_ks):
    path = write_ks(edns_section(GOOD, options="--backend=unbound   # local forwarder"))
    result = parse(path)
    assert result.errors == []
    assert result.config.backend.value == "unbound"


@pytest.mark.parametrize("search", ['corp"x.example', "corp'x.example", "corp;x.example",
                                    "[corp.example]", "_corpé.example", "-corp.example",
                                    "corp..example", "\\ncorp.example", "corp\tx.example"])
def test_a_search_domain_that_could_break_a_config_line_is_refused(write_ks, search):
    text = edns_section(GOOD, options=shlex.quote("--search=%s" % search))
    path = write_ks(text)
    assert_one_error(path, text, ADDON, "--search: ")


# --- server lines ---------------------------------------------------------------------

@pytest.mark.parametrize("server, message", [
    ("https://192.0.2.53#dot.corp.example", "unknown scheme 'https'"),
    # NetworkManager (nm_dns_uri_parse), Unbound (forward-addr) and FreeIPA
    # (IPAddressDoTForwarder) take an address: the line that would work is said.
    ("dns+tls://dns.corp.example#dns.corp.example", "'dns+tls://dns.corp.example#dns.corp."
     "example' names the server by a host name, dns.corp.example, and NetworkManager, Unbound "
     "and FreeIPA take a DNS server by its IP address only (the TLS name goes after '#'); "
     "write dns+tls://ADDR#dns.corp.example, with ADDR the address of dns.corp.example"),
    ("dns+tls://dot.corp.example", "'dns+tls://dot.corp.example' names the server by a host "
     "name, dot.corp.example, and NetworkManager"),
    ("dns+tls://dot.corp.example:8853", "'dns+tls://dot.corp.example:8853' names the server "
     "by a host name, dot.corp.example, and NetworkManager, Unbound and FreeIPA take a DNS "
     "server by its IP address only (the TLS name goes after '#'); write "
     "dns+tls://ADDR:8853#dot.corp.example, with ADDR the address of dot.corp.example"),
    ("dot.corp.example#dot.corp.example", "'dot.corp.example#dot.corp.example' names the "
     "server by a host name, dot.corp.example, and NetworkManager, Unbound and FreeIPA take a "
     "DNS server by its IP address only (the TLS name goes after '#'); write "
     "ADDR#dot.corp.example, with ADDR the address of dot.corp.example"),
    ("dns+tls://192.0.2.300#dot.corp.example", "'192.0.2.300' is not an IPv4 or IPv6 address"),
    ("dns+tls://2001:db8::53#dot.corp.example", "the IPv6 address in "
                                                "'dns+tls://2001:db8::53#dot.corp.example' "
                                                "must be in brackets"),
    ("dns+tls://[2001:db8::53#dot.corp.example", "'dns+tls://[2001:db8::53#dot.corp.example'"
                                                 " has '[' without a closing ']'"),
    ("dns+tls://[192.0.2.53]#dot.corp.example", "only IPv6 addresses go in brackets"),
    ("dns+tls://0.0.0.0#dot.corp.example", "0.0.0.0 cannot be a DNS server's address (it is "
                                           "the unspecified address)"),
    ("dns+tls://[::]#dot.corp.example", ":: cannot be a DNS server's address (it is "
                                        "the unspecified address)"),
    ("dns+tls://224.0.0.251#dot.corp.example", "224.0.0.251 cannot be a DNS server's address "
                                               "(it is multicast or broadcast)"),
    ("255.255.255.255#dot.corp.example", "255.255.255.255 cannot be a DNS server's address"),
    ("dns+tls://[2001:db8::53]853#dot.corp.example", "unexpected '853' after the address"),
    ("dns+tls://192.0.2.53:0#dot.corp.example",
     "port 0 is out of range; use a number from 1 to 65535"),
    ("dns+tls://192.0.2.53:65536#dot.corp.example", "port 65536 is out of range; use a number "
                                                    "from 1 to 65535"),
    ("dns+tls://[2001:db8::53]:65536#dot.corp.example", "port 65536 is out of range"),
    ("dns+tls://192.0.2.53:\u0663#dot.corp.example", "port '\u0663' is out of range"),
    ("dns+tls://192.0.2.53:#dot.corp.example", "'dns+tls://192.0.2.53:#dot.corp.example' "
                                               "has an empty port after ':'"),
    ("dns+tls://192.0.2.53#", "'dns+tls://192.0.2.53#' has an empty TLS name after '#'"),
    ("dns+udp://192.0.2.53#dot.corp.example", "'dns+udp://192.0.2.53#dot.corp.example' is "
                                              "plaintext (dns+udp://) and cannot carry a TLS "
                                              "name"),
    ("dns+tls://fe80::53#dot.corp.example", "the IPv6 address in"),
    ("dns+tls://[fe80::53]#dot.corp.example", "the link-local address fe80::53 needs its "
                                              "interface: write it as [fe80::53%eth0]"),
    ("dns+tls://[2001:db8::53%eth0]#dot.corp.example", "only a link-local IPv6 address "
                                                       "(fe80::/10) may carry '%eth0'"),
    ("dns+tls://[fe80::53%eth0;x]#dot.corp.example", "'eth0;x' is not a valid interface "
                                                     "name"),
    ("dns+tls://192.0.2.53#dot.corp.example lab.example", "unexpected 'lab.example' after "
                                                          "the server"),
    ("dns+tls://192.0.2.53#dot.corp.example domain=", "domain= needs a comma-separated list"),
    ("dns+tls://192.0.2.53#dot.corp.example domain=a.example,,b.example",
     "domain= needs a comma-separated list"),
    ("dns+tls://192.0.2.53#dot.corp.example domain=a.example domain=b.example",
     "domain= is given twice"),
    ("dns+tls://192.0.2.53#dot.corp.example domain=lab.example,LAB.example.",
     "domain= lists a domain twice"),
])
def test_a_bad_server_line_is_refused_on_its_line(write_ks, server, message):
    path = write_ks("text\n" + edns_section(GOOD, server))
    assert only_error(path).startswith(error_at(path, 4, message))


@pytest.mark.parametrize("smuggled", [",", "#", "[", "]", '"', "'", ";", "\\", "/", "=",
                                      "%", "*", "@", "\t"])
def test_a_character_that_could_break_a_config_line_is_refused_in_a_tls_name(
        write_ks, smuggled):
    server = "dns+tls://192.0.2.54#dot%scorp.example" % smuggled
    text = edns_section(GOOD, server)
    path = write_ks(text)
    expected = "unexpected 'corp.example'" if smuggled == "\t" else \
        "%r is not a valid DNS TLS name" % ("dot%scorp.example" % smuggled)
    assert_one_error(path, text, "192.0.2.54", expected)


@pytest.mark.parametrize("smuggled", ["#", "[", "]", '"', "'", ";", "\\", "*", "@", "/"])
def test_a_character_that_could_break_a_config_line_is_refused_in_a_domain(
        write_ks, smuggled):
    server = "dns+tls://192.0.2.54#dot.corp.example domain=lab%sx.example" % smuggled
    text = edns_section(GOOD, server)
    path = write_ks(text)
    assert_one_error(path, text, "192.0.2.54", "%r is not a valid DNS domain"
                     % ("lab%sx.example" % smuggled))


@pytest.mark.parametrize("separator", ["\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028"])
def test_a_line_separator_inside_a_name_splits_the_line_and_the_rest_is_refused(
        write_ks, separator):
    # pykickstart (and Anaconda) split lines with str.splitlines(), so what
    # follows such a character is a line of its own; it never joins the name.
    text = edns_section(GOOD, "dns+tls://192.0.2.54#dot.corp.example%s[evil]" % separator)
    path = write_ks(text)
    result = parse(path)
    assert [str(p) for p in result.errors] == [
        error_at(path, 4, "'evil' is not an IPv4 or IPv6 address")]
    assert [s.name for s in result.edns.servers] == ["dot.corp.example", "dot.corp.example"]


def test_idna_names_and_domains_are_stored_as_ascii_a_labels(write_ks):
    path = write_ks(edns_section("dns+tls://192.0.2.53#DoT.Bücher.example",
                                 "dns+tls://192.0.2.54#dot.corp.example "
                                 "domain=ドメイン.example,Straße.example"))
    result = parse(path)
    assert result.errors == []
    first, second = result.config.servers
    assert first.name == "dot.xn--bcher-kva.example"
    assert second.domains == ("xn--eckwd4c7c.example", "xn--strae-oqa.example")


def test_a_name_that_is_not_valid_idna_is_refused(write_ks):
    server = "dns+tls://192.0.2.54#dot.xn--zz.example"
    text = edns_section(GOOD, server)
    path = write_ks(text)
    assert_one_error(path, text, server, "'dot.xn--zz.example' is not a valid DNS TLS name")


def test_a_name_longer_than_253_characters_is_refused(write_ks):
    name = ".".join(["a" * 60] * 5)
    server = "dns+tls://192.0.2.54#" + name
    text = edns_section(GOOD, server)
    path = write_ks(text)
    assert_one_error(path, text, server, "%r is not a valid DNS TLS name (Domain too long)"
                     % name)


def test_a_link_local_server_with_its_interface_is_accepted_by_the_unbound_forwarder(
        write_ks):
    path = write_ks(edns_section("dns+tls://[fe80::53%eth0]:8853#dot.corp.example",
                                 options="--backend=unbound"))
    result = parse(path)
    assert result.errors == []
    assert [p.message for p in result.warnings] == [
        "the link-local server dns+tls://[fe80::53%eth0]:8853#dot.corp.example is used by "
        "this addon's Unbound forwarder (the installer and the installed system) only: the "
        "installer's initramfs speaks DoT through NetworkManager's dnsconfd plugin, which "
        "drops the interface, so 'edns-addon boot-args' and 'overlay' refuse it"]
    server, = result.config.servers
    assert server.uri() == "dns+tls://[fe80::53%eth0]:8853#dot.corp.example"
    assert server.unbound_forward_addr() == "fe80::53%eth0@8853#dot.corp.example"


def test_a_dot_server_on_port_53_is_a_warning_on_its_line(write_ks):
    # RFC 7858 section 3.1: DoT on 853 by default, and never on 53, where a DNS server
    # answers in plaintext (NetworkManager takes it: tests/test_peer_networkmanager.py).
    text = "text\n" + edns_section(GOOD, "dns+tls://192.0.2.54:53#dot.corp.example")
    path = write_ks(text)
    # Judged for a line whose NetworkManager hands dnsconfd a server's port (1.54 and
    # later): the older lines refuse any port of its own (test_line_rules.py).
    assert [str(p) for p in parse(path, line="fedora-43").problems] == [
        "%s:%d: warning: the DoT server dns+tls://192.0.2.54:53#dot.corp."
        "example is on port 53, plaintext DNS's port: DNS over TLS "
        "listens on 853, and RFC 7858 forbids 53 for it, where a DNS "
        "server answers in plaintext and every TLS handshake fails; "
        "drop ':53' (853 is the default), unless this server really "
        "speaks TLS on 53" % (path, line_of(text, "192.0.2.54"))]


def test_a_dot_server_without_a_tls_name_is_refused_on_its_line(write_ks):
    text = "text\n" + edns_section(GOOD, "dns+tls://192.0.2.54:853")
    path = write_ks(text)
    assert_one_error(path, text, "192.0.2.54", "the DoT server dns+tls://192.0.2.54 has no TLS "
                     "name, so it cannot be authenticated; append #NAME")


def test_a_server_given_twice_is_reported_on_the_second_line_naming_the_first(write_ks):
    # ADDRESS:PORT#NAME is this addon's shorthand; FreeIPA's own spelling has no port
    # (ipapython/ipautil.py IPAddressDoTForwarder refuses it).
    text = edns_section(GOOD, "dns+tls://192.0.2.60#dot.lab.example",
                        "192.0.2.53:853#DOT.corp.example.   # same server, port spelled out")
    path = write_ks(text)
    assert_one_error(path, text, "192.0.2.53:853", "the server dns+tls://192.0.2.53#dot.corp"
                     ".example is given twice (first on %s:%d); remove one"
                     % (path, line_of(text, GOOD)))


def test_the_same_server_for_different_domains_is_not_a_duplicate(write_ks):
    path = write_ks(edns_section(GOOD, GOOD + " domain=lab.example"))
    assert parse(path).errors == []


def test_routing_every_server_to_a_domain_leaves_no_server_for_the_rest(write_ks):
    text = "text\n" + edns_section(GOOD + " domain=corp.example",
                                   "dns+tls://192.0.2.60#dot.lab.example domain=lab.example")
    path = write_ks(text)
    assert_one_error(path, text, ADDON, "every server has domain=; add at least one server "
                     "without domain= to serve all other names")


def test_a_section_without_servers_is_refused_at_its_header(write_ks):
    text = "text\n" + edns_section("# nothing yet", "")
    path = write_ks(text)
    assert_one_error(path, text, ADDON, "no DNS server is given; add a line like")


def test_a_refused_server_line_is_not_reported_again_as_a_missing_server(write_ks):
    text = edns_section("dns+tls://192.0.2.53#dot corp.example")
    path = write_ks(text)
    assert_one_error(path, text, "192.0.2.53", "unexpected 'corp.example'")


@pytest.mark.parametrize("mode", ["", "--resolve-mode=exclusive", "--resolve-mode=prefer"])
@pytest.mark.parametrize("plaintext", ["dns+udp://192.0.2.99", "192.0.2.99",
                                       "dns+udp://[2001:db8::99]"])
def test_a_plaintext_server_is_refused_unless_mode_is_backup(write_ks, mode, plaintext):
    text = edns_section(GOOD, plaintext, options=mode)
    path = write_ks(text)
    assert_one_error(path, text, plaintext, "the plaintext server %s is refused with "
                     "--resolve-mode=%s" % (plaintext if "://" in plaintext else
                                            "dns+udp://" + plaintext,
                                            mode.partition("=")[2] or "exclusive"))


def test_a_plaintext_server_is_refused_with_the_unbound_backend(write_ks):
    text = edns_section(GOOD, "192.0.2.99", options="--resolve-mode=backup --backend=unbound")
    path = write_ks(text)
    assert_one_error(path, text, "192.0.2.99", "the plaintext server dns+udp://192.0.2.99 "
                     "cannot be used with --backend=unbound")


def test_a_plaintext_server_is_allowed_with_resolve_mode_backup(write_ks):
    path = write_ks(edns_section(GOOD, "192.0.2.99", "dns+udp://[2001:db8::99]:53",
                                 "dns+udp://[2001:db8::98]:5353", options="--resolve-mode=backup"))
    # (Port 5353 reaches dnsconfd only from NetworkManager 1.54: judged for such a line.)
    result = parse(path, line="fedora-43")
    assert result.errors == []
    assert [s.uri() for s in result.config.servers] == [
        GOOD, "dns+udp://192.0.2.99", "dns+udp://[2001:db8::99]",
        "dns+udp://[2001:db8::98]:5353"]


# --- sections -------------------------------------------------------------------------

def test_both_spellings_in_one_file_are_an_error_at_the_second(write_ks):
    text = "text\n" + edns_section(GOOD, spelling="%edns") + edns_section(
        "dns+tls://192.0.2.60#dot.lab.example")
    path = write_ks(text)
    assert sorted(messages(path)) == sorted([
        "%s:5: error: both %%edns and %%addon org_edns_addon are given; they are two "
        "spellings of the same section, keep only %%addon org_edns_addon (first on %s:2)"
        % (path, path), TOP_LEVEL % (path, path)])


def test_a_second_section_is_an_error_at_its_header(write_ks):
    text = edns_section(GOOD) + "\n" + edns_section("dns+tls://192.0.2.60#dot.lab.example")
    path = write_ks(text)
    assert_one_error(path, text, ADDON, "a second %%addon org_edns_addon section; only one "
                     "may appear (first on %s:1)" % path, occurrence=2)


# pykickstart (parser.py _stateMachine) refuses a section it does not know, "Unknown
# kickstart section", and so do ksvalidator and every Anaconda line: no installer takes
# the file, so validate says error (tests/test_ks_convert.py runs ksvalidator on it).
TOP_LEVEL = ("%s:2: error: stock Anaconda rejects a top-level %%edns (\"Unknown kickstart "
             "section\"), and so does ksvalidator: no installer takes this kickstart as it is; "
             "run 'edns-addon convert %s' to rewrite it as %%addon org_edns_addon")


def test_a_top_level_edns_section_is_an_error_that_offers_convert(write_ks):
    text = "text\n" + edns_section(GOOD, spelling="%edns")
    path = write_ks(text)
    assert messages(path) == [TOP_LEVEL % (path, path)]


@pytest.mark.parametrize("name", ["org_ends_addon", "org_edns-addon", "ORG_EDNS_ADDON",
                                  "org_dns_addon", "org_edns_addons", "org_edns", "edns"])
def test_an_addon_name_close_to_ours_is_an_error_on_its_line(write_ks, name):
    # Anaconda's boss hands a module only the %addon sections of its names
    # (tests/test_anaconda_module.py splits such a kickstart with the boss's own parser):
    # this one would be dropped, and the system installed without encrypted DNS.
    text = "text\n" + edns_section(GOOD).replace(ADDON, "%addon " + name)
    path = write_ks(text)
    assert_one_error(path, text, "%addon", "%%addon %s is not this addon's name, and Anaconda "
                     "hands a section only to the addon it names: it skips this one and "
                     "installs without encrypted DNS; did you mean %s?" % (name, ADDON))


@pytest.mark.parametrize("name", ["com_redhat_kdump", "org_fedora_oscap", "com_redhat_oscap",
                                  "org_fedora_hello_world"])
def test_the_addons_people_install_are_not_taken_for_ours(write_ks, name):
    path = write_ks("text\n%%addon %s --enable\nsomething\n%%end\n" % name)
    assert messages(path) == ["%s: warning: no %s section; encrypted DNS is not configured"
                              % (path, ADDON)]


def test_a_kickstart_without_the_section_gets_a_warning_naming_the_file(write_ks):
    path = write_ks("text\n%addon com_example_other --x\nanything\n%end\n")
    assert messages(path) == ["%s: warning: no %%addon org_edns_addon section; encrypted "
                              "DNS is not configured" % path]


def test_a_section_without_end_is_reported_and_reading_stops(write_ks):
    text = "text\n" + edns_section(GOOD).replace("%end\n", "")
    path = write_ks(text)
    assert_one_error(path, text, GOOD, "Section %addon does not end with %end; the rest of "
                     "the file is not checked")


def test_an_unclosed_quote_is_reported_on_its_line_without_a_traceback(write_ks):
    text = "text\nlang 'en_US.UTF-8\n" + edns_section(GOOD)
    path = write_ks(text)
    assert_one_error(path, text, "lang", "No closing quotation; the rest of the file is not "
                     "checked")


def test_an_ordinary_kickstart_error_keeps_its_file_and_line(write_ks):
    text = edns_section(GOOD) + "\nbogus_command --x\n"
    path = write_ks(text)
    assert_one_error(path, text, "bogus_command", "Unknown command: bogus_command")


# --- certificates ---------------------------------------------------------------------

def test_an_unknown_ca_name_is_reported_at_the_header_with_the_known_names(write_ks, pems):
    text = certificate_section(pems.ca.pem, "corp-ca.pem") + edns_section(
        GOOD, options="--ca=corp-ca.pem,crop-ca.pem")
    path = write_ks(text)
    assert_one_error(path, text, ADDON, "--ca=crop-ca.pem names no %certificate --filename "
                     "(known: corp-ca.pem); add that %certificate or fix the name")


def test_a_ca_name_given_twice_is_reported_once_at_the_header(write_ks, pems):
    text = (certificate_section(pems.ca.pem, "a.pem")
            + edns_section(GOOD, options="--ca=a.pem,a.pem"))
    path = write_ks(text)
    assert_one_error(path, text, ADDON, "--ca lists a name twice")


def test_a_private_key_pasted_instead_of_the_certificate_is_refused(write_ks, pems):
    text = "text\n" + certificate_section(pems.ca.key_pem) + edns_section(GOOD)
    path = write_ks(text)
    assert_one_error(path, text, "BEGIN PRIVATE KEY", "a private key is pasted here "
                     "('-----BEGIN PRIVATE KEY-----'); never put a private key in a "
                     "kickstart: remove it and paste only the CA certificate")


def test_a_private_key_hidden_after_a_certificate_is_refused_on_its_line(write_ks, pems):
    text = "text\n" + certificate_section(pems.ca.pem + "\n" + pems.ca.key_pem) + edns_section(
        GOOD, options="--ca=dns-ca.pem")
    path = write_ks(text)
    assert_one_error(path, text, "BEGIN PRIVATE KEY", "a private key is pasted here")


@pytest.mark.parametrize("key_label", ["RSA PRIVATE KEY", "EC PRIVATE KEY",
                                       "ENCRYPTED PRIVATE KEY", "OPENSSH PRIVATE KEY"])
def test_a_private_key_of_any_kind_is_refused(write_ks, key_label):
    key = "-----BEGIN %s-----\nMIIB\n-----END %s-----\n" % (key_label, key_label)
    text = certificate_section(key) + edns_section(GOOD)
    path = write_ks(text)
    assert_one_error(path, text, "BEGIN " + key_label, "a private key is pasted here")


def test_text_around_a_block_is_passed_over_as_openssl_does(write_ks, pems):
    # crypto/pem/pem_lib.c get_name reads past every line until "-----BEGIN ".
    text = certificate_section("see the wiki for the CA\n" + pems.ca.pem + "# end\n") + \
        edns_section(GOOD, options="--ca=dns-ca.pem")
    assert messages(write_ks(text)) == []


# A PEM problem that makes OpenSSL load nothing of the file: an error for a certificate
# that authenticates the DNS servers (Unbound's tls-cert-bundle), a warning for one that
# is the Security module's (p11-kit passes over what it cannot read).
def _damaged_base64(pem):
    lines = pem.splitlines(True)
    lines[3] = lines[3][:10] + "!!!!" + lines[3][14:]
    return "".join(lines)


DAMAGED = [
    (_damaged_base64, "BEGIN CERTIFICATE", "the PEM block '-----BEGIN CERTIFICATE-----' is "
     "not base64 (OpenSSL would load nothing of this file)"),
    (lambda pem: pem.replace("-----END CERTIFICATE-----\n", ""), "BEGIN CERTIFICATE",
     "'-----BEGIN CERTIFICATE-----' has no matching -----END line; paste the whole block"),
    (lambda pem: pem + "-----BEGIN PUBLIC KEY-----\nM!!!\n-----END PUBLIC KEY-----\n",
     "BEGIN PUBLIC KEY", "the PEM block '-----BEGIN PUBLIC KEY-----' is not base64"),
]


@pytest.mark.parametrize("damage, needle, message", DAMAGED, ids=[d[1] + ": " + d[2][:40]
                                                                    for d in DAMAGED])
def test_a_damaged_pem_is_an_error_for_the_dns_ca_and_a_warning_for_another(
        write_ks, pems, damage, needle, message):
    text = certificate_section(damage(pems.ca.pem)) + edns_section(
        GOOD, options="--ca=dns-ca.pem")
    assert_one_error(write_ks(text), text, needle, message)
    other = certificate_section(damage(pems.ca.pem), "other.pem") + edns_section(GOOD)
    path = write_ks(other)
    [warning] = messages(path)
    assert warning.startswith(error_at(path, line_of(other, needle), message).replace(
        ": error: ", ": warning: ", 1)), warning


def test_a_pem_block_that_is_not_a_certificate_is_passed_over(write_ks, pems):
    # PEM_X509_INFO_read_bio (crypto/pem/pem_info.c) keeps certificates, CRLs and keys
    # and passes over other types; X509_load_cert_crl_file adds only the first two.
    public_key = "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n"
    text = certificate_section(pems.ca.pem + public_key) + edns_section(
        GOOD, options="--ca=dns-ca.pem")
    assert messages(write_ks(text)) == []


def test_an_empty_certificate_section_is_refused_at_its_header(write_ks):
    text = edns_section(GOOD) + certificate_section("\n\n")
    path = write_ks(text)
    assert_one_error(path, text, "%certificate", "The %certificate section is empty; paste "
                     "the CA certificate between the %certificate line and %end")


@pytest.mark.parametrize("kind, message", [
    pytest.param("not_ca", "Not a valid CA certificate: CN=Not a CA (basicConstraints CA:TRUE "
                 "is missing); give the CA that issued the DNS servers' certificates",
                 id="a certificate that is not a CA"),
    pytest.param("server", "Not a valid CA certificate: CN=dot.corp.example",
                 id="a DNS server's own certificate"),
    pytest.param("no_cert_sign", "Not a valid CA certificate: CN=CA without keyCertSign "
                 "(keyUsage lacks keyCertSign)", id="a CA whose key usage lacks keyCertSign"),
    pytest.param("expired", "the certificate CN=Expired CA expired on ",
                 id="an expired CA"),
    pytest.param("not_yet_valid", "the certificate CN=Future CA is not valid before ",
                 id="a CA that is not yet valid"),
])
@pytest.mark.parametrize("use", ["--ca", "anchor"])
def test_a_certificate_that_cannot_authenticate_dns_servers_is_refused(write_ks, pems, kind,
                                                                       message, use):
    if use == "--ca":
        text = certificate_section(getattr(pems, kind).pem) + edns_section(GOOD,
                                                                    options="--ca=dns-ca.pem")
    else:
        text = certificate_section(getattr(pems, kind).pem, options=anchor_options()) + \
            edns_section(GOOD)
    path = write_ks(text)
    assert_one_error(path, text, "BEGIN CERTIFICATE", message)


def test_an_expired_ca_names_its_end_date(write_ks, pems):
    text = certificate_section(pems.expired.pem) + edns_section(GOOD, options="--ca=dns-ca.pem")
    path = write_ks(text)
    assert_one_error(path, text, "BEGIN CERTIFICATE", "the certificate CN=Expired CA expired "
                     "on %s; replace it with a current one"
                     % pems.expired.not_after.strftime("%Y-%m-%d %H:%M:%S UTC"))


def test_an_expired_certificate_not_used_for_dns_is_only_a_warning(write_ks, pems):
    text = certificate_section(pems.expired.pem, "other.pem") + edns_section(GOOD)
    path = write_ks(text)
    result = parse(path)
    assert result.errors == []
    assert [str(w) for w in result.warnings] == [
        "%s:%d: warning: the certificate CN=Expired CA expired on %s; replace it with a "
        "current one" % (path, line_of(text, "BEGIN CERTIFICATE"),
                         pems.expired.not_after.strftime("%Y-%m-%d %H:%M:%S UTC"))]


def test_the_second_certificate_of_a_bundle_is_checked_on_its_own_line(write_ks, pems):
    # Beside a CA that can authenticate the servers, the expired one is a warning
    # (tests/test_trust.py has the peer, openssl verify, take such bundles).
    text = certificate_section(pems.ca.pem + pems.expired.pem) + edns_section(
        GOOD, options="--ca=dns-ca.pem")
    path = write_ks(text)
    result = parse(path)
    assert result.errors == []
    [warning] = [str(w) for w in result.warnings]
    assert warning.startswith("%s:%d: warning: the certificate CN=Expired CA expired" % (
        path, line_of(text, "BEGIN CERTIFICATE", 2)))


def test_a_bundle_in_which_no_certificate_can_authenticate_is_an_error_on_each(write_ks,
                                                                                pems):
    text = certificate_section(pems.expired.pem + pems.not_ca.pem) + edns_section(
        GOOD, options="--ca=dns-ca.pem")
    path = write_ks(text)
    assert [str(error) for error in parse(path).errors] == [
        error_at(path, line_of(text, "BEGIN CERTIFICATE"), "the certificate CN=Expired CA "
                 "expired on %s; replace it with a current one" % pems.expired.not_after.strftime(
                     "%Y-%m-%d %H:%M:%S UTC")),
        error_at(path, line_of(text, "BEGIN CERTIFICATE", 2), "Not a valid CA certificate: "
                 "CN=Not a CA (basicConstraints CA:TRUE is missing); give the CA that issued "
                 "the DNS servers' certificates")]


def test_a_bundle_puts_every_certificate_in_the_dot_bundle_in_order_once(write_ks, pems):
    text = (certificate_section(pems.second_ca.pem + pems.ca.pem, "bundle.pem")
            + certificate_section(pems.ca.pem, "corp-ca.pem")
            + edns_section(GOOD, options="--ca=bundle.pem,corp-ca.pem"))
    path = write_ks(text)
    result = parse(path)
    assert result.errors == []
    trust = result.staging_input().trust
    subjects = [block.subject for block in trust.blocks]
    assert subjects == ["CN=Corp DNS CA 2", "CN=Corp DNS CA", "CN=Corp DNS CA"]
    assert trust.bundle.decode() == pems.second_ca.pem + pems.ca.pem


def test_without_ca_the_dot_bundle_is_empty(write_ks, pems):
    path = write_ks(certificate_section(pems.ca.pem, options=anchor_options()) +
                    edns_section(GOOD))
    result = parse(path)
    assert result.errors == []
    trust = result.staging_input().trust
    assert (trust.bundle, trust.blocks, len(trust.anchors)) == (None, (), 1)


@pytest.mark.skipif(CERTIFICATE_TYPE, reason="this pykickstart has %certificate --type")
def test_type_anchor_where_pykickstart_lacks_it_is_an_error_on_its_line(write_ks, pems):
    # EL9 (3.32.x) and Fedora 43 (3.66): pykickstart refuses the option; nothing is dropped.
    text = certificate_section(pems.ca.pem, options="--dir=/etc/pki/dns/ --type=anchor") + \
        edns_section(GOOD)
    path = write_ks(text)
    assert only_error(path) == "%s:1: error: unrecognized arguments: --type=anchor" % path


# Anaconda writes every %certificate at its place, a later one at the same path replacing
# the earlier (its Security module's and dracut/parse-kickstart's _dump_certificate:
# "already exists, replacing"; tests/test_anaconda_module.py runs the Security module's).
def test_two_certificates_at_one_path_are_an_error_at_the_second(write_ks, pems):
    text = (certificate_section(pems.ca.pem) + certificate_section(pems.second_ca.pem)
            + edns_section(GOOD))
    path = write_ks(text)
    assert_one_error(path, text, "%certificate", "a second %%certificate at /etc/pki/dns/"
                     "dns-ca.pem (first on %s:1): Anaconda writes both there, the later "
                     "replacing the earlier; give each certificate its own --filename or --dir"
                     % path, occurrence=2)


def test_one_file_name_in_two_directories_is_written_twice_as_anaconda_does(write_ks, pems,
                                                                           tmp_path):
    text = (certificate_section(pems.ca.pem, "corp.pem", "--dir=/etc/pki/dns/")
            + certificate_section(pems.second_ca.pem, "corp.pem", "--dir=/etc/pki/tls/corp/")
            + edns_section(GOOD))
    path = write_ks(text)
    assert messages(path) == []
    root = tmp_path / "root"
    root.mkdir()
    assert run_cli("apply", path, "--root", root).returncode == 0
    assert (root / "etc/pki/dns/corp.pem").read_text() == pems.ca.pem.rstrip("\n") + "\n"
    assert (root / "etc/pki/tls/corp/corp.pem").read_text() == \
        pems.second_ca.pem.rstrip("\n") + "\n"


def test_one_file_name_in_two_directories_named_by_ca_is_an_error_at_the_second(write_ks,
                                                                               pems):
    text = (certificate_section(pems.ca.pem, "corp.pem", "--dir=/etc/pki/dns/")
            + certificate_section(pems.second_ca.pem, "corp.pem", "--dir=/etc/pki/tls/corp/")
            + edns_section(GOOD, options="--ca=corp.pem"))
    path = write_ks(text)
    assert_one_error(path, text, "%certificate", "a second %%certificate --filename=corp.pem "
                     "(first on %s:1), and --ca names corp.pem: it does not say which one "
                     "authenticates the DNS servers; give each certificate its own --filename"
                     % path, occurrence=2)


def test_an_indented_anchor_is_taken_as_p11kit_takes_it_with_a_warning(write_ks, pems):
    # Its file is read by p11-kit (update-ca-trust), which finds an indented BEGIN line
    # (tests/test_certificates_pem.py runs p11-kit's trust on one); OpenSSL, which reads what
    # Anaconda's initramfs appends of it to its CA bundle, does not.
    pem = "\n".join("  " + line for line in pems.ca.pem.splitlines()) + "\n"
    text = certificate_section(pems.ca.pem) + certificate_section(
        pem, "corp-root.pem", anchor_options()) + edns_section(GOOD, options="--ca=dns-ca.pem")
    path = write_ks(text)
    assert messages(path) == ["%s:%d: warning: p11-kit reads this indented PEM block into the "
                              "system trust (update-ca-trust), but OpenSSL reads a -----BEGIN "
                              "line only at the start of a line, and Anaconda's initramfs "
                              "appends an anchor's text as it is to the CA bundle OpenSSL "
                              "reads there (dracut/parse-kickstart on the main and rhel-10 "
                              "lines): in the installer's initramfs it authenticates nothing; "
                              "remove the spaces before -----BEGIN and -----END"
                              % (path, line_of(text, "  -----BEGIN"))]
    [anchor] = [cert for cert in parse(path).certificates if cert.is_anchor]
    assert [block.subject for block in anchor.blocks] == ["CN=Corp DNS CA"]


def test_an_indented_ca_for_the_dns_servers_is_an_error_on_its_begin_line(write_ks, pems):
    pem = "\n".join("  " + line for line in pems.ca.pem.splitlines()) + "\n"
    text = certificate_section(pem) + edns_section(GOOD, options="--ca=dns-ca.pem")
    path = write_ks(text)
    assert_one_error(path, text, "  -----BEGIN", "OpenSSL never reads this PEM block: its "
                     "-----BEGIN line is indented, and OpenSSL reads one only at the start of "
                     "a line; remove the spaces before -----BEGIN and -----END")


def test_a_certificate_without_dir_named_by_ca_is_one_error_on_its_header(write_ks, pems):
    # Its --filename is there, refused on its own line: --ca names no missing section.
    text = certificate_section(pems.ca.pem, "corp.pem", "") + \
        edns_section(GOOD, options="--ca=corp.pem")
    path = write_ks(text)
    assert_one_error(path, text, "%certificate", MISSING_DIR)


@pytest.mark.parametrize("options, message", [
    ("--dir=/etc/pki/dns/ --filename=../../etc/shadow", "--filename=../../etc/shadow must be a "
                                                        "plain file name, without '/'"),
    ("--dir=etc/pki/dns", "--dir=etc/pki/dns must be an absolute path, like /etc/pki/dns/"),
    pytest.param("--type=bundle", "--type=bundle is unknown; the only type is anchor",
                 marks=needs_certificate_type),
    ("", MISSING_DIR),
])
def test_a_certificate_header_that_could_write_elsewhere_is_refused(write_ks, pems, options,
                                                                     message):
    text = edns_section(GOOD) + certificate_section(pems.ca.pem, "ca.pem", options)
    path = write_ks(text)
    assert_one_error(path, text, "%certificate", message)


# --- %include -------------------------------------------------------------------------

def test_errors_in_an_included_file_name_that_file_and_its_line(write_ks, pems):
    servers = "# DNS servers of the lab\n" + GOOD + "\ndns+tls://192.0.2.54\n"
    certificate = certificate_section(pems.not_ca.pem)
    included_servers = write_ks(servers, "servers.ks")
    included_ca = write_ks(certificate, "ca.ks")
    main = ("text\n%include ca.ks\n" + ADDON + " --ca=dns-ca.pem\n%include servers.ks\n"
            "dns+tls://192.0.2.60#dot.lab.example\nbad line\n%end\n")
    path = write_ks(main)
    assert [str(p) for p in parse(path).errors] == [
        error_at(path, line_of(main, "bad line"), "unexpected 'line' after the server; the "
                 "only option of a server line is domain=DOMAIN[,DOMAIN]"),
        error_at(included_ca, line_of(certificate, "BEGIN CERTIFICATE"),
                 "Not a valid CA certificate: CN=Not a CA (basicConstraints CA:TRUE is "
                 "missing); give the CA that issued the DNS servers' certificates"),
        # A check after reading shows nothing of the included line (its FILE:LINE says it).
        error_at(included_servers, 3, "the DoT server ... has no TLS name, so it cannot be "
                 "authenticated; append #NAME as in its certificate, like ...#dot.example"),
    ]


def test_a_missing_include_is_a_warning_on_the_include_line(write_ks):
    text = "text\n%include /tmp/edns-test-written-by-pre.ks\n" + edns_section(GOOD)
    path = write_ks(text)
    assert messages(path) == [
        "%s:2: warning: %%include /tmp/edns-test-written-by-pre.ks: cannot read the file: No "
        "such file or directory; if a %%pre script writes it, check that file separately"
        % path]


def test_an_include_loop_is_an_error_on_the_include_line(write_ks):
    write_ks("%include loop-a.ks\n", "loop-b.ks")
    path = write_ks(edns_section(GOOD) + "%include loop-b.ks\n", "loop-a.ks")
    error = only_error(path)
    assert error.startswith("%s:1: error: %%include " % path.replace("loop-a", "loop-b"))
    assert "includes a file that is already being read; remove the loop" in error


def test_a_binary_include_is_an_error_on_the_include_line(write_ks, tmp_path):
    (tmp_path / "blob.ks").write_bytes(b"text\n\x00\x01\x02")
    text = edns_section(GOOD) + "%include blob.ks\n"
    path = write_ks(text)
    assert_one_error(path, text, "%include", "%%include %s: the file holds NUL bytes"
                     % (tmp_path / "blob.ks"))


def test_a_comma_in_a_certificate_file_name_is_refused_on_its_line(write_ks, pems):
    # --ca splits its value at ',': no --ca could ever name this certificate.
    text = certificate_section(pems.ca.pem, "a,b.pem") + edns_section(GOOD, options="--ca=a,b.pem")
    path = write_ks(text)
    assert messages(path) == [
        error_at(path, line_of(text, "%certificate"), "--filename=a,b.pem holds ',', which "
                 "separates the names in --ca; choose a file name without it"),
        error_at(path, line_of(text, ADDON), "--ca=a names no %certificate --filename "
                 "(known: a,b.pem); add that %certificate or fix the name"),
        error_at(path, line_of(text, ADDON), "--ca=b.pem names no %certificate --filename "
                 "(known: a,b.pem); add that %certificate or fix the name")]
