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

"""An installation as Anaconda's Web UI drives it, on one Anaconda line's code, with no
user interface at all: the Web UI loads no addon screens (anaconda main
``pyanaconda/anaconda.py`` ``initialize_interface``: ``addon_paths = []`` for
``CockpitUserInterface``), so nothing of the addon's ``gui/`` or ``tui/`` runs, and the
addon's D-Bus module alone takes the kickstart's ``%addon org_edns_addon`` to the installer
and the installed system. ``run`` starts this module as root in private mount, network and
PID namespaces (``python -m lab.webui_install JOB RESULTS``), in an interpreter that
imports the checkout's ``pyanaconda`` (docs/testing.md); tests/test_webui_install.py judges
what it leaves. Nothing here asserts.

Inside, laid out as the installer image has it, the host untouched: ``/run``, ``/tmp`` and
``/mnt`` fresh tmpfs; ``/etc`` an overlay (its upper layer in the caller's directory: what
the installer phase wrote there) holding the line's os-release and Anaconda's
configuration as its RPM installs it (``data/anaconda.conf``, ``profile.d``, ``conf.d``);
``/usr`` an overlay holding the addon as ``make install`` lays it out below
``/usr/share/anaconda/addons`` and ``/usr/share/anaconda/dbus``, Anaconda's bus
configuration and the Boss's and the Security module's D-Bus services, and the checkout's
``scripts/start-module`` at ``/usr/libexec/anaconda/start-module``, which every service
file names; ``/mnt/sysroot`` (anaconda.conf's ``system_root``) the target, an overlay of
the job's target layer over the trixie tree. The installer's NetworkManager is the trixie
tree's (1.52), chrooted in an overlay of the tree, on this ``/run`` and this ``/etc``'s
``NetworkManager/conf.d``, with its system bus at ``/run/dbus``, in a network namespace
with loopback alone.

Then, in the order of the installer (anaconda main ``anaconda.py``):

1. ``AnacondaDBusLauncher().start()``: Anaconda's bus, the Boss activated by its service
   file, and the Boss's ``StartModulesWithTask``, which activates every module with a
   service file (``ListActivatableNames``): the Security module and ours, through
   ``start-module``, whose ``PYTHONPATH`` ends with ``/usr/share/anaconda/addons``;
2. the kickstart at ``/run/install/ks.cfg``, where the initramfs leaves it, read as
   ``startup_utils.parse_kickstart`` reads it (``kickstart.parseKickstart``: the Boss
   distributes it to the modules), then ``initialize_security``'s certificate import (the
   Security module writes the ``%certificate`` files into the installer); startup_utils
   itself is not imported, since it needs localization libraries (iso639, xkbregistry)
   this machine lacks;
3. the installation: the steps of the installer's queues (``installation``: anaconda main
   ``pyanaconda/modules/boss/installation.py`` ``_prepare_installation`` then
   ``_prepare_configuration``; rhel-10 builds the same queues in the UI's process,
   ``pyanaconda/installation.py``), each run with the line's own code where its modules
   are here (the Boss's task collection over D-Bus, the Security module's tasks, the
   kickstart written into the target, pyanaconda's ``DBusTask`` around each task), or
   skipped with the reason (``NOT_HERE``: storage, payload, scripts, localization,
   network);
4. the Web UI's own call, the Boss's ``InstallWithTasks`` (anaconda-webui
   ``src/apis/boss.js`` ``installWithTasks``), run to its end: on main the Boss builds
   those queues itself, and stops at its first call of a module that is not here (the
   Payloads module's ``ActivePayload``); rhel-10's Boss stops there too, making the task.

The results go to RESULTS as JSON; the installer's bus log (every module's output, as
``/tmp/dbus.log`` of the installer) and NetworkManager's are left in the job's directory.
"""

import json
import os
import shutil
import subprocess
import sys
import traceback

