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

"""FreeIPA's own DNS over TLS client code, run on a root (lab/freeipa.py run_client starts it).

``python3 -m lab.freeipa_client TREE ACTION UNITS SERVER_IP SERVER_NAME``, in a
process of its own with IPAPLATFORM_OVERRIDE=rhel (EL's platform): TREE is FreeIPA's
source at one ref (lab/freeipa.py checkout), whose modules it imports:
ipalib/sysrestore.py (FileStore, StateFile), ipapython/ipautil.py (copy_template_file,
which fills the template in), and ipaplatform's rhel platform (restore_context:
restorecon where SELinux is on, here off). From TREE's
ipaclient/install/client.py it runs, unchanged, ``remove_file``, ``save_state`` and
``client_dns``, and the DNS over TLS part of ``uninstall``, on the paths FreeIPA names:
lab/freeipa.py starts it in a private mount namespace where ROOT's /etc and /var/lib lie
over this machine's (overlayfs, every write landing in ROOT), and ROOT's /etc/unbound is
/etc/unbound. ACTION:

- ``enroll``: what _install does around client_dns: [installation] complete False, then
  client_dns with --dns-over-tls, then complete True.
- ``uninstall``: uninstall's DNS over TLS part, then (if it did not raise) its later
  ``if fstore.has_files(): fstore.restore_all_files()`` and the end of its state.
- ``failed-install``: an _install that fails after client_dns: complete False, client_dns.
- ``rollback``: install()'s roll-back then, uninstall(options), whose exception it logs and
  swallows.

Not FreeIPA's: systemd (``services.knownservices``: units whose state UNITS keeps from one
run to the next, every call recorded), the IPA server's address
(``dnsutil.resolve_ip_addresses``) and the check that the host's name resolves. Prints a
JSON report: the calls, and the exception the steps ended with (type, message, FreeIPA's
file:line). Exit 3 if FreeIPA's modules do not import (the message says why).
"""

import importlib.util
import json
import logging
import os
import sys
import traceback
from types import SimpleNamespace

from lab.freeipa import CLIENT_PY, TEMPLATE, function, uninstall_dns_over_tls

# The paths of ipaplatform/base/paths.py the steps use, and no other (one they would write
# outside ROOT's /etc and /var/lib is an AttributeError, never a write to this machine).
PATHS = ("IPA_CLIENT_SYSRESTORE", "UNBOUND_CONFIG_DIR", "UNBOUND_CONF",
         "NETWORK_MANAGER_IPA_CONF", "RESOLV_CONF", "OPENSSL_CERTS_DIR")
UNITS = ("unbound", "dnsconfd", "systemd-resolved", "NetworkManager")


class Unit:
    """A systemd unit as ipaplatform's services see it, its state in STATES[name]."""

    def __init__(self, name, states, calls):
        self.service_name = name
        self._state = states.setdefault(name, {"enabled": False, "running": False})
        self._calls = calls

    def _record(self, verb, **changes):
        self._calls.append("%s %s" % (self.service_name, verb))
        self._state.update(changes)

    def is_running(self):
        return self._state["running"]

    def is_enabled(self):
        return self._state["enabled"]

    def is_installed(self):
        return True

    def _verb(verb, **changes):  # noqa: N805 - builds the methods below
        def call(self):
            self._record(verb, **changes)
        call.__name__ = verb
        return call

    start = _verb("start", running=True)
    restart = _verb("restart", running=True)
    reload_or_restart = _verb("reload_or_restart", running=True)
    stop = _verb("stop", running=False)
    enable = _verb("enable", enabled=True)
    disable = _verb("disable", enabled=False)


class KnownServices(dict):
    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _import(tree):
    sys.path.insert(0, tree)
    from ipaplatform.paths import paths
    from ipapython import ipautil
    spec = importlib.util.spec_from_file_location(
        "sysrestore", os.path.join(tree, "ipalib", "sysrestore.py"))
    sysrestore = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sysrestore)
    return paths, ipautil, sysrestore


