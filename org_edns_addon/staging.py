"""From a validated configuration to files and actions below a root, and applying them.

``build_plan`` is pure (it only reads the root to see which dracut modules the
target has): it turns an ``EdnsConfig`` and its certificates into the files
and actions of one phase. ``apply_plan`` writes a plan below a root: every
path is resolved under the root component by component (a symlink that leads
outside is refused), the whole plan is checked before the first write, each
write is atomic, and a failure half-way restores what was there before.
"""

import configparser
import enum
import errno
import io
import logging
import os
import posixpath
import secrets
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence, Tuple

from org_edns_addon import constants as c
from org_edns_addon.certificates import build_bundle
from org_edns_addon.fileio import signals_deferred, write_in_directory
from org_edns_addon.model import Backend, EdnsConfig

log = logging.getLogger(__name__)

GENERATED_HEADER = "# Written by org_edns_addon from the kickstart; changes are overwritten."


class Phase(str, enum.Enum):
    INSTALLER = c.PHASE_INSTALLER   # root "/" in the installer (also the overlay content)
    TARGET = c.PHASE_TARGET         # the installed system's root (conf.target.system_root)


class StagingError(Exception):
    """Staging cannot go on; the message is a sentence for users."""


@dataclass(frozen=True)
class StagedCertificate:
    """One ``%certificate``, decoupled from pykickstart objects."""
    filename: str
    directory: Optional[str]
    type: Optional[str]
    pem: str


@dataclass(frozen=True)
class StagingInput:
    config: EdnsConfig
    certificates: Tuple[StagedCertificate, ...]
    ca_bundle: Optional[bytes]


def staging_input_from_kickstart(parsed):
    """The staging input of a parsed kickstart; ValueError if it has errors or no section."""
    if parsed.errors:
        raise ValueError("%s has errors; fix them first" % parsed.filename)
    config = parsed.config
    if config is None:
        raise ValueError("%s has no %s section; nothing to apply"
                         % (parsed.filename, c.ADDON_SECTION_OPEN))
    certificates = tuple(StagedCertificate(cert.filename, cert.data.dir, cert.data.type,
                                           cert.data.cert)
                         for cert in parsed.certificates)
    bundle = build_bundle(parsed.ca_bundle_certificates()) if config.ca_names else None
    return StagingInput(config, certificates, bundle)


@dataclass(frozen=True)
class PlannedFile:
    path: str
    content: bytes
    mode: int


class ActionKind(str, enum.Enum):
    ENABLE_UNIT = "enable-unit"
    DISABLE_UNIT = "disable-unit"
    RELOAD_NETWORKMANAGER = "reload-networkmanager"
    RESTART_UNIT = "restart-unit"
    UPDATE_CA_TRUST = "update-ca-trust"


_ACTION_TEXT = {
    ActionKind.ENABLE_UNIT: "enable %s",
    ActionKind.DISABLE_UNIT: "disable %s",
    ActionKind.RESTART_UNIT: "restart %s",
    ActionKind.RELOAD_NETWORKMANAGER: "reload NetworkManager",
    ActionKind.UPDATE_CA_TRUST: " ".join(c.UPDATE_CA_TRUST_COMMAND),
}


@dataclass(frozen=True)
class Action:
    """Something to run after the files are written."""
    kind: str
    argument: Optional[str] = None

    def __post_init__(self):
        ActionKind(self.kind)   # ValueError for a kind nobody can run

    def describe(self):
        text = _ACTION_TEXT[ActionKind(self.kind)]
        return text % self.argument if "%s" in text else text


@dataclass(frozen=True)
class Plan:
    phase: Phase
    files: Tuple[PlannedFile, ...]
    actions: Tuple[Action, ...]


# ---------------------------------------------------------------------------
# Building a plan


