"""Session files: the timeline as JSONL, written as it happens and read back.

One JSON object per line. The first line is a header; each further line is one
entry. ``raw`` holds the frame text when it is valid UTF-8, otherwise
``raw_b64`` holds the exact bytes. Each entry is flushed as it is written (when
recording), so the file survives a crash of the server or of the inspector; a
torn last line is skipped on reading.

A session file comes from outside (``--open`` takes any path), so reading one is
bounded by the file itself: every line is parsed by ``json_text.loads_strict``
and checked field by field, a line that fails is skipped and counted with its
line number and reason, a seq that jumps ahead is renumbered rather than filled
(only the places of skipped lines are kept, so links stay right), and no line is
read past ``MAX_LINE`` bytes. Files are created 0600: they hold whatever the
server and the user exchanged.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import os
import stat
import threading
import time
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..protocol.json_text import SAFE_INTEGER, loads_strict
from ..protocol.jsonrpc import Kind
from .store import Direction, TrafficEntry, TrafficStore

FORMAT_NAME = "mcp-inspector-session"
FORMAT_VERSION = 1

MAX_HEADER = 1 << 20  # bytes of the first line; a real header is a few hundred
MAX_LINE = 512 << 20  # bytes of an entry line: a 256 MiB frame (framing's cap), escaped
SKIPPED_KEPT = 1000  # line numbers (and reasons) kept of the skipped lines; the count is exact
FILE_MODE = 0o600


def default_session_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "mcp-inspector" / "sessions"


def create_private(path: Path | str, binary: bool = False):
    """Open ``path`` for writing, created 0600 (an existing file is truncated and keeps its mode).

    The directory must exist: nothing here makes it (a typo in a path is an error, not a new tree).
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    if binary:
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding="utf-8", newline="\n")


def entry_to_record(entry: TrafficEntry) -> dict[str, Any]:
    record: dict[str, Any] = {
        "seq": entry.seq,
        "ts": round(entry.ts, 6),
        "dir": entry.direction.value,
        "kind": entry.kind.value,
    }
    try:
        record["raw"] = entry.raw.decode("utf-8")
    except UnicodeDecodeError:
        record["raw_b64"] = base64.b64encode(entry.raw).decode("ascii")
    for name in ("method", "problem", "error_code", "reply_to", "latency_ms", "meta"):
        value = getattr(entry, name)
        if value is not None:
            record[name] = value
    if entry.has_id:
        record["id"] = entry.msg_id
    if entry.late:
        record["late"] = True
    return record


_DIRECTIONS = {d.value: d for d in Direction}
_KINDS = {k.value: k for k in Kind}


def _wrong(name: str, value: Any) -> ValueError:
    return ValueError(f"{name!r} is {'missing' if value is None else 'not valid'} ({type(value).__name__})")


def _seq_like(value: Any, name: str) -> int:
    # Values come from JSON, so exact types: bool is not an int here.
    if type(value) is not int or not 0 < value <= SAFE_INTEGER:
        raise _wrong(name, value)
    return value


def _float(value: Any, name: str) -> float:
    if type(value) is float:  # loads_strict admits no NaN or infinity
        return value
    if type(value) is int and abs(value) < 2**1000:
        return float(value)
    raise _wrong(name, value)


def record_to_entry(record: Any) -> TrafficEntry:
    """An entry from one parsed line; ValueError (one line) if a field is missing or of the wrong type."""
    if type(record) is not dict:
        raise ValueError(f"the line is a JSON {type(record).__name__}, not an object")
    get = record.get
    seq = _seq_like(get("seq"), "seq")
    ts = _float(get("ts"), "ts")
    direction = _DIRECTIONS.get(get("dir"))  # type: ignore[arg-type]
    kind = _KINDS.get(get("kind"))  # type: ignore[arg-type]
    if direction is None or kind is None:
        raise ValueError("unknown 'dir' or 'kind'")
    text = get("raw")
    if type(text) is str:
        raw = text.encode("utf-8", errors="surrogatepass")
    elif text is not None:
        raise _wrong("raw", text)
    else:
        encoded = get("raw_b64", "")
        if type(encoded) is not str:
            raise _wrong("raw_b64", encoded)
        try:
            raw = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("'raw_b64' is not base64") from None
    method, problem, error_code, reply_to, latency_ms, late, meta = (
        get("method"), get("problem"), get("error_code"), get("reply_to"), get("latency_ms"), get("late", False), get("meta"))
    if method is not None and type(method) is not str:
        raise _wrong("method", method)
    if problem is not None and type(problem) is not str:
        raise _wrong("problem", problem)
    if error_code is not None and type(error_code) is not int:
        raise _wrong("error_code", error_code)
    if reply_to is not None:
        reply_to = _seq_like(reply_to, "reply_to")
    if latency_ms is not None:
        latency_ms = _float(latency_ms, "latency_ms")
    if type(late) is not bool:
        raise _wrong("late", late)
    if meta is not None and type(meta) is not dict:
        raise _wrong("meta", meta)
    return TrafficEntry(seq, ts, direction, kind, raw, method, get("id"), "id" in record, problem, error_code,
                        reply_to, None, latency_ms, late, meta)