from lab.installer_sequence import INSTALLER_RESOLV_CONF, must, read_target
from lab.vmlab import networkmanager

# The caller's directory, seen inside (the host's /tmp is hidden by a tmpfs).
WORK = "/run/edns-work"
# anaconda.conf's [Installation Target] system_root.
SYSROOT = "/mnt/sysroot"
# Where the installer's initramfs leaves the kickstart (dracut/parse-kickstart; startup_utils
# find_kickstart reads it from there).
KICKSTART = "/run/install/ks.cfg"
ANACONDA_SHARE = "/usr/share/anaconda"
ADDONS = ANACONDA_SHARE + "/addons"
START_MODULE = "/usr/libexec/anaconda/start-module"
BOSS_SERVICE = "org.fedoraproject.Anaconda.Boss"
SECURITY_SERVICE = "org.fedoraproject.Anaconda.Modules.Security"
# The installer's own services here: the Boss, and the Security module (the %certificate
# sections); every other module of data/dbus is left out (``installation`` says why).
ANACONDA_SERVICES = (BOSS_SERVICE, SECURITY_SERVICE)
BUS_LOG = "/tmp/dbus.log"          # AnacondaDBusLauncher._start_dbus_session
NM_ROOT = "/tmp/edns-nm"
NM_CONF = "/run/edns-networkmanager.conf"
NM_SERVICE = "org.freedesktop.NetworkManager"
NM_PATH = "/org/freedesktop/NetworkManager"
WAIT_SECONDS = 120

# What an installer of each line says of itself: fedora-release's os-release of the
# Workstation edition (the Web UI's; Fedora 45 is rawhide while anaconda main is 45), and
# RHEL 10's. Anaconda's profile (set_from_detected_profile) and the addon's line
# (lines.detect_line) are both read from it.
OS_RELEASES = {
    "main": 'NAME="Fedora Linux"\nVERSION="45 (Workstation Edition Prerelease)"\nID=fedora\n'
            'VERSION_ID=45\nVARIANT="Workstation Edition"\nVARIANT_ID=workstation\n',
    "rhel-10": 'NAME="Red Hat Enterprise Linux"\nVERSION="10.0 (Coughlan)"\nID="rhel"\n'
               'ID_LIKE="centos fedora"\nVERSION_ID="10.0"\n',
}
# The payload the Web UI installs from a kickstart (anaconda-webui src/apis/payload_dnf.js:
# a kickstarted %packages on an automated install): DNF, whose type decides the
# Security module's pre-install certificate import.
PAYLOAD_TYPE = "DNF"


