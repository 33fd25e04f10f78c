"""The traffic timeline: every frame, stderr line and process event, in order.

The store is the single source of truth that the TUI's log view, the CLI and
the recorder read. Memory is bounded: past ``cap`` entries, or past ``mem_limit``
bytes of raw frames held (a few huge results), the oldest are dropped from memory
(never the newest), and they live on in a session file, never silently lost:
the ``--record`` file, the file the store was loaded from (``--open``: nothing
is copied), or else a spill file the store opens for itself and removes when it
is closed. :meth:`TrafficStore.fetch` and :meth:`TrafficStore.iter_all` read
evicted entries back from that file by their line's byte offset.

The spill file has a limit too (``spill_limit`` bytes, 1 GiB by default): a server that
floods for hours must not fill the disk. Past it, evicted entries are dropped, said once
in the timeline and counted in ``dropped``; ``--record`` keeps everything.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base.jsonrpc import Kind
from .entry import Direction, TrafficEntry

if TYPE_CHECKING:
    from .http_log import HttpLog

Listener = Callable[[TrafficEntry], None]
SPILL_LIMIT = 1 << 30  # bytes a store's own spill file may grow to
# Raw bytes held in memory: framing's frame cap (256 MiB), so the store holds at most about two of the largest
# frames a transport accepts (this budget and the newest). Ordinary traffic (200,000 entries under 1.3 KB each on
# average) stays under it: ``cap`` bounds it, and only big results are paged out.
MEM_LIMIT = 256 << 20


class TrafficStore:
    """An append-only, seq-numbered timeline with a memory cap."""

    def __init__(
        self,
        cap: int = 200_000,
        spill_dir: Path | None = None,
        clock: Callable[[], float] = time.time,
        spill_limit: int = SPILL_LIMIT,
        mem_limit: int = MEM_LIMIT,
        spill: bool = True,
    ) -> None:
        """``spill=False``: an owner that keeps every frame elsewhere itself (``pipe`` prints each one
        as it comes and never reads one back) has evicted entries dropped, not written to a spill
        file (~25 us per entry, most of a long pipe's cost per call); ``dropped`` counts them."""
        if cap < 10:
            raise ValueError("cap must be at least 10")
        if mem_limit < 1:
            raise ValueError("mem_limit must be positive")
        self.cap = cap
        self.mem_limit = mem_limit
        self._held = 0  # len(raw) summed over self._entries
        self._entries: list[TrafficEntry] = []
        self._first_seq = 1  # seq of self._entries[0]
        self._base_seq = 1  # seq of the first entry ever (a loaded export may start later)
        self._next_seq = 1
        self._listeners: list[Listener] = []
        self._clock = clock
        self._spill_dir = spill_dir
        self.spill_limit = spill_limit
        self.spill = spill
        self.dropped = 0  # evicted entries that were not kept anywhere (the spill file was full)
        self._spill = None  # a SessionWriter opened on first eviction, unless a file already keeps everything
        self._pages = None  # recording.SessionPages: where evicted entries are read back from
        self._recorder = None
        self.session_file: Path | None = None
        self._recorded = False
        self.kind_counts: Counter[str] = Counter()
        self.method_counts: Counter[str] = Counter()
        self._method_names: dict[str, str] = {}
        self.version = 0  # bumps on every change (changed()); views poll it
        self._http_log: HttpLog | None = None

    @property
    def http_log(self) -> HttpLog:
        """The HTTP exchanges under the frames of a remote server (empty for stdio). Made on first
        use: a stdio command does not load its module (~2 ms of a cold command)."""
        if self._http_log is None:
            from .http_log import HttpLog

            self._http_log = HttpLog(clock=self._clock)
            self._record_http(self._http_log)
        return self._http_log

    @http_log.setter
    def http_log(self, log: HttpLog) -> None:
        self._http_log = log
        self._record_http(log)

    @property
    def http_log_if_any(self) -> HttpLog | None:
        """The HTTP exchanges if there are any to have (None for a stdio session: none is made)."""
        return self._http_log

    def _record_http(self, log: HttpLog) -> None:
        """The recorder (a session file's writer) writes the log's exchanges too (``http_records``' lines)."""
        write_record = getattr(self._recorder, "write_record", None)
        if write_record is not None:
            log.add_recorder(write_record)

    # -- writing -------------------------------------------------------
    def append(
        self,
        direction: Direction,
        kind: Kind,
        raw: bytes,
        *,
        method: str | None = None,
        msg_id: Any = None,
        has_id: bool = False,
        problem: str | None = None,
        error_code: int | None = None,
        reply_to: int | None = None,
        reply_seq: int | None = None,
        latency_ms: float | None = None,
        late: bool = False,
        meta: dict[str, Any] | None = None,
        ts: float | None = None,
    ) -> TrafficEntry:
        # Explicit keywords and a positional constructor call: this runs for every frame.
        if method is not None:
            method = self._method_names.setdefault(method, method)  # one str per method name, not per frame
        entry = TrafficEntry(
            self._next_seq,
            ts or self._clock(),
            direction,
            kind,
            raw,
            method,
            msg_id,
            has_id,
            problem,
            error_code,
            reply_to,
            reply_seq,
            latency_ms,
            late,
            meta,
        )
        self._next_seq += 1
        entries = self._entries
        entries.append(entry)
        self._held += len(raw)
        self.kind_counts[kind] += 1
        if method is not None:
            self.method_counts[method] += 1
        self.changed()
        if meta is not None and "exchange" in meta:
            self.http_log.link(meta["exchange"], entry.seq)
        if self._listeners:
            self._notify(entry)
        if len(entries) > self.cap + max(1, self.cap // 10) or self._held > self.mem_limit:
            self._trim()
        return entry

    def _notify(self, entry: TrafficEntry) -> None:
        """Call the listeners; one that fails (a full disk under the recorder) is detached and noted."""
        for listener in list(self._listeners):
            try:
                listener(entry)
            except Exception as exc:
                self._listeners.remove(listener)
                self.note(
                    f"stopped calling {getattr(listener, '__qualname__', type(listener).__name__)} after it failed: "
                    f"{exc.__class__.__name__}: {exc}",
                    listener_error=True,
                )

    def load_entry(self, entry: TrafficEntry) -> None:
        """Add an entry read back from a session file, keeping its seq and links.

        Seqs stay dense: the first entry of an empty store sets where they start, and
        an entry whose seq does not follow on is renumbered (the loader in
        ``recording`` fills the places of unreadable lines and translates links).
        """
        if not self._entries and self._next_seq == 1:
            self._base_seq = self._first_seq = self._next_seq = entry.seq
        elif entry.seq != self._next_seq:
            entry.seq = self._next_seq
        self._next_seq = entry.seq + 1
        self._entries.append(entry)
        self._held += len(entry.raw)
        self.kind_counts[entry.kind] += 1
        if entry.method is not None:
            self.method_counts[entry.method] += 1
        if entry.reply_to is not None and entry.kind in (Kind.RESPONSE, Kind.ERROR):
            request = self.get(entry.reply_to)
            if request is not None and request.kind is Kind.REQUEST:
                request.reply_seq = entry.seq
        self.changed()
        if len(self._entries) > self.cap + max(1, self.cap // 10) or self._held > self.mem_limit:
            self._trim()

    def page_from(self, pages: Any) -> None:
        """Evicted entries are in this file already (the one being loaded): read them back from it, never spill."""
        self._pages = pages
        self._recorded = True
        self.session_file = pages.path

    def adopt(self, other: TrafficStore) -> None:
        """Take over everything ``other`` holds (a store loaded in a thread), leaving it empty.

        This store must be empty: the views built on it keep working, and the entries
        that left ``other``'s memory stay readable from the same file.
        """
        if self._next_seq != 1 or self._entries:
            raise ValueError("adopt needs an empty store")
        self._entries, other._entries = other._entries, []
        self._held, other._held = other._held, 0
        self._base_seq, self._first_seq, self._next_seq = other._base_seq, other._first_seq, other._next_seq
        self.kind_counts, other.kind_counts = other.kind_counts, Counter()
        self.method_counts, other.method_counts = other.method_counts, Counter()
        self._pages, other._pages = other._pages, None
        self._spill, other._spill = other._spill, None
        self.session_file, self._recorded = other.session_file, other._recorded
        if other._http_log is not None:  # a loaded file's HTTP exchanges
            self._http_log, other._http_log = other._http_log, None
        self._trim(slack=0)
        self.changed()

    def now(self) -> float:
        """The store's clock (entries' ``ts``), for latencies computed before appending."""
        return self._clock()

    def note(self, text: str, **meta: Any) -> TrafficEntry:
        """Record something the inspector itself observed (process start, exit...)."""
        return self.append(Direction.LOCAL, Kind.EVENT, text.encode("utf-8"), meta=meta or None)

    def changed(self) -> None:
        """Something the views show changed (an entry added or edited, a link made): the one place
        ``version`` moves. An edit of a recorded field goes through :meth:`flag` or :meth:`link`."""
        self.version += 1

    def flag(self, entry: TrafficEntry | None, problem: str) -> None:
        """Add ``problem`` to an entry's problems (after any it has); nothing when ``entry`` is None.

        The one way to mark an entry after it was appended: the recorder (and the spill file),
        which wrote it already, get an annotation record that readers fold back into it."""
        if entry is not None:
            entry.problem = f"{entry.problem}; {problem}" if entry.problem else problem
            self._annotated(entry)

    def link(self, request: TrafficEntry | None, reply: TrafficEntry, latency_ms: float | None) -> None:
        """Tie a response to its request in both directions (recorded like :meth:`flag`)."""
        if request is not None:
            reply.reply_to = request.seq
            request.reply_seq = reply.seq
        reply.latency_ms = latency_ms
        self._annotated(reply)

    def _annotated(self, entry: TrafficEntry) -> None:
        self.changed()
        for writer in (self._recorder if self._recorder in self._listeners else None, self._spill):
            annotate = getattr(writer, "annotate", None)
            if annotate is None:
                continue
            try:
                annotate(entry)
            except Exception as exc:  # a full disk: said, like a failing listener
                self.note(f"could not record a later change of #{entry.seq}: {exc.__class__.__name__}: {exc}")

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def attach_recorder(self, recorder: Listener) -> None:
        """A recorder that writes every entry means evicted entries need no spill file."""
        self._recorded = True
        self._recorder = recorder
        self.add_listener(recorder)
        if self._http_log is not None:  # else hooked when it is made
            self._record_http(self._http_log)
        path = getattr(recorder, "path", None)
        if path is not None:
            self.session_file = Path(path)

    def _trim(self, slack: int | None = None) -> None:
        """Evict the oldest entries: past ``cap + slack`` entries down to ``cap``; past ``mem_limit`` raw bytes down
        to nine tenths of it, but never the newest entry (the frame just received, which the views show).

        The slack (a tenth of ``cap``) and the tenth of ``mem_limit`` are hysteresis: eviction runs once in a
        while, in batches, not on every append.
        """
        entries = self._entries
        if slack is None:
            slack = max(1, self.cap // 10)
        count = len(entries) - self.cap if len(entries) > self.cap + slack else 0
        if self._held > self.mem_limit:
            held = self._held - sum(len(entry.raw) for entry in entries[:count])
            low = self.mem_limit - self.mem_limit // 10
            while held > low and count < len(entries) - 1:
                held -= len(entries[count].raw)
                count += 1
        if count > 0:
            self._evict(count)

    def _evict(self, count: int) -> None:
        evicted = self._entries[:count]
        del self._entries[:count]
        self._held -= sum(len(entry.raw) for entry in evicted)
        self._first_seq += count
        if self._pages is None and self._recorder is not None and hasattr(self._recorder, "pages"):
            self._pages = self._recorder.pages()
        if not self._recorded:
            if self.spill:
                self._spill_entries(evicted)
            else:
                self.dropped += count

    def _spill_entries(self, entries: list[TrafficEntry]) -> None:
        if self._spill is None:
            from .recording import SessionWriter, default_session_dir  # (only when spilling)

            directory = self._spill_dir or default_session_dir()
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            # Unique per store: two sessions spilling in the same second must not share a file.
            import tempfile  # (only when spilling: with shutil, bz2, lzma, ~8 ms at import)

            handle, name = tempfile.mkstemp(
                prefix=time.strftime("spill-%Y%m%d-%H%M%S-"), suffix=".jsonl", dir=directory
            )
            os.close(handle)
            path = Path(name)
            self._spill = SessionWriter(path, flush_each=False)
            self._pages = self._spill.pages(owned=True)  # removed by close()
            self.session_file = path
        before = self.dropped
        for index, entry in enumerate(entries):
            if self.dropped or self._spill.size >= self.spill_limit:
                self.dropped += len(entries) - index
                break
            self._spill.write_entry(entry)
        self._spill.flush()
        if self.dropped and not before:  # the first drop: say it once
            self.note(
                f"the spill file {self._spill.path} reached {self.spill_limit:,} bytes: older entries leaving "
                "memory from now on are dropped (--record FILE keeps everything)",
                spill_full=True,
            )

    def close(self) -> None:
        """Close the files; a spill file the store made for itself is removed (a recording or an opened file is not)."""
        if self._spill is not None:
            self._spill.close()
        if self._pages is not None:
            self._pages.close()

    # -- reading -------------------------------------------------------
    @property
    def first_seq(self) -> int:
        """The oldest seq still held in memory."""
        return self._first_seq

    @property
    def base_seq(self) -> int:
        """The seq of the first entry ever (1, or where a loaded file started)."""
        return self._base_seq

    @property
    def last_seq(self) -> int:
        """The newest seq, or 0 when empty."""
        return self._next_seq - 1

    @property
    def total(self) -> int:
        """Entries ever appended (including evicted ones)."""
        return self._next_seq - 1

    def __len__(self) -> int:
        """Entries held in memory."""
        return len(self._entries)

    @property
    def held_bytes(self) -> int:
        """Raw bytes of the entries held in memory (kept under ``mem_limit``, the newest entry aside)."""
        return self._held

    def exchange_of(self, entry: TrafficEntry) -> int | None:
        """The HTTP exchange that carried ``entry``: the one it came on (``meta["exchange"]``), or
        for a frame we sent, the one whose request body carried it; None when not over HTTP."""
        exchange_id = entry.meta.get("exchange") if isinstance(entry.meta, dict) else None
        if isinstance(exchange_id, int) and not isinstance(exchange_id, bool):
            return exchange_id
        return self._http_log.carrier(entry.seq) if self._http_log is not None else None

    def get(self, seq: int) -> TrafficEntry | None:
        index = seq - self._first_seq
        if 0 <= index < len(self._entries):
            return self._entries[index]
        return None

    def fetch(self, seq: int) -> TrafficEntry | None:
        """Like :meth:`get`, but an entry that left memory is read back from its file (a fresh object)."""
        entry = self.get(seq)
        if entry is None and seq < self._first_seq and self._pages is not None:
            return self._pages.read(seq)
        return entry

    def iter_all(self) -> Iterator[TrafficEntry]:
        """Every entry, evicted ones read back from their file first, then a snapshot of memory."""
        held = list(self._entries)  # snapshot first: entries evicted meanwhile are in it
        first = held[0].seq if held else self._next_seq
        if self._pages is not None and first > self._base_seq:
            yield from self._pages.iter_range(self._base_seq, first)
        yield from held

    @property
    def pageable(self) -> bool:
        """Whether the entries that left memory can be read back."""
        return self._pages is not None

    def since(self, seq: int) -> list[TrafficEntry]:
        """Entries with a seq greater than ``seq`` that are still in memory."""
        index = max(0, seq + 1 - self._first_seq)
        return self._entries[index:]

    def __iter__(self) -> Iterator[TrafficEntry]:
        return iter(list(self._entries))

    def at(self, index: int) -> TrafficEntry:
        """Positional access into the in-memory window (for virtualised views)."""
        return self._entries[index]
