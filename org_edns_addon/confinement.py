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

"""Writing below a root without ever leaving it.

A ``ConfinedRoot`` resolves every path under its root component by component
with directory file descriptors (``O_NOFOLLOW``): a symlink on the way is
followed only while it stays below the root, one that leads outside is
refused. ``read_existing`` says what a path holds now, without following a
final symlink.

Every name below a root is written as UTF-8 bytes, whatever the locale: a
kickstart's file names are UTF-8 text, and the installed system reads them
in a UTF-8 locale. The root's own path is the host's, kept as given.
"""

import collections
import enum
import errno
import os
import stat
from dataclasses import dataclass
from typing import Tuple

from org_edns_addon.constants import DIR_MODE
from org_edns_addon.fileio import error_text, signals_deferred
from org_edns_addon.i18n import _


class RootError(Exception):
    """A path cannot be resolved or written below the root; the message says why."""


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_SYMLINKS = 40
# Directory descriptors kept open for paths resolved before: enough for a plan's
# directories in the common case (a few), bounded whatever a kickstart asks for
# (a process may have only 1 024 descriptors, or fewer).
_MAX_CACHED_DIRECTORIES = 32


def file_name_bytes(name):
    """NAME (one component below a root) as the bytes written: UTF-8."""
    try:
        return name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raise RootError(_("%r cannot be written as a UTF-8 file name; use plain text")
                        % name) from None


def _text(name):
    return name.decode("utf-8", "surrogateescape")


def path_components(path):
    """The components of PATH below a root; refuses relative or unnormalized paths."""
    parts = path.split("/")[1:] if path.startswith("/") else None
    if not parts or "\0" in path or any(p in ("", ".", "..") for p in parts):
        raise RootError(_("%r is not a plain absolute path (no '..', '.' or '//'); refusing "
                        "to write it") % path)
    return parts


@dataclass
class Place:
    """Where a path's last component lives: its directory (an open fd) and name (bytes).

    DIR_FD belongs to the ConfinedRoot and stays open only until its next
    ``place()``: use a Place at once, never keep it.
    """
    dir_fd: int
    name: bytes
    missing: Tuple[bytes, ...] = ()       # parent directories still to create


