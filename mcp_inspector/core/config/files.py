"""Reading a file the user names, up to a size (``/dev/zero`` must not eat the memory).

Each caller turns a :class:`FileReadError` into its own error and words (a usage
error on the command line, a config error, an answer-policy error).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Literal

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


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path`` (as given: no ``~`` expansion), at most ``limit`` of them.

    Raises :class:`FileReadError`: "missing" (no such file), "directory" (a directory:
    also an "unreadable" OSError, for callers that do not tell them apart), "unreadable"
    (any other OSError) or "too large" (more than ``limit`` bytes).
    """
    try:
        with open(path, "rb") as handle:
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


def write_atomic(path: Path, data: bytes, *, prefix: str = ".tmp-") -> None:
    """Replace ``path`` with ``data`` all at once: a temporary file beside it (created 0600 and
    exclusively, never through a symlink), flushed and fsynced, then renamed over ``path``.
    A reader sees the old file or the new one, never half of one; the temporary file is removed
    when anything fails (the OSError is raised)."""
    fd, temp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
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
