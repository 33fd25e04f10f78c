"""Write the timeline held in memory to a file people or tools can read later.

``export_session`` uses the recording format (JSONL with a header), so an
export opens again with ``--open``; ``export_json`` writes one JSON array for
people and ad-hoc scripts. Both take a snapshot of the entries first, so the
store may keep growing while the file is written (e.g. from a thread). Entries
that left memory are read back from the store's file (recording, opened file or
spill file) and written too; only what cannot be read back is left out, and said.
Files are created 0600 (they hold whatever the server sent).

A remote server's session also has its HTTP exchanges (the store's ``HttpLog``): both files carry
them as the ``http`` records a recording has (``http_log.exchange_records``: masked already, and
scrubbed like entries), in time order among the entries, each exchange's ``begin`` before the first
entry naming it, so ``--open`` of an export rebuilds the same exchanges, linked to the same frames.
A stdio session has none and its file is as before. In the JSON array they are items with
``"type": "http"`` (an entry has no ``type``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.files import open_private
from ..base.json_text import dumps_strict, loads_strict
from ..base.masking import scrub_value
from .entry import TrafficEntry
from .http_log import exchange_records
from .recording import FORMAT_NAME, FORMAT_VERSION, default_session_dir, entry_to_record, record_line
from .store import TrafficStore


@dataclass(frozen=True)
class ExportResult:
    """What was written, and what could not be (because it left memory earlier)."""

    path: Path
    entries: int
    evicted: int  # entries dropped from memory before the export (not in this file)
    spill_file: Path | None  # where those evicted entries live, if anywhere
    exchanges: int = 0  # HTTP exchanges written (a remote server's)

    def describe(self) -> str:
        http = f" and {self.exchanges} HTTP exchanges" if self.exchanges else ""
        text = f"{self.entries} entries{http} written to {self.path}"
        if self.evicted:
            where = f" (they are in {self.spill_file})" if self.spill_file else ""
            text += f"; {self.evicted} older entries had left memory and are not included{where}"
        return text


def default_export_path(suffix: str = ".jsonl") -> Path:
    """A fresh file name in the sessions directory."""
    return default_session_dir() / time.strftime(f"export-%Y%m%d-%H%M%S{suffix}")


def _snapshot(store: TrafficStore) -> tuple[list[TrafficEntry], int, Path | None]:
    """(every entry that can be had, in order; how many before the newest could not; the file they are in)."""
    base = store.base_seq
    entries = list(store.iter_all())  # evicted ones read back from their file, then a copy of memory
    missing = (entries[-1].seq - base + 1 - len(entries)) if entries else 0
    return entries, missing, (store.session_file if missing else None)


def _http_records(store: TrafficStore) -> list[tuple[float, dict[str, Any]]]:
    """Every exchange's records (none for a session without an HTTP log), ordered by time; an
    exchange's own stay in their order (a record never sorts before the one it follows)."""
    log = store.http_log_if_any
    if log is None:
        return []
    keyed: list[tuple[float, int, dict[str, Any]]] = []
    for exchange in list(log.exchanges):  # one C call: a copy even while a transport appends
        last = float("-inf")
        for record in exchange_records(exchange):
            last = max(last, record["at"])
            keyed.append((last, len(keyed), record))
    keyed.sort(key=lambda item: (item[0], item[1]))
    return [(at, scrub_value(record)) for at, _, record in keyed]  # type: ignore[misc]  # a dict stays a dict


def _begun(records: list[tuple[float, dict[str, Any]]]) -> int:
    return sum(1 for _, record in records if record["op"] == "begin")


def _merged(
    entries: list[TrafficEntry], records: list[tuple[float, dict[str, Any]]]
) -> Iterator[TrafficEntry | dict[str, Any]]:
    """Entries and http records by time (entries first on a tie, as live: the frame, then its
    exchange's ``begin``); an exchange's ``begin`` comes no later than the first entry naming it,
    which the loader links to it only if it is begun."""
    if not records:
        yield from entries
        return
    begins = {record["exchange"]: record for _, record in records if record["op"] == "begin"}
    written: set[int] = set()  # ids of the begins written
    index, count = 0, len(records)
    for entry in entries:
        while index < count and records[index][0] < entry.ts:
            record = records[index][1]
            index += 1
            if record["op"] == "begin":
                if id(record) in written:
                    continue  # written ahead of its time
                written.add(id(record))
            yield record
        meta = entry.meta
        exchange = meta.get("exchange") if isinstance(meta, dict) else None
        begin = begins.get(exchange) if type(exchange) is int else None
        if begin is not None and id(begin) not in written:
            written.add(id(begin))
            yield begin
        yield entry
    for _, record in records[index:]:
        if id(record) not in written:
            yield record


def _private_parent(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)


def export_session(store: TrafficStore, path: Path | str, header: dict[str, Any] | None = None) -> ExportResult:
    """Write every entry (those that left memory read back from the store's file) as a session file,
    the HTTP exchanges as ``http`` lines among them."""
    path = Path(path)
    entries, evicted, spill = _snapshot(store)
    head: dict[str, Any] = {
        "type": "header",
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "started": entries[0].ts if entries else time.time(),
        "exported": time.time(),
    }
    head.update(header or {})
    if evicted:
        head["evicted"] = evicted
        head["note"] = f"{evicted} older entries had left memory before this export and could not be read back"
        if spill is not None:
            head["spill_file"] = str(spill)
    _private_parent(path)
    with open_private(path) as handle:
        handle.write(dumps_strict(head, ensure_ascii=False) + "\n")
        records = _http_records(store)
        for item in _merged(entries, records):
            record = item if isinstance(item, dict) else entry_to_record(item)
            handle.write(record_line(record) + "\n")
    return ExportResult(path, len(entries), evicted, spill, _begun(records))


def export_json(store: TrafficStore, path: Path | str) -> ExportResult:
    """Write every entry as one indented JSON array (frames parsed when they are JSON), the
    ``http`` records among them."""
    path = Path(path)
    entries, evicted, spill = _snapshot(store)
    items: list[dict[str, Any]] = []
    records = _http_records(store)
    for entry in _merged(entries, records):
        if isinstance(entry, dict):  # an http record, as in the session file
            items.append(entry)
            continue
        record = entry_to_record(entry)
        if "raw" in record and entry.kind.value not in ("stderr", "event", "invalid"):
            try:
                record["message"] = loads_strict(record["raw"])
                del record["raw"]
            except ValueError:
                pass
        items.append(record)
    _private_parent(path)
    with open_private(path) as handle:
        handle.write(dumps_strict(items, ensure_ascii=False, indent=2) + "\n")
    return ExportResult(path, len(entries), evicted, spill, _begun(records))
