"""Atomic file writes (a reader sees the old file or the new one, never half of one)
and temporary trees that Ctrl-C or a kill cannot leave behind."""

import contextlib
import errno
import os
import re
import secrets
import shutil
import signal
import stat
import tempfile

# Held back while a temporary file exists, so Ctrl-C or a kill cannot leave one behind.
_DEFERRED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def signals_deferred():
    """Deliver SIGINT, SIGTERM and SIGHUP only after the block (they wait, blocked)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def temporary_directory(prefix):
    """A new directory in $TMPDIR for the block, removed with all its content afterwards."""
    path = None
    try:
        with signals_deferred():   # made and known together
            path = tempfile.mkdtemp(prefix=prefix)
        yield path
    finally:
        if path is not None:
            with signals_deferred():   # never removed half-way
                shutil.rmtree(path)


# A temporary file's name: of fixed length (a 255-byte NAME still gets one) and
# recognisable, so one that a SIGKILL left behind can be removed later.
TEMPORARY_NAME = re.compile(r"\.edns-[0-9a-f]{16}\.tmp\Z")


def temporary_name():
    return ".edns-%s.tmp" % secrets.token_hex(8)


def write_in_directory(dir_fd, name, data, mode, sync_directory=True):
    """Atomically replace NAME in the open directory DIR_FD: temp file, fsync, rename.

    With ``sync_directory=False`` the caller fsyncs DIR_FD itself (once for many files).
    """
    temporary = temporary_name()
    with signals_deferred():
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                     os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fchmod(stream.fileno(), mode)
                os.fsync(stream.fileno())
            os.rename(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            try:
                os.unlink(temporary, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            raise
    if sync_directory:
        os.fsync(dir_fd)


def symlink_in_directory(dir_fd, name, target):
    """Atomically make NAME in DIR_FD a symlink to TARGET."""
    temporary = temporary_name()
    with signals_deferred():
        os.symlink(target, temporary, dir_fd=dir_fd)
        try:
            os.rename(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            os.unlink(temporary, dir_fd=dir_fd)
            raise
    os.fsync(dir_fd)


def write_atomically(path, data, mode=0o644):
    """Write DATA (bytes) to PATH via a temporary file in the same directory, fsync, rename.

    A symlink at PATH is followed (its target is replaced, like a shell's ``>``);
    anything there that is not a regular file (a device, a FIFO, a directory) is
    refused with an OSError rather than replaced.
    """
    path = os.path.realpath(path)
    try:
        kind = os.stat(path).st_mode
    except FileNotFoundError:
        kind = None
    if kind is not None and not stat.S_ISREG(kind):
        raise OSError(errno.EISDIR if stat.S_ISDIR(kind) else errno.EEXIST,
                      "it is a directory; give the path of a file in it" if stat.S_ISDIR(kind)
                      else "it exists and is not a regular file; choose another path", path)
    directory = os.path.dirname(path)
    try:
        dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, "the directory %s does not exist; create it "
                                "first" % directory, directory) from None
    try:
        write_in_directory(dir_fd, os.path.basename(path), data, mode)
    finally:
        os.close(dir_fd)


def error_text(error):
    """ERROR as a sentence: an OSError's text alone (without "[Errno N]"), else its message."""
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)