def write(path, text):
    """PATH holds TEXT (a link there replaced by a file)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.unlink(path)
    with open(path, "w") as stream:
        stream.write(text)


def copy(source, target):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copy(source, target)


def lay_out_installer(job):
    """The installer image's paths in this namespace (see the module's docstring). What is
    read from the host's /tmp (the job's directory, the installed addon, the target layer)
    is mounted or copied before a tmpfs hides it."""
    work = job["workdir"]
    must("mount", "-t", "tmpfs", "tmpfs", "/run")
    must("mount", "-t", "tmpfs", "tmpfs", "/mnt")
    os.makedirs(SYSROOT)
    for name in ("etc-upper", "etc-work", "target-upper", "target-work"):
        os.makedirs(os.path.join(work, name))
    must("mount", "-t", "overlay", "overlay", "-o", "lowerdir=%s:%s,upperdir=%s/target-upper,"
         "workdir=%s/target-work" % (job["target_layer"], job["trixie"], work, work), SYSROOT)
    must("mount", "-t", "overlay", "overlay", "-o", "lowerdir=/etc,upperdir=%s/etc-upper,"
         "workdir=%s/etc-work" % (work, work), "/etc")
    source = job["anaconda_src"]
    usr = "/run/edns-usr"
    shutil.copytree(os.path.join(job["installed"], "usr"), usr, symlinks=True)
    dbus = usr + ANACONDA_SHARE[len("/usr"):] + "/dbus"
    data_dbus = os.path.join(source, "data", "dbus")
    copy(os.path.join(data_dbus, "anaconda-bus.conf"), dbus + "/anaconda-bus.conf")
    for name in ANACONDA_SERVICES:
        copy(os.path.join(data_dbus, name + ".service"), "%s/services/%s.service" % (dbus, name))
        copy(os.path.join(data_dbus, name + ".conf"), "%s/confs/%s.conf" % (dbus, name))
    start_module = usr + START_MODULE[len("/usr"):]
    copy(os.path.join(source, "scripts", "start-module"), start_module)
    os.chmod(start_module, 0o755)
    must("mount", "-t", "overlay", "overlay", "-o", "lowerdir=%s:/usr" % usr, "/usr")
    os.makedirs(WORK)
    must("mount", "--bind", work, WORK)
    must("mount", "-t", "tmpfs", "tmpfs", "/tmp")

    write("/etc/os-release", job["os_release"])
    # anaconda.spec.in: data/anaconda.conf, profile.d and conf.d below /etc/anaconda.
    copy(os.path.join(source, "data", "anaconda.conf"), "/etc/anaconda/anaconda.conf")
    for part in ("profile.d", "conf.d"):
        shutil.copytree(os.path.join(source, "data", part), "/etc/anaconda/" + part,
                        ignore=shutil.ignore_patterns("Makefile*", "README"))
    write("/etc/resolv.conf", INSTALLER_RESOLV_CONF)
    os.makedirs("/etc/NetworkManager/conf.d", exist_ok=True)
    write(KICKSTART, job["kickstart"])


def start_networkmanager(job):
    """The installer's NetworkManager: the trixie tree's, on this /run and this /etc's
    NetworkManager/conf.d; its system bus at /run/dbus. Returns its Popen."""
    must("ip", "link", "set", "lo", "up")
    root = NM_ROOT + "/root"
    for name in ("upper", "work", "root"):
        os.makedirs(os.path.join(NM_ROOT, name))
    must("mount", "-t", "overlay", "overlay", "-o", "lowerdir=%s,upperdir=%s/upper,"
         "workdir=%s/work" % (job["trixie"], NM_ROOT, NM_ROOT), root)
    must("mount", "-t", "proc", "proc", root + "/proc")
    must("mount", "-t", "sysfs", "sysfs", root + "/sys")
    must("mount", "--rbind", "/dev", root + "/dev")
    must("mount", "--rbind", "/run", root + "/run")
    must("mount", "--bind", "/etc/NetworkManager/conf.d", root + "/etc/NetworkManager/conf.d")
    # The judge's main file: no polkit here, the keyfile plugin alone.
    write(NM_CONF, networkmanager.MAIN_CONF)
    os.makedirs("/run/dbus", exist_ok=True)
    must("chroot", root, "dbus-daemon", "--system", "--fork", "--nopidfile")
    log = open(os.path.join(WORK, "networkmanager.log"), "w")
    process = subprocess.Popen(["chroot", root, "NetworkManager", "--no-daemon", "--debug",
                                "--config=" + NM_CONF, "--config-dir=/etc/NetworkManager/conf.d"],
                               stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    log.close()
    return process


def networkmanager_global_dns():
    """The running NetworkManager's GlobalDnsConfiguration, as plain values."""
    from dasbus.connection import SystemMessageBus
    bus = SystemMessageBus()
    try:
        return _plain(bus.get_proxy(NM_SERVICE, NM_PATH).GlobalDnsConfiguration)
    finally:
        bus.disconnect()


