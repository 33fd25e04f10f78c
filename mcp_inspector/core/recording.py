"""Session files: the timeline as JSONL, written as it happens and read back.

One JSON object per line. The first line is a header; each further line is one
entry. ``raw`` holds the frame text when it is valid UTF-8, otherwise
``raw_b64`` holds the exact bytes. Each entry is flushed as it is written (when
recording), so the file survives a crash of the server or of the inspector; a
torn last line is skipped on reading.
"""

from __future__ import annotations

import base64
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .jsonrpc import Kind
from .traffic import Direction, TrafficEntry, TrafficStore

FORMAT_NAME = "mcp-inspector-session"
FORMAT_VERSION = 1


def default_session_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "mcp-inspector" / "sessions"


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


def record_to_entry(record: dict[str, Any]) -> TrafficEntry:
    raw = record["raw"].encode("utf-8") if "raw" in record else base64.b64decode(record.get("raw_b64", ""))
    return TrafficEntry(
        seq=int(record["seq"]),
        ts=float(record["ts"]),
        direction=Direction(record["dir"]),
        kind=Kind(record["kind"]),
        raw=raw,
        method=record.get("method"),
        msg_id=record.get("id"),
        has_id="id" in record,
        problem=record.get("problem"),
        error_code=record.get("error_code"),
        reply_to=record.get("reply_to"),
        latency_ms=record.get("latency_ms"),
        late=bool(record.get("late", False)),
        meta=record.get("meta"),
    )


class SessionWriter:
    """Appends entries to a JSONL session file. Usable as a store listener."""

    def __init__(self, path: Path | str, header: dict[str, Any] | None = None, flush_each: bool = True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "w", encoding="utf-8", newline="\n")
        self._flush_each = flush_each
        head = {"type": "header", "format": FORMAT_NAME, "version": FORMAT_VERSION, "started": time.time()}
        head.update(header or {})
        self._file.write(json.dumps(head, ensure_ascii=False) + "\n")
        self._file.flush()

    def __call__(self, entry: TrafficEntry) -> None:
        self.write_entry(entry)

    def write_entry(self, entry: TrafficEntry) -> None:
        if self._file.closed:
            return
        self._file.write(json.dumps(entry_to_record(entry)) + "\n")  # ASCII: lone surrogates survive
        if self._flush_each:
            self._file.flush()

    def flush(self) -> None:
        if not self._file.closed:
            self._file.flush()

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


class SessionFileError(Exception):
    """The file is not a session file we can read."""


@dataclass
class LoadedSession:
    header: dict[str, Any]
    store: TrafficStore
    skipped_lines: list[int] = field(default_factory=list)


def _open_session(path: Path) -> tuple[Any, dict[str, Any]]:
    """(open text handle positioned after the header, header); SessionFileError if it is not a session file."""
    try:
        handle = open(path, "r", encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SessionFileError(f"cannot open {path}: {exc.strerror or exc}") from None
    first = handle.readline()
    try:
        header = json.loads(first)
    except ValueError:
        handle.close()
        raise SessionFileError(f"{path} is not an mcp-inspector session file (first line is not JSON)") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        handle.close()
        raise SessionFileError(f"{path} is not an mcp-inspector session file (no {FORMAT_NAME} header)")
    return handle, header


def read_header(path: Path | str) -> dict[str, Any]:
    """The header of a session file; SessionFileError if it is not one."""
    handle, header = _open_session(Path(path))
    handle.close()
    return header


def iter_session(path: Path | str) -> tuple[dict[str, Any], Iterator[tuple[int, TrafficEntry | None]]]:
    """Read a session file lazily: (header, iterator of (line number, entry or None if unreadable))."""
    handle, header = _open_session(Path(path))

    def entries() -> Iterator[tuple[int, TrafficEntry | None]]:
        with handle:
            for number, line in enumerate(handle, start=2):
                if not line.strip():
                    continue
                try:
                    yield number, record_to_entry(json.loads(line))
                except (ValueError, KeyError, TypeError):
                    yield number, None

    return header, entries()


def load_session(path: Path | str, cap: int = 1_000_000) -> LoadedSession:
    """Load a session file into a fresh store, keeping seq numbers and links."""
    header, entries = iter_session(path)
    store = TrafficStore(cap=cap)
    skipped: list[int] = []
    for number, entry in entries:
        if entry is None:
            skipped.append(number)
            continue
        store.load_entry(entry)
    return LoadedSession(header, store, skipped)
