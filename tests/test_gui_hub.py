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

"""The graphical spoke in Anaconda's real GTK hub, against the real modules on a private bus.

The addon is installed as `make install` lays it out, and Anaconda's ``SummaryHub``
finds its spoke there as it finds any addon's (``lab/anaconda_hub.py`` runs the hub
in its own process on a private Xvfb display, ``lab/hub_process.py``, with AnacondaWidgets
built from the same Anaconda checkout and the suite's PYTHONPATH after them). Keys go
through the X server. Each state is photographed
(``import -window root``) into the test's directory, and into EDNS_SCREENSHOT_DIR
when it is set. Our module runs with /etc as an overlay (``installer``), so what it
stages when the spoke is left lands in a scratch directory.

Needs pyanaconda and python-meh on PYTHONPATH, ANACONDA_SRC, ANACONDA_WIDGETS (the prefix
AnacondaWidgets of this Anaconda line was installed to, docs/testing.md), Xvfb, xdotool and
imagemagick; skipped otherwise.
"""

import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from contextlib import ExitStack

import pytest

from dasbus.typing import unwrap_variant

from lab.bus import (TIMEOUT, client_bus, kill_pid, python_env, start_service, stop_service,
                     wait_for)
from lab.hub_process import HubProcess
from lab.dotlab import CLOSED_LAB_HOST, TLS_NAME, lab_host
from lab.kickstarts import edns_section
from org_edns_addon.dbus.structures import ConfigurationData, DotServerData
from org_edns_addon.dbus.identifiers import EDNS
from tests.anaconda_fixtures import (NOT_SWITCHED, SECURITY_SERVICE, anaconda_line,
                                     installer_modules, kickstart)
from tests.dot_fixtures import times_masked
from tests.conftest import REPO, run_cli

pytestmark = pytest.mark.anaconda

try:
    import pyanaconda  # noqa: F401
except ImportError as error:   # pragma: no cover - depends on the machine
    pytest.skip("pyanaconda is not importable (%s); put an anaconda checkout on PYTHONPATH, "
                "see docs/testing.md" % error, allow_module_level=True)

_SOURCE = os.environ.get("ANACONDA_SRC")
if not _SOURCE or not os.path.isdir(os.path.join(_SOURCE, "data", "dbus")):
    pytest.skip("ANACONDA_SRC names no anaconda checkout (%r): export it, the checkout on "
                "PYTHONPATH, see docs/testing.md" % _SOURCE,
                allow_module_level=True)

WIDGETS = os.environ.get("ANACONDA_WIDGETS")
if not WIDGETS or not glob.glob(os.path.join(WIDGETS, "lib", "girepository-1.0",
                                             "AnacondaWidgets-*.typelib")):
    pytest.skip("ANACONDA_WIDGETS names no AnacondaWidgets build (%r); build the checkout's "
                "widgets/ and name its prefix, see docs/testing.md" % WIDGETS,
                allow_module_level=True)
for _tool in ("Xvfb", "xdotool", "import"):
    if shutil.which(_tool) is None:
        pytest.skip("not installed: %s (Debian xvfb, xdotool, imagemagick)" % _tool,
                    allow_module_level=True)

def _is_python_meh(spec):
    """Whether SPEC is python-meh's ``meh`` (its ``meh/ui/gui.py``), not PyPI's unrelated one."""
    return spec is not None and any(os.path.exists(os.path.join(location, "ui", "gui.py"))
                                    for location in spec.submodule_search_locations or ())


# pyanaconda's GUI imports meh.ui.gui: without python-meh the hub dies at its first import.
if not _is_python_meh(importlib.util.find_spec("meh")):
    pytest.skip("python-meh is not on PYTHONPATH (a checkout of rhinstaller/python-meh, not "
                "PyPI's unrelated meh); see docs/testing.md", allow_module_level=True)


