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

"""The lab's one source of truth: its addresses, names, answers and servers.

``make vm-proof`` (tapnet, proof), its sabotage run and the kickstart-tests
files' substitution (``KSTEST_VALUES``) all read them here, so a lab that
moves a server moves it for all three. Documentation addresses only
(192.0.2.0/24, 198.51.100.0/24, 2001:db8::/32).
"""

TAP = "tap0"
GUEST_MAC = "52:54:00:0e:d5:01"
GUEST_INTERFACE = "ens2"          # virtio-net on PCI slot 2 of a -nodefaults machine
GUEST_IPV4 = "192.0.2.10"
GUEST_IPV6 = "2001:db8::10"
GATEWAY_IPV4 = "192.0.2.1"
GATEWAY_IPV6 = "2001:db8::1"
DHCP_RANGE = ("192.0.2.100", "192.0.2.199")
MAIN_DOT = "192.0.2.53"           # dot.corp.example, for all names
MAIN_DOT_NAME = "dot.corp.example"
MAIN_DOT_IPV6 = "2001:db8::53"    # an IPv6-only DoT server, answering with its own address
IPV6_READY = "192.0.2.56"         # where the IPv6 server's readiness is checked
CHAIN_DOT = "192.0.2.57"          # dot.corp.example of a two-tier PKI: it sends its
                                  # certificate and its intermediate CA's
PORT_DOT = "192.0.2.58"           # dot.corp.example again, on a port other than 853 alone
PORT_DOT_PORT = 8853
ROUTED_DOT = "198.51.100.60"      # dot.lab.example, for domain=lab.example
ROUTED_DOT_NAME = "dot.lab.example"
ROUTED_DOMAIN = "lab.example"
# Names Unbound keeps to itself by default (issue 32): RFC 8375's home.arpa and the reverse
# zone of 10/8 (RFC 1918, an AS112 zone), served by the lab's DoT server of its own. Only
# the PTR of PRIVATE_ADDRESS is asked, of that server: nothing is sent to 10/8.
HOME_DOT = "198.51.100.61"        # dot.corp.home.arpa, for domain=corp.home.arpa,10.in-addr.arpa
HOME_DOT_NAME = "dot.corp.home.arpa"
HOME_DOMAIN = "corp.home.arpa"
REVERSE_ZONE = "10.in-addr.arpa"
PRIVATE_ADDRESS = "10.0.0.5"
PRIVATE_PTR = "5.0.0.10.in-addr.arpa"
HOME_TEST_NAME = "nas.corp.home.arpa"
HTTPS_SERVER = "192.0.2.80"       # ks.corp.example
HTTPS_NAME = "ks.corp.example"
PLAINTEXT_DNS = "192.0.2.99"      # what DHCP offers: plaintext, for DHCP_DOMAIN only
DHCP_DOMAIN = "dhcp.example"      # the domain DHCP offers with it (the connection's domain)
CORP_ZONE = "corp.example."
LAB_ZONE = "lab.example."
TEST_NAME = "www.corp.example"
ROUTED_TEST_NAME = "www.lab.example"
DHCP_TEST_NAME = "www.dhcp.example"   # only the plaintext server answers it
ANSWERS = {
    TEST_NAME: "192.0.2.80",
    HTTPS_NAME: HTTPS_SERVER,
    ROUTED_TEST_NAME: "198.51.100.81",
    DHCP_TEST_NAME: "198.51.100.99",
    HOME_TEST_NAME: "198.51.100.90",
}
# What the IPv6-only server answers for www.corp.example: another address, so the
# guest's answer names the server that gave it.
IPV6_SERVER_ANSWER = "192.0.2.86"
# What the two-tier PKI's server answers for www.corp.example: its own answer too.
CHAIN_SERVER_ANSWER = "192.0.2.87"
# And what the server on PORT_DOT_PORT answers for it.
PORT_SERVER_ANSWER = "192.0.2.88"
# What the HTTPS server serves, as a payload's source set-up or inst.ks=https:// fetch it.
KS_URL = "https://%s/ks.cfg" % HTTPS_NAME

# The kickstart's server lines.
MAIN_SERVER = "dns+tls://%s#%s" % (MAIN_DOT, MAIN_DOT_NAME)
ROUTED_SERVER = "dns+tls://%s#%s  domain=%s" % (ROUTED_DOT, ROUTED_DOT_NAME, ROUTED_DOMAIN)
IPV6_SERVER = "dns+tls://[%s]#%s" % (MAIN_DOT_IPV6, MAIN_DOT_NAME)
CHAIN_SERVER = "dns+tls://%s#%s" % (CHAIN_DOT, MAIN_DOT_NAME)
PORT_SERVER = "dns+tls://%s:%d#%s" % (PORT_DOT, PORT_DOT_PORT, MAIN_DOT_NAME)
HOME_SERVER = "dns+tls://%s#%s  domain=%s,%s" % (HOME_DOT, HOME_DOT_NAME, HOME_DOMAIN,
                                                 REVERSE_ZONE)

# data/kickstart-tests' @KSTEST_*@ values for this lab (tests/test_kickstart_tests_format.py
# and the proof's harness-delivered case substitute these).
KSTEST_VALUES = {
    "KSTEST_EDNS_DOT_SERVER": MAIN_DOT,
    "KSTEST_EDNS_DOT_NAME": MAIN_DOT_NAME,
    "KSTEST_EDNS_ROUTED_SERVER": ROUTED_DOT,
    "KSTEST_EDNS_ROUTED_NAME": ROUTED_DOT_NAME,
    "KSTEST_EDNS_ROUTED_DOMAIN": ROUTED_DOMAIN,
    "KSTEST_EDNS_TEST_NAME": TEST_NAME,
    "KSTEST_EDNS_ROUTED_TEST_NAME": ROUTED_TEST_NAME,
}
