"""Write the timeline held in memory to a file people or tools can read later.

``export_session`` uses the recording format (JSONL with a header), so an
export opens again with ``--open``; ``export_json`` writes one JSON array for
people and ad-hoc scripts. Both take a snapshot of the entries first, so the
store may keep growing while the file is written (e.g. from a thread).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .recording import FORMAT_NAME, FORMAT_VERSION, default_session_dir, entry_to_record
from .traffic import TrafficStore


@dataclass(frozen=True)
class ExportResult:
    """What was written, and what could not be (because it left memory earlier)."""

    path: Path
    entries: int
    evicted: int  # entries dropped from memory before the export (not in this file)
    spill_file: Path | None  # where those evicted entries live, if anywhere

    def describe(self) -> str:
        text = f"{self.entries} entries written to {self.path}"
        if self.evicted:
            where = f" (they are in {self.spill_file})" if self.spill_file else ""
            text += f"; {self.evicted} older entries had left memory and are not included{where}"
        return text


def default_export_path(suffix: str = ".jsonl") -> Path:
    """A fresh file name in the sessions directory."""
    return default_session_dir() / time.strftime(f"export-%Y%m%d-%H%M%S{suffix}")


def _evicted(store: TrafficStore) -> tuple[int, Path | None]:
    count = store.total - len(store)
    return count, (store.session_file if count else None)


def export_session(store: TrafficStore, path: Path | str, header: dict[str, Any] | None = None) -> ExportResult:
    """Write every in-memory entry as a session file (the ``--record`` format)."""
    path = Path(path)
    entries = list(store)  # snapshot: a list copy is atomic, the store may grow meanwhile
    evicted, spill = _evicted(store)
    head: dict[str, Any] = {"type": "header", "format": FORMAT_NAME, "version": FORMAT_VERSION,
                            "started": entries[0].ts if entries else time.time(), "exported": time.time()}
    head.update(header or {})
    if evicted:
        head["evicted"] = evicted
        head["note"] = f"{evicted} older entries had left memory before this export"
        if spill is not None:
            head["spill_file"] = str(spill)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(json.dumps(head, ensure_ascii=False) + "\n")
        for entry in entries:
            handle.write(json.dumps(entry_to_record(entry), ensure_ascii=False) + "\n")
    return ExportResult(path, len(entries), evicted, spill)


def export_json(store: TrafficStore, path: Path | str) -> ExportResult:
    """Write every in-memory entry as one indented JSON array (frames parsed when they are JSON)."""
    path = Path(path)
    entries = list(store)
    evicted, spill = _evicted(store)
    items = []
    for entry in entries:
        record = entry_to_record(entry)
        if "raw" in record and entry.kind.value not in ("stderr", "event", "invalid"):
            try:
                record["message"] = json.loads(record.pop("raw"))
            except ValueError:
                record["raw"] = entry.raw.decode("utf-8", errors="replace")
        items.append(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        json.dump(items, handle, ensure_ascii=False, indent=2)
        handle.write("\n")
    return ExportResult(path, len(entries), evicted, spill)
