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
import subprocess
import sys
from contextlib import contextmanager

import pytest

from lab import installer_sequence
from lab.kickstarts import certificate_section, edns_section
from lab.bus import REPO, python_env, start_service, stop_service, wait_for
from lab.dotlab import HOST_NETWORK
from org_edns_addon.dbus.identifiers import EDNS

SECURITY_SERVICE = "org.fedoraproject.Anaconda.Modules.Security"

EDNS_SECTION = edns_section("dns+tls://192.0.2.53#dot.corp.example",
                            "dns+tls://[2001:db8::53]:853#dot.corp.example",
                            "dns+tls://198.51.100.60#dot.lab.example  domain=lab.example",
                            options="--ca=dns-ca.pem")
# What the boss reads besides our sections: commands, and a %packages between them.
BOSS_COMMANDS = "lang en_US.UTF-8\ntimezone Europe/Prague --utc\nrootpw --lock\n"
PACKAGES = "%packages\n@core\n%end\n"
# What the spokes say when the installer phase fails here: NetworkManager does not run.
NOT_SWITCHED = ("The installer could not switch to encrypted DNS: its configuration is "
                "written, but these steps failed: reload NetworkManager. Until it does, the "
                "installer resolves names as it did before, possibly without encryption; the "
                "installed system is still configured for encrypted DNS when it is installed.")


def require_pyanaconda():
    """Skip the test, saying why, unless Anaconda's module side can be imported."""
    try:
        # The first thing the module imports: without it the module cannot start.
        importlib.import_module("pyanaconda.modules.common.base")
    except ImportError as error:   # pragma: no cover - depends on the machine
        pytest.skip("pyanaconda is not importable (%s); put an anaconda checkout on "
                    "PYTHONPATH, see docs/testing.md" % error)


def skip_module_without(*names):
    """Skip the whole test module, saying why, unless pyanaconda's modules NAMES import
    (called at its top, after its imports)."""
    try:
        for name in names:
            importlib.import_module(name)
    except (ImportError, ValueError) as error:   # pragma: no cover - depends on the machine
        pytest.skip("%s not importable (%s); put an anaconda checkout on PYTHONPATH, see "
                    "docs/testing.md" % (", ".join(names), error), allow_module_level=True)


def anaconda_line():
    """The installer line of the checkout in ANACONDA_SRC (main, rhel-10, rhel-9, ...), as the
    checkout itself names it: ``GIT_BRANCH ?= LINE`` in its ``branch-config.mk`` (every
    branch of rhinstaller/anaconda has one; its Makefile.am reads it). ANACONDA_LINE names
    the line of a checkout without one; a checkout that says otherwise is an error, not a
    guess (a rhel-10 tree taken for Fedora's passes the wrong tests)."""
    said = os.environ.get("ANACONDA_LINE") or None
    line = installer_sequence.checkout_line(os.environ.get("ANACONDA_SRC"))
    config = os.path.join(os.environ.get("ANACONDA_SRC", ""), "branch-config.mk")
    if said and line and said != line:
        pytest.fail("ANACONDA_LINE is %s but the checkout %s is %s (%s); unset ANACONDA_LINE"
                    % (said, os.environ.get("ANACONDA_SRC"), line, config))
    return line or said


def is_enterprise_line(line):
    """Whether LINE installs RHEL/CentOS Stream (rhel-9, rhel-10) rather than Fedora."""
    return line is not None and line.startswith("rhel-")


def kickstart(ca_pem, edns=EDNS_SECTION):
    """An installer's kickstart: CA_PEM as %certificate dns-ca.pem, %packages, then EDNS (the
    encrypted DNS section's text, or none)."""
    return BOSS_COMMANDS + certificate_section(ca_pem) + PACKAGES + edns