def wait_for_networkmanager(process):
    """Its Version, once it answers on the system bus."""
    from dasbus.connection import SystemMessageBus
    from lab.bus import wait_for
    bus = SystemMessageBus()
    try:
        def answers():
            if process.poll() is not None:
                raise RuntimeError("NetworkManager exited %d (networkmanager.log)"
                                   % process.returncode)
            return bus.proxy.NameHasOwner(NM_SERVICE)
        wait_for(answers, timeout=WAIT_SECONDS, what="NetworkManager on the system bus")
        return str(bus.get_proxy(NM_SERVICE, NM_PATH).Version)
    finally:
        bus.disconnect()


def bus_environment(job):
    """The environment Anaconda's bus hands the modules it activates: this interpreter's
    ``python3`` first on PATH (start-module runs ``python3 -m MODULE``), PYTHONPATH without
    this repository (the addon comes from /usr/share/anaconda/addons, which start-module
    appends), and every import said on standard error (PYTHONVERBOSE: where each module
    came from)."""
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
    repo = os.path.realpath(job["repo"])
    os.environ["PYTHONPATH"] = os.pathsep.join(
        entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)
        if entry and os.path.realpath(entry) != repo)
    os.environ["PYTHONVERBOSE"] = "1"


class Installation:
    """The steps of an installation, each recorded as it runs."""

    def __init__(self, results, ksdata):
        self.results = results
        self.ksdata = ksdata
        self.steps = results["steps"]
        self.collected = results["collected"]

    def run(self, sequence):
        """Run SEQUENCE ([(queue, step, callable or the reason it is skipped)]) in order;
        the first failure ends it, as it ends the installer's queue."""
        for queue, step, action in sequence:
            record = {"queue": queue, "step": step}
            self.steps.append(record)
            if isinstance(action, str):
                record.update(outcome="skipped", detail=action)
                continue
            try:
                action()
            except Exception:  # noqa: BLE001 (every failure is a result the test reports)
                record.update(outcome="failed", detail=traceback.format_exc())
                return
            record["outcome"] = "ran"

    def dbus_tasks(self, service, paths):
        """Run the tasks at PATHS of SERVICE as the installer's queue does (DBusTask)."""
        from pyanaconda.core.dbus import DBus
        from pyanaconda.installation_tasks import DBusTask
        for path in paths:
            DBusTask(DBus.get_proxy(service, path)).start()

    def collected_tasks(self, method, *args):
        """A callable: the Boss's METHOD (CollectConfigureRuntimeTasks, ...) over D-Bus, what
        it collected recorded by task name, then each task run."""
        def collect_and_run():
            from pyanaconda.core.dbus import DBus
            from pyanaconda.installation_tasks import DBusTask
            from pyanaconda.modules.common.constants.services import BOSS
            found = getattr(BOSS.get_proxy(), method)(*args)
            tasks = [DBusTask(DBus.get_proxy(service, path)) for service, path in found]
            self.collected[method] = [[str(service), task.name]
                                      for (service, _path), task in zip(found, tasks)]
            for task in tasks:
                task.start()
        return collect_and_run

    def security(self, method, *args, certificates=False):
        """A callable: the Security module's METHOD (on its Certificates object with
        CERTIFICATES), its task or tasks run."""
        def call():
            from pyanaconda.modules.common.constants.objects import CERTIFICATES
            from pyanaconda.modules.common.constants.services import SECURITY
            proxy = SECURITY.get_proxy(CERTIFICATES) if certificates else SECURITY.get_proxy()
            found = getattr(proxy, method)(*args)
            self.dbus_tasks(SECURITY.service_name, found if isinstance(found, list) else [found])
        return call

    def store_kickstart(self):
        """The queue's "Store kickstarts": Boss.GenerateKickstart into the sysroot's
        /root/anaconda-ks.cfg, with this line's own function."""
        try:
            from pyanaconda.modules.boss.installation import _writeKS_via_boss
        except ImportError:      # rhel-10: the UI's process writes its kickstart data
            from pyanaconda.installation import _writeKS
            _writeKS(self.ksdata)
            return
        _writeKS_via_boss()

    def finish_installation(self):
        """The queue's last steps, "Copy installation logs" and "Set file contexts": on
        rhel-10 the UI's queue takes them from the Boss (FinishInstallationWithTasks); on
        main the Boss's own queue runs the same tasks itself, as here."""
        from pyanaconda.modules.common.constants.services import BOSS
        try:
            paths = BOSS.get_proxy().FinishInstallationWithTasks()
        except AttributeError:
            from pyanaconda.modules.boss.installation import CopyLogsTask, SetContextsTask
            CopyLogsTask(SYSROOT).run()
            SetContextsTask(SYSROOT).run()
            return
        self.dbus_tasks(BOSS.service_name, paths)

    def copy_resolv_conf(self):
        """The queue's "Copy resolv.conf to sysroot", where the Boss adds it."""
        from pyanaconda import network
        network.copy_resolv_conf_to_root(SYSROOT)


