"""What the notifications view shows and counts: the filter, runs of repeats, rates per method.

- ``NotificationFilter``: terms on the method (a substring or a glob; ``!term`` hides) and a
  minimum log level (it narrows ``notifications/message`` only; other methods are not logs).
- ``RunPredicate``: the filter as the lines view's predicate, which can also fold a run of
  identical consecutive notifications (the same frame; any two ``list_changed`` of one method:
  they say nothing more) into its first row, with a count (a ``list_changed`` storm is one row).
  The view's index calls it once per new entry, in order, so folding is incremental.
- ``RateTracker``: notifications per method over the last ``window`` seconds, in buckets
  of the entries' own timestamps; each tick looks only at the entries that arrived since the
  last one (and never further back than the window), never at the whole store.
- ``MethodSuggester``: completes a filter term from the methods seen so far.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from textual.suggester import Suggester

from .....core.base.jsonrpc import Kind
from .....core.traffic.entry import TrafficEntry
from .....core.traffic.store import TrafficStore

LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
LEVEL_RANK = {level: rank for rank, level in enumerate(LOG_LEVELS)}
PREFIX = "notifications/"
#: A log notification bigger than this has its level read with a pattern, not parsed.
LEVEL_PARSE_LIMIT = 64 * 1024
_LEVEL_RE = re.compile(rb'"level"\s*:\s*"([^"\\]{0,20})"')


def short_method(method: str) -> str:
    return method.removeprefix(PREFIX)


def message_level(raw: bytes) -> str | None:
    """The ``level`` of a notifications/message frame (None when it has none we can read).

    One ``"level":"…"`` in the frame is the level (a pattern: about ten times cheaper than
    parsing, which a flood of thousands a second would pay for each frame); with several
    (the data has a "level" too) the frame is parsed to find the one in params."""
    if len(raw) <= LEVEL_PARSE_LIMIT:
        found = _LEVEL_RE.findall(raw)
        if len(found) == 1:
            return found[0].decode("ascii", "replace")
        try:
            params = json.loads(raw).get("params")
        except (ValueError, AttributeError):
            return None
        level = params.get("level") if isinstance(params, dict) else None
        return level if isinstance(level, str) else None
    match = _LEVEL_RE.search(raw, 0, 4096)
    return match.group(1).decode("ascii", "replace") if match else None


@dataclass(frozen=True)
class NotificationFilter:
    """Which notifications to show. The default shows every one, with repeats folded."""

    methods: str = ""  # terms split by commas or spaces: a substring or a glob; "!term" hides
    min_level: str | None = None  # notifications/message below this level are hidden
    collapse: bool = True  # fold runs of identical consecutive notifications into one row

    @property
    def narrows(self) -> bool:
        return bool(self.methods.strip()) or self.min_level is not None

    def method_matcher(self) -> Callable[[str], bool]:
        """A fast test of a method name (decided once per method, then looked up)."""
        show: list[Callable[[str], bool]] = []
        hide: list[Callable[[str], bool]] = []
        for term in re.split(r"[,\s]+", self.methods.strip()):
            negate = term.startswith(("!", "-"))
            term = term.lstrip("!-").lower()
            if not term:
                continue
            if any(ch in term for ch in "*?["):
                pattern = re.compile(fnmatch.translate(term))
                test = (lambda p: lambda m: bool(p.match(m) or p.match(short_method(m))))(pattern)
            else:
                test = (lambda t: lambda m: t in m)(term)
            (hide if negate else show).append(test)
        decided: dict[str, bool] = {}

        def matches(method: str) -> bool:
            verdict = decided.get(method)
            if verdict is None:
                name = method.lower()
                verdict = (not show or any(test(name) for test in show)) and not any(test(name) for test in hide)
                decided[method] = verdict
            return verdict

        return matches


class RunPredicate:
    """The filter as a lines-view predicate; folds runs of identical notifications (see the module doc).

    ``runs`` maps the seq of a run's first (shown) row to ``[count, last seq, last ts, first ts]``
    (the first ts is the shown entry's own, unless the run outlived the entries it began with).
    """

    def __init__(self, spec: NotificationFilter, store: TrafficStore) -> None:
        self.spec = spec
        self.store = store
        self.runs: dict[int, list] = {}
        self._method_ok = spec.method_matcher()
        self._min_rank = LEVEL_RANK.get(spec.min_level or "", -1)
        self._head: TrafficEntry | None = None

    def __call__(self, entry: TrafficEntry) -> bool:
        if entry.kind is not Kind.NOTIFICATION:
            return False
        method = entry.method or ""
        if not self._method_ok(method):
            return False
        if self._min_rank > 0 and method == "notifications/message":
            rank = LEVEL_RANK.get(message_level(entry.raw) or "")
            if rank is not None and rank < self._min_rank:  # an unknown level is shown: it is worth seeing
                return False
        if self.spec.collapse:
            head = self._head
            if (
                head is not None
                and head.method == method
                and head.direction is entry.direction
                and (head.raw == entry.raw or method.endswith("/list_changed"))
            ):
                run = self.runs.get(head.seq)
                if head.seq >= self.store.first_seq:
                    if run is None:
                        run = self.runs[head.seq] = [1, head.seq, head.ts, head.ts]
                    run[0] += 1
                    run[1], run[2] = entry.seq, entry.ts
                    return False
                # The run's row left memory (a storm longer than the store's cap): this entry
                # carries the run on, its count and first time kept, so it stays one row.
                self.runs.pop(head.seq, None)
                self.runs[entry.seq] = [(run[0] if run else 1) + 1, entry.seq, entry.ts, run[3] if run else head.ts]
                self._head = entry
                return True
            self._head = entry
            if len(self.runs) > 4096:  # runs whose rows left memory
                first = self.store.first_seq
                self.runs = {seq: run for seq, run in self.runs.items() if seq >= first}
        return True

    def run_of(self, seq: int) -> list | None:
        return self.runs.get(seq)


class RateTracker:
    """Notifications per method over the last ``window`` seconds (see the module doc)."""

    def __init__(self, window: float = 10.0, bucket: float = 0.5) -> None:
        self.window = window
        self.bucket = bucket
        self._buckets: dict[int, Counter[str]] = {}
        self._scanned = 0  # the newest seq counted
        self.visited = 0  # entries the last update looked at (what a tick costs)

    def reset(self) -> None:
        self._buckets.clear()
        self._scanned = 0

    def update(self, store: TrafficStore, now: float) -> None:
        """Count the entries that arrived since the last call (newest first, back to the window)."""
        last = store.last_seq
        if last < self._scanned:  # another store
            self.reset()
        oldest = now - self.window
        stop = max(self._scanned, store.first_seq - 1)
        buckets = self._buckets
        size = self.bucket
        seq = last
        visited = 0
        while seq > stop:
            visited += 1
            entry = store.get(seq)
            if entry is None or entry.ts < oldest:
                break
            if entry.kind is Kind.NOTIFICATION:
                key = int(entry.ts // size)
                counter = buckets.get(key)
                if counter is None:
                    counter = buckets[key] = Counter()
                counter[entry.method or "?"] += 1
            seq -= 1
        self._scanned = last
        self.visited = visited
        first_key = int(oldest // size)
        for key in [key for key in buckets if key < first_key]:
            del buckets[key]

    def counts(self, now: float) -> Counter[str]:
        """Per-method counts over the window ending at ``now``."""
        first_key = int((now - self.window) // self.bucket)
        total: Counter[str] = Counter()
        for key, counter in self._buckets.items():
            if key >= first_key:
                total.update(counter)
        return total


class MethodSuggester(Suggester):
    """Completes the last term of the method filter from the methods seen (most frequent first)."""

    def __init__(self, methods: Callable[[], list[str]]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.methods = methods

    async def get_suggestion(self, value: str) -> str | None:
        cut = max(value.rfind(","), value.rfind(" ")) + 1
        head, term = value[:cut], value[cut:]
        negate = term[:1] if term[:1] in ("!", "-") else ""
        term = term[len(negate) :]
        if not term:
            return None
        lowered = term.lower()
        for method in self.methods():
            for name in (method, short_method(method)):
                if name.lower().startswith(lowered) and len(name) > len(term):
                    return head + negate + term + name[len(term) :]
        return None
