"""Opening a session file (``recording``'s format) into a fresh traffic store.

A session file comes from outside (``--open`` takes any path), so reading one is
bounded by the file itself: every line is parsed by ``json_text.loads_strict``
and checked field by field, a line that fails is skipped and counted with its
line number and reason, a seq that jumps ahead is renumbered rather than filled
(only the places of skipped lines are kept, so links stay right), and no line is
read past ``MAX_LINE`` bytes.

The ``http`` lines (an HTTP server's exchanges: ``http_records``) are played into the store's
``HttpLog`` (bounded by its cap) with the exchanges' ids and times, and each entry naming an
exchange in ``meta["exchange"]`` is linked to it as it was live: by the store's rule for the
inspector's own sessions, by the live viewer's (``http_log.link_entry``) for a proxy's
(header ``"client": "proxy"``). A bad ``http`` line is skipped and counted like any other.
"""

from __future__ import annotations

import bisect
import os
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.files import NotRegularFile, open_regular
from ..base.json_text import loads_strict
from .entry import TrafficEntry
from .http_log import apply as apply_http
from .http_log import link_entry
from .http_records import HttpOp
from .recording import FORMAT_NAME, MAX_LINE, Annotation, SessionPages, parse_record, placeholder
from .store import MEM_LIMIT, TrafficStore

MAX_HEADER = 1 << 20  # bytes of the first line; a real header is a few hundred
SKIPPED_KEPT = 1000  # line numbers (and reasons) kept of the skipped lines; the count is exact


class SessionFileError(Exception):
    """The file is not a session file we can read (``str()`` is one line for the user)."""


class LoadCancelled(Exception):
    """``load_session``'s ``cancelled`` said stop."""


@dataclass
class LoadedSession:
    header: dict[str, Any]
    store: TrafficStore
    skipped_lines: list[int] = field(default_factory=list)  # the first SKIPPED_KEPT of them
    skipped: int = 0  # how many lines were skipped in all
    reasons: dict[int, str] = field(default_factory=dict)  # line number -> why (the first SKIPPED_KEPT)

    def describe_skipped(self, lines: int = 5) -> str:
        """One line: how many were skipped, where, and why the first was (empty if none)."""
        if not self.skipped:
            return ""
        numbers = ", ".join(str(n) for n in self.skipped_lines[:lines])
        more = ", …" if self.skipped > lines else ""
        first = self.skipped_lines[0] if self.skipped_lines else None
        why = f"; line {first}: {self.reasons[first]}" if first in self.reasons else ""
        noun = "line" if self.skipped == 1 else "lines"
        return f"{self.skipped} unreadable {noun} skipped (line{'s' if self.skipped > 1 else ''} {numbers}{more}){why}"


def _open_session(path: Path) -> tuple[Any, dict[str, Any], int]:
    """(binary handle after the header, header, its length); SessionFileError (one line) if it is not a session file."""
    try:
        fd = open_regular(path)  # a FIFO, device or directory is refused, never waited on
    except IsADirectoryError:
        raise SessionFileError(f"{path} is a directory, not a session file") from None
    except NotRegularFile as exc:
        raise SessionFileError(f"{path} is {exc.strerror}") from None
    except OSError as exc:
        raise SessionFileError(f"cannot open {path}: {exc.strerror or exc}") from None
    handle = os.fdopen(fd, "rb")
    try:
        first = handle.readline(MAX_HEADER + 1)
        if not first:
            raise SessionFileError(f"{path} is empty, not an mcp-inspector session file")
        if len(first) > MAX_HEADER:
            raise SessionFileError(
                f"{path} is not an mcp-inspector session file (the first line is over {MAX_HEADER} bytes)"
            )
        try:
            header = loads_strict(first)
        except ValueError as exc:
            reason = str(exc).removeprefix("not JSON: ")
            raise SessionFileError(
                f"{path} is not an mcp-inspector session file (first line is not JSON: {reason})"
            ) from None
        if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
            raise SessionFileError(f"{path} is not an mcp-inspector session file (no {FORMAT_NAME} header)")
    except OSError as exc:
        handle.close()
        raise SessionFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    except SessionFileError:
        handle.close()
        raise
    return handle, header, len(first)


def read_header(path: Path | str) -> dict[str, Any]:
    """The header of a session file; SessionFileError if it is not one."""
    handle, header, _ = _open_session(Path(path))
    handle.close()
    return header


def _lines(handle: Any, position: int, number: int, max_line: int) -> Iterator[tuple[int, int, bytes | None]]:
    """(line number, byte offset, line or None if longer than max_line) for every non-blank line."""
    while True:
        line = handle.readline(max_line + 1)
        if not line:
            return
        offset = position
        position += len(line)
        number += 1
        if len(line) > max_line and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip the rest without holding it
                line = handle.readline(1 << 20)
                position += len(line)
            yield number, offset, None
        elif line.strip():
            yield number, offset, line


def _parse(line: bytes | None, max_line: int) -> TrafficEntry | Annotation | HttpOp:
    if line is None:
        raise ValueError(f"the line is longer than {max_line} bytes")
    return parse_record(loads_strict(line))


