"""Saving and opening result files: where they go, new names that never overwrite, sizes."""

from __future__ import annotations

import mimetypes
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from textual.widget import Widget


def human_size(count: int | None) -> str:
    if count is None:
        return "? bytes"
    size = float(count)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{count} bytes"


def output_dir() -> Path:
    """Where saved files go: the current directory if writable, else $TMPDIR."""
    cwd = Path.cwd()
    return cwd if os.access(cwd, os.W_OK) else Path(tempfile.gettempdir())


MAX_STEM = 80  # characters of a file name made from a name (a file name is at most 255 bytes)


def file_stem(name: str, fallback: str = "result") -> str:
    """A file name made from ``name`` (a tool, prompt or resource name: the server's words), safe to
    put in a directory: letters, digits, ``-``, ``_`` and ``.`` kept, anything else ``_``, no leading
    dot (``..``, a hidden file), at most ``MAX_STEM`` characters. Every file name the TUI builds
    from such a name goes through here (saved files, the pager's and the viewer's temporary files)."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in name[: MAX_STEM * 2])
    return safe.lstrip(".")[:MAX_STEM] or fallback


def private_temp(stem: str, suffix: str) -> tuple[int, str]:
    """``mkstemp`` in the temporary directory, named from ``stem`` (sanitized: it never leaves the directory)."""
    return tempfile.mkstemp(prefix=f"{file_stem(stem)}-", suffix=suffix)


def write_new_file(directory: Path, stem: str, suffix: str, data: bytes) -> Path:
    """Write ``data`` to a new file (never overwrites: adds -1, -2... to the name)."""
    safe = file_stem(stem)
    for attempt in range(1000):
        path = directory / f"{safe}{'' if attempt == 0 else f'-{attempt}'}{suffix}"
        try:
            with open(path, "xb") as handle:
                handle.write(data)
            return path
        except FileExistsError:
            continue
    raise OSError(f"too many files named {safe}* in {directory}")


def save_new_file(widget: Widget, produce: Callable[[], bytes], stem: str, suffix: str, what: str) -> None:
    """Write what ``produce`` makes to a new file in ``output_dir()`` (call from a worker thread),
    keep its path as ``widget.saved_path`` and tell the user where it went, or why it could not be saved."""
    try:
        data = produce()
        path = write_new_file(output_dir(), stem, suffix, data)
    except (OSError, TypeError, ValueError, KeyError) as exc:
        widget.notify(f"Could not save {what}: {exc}", severity="error", markup=False)
        return
    widget.saved_path = path  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
    widget.notify(f"Saved {human_size(len(data))} to {path}", title="Saved", markup=False)


def extension_for(mime_type: str | None, fallback: str = ".bin") -> str:
    if not mime_type:
        return fallback
    return (
        {"audio/wav": ".wav", "audio/x-wav": ".wav", "image/jpeg": ".jpg", "text/markdown": ".md"}.get(mime_type)
        or mimetypes.guess_extension(mime_type)
        or fallback
    )


def system_opener() -> list[str] | None:
    if sys.platform == "darwin":
        return ["open"]
    if sys.platform.startswith("win"):
        return ["cmd", "/c", "start", ""]
    found = shutil.which("xdg-open")
    return [found] if found else None
