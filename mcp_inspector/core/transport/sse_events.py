"""An incremental Server-Sent Events parser working on bytes (WHATWG HTML §9.2.6).

Feed it chunks as they arrive, split anywhere (mid line, mid CRLF, mid UTF-8
character, mid BOM); it returns each event when its blank line arrives:

- ``data:`` lines are joined with ``\\n``; the data stays bytes, exactly as sent
  (decoding and JSON parsing happen later, per frame).
- ``event:`` names the event (``message`` when absent); ``id:`` sets the last
  event id (an id containing NUL is ignored); ``retry:`` (ASCII digits only) sets
  the reconnection time; a line starting with ``:`` is a comment (keep-alive).
- Lines end with CR, LF or CRLF; a UTF-8 BOM at the very start is skipped.
- A block without data dispatches nothing (its ``id``/``retry`` still count);
  a partial event at the end of the stream is discarded (``finish`` says how big).

Memory is bounded: an event whose data grows past ``max_event_bytes`` is kept as
its head (``OVERLONG_HEAD`` bytes) and delivered with ``problem`` set ("too
long"); the rest is counted and dropped as it arrives, however long it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..base.framing import MAX_LINE_BYTES, OVERLONG_HEAD

_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"
_FIELD_SLACK = 64  # room for "data: " and the like on top of the data cap
MAX_RETRY_DIGITS = 12  # a longer ``retry:`` is kept as 10^12 - 1 ms (int() refuses over 4300 digits)


@dataclass(slots=True)
class SseEvent:
    """One dispatched event.

    ``data``: the joined data lines (the head only when ``problem`` is set);
    ``size``: the full data size in bytes; ``id``: the value of this event's own
    ``id`` field (None when it had none; the running last event id is
    ``SseParser.last_event_id``); ``retry``: a ``retry`` value given in this event."""

    event: str
    data: bytes
    id: str | None = None
    retry: int | None = None
    size: int = 0
    problem: str | None = None


class SseParser:
    __slots__ = (
        "max_event_bytes",
        "head_size",
        "last_event_id",
        "retry",
        "_line",
        "_line_size",
        "_line_over",
        "_line_cap",
        "_skip_lf",
        "_bom",
        "_data",
        "_data_size",
        "_data_lines",
        "_data_over",
        "_event",
        "_id",
        "_retry_here",
        "_pending_bytes",
        "events_seen",
        "comments_seen",
    )

    def __init__(self, max_event_bytes: int = MAX_LINE_BYTES, head: int = OVERLONG_HEAD) -> None:
        if max_event_bytes < 1:
            raise ValueError("max_event_bytes must be positive")
        self.max_event_bytes = max_event_bytes
        self.head_size = min(head, max_event_bytes)
        self.last_event_id: str | None = None  # None: no id seen yet
        self.retry: int | None = None  # ms, the last retry field seen
        self._line: list[bytes] = []
        self._line_size = 0
        self._line_over = False
        self._line_cap = max_event_bytes + _FIELD_SLACK
        self._skip_lf = False  # the last line ended with a CR at the end of a chunk
        self._bom: bytes | None = b""  # bytes held while deciding on a BOM; None once decided
        self._data: list[bytes] = []
        self._data_size = 0  # the full size of the joined data so far
        self._data_lines = 0
        self._data_over = False
        self._event = ""
        self._id: str | None = None
        self._retry_here: int | None = None
        self._pending_bytes = 0  # bytes of the event being read (for finish())
        self.events_seen = 0
        self.comments_seen = 0

    # -- input -------------------------------------------------------------
    def feed(self, chunk: bytes) -> list[SseEvent]:
        events: list[SseEvent] = []
        if not chunk:
            return events
        if self._bom is not None:
            held = self._bom + chunk
            if len(held) < len(_BOM) and _BOM.startswith(held):
                self._bom = held
                return events
            self._bom = None
            chunk = held[len(_BOM) :] if held.startswith(_BOM) else held
            if not chunk:
                return events
        start = 0
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                start = 1
        end_of_chunk = len(chunk)
        if b"\n" not in chunk and b"\r" not in chunk:  # the middle of a long line: no scan needed
            self._add(chunk[start:] if start else chunk)
            return events
        for match in _LINE_END.finditer(chunk, start):
            self._add(chunk[start : match.start()])
            start = match.end()
            if start == end_of_chunk and match.group() == b"\r":
                self._skip_lf = True
            event = self._end_line()
            if event is not None:
                events.append(event)
        if start < end_of_chunk:
            self._add(chunk[start:])
        return events

    def finish(self) -> int:
        """The stream ended: drop the unfinished event. Returns how many bytes it had."""
        dropped = self._pending_bytes + self._line_size
        self._line.clear()
        self._line_size = 0
        self._line_over = False
        self._reset_event()
        self._pending_bytes = 0
        return dropped

    @property
    def pending(self) -> int:
        """Bytes of the event being read (0 between events)."""
        return self._pending_bytes + self._line_size

    # -- lines -------------------------------------------------------------
    def _add(self, piece: bytes) -> None:
        if not piece:
            return
        self._line_size += len(piece)
        if self._line_over:
            return
        self._line.append(piece)
        if self._line_size > self._line_cap:
            # Keep the head (the field name and the start of the value), drop the rest
            # (without joining the whole line first: that would hold the cap twice).
            self._line = [_head(self._line, self.head_size + _FIELD_SLACK)]
            self._line_over = True

    def _end_line(self) -> SseEvent | None:
        line = b"".join(self._line) if len(self._line) != 1 else self._line[0]
        size = self._line_size
        over = self._line_over
        self._line.clear()
        self._line_size = 0
        self._line_over = False
        if size == 0 and not line:
            return self._dispatch()
        if line[:1] == b":":
            self.comments_seen += 1  # a keep-alive: not part of any event
            return None
        self._pending_bytes += size + 1
        colon = line.find(b":")
        if colon < 0:
            name, value, prefix = line, b"", len(line)
        else:
            name = line[:colon]
            prefix = colon + 1
            if line[prefix : prefix + 1] == b" ":
                prefix += 1
            value = line[prefix:]
        if name == b"data":
            self._add_data(value, size - prefix if over else len(value))
        elif name == b"event":
            self._event = value.decode("utf-8", errors="replace")
        elif name == b"id":
            if b"\x00" not in value:
                self._id = value.decode("utf-8", errors="replace")
        elif name == b"retry" and value and value.isdigit() and value.isascii():
            digits = value.lstrip(b"0") or b"0"
            retry = int(digits) if len(digits) <= MAX_RETRY_DIGITS else 10**MAX_RETRY_DIGITS - 1
            self.retry = self._retry_here = retry
        return None

    def _add_data(self, value: bytes, size: int) -> None:
        join = 1 if self._data_lines else 0
        self._data_lines += 1
        self._data_size += join + size
        if self._data_over:
            return
        if join:
            self._data.append(b"\n")
        self._data.append(value)
        if self._data_size > self.max_event_bytes:
            self._data = [_head(self._data, self.head_size)]
            self._data_over = True

    def _dispatch(self) -> SseEvent | None:
        event_id = self._id
        if event_id is not None:
            self.last_event_id = event_id
        event: SseEvent | None = None
        if self._data_lines:
            data = b"".join(self._data) if len(self._data) != 1 else self._data[0]
            problem = None
            if self._data_over:
                problem = f"too long: {self._data_size} bytes (cap {self.max_event_bytes})"
            event = SseEvent(self._event or "message", data, event_id, self._retry_here, self._data_size, problem)
            self.events_seen += 1
        self._reset_event()
        self._pending_bytes = 0
        return event

    def _reset_event(self) -> None:
        self._data = []
        self._data_size = 0
        self._data_lines = 0
        self._data_over = False
        self._event = ""
        self._id = None
        self._retry_here = None


def _head(pieces: list[bytes], size: int) -> bytes:
    """The first ``size`` bytes of ``pieces`` joined, copying no more than that."""
    kept: list[bytes] = []
    for piece in pieces:
        if size <= 0:
            break
        kept.append(piece[:size])
        size -= len(kept[-1])
    return b"".join(kept)
