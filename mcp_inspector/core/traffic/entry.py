"""One line of the timeline: a frame, a stderr line or a process event, with its direction.

The store keeps them, session files (``recording``) write and read them, and
everything else reads them; this module is what they all share.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..base.jsonrpc import Kind


class Direction(StrEnum):
    OUT = "out"  # inspector -> server
    IN = "in"  # server -> inspector
    LOCAL = "local"  # process events and notes made by the inspector


@dataclass(slots=True, eq=False)
class TrafficEntry:
    """One line of the timeline. ``raw`` holds the bytes exactly as on the wire."""

    # Field order matters: TrafficStore.append passes them positionally (it is per frame).
    seq: int
    ts: float
    direction: Direction
    kind: Kind
    raw: bytes
    method: str | None = None
    msg_id: Any = None
    has_id: bool = False
    problem: str | None = None
    error_code: int | None = None
    reply_to: int | None = None  # seq of the request a response (or progress) belongs to
    reply_seq: int | None = None  # on a request: seq of its response, once it arrives
    latency_ms: float | None = None
    late: bool = False
    meta: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        """The raw bytes as text, invalid UTF-8 replaced (for display only)."""
        return self.raw.decode("utf-8", errors="replace")
