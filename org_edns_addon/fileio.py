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

"""Atomic file writes (a reader sees the old file or the new one, never half of one),
signals held back while a write is under way, and one sync for many files."""

import contextlib
import errno
import os
import re
import secrets
import signal
import stat

from org_edns_addon.i18n import _

# Held back while a temporary file exists, so Ctrl-C or a kill cannot leave one behind.
DEFERRED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def signals_deferred():
    """Deliver SIGINT, SIGTERM and SIGHUP only after the block (they wait, blocked)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, DEFERRED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def take_pending_signals():
    """The deferred signals that arrived while blocked, taken (they are not delivered
    any more), sorted; empty when none did."""
    taken = set()
    for signum in sorted(signal.sigpending() & set(DEFERRED_SIGNALS)):
        if signal.sigtimedwait([signum], 0) is not None:
            taken.add(signum)
    return sorted(taken)


def deliver(signums):
    """Deliver SIGNUMS again, now that nothing is half-done: a signal this process
    does not handle ends it as it would have; a handled one runs its handler."""
    for signum in signums:
        signal.raise_signal(signum)


# A temporary file's name: of fixed length (a 255-byte NAME still gets one) and
# recognisable by a reader. Nothing removes a file for its name alone: apply removes
# the temporaries its journal names (staging/record.py).
TEMPORARY_NAME = re.compile(r"\.edns-[0-9a-f]{16}\.tmp\Z")


def temporary_name():
    return (".edns-%s.tmp" % secrets.token_hex(8)).encode("ascii")


def _name_bytes(name):
    return name if isinstance(name, bytes) else os.fsencode(name)


def write_temporary(dir_fd, data, mode, sync=False, name=None):
    """A new temporary file in DIR_FD holding DATA with MODE (fsynced if SYNC); its name
    (NAME when given, a fresh ``temporary_name()`` else)."""
    temporary = name or temporary_name()
    with signals_deferred():   # made and known together
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                     os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as stream:
                stream.write(data)
                os.fchmod(stream.fileno(), mode)   # not subject to the umask
                if sync:
                    stream.flush()
                    os.fsync(stream.fileno())
        except BaseException:
            os.unlink(temporary, dir_fd=dir_fd)
            raise
    return temporary


def write_in_directory(dir_fd, name, data, mode):
    """Atomically and durably replace NAME in the open directory DIR_FD: temporary file,
    fsync, rename, fsync of the directory."""
    name = _name_bytes(name)
    with signals_deferred():
        temporary = write_temporary(dir_fd, data, mode, sync=True)
        try:
            os.rename(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            try:
                os.unlink(temporary, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            raise
    os.fsync(dir_fd)


def _syncfs():
    """libc's syncfs(2), or None where it cannot be called."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        function = libc.syncfs
    except (ImportError, OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int]

    def call(fd):
        if function(fd) != 0:
            number = ctypes.get_errno()
            raise OSError(number, os.strerror(number))
    return call


def sync_filesystems(fds):
    """Make durable everything written on the filesystems that hold the open FDS:
    one syncfs(2) per filesystem (one journal commit for any number of files,
    where an fsync per file costs one each); sync(2) where syncfs is missing."""
    devices = {}
    for fd in fds:
        devices.setdefault(os.fstat(fd).st_dev, fd)
    if not devices:
        return
    syncfs = _syncfs()
    if syncfs is None:
        os.sync()
        return
    for fd in devices.values():
        syncfs(fd)


def write_atomically(path, data, mode=0o644, never_loosen=False, follow_symlink=True):
    """Write DATA (bytes) to PATH via a temporary file in the same directory, fsync, rename.

    The directory is opened once, and everything after goes through that descriptor.
    With FOLLOW_SYMLINK, a symlink at PATH is followed (its target is replaced, like a
    shell's ``>``). Without it (``-o`` of a command, which may run as root in a
    directory another user can write), a symlink at PATH is refused, by name: in a
    sticky world-writable directory one planted by another user would make us replace
    any file, and ``fs.protected_symlinks`` cannot stop that, since the kernel never
    follows the final link of a rename. Anything there that is not a regular file (a
    device, a FIFO, a directory) is refused with an OSError rather than replaced. With
    NEVER_LOOSEN, a file already at PATH gets no permission it did not have: its mode
    and MODE, both.
    """
    if follow_symlink:
        path = os.path.realpath(path)
    directory, name = os.path.split(os.path.abspath(path))
    try:
        dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, _("the directory %s does not exist; create it "
                                "first") % directory, directory) from None
    except NotADirectoryError:
        raise NotADirectoryError(errno.ENOTDIR, _("%s is not a directory; give the path of "
                                 "a file in a directory") % directory, directory) from None
    try:
        try:
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            info = None
        _refuse_to_replace(info, path, lambda: os.readlink(name, dir_fd=dir_fd))
        if info is not None and never_loosen:
            mode &= stat.S_IMODE(info.st_mode)
        write_in_directory(dir_fd, name, data, mode)
    finally:
        os.close(dir_fd)


def _refuse_to_replace(info, path, link_target):
    """Raise the OSError of ``write_atomically(PATH, follow_symlink=False)`` unless INFO
    (the ``lstat`` of PATH, or None when nothing is there) is a regular file or None;
    LINK_TARGET() reads a symlink's target."""
    if info is None or stat.S_ISREG(info.st_mode):
        return
    if stat.S_ISLNK(info.st_mode):
        raise OSError(errno.ELOOP, _("it is a symbolic link (to %s); refusing to replace "
                                     "what it points to: remove the link or give "
                                     "another path") % link_target(), path)
    is_directory = stat.S_ISDIR(info.st_mode)
    raise OSError(errno.EISDIR if is_directory else errno.EEXIST,
                  _("it is a directory; give the path of a file in it") if is_directory
                  else _("it exists and is not a regular file; choose another path"), path)


def check_output(path):
    """Raise, before any work, the OSError that ``write_atomically(PATH,
    follow_symlink=False)`` would raise for what is at PATH now (a symbolic link, a
    directory, anything but a regular file); writing checks again, through the
    directory it opens."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    _refuse_to_replace(info, path, lambda: os.readlink(path))


def error_text(error):
    """ERROR as a user reads it, the one way every message says an error: an OSError's
    text alone (without "[Errno N]"), the ``message`` of an error that has one (ours,
    pykickstart's), else its text, or its type when it has none."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    message = getattr(error, "message", None)
    if message:
        return str(message)
    return str(error) or type(error).__name__