# Why a step of the installer's queues cannot run here.
NOT_HERE = {
    "storage": "the Storage module partitions, formats and mounts real disks (blivet); the "
               "sysroot here is an overlay made ready for it",
    "payload": "the Payloads module installs the packages from the kickstart's "
               "repositories; the target layer over the trixie tree stands in for what it "
               "installs",
    "runtime": "the Runtime module runs the kickstart's scripts; the kickstart has none",
    "localization": "the Localization module is not here; it is no part of encrypted DNS",
    "network": "the Network module is not here: network.write_configuration asks the "
               "Storage module first (FCoE NICs); the Network module's own tasks (the "
               "nm-initrd-generator files and dnsconfd, into the target) are composed with "
               "ours in tests/test_installer_sequence.py",
    "firewall": "the Network module is not here; the firewall (firewall-offline-cmd in the "
                "target) is no part of encrypted DNS",
}


def installation(steps, kernel_versions, copies_resolv_conf):
    """The installer's queues in their order, the Boss's _prepare_installation then
    _prepare_configuration (anaconda main pyanaconda/modules/boss/installation.py): each
    step's queue as the Boss names it, its name, and what runs it or why it cannot."""
    skip = NOT_HERE
    return [
        ("Installation environment setup", "the modules' ConfigureWithTasks",
         steps.collected_tasks("CollectConfigureRuntimeTasks")),
        ("Installation environment setup", "Localization's "
         "PopulateMissingKeyboardConfigurationWithTask", skip["localization"]),
        ("Early storage configuration", "Storage's InstallWithTasks", skip["storage"]),
        ("Pre-install scripts", "Runtime's RunScriptsWithTask(%pre-install)", skip["runtime"]),
        ("Pre install tasks", "Copy resolv.conf to sysroot", steps.copy_resolv_conf
         if copies_resolv_conf else "the Boss adds it only where the installer provides the "
         "resolver's configuration (conf.system.provides_resolver_config) and has no "
         "systemd-resolved: not this one"),
        ("Pre install tasks", "Security's DiscoverRealmWithTask",
         steps.security("DiscoverRealmWithTask")),
        ("Pre install tasks", "Security's PreconfigureFIPSWithTask(%s)" % PAYLOAD_TYPE,
         steps.security("PreconfigureFIPSWithTask", PAYLOAD_TYPE)),
        ("Pre install tasks", "Certificates' PreInstallWithTask(%s)" % PAYLOAD_TYPE,
         steps.security("PreInstallWithTask", PAYLOAD_TYPE, certificates=True)),
        ("Payload installation", "Payloads' InstallWithTasks", skip["payload"]),
        ("Bootloader installation", "Configure bootloader: the modules' "
         "ConfigureBootloaderWithTasks", steps.collected_tasks(
             "CollectConfigureBootloaderTasks", kernel_versions)),
        ("Bootloader installation", "Install bootloader", skip["storage"]),
        ("Post-installation setup tasks", "Payloads' PostInstallWithTasks", skip["payload"]),
        ("Certificates import", "Certificates' InstallWithTask",
         steps.security("InstallWithTask", certificates=True)),
        ("Installed system configuration", "Security's InstallWithTasks",
         steps.security("InstallWithTasks")),
        ("Installed system configuration", "Network's Firewall InstallWithTask",
         skip["firewall"]),
        ("Network configuration", "network.write_configuration", skip["network"]),
        ("Anaconda addon configuration", "the modules' InstallWithTasks",
         steps.collected_tasks("CollectInstallSystemTasks")),
        ("Initramfs generation", "Storage's GenerateInitramfsWithTasks", skip["storage"]),
        ("Configuration queue", "Security's ConfigureFIPSWithTask",
         steps.security("ConfigureFIPSWithTask")),
        ("Configuration queue", "Security's JoinRealmWithTask",
         steps.security("JoinRealmWithTask")),
        ("Configuration queue", "Storage's FixZIPLBootloaderWithTask", skip["storage"]),
        ("Write configs and kickstarts", "Store kickstarts", steps.store_kickstart),
        ("Post installation scripts", "Runtime's RunScriptsWithTask(%post)", skip["runtime"]),
        ("Configuration queue", "Copy installation logs, Set file contexts",
         steps.finish_installation),
    ]