class SessionWriter:
    """Appends entries to a JSONL session file. Usable as a store listener.

    The file is created 0600 and its directory must exist. The writer notes the byte
    offset of every entry line, so a store can read evicted entries back (:meth:`pages`).
    """

    def __init__(self, path: Path | str, header: dict[str, Any] | None = None, flush_each: bool = True) -> None:
        self.path = Path(path)
        self._file = create_private(self.path)
        self._flush_each = flush_each
        head = {"type": "header", "format": FORMAT_NAME, "version": FORMAT_VERSION, "started": time.time()}
        head.update(header or {})
        line = json.dumps(head, ensure_ascii=False) + "\n"
        self._file.write(line)
        self._file.flush()
        self._position = len(line.encode("utf-8"))
        self.first_seq: int | None = None  # seq of offsets[0]
        self.offsets = array("q")  # byte offset of each entry line, while the seqs written follow on

    def __call__(self, entry: TrafficEntry) -> None:
        self.write_entry(entry)

    def write_entry(self, entry: TrafficEntry) -> None:
        if self._file.closed:
            return
        line = json.dumps(entry_to_record(entry)) + "\n"  # ASCII: lone surrogates survive, and len() is bytes
        self._file.write(line)
        if self.first_seq is None:
            self.first_seq = entry.seq
        if entry.seq == self.first_seq + len(self.offsets):
            self.offsets.append(self._position)
        self._position += len(line)
        if self._flush_each:
            self._file.flush()

    def pages(self, owned: bool = False) -> "SessionPages":
        """Read entries back from this file by seq; ``owned``: the file is removed when the pages close."""
        return SessionPages(self.path, self, self.offsets, owned=owned, flush=self.flush)

    def flush(self) -> None:
        if not self._file.closed:
            self._file.flush()

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


class SessionPages:
    """Entries of a session file found again by their line's byte offset (a store's evicted entries).

    ``offsets[i]`` is the offset of the entry whose seq is ``first_seq + i``; a negative
    value ``-n`` marks the place of line ``n``, which could not be read. ``first`` is an
    int or an object with a ``first_seq`` attribute (a writer still filling ``offsets``).
    ``translate`` maps a ``reply_to`` read from the file to the store's numbering.
    """

    def __init__(self, path: Path, first: Any, offsets: array, translate: Callable[[int], int] | None = None,
                 owned: bool = False, flush: Callable[[], None] | None = None) -> None:
        self.path = Path(path)
        self._first = first
        self._offsets = offsets
        self._translate = translate
        self._owned = owned
        self._flush = flush
        self._handle = None
        self._lock = threading.Lock()  # an export thread reads while the app may page too
        self._closed = False

    @property
    def first_seq(self) -> int | None:
        return self._first if isinstance(self._first, int) else self._first.first_seq

    def _offset(self, seq: int) -> int | None:
        first = self.first_seq
        if first is None or not 0 <= seq - first < len(self._offsets):
            return None
        return self._offsets[seq - first]

    def _entry(self, seq: int, offset: int, line: bytes) -> TrafficEntry:
        if offset < 0:
            return placeholder(seq, 0.0, -offset, None)
        try:
            entry = record_to_entry(loads_strict(line))
        except ValueError as exc:  # the file changed under us
            return placeholder(seq, 0.0, None, str(exc))
        entry.seq = seq
        if entry.reply_to is not None and self._translate is not None:
            entry.reply_to = self._translate(entry.reply_to)
        return entry

    def _open(self):
        if self._handle is None:
            if self._flush is not None:
                self._flush()
            self._handle = open(self.path, "rb")
        return self._handle

    def read(self, seq: int) -> TrafficEntry | None:
        offset = self._offset(seq)
        if offset is None or self._closed:
            return None
        with self._lock:
            try:
                if offset < 0:
                    return self._entry(seq, offset, b"")
                handle = self._open()
                handle.seek(offset)
                line = handle.readline(MAX_LINE + 1)
            except OSError:
                return None
        return self._entry(seq, offset, line)

    def iter_range(self, start: int, stop: int) -> Iterator[TrafficEntry]:
        """The entries with start <= seq < stop that the file has, in order, read sequentially."""
        first = self.first_seq
        if first is None or self._closed:
            return
        seq = max(start, first)
        stop = min(stop, first + len(self._offsets))
        if seq >= stop:
            return
        if self._flush is not None:
            self._flush()
        try:
            with open(self.path, "rb") as handle:  # its own handle: read() may seek the shared one meanwhile
                for seq in range(seq, stop):
                    offset = self._offsets[seq - first]
                    line = b""
                    if offset >= 0:
                        if handle.tell() != offset:
                            handle.seek(offset)
                        line = handle.readline(MAX_LINE + 1)
                    yield self._entry(seq, offset, line)
        except OSError:
            return

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._handle is not None:
                self._handle.close()
                self._handle = None
            if self._owned:
                try:
                    os.unlink(self.path)
                except OSError:
                    pass


