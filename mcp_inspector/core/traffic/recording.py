"""Session files: the timeline as JSONL, written as it happens and read back by page.

One JSON object per line. The first line is a header; each further line is one
entry, or an annotation. ``raw`` holds the frame text when it is valid UTF-8, otherwise
``raw_b64`` holds the exact bytes. An entry changed after it was written (a problem
found later: ``TrafficStore.flag``, a link: ``TrafficStore.link``) gets an annotation
line with those fields as they are now
(``{"type": "annotation", "seq": N, "problem": ..., "reply_to": ..., "latency_ms": ...}``);
readers fold it back into entry N (the last one wins). An HTTP server's exchanges (the direct
client's, from its ``HttpLog``; the HTTP proxy's) come as ``{"type": "http", "op": ..., "exchange": N,
...}`` lines among the entries, in the order things happened (``http_records`` has the shape: ``begin``,
``response``, each SSE ``event``, ``body``, ``finish``; URL and headers masked); readers play them into
the store's ``HttpLog``, and the frames name their exchange in ``meta["exchange"]`` as live. A file
without them (older, or stdio) simply has none. Each entry is flushed as it is
written (when recording), so the file survives a crash of the server or of the inspector; a
torn last line is skipped on reading. Files are opened by ``base.files.open_private``
(0600, never through a symbolic link, never a FIFO): they hold whatever the server and the
user exchanged.

Opening a session file from outside (``--open``) into a store is ``loading``'s part.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import math
import os
import threading
import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.files import open_private
from ..base.json_text import SAFE_INTEGER, dumps_strict, loads_strict
from ..base.jsonrpc import Kind
from ..base.masking import scrub_bytes, scrub_value
from . import http_records
from .entry import Direction, TrafficEntry

FORMAT_NAME = "mcp-inspector-session"
#: Still 1 with the ``http`` lines: an older reader skips them as unreadable lines (counted, said) and
#: reads every entry and annotation as before, so nothing is misread; the version would not change that.
FORMAT_VERSION = 1

MAX_LINE = 512 << 20  # bytes of an entry line: a 256 MiB frame (framing's cap), escaped


def default_session_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "mcp-inspector" / "sessions"


def entry_to_record(entry: TrafficEntry) -> dict[str, Any]:
    """One line of a session file. A secret this process holds (``masking.remember_secret``:
    tokens, client secrets...) is masked wherever it appears, e.g. a server echoing a token."""
    record: dict[str, Any] = {
        "seq": entry.seq,
        "ts": round(entry.ts, 6),
        "dir": entry.direction.value,
        "kind": entry.kind.value,
    }
    raw = scrub_bytes(entry.raw)
    try:
        record["raw"] = raw.decode("utf-8")
    except UnicodeDecodeError:
        record["raw_b64"] = base64.b64encode(raw).decode("ascii")
    for name in ("method", "problem", "error_code", "reply_to", "latency_ms", "meta"):
        value = getattr(entry, name)
        if value is not None:
            record[name] = scrub_value(value) if name in ("problem", "meta") else value
    if entry.has_id:
        msg_id = entry.msg_id
        if type(msg_id) is float and not math.isfinite(msg_id):  # a server's 1e400 or NaN, read leniently
            record["id"] = None  # strict JSON has no such number (record_line)
            record["id_nonfinite"] = repr(msg_id)  # "inf", "-inf" or "nan": read back as that float
        else:
            record["id"] = msg_id
    if entry.late:
        record["late"] = True
    return record


def record_line(record: dict[str, Any]) -> str:
    """One line of a session file (without its newline): strict JSON, ASCII (lone surrogates survive
    and ``len()`` is bytes). Every line any writer puts in a session file is made here."""
    return dumps_strict(record)


ANNOTATED = ("problem", "reply_to", "latency_ms")  # the fields of an entry that may change after it is written


def annotation_record(entry: TrafficEntry) -> dict[str, Any]:
    """The annotation line of an entry written earlier: its changeable fields as they are now."""
    record: dict[str, Any] = {"type": "annotation", "seq": entry.seq}
    for name in ANNOTATED:
        value = getattr(entry, name)
        if value is not None:
            record[name] = scrub_value(value) if name == "problem" else value
    return record


def is_annotation(record: Any) -> bool:
    return type(record) is dict and record.get("type") == "annotation"


@dataclass(slots=True)
class Annotation:
    """An annotation line, read: the seq of the entry it changes and the fields it sets."""

    seq: int
    fields: dict[str, Any]

    def apply(self, entry: TrafficEntry, translate: Callable[[int], int] | None = None) -> None:
        for name, value in self.fields.items():
            if name == "reply_to" and translate is not None:
                value = translate(value)
            setattr(entry, name, value)


def record_to_annotation(record: dict[str, Any]) -> Annotation:
    """An annotation from one parsed line; ValueError (one line) if a field is of the wrong type."""
    seq = _seq_like(record.get("seq"), "seq")
    fields: dict[str, Any] = {}
    problem = record.get("problem")
    if problem is not None:
        if type(problem) is not str:
            raise _wrong("problem", problem)
        fields["problem"] = problem
    if record.get("reply_to") is not None:
        fields["reply_to"] = _seq_like(record["reply_to"], "reply_to")
    if record.get("latency_ms") is not None:
        fields["latency_ms"] = _float(record["latency_ms"], "latency_ms")
    return Annotation(seq, fields)


def parse_record(record: Any) -> TrafficEntry | Annotation | http_records.HttpOp:
    """One parsed line after the header: an entry, an annotation or an HTTP exchange's record;
    ValueError (one line) if none."""
    if is_annotation(record):
        return record_to_annotation(record)
    if http_records.is_http(record):
        return http_records.parse(record)
    return record_to_entry(record)


_NONFINITE = ("inf", "-inf", "nan")
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
    direction = _DIRECTIONS.get(get("dir"))  # type: ignore[arg-type]  # a missing or odd value is looked up as it is and gives None
    kind = _KINDS.get(get("kind"))  # type: ignore[arg-type]  # a missing or odd value is looked up as it is and gives None
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
        get("method"),
        get("problem"),
        get("error_code"),
        get("reply_to"),
        get("latency_ms"),
        get("late", False),
        get("meta"),
    )
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
    msg_id = get("id")
    nonfinite = get("id_nonfinite")
    if nonfinite is not None:
        if nonfinite not in _NONFINITE or msg_id is not None:
            raise _wrong("id_nonfinite", nonfinite)
        msg_id = float(nonfinite)
    return TrafficEntry(
        seq,
        ts,
        direction,
        kind,
        raw,
        method,
        msg_id,
        "id" in record,
        problem,
        error_code,
        reply_to,
        None,
        latency_ms,
        late,
        meta,
    )


class SessionWriter:
    """Appends entries to a JSONL session file. Usable as a store listener.

    The file is created 0600 and its directory must exist. The writer notes the byte
    offset of every entry line, so a store can read evicted entries back (:meth:`pages`),
    and of the last annotation line of each entry (``notes``, made at the first one).
    """

    def __init__(self, path: Path | str, header: dict[str, Any] | None = None, flush_each: bool = True) -> None:
        self.path = Path(path)
        self._file = open_private(self.path)
        self._flush_each = flush_each
        head = {"type": "header", "format": FORMAT_NAME, "version": FORMAT_VERSION, "started": time.time()}
        head.update(header or {})
        line = dumps_strict(head, ensure_ascii=False) + "\n"
        self._file.write(line)
        self._file.flush()
        self._position = len(line.encode("utf-8"))
        self.first_seq: int | None = None  # seq of offsets[0]
        self.offsets = array("q")  # byte offset of each entry line, while the seqs written follow on
        self.notes: array | None = None  # beside offsets: the offset of an entry's last annotation line, or 0
        self.last_seq = 0  # the newest seq written
        #: The entry written last and its line, for another listener of the same store to reuse
        #: rather than encode it again (the proxy's live feed: core/proxy/sink.py).
        self.last_line: tuple[TrafficEntry, str] | None = None

    def __call__(self, entry: TrafficEntry) -> None:
        self.write_entry(entry)

    def write_entry(self, entry: TrafficEntry) -> None:
        if self._file.closed:
            return
        line = record_line(entry_to_record(entry)) + "\n"
        self.last_line = (entry, line)
        self._file.write(line)
        if self.first_seq is None:
            self.first_seq = entry.seq
        if entry.seq == self.first_seq + len(self.offsets):
            self.offsets.append(self._position)
            if self.notes is not None:
                self.notes.append(0)
        self.last_seq = max(self.last_seq, entry.seq)
        self._position += len(line)
        if self._flush_each:
            self._file.flush()

    def write_record(self, record: dict[str, Any]) -> None:
        """A line that is no entry (``http_records``'s: an HTTP exchange's step), scrubbed of the
        secrets this process holds like entries are. Flushed like an entry."""
        if self._file.closed:
            return
        line = record_line(scrub_value(record)) + "\n"  # type: ignore[arg-type]  # a dict stays a dict
        self._file.write(line)
        self._position += len(line)
        if self._flush_each:
            self._file.flush()

    def annotate(self, entry: TrafficEntry) -> None:
        """An entry this file has already changed since: an annotation line (nothing if the entry
        is not written yet: it will be, as it is then)."""
        if self._file.closed or self.first_seq is None or not self.first_seq <= entry.seq <= self.last_seq:
            return
        line = record_line(annotation_record(entry)) + "\n"
        self._file.write(line)
        index = entry.seq - self.first_seq
        if index < len(self.offsets):
            if self.notes is None:
                self.notes = array("q", bytes(8 * len(self.offsets)))
            self.notes[index] = self._position
        self._position += len(line)
        self._file.flush()  # also when not flush_each (a spill file): pages may read the entry back at once

    @property
    def size(self) -> int:
        """Bytes written so far (the header included)."""
        return self._position

    def pages(self, owned: bool = False) -> SessionPages:
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
    ``notes[i]`` (``notes``, or the writer's), when not 0, is the offset of the last
    annotation line of that entry, folded into it when it is read back.
    ``translate`` maps a ``reply_to`` read from the file to the store's numbering.
    """

    def __init__(
        self,
        path: Path,
        first: Any,
        offsets: array,
        translate: Callable[[int], int] | None = None,
        owned: bool = False,
        flush: Callable[[], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self._first = first
        self._offsets = offsets
        self._translate = translate
        self._owned = owned
        self._flush = flush
        self._handle = None
        self._lock = threading.Lock()  # an export thread reads while the app may page too
        self._closed = False
        self.notes: array | None = None  # beside offsets (a loaded file's); else the writer's, if any

    @property
    def first_seq(self) -> int | None:
        return self._first if isinstance(self._first, int) else self._first.first_seq

    @first_seq.setter
    def first_seq(self, seq: int) -> None:
        self._first = seq

    def _offset(self, seq: int) -> int | None:
        first = self.first_seq
        if first is None or not 0 <= seq - first < len(self._offsets):
            return None
        return self._offsets[seq - first]

    def __len__(self) -> int:
        """How many entries (from ``first_seq`` on) the file has a place for."""
        return len(self._offsets)

    def _note(self, seq: int) -> int:
        """The offset of the entry's last annotation line, or 0."""
        notes = self.notes if self.notes is not None else getattr(self._first, "notes", None)
        first = self.first_seq
        if notes is None or first is None or not 0 <= seq - first < len(notes):
            return 0
        return notes[seq - first]

    def _entry(self, seq: int, offset: int, line: bytes, note: bytes = b"") -> TrafficEntry:
        if offset < 0:
            return placeholder(seq, 0.0, -offset, None)
        try:
            entry = record_to_entry(loads_strict(line))
        except ValueError as exc:  # the file changed under us
            return placeholder(seq, 0.0, None, str(exc))
        entry.seq = seq
        if entry.reply_to is not None and self._translate is not None:
            entry.reply_to = self._translate(entry.reply_to)
        if note:
            with contextlib.suppress(ValueError):  # the file changed under us: the entry as first written
                record_to_annotation(loads_strict(note)).apply(entry, self._translate)
        return entry

    def _note_line(self, handle: Any, seq: int) -> bytes:
        offset = self._note(seq)
        if not offset:
            return b""
        handle.seek(offset)
        return handle.readline(MAX_LINE + 1)

    def _open(self):
        if self._handle is None:
            if self._flush is not None:
                self._flush()
            self._handle = open(self.path, "rb")  # noqa: SIM115 kept open for reads until close() closes it
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
                note = self._note_line(handle, seq)
            except OSError:
                return None
        return self._entry(seq, offset, line, note)

    def iter_range(self, start: int, stop: int) -> Iterator[TrafficEntry]:
        """The entries with start <= seq < stop that the file has, in order, read sequentially."""
        first = self.first_seq
        if first is None or self._closed:
            return
        start = max(start, first)
        stop = min(stop, first + len(self._offsets))
        if start >= stop:
            return
        if self._flush is not None:
            self._flush()
        try:
            with open(self.path, "rb") as handle:  # its own handle: read() may seek the shared one meanwhile
                for seq in range(start, stop):
                    offset = self._offsets[seq - first]
                    line = note = b""
                    if offset >= 0:
                        if handle.tell() != offset:
                            handle.seek(offset)
                        line = handle.readline(MAX_LINE + 1)
                        note = self._note_line(handle, seq)
                    yield self._entry(seq, offset, line, note)
        except OSError:
            return

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._handle is not None:
                self._handle.close()
                self._handle = None
            if self._owned:
                with contextlib.suppress(OSError):
                    os.unlink(self.path)


def placeholder(seq: int, ts: float, line: int | None, reason: str | None) -> TrafficEntry:
    """The place of an entry line that could not be read, so the seqs after it stay right."""
    where = f"line {line} of the session file" if line is not None else "an entry of the session file"
    text = f"(unreadable: {where}" + (f": {reason})" if reason else ")")
    return TrafficEntry(seq, ts, Direction.LOCAL, Kind.EVENT, text.encode("utf-8"), problem="unreadable entry")