def certificate_path(cert):
    """Where CERT goes: its ``--type`` place, else ``--dir`` (as Anaconda places it)."""
    name = cert.filename
    if not name or "/" in name or "\0" in name or name in (".", ".."):
        raise StagingError("the certificate file name %r must be a plain file name, without "
                           "'/'; use --filename=NAME and --dir=DIRECTORY" % name)
    if cert.type is not None and cert.type not in c.CERT_TYPE_DIRS:
        raise StagingError("the certificate %s has the unknown --type=%s; the only type is %s"
                           % (name, cert.type, c.CERT_TYPE_ANCHOR))
    directory = c.CERT_TYPE_DIRS.get(cert.type) or cert.directory
    if not directory or not posixpath.isabs(directory):
        raise StagingError("the certificate %s needs an absolute --dir (like /etc/pki/dns/) "
                           "or --type=%s, not %r" % (name, c.CERT_TYPE_ANCHOR, directory))
    parts = [part for part in directory.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise StagingError("--dir=%s of the certificate %s must not contain '..'; give the "
                           "directory itself, like /etc/pki/dns/" % (directory, name))
    return "/" + "/".join(parts + [name])


def certificate_content(cert):
    """The bytes of a certificate file: the section body and one newline, as Anaconda writes it."""
    return (cert.pem.rstrip("\n") + "\n").encode("ascii")


def _keyfile(sections):
    """An INI keyfile of SECTIONS [(name, [(key, value)])], as NetworkManager reads it."""
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",),
                                       comment_prefixes=("#",), empty_lines_in_values=False)
    parser.optionxform = str
    for name, items in sections:
        parser.add_section(name)
        for key, value in items:
            parser.set(name, key, value)
    stream = io.StringIO()
    stream.write(GENERATED_HEADER + "\n")
    parser.write(stream, space_around_delimiters=False)
    return (stream.getvalue().rstrip("\n") + "\n").encode("utf-8")


def _nm_list(values):
    # NetworkManager's configuration lists are ','-separated (NM_CONFIG_KEYFILE_LIST_SEPARATOR).
    return ",".join(values)


def _has_ca_bundle(data):
    return data.ca_bundle is not None


def trust_bundle_path(data):
    """The CA bundle DNS servers are authenticated against: ours with --ca, else the system's."""
    return c.DOT_CA_BUNDLE_PATH if _has_ca_bundle(data) else c.SYSTEM_CA_BUNDLE_PATH


def nm_keyfile(data):
    """The NetworkManager conf.d file of the configuration."""
    config = data.config
    if config.backend == Backend.UNBOUND:
        # The standalone Unbound forwarder owns resolv.conf; NM must leave it alone.
        return _keyfile([("main", [("dns", "none")])])
    global_dns = [("resolve-mode", config.resolve_mode.value)]
    if _has_ca_bundle(data):
        global_dns.append(("certification-authority", c.DOT_CA_BUNDLE_PATH))
    if config.searches:
        global_dns.append(("searches", _nm_list(config.searches)))
    sections = [("main", [("dns", Backend.DNSCONFD.value)]),
                ("global-dns", global_dns),
                ("global-dns-domain-*", [("servers", _nm_list(
                    s.uri() for s in config.default_servers))])]
    for domain, servers in config.routed_domains().items():
        sections.append(("global-dns-domain-%s" % domain,
                         [("servers", _nm_list(s.uri() for s in servers))]))
    return _keyfile(sections)


def _unbound_zone(name, servers):
    lines = ["forward-zone:",
             '    name: "%s"' % name,
             "    forward-tls-upstream: yes",
             # Never fall back to resolving by itself, in plaintext.
             "    forward-first: no"]
    lines += ["    forward-addr: %s" % s.unbound_forward_addr() for s in servers]
    return lines


def unbound_conf(data):
    """The Unbound conf.d file of a standalone DoT forwarder on 127.0.0.55."""
    config = data.config
    plaintext = [s.uri() for s in config.servers if not s.tls]
    if plaintext:
        raise StagingError("the unbound backend forwards only over TLS, but %s is plaintext; "
                           "remove it or use --backend=dnsconfd" % ", ".join(plaintext))
    lines = [GENERATED_HEADER,
             "server:",
             "    interface: %s" % c.UNBOUND_LISTEN_ADDRESS,
             "    tls-cert-bundle: %s" % trust_bundle_path(data),
             # No DNSSEC validation, as dnsconfd (its default dnssec_enabled: no): Fedora's
             # unbound.conf validates, and a private zone under a signed public parent
             # would then be bogus (SERVFAIL) with this backend and resolve with dnsconfd.
             # The DoT servers are authenticated by the kickstart's CA instead.
             '    module-config: "iterator"',
             ""]
    lines += _unbound_zone(".", config.default_servers)
    for domain, servers in config.routed_domains().items():
        lines.append("")
        lines += _unbound_zone(domain + ".", servers)
    return ("\n".join(lines) + "\n").encode("ascii")


