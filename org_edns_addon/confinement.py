"""Writing below a root without ever leaving it.

A ``ConfinedRoot`` resolves every path under its root component by component
with directory file descriptors (``O_NOFOLLOW``): a symlink on the way is
followed only while it stays below the root, one that leads outside is
refused. ``read_existing`` says what a path holds now, without following a
final symlink.
"""

import errno
import os
import posixpath
import stat
from dataclasses import dataclass
from typing import Dict, List, Tuple

from org_edns_addon.constants import DIR_MODE
from org_edns_addon.fileio import signals_deferred


class RootError(Exception):
    """A path cannot be resolved or written below the root; the message says why."""


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_SYMLINKS = 40


def path_components(path):
    """The components of PATH below a root; refuses relative or unnormalized paths."""
    parts = path.split("/")[1:] if path.startswith("/") else None
    if not parts or "\0" in path or any(p in ("", ".", "..") for p in parts):
        raise RootError("%r is not a plain absolute path (no '..', '.' or '//'); refusing "
                           "to write it" % path)
    return parts


@dataclass
class Place:
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
            raise RootError("the root %r must be an absolute path" % (root,))
        self.path = root
        self.real = os.path.realpath(root)
        try:
            self.fd = os.open(self.real, _DIR_FLAGS)
        except OSError as error:
            raise RootError("cannot open the root %s: %s; give an existing directory"
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
                return Place(fd, parts[-1], missing)
            fd, missing = self._walk(path, parts[:-1], create)
            if missing:
                self._missing[parent] = (fd, missing)
                return Place(fd, parts[-1], missing)
            self._parents[parent] = fd
        return Place(self._parents[parent], parts[-1])

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
                        raise RootError("%s leads outside %s; refusing to write it"
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
            raise RootError("%s is not a directory, so %s cannot be written there; remove "
                               "it or choose another --dir" % (where, path))
        if links > _MAX_SYMLINKS:
            raise RootError("too many symlinks on the way to %s" % self.shown(path))
        target = os.readlink(name, dir_fd=stack[-1])
        if not target.startswith("/"):
            return target.split("/")
        inside = self._inside(target)
        if inside is None:
            raise RootError("%s is a symlink to %s, outside %s; refusing to write %s "
                               "through it" % (where, target, self.path, path))
        while len(stack) > 1:
            os.close(stack.pop())
        names.clear()
        return inside

    def _mkdir(self, dir_fd, name):
        with signals_deferred():   # made and recorded together, so a rollback finds it
            os.mkdir(name, DIR_MODE, dir_fd=dir_fd)
            self.created.append((self._keep(os.dup(dir_fd)), name))
        self._missing.clear()
        fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        os.fchmod(fd, DIR_MODE)   # not subject to the umask
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


class NotAFileError(RootError):
    """The path holds something that is not a regular file (nor a symlink)."""


@dataclass
class Existing:
    """What a path held before we wrote it (for 'unchanged' and for rollback)."""
    kind: str                   # "absent", "file", "symlink"
    content: bytes = b""
    mode: int = 0
    link: str = ""


def lexists(place):
    """Whether PLACE holds anything (a dangling symlink too)."""
    if place.missing:
        return False
    try:
        os.stat(place.name, dir_fd=place.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def read_existing(place):
    """What PLACE holds now, as an ``Existing``; NotAFileError for anything else."""
    if place.missing:
        return Existing("absent")
    try:
        info = os.stat(place.name, dir_fd=place.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return Existing("absent")
    if stat.S_ISLNK(info.st_mode):
        return Existing("symlink", link=os.readlink(place.name, dir_fd=place.dir_fd))
    if not stat.S_ISREG(info.st_mode):
        raise NotAFileError("it exists and is not a regular file; remove it")
    fd = os.open(place.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=place.dir_fd)
    with os.fdopen(fd, "rb") as stream:
        return Existing("file", stream.read(), stat.S_IMODE(info.st_mode))
