"""Files the user names: read up to a size, written privately, and only ever regular files.

Reading (``read_bounded``, ``open_regular``): ``/dev/zero`` must not eat the memory, and a
FIFO must not block for ever (it is opened non-blocking and refused, as are devices,
sockets and directories). Each caller turns a :class:`FileReadError` into its own error
and words (a usage error on the command line, a config error, an answer-policy error).

Writing user data (``open_private``: recordings, exports, reports): created 0600, an
existing file made 0600 before it is truncated, a symbolic link refused (``O_NOFOLLOW``:
its target is never truncated), and a FIFO or device refused without blocking.
``writable_problem`` says the same up front, before a server starts.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import IO, Literal

PRIVATE_MODE = 0o600

ReadFailure = Literal["missing", "directory", "unreadable", "too large"]


class FileReadError(Exception):
    """A file that could not be read whole: ``kind`` says why, ``reason`` in the system's words
    (the ``strerror`` of the OSError, for "missing", "directory" and "unreadable")."""

    def __init__(self, kind: ReadFailure, path: str | os.PathLike[str], reason: str = "") -> None:
        super().__init__(f"{path}: {reason or kind}")
        self.kind: ReadFailure = kind
        self.path = path
        self.reason = reason

    def words(self, *, missing: str, too_large: str, unreadable: str, directory: str | None = None) -> str:
        """The caller's message for this failure (a directory is ``unreadable`` unless it says otherwise)."""
        if self.kind == "missing":
            return missing
        if self.kind == "too large":
            return too_large
        if self.kind == "directory" and directory is not None:
            return directory
        return unreadable


class NotRegularFile(OSError):
    """A path that is a FIFO, a device or a socket where a file was meant (``strerror`` says which)."""


def what_it_is(mode: int) -> str:
    """``a FIFO (named pipe)``, ``a directory``...: what a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _not_regular(path: str | os.PathLike[str], mode: int) -> OSError:
    if stat.S_ISDIR(mode):
        return IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    return NotRegularFile(errno.EINVAL, f"{what_it_is(mode)}, not a regular file", os.fspath(path))


def open_regular(path: str | os.PathLike[str]) -> int:
    """A blocking read-only descriptor of ``path`` if it is a regular file; else OSError (never a wait:
    a FIFO is opened non-blocking, then refused): ``IsADirectoryError`` for a directory,
    :class:`NotRegularFile` for a FIFO, device or socket."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path`` (as given: no ``~`` expansion), at most ``limit`` of them.

    Raises :class:`FileReadError`: "missing" (no such file), "directory" (a directory:
    also an "unreadable" OSError, for callers that do not tell them apart), "unreadable"
    (any other OSError, a FIFO or a device too: ``reason`` says which) or "too large"
    (more than ``limit`` bytes).
    """
    try:
        with os.fdopen(open_regular(path), "rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError as exc:
        raise FileReadError("missing", path, str(exc.strerror or exc)) from None
    except IsADirectoryError as exc:
        raise FileReadError("directory", path, str(exc.strerror or exc)) from None
    except OSError as exc:
        raise FileReadError("unreadable", path, str(exc.strerror or exc)) from None
    if len(data) > limit:
        raise FileReadError("too large", path)
    return data


def _symlink_refused(path: str | os.PathLike[str]) -> OSError:
    return OSError(errno.ELOOP, "a symbolic link (refused: name the file itself)", os.fspath(path))


def open_private(path: str | os.PathLike[str], binary: bool = False) -> IO[bytes]:
    """Open ``path`` to write user data into (a recording, an export, a report), from its start.

    Created 0600; an existing regular file is made 0600 before it is truncated; a symbolic link
    is refused (its target is never touched), as are a FIFO (without blocking), a device, a socket
    and a directory: OSError, with ``strerror`` in words for the user. The directory must exist:
    nothing here makes it (a typo in a path is an error, not a new tree).
    """
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), PRIVATE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP and os.path.islink(path):
            raise _symlink_refused(path) from None
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads (O_NONBLOCK): say what it is
            try:
                raise _not_regular(path, os.stat(path).st_mode) from None
            except FileNotFoundError:
                pass
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode)
        if stat.S_IMODE(info.st_mode) != PRIVATE_MODE:
            try:
                os.fchmod(fd, PRIVATE_MODE)
            except OSError as exc:
                raise OSError(exc.errno, f"cannot make it private (0600): {exc.strerror}", os.fspath(path)) from None
        os.ftruncate(fd, 0)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    if binary:
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding="utf-8", newline="\n")


def writable_problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``open_private`` would refuse ``path`` (checked up front, before a server starts), or None."""
    parent = os.path.dirname(os.fspath(path)) or "."
    if not os.path.isdir(parent):
        return f"the directory {parent} does not exist"
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{os.fspath(path)}: {exc.strerror or exc}"
    if stat.S_ISLNK(mode):
        return f"{os.fspath(path)} is {_symlink_refused(path).strerror}"
    if not stat.S_ISREG(mode):
        return f"{os.fspath(path)} is {what_it_is(mode)}, not a regular file"
    return None


def _exclusive_temp(directory: Path, prefix: str) -> tuple[int, str]:
    """A new file in ``directory`` (0600, created exclusively, never through a symlink), as
    ``tempfile.mkstemp`` makes one, without importing tempfile (with shutil, bz2, lzma and
    random: ~8 ms, paid by a cold command whose first connection keeps the server's era)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = os.path.join(directory, f"{prefix}{os.urandom(8).hex()}.tmp")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(directory))


def write_atomic(path: Path, data: bytes, *, prefix: str = ".tmp-", durable: bool = True) -> None:
    """Replace ``path`` with ``data`` all at once: a temporary file beside it (created 0600 and
    exclusively, never through a symlink), flushed and (``durable``) fsynced, then renamed over
    ``path``. A reader sees the old file or the new one, never half of one; the temporary file is
    removed when anything fails (the OSError is raised). ``durable=False`` is for a cache whose
    loss costs nothing (the fsync can take tens of milliseconds on a busy disk)."""
    fd, temp = _exclusive_temp(path.parent, prefix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def set_aside(path: Path) -> str:
    """Move a corrupt state file out of the way (``NAME.corrupt`` beside it) so that a new one
    can be started; returns " (kept as ...)" for the message, or "" when it could not be moved."""
    aside = path.with_name(path.name + ".corrupt")
    try:
        os.replace(path, aside)
    except OSError:
        return ""
    return f" (kept as {aside})"


def state_dir() -> Path:
    """Where the inspector keeps its own state (drafts, eras, tokens): $XDG_STATE_HOME/mcp-inspector."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "mcp-inspector"


def auth_dir() -> Path:
    """The file token store's directory (core/auth/store.py): one file per authorized server."""
    return state_dir() / "auth"
