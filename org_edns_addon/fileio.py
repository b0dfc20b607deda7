"""Atomic file writes: a reader sees the old file or the new one, never half of one."""

import os
import secrets


def write_in_directory(dir_fd, name, data, mode, sync_directory=True):
    """Atomically replace NAME in the open directory DIR_FD: temp file, fsync, rename.

    With ``sync_directory=False`` the caller fsyncs DIR_FD itself (once for many files).
    """
    temporary = ".%s.%s.tmp" % (name, secrets.token_hex(4))
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o600, dir_fd=dir_fd)
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


def write_atomically(path, data, mode=0o644):
    """Write DATA (bytes) to PATH via a temporary file in the same directory, fsync, rename."""
    directory = os.path.dirname(os.path.abspath(path))
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        write_in_directory(dir_fd, os.path.basename(path), data, mode)
    finally:
        os.close(dir_fd)