class Hub(HubProcess):
    """The hub's process on its own display (``lab.hub_process``), each state photographed
    into the test's directory and EDNS_SCREENSHOT_DIR."""

    def __init__(self, addons_dir, environment, shots):
        self._shots = shots
        anaconda = os.environ["ANACONDA_SRC"]
        overrides = glob.glob(os.path.join(WIDGETS, "lib", "python3*", "site-packages"))
        # Anaconda sets LANG before its UI starts (DEFAULT_LANG unless the kickstart or the
        # boot options say otherwise) and MainWindow reads it: where the suite runs without
        # LANG, the hub gets Anaconda's default, as in the installer.
        from pyanaconda.core.constants import DEFAULT_LANG
        env = dict(os.environ, **environment)
        env.setdefault("LANG", DEFAULT_LANG)
        # The file chooser's settings in memory and its recently used files in the test's
        # directory, never the machine's dconf or the user's own list.
        env.update(GSETTINGS_BACKEND="memory", XDG_DATA_HOME=str(shots / "xdg-data"))
        # The installed addon first: the spoke is loaded from there, as in an installer.
        # Then what the suite runs on (PYTHONPATH: python-meh, and a line's own pykickstart
        # where it has one).
        path = [str(addons_dir), anaconda, *overrides, str(REPO),
                *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
        env.update({
            "PYTHONPATH": os.pathsep.join(entry for entry in path if entry),
            "GI_TYPELIB_PATH": os.path.join(WIDGETS, "lib", "girepository-1.0"),
            "LD_LIBRARY_PATH": os.path.join(WIDGETS, "lib"),
            "UIPATH": os.path.join(anaconda, "pyanaconda", "ui", "gui") + "/",
            "ANACONDA_DATA": os.path.join(anaconda, "data"),
        })
        super().__init__([sys.executable, "-m", "lab.anaconda_hub", str(addons_dir)], env,
                         shots / "hub.log", cwd=str(shots))
        # The pointer in a corner: Xvfb starts it mid-screen, where a spoke's tooltip would
        # cover what the screenshots show.
        subprocess.run(["xdotool", "mousemove", "0", "0"], check=True, timeout=30,
                       env=self.display.environment())

    def shot(self, name):
        path = self.screenshot(self._shots / (name + ".png"))
        keep = os.environ.get("EDNS_SCREENSHOT_DIR")
        if keep:
            line = anaconda_line() or "anaconda"
            os.makedirs(keep, exist_ok=True)
            shutil.copy(path, os.path.join(keep, "%s-%s.png" % (line, name)))
        return path


@pytest.fixture(scope="module")
def addons_dir(installed_addon):
    """The addon as `make install` lays it out: its addons directory."""
    return installed_addon / "usr" / "share" / "anaconda" / "addons"


BOSS = "org.fedoraproject.Anaconda.Boss"


@pytest.fixture
def installer(addons_dir, anaconda_conf, tmp_path, lab_network):
    """Anaconda's own bus (the checkout's data/dbus/anaconda-bus.conf, beside the services
    and policies of the Boss, the Security module and ours as make install laid it out),
    the two modules, and Anaconda's Boss, which has started them (they run already, as
    start-module would have run them) and reads the kickstarts.

    Yields (our module's proxy, the upper layer of its /etc, the kickstart loader, the
    bus's address, the Anaconda configuration)."""
    anaconda_dbus = os.path.join(os.environ["ANACONDA_SRC"], "data", "dbus")
    installed_dbus = addons_dir.parent / "dbus"
    bus_dir = tmp_path / "anaconda-dbus"
    for part in ("services", "confs"):
        shutil.copytree(installed_dbus / part, bus_dir / part)
        for name in (BOSS, SECURITY_SERVICE):
            shutil.copy(os.path.join(anaconda_dbus, name + (".service" if part == "services"
                                                            else ".conf")), bus_dir / part)
    shutil.copy(os.path.join(anaconda_dbus, "anaconda-bus.conf"), bus_dir)
    # The Boss starts the modules it finds activatable: only these two.
    conf_path = tmp_path / "anaconda-boss.conf"
    conf_path.write_text(re.sub(r"activatable_modules =\n(    .*\n)+",
                                "activatable_modules =\n    %s\n    %s\n" % (
                                    SECURITY_SERVICE, EDNS.service_name),
                                anaconda_conf[0].read_text()))
    started = subprocess.run(["dbus-daemon", "--config-file=%s" % (bus_dir / "anaconda-bus.conf"),
                              "--print-address=1", "--print-pid=1", "--fork"],
                             capture_output=True, text=True, check=True, timeout=TIMEOUT)
    address, pid = started.stdout.split("\n")[:2]
    bus = None
    try:
        bus = client_bus(address)
        # Our module checks the lab's servers: it runs in their network.
        with installer_modules(bus, address, conf_path, tmp_path,
                               lab_network) as (module, upper):
            env = dict(python_env(), DBUS_STARTER_ADDRESS=address,
                       ANACONDA_CONFIG_TMP=str(conf_path))
            boss_process = start_service([sys.executable, "-m", "pyanaconda.modules.boss"],
                                         bus, BOSS, env=env, log_path=tmp_path / "boss.log")
            try:
                boss = bus.get_proxy(BOSS, "/org/fedoraproject/Anaconda/Boss")
                run_task(bus, boss.StartModulesWithTask())
                assert sorted(boss.GetModules()) == sorted([EDNS.service_name,
                                                            SECURITY_SERVICE])

                def load(text):
                    path = tmp_path / "ks.cfg"
                    path.write_text(text)
                    report = boss.ReadKickstartFile(str(path))
                    assert not unwrap_variant(report["error-messages"]), report
                yield module, upper, load, address, conf_path
            finally:
                stop_service(boss_process)
    finally:
        try:
            if bus is not None:
                bus.disconnect()
        finally:
            kill_pid(int(pid))


def run_task(bus, path):
    """Run the Anaconda task at PATH to its end, as sync_run_task does, from here."""
    task = bus.get_proxy(BOSS, path)
    stopped = []
    task.Stopped.connect(lambda: stopped.append(True))
    task.Start()
    wait_for(lambda: stopped, what="the task %s to stop" % path)
    task.Finish()


@pytest.fixture
def start_hub(installer, addons_dir, tmp_path):
    """Factory: the hub over the modules of ``installer``, in ENVIRONMENT's language."""
    _, _, _, address, conf_path = installer
    # Every hub closed (its process and its Xvfb stopped), even when closing one fails; a
    # hub that fails to start has stopped both itself.
    with ExitStack() as hubs:
        def start(**environment):
            environment.update(ANACONDA_CONFIG_TMP=str(conf_path),
                               DBUS_ANACONDA_SESSION_BUS_ADDRESS=address)
            hub = Hub(addons_dir, environment, tmp_path)
            hubs.callback(hub.close)
            return hub
        yield start


def our_selector(state):
    [selector] = [s for s in state["selectors"] if s["class"] == "EncryptedDnsSpoke"]
    return selector


def configuration(module):
    data = ConfigurationData.from_structure(module.Configuration)
    return ([server.to_server().uri() for server in
             DotServerData.from_structure_list(data.servers)], data.search_domains,
            data.ca_names)


def test_the_spoke_shows_edits_and_writes_back_a_kickstart_in_the_real_hub(
        installer, start_hub, dot_upstream, dot_pki, write_ks):
    module, etc_upper, load, _, _ = installer
    # Nothing listens there: on DoT's own port, as every installer line reads a server.
    refused = "dns+tls://%s#%s" % (lab_host(CLOSED_LAB_HOST), TLS_NAME)
    load(kickstart(dot_pki.ca.pem, edns=edns_section(
        dot_upstream.server_line(), refused + "  domain=lab.example",
        options="--ca=dns-ca.pem --search=corp.example")))
    hub = start_hub()

    # The hub: the spoke in the System category, with the module's status.
    state = hub.send("hub")
    selector = our_selector(state)
    assert (selector["title"], selector["category"], selector["incomplete"]) == (
        "_Encrypted DNS", "SYSTEM", False)
    assert selector["status"] == "2 DoT servers, exclusive"
    assert state["may_continue"]
    hub.shot("1-hub")

    # The spoke shows the kickstart's configuration, in its own words.
    assert hub.send("focus") == {"active": True}
    page = hub.send("enter")
    assert page["visible"] == "spoke" and page["window_name"] == "ENCRYPTED DNS"
    assert [row[0] for row in page["servers"]] == [dot_upstream.server_line(), refused]
    assert page["servers"][1][2] == "only lab.example"
    assert page["search"] == "corp.example"
    assert page["certificates"][0][:2] == [True, "dns-ca.pem (the kickstart)"]
    assert page["trust"].startswith("dns-ca.pem alone authenticates the DNS servers, as the "
                                    "bundle ")
    # The lab's servers are on its hosts, as servers on a network are.
    # What the rules by line say reaches the spoke: the module here (this machine is no
    # installer line) judges for every line, and --search replaces on some.
    assert page["problems"] == (
        "Warning: The search domains corp.example: on Fedora 44, Anaconda main "
        "(NetworkManager 1.56 and later) these become the only search domains, replacing "
        "those of the connections (DHCP's, those set for a connection), while on EL9, EL10, "
        "Fedora 42, Fedora 43 they are added to them; list every search domain the system "
        "needs among the search domains.")
    assert page["warning"] is None
    hub.shot("2-spoke")

    # Edited with the keyboard: a server typed wrong is named under its entry, as a
    # sentence in the page's words.
    page = hub.keys("alt+n")
    assert page["focus"] == "ednsNewServerEntry"
    page = hub.type("dns+tls://198.51.100.8")
    assert page["new_server_error"] == (
        "The DoT server dns+tls://198.51.100.8 has no TLS name, so it cannot be "
        "authenticated; append its TLS name after '#' as in its certificate, like "
        "dns+tls://198.51.100.8#dot.example.")
    hub.shot("3-inline-error")
    hub.type("#%s" % TLS_NAME)
    page = hub.keys("Return")
    assert page["new_server_error"] is None
    assert [row[0] for row in page["servers"]][-1] == "dns+tls://198.51.100.8#%s" % TLS_NAME
    hub.keys("alt+s", "End")
    page = hub.type(",lab.example")
    assert (page["search"], page["search_error"]) == ("corp.example,lab.example", None)
    hub.shot("4-edited")

    # The check runs in the module while the window answers (Alt+C: the page scrolls to
    # the button, which has the focus), and says what `edns-addon check` says.
    hub.keys("alt+c")
    page = hub.send("wait-check", "1")
    assert [row[:2] for row in page["check"]] == [
        ["emblem-ok-symbolic", dot_upstream.server_line()],
        ["dialog-error-symbolic", refused],
        ["dialog-error-symbolic", "dns+tls://198.51.100.8#%s" % TLS_NAME]]
    assert page["check"][1][2].startswith("connection refused: ")
    assert page["check_status"] == "1 of 3 servers passed the check."
    hub.shot("5-check")
    checked = kickstart(dot_pki.ca.pem, edns=edns_section(
        *[row[1] for row in page["check"]], options="--ca=dns-ca.pem"))
    cli = run_cli("check", write_ks(checked), "--timeout", "20",
                  prefix=dot_upstream.network.command([]))
    assert [times_masked("%s: %s" % (row[1], row[2])) for row in page["check"]] == \
        [times_masked(line) for line in cli.stdout.splitlines()], cli.stderr

    # Done (Alt+D, the spoke window's own button): written to the module and staged into
    # the installer. NetworkManager does not run here: its reload fails, and the hub
    # flags the spoke as Anaconda flags one to complete.
    hub.keys("alt+d")
    state = hub.send("wait-ready")
    assert state["visible"] == "HubWindow"
    assert configuration(module) == (
        [dot_upstream.server_line(), refused, "dns+tls://198.51.100.8#%s" % TLS_NAME],
        ["corp.example", "lab.example"], ["dns-ca.pem"])
    keyfile = (etc_upper / "NetworkManager/conf.d/60-edns-global-dns.conf").read_text()
    assert "searches=corp.example,lab.example" in keyfile
    assert_waits_for_a_decision(state)
    hub.shot("6-hub-apply-failed")




def assert_waits_for_a_decision(state):
    """The hub of STATE shows the failed apply as Anaconda shows a spoke to complete: the
    warning icon on the spoke, the hub's warning, Begin Installation insensitive."""
    selector = our_selector(state)
    assert selector["status"] == "Error applying encrypted DNS to the installer"
    assert selector["incomplete"]
    assert not state["may_continue"]
    assert state["warning"] == ("Please complete items marked with this icon before "
                                "continuing to the next step.")


def test_a_failed_apply_waits_for_the_person_to_decide(installer, start_hub, test_ca):
    module, etc_upper, load, _, _ = installer
    load(kickstart(test_ca.pem, edns=edns_section("dns+tls://192.0.2.53#dot.example")))
    hub = start_hub()
    hub.send("focus")
    hub.send("enter")
    hub.keys("alt+s")
    hub.type("corp.example")
    hub.keys("alt+d")
    state = hub.send("wait-ready")
    assert_waits_for_a_decision(state)
    assert (etc_upper / "NetworkManager/conf.d/60-edns-global-dns.conf").exists()

    # In the spoke: what failed, what it means, what to do; the paths and the exit codes
    # are in the module's log, not here.
    page = hub.send("enter")
    assert page["info_bar"] == NOT_SWITCHED + (
        " Press Done twice to go on without encrypted DNS in the installer, or change the "
        "configuration and press Done to try again.")
    assert "nmcli" not in page["info_bar"] and "/etc/" not in page["info_bar"]
    hub.shot("6b-spoke-apply-failed")

    # Changed and left: applied again (and here it fails again).
    hub.keys("alt+s", "End")
    hub.type(",lab.example")
    hub.keys("alt+d")
    state = hub.send("wait-ready")
    assert_waits_for_a_decision(state)
    assert configuration(module)[1] == ["corp.example", "lab.example"]

    # Done once: the spoke stays and asks again; Done twice: the person's decision.
    hub.send("enter")
    hub.keys("alt+d")
    page = hub.send("wait-done-once")
    assert page["visible"] == "spoke"
    assert page["info_bar"] == NOT_SWITCHED + (
        " Press Done again to go on without encrypted DNS in the installer, or change the "
        "configuration and press Done to try again.")
    hub.shot("6c-spoke-done-once")
    hub.keys("alt+d")
    state = hub.send("wait-ready")
    assert state["visible"] == "HubWindow"
    selector = our_selector(state)
    assert selector["status"] == "1 DoT server, exclusive; installed system only"
    assert not selector["incomplete"] and state["may_continue"] and state["warning"] is None
    hub.shot("6d-hub-decided")


def test_an_invalid_configuration_stops_the_hub(installer, start_hub, test_ca):
    module, _, load, _, _ = installer
    load(kickstart(test_ca.pem, edns=edns_section(
        "dns+tls://192.0.2.53#dot.example", "dns+tls://192.0.2.60#dot.lab.example "
        "domain=lab.example")))
    hub = start_hub()
    hub.send("focus")
    hub.send("enter")
    hub.send("select", "0")
    page = hub.keys("alt+v")                 # Remove server
    page = hub.send("wait-servers", "1")
    assert page["warning"] == ("Every server has routed domains; add at least one server "
                               "without routed domains to serve all other names.")
    assert page["info_bar"] == page["warning"]
    hub.shot("7-spoke-invalid")
    hub.keys("alt+d")
    state = hub.send("wait-ready")
    selector = our_selector(state)
    assert selector["incomplete"] and selector["status"] == "1 error to fix"
    assert not state["may_continue"]
    assert configuration(module)[0] == ["dns+tls://192.0.2.60#dot.lab.example"]
    hub.shot("8-hub-invalid")


def test_the_mode_s_warning_and_the_file_chooser_on_the_installer_s_screen(
        installer, start_hub, test_ca, intermediate_alone, tmp_path):
    installer[2](kickstart(test_ca.pem, edns=edns_section("dns+tls://192.0.2.53#dot.example")))
    hub = start_hub()
    hub.send("focus")
    page = hub.send("enter")
    assert page["mode_warning"] is None

    # prefer, chosen with the keyboard: what plaintext it lets out, right under it, in view.
    hub.keys("alt+m", "Down")
    page = hub.send("page")
    assert page["mode"] == "prefer"
    assert page["mode_warning"].startswith("The resolve mode “prefer” lets plaintext DNS "
                                           "leave the host")
    assert page["mode_warning_in_view"]
    hub.shot("11-mode-warning")

    # Read a PEM file… (Alt+P): the chooser fits the screen; Escape gives the keyboard back
    # to the button, so the next Return opens it again and never presses Done.
    hub.keys("alt+p")
    dialog = hub.send("wait-dialog")["dialog"]
    (width, height), (x, y) = dialog["size"], dialog["position"]
    screen_width, screen_height = page["screen"]
    assert 0 <= x and x + width <= screen_width and 0 <= y and y + height <= screen_height
    page = hub.focus(dialog["xid"])
    assert page["dialog"]["active"]
    hub.shot("12-file-chooser")
    page = hub.keys("Escape")
    assert page["dialog"] is None and page["focus"] == "ednsReadPemButton"
    hub.keys("Return")
    page = hub.send("wait-dialog")
    assert page["visible"] == "spoke"
    hub.focus(page["dialog"]["xid"])
    page = hub.keys("Escape")
    assert page["focus"] == "ednsReadPemButton"

    # A company's intermediate CA read alone (chosen in the chooser, then Read): the page
    # says in chain words why it authenticates nothing, never "No problems".
    issuing = tmp_path / "issuing-ca.pem"
    issuing.write_text(intermediate_alone.pem)
    hub.keys("Return")
    hub.send("wait-dialog")
    hub.send("choose", str(issuing))
    page = hub.send("wait-certificates", "2")    # the kickstart's, and this one
    assert page["dialog"] is None
    assert page["certificates"][1][:2] == [True, "issuing-ca.pem (added here)"]
    assert page["trust"] == intermediate_alone.trust.replace("dns-ca.pem", "issuing-ca.pem")
    assert intermediate_alone.error in page["problems"].splitlines()
    assert page["info_bar"] == intermediate_alone.error[len("Error: "):]
    hub.shot("13-intermediate-alone")


def test_a_german_catalogue_shows_in_the_real_hub_and_spoke(installer, start_hub, test_ca,
                                                           german_locale):
    load = installer[2]
    load(kickstart(test_ca.pem, edns=edns_section("dns+tls://192.0.2.53#dot.example")))
    _, language = german_locale
    hub = start_hub(**language)
    selector = our_selector(hub.send("hub"))
    assert selector["title"] == "_Verschlüsseltes DNS"
    assert selector["status"] == "1 DoT-Server, exclusive"
    hub.shot("9-hub-german")
    hub.send("focus")
    page = hub.send("enter")
    assert page["window_name"] == "VERSCHLÜSSELTES DNS"
    hub.shot("10-spoke-german")


def test_the_spoke_window_is_what_this_line_gives_and_its_help_copes(installer, start_hub,
                                                                    test_ca):
    # rhel-9's AnacondaWidgets gives every spoke window a Help! button, which shows the
    # screen's help by get_screen_id(); main and rhel-10 have none.
    installer[2](kickstart(test_ca.pem, edns=edns_section("dns+tls://192.0.2.53#dot.example")))
    hub = start_hub()
    hub.send("focus")
    hub.send("enter")
    pressed = hub.send("help")
    line = anaconda_line()
    assert pressed["help_button"] == (line == "rhel-9"), (line, pressed)
    if pressed["help_button"]:
        # No help is installed here: Anaconda says so and the spoke stays.
        assert "Requested a graphical help for the 'encrypted-dns-configuration' screen." in \
            pressed["logged"]
        assert "There is no help for the 'encrypted-dns-configuration' screen." in \
            pressed["logged"]
        assert pressed["visible"] == "spoke"
    assert hub.send("page")["visible"] == "spoke"
