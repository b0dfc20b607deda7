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
after ours, so it wins) and points resolv.conf at 127.0.0.55. By release line:

- 4.13 and later first move every other file of /etc/unbound/conf.d/ away
  (ours and dnsconfd-unbound's include among them) and disable dnsconfd where
  it is running: FreeIPA's forwarder alone serves every name afterwards.
- 4.12 with DNS over TLS (the ipa-4-12 branch before "dns: disable all
  previous Unbound configuration before deploying ours"; EL9's and EL10's
  builds) does neither: its file lands beside ours, unbound-checkconf fails
  ("interface: 127.0.0.55 present twice"), and Unbound keeps our forward zone
  for "." with FreeIPA's tls-cert-bundle (the system store, read last).

So whose forwarder serves what is FreeIPA's to decide once it enrolls: it serves
every name, ours serves the installation and the system until then. On 4.12 the
installed system holds that decision itself: with --backend=unbound it gets
``edns-freeipa-handover.service`` (``handover_unit``), wanted by Unbound and
ordered before it, which sets our file aside (outside conf.d) once FreeIPA's is
there; the client's own ``unbound.restart()`` runs it, and Unbound then starts
with FreeIPA's forwarder alone, as on 4.13. A %post that enrolls is a warning
(ks/rules.py). A root already enrolled is refused here, since beside it our
Unbound file would break Unbound until its next start and our dnsconfd
configuration would never be used (FreeIPA's dns=none wins).
"""

from org_edns_addon import constants as c
from org_edns_addon.confinement import RootError, lexists
from org_edns_addon.i18n import _
from org_edns_addon.staging import StagingError
from org_edns_addon.staging.networkmanager import GENERATED_HEADER


def handover_unit():
    """The unit file of FREEIPA_HANDOVER_UNIT. A restart of Unbound starts what Unbound
    Wants= (systemd's transaction pulls them in for restart jobs as for start jobs), and a
    oneshot is inactive again once it ran, so it runs before every start of Unbound, the
    conditions deciding."""
    return ("\n".join([
        GENERATED_HEADER,
        "# FreeIPA 4.12's ipa-client-install --dns-over-tls writes its Unbound forwarder",
        "# beside this addon's, both on %s: unbound-checkconf refuses the pair, and" % (
            c.UNBOUND_LISTEN_ADDRESS),
        "# Unbound would keep this addon's forward zone for '.'. 4.13 and later set every",
        "# other file of conf.d aside themselves. FreeIPA's then serves every name.",
        "[Unit]",
        "Description=Hand Unbound over to FreeIPA's DNS over TLS forwarder",
        "Before=%s" % c.UNBOUND_UNIT,
        "ConditionPathExists=%s" % c.FREEIPA_UNBOUND_CONF_PATH,
        "ConditionPathExists=%s" % c.UNBOUND_CONF_PATH,
        "",
        "[Service]",
        "Type=oneshot",
        "ExecStart=%s -f %s %s" % (c.MV, c.UNBOUND_CONF_PATH, c.UNBOUND_CONF_HANDED_OVER_PATH),
        "",
        "[Install]",
        "WantedBy=%s" % c.UNBOUND_UNIT]) + "\n").encode("ascii")


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
