"""The traffic view's jq query: the bar it is typed in, the run that matches frames, and
the outputs of the selected frame.

A query runs in ``core.query``'s child process (jq holds the GIL; an endless query must
not freeze the UI). ``match_frames`` is a thread worker's body: it tests the store's
entries chunk by chunk after the last one tested and posts each chunk's matching seqs
(``QueryProgress``); caught up, it waits for new frames. The log's handler owns the
state (``QueryRun``'s hits and counts) and narrows the index with it; a new expression
stops the old run (its child is killed) and starts another.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from .....core.base.jsonrpc import Kind
from .....core.query import QueryError, QuerySandbox, QueryStopped
from .....core.traffic.store import TrafficStore

NOT_FRAMES = (Kind.STDERR, Kind.EVENT)  # never given to jq (not frames)
CHUNK = 512  # entries tested per round trip to the child
CPU_LIMIT = 5.0  # CPU seconds per chunk before a query is stopped as endless


@dataclass(eq=False)
class QueryRun:
    """One expression's matching over a store. The worker reads ``expression``, ``sandbox`` and
    ``more``; the rest is the log's (written by its message handler only)."""

    expression: str
    sandbox: QuerySandbox = field(default_factory=lambda: QuerySandbox(cpu_limit=CPU_LIMIT))
    more: threading.Event = field(default_factory=threading.Event)  # set when the store has news
    hits: set[int] = field(default_factory=set)
    through: int = 0  # every entry up to this seq was tested (or is not a frame)
    tested: int = 0
    matched: int = 0
    failed: int = 0
    stopped: str | None = None
    cancelled: bool = False

    def stop(self) -> None:
        self.cancelled = True
        self.more.set()
        self.sandbox.close()

    def summary(self, store: TrafficStore) -> str:
        """``37 of 1,024 frames match`` (while catching up: ``… scanning``)."""
        text = f"{self.matched:,} of {self.tested:,} frame{'s' if self.tested != 1 else ''} match"
        if self.failed:
            text += f" · {self.failed:,} not JSON or failed"
        if self.stopped:
            return f"{text} · {self.stopped}"
        if self.through < store.last_seq:
            text += " · scanning…"
        return text


class QueryProgress(Message):
    """A chunk was tested: its matching seqs, the newest seq it covered, its counts (or why it stopped)."""

    def __init__(
        self, run: QueryRun, hits: list[int], through: int, tested: int, failed: int, stopped: str | None = None
    ) -> None:
        super().__init__()
        self.run = run
        self.hits = hits
        self.through = through
        self.tested = tested
        self.failed = failed
        self.stopped = stopped


class QueryOutputsReady(Message):
    """The outputs of the frame ``key`` names ((expression, seq)), ready to show."""

    def __init__(self, key: tuple, text: Text) -> None:
        super().__init__()
        self.key = key
        self.text = text


def match_frames(
    run: QueryRun, store: TrafficStore, post: Callable[[Message], Any], cancelled: Callable[[], bool], start: int
) -> None:
    """A thread worker: test the entries after ``start`` chunk by chunk, then each new one as it comes."""
    scanned = start
    while not cancelled() and not run.cancelled:
        run.more.clear()
        begin = max(scanned, store.first_seq - 1)
        entries = store.since(begin)[:CHUNK]
        if not entries:
            run.more.wait(0.5)
            continue
        frames = [entry for entry in entries if entry.kind not in NOT_FRAMES]
        try:
            codes = run.sandbox.match(run.expression, [entry.raw for entry in frames]) if frames else []
        except (QueryStopped, QueryError) as exc:
            if not run.cancelled:
                post(
                    QueryProgress(
                        run, [], scanned, 0, 0, stopped=f"stopped in #{frames[0].seq}-#{frames[-1].seq}: {exc}"
                    )
                )
            return
        scanned = entries[-1].seq
        hits = [entry.seq for entry, code in zip(frames, codes, strict=True) if code == 1]
        post(QueryProgress(run, hits, scanned, len(frames), codes.count(-1)))


class QueryOutputs(Static):
    """The selected frame's outputs under the log (shown while a query is set)."""

    DEFAULT_CSS = """
    QueryOutputs { height: auto; max-height: 7; display: none; padding: 0 1; background: $boost;
                   border-top: solid $primary 50%; }
    QueryOutputs.-shown { display: block; }
    """


PALETTE = [
    ("traffic: query the frames with jq", "query", "key: | in the Traffic view (5)"),
    ("traffic: clear the jq query", "clear_query", "key: x in the Traffic view (5)"),
]


def palette_commands(app: Any) -> list[tuple[str, Callable[[], Any], str]]:
    """The query's palette entries: each shows the Traffic view first, then acts on its panel."""

    def run(action: str) -> Callable[[], Any]:
        async def go() -> None:
            main = app.main
            await main.show_view("traffic")
            await main.query_one("#view-traffic").run_action(action)

        return lambda: app.run_worker(go(), group="traffic-query-palette", exit_on_error=False)

    return [(title, run(action), help_text) for title, action, help_text in PALETTE]
