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

"""Fixtures and helpers of the tests with the real pyanaconda: Anaconda's configuration
with a scratch system root, modules started as start-module does on the private bus, and
what Anaconda's boss does with a kickstart file. pyanaconda itself is imported only when
a helper runs, so this module loads (and its fixtures are registered) without it.
"""

import importlib
import os
import sys

import pytest

from lab.kickstarts import certificate_section, edns_section
from lab.bus import python_env, start_service, stop_service, wait_for
from org_edns_addon.dbus.identifiers import EDNS

SECURITY_SERVICE = "org.fedoraproject.Anaconda.Modules.Security"

EDNS_SECTION = edns_section("dns+tls://192.0.2.53#dot.corp.example",
                            "dns+tls://[2001:db8::53]:8853#dot.corp.example",
                            "dns+tls://198.51.100.60#dot.lab.example  domain=lab.example",
                            options="--ca=dns-ca.pem --search=corp.example")
# What the boss reads besides our sections: commands, and a %packages between them.
BOSS_COMMANDS = "lang en_US.UTF-8\ntimezone Europe/Prague --utc\nrootpw --lock\n"
PACKAGES = "%packages\n@core\n%end\n"


def require_pyanaconda():
    """Skip the test, saying why, unless Anaconda's module side can be imported."""
    try:
        # The first thing the module imports: without it the module cannot start.
        importlib.import_module("pyanaconda.modules.common.base")
    except ImportError as error:   # pragma: no cover - depends on the machine
        pytest.skip("pyanaconda is not importable (%s); put an anaconda checkout on "
                    "PYTHONPATH, see shared/TESTING.md" % error)


def kickstart(ca_pem, edns=EDNS_SECTION):
    """An installer's kickstart: CA_PEM as %certificate dns-ca.pem, %packages, then EDNS (the
    encrypted DNS section's text, or none)."""
    return BOSS_COMMANDS + certificate_section(ca_pem) + PACKAGES + edns


@pytest.fixture
def anaconda_conf(tmp_path):
    """A copy of the checkout's anaconda.conf whose system root is a scratch directory."""
    sysroot = tmp_path / "sysroot"
    sysroot.mkdir()
    with open(os.environ["ANACONDA_CONFIG_TMP"]) as stream:
        text = stream.read()
    path = tmp_path / "anaconda.conf"
    path.write_text(text.replace("system_root = /mnt/sysroot", "system_root = %s" % sysroot))
    return path, sysroot


@pytest.fixture
def start_module(bus, bus_address, anaconda_conf, tmp_path):
    """Start Anaconda modules (`python -m MODULE`) on the private bus, as start-module does."""
    started = []
    conf_path, _ = anaconda_conf
    env = dict(python_env(), DBUS_STARTER_ADDRESS=bus_address,
               ANACONDA_CONFIG_TMP=str(conf_path))

    def start(module, service_name, hide=()):
        log_path = tmp_path / ("%s.log" % module)
        argv = [sys.executable, "-m", module]
        if hide:
            # As in an installer image without these packages (README: the installer image).
            argv = [sys.executable, "-c", "import runpy, sys\n"
                    "sys.modules.update(dict.fromkeys(%r))\n"
                    "runpy.run_module(%r, run_name='__main__', alter_sys=True)"
                    % (list(hide), module)]
        started.append((start_service(argv, bus, service_name, env=env, log_path=log_path),
                        service_name))
        return bus.get_proxy(service_name, "/" + service_name.replace(".", "/"))

    yield start
    for process, _ in started:
        stop_service(process)
    for _, name in started:
        wait_for(lambda name=name: not bus.proxy.NameHasOwner(name), what="%s to go" % name)


def boss_kickstart_manager(bus, service_names):
    """Anaconda's boss's kickstart manager over the modules of SERVICE_NAMES."""
    from pyanaconda.modules.boss.kickstart_manager.kickstart_manager import KickstartManager
    from pyanaconda.modules.boss.module_manager.module_observer import ModuleObserver

    observers = [ModuleObserver(bus, name) for name in service_names]
    for observer in observers:
        observer.connect_once_available()
        wait_for(lambda o=observer: o.is_service_available, what="the module observer")
    manager = KickstartManager()
    manager.on_module_observers_changed(observers)
    return manager


def boss_read(bus, path, service_names=(EDNS.service_name,)):
    """What Anaconda's boss does with a kickstart file: split, distribute to the modules
    of SERVICE_NAMES, merge reports."""
    return boss_kickstart_manager(bus, service_names).read_kickstart_file(str(path))


@pytest.fixture
def anaconda_bus(bus_address, monkeypatch):
    """The private bus as Anaconda's bus of a module created in the test process: the module
    asks it whether the Security module is there (it is not)."""
    monkeypatch.setenv("DBUS_STARTER_ADDRESS", bus_address)