def placeholder(seq: int, ts: float, line: int | None, reason: str | None) -> TrafficEntry:
    """The place of an entry line that could not be read, so the seqs after it stay right."""
    where = f"line {line} of the session file" if line is not None else "an entry of the session file"
    text = f"(unreadable: {where}" + (f": {reason})" if reason else ")")
    return TrafficEntry(seq, ts, Direction.LOCAL, Kind.EVENT, text.encode("utf-8"), problem="unreadable entry")


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
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)  # a FIFO must not block the open
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise SessionFileError(f"cannot open {path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise SessionFileError(f"cannot open {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise SessionFileError(f"{path} is {what}, not a session file")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    handle = os.fdopen(fd, "rb")
    try:
        first = handle.readline(MAX_HEADER + 1)
        if not first:
            raise SessionFileError(f"{path} is empty, not an mcp-inspector session file")
        if len(first) > MAX_HEADER:
            raise SessionFileError(f"{path} is not an mcp-inspector session file (the first line is over {MAX_HEADER} bytes)")
        try:
            header = loads_strict(first)
        except ValueError as exc:
            reason = str(exc).removeprefix("not JSON: ")
            raise SessionFileError(f"{path} is not an mcp-inspector session file (first line is not JSON: {reason})") from None
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


def _parse(line: bytes | None, max_line: int) -> TrafficEntry:
    if line is None:
        raise ValueError(f"the line is longer than {max_line} bytes")
    return record_to_entry(loads_strict(line))


def iter_session(path: Path | str, max_line: int = MAX_LINE) -> tuple[dict[str, Any], Iterator[tuple[int, TrafficEntry | None]]]:
    """Read a session file lazily: (header, iterator of (line number, entry or None if unreadable)).

    Entries come as written in the file (seqs not checked); ``load_session`` makes a store of them.
    """
    handle, header, size = _open_session(Path(path))

    def entries() -> Iterator[tuple[int, TrafficEntry | None]]:
        with handle:
            for number, _, line in _lines(handle, size, 1, max_line):
                try:
                    yield number, _parse(line, max_line)
                except ValueError:
                    yield number, None

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


def load_session(path: Path | str, cap: int = 1_000_000, on_entry: Callable[[TrafficEntry], None] | None = None,
                 cancelled: Callable[[], bool] | None = None, max_line: int = MAX_LINE) -> LoadedSession:
    """Load a session file into a fresh store, keeping seq numbers and links.

    At most ``cap`` entries are held in memory; the others are read back from the
    file itself when needed (nothing is copied). ``on_entry`` sees every entry as it
    is loaded (with its links set); ``cancelled`` is asked every few thousand lines
    and stops the load with LoadCancelled. Time and memory are bounded by the file:
    one entry (or the place of one skipped line) per line, whatever the seqs say.
    """
    path = Path(path)
    handle, header, size = _open_session(path)
    store = TrafficStore(cap=cap)
    offsets = array("q")
    numbering = _Numbering()
    loaded = LoadedSession(header, store)
    pages = SessionPages(path, 0, offsets, translate=numbering)
    store.page_from(pages)
    pending: list[int] = []  # line numbers skipped since the last entry: their places come before the next one
    expected: int | None = None  # the store seq the next entry gets
    newest = 0  # the highest file seq seen
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
            file_seq = entry.seq
            if expected is None:
                expected = file_seq
                pages._first = file_seq
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
            offsets.append(offset)
            expected += 1
            if on_entry is not None:
                on_entry(entry)
    return loaded