def resolv_conf(config):
    """resolv.conf pointing at the local Unbound forwarder."""
    lines = [GENERATED_HEADER, "nameserver %s" % c.UNBOUND_LISTEN_ADDRESS]
    if config.searches:
        lines.append("search %s" % " ".join(config.searches))
    return ("\n".join(lines) + "\n").encode("ascii")


def dns_config_paths(data):
    """The DoT files the initramfs needs (in addition to the CA bundle)."""
    if data.config.backend == Backend.UNBOUND:
        return [c.NM_KEYFILE_PATH, c.UNBOUND_CONF_PATH, c.RESOLV_CONF_PATH]
    return [c.NM_KEYFILE_PATH]


def dracut_modules_present(root, names):
    """Those of NAMES for which ROOT has a dracut module directory (``NNname``)."""
    directory = os.path.join(root, c.DRACUT_MODULES_DIR.lstrip("/"))
    try:
        present = {entry.lstrip("0123456789") for entry in os.listdir(directory)}
    except OSError:
        return []
    return [name for name in names if name in present]


def dracut_conf(data, root):
    """The target's dracut.conf.d drop-in: our files inside, modules only if they exist."""
    items = [trust_bundle_path(data)] + dns_config_paths(data)
    wanted = [c.DRACUT_MODULE_OPENSSL]
    if data.config.backend == Backend.DNSCONFD:
        wanted.insert(0, c.DRACUT_MODULE_DNSCONFD)
    else:
        # Without Unbound itself, its configuration and resolv.conf inside resolve nothing.
        wanted.insert(0, c.DRACUT_MODULE_UNBOUND)
    # Not fixable here: dracut-ng 106 and 107 create the initramfs's users inside their
    # 60systemd-sysusers module, before 70dnsconfd and 70unbound install their sysusers.d
    # files, so dnsconfd.service fails with 217/USER (and Unbound cannot switch to its
    # user). A drop-in can neither reorder modules nor replace /etc/passwd (install_items
    # never overwrite). dracut-ng 108 creates the users after all modules.
    # dracut aborts on an unknown module, so only name the ones the target has.
    modules = dracut_modules_present(root, wanted)
    lines = [GENERATED_HEADER, 'install_items+=" %s "' % " ".join(items)]
    if modules:
        lines.append('add_dracutmodules+=" %s "' % " ".join(modules))
    return ("\n".join(lines) + "\n").encode("ascii")


def _resolver_unit(config):
    return c.UNBOUND_UNIT if config.backend == Backend.UNBOUND else c.DNSCONFD_UNIT


def build_plan(data, phase, root):
    """The files and actions of PHASE for DATA below ROOT.

    Every certificate of DATA is written; the DoT bundle is ``data.ca_bundle``
    alone, so a caller whose certificates another writer handles (Anaconda's
    Security module) leaves them out of ``data.certificates`` and keeps the bundle.
    """
    phase = Phase(phase)
    config = data.config
    files = []
    anchors = False
    for cert in data.certificates:
        files.append(PlannedFile(certificate_path(cert), certificate_content(cert),
                                 c.FILE_MODE))
        anchors = anchors or cert.type == c.CERT_TYPE_ANCHOR
    if _has_ca_bundle(data):
        files.append(PlannedFile(c.DOT_CA_BUNDLE_PATH, data.ca_bundle, c.FILE_MODE))
    files.append(PlannedFile(c.NM_KEYFILE_PATH, nm_keyfile(data), c.FILE_MODE))
    if config.backend == Backend.UNBOUND:
        files.append(PlannedFile(c.UNBOUND_CONF_PATH, unbound_conf(data), c.FILE_MODE))
        files.append(PlannedFile(c.RESOLV_CONF_PATH, resolv_conf(config), c.FILE_MODE))
    if phase == Phase.TARGET:
        files.append(PlannedFile(c.DRACUT_CONF_PATH, dracut_conf(data, root), c.FILE_MODE))
    _refuse_duplicate_paths(files)

    actions = []
    if anchors:
        actions.append(Action(ActionKind.UPDATE_CA_TRUST.value))
    resolver = _resolver_unit(config)
    if phase == Phase.TARGET:
        actions.append(Action(ActionKind.ENABLE_UNIT.value, resolver))
        # With nss-resolve, programs would ask systemd-resolved directly, and it
        # would forward in plaintext to the DHCP servers: it must not run.
        actions.append(Action(ActionKind.DISABLE_UNIT.value, c.RESOLVED_UNIT))
    else:
        actions.append(Action(ActionKind.RESTART_UNIT.value, resolver))
        actions.append(Action(ActionKind.RELOAD_NETWORKMANAGER.value))
    return Plan(phase, tuple(files), tuple(actions))