def iter_session(
    path: Path | str, max_line: int = MAX_LINE
) -> tuple[dict[str, Any], Iterator[tuple[int, TrafficEntry | None]]]:
    """Read a session file lazily: (header, iterator of (line number, entry or None if unreadable)).

    Entries come as written in the file (seqs not checked; annotation and ``http`` lines are left
    out: they change no frame); ``load_session`` makes a store of them, annotations folded in.
    """
    handle, header, size = _open_session(Path(path))

    def entries() -> Iterator[tuple[int, TrafficEntry | None]]:
        with handle:
            for number, _, line in _lines(handle, size, 1, max_line):
                try:
                    parsed = _parse(line, max_line)
                except ValueError:
                    yield number, None
                    continue
                if isinstance(parsed, TrafficEntry):
                    yield number, parsed

    return header, entries()


class _Numbering:
    """The file's seqs -> the store's (dense) seqs: piecewise shifts, one per forward jump."""

    def __init__(self) -> None:
        self.starts: list[int] = []  # file seq where a shift begins (increasing)
        self.shifts: list[int] = []  # store seq = file seq + shift from there on

    def add(self, file_seq: int, shift: int) -> None:
        if self.starts and file_seq <= self.starts[-1]:
            return  # seqs going backwards: renumbered, but links to them cannot be told apart
        if self.shifts and self.shifts[-1] == shift:
            return
        self.starts.append(file_seq)
        self.shifts.append(shift)

    def __call__(self, file_seq: int) -> int:
        index = bisect.bisect_right(self.starts, file_seq) - 1
        return file_seq if index < 0 else file_seq + self.shifts[index]


def load_session(
    path: Path | str,
    cap: int = 1_000_000,
    mem_limit: int = MEM_LIMIT,
    on_entry: Callable[[TrafficEntry], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    max_line: int = MAX_LINE,
) -> LoadedSession:
    """Load a session file into a fresh store, keeping seq numbers and links.

    At most ``cap`` entries (and ``mem_limit`` raw bytes, the newest entry aside) are held in
    memory; the others are read back from the file itself when needed (nothing is copied).
    ``on_entry`` sees every entry as it is loaded (with its links set); ``cancelled`` is asked
    every few thousand lines and stops the load with LoadCancelled. Time and memory are bounded by
    the file: one entry (or the place of one skipped line) per line, whatever the seqs say.
    """
    path = Path(path)
    handle, header, size = _open_session(path)
    store = TrafficStore(cap=cap, mem_limit=mem_limit)
    offsets = array("q")
    numbering = _Numbering()
    loaded = LoadedSession(header, store)
    pages = SessionPages(path, 0, offsets, translate=numbering)
    store.page_from(pages)
    pending: list[int] = []  # line numbers skipped since the last entry: their places come before the next one
    expected: int | None = None  # the store seq the next entry gets
    newest = 0  # the highest file seq seen
    http = False  # an http line was read: entries naming an exchange are linked to it
    proxied = header.get("client") == "proxy"
    with handle:
        for count, (number, offset, line) in enumerate(_lines(handle, size, 1, max_line)):
            if cancelled is not None and count % 4096 == 0 and cancelled():
                raise LoadCancelled(str(path))
            try:
                entry = _parse(line, max_line)
            except ValueError as exc:
                loaded.skipped += 1
                if len(loaded.skipped_lines) < SKIPPED_KEPT:
                    loaded.skipped_lines.append(number)
                    loaded.reasons[number] = str(exc)
                pending.append(number)
                continue
            if isinstance(entry, Annotation):  # a later change of an entry read before: folded back into it
                _fold(store, pages, entry, numbering, offset)
                continue
            if isinstance(entry, HttpOp):
                http = True
                apply_http(store.http_log, entry, numbering)
                continue
            file_seq = entry.seq
            if expected is None:
                expected = file_seq
                pages.first_seq = file_seq
                numbering.add(file_seq, 0)
            elif file_seq > newest:
                # keep the places of skipped lines that the jump in seqs accounts for, no more
                for skipped in pending[: min(len(pending), file_seq - newest - 1)]:
                    store.load_entry(placeholder(expected, entry.ts, skipped, loaded.reasons.get(skipped)))
                    offsets.append(-skipped)
                    expected += 1
                numbering.add(file_seq, expected - file_seq)
            pending.clear()
            newest = max(newest, file_seq)
            entry.seq = expected
            if entry.reply_to is not None:
                entry.reply_to = numbering(entry.reply_to)
            store.load_entry(entry)
            if http and isinstance(entry.meta, dict) and "exchange" in entry.meta:
                _link(store, entry, proxied)
            offsets.append(offset)
            if pages.notes is not None:
                pages.notes.append(0)
            expected += 1
            if on_entry is not None:
                on_entry(entry)
    return loaded


def _link(store: TrafficStore, entry: TrafficEntry, proxied: bool) -> None:
    """An entry an exchange carried, linked as it was live: a proxy's as its viewer links them, the
    inspector's own as ``TrafficStore.append`` did (its request bodies are the ``begin``'s ``frame``)."""
    if proxied:
        link_entry(store.http_log, entry)
    else:
        store.http_log.link(entry.meta["exchange"], entry.seq)  # type: ignore[index]  # a dict: checked by the caller


def _fold(store: TrafficStore, pages: SessionPages, annotation: Annotation, numbering: _Numbering, offset: int) -> None:
    """An annotation line: applied to its entry if it is in memory, and noted for when it is read back
    from the file (evicted now or later). One for an entry not (yet) in the file is ignored."""
    seq = numbering(annotation.seq)
    first = pages.first_seq
    if first is None or not 0 <= seq - first < len(pages):
        return
    if pages.notes is None:
        pages.notes = array("q", bytes(8 * len(pages)))
    pages.notes[seq - first] = offset
    entry = store.get(seq)
    if entry is not None:
        annotation.apply(entry, numbering)
        store.changed()
