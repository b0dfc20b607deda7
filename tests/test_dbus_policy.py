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

"""Who may use the module on the installer's bus: the policy file we ship, on a real bus.

Anaconda's bus (rhinstaller/anaconda data/dbus/anaconda-bus.conf, on main,
rhel-10 and rhel-9) denies every name and every method call by default and
lets each module's own ``.conf`` punch its holes; every module's holes are the
same two (``data/dbus/org.fedoraproject.Anaconda.Modules.Security.conf``):
root may own the name, anyone connected may call it. Ours must allow no more.
"""

import os
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from lab.bus import client_bus, kill_pid, python_env, start_service, stop_service, \
    template_service_argv

REPO = Path(__file__).resolve().parent.parent
POLICY = REPO / "data" / "org.fedoraproject.Anaconda.Addons.Edns.conf"
NAME = "org.fedoraproject.Anaconda.Addons.Edns"
NOBODY = 65534

# The default policy of anaconda-bus.conf, restated (its <policy context="default">),
# with the modules' .conf files included after it as there.
BUS_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>unix:tmpdir=%(tmpdir)s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <includedir>%(confs)s</includedir>
</busconfig>
"""

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to call as another user")


@pytest.fixture
def installer_bus(tmp_path):
    """A dbus-daemon with Anaconda's default policy and our .conf; yields its address."""
    confs = tmp_path / "confs"
    confs.mkdir()
    shutil.copy(POLICY, confs)
    # As on the installer's bus (unix:tmpdir=/tmp), every local user reaches the socket;
    # pytest's own directories are root's alone.
    socket_dir = tempfile.mkdtemp(prefix="edns-policy-bus.", dir="/tmp")
    os.chmod(socket_dir, 0o755)
    config = tmp_path / "bus.conf"
    config.write_text(BUS_CONF % {"tmpdir": socket_dir, "confs": confs})
    output = subprocess.run(["dbus-daemon", "--config-file=%s" % config, "--fork",
                             "--print-address=1", "--print-pid=1"], capture_output=True,
                            text=True, check=True, timeout=20).stdout.split("\n")
    try:
        yield output[0].strip()
    finally:
        kill_pid(int(output[1]))
        shutil.rmtree(socket_dir, ignore_errors=True)


def dbus_send(address, destination, path, method, *args, user=None):
    """dbus-send a method call as USER (a uid; None: root); the CompletedProcess."""
    prefix = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"] \
        if user is not None else []
    return subprocess.run(prefix + ["dbus-send", "--bus=%s" % address, "--print-reply",
                                    "--dest=%s" % destination, path, method, *args],
                          capture_output=True, text=True, timeout=20)


def request_name(address, user=None):
    return dbus_send(address, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                     "org.freedesktop.DBus.RequestName", "string:%s" % NAME, "uint32:0",
                     user=user)


def test_root_may_own_the_module_name(installer_bus):
    result = request_name(installer_bus)
    assert result.returncode == 0, result.stderr
    assert "uint32 1" in result.stdout      # DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER


def test_another_user_may_not_own_it(installer_bus):
    result = request_name(installer_bus, user=NOBODY)
    assert result.returncode != 0
    assert "org.freedesktop.DBus.Error.AccessDenied" in result.stderr


def test_another_user_may_call_it_as_every_anaconda_module_allows(installer_bus):
    service = start_service(template_service_argv(installer_bus), client_bus(installer_bus),
                            NAME, env=python_env())
    try:
        answer = dbus_send(installer_bus, NAME, "/org/fedoraproject/Anaconda/Addons/Edns",
                           "org.freedesktop.DBus.Properties.Get",
                           "string:%s" % NAME, "string:Configuration", user=NOBODY)
    finally:
        stop_service(service)
    assert answer.returncode == 0, answer.stderr
    assert re.search(r'string "resolve-mode"\s+variant\s+string "exclusive"', answer.stdout), \
        answer.stdout


def _rules(path, name):
    """The policy rules of PATH as (policy attributes, rule tag, rule attributes), with
    NAME written as NAME."""
    rules = []
    for policy in ElementTree.parse(path).getroot().iter("policy"):
        for rule in policy:
            attributes = {key: value.replace(name, "NAME") for key, value in rule.attrib.items()}
            rules.append((tuple(sorted(policy.attrib.items())), rule.tag,
                          tuple(sorted(attributes.items()))))
    return sorted(rules)


def test_the_policy_has_exactly_the_holes_of_anacondas_own_modules():
    """Compared with the Security module's file of an anaconda checkout (ANACONDA_SRC),
    and without one with that file's rules as main, rhel-10 and rhel-9 have them."""
    source = os.environ.get("ANACONDA_SRC")
    security = "org.fedoraproject.Anaconda.Modules.Security"
    if source:
        theirs = _rules(Path(source) / "data/dbus" / ("%s.conf" % security), security)
    else:
        print("ANACONDA_SRC is not set: comparing with the Security module's rules as "
              "restated here")
        root = (("user", "root"),)
        default = (("context", "default"),)
        theirs = sorted([(root, "allow", (("own", "NAME"),)),
                         (root, "allow", (("send_destination", "NAME"),)),
                         (default, "deny", (("own", "NAME"),)),
                         (default, "allow", (("send_destination", "NAME"),))])
    assert _rules(POLICY, NAME) == theirs
