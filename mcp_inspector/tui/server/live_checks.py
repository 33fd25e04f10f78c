"""The live checks of a TUI session: the check engine's frame rules on every frame the store takes.

Frames enter the TUI's store through ``TrafficStore.append`` (the rpc layer of each session, on the
event loop); a :class:`LiveChecker` (core/checks/live.py) is a listener there, so each frame costs
its ``observe`` (about a microsecond: rules indexed by kind and method). The schema and content
checks wait in the checker's bounded queue; :meth:`LiveChecks.tick` drains them from a timer on the
event loop within a time budget: a small one while frames keep coming (the flood goes first), a
larger one when the store is quiet. So ingestion with checks on stays within a few percent of
checks off (``bench/bench_live_checks.py``).

One checker per connection (``session_started``, called by the connection just before it makes a
session, so the handshake is judged with a fresh state: a new server has other capabilities); the
findings of every connection are kept here, in order (bounded), with the worst severity per frame
for the traffic log's marks. A loaded recording is judged the same way, its entries fed in chunks
(``judge_recording``). Findings of the active checks (the probes, ``Run checks``) are merged in with
``add``. No Textual here: the bench drives it as the TUI does.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

from ...core.checks.live import LiveChecker
from ...core.checks.model import Finding, Severity
from ...core.traffic.entry import TrafficEntry
from ...core.traffic.store import TrafficStore

MAX_FINDINGS = 5_000  # kept for the view; past it only counted
BUSY_FRAMES = 200  # frames since the last tick that make the store "busy"
BUSY_BUDGET = 0.002  # seconds of deferred checks per tick while busy
QUIET_BUDGET = 0.020  # ... while quiet
STEP = 4  # frames per drain call (a budget is checked between calls)
RECORDING_CHUNK = 500  # recorded entries observed per tick (observe is cheap; the drain follows)


class LiveChecks:
    """Every finding of the session so far (live rules, deferred checks, probes), and the checkers."""

    def __init__(self, store: TrafficStore, clock: Any = time.perf_counter) -> None:
        self.store = store
        self.clock = clock
        self.findings: list[Finding] = []
        self.counts = {Severity.ERROR: 0, Severity.WARNING: 0, Severity.INFO: 0}
        self.worst: dict[int, Severity] = {}  # seq -> the worst severity of the findings on that frame
        self.version = 0  # bumps with every finding (the view and the traffic log poll it)
        self.checker: LiveChecker | None = None
        self._retired: list[LiveChecker] = []  # earlier connections' checkers with frames still queued
        self._detach: Any = None
        self._keys: set[tuple[str, str, str]] = set()  # findings about no frame, said once
        self._recorded: Iterator[TrafficEntry] | None = None
        self._recording_checker: LiveChecker | None = None
        self._last_seen = store.last_seq
        self._loaded = threading.Event()
        self._preloading = False
        self.load_error: str | None = None
        self.runs = 0  # active check runs finished
        self.progress = ""  # what the active checks are doing ("running ping (2/10)"), set by the screen

    # -- set-up ------------------------------------------------------------------------
    def preload(self) -> None:
        """Import the schema models (0.7-1.7 s) in a thread; nothing is drained before they are in
        (an import on the event loop would freeze it, and a second import would wait on the lock).
        Once: a second call does nothing."""
        if self._preloading:
            return
        self._preloading = True

        def load() -> None:
            try:
                import jsonschema  # noqa: F401 - imported ahead, off the event loop
                import mcp_types.methods  # noqa: F401 - imported ahead, off the event loop
            except Exception as exc:  # noqa: BLE001 - the deferred checks then report their own failure
                self.load_error = f"{exc.__class__.__name__}: {exc}"
            self._loaded.set()

        threading.Thread(target=load, name="live-checks-preload", daemon=True).start()

    @property
    def ready(self) -> bool:
        return self._loaded.is_set()

    async def wait_ready(self) -> None:
        """Until the schema models are in (``preload``): a thread waits on the event, not a poll."""
        if not self._loaded.is_set():
            await asyncio.to_thread(self._loaded.wait)

    def session_started(self, transport: str = "stdio") -> None:
        """A connection is about to make a session: its frames go to a fresh checker."""
        self._retire()
        self.checker = LiveChecker(self.store, transport=transport, on_finding=self._found)
        self._detach = self.store.add_listener(self.checker.observe)  # the bound method: one call less a frame

    def _retire(self) -> None:
        if self._detach is not None:
            self._detach()
            self._detach = None
        if self.checker is not None and self.checker.pending:
            self._retired.append(self.checker)
        self.checker = None

    def close(self) -> None:
        self._retire()
        self._retired.clear()
        self._recorded = None

    def judge_recording(self, transport: str = "stdio") -> None:
        """Judge the entries the store holds (a recording just loaded), a chunk per tick."""
        self._retire()
        self._recording_checker = LiveChecker(self.store, transport=transport, on_finding=self._found)
        self._recorded = iter(list(self.store))

    # -- findings ----------------------------------------------------------------------
    def _found(self, item: Finding) -> None:
        if item.seq is None:
            if item.key in self._keys:
                return
            self._keys.add(item.key)
        self.counts[item.severity] += 1
        self.version += 1
        if item.seq is not None:
            worst = self.worst.get(item.seq)
            if worst is None or item.severity.rank < worst.rank:
                self.worst[item.seq] = item.severity
        if len(self.findings) < MAX_FINDINGS:
            self.findings.append(item)

    def add(self, items: list[Finding]) -> int:
        """Merge findings of the active checks (the same thing said again is not added); how many were new."""
        before = self.version
        for item in items:
            if item.seq is not None and any(f.key == item.key and f.seq == item.seq for f in self.findings[-200:]):
                continue
            self._found(item)
        return self.version - before

    @property
    def pending(self) -> int:
        """Frames waiting for the deferred checks."""
        checkers = [*self._retired, self.checker, self._recording_checker]
        return sum(c.pending for c in checkers if c is not None)

    @property
    def skipped(self) -> int:
        """Frames not schema-checked (the queue was full: a flood)."""
        checkers = [*self._retired, self.checker, self._recording_checker]
        return sum(c.skipped for c in checkers if c is not None)

    def summary(self) -> dict[str, int]:
        return {severity.value: count for severity, count in self.counts.items()}

    # -- the timer's work --------------------------------------------------------------
    def tick(self) -> bool:
        """Drain the deferred checks within this tick's budget (small while frames keep coming);
        feed a recording's next chunk. True when a finding came."""
        before = self.version
        last = self.store.last_seq
        busy = last - self._last_seen > BUSY_FRAMES
        self._last_seen = last
        deadline = self.clock() + (BUSY_BUDGET if busy else QUIET_BUDGET)
        if self._recorded is not None and self._recording_checker is not None:
            checker = self._recording_checker
            for _ in range(RECORDING_CHUNK):
                entry = next(self._recorded, None)
                if entry is None:
                    self._recorded = None
                    break
                checker.observe(entry)
        if not self.ready:
            return self.version != before
        for each in (*self._retired, self._recording_checker, self.checker):
            while each is not None and each.pending and self.clock() < deadline:
                each.drain(STEP)
        self._retired = [c for c in self._retired if c.pending]
        if self._recording_checker is not None and self._recorded is None and not self._recording_checker.pending:
            self._recording_checker = None
        return self.version != before

    def drain_all(self) -> None:
        """Everything queued, now (a bench's end; tests)."""
        while self._recorded is not None:
            self.tick()
        for checker in (*self._retired, self._recording_checker, self.checker):
            if checker is not None:
                checker.drain()
        self._retired = []