def _refuse_duplicate_paths(files):
    seen = set()
    for planned in files:
        if planned.path in seen:
            raise StagingError("two files would be written to %s; give each %%certificate its "
                               "own --filename, not the name of a file this addon writes"
                               % planned.path)
        seen.add(planned.path)


def boot_options(config):
    """Kernel options for NetworkManager's initrd generator (only servers for all names)."""
    options = ["%s=%s" % (c.BOOT_OPTION_DNS, server.uri()) for server in config.default_servers]
    options.append("%s=%s" % (c.BOOT_OPTION_RESOLVE_MODE, config.resolve_mode.value))
    options.append("%s=%s" % (c.BOOT_OPTION_BACKEND, c.INITRD_DNS_BACKEND))
    return options


def initramfs_input(data):
    """DATA as an initramfs runs it: NM's initrd has only dnsconfd to speak DoT."""
    return replace(data, config=replace(data.config, backend=Backend.DNSCONFD))


# ---------------------------------------------------------------------------
# Applying a plan


@dataclass
class ApplyReport:
    written: List[str] = field(default_factory=list)
    unchanged: List[str] = field(default_factory=list)
    actions_done: List[str] = field(default_factory=list)
    actions_skipped: List[Tuple[str, str]] = field(default_factory=list)

    def __str__(self):
        lines = ["wrote %s" % path for path in self.written]
        lines += ["unchanged %s" % path for path in self.unchanged]
        lines += ["ran: %s" % action for action in self.actions_done]
        lines += ["skipped: %s (%s)" % skipped for skipped in self.actions_skipped]
        return "\n".join(lines)


class CommandError(StagingError):
    """A command run for an action failed."""


class CommandRunner:
    """The one place commands run; tests may pass a recorder."""

    def run(self, argv: Sequence[str]) -> None:
        log.info("running %s", " ".join(argv))
        try:
            result = subprocess.run(list(argv), stdin=subprocess.DEVNULL,
                                    capture_output=True, text=True, check=False)
        except OSError as error:
            raise CommandError("cannot run %s: %s" % (argv[0], error.strerror or error)) \
                from None
        if result.returncode != 0:
            output = (result.stderr or result.stdout).strip().splitlines()
            raise CommandError("%s failed with exit code %d%s" % (
                " ".join(argv), result.returncode, ": " + output[-1] if output else ""))


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_SYMLINKS = 40


def path_components(path):
    """The components of PATH below a root; refuses relative or unnormalized paths."""
    parts = path.split("/")[1:] if path.startswith("/") else None
    if not parts or "\0" in path or any(p in ("", ".", "..") for p in parts):
        raise StagingError("%r is not a plain absolute path (no '..', '.' or '//'); refusing "
                           "to write it" % path)
    return parts


@dataclass
class _Place:
    """Where a path's last component lives: its directory (an open fd) and name."""
    dir_fd: int
    name: str
    missing: Tuple[str, ...] = ()       # parent directories still to create


