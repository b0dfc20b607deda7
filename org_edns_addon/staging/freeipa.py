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

"""FreeIPA's own DNS over TLS on the same host: refused before anything is written.

``ipa-client-install --dns-over-tls`` (ipaclient/install/client.py,
client_dns) writes its own Unbound forwarder, ``interface: 127.0.0.55`` and
``forward-zone: "."``, as /etc/unbound/conf.d/zzz-ipa.conf, sets
NetworkManager ``dns=none`` in /etc/NetworkManager/conf.d/zzz-ipa.conf (read
after ours, so it wins) and disables dnsconfd. Beside it our Unbound file
makes unbound-checkconf fail ("interface: 127.0.0.55 present twice") and
Unbound itself keep only the first forward zone for "." (with FreeIPA's
tls-system-cert widening the trust of ours); our dnsconfd configuration would
never be used.
"""

from org_edns_addon import constants as c
from org_edns_addon.confinement import RootError, lexists
from org_edns_addon.i18n import _
from org_edns_addon.staging import StagingError


def refuse_beside_freeipa_dns_over_tls(plan, root):
    """Raise StagingError if ROOT (a ConfinedRoot) holds FreeIPA's DoT forwarder."""
    for path in (c.FREEIPA_UNBOUND_CONF_PATH, c.FREEIPA_NM_CONF_PATH):
        try:
            present = lexists(root.place(path))
        except (OSError, RootError):
            continue
        if not present:
            continue
        if any(planned.path == c.UNBOUND_CONF_PATH for planned in plan.files):
            clash = _("with this addon's %s beside it unbound-checkconf refuses both "
                      "('interface: %s present twice') and Unbound keeps one forward zone "
                      "for '.' of the two") % (root.shown(c.UNBOUND_CONF_PATH),
                                               c.UNBOUND_LISTEN_ADDRESS)
        else:
            clash = _("NetworkManager would never hand dnsconfd these servers (FreeIPA's "
                      "dns=none in %s is read after this addon's keyfile)") \
                % root.shown(c.FREEIPA_NM_CONF_PATH)
        raise StagingError(_(
            "nothing was written: %s exists: FreeIPA's client (ipa-client-install "
            "--dns-over-tls) already runs encrypted DNS here, its own Unbound on %s "
            "forwarding every name to the IPA server, and %s; keep one of the two: drop "
            "the encrypted DNS section, or remove FreeIPA's DNS over TLS first "
            "(ipa-client-install --uninstall)")
            % (root.shown(path), c.UNBOUND_LISTEN_ADDRESS, clash))
