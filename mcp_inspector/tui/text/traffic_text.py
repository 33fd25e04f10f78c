"""A traffic entry as text: direction arrows, times, sizes, ids, one-line previews.

Shared by the traffic log and its sibling views (notifications, console) and the
frame detail screen, so none of them imports another for these.
"""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING, Any

from ...core.base.masking import scrub
from ...core.traffic.entry import Direction, TrafficEntry

if TYPE_CHECKING:
    from ...core.traffic.store import TrafficStore

#: Bytes of a frame that are ever decoded for its log line (the rest is never looked at).
PREVIEW_BYTES = 400
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")

ARROWS = {Direction.OUT: "→", Direction.IN: "←", Direction.LOCAL: "·"}


def clock_time(ts: float) -> str:
    """HH:MM:SS.mmm in local time (the default line timestamp)."""
    return time.strftime("%H:%M:%S", time.localtime(ts)) + f".{int(ts * 1000) % 1000:03d}"


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def preview_text(raw: bytes, limit: int = PREVIEW_BYTES) -> str:
    """A one-line preview of a frame: slice the bytes first, never decode the whole thing."""
    head = raw[:limit]
    text = scrub(_CONTROL.sub(" ", head.decode("utf-8", errors="replace")).strip())
    if len(raw) > limit:
        text += f" … ({human_size(len(raw))})"
    return text


def clean(text: str) -> str:
    """Server-supplied text made safe for one terminal line (no escapes, tabs or newlines)."""
    return _CONTROL.sub(" ", text)


def format_latency(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 10_000 else f"{ms / 1000:.1f} s"


def short_id(value: Any) -> str:
    text = clean(json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value))
    return text if len(text) <= 24 else text[:23] + "…"


def linked_seq(entry: TrafficEntry) -> int | None:
    """The other half of a request/response pair (or the request a progress note belongs to)."""
    if entry.reply_seq is not None:
        return entry.reply_seq
    return entry.reply_to


def mrtr_round(entry: TrafficEntry, store: TrafficStore | None = None) -> tuple[int, int] | None:
    """(first seq, round) when an entry is a retry of a multi round-trip request (MRTR),
    or the reply to one; None otherwise."""
    meta = entry.meta
    if meta is None and entry.reply_to is not None and store is not None:
        request = store.get(entry.reply_to)
        meta = request.meta if request is not None else None
    info = meta.get("mrtr") if isinstance(meta, dict) else None
    if not isinstance(info, dict):
        return None
    first, number = info.get("first"), info.get("round")
    if not isinstance(first, int) or not isinstance(number, int):
        return None
    return first, number


_INPUT_REQUIRED = re.compile(rb'"resultType"\s*:\s*"input_required"')


def asks_for_input(entry: TrafficEntry) -> bool:
    """A result that asks for input before the server can answer (MRTR), by a look at its head."""
    return bool(_INPUT_REQUIRED.search(entry.raw[: PREVIEW_BYTES * 4]))