class ConfinedRoot:
    """A directory we write below; every path is resolved under it, component by component.

    A symlink on the way is followed only while it stays below the root (an
    absolute target is taken as a path of this machine); one that leads
    outside is refused. Directory fds are cached for the life of the object.
    """

    def __init__(self, root):
        if not isinstance(root, str) or not os.path.isabs(root):
            raise StagingError("the root %r must be an absolute path" % (root,))
        self.path = root
        self.real = os.path.realpath(root)
        try:
            self.fd = os.open(self.real, _DIR_FLAGS)
        except OSError as error:
            raise StagingError("cannot open the root %s: %s; give an existing directory"
                               % (root, error.strerror)) from None
        self._fds = [self.fd]
        self._parents: Dict[str, int] = {}
        # Parents not there yet; forgotten whenever a directory is made.
        self._missing: Dict[str, Tuple[int, Tuple[str, ...]]] = {}
        self.created: List[Tuple[int, str]] = []   # (parent fd, name) of directories made

    def close(self):
        for fd in self._fds:
            os.close(fd)
        self._fds = []
        self._parents.clear()
        self._missing.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def shown(self, path):
        """PATH as a user sees it: below the root given."""
        return os.path.join(self.path, path.lstrip("/"))

    def _keep(self, fd):
        self._fds.append(fd)
        return fd

    def _inside(self, target):
        """The components of the absolute symlink TARGET below the root, or None."""
        target = posixpath.normpath(target)
        if self.real == "/":
            return [p for p in target.split("/") if p]
        if target == self.real:
            return []
        if target.startswith(self.real + "/"):
            return target[len(self.real) + 1:].split("/")
        return None

    def place(self, path, create=False):
        """Resolve PATH's parent under the root; create missing directories if CREATE."""
        parts = path_components(path)
        parent = "/".join(parts[:-1])
        if parent not in self._parents:
            if not create and parent in self._missing:
                fd, missing = self._missing[parent]
                return _Place(fd, parts[-1], missing)
            fd, missing = self._walk(path, parts[:-1], create)
            if missing:
                self._missing[parent] = (fd, missing)
                return _Place(fd, parts[-1], missing)
            self._parents[parent] = fd
        return _Place(self._parents[parent], parts[-1])

    def _walk(self, path, pending, create):
        """(fd of the deepest existing directory on the way, the names still missing)."""
        pending = list(pending)
        stack = [os.dup(self.fd)]
        names = []
        links = 0
        try:
            while pending:
                name = pending.pop(0)
                if name in ("", "."):
                    continue
                if name == "..":
                    if not names:
                        raise StagingError("%s leads outside %s; refusing to write it"
                                           % (self.shown(path), self.path))
                    names.pop()
                    os.close(stack.pop())
                    continue
                try:
                    fd = os.open(name, _DIR_FLAGS, dir_fd=stack[-1])
                except FileNotFoundError:
                    if not create:
                        return self._keep(stack.pop()), tuple([name] + pending)
                    fd = self._mkdir(stack[-1], name)
                except OSError as error:
                    if error.errno not in (errno.ELOOP, errno.ENOTDIR):
                        raise
                    links += 1
                    pending = self._follow(path, stack, names, name, links) + pending
                    continue
                stack.append(fd)
                names.append(name)
            return self._keep(stack.pop()), ()
        finally:
            for fd in stack:
                os.close(fd)

    def _follow(self, path, stack, names, name, links):
        """The components a symlink NAME stands for; refuses one leading outside the root."""
        where = self.shown("/" + "/".join(names + [name]))
        info = os.stat(name, dir_fd=stack[-1], follow_symlinks=False)
        if not stat.S_ISLNK(info.st_mode):
            raise StagingError("%s is not a directory, so %s cannot be written there; remove "
                               "it or choose another --dir" % (where, path))
        if links > _MAX_SYMLINKS:
            raise StagingError("too many symlinks on the way to %s" % self.shown(path))
        target = os.readlink(name, dir_fd=stack[-1])
        if not target.startswith("/"):
            return target.split("/")
        inside = self._inside(target)
        if inside is None:
            raise StagingError("%s is a symlink to %s, outside %s; refusing to write %s "
                               "through it" % (where, target, self.path, path))
        while len(stack) > 1:
            os.close(stack.pop())
        names.clear()
        return inside

    def _mkdir(self, dir_fd, name):
        with signals_deferred():   # made and recorded together, so a rollback finds it
            os.mkdir(name, c.DIR_MODE, dir_fd=dir_fd)
            self.created.append((self._keep(os.dup(dir_fd)), name))
        self._missing.clear()
        fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        os.fchmod(fd, c.DIR_MODE)   # not subject to the umask
        return fd

    def remove_created_directories(self):
        """Remove the directories this object made (those still empty), newest first."""
        for dir_fd, name in reversed(self.created):
            try:
                os.rmdir(name, dir_fd=dir_fd)
            except OSError:
                pass
        self.created.clear()
        self._parents.clear()
        self._missing.clear()