def webui_install_call(results):
    """What the Web UI's InstallWithTasks gives here: its tasks run to their end."""
    from pyanaconda.modules.common.constants.services import BOSS
    from pyanaconda.modules.common.task import sync_run_task
    boss = BOSS.get_proxy()
    outcome = results["webui_install"] = {}
    try:
        paths = boss.InstallWithTasks()
        outcome["tasks"] = [str(path) for path in paths]
        for path in paths:
            sync_run_task(BOSS.get_proxy(path))
        outcome["error"] = None
    except Exception as error:  # noqa: BLE001 (the test reads what stopped it)
        outcome["error"] = "%s: %s" % (type(error).__name__, error)
    try:
        outcome["status"] = boss.InstallationStatus
    except Exception as error:  # noqa: BLE001 (rhel-10's Boss has no such property)
        outcome["status"] = None
        outcome["status_error"] = str(error)


def install(job, results):
    """Steps 1 to 4 of the docstring; RESULTS filled as they run."""
    from pyanaconda.core import util
    from pyanaconda.core.configuration.anaconda import conf
    from pyanaconda.core.service import is_service_installed
    from pyanaconda.core.startup.dbus_launcher import AnacondaDBusLauncher
    from pyanaconda.flags import flags
    from pyanaconda import kickstart
    from pyanaconda.modules.common.constants.services import BOSS

    # anaconda.py: the profile of this os-release, then /etc/anaconda/conf.d.
    conf.set_from_detected_profile(util.get_os_release_value("ID"),
                                   util.get_os_release_value("VARIANT_ID"))
    conf.set_from_files()
    results["configuration"] = list(conf.get_sources())
    bus_environment(job)
    os.chdir("/")
    launcher = AnacondaDBusLauncher()
    launcher.start()
    try:
        boss = BOSS.get_proxy()
        results["modules"] = sorted(str(name) for name in boss.GetModules())
        # startup_utils.find_kickstart: a kickstart at /run/install/ks.cfg. (startup_utils
        # itself imports the localization's libraries, iso639 and xkbregistry, which are
        # not here: its two steps are called as it calls them.)
        flags.automatedInstall = True
        flags.eject = False
        # startup_utils.parse_kickstart: the Boss distributes it, then Anaconda reads it.
        ksdata = kickstart.AnacondaKSHandler()
        kickstart.parseKickstart(ksdata, KICKSTART)
        results["kickstart_read"] = True
        steps = Installation(results, ksdata)
        # startup_utils.initialize_security: the %certificate files into the installer.
        steps.run([("Start-up", "Certificates' ImportWithTask",
                    steps.security("ImportWithTask", certificates=True))])
        from org_edns_addon.dbus.identifiers import EDNS
        from pyanaconda.core.dbus import DBus
        module = DBus.get_proxy(EDNS.service_name, EDNS.object_path)
        results["validate"] = _plain(module.Validate())
        kernel_versions = sorted(os.listdir(os.path.join(SYSROOT, "lib/modules")))
        copies_resolv_conf = conf.system.provides_resolver_config and \
            not is_service_installed("systemd-resolved.service")
        steps.run(installation(steps, kernel_versions, copies_resolv_conf))
        results["global_dns_after"] = networkmanager_global_dns()
        # What the modules said during the installation ends here: the Web UI's call below
        # makes the Boss log the failure of its own queue.
        results["bus_log_installation"] = os.path.getsize(BUS_LOG)
        webui_install_call(results)
    finally:
        launcher.stop()


