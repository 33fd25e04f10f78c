"""The seams of the live engine: the state the frame rules read, and the two rule interfaces.

A :class:`FrameRule` judges an entry as it passes (cheap); a :class:`DeferredCheck` judges a queued
server frame later (schema, content: see ``LiveChecker.drain``). Both report through ``emit``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..traffic.entry import TrafficEntry
from ..traffic.store import TrafficStore
from .model import Finding

Emit = Callable[[Finding], None]


@dataclass(slots=True)
class LiveState:
    """What the frames said so far about the connection (read by the rules)."""

    transport: str = "stdio"  # "stdio", "http", "sse": stdout rules apply to stdio only
    era: str | None = None  # "legacy" / "modern" once the handshake (or discover) is seen
    version: str | None = None  # the negotiated revision
    capabilities: dict[str, Any] = field(default_factory=dict)
    handshake_seen: bool = False  # the answer to initialize / server/discover arrived
    initialized: bool = False  # the client sent notifications/initialized (legacy)
    requested_version: str | None = None  # what the client's initialize offered
    server_info: dict[str, Any] = field(default_factory=dict)  # serverInfo of the handshake
    progress: dict[int, float] = field(default_factory=dict)  # request seq -> last progress value
    store: TrafficStore | None = None  # the TrafficStore (to find a response's request); None: request_of() is None
    #: ``defer(entry, method)``: queue a server frame for the deferred checks (LiveChecker.defer)
    defer: Callable[[TrafficEntry, str | None], None] | None = None

    def request_of(self, entry: TrafficEntry) -> TrafficEntry | None:
        if entry.reply_to is None or self.store is None:
            return None
        return self.store.get(entry.reply_to)


class FrameRule(Protocol):
    """A live rule: judges one entry, cheaply, with the state so far; emits findings.

    ``observe`` runs for the entries it says it judges, through optional class attributes:
    ``kinds`` (a set of ``(Direction, Kind)`` pairs), ``methods`` (a set of method names) and
    ``problem_only`` (True: only entries the rpc layer marked with a ``problem``). Without them it
    sees every entry (both directions, stderr, events) and returns at once for what it does not
    judge. Every server frame is also queued for the deferred checks (schema, content), so a rule
    does no deep work here."""

    def observe(self, entry: TrafficEntry, state: LiveState, emit: Emit) -> None: ...


class DeferredCheck(Protocol):
    """Deferred work on one queued frame (schema, content): ``drain`` runs it."""

    def check(
        self, entry: TrafficEntry, method: str | None, version: str | None, era: str | None, emit: Emit
    ) -> None: ...


def exchange_of(store: TrafficStore | None, seq: int | None) -> int | None:
    """The HttpLog exchange a frame came or went in (remote servers), from its entry's meta."""
    if store is None or seq is None:
        return None
    entry = store.get(seq)
    meta = entry.meta if entry is not None else None
    exchange = meta.get("exchange") if isinstance(meta, dict) else None
    return exchange if isinstance(exchange, int) and not isinstance(exchange, bool) else None