def _paths(platform_paths, tree):
    paths = SimpleNamespace(**{name: getattr(platform_paths, name) for name in PATHS
                               if hasattr(platform_paths, name)})
    # Where the package installs the template (/usr/share/ipa/client/).
    paths.UNBOUND_CONF_SRC = os.path.join(tree, TEMPLATE)
    return paths


def _define(namespace, client_text, name):
    """Define client.py's top-level function NAME in NAMESPACE, at its own line numbers."""
    text, first = function(client_text, name)
    exec(compile("\n" * (first - 1) + text, CLIENT_PY, "exec"), namespace)
    return namespace[name]


def _error(error, tree):
    frame = traceback.extract_tb(error.__traceback__)[-1]
    where = os.path.relpath(frame.filename, tree) if frame.filename.startswith(tree) \
        else frame.filename
    return {"type": type(error).__name__, "message": str(error),
            "where": "%s:%d" % (where, frame.lineno)}


def main(argv):
    tree, action, units_path, server_ip, server_name = argv[1:6]
    try:
        platform_paths, ipautil, sysrestore = _import(tree)
    except Exception as error:  # noqa: BLE001 - any import failure is the reason to skip
        print("%s: %s" % (type(error).__name__, error), file=sys.stderr)
        return 3
    logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
    states = {}
    if os.path.exists(units_path):
        with open(units_path) as stream:
            states = json.load(stream)
    calls = []
    services = SimpleNamespace(knownservices=KnownServices(
        (name, Unit(name, states, calls)) for name in UNITS))
    paths = _paths(platform_paths, tree)
    os.makedirs(paths.IPA_CLIENT_SYSRESTORE, exist_ok=True)  # the package's directory
    with open(os.path.join(tree, CLIENT_PY)) as stream:
        client_text = stream.read()
    namespace = {"os": os, "logger": logging.getLogger("ipaclient.install.client"),
                 "paths": paths, "services": services, "sysrestore": sysrestore,
                 "ipautil": ipautil,
                 "dnsutil": SimpleNamespace(resolve_ip_addresses=lambda name: [server_ip]),
                 "verify_host_resolvable": lambda hostname: None}
    for name in ("remove_file", "save_state"):
        _define(namespace, client_text, name)
    statestore = sysrestore.StateFile(paths.IPA_CLIENT_SYSRESTORE)
    options = SimpleNamespace(dns_over_tls=True, no_dnssec_validation=False,
                              dns_updates=False, all_ip_addresses=False, ip_addresses=None,
                              unattended=True)
    error = None
    try:
        if action in ("enroll", "failed-install"):
            statestore.backup_state("installation", "complete", False)
            client_dns = _define(namespace, client_text, "client_dns")
            arguments = [server_name, "client.corp.example", options]
            code = client_dns.__code__
            if "statestore" in code.co_varnames[:code.co_argcount]:
                arguments.append(statestore)
            client_dns(*arguments)
            if action == "enroll":
                statestore.backup_state("installation", "complete", True)
        if action in ("uninstall", "rollback"):
            try:
                _uninstall(namespace, client_text, sysrestore, paths)
            except Exception as caught:  # noqa: BLE001 - install() swallows any (client.py)
                if action == "uninstall":
                    raise
                error = dict(_error(caught, tree), caught=True)
    except Exception as raised:  # noqa: BLE001 - what FreeIPA's code raised is the result
        error = _error(raised, tree)
    with open(units_path, "w") as stream:
        json.dump(states, stream)
    json.dump({"calls": calls, "error": error}, sys.stdout)
    return 0


def _uninstall(namespace, client_text, sysrestore, paths):
    """uninstall()'s steps on these files, in its order."""
    fstore = sysrestore.FileStore(paths.IPA_CLIENT_SYSRESTORE)
    statestore = sysrestore.StateFile(paths.IPA_CLIENT_SYSRESTORE)
    block, first = uninstall_dns_over_tls(client_text)
    if block:
        namespace = dict(namespace, fstore=fstore, statestore=statestore)
        code = "\n" * (first - 1) + "\n".join(line[4:] for line in block.splitlines())
        exec(compile(code, CLIENT_PY, "exec"), namespace)
    if fstore.has_files():
        fstore.restore_all_files()
    statestore.delete_state("installation", "complete")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