@pytest.fixture(scope="module")
def installed_addon(tmp_path_factory):
    """The addon as `make install` lays it out: its DESTDIR, which holds
    ``usr/share/anaconda/addons`` and ``usr/share/anaconda/dbus``."""
    root = tmp_path_factory.mktemp("installed")
    result = subprocess.run(["make", "-s", "install", "DESTDIR=%s" % root,
                             "PYTHON=%s" % sys.executable], cwd=REPO, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return root


@pytest.fixture(scope="module")
def target_base(tmp_path_factory):
    """The layer over the trixie tree that makes it a target of this checkout's line
    (``lab.installer_sequence.target_base``)."""
    return installer_sequence.target_base(
        tmp_path_factory.mktemp("target-base") / "layer",
        is_enterprise_line(anaconda_line()), os.environ.get("DNSCONFD_ROOT"))


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
    """Start Anaconda modules (`python -m MODULE`) on the private bus, as start-module does
    (in NETWORK, a ``lab.dotlab`` network, if given: the one of the servers it checks)."""
    started = []
    conf_path, _ = anaconda_conf
    env = dict(python_env(), DBUS_STARTER_ADDRESS=bus_address,
               ANACONDA_CONFIG_TMP=str(conf_path))

    def start(module, service_name, hide=(), network=HOST_NETWORK):
        log_path = tmp_path / ("%s.log" % module)
        argv = [sys.executable, "-m", module]
        if hide:
            # As in an installer image without these packages (docs/installation.md).
            argv = [sys.executable, "-c", "import runpy, sys\n"
                    "sys.modules.update(dict.fromkeys(%r))\n"
                    "runpy.run_module(%r, run_name='__main__', alter_sys=True)"
                    % (list(hide), module)]
        started.append((start_service(network.command(argv), bus, service_name, env=env,
                                      log_path=log_path), service_name))
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


# The module's process: /etc becomes an overlay whose upper layer is the test's
# directory ("$0"), then the module itself runs ("$2 -m org_edns_addon.service").
NAMESPACED_MODULE = ('mount -t overlay overlay -o lowerdir=/etc,upperdir="$0",workdir="$1" '
                     '/etc && exec "$2" -m org_edns_addon.service')


@contextmanager
def installer_modules(bus, bus_address, conf_path, tmp_path, network=HOST_NETWORK):
    """Anaconda's Security module and ours on the bus at BUS_ADDRESS, ours with /etc as an
    overlay and in NETWORK (a ``lab.dotlab`` network: the one of the servers it checks),
    while in the block: (our module's proxy, the upper layer of its /etc)."""
    env = dict(python_env(), DBUS_STARTER_ADDRESS=bus_address,
               ANACONDA_CONFIG_TMP=str(conf_path))
    upper, work = tmp_path / "etc-upper", tmp_path / "etc-work"
    upper.mkdir()
    work.mkdir()
    processes = []
    try:
        processes.append(start_service([sys.executable, "-m", "pyanaconda.modules.security"],
                                       bus, SECURITY_SERVICE, env=env,
                                       log_path=tmp_path / "security.log"))
        processes.append(start_service(network.command(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c", NAMESPACED_MODULE,
             str(upper), str(work), sys.executable]), bus, EDNS.service_name, env=env,
            log_path=tmp_path / "edns.log"))
        yield bus.get_proxy(EDNS.service_name, EDNS.object_path), upper
    finally:
        for process in processes:
            stop_service(process)
        for name in (SECURITY_SERVICE, EDNS.service_name):
            wait_for(lambda name=name: not bus.proxy.NameHasOwner(name), what="%s to go" % name)


@pytest.fixture
def installer(bus, bus_address, anaconda_conf, tmp_path, monkeypatch):
    """Anaconda's Security module and ours on the private bus; the spoke's bus points there.

    Yields (our module's proxy, the upper layer of its /etc, the kickstart loader).
    """
    with installer_modules(bus, bus_address, anaconda_conf[0], tmp_path) as (module, upper):
        monkeypatch.setenv("DBUS_ANACONDA_SESSION_BUS_ADDRESS", bus_address)

        def load(text):
            path = tmp_path / "ks.cfg"
            path.write_text(text)
            report = boss_read(bus, path, (SECURITY_SERVICE, EDNS.service_name))
            assert report.is_valid(), [str(m) for m in report.get_messages()]
        yield module, upper, load