def _plain(structure):
    """A D-Bus structure ({name: variant}) as plain values, nested ones too."""
    return {key: value.unpack() for key, value in structure.items()}


def main(job_path, results_path):
    with open(job_path) as stream:
        job = json.load(stream)
    results = {"steps": [], "collected": {}}
    daemon = None
    try:
        lay_out_installer(job)
        # As in the installer: the configuration is /etc/anaconda's, and the modules read
        # what the launcher writes to /run/anaconda/anaconda.conf.
        os.environ.pop("ANACONDA_CONFIG_TMP", None)
        daemon = start_networkmanager(job)
        results["networkmanager_version"] = wait_for_networkmanager(daemon)
        results["global_dns_before"] = networkmanager_global_dns()
        install(job, results)
        results["target"] = read_target(SYSROOT, job["paths"])
        results["modules_imported_here"] = sorted(name for name in sys.modules
                                                  if name.startswith("org_edns_addon."))
    except Exception:  # noqa: BLE001 (every failure is a result the test reports)
        results["error"] = traceback.format_exc()
    finally:
        if os.path.exists(BUS_LOG):
            shutil.copy(BUS_LOG, os.path.join(WORK, "dbus.log"))
        if daemon is not None:
            daemon.terminate()
            daemon.wait()
        with open(results_path, "w") as stream:
            json.dump(results, stream)


def job(workdir, anaconda_src, installed, trixie, target_layer, kickstart, os_release, paths):
    """One installation: WORKDIR the caller's directory (it gets the installer's /etc
    upper layer ``etc-upper``, the target's ``target-upper``, ``dbus.log``,
    ``networkmanager.log`` and the results); ANACONDA_SRC the checkout; INSTALLED ``make
    install``'s DESTDIR; TRIXIE the tree; TARGET_LAYER the layer over it that makes it this
    line's target (``installer_sequence.target_base``); KICKSTART and OS_RELEASE texts;
    PATHS whose presence in the target the judge wants."""
    return {"workdir": str(workdir), "anaconda_src": str(anaconda_src),
            "installed": str(installed), "trixie": str(trixie),
            "target_layer": str(target_layer), "kickstart": kickstart,
            "os_release": os_release, "paths": list(paths),
            "repo": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}


def run(job, timeout=600):
    """Run JOB with this interpreter (which must import the checkout's pyanaconda) in
    private mount, network and PID namespaces, whose end stops every process started in
    them; returns (CompletedProcess, results or None)."""
    workdir = job["workdir"]
    job_path = os.path.join(workdir, "job.json")
    results_path = os.path.join(workdir, "results.json")
    with open(job_path, "w") as stream:
        json.dump(job, stream)
    result = subprocess.run(
        ["unshare", "--mount", "--net", "--pid", "--fork", "--mount-proc", "--propagation",
         "private", sys.executable, "-m", "lab.webui_install", job_path,
         os.path.join(WORK, "results.json")],
        capture_output=True, text=True, timeout=timeout, cwd=job["repo"])
    results = None
    if os.path.exists(results_path):
        with open(results_path) as stream:
            results = json.load(stream)
    return result, results


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
