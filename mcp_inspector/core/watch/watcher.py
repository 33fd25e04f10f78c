"""The file watcher: ``watchfiles.awatch`` over the watched paths, debounced, and blind to what is
not source.

A burst of saves (an editor writing a swap file, the file, a backup; a formatter on save) comes
out as one ``FileChanges``: the watcher waits until nothing changed for ``quiet`` seconds (at most
``longest`` seconds for a burst that never settles). Ignored: version control and tool folders
(``.git``, ``__pycache__``, ``node_modules``, ``.venv``...), compiled files (``*.pyc``), editor
swap, backup and lock files (``*.swp``, ``*~``, ``.#x``, vim's ``4913`` probe) and the files
given in ``ignore`` (the inspector's own recording and report), plus the session files the TUI
exports (``mcp-session-*.jsonl``). A file created and removed within one burst (``sed -i``'s
temporary file) is not reported; a burst of only such files is no change at all.

``stop`` ends the iteration from anywhere (another task, a signal handler): it is a plain
threading event, which the watch thread checks every few milliseconds.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

QUIET = 0.1  # seconds without a change before a burst is reported
LONGEST = 1.6  # seconds a burst that keeps changing is gathered at most
POLL = 0.5  # seconds between two looks at the stop event while nothing happens

IGNORED_DIRS = (
    "__pycache__",
    ".git",
    ".hg",
    ".svn",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    ".idea",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    ".direnv",
    ".eggs",
)
IGNORED_NAMES = (
    r"\.py[cod]$",  # compiled Python
    r"\.sw[a-px]$",  # vim swap files (.swp, .swo... and its .swx probe)
    r"~$",  # backups (vim, emacs)
    r"^\.#",  # emacs lock files
    r"^#.*#$",  # emacs auto-save files
    r"^4913$",  # vim's probe that a directory is writable
    r"\.___jb_\w+___$",  # JetBrains safe-write
    r"^\.DS_Store$",
    r"^flycheck_",
    r"\.(tmp|temp|bak|orig)$",
    r"^mcp-session-.*\.jsonl?$",  # sessions the TUI exports (e, E in the traffic log)
)


@dataclass(frozen=True, slots=True)
class FileChanges:
    """The files a burst of edits touched (absolute paths, sorted)."""

    paths: tuple[str, ...]

    def describe(self, most: int = 2) -> str:
        """``server.py``, ``server.py, util.py`` or ``server.py, util.py and 3 more``."""
        names = [os.path.basename(path) or path for path in self.paths]
        shown = ", ".join(names[:most])
        return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def lasting(raw: set[Any]) -> tuple[str, ...]:
    """The paths of a burst, without the temporary files made and removed within it (``sed -i``,
    an editor's safe-write): a file added that no longer exists was never a source."""
    from watchfiles import Change

    added = {path for change, path in raw if change == Change.added}
    return tuple(sorted({path for _, path in raw if path not in added or os.path.exists(path)}))


def source_filter(ignore: Sequence[str] = ()):
    """A watchfiles filter that passes source files only (see the module's doc)."""
    from watchfiles import DefaultFilter

    class SourceFilter(DefaultFilter):
        ignore_dirs = IGNORED_DIRS
        ignore_entity_patterns = IGNORED_NAMES

    return SourceFilter(ignore_paths=[os.path.abspath(path) for path in ignore if path])


def is_source(path: str, ignore: Sequence[str] = ()) -> bool:
    """Whether a change of ``path`` is reported (the same rules the watcher applies)."""
    from watchfiles import Change

    return source_filter(ignore)(Change.modified, os.path.abspath(path))


class FileWatcher:
    """Reports each burst of changes under ``paths`` as one ``FileChanges``; ``stop`` ends it."""

    def __init__(
        self, paths: Sequence[str], *, ignore: Sequence[str] = (), quiet: float = QUIET, longest: float = LONGEST
    ) -> None:
        self.paths = [os.path.abspath(path) for path in paths]
        self.ignore = list(ignore)
        self.quiet = quiet
        self.longest = max(longest, quiet)
        self._stop = threading.Event()
        #: True once the OS watch is set up: an edit from then on is reported. (awatch sets it up in
        #: the same step of the event loop as this flag is set, before it first waits.)
        self.listening = False

    def stop(self) -> None:
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    async def changes(self) -> AsyncIterator[FileChanges]:
        """Each burst, until ``stop``. A path that vanished is an OSError (FileNotFoundError)."""
        from watchfiles import awatch

        missing = [path for path in self.paths if not os.path.exists(path)]
        if missing:
            raise FileNotFoundError(f"no such file or directory: {missing[0]}")
        self.listening = True
        async for raw in awatch(
            *self.paths,
            watch_filter=source_filter(self.ignore),
            stop_event=self._stop,
            step=max(1, int(self.quiet * 1000)),
            debounce=int(self.longest * 1000),
            rust_timeout=int(POLL * 1000),
            ignore_permission_denied=True,
        ):
            if self._stop.is_set():
                return
            paths = lasting(raw)
            if paths:
                yield FileChanges(paths)