class _NotAFile(StagingError):
    pass


@dataclass
class _Existing:
    """What a path held before we wrote it (for 'unchanged' and for rollback)."""
    kind: str                   # "absent", "file", "symlink"
    content: bytes = b""
    mode: int = 0
    link: str = ""


def _lexists(place):
    if place.missing:
        return False
    try:
        os.stat(place.name, dir_fd=place.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _read_existing(place):
    if place.missing:
        return _Existing("absent")
    try:
        info = os.stat(place.name, dir_fd=place.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return _Existing("absent")
    if stat.S_ISLNK(info.st_mode):
        return _Existing("symlink", link=os.readlink(place.name, dir_fd=place.dir_fd))
    if not stat.S_ISREG(info.st_mode):
        raise _NotAFile("it exists and is not a regular file; remove it")
    fd = os.open(place.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=place.dir_fd)
    with os.fdopen(fd, "rb") as stream:
        return _Existing("file", stream.read(), stat.S_IMODE(info.st_mode))


def symlink_in_directory(dir_fd, name, target):
    """Atomically make NAME in DIR_FD a symlink to TARGET."""
    temporary = ".%s.%s.tmp" % (name, secrets.token_hex(4))
    with signals_deferred():
        os.symlink(target, temporary, dir_fd=dir_fd)
        try:
            os.rename(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            os.unlink(temporary, dir_fd=dir_fd)
            raise
    os.fsync(dir_fd)


def _restore(place, existing):
    if existing.kind == "file":
        write_in_directory(place.dir_fd, place.name, existing.content, existing.mode)
    elif existing.kind == "symlink":
        symlink_in_directory(place.dir_fd, place.name, existing.link)
    else:
        os.unlink(place.name, dir_fd=place.dir_fd)


def _reason(error):
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)


def check_plan(plan, root):
    """Check every file of PLAN below ROOT (a ConfinedRoot) before anything is written.

    Returns (the files that need writing, each with what its path holds now,
    the paths already up to date). Raises StagingError naming every refused path.
    """
    refused = []
    changes = []
    unchanged = []
    seen = set()
    for planned in plan.files:
        shown = root.shown(planned.path)
        if planned.path in seen:
            refused.append("%s is planned twice" % shown)
            continue
        seen.add(planned.path)
        try:
            os.fsencode(planned.path)
        except UnicodeEncodeError:
            refused.append("%s: its name cannot be written in this locale's file name encoding "
                           "(%s); run with a UTF-8 locale, like LC_ALL=C.UTF-8"
                           % (shown, sys.getfilesystemencoding()))
            continue
        try:
            place = root.place(planned.path)
        except StagingError as error:
            refused.append(str(error))
            continue
        except OSError as error:
            refused.append("%s: %s" % (shown, _reason(error)))
            continue
        try:
            existing = _read_existing(place)
        except (OSError, _NotAFile) as error:
            refused.append("%s: %s" % (shown, _reason(error)))
            continue
        if existing.kind == "file" and existing.content == planned.content \
                and existing.mode == planned.mode:
            unchanged.append(planned.path)
        elif not os.access(".", os.W_OK, dir_fd=place.dir_fd):
            parents = path_components(planned.path)[:-1]
            blocking = root.shown("/" + "/".join(
                parents[:len(parents) - len(place.missing)])).rstrip("/") or "/"
            refused.append("%s: its directory is not writable (%s); make that directory "
                           "writable or choose another root" % (shown, blocking))
        else:
            changes.append((planned, existing))
    if refused:
        raise StagingError("nothing was written: %s" % "; ".join(refused))
    return changes, unchanged


def _write_files(root, changes):
    """Write CHANGES in order; on failure (or Ctrl-C) restore every file already written
    and raise."""
    done = []
    directories = {}
    try:
        for planned, existing in changes:
            place = root.place(planned.path, create=True)
            with signals_deferred():   # a file written is a file recorded, for the rollback
                write_in_directory(place.dir_fd, place.name, planned.content, planned.mode,
                                   sync_directory=False)
                done.append((planned, existing))
            directories[place.dir_fd] = planned.path
        # The renames are durable once their directories are: one fsync per directory.
        for dir_fd in directories:
            os.fsync(dir_fd)
    except KeyboardInterrupt:
        # Ctrl-C stays an interrupt for the caller, but leaves the root as it was.
        try:
            _roll_back(root, done, "writing the files was interrupted",
                       [planned.path for planned, _ in changes[len(done):]])
        except StagingError as rolled_back:
            log.info("%s", rolled_back)
        raise
    except (OSError, StagingError) as error:
        if len(done) < len(changes):
            failed = "writing %s failed (%s)" % (root.shown(changes[len(done)][0].path),
                                                _reason(error))
        else:
            failed = "making the written files durable failed (%s)" % _reason(error)
        _roll_back(root, done, failed, [planned.path for planned, _ in changes[len(done):]])
    return [planned.path for planned, _ in done]


def _roll_back(root, done, failed, not_written):
    problems = []
    for planned, existing in reversed(done):
        try:
            _restore(root.place(planned.path, create=True), existing)
        except (OSError, StagingError) as error:
            problems.append("%s could not be restored (%s)" % (root.shown(planned.path),
                                                               _reason(error)))
    root.remove_created_directories()
    restored = ", ".join(root.shown(p.path) for p, _ in done) or "none"
    message = "%s; nothing was applied: restored to their previous state: %s; not " \
              "written: %s" % (failed, restored, ", ".join(root.shown(p) for p in not_written))
    if problems:
        message += "; " + "; ".join(problems)
    raise StagingError(message)


def apply_plan(plan, root, runner=None):
    """Write PLAN's files below ROOT, then run its actions; return what was done.

    The whole plan is checked before the first write; a failed write restores
    every file written before it (StagingError says what was and was not applied).
    """
    runner = runner or CommandRunner()
    report = ApplyReport()
    with ConfinedRoot(root) as confined:
        changes, report.unchanged = check_plan(plan, confined)
        report.written = _write_files(confined, changes)
        for path in report.written:
            log.info("wrote %s", confined.shown(path))
        _ActionRunner(confined, runner, report).run_all(plan.actions)
    return report


def stage(data, phase, root, runner=None):
    """Build the plan of PHASE and apply it below ROOT."""
    return apply_plan(build_plan(data, phase, root), root, runner)


# ---------------------------------------------------------------------------
# Actions


class _Skip(Exception):
    """The action does not apply to this root; the message says why."""


def _install_section(text):
    """The ``[Install]`` keys of a unit file: {key: [values]} (keys may repeat)."""
    values = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Install]" and "=" in line:
            key, _, value = line.partition("=")
            values.setdefault(key.strip(), []).extend(value.split())
    return values


class _ActionRunner:
    """Runs a plan's actions for one root, or says why an action is skipped."""

    def __init__(self, root, runner, report):
        self.root = root
        self.runner = runner
        self.report = report

    @property
    def is_running_system(self):
        return self.root.real == "/"

    def has_binary(self, name):
        """Whether the root has NAME installed (resolved under the root, never on this host)."""
        for directory in c.ROOT_BINARY_DIRS:
            try:
                if _lexists(self.root.place(posixpath.join(directory, name))):
                    return True
            except (OSError, StagingError):
                continue
        return False

    def run_all(self, actions):
        failures = []
        for action in actions:
            try:
                how = self.run(action)
            except _Skip as reason:
                log.info("skipped %s: %s", action.describe(), reason)
                self.report.actions_skipped.append((action.describe(), str(reason)))
                continue
            except (StagingError, OSError) as error:
                failures.append("%s failed: %s" % (action.describe(), _reason(error)))
                continue
            self.report.actions_done.append(action.describe() + (" (%s)" % how if how else ""))
        if failures:
            raise StagingError("the files are written (%s), but %s; done: %s" % (
                ", ".join(self.root.shown(p) for p in self.report.written) or "all unchanged",
                "; ".join(failures), ", ".join(self.report.actions_done) or "nothing"))

    def run(self, action):
        kind = ActionKind(action.kind)
        if kind == ActionKind.UPDATE_CA_TRUST:
            return self.update_ca_trust()
        if kind == ActionKind.ENABLE_UNIT:
            return self.enable(action.argument)
        if kind == ActionKind.DISABLE_UNIT:
            return self.disable(action.argument)
        if kind == ActionKind.RESTART_UNIT:
            return self.restart(action.argument)
        return self.reload_networkmanager()

    def update_ca_trust(self):
        if not self.has_binary(c.UPDATE_CA_TRUST_COMMAND[0]):
            raise _Skip("%s is not installed in %s" % (c.UPDATE_CA_TRUST_COMMAND[0],
                                                       self.root.path))
        argv = list(c.UPDATE_CA_TRUST_COMMAND)
        if not self.is_running_system:
            argv = [c.CHROOT, self.root.real] + argv
        self.runner.run(argv)
        return None

    def require_running_system(self):
        if not self.is_running_system:
            raise _Skip("%s is not the running system" % self.root.path)

    def reload_networkmanager(self):
        self.require_running_system()
        if shutil.which(c.NM_RELOAD_COMMAND[0]) is None:
            raise _Skip("%s is not installed" % c.NM_RELOAD_COMMAND[0])
        self.runner.run(list(c.NM_RELOAD_COMMAND))
        return None

    def restart(self, unit):
        self.require_running_system()
        if not os.path.isdir(c.SYSTEMD_RUNNING_MARKER):
            raise _Skip("systemd is not running")
        if self.unit_file(unit) is None:
            raise _Skip("%s is not installed" % unit)
        self.runner.run([c.SYSTEMCTL, "restart", unit])
        return None

    def _systemctl_usable(self):
        return self.has_binary(c.SYSTEMCTL) and shutil.which(c.SYSTEMCTL) is not None

    def unit_file(self, unit):
        """(path, text) of UNIT's file below the root, or None if it is not installed."""
        for directory in c.SYSTEMD_UNIT_DIRS:
            path = posixpath.join(directory, unit)
            try:
                existing = _read_existing(self.root.place(path))
            except (OSError, StagingError):
                continue
            if existing.kind == "file":
                return path, existing.content.decode("utf-8", "replace")
        return None

    def install_links(self, unit, text):
        """The links ``systemctl enable`` makes for UNIT from its [Install] section."""
        install = _install_section(text)
        links = []
        for key, suffix in (("WantedBy", ".wants"), ("RequiredBy", ".requires")):
            links += [posixpath.join(c.SYSTEMD_ENABLE_DIR, wanting + suffix, unit)
                      for wanting in install.get(key, [])]
        links += [posixpath.join(c.SYSTEMD_ENABLE_DIR, alias) for alias in install.get("Alias", [])]
        return links

    def enable(self, unit):
        found = self.unit_file(unit)
        if found is None:
            raise _Skip("%s is not installed in %s" % (unit, self.root.path))
        if self._systemctl_usable():
            self.runner.run([c.SYSTEMCTL, "--root=%s" % self.root.real, "enable", unit])
            return None
        path, text = found
        made = []
        for link in self.install_links(unit, text):
            existing = _read_existing(self.root.place(link))
            if existing.kind != "symlink" or existing.link != path:
                place = self.root.place(link, create=True)
                symlink_in_directory(place.dir_fd, place.name, path)
                made.append(link)
        return "%s is not installed in %s; made the [Install] links of %s: %s" % (
            c.SYSTEMCTL, self.root.path, path, ", ".join(made) or "already there")

    def disable(self, unit):
        found = self.unit_file(unit)
        if self._systemctl_usable() and found is not None:
            self.runner.run([c.SYSTEMCTL, "--root=%s" % self.root.real, "disable", unit])
            return None
        links = self.install_links(unit, found[1]) if found else []
        links += [link for link in self.wants_links(unit) if link not in links]
        removed = []
        for link in links:
            place = self.root.place(link)
            if _read_existing(place).kind == "symlink":
                os.unlink(place.name, dir_fd=place.dir_fd)
                removed.append(link)
        if not removed:
            raise _Skip("%s is not enabled in %s" % (unit, self.root.path))
        return "removed %s" % ", ".join(removed)

    def wants_links(self, unit):
        """Every ``*.wants/UNIT`` and ``*.requires/UNIT`` path below the enable directory."""
        place = self.root.place(posixpath.join(c.SYSTEMD_ENABLE_DIR, unit))
        if place.missing:
            return []
        return [posixpath.join(c.SYSTEMD_ENABLE_DIR, entry, unit)
                for entry in sorted(os.listdir(place.dir_fd))
                if entry.endswith((".wants", ".requires"))]
