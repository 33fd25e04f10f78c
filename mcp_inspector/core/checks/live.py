"""Live checks: the rules that judge traffic entries as they pass, for a session or a recording.

A :class:`LiveChecker` is a traffic store listener (``store.add_listener(checker)``) or is fed a
recording's entries one by one (``observe``). It keeps what it needs to know from the frames
themselves (the negotiated revision and era, the capabilities, whether the client said
``notifications/initialized``), so a live session and a recording are judged the same way.

Cost per frame is bounded: ``observe`` does only what the entry's fields already say (its kind,
method, the problem the rpc layer found) plus a JSON parse of the few frames that need one (the
initialize answer, progress). The schema and content checks (pydantic models of ``mcp-types``,
~20-500 us a frame, 0.7 s to import) are queued and run by :meth:`LiveChecker.drain`, which a
front end calls when it has time (the TUI from a timer or worker, with a budget; the CLI at the
end). The queue is bounded (entries and bytes); what does not fit is counted in ``skipped``.

Frame rules are pluggable (:class:`FrameRule`): the HTTP rules and the TUI add their own with
``add_rule``. A finding names its entry's ``seq`` (``by_seq`` has them for the traffic log's marks).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from ..base.jsonrpc import Kind
from ..traffic.entry import Direction, TrafficEntry
from ..traffic.store import TrafficStore
from .frames import DeferredCheck, Emit, FrameRule, LiveState, exchange_of
from .model import Finding, Severity

MAX_QUEUED = 20_000  # frames waiting for the deferred (schema, content) checks
MAX_QUEUED_BYTES = 64 << 20  # their raw bytes
MAX_FINDINGS = 5_000  # kept; past it only counted (a flooding server must not grow memory)
MAX_TOKENS = 10_000
DEFERRED_KINDS = frozenset(
    {Kind.RESPONSE, Kind.NOTIFICATION, Kind.REQUEST}
)  # server frames the schema judges  # progress tokens whose last value is remembered


class LiveChecker:
    """Runs the frame rules over a timeline. ``findings`` in order; ``counts`` by severity."""

    def __init__(
        self,
        store: TrafficStore | None = None,
        *,
        transport: str = "stdio",
        ignore: Iterable[str] = (),
        on_finding: Emit | None = None,
        era: str | None = None,
        rules: Iterable[FrameRule] | None = None,
        deferred: Iterable[DeferredCheck] | None = None,
    ) -> None:
        from .frame_rules import default_deferred, default_rules

        self.state = LiveState(transport=transport, store=store)
        self.state.defer = self.defer
        self.ignore = set(ignore)
        self.on_finding = on_finding
        self.era_tag = era  # tagged on findings (--era both)
        self.rules: list[FrameRule] = list(rules) if rules is not None else default_rules()
        self._table: dict[tuple[Direction, Kind, bool], tuple[list[FrameRule], dict[str | None, list[FrameRule]]]] = {}
        self._index()
        self.deferred: list[DeferredCheck] = list(deferred) if deferred is not None else default_deferred()
        self.findings: list[Finding] = []
        self.counts = {Severity.ERROR: 0, Severity.WARNING: 0, Severity.INFO: 0}
        self.by_seq: dict[int, list[Finding]] = {}
        self.dropped = 0  # findings past MAX_FINDINGS, counted only
        self.skipped = 0  # frames not schema-checked (the queue was full)
        self._queue: deque[tuple[TrafficEntry, str | None, str | None, str | None]] = deque()
        self._queued_bytes = 0
        self._seen: set[tuple[str, str, str]] = set()
        self.errors: list[str] = []  # the rules' own bugs (not findings about the server)

    # -- the rules' side ------------------------------------------------------------------
    def add_rule(self, rule: FrameRule) -> None:
        self.rules.append(rule)
        self._index()

    def _index(self) -> None:
        """(direction, kind, has a problem) -> (the rules for any method, {method: the rules for it}),
        in the rules' order: a rule is called only for the entries its ``kinds``, ``methods`` and
        ``problem_only`` say it judges, found by one dict lookup each (most frames then reach none,
        which keeps observe under a microsecond)."""
        self._table = {}
        for direction in Direction:
            for kind in Kind:
                for problem in (False, True):
                    rules = [
                        rule
                        for rule in self.rules
                        if (getattr(rule, "kinds", None) is None or (direction, kind) in rule.kinds)
                        and (problem or not getattr(rule, "problem_only", False))
                    ]
                    general = [rule for rule in rules if getattr(rule, "methods", None) is None]
                    named = {name for rule in rules for name in (getattr(rule, "methods", None) or ())}
                    by_method = {
                        name: [rule for rule in rules if getattr(rule, "methods", None) is None or name in rule.methods]
                        for name in named
                    }
                    self._table[(direction, kind, problem)] = (general, by_method)

    def emit(self, item: Finding) -> None:
        if item.rule in self.ignore:
            return
        if item.era is None:
            item.era = self.era_tag
        if item.exchange is None and item.seq is not None and self.state.transport != "stdio":
            item.exchange = exchange_of(self.state.store, item.seq)
        if item.seq is None:
            key = item.key
            if key in self._seen:
                return  # the same thing said twice about no particular frame
            self._seen.add(key)
        self.counts[item.severity] += 1
        if len(self.findings) >= MAX_FINDINGS:
            self.dropped += 1
            return
        self.findings.append(item)
        if item.seq is not None:
            self.by_seq.setdefault(item.seq, []).append(item)
        if self.on_finding is not None:
            self.on_finding(item)

    def defer(self, entry: TrafficEntry, method: str | None) -> None:
        """Queue a frame for the deferred checks, judged by the revision in force now (every
        server request, notification and response is queued by observe itself)."""
        size = len(entry.raw)
        queue = self._queue
        if len(queue) >= MAX_QUEUED or self._queued_bytes + size > MAX_QUEUED_BYTES:
            self.skipped += 1
            return
        state = self.state
        queue.append((entry, method, state.version, state.era))
        self._queued_bytes += size

    # -- feeding ------------------------------------------------------------------------
    def __call__(self, entry: TrafficEntry) -> None:
        """The store listener: one entry as it is appended."""
        self.observe(entry)

    def observe(self, entry: TrafficEntry) -> None:
        kind = entry.kind
        general, by_method = self._table[(entry.direction, kind, entry.problem is not None)]
        rules = by_method.get(entry.method, general) if by_method else general
        if rules:
            state = self.state
            for rule in rules:
                try:
                    rule.observe(entry, state, self.emit)
                except Exception as exc:  # noqa: BLE001 - a rule's bug must not stop the reader
                    self._rule_failed(rule, exc, entry)
        if entry.direction is Direction.IN and kind in DEFERRED_KINDS:
            # defer(entry, None), inline (it runs for most frames); a response's method is looked up
            # when it is judged
            size = len(entry.raw)
            queue = self._queue
            if len(queue) >= MAX_QUEUED or self._queued_bytes + size > MAX_QUEUED_BYTES:
                self.skipped += 1
            else:
                state = self.state
                queue.append((entry, None, state.version, state.era))
                self._queued_bytes += size

    def drain(self, budget: int | None = None) -> int:
        """Run the deferred checks on up to ``budget`` queued frames (all when None); returns how
        many are left. The first call imports the schema models (~0.7 s): call it off the UI thread."""
        done = 0
        while self._queue and (budget is None or done < budget):
            entry, method, version, era = self._queue.popleft()
            self._queued_bytes -= len(entry.raw)
            if method is None and entry.kind is Kind.RESPONSE:
                request = self.state.request_of(entry)
                method = request.method if request is not None else None
            for check in self.deferred:
                try:
                    check.check(entry, method, version, era, self.emit)
                except Exception as exc:  # noqa: BLE001 - a rule's bug is reported as its own finding, not raised
                    self._rule_failed(check, exc, entry)
            done += 1
        return len(self._queue)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def _rule_failed(self, rule: Any, exc: Exception, entry: TrafficEntry) -> None:
        """A rule's own bug: kept apart (not a finding about the server), the first few."""
        if len(self.errors) < 20:
            self.errors.append(f"{type(rule).__name__} on #{entry.seq}: {exc.__class__.__name__}: {exc}")

    def summary(self) -> dict[str, int]:
        return {severity.value: count for severity, count in self.counts.items()}


def judge_entries(entries: Iterable[TrafficEntry], store: TrafficStore | None = None, **options: Any) -> LiveChecker:
    """Judge a whole timeline (a recording) with the live rules, deferred checks included."""
    checker = LiveChecker(store, **options)
    for entry in entries:
        checker.observe(entry)
        if checker.pending >= 1000:
            checker.drain()
    checker.drain()
    return checker


def is_in_frame(entry: TrafficEntry) -> bool:
    return entry.direction is Direction.IN and entry.kind not in (Kind.STDERR, Kind.EVENT)