class ConfinedRoot:
    """A directory we write below; every path is resolved under it, component by component.

    A symlink on the way is followed only while it stays below the root (an
    absolute target is taken as a path of this machine); one that leads
    outside is refused. A bounded number of directory fds is cached.
    """

    def __init__(self, root):
        if not isinstance(root, str) or not os.path.isabs(root):
            raise RootError(_("the root %r must be an absolute path") % (root,))
        self.path = root
        self.real = os.path.realpath(root)
        self._real_bytes = os.fsencode(self.real)
        try:
            self.fd = os.open(self.real, _DIR_FLAGS)
        except OSError as error:
            raise RootError(_("cannot open the root %s: %s; give an existing directory")
                            % (root, error_text(error))) from None
        # parent path -> (fd, the names still missing below it), most recent last
        self._cache = collections.OrderedDict()
        # Each directory made: (its components below the root, resolved, and the
        # (st_dev, st_ino) of its parent), so that a rollback removes exactly it.
        self.created = []

    def close(self):
        self._forget(lambda missing: True)
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def shown(self, path):
        """PATH as a user sees it: below the root given."""
        return os.path.join(self.path, path.lstrip("/"))

    def _shown_parts(self, parts):
        return self.shown("/" + "/".join(_text(part) for part in parts))

    def _forget(self, which):
        for key in [key for key, (_descriptor, missing) in self._cache.items() if which(missing)]:
            os.close(self._cache.pop(key)[0])

    def place(self, path, create=False):
        """Resolve PATH's parent under the root; create missing directories if CREATE."""
        parts = path_components(path)
        name = file_name_bytes(parts[-1])
        parent = "/".join(parts[:-1])
        cached = self._cache.get(parent)
        if cached is not None and (create and cached[1]):
            os.close(self._cache.pop(parent)[0])
            cached = None
        if cached is None:
            cached = self._walk(path, [file_name_bytes(part) for part in parts[:-1]], create)
            self._cache[parent] = cached
            while len(self._cache) > _MAX_CACHED_DIRECTORIES:
                os.close(self._cache.popitem(last=False)[1][0])
        else:
            self._cache.move_to_end(parent)
        return Place(cached[0], name, cached[1])

    def open_directory(self, path):
        """A new fd of the directory PATH below the root (the caller closes it), or None
        if it does not exist."""
        parts = path_components(path)
        fd, missing = self._walk(path, [file_name_bytes(part) for part in parts], False)
        if missing:
            os.close(fd)
            return None
        return fd

    def _walk(self, path, pending, create):
        """(fd of the deepest existing directory on the way, the names still missing)."""
        pending = collections.deque(pending)
        current = os.dup(self.fd)
        names = []      # the components of CURRENT below the root, symlinks resolved
        links = 0
        try:
            while pending:
                name = pending.popleft()
                if name in (b"", b"."):
                    continue
                if name == b"..":
                    if not names:
                        raise RootError(_("%s leads outside %s; refusing to write it")
                                        % (self.shown(path), self.path))
                    names.pop()
                    # Walked again from the root rather than kept open level by level:
                    # a deep path must not cost a descriptor per component.
                    parent = self._open_resolved(names)
                    os.close(current)
                    current = parent
                    continue
                try:
                    fd = os.open(name, _DIR_FLAGS, dir_fd=current)
                except FileNotFoundError:
                    if not create:
                        found, current = current, None
                        return found, (name,) + tuple(pending)
                    fd = self._mkdir(current, names, name)
                except OSError as error:
                    if error.errno not in (errno.ELOOP, errno.ENOTDIR):
                        raise
                    links += 1
                    target, absolute = self._follow(path, current, names, name, links)
                    if absolute:   # from the root again
                        os.close(current)
                        current = os.dup(self.fd)
                        names.clear()
                    pending.extendleft(reversed(target))
                    continue
                os.close(current)
                current = fd
                names.append(name)
            found, current = current, None
            return found, ()
        finally:
            if current is not None:
                os.close(current)

    def _open_resolved(self, names):
        """A new fd of the directory NAMES below the root (symlinks already resolved)."""
        current = os.dup(self.fd)
        try:
            for name in names:
                try:
                    fd = os.open(name, _DIR_FLAGS, dir_fd=current)
                except OSError as error:
                    raise RootError(_("%s changed while it was being written (%s); run again")
                                    % (self._shown_parts(names), error_text(error))) from None
                os.close(current)
                current = fd
            found, current = current, None
            return found
        finally:
            if current is not None:
                os.close(current)

    def _follow(self, path, dir_fd, names, name, links):
        """(the components the symlink NAME in DIR_FD stands for, whether they start at
        the root); refuses one leading outside the root."""
        where = self._shown_parts(names + [name])
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if not stat.S_ISLNK(info.st_mode):
            raise RootError(_("%s is not a directory, so %s cannot be written there; remove "
                            "it or choose another --dir") % (where, path))
        if links > _MAX_SYMLINKS:
            raise RootError(_("too many symlinks on the way to %s") % self.shown(path))
        target = os.readlink(name, dir_fd=dir_fd)
        if not target.startswith(b"/"):
            return target.split(b"/"), False
        inside = self._inside(target)
        if inside is None:
            raise RootError(_("%s is a symlink to %s, outside %s; refusing to write %s "
                            "through it") % (where, _text(target), self.path, path))
        return inside, True

    def _inside(self, target):
        """The components of the absolute symlink TARGET below the root, or None."""
        target = os.path.normpath(target)
        if self._real_bytes == b"/":
            return [p for p in target.split(b"/") if p]
        if target == self._real_bytes:
            return []
        if target.startswith(self._real_bytes + b"/"):
            return target[len(self._real_bytes) + 1:].split(b"/")
        return None

    def _mkdir(self, dir_fd, names, name):
        parent = os.fstat(dir_fd)
        with signals_deferred():   # made and recorded together, so a rollback finds it
            os.mkdir(name, DIR_MODE, dir_fd=dir_fd)
            self.created.append((tuple(names) + (name,), (parent.st_dev, parent.st_ino)))
        self._forget(bool)   # what was missing may be there now
        fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        os.fchmod(fd, DIR_MODE)   # not subject to the umask
        return fd

    def remove_created_directories(self):
        """Remove the directories this object made (those still empty), newest first;
        return the paths (as shown) of those that could not be removed."""
        self._forget(lambda missing: True)
        left = []
        cursor = None       # (components, fd): where the previous removal happened
        try:
            for components, parent_id in reversed(self.created):
                parent = components[:-1]
                cursor = self._reach(cursor, parent)
                info = os.fstat(cursor[1])
                try:
                    if (info.st_dev, info.st_ino) != parent_id:
                        raise FileNotFoundError(errno.ENOENT, "moved away")
                    os.rmdir(components[-1], dir_fd=cursor[1])
                except FileNotFoundError:
                    pass
                except OSError:
                    left.append(self._shown_parts(list(components)))
        except (OSError, RootError):
            left.append(_("some of the directories made"))
        finally:
            if cursor is not None:
                os.close(cursor[1])
        self.created.clear()
        return left

    def _reach(self, cursor, components):
        """(COMPONENTS, a new fd of that directory), from CURSOR (closed) when it lies below."""
        if cursor is not None and cursor[0][:len(components)] == components:
            fd = cursor[1]
            for _level in range(len(cursor[0]) - len(components)):
                parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = parent
            return components, fd
        if cursor is not None:
            os.close(cursor[1])
        return components, self._open_resolved(list(components))


class NotAFileError(RootError):
    """The path holds something that is not a regular file (nor a symlink)."""


class PathKind(enum.Enum):
    """What a path holds: nothing, a regular file or a symbolic link."""
    ABSENT = "absent"
    FILE = "file"
    SYMLINK = "symlink"


@dataclass
class Existing:
    """What a path held before we wrote it (for 'unchanged')."""
    kind: PathKind
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


def read_existing(place, limit=None):
    """What PLACE holds now, as an ``Existing``; NotAFileError for anything else.

    With LIMIT, a file larger than LIMIT bytes is refused (NotAFileError) unread."""
    if place.missing:
        return Existing(PathKind.ABSENT)
    try:
        info = os.stat(place.name, dir_fd=place.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return Existing(PathKind.ABSENT)
    if stat.S_ISLNK(info.st_mode):
        return Existing(PathKind.SYMLINK, link=_text(os.readlink(place.name, dir_fd=place.dir_fd)))
    if not stat.S_ISREG(info.st_mode):
        raise NotAFileError(_("it exists and is not a regular file; remove it"))
    if limit is not None and info.st_size > limit:
        raise NotAFileError(_("it is larger than %d bytes") % limit)
    fd = os.open(place.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=place.dir_fd)
    with os.fdopen(fd, "rb") as stream:
        return Existing(PathKind.FILE, stream.read(), stat.S_IMODE(info.st_mode))
