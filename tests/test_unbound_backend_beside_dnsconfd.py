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

"""Why the unbound backend's target plan disables dnsconfd.

Anaconda's network module enables dnsconfd in the installed system because of our own
``rd.net.dns-backend=dnsconfd`` (tests/test_installer_sequence.py sees it on each line's
code). Had it stayed enabled beside ``--backend=unbound``, dnsconfd would on every boot
take resolv.conf (distribution/dnsconfd-prepare.sh, ``dnsconfd config take_resolvconf``)
and point it at its own listen address (src/dns_managers/unbound_manager.c
write_resolv_conf: ``nameserver 127.0.0.1``), and write /run/dnsconfd/unbound.conf,
which the dnsconfd-unbound package's /etc/unbound/conf.d/unbound.conf includes into the
same Unbound as ours (write_configuration, with no servers from NetworkManager, which
runs dns=none for this backend). dnsconfd is not packaged for Debian: its two files are
restated below as those sources write them, and Unbound's own reader shows what then
wins. The plan's fix is tests/test_staging_plan.py's.
"""

import subprocess

from lab.kickstarts import edns_kickstart
from org_edns_addon import constants as c
from tests.conftest import run_cli
from tests.staging_fixtures import require_tools

# distribution/unbound-dnsconfd.conf, installed as /etc/unbound/conf.d/unbound.conf.
DNSCONFD_UNBOUND_INCLUDE = "server:\n\tinclude: %s\n"
# write_configuration() and generate_listen_address() with dnssec_enabled no (its
# default), the default listen address 127.0.0.1, no server from NetworkManager, and the
# effective CA of its default certification_authority list that exists (global_options.c:
# /etc/pki/dns/extracted/pem/tls-ca-bundle.pem, then the system's).
DNSCONFD_RUNTIME = ('server:\n\tmodule-config: "ipsecmod iterator"\n\tinterface: 127.0.0.1\n'
                    '\tdo-not-query-address: 127.0.0.1/8\n\ttls-cert-bundle: %s\n'
                    'forward-zone:\n\tname: "."\n\tforward-addr: "127.0.0.1"\n')
SYSTEM_BUNDLE = "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"


def test_a_dnsconfd_left_enabled_would_rewrite_the_unbound_backends_forwarder(
        write_ks, test_ca, tmp_path):
    require_tools("unbound-checkconf")
    root = tmp_path / "root"
    root.mkdir()
    # Without --ca: our forwarder authenticates with the system trust store.
    applied = run_cli("apply", write_ks(edns_kickstart(test_ca.pem, "--backend=unbound")),
                      "--root", root)
    assert applied.returncode == 0, applied.stderr
    runtime = tmp_path / "dnsconfd-unbound.conf"
    runtime.write_text(DNSCONFD_RUNTIME % SYSTEM_BUNDLE)
    (root / "etc/unbound/conf.d/unbound.conf").write_text(DNSCONFD_UNBOUND_INCLUDE % runtime)
    main = tmp_path / "unbound.conf"
    main.write_text('server:\n    chroot: ""\n    username: ""\n    directory: "%s"\n'
                    '    pidfile: ""\ninclude: "%s/etc/unbound/conf.d/*.conf"\n'
                    % (tmp_path, root))

    def option(name):
        result = subprocess.run(["unbound-checkconf", "-o", name, str(main)],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return result.stdout.split("\n")[:-1]

    # dnsconfd's file is read after ours: its server options win over ours ...
    assert option("tls-cert-bundle") == [SYSTEM_BUNDLE]
    assert option("module-config") == ["ipsecmod iterator"]
    # ... it adds its own listener, where it points resolv.conf ...
    assert option("interface") == [c.UNBOUND_LISTEN_ADDRESS, "127.0.0.1"]
    # ... and a second forward zone for "." (Unbound keeps the first it reads, ours here,
    # by nothing but the file names: "edns-forward.conf" sorts before "unbound.conf").
    with open(root / c.UNBOUND_CONF_PATH.lstrip("/")) as ours:
        assert 'name: "."' in ours.read()
    assert 'name: "."' in runtime.read_text()
