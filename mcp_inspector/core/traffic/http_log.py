"""The HTTP level under the JSON-RPC frames of a remote server: one record per exchange.

An HTTP transport records each POST, GET (SSE stream) and DELETE here: URL,
status, request and response headers (secrets masked, see ``masking``),
timings, and for an SSE response each event with its id. Frames carried by an
exchange point back at it through ``meta["exchange"]`` in the traffic store;
``HttpExchange.frame_seqs`` is the other direction: the frame the request's body
carried (its seq given to ``begin`` by the transport), then those that came back,
filled in by the store as it records them. The TUI's HTTP view reads ``HttpLog``.

Memory is bounded: past ``cap`` exchanges the oldest are dropped, and an
exchange keeps at most ``MAX_EVENTS`` SSE event records (the count goes on).

A recorder (:meth:`HttpLog.add_recorder`: a session file's writer) gets each change as it happens,
as an ``http_records`` record made of what the log holds (masked already), so ``--open`` plays the
same exchanges back into a fresh log (``http_records.apply``) with the same ids and times.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..base.jsonrpc import Kind
from ..base.masking import mask_headers, mask_url
from . import http_records
from .entry import Direction, TrafficEntry

MAX_EVENTS = 2_000  # SSE events remembered per exchange (frames themselves are in the traffic store)
MAX_SEQS = 2_000


@dataclass(slots=True)
class SseEventRecord:
    """One SSE event as received: its ``id``, ``event`` name, data size and ``retry``."""

    at: float  # wall clock, like traffic entries
    event: str
    id: str | None
    size: int
    retry: int | None = None
    seq: int | None = None  # the traffic entry of the frame in its data, if any


@dataclass(slots=True, eq=False)
class HttpExchange:
    id: int
    method: str  # HTTP method
    url: str  # masked
    started: float  # wall clock
    request_headers: list[tuple[str, str]] = field(default_factory=list)  # masked
    rpc_method: str | None = None  # the JSON-RPC method of the body, when there is one
    rpc_id: Any = None
    request_size: int = 0
    status: int | None = None
    reason: str = ""
    response_headers: list[tuple[str, str]] = field(default_factory=list)  # masked
    content_type: str | None = None
    headers_ms: float | None = None  # time to the response headers
    total_ms: float | None = None  # time to the end of the body or stream
    response_size: int = 0
    events: list[SseEventRecord] = field(default_factory=list)
    event_count: int = 0
    frame_seqs: list[int] = field(default_factory=list)
    state: str = "open"  # open | done | failed
    error: str | None = None
    resumes: int | None = None  # the exchange whose stream this one resumes (Last-Event-ID)
    note: str | None = None  # what it was for: "standalone stream", "session end", "resume"...
    sent_seq: int | None = None  # the traffic entry of the frame in the request's body

    def header(self, name: str, response: bool = True) -> str | None:
        lower = name.lower()
        for key, value in self.response_headers if response else self.request_headers:
            if key.lower() == lower:
                return value
        return None


Listener = Callable[[HttpExchange], None]
Recorder = Callable[[dict[str, Any]], None]


class HttpLog:
    """Every HTTP exchange of the connection(s), newest last; bounded."""

    def __init__(self, cap: int = 5_000, clock: Callable[[], float] = time.time) -> None:
        self.cap = cap
        self.exchanges: deque[HttpExchange] = deque(maxlen=cap)
        self._by_id: dict[int, HttpExchange] = {}
        self._carriers: dict[int, int] = {}  # seq of a frame we sent -> the exchange whose body carried it
        self._next_id = 1
        self._clock = clock
        self._listeners: list[Listener] = []
        self._recorders: list[Recorder] = []
        self.version = 0  # bumps on every change; views poll it
        self.dropped = 0

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def add_recorder(self, recorder: Recorder) -> None:
        """``recorder`` gets an ``http_records`` record of every change from now on (a session file's writer)."""
        self._recorders.append(recorder)

    def _record(self, op: str, exchange: HttpExchange, at: float, **fields: Any) -> None:
        line = http_records.record(op, exchange.id, at, **fields)
        for recorder in list(self._recorders):
            with contextlib.suppress(Exception):  # a full disk must not break the transport
                recorder(line)

    def _changed(self, exchange: HttpExchange) -> None:
        self.version += 1
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):  # a view bug must not break the transport
                listener(exchange)

    def begin(
        self,
        method: str,
        url: str,
        request_headers: list[tuple[str, str]] | dict[str, str],
        *,
        rpc_method: str | None = None,
        rpc_id: Any = None,
        request_size: int = 0,
        resumes: int | None = None,
        note: str | None = None,
        frame_seq: int | None = None,
        exchange_id: int | None = None,
        at: float | None = None,
    ) -> HttpExchange:
        """A request is about to go out; headers are masked here. ``frame_seq``: the traffic
        entry of the frame in its body (our request, reply or notification), first of ``frame_seqs``.
        ``exchange_id`` and ``at``: an exchange seen elsewhere (a proxy's), its id and start kept."""
        if len(self.exchanges) == self.cap:
            old = self.exchanges[0]
            self._by_id.pop(old.id, None)
            if old.sent_seq is not None and self._carriers.get(old.sent_seq) == old.id:
                del self._carriers[old.sent_seq]
            self.dropped += 1
        exchange = HttpExchange(
            exchange_id if exchange_id is not None else self._next_id,
            method,
            mask_url(url),
            at if at is not None else self._clock(),
            mask_headers(request_headers),
            rpc_method,
            rpc_id,
            request_size,
            resumes=resumes,
            note=note,
        )
        if frame_seq is not None:
            exchange.sent_seq = frame_seq
            exchange.frame_seqs.append(frame_seq)
            self._carriers.setdefault(frame_seq, exchange.id)  # after a redirect: the first hop
        self._next_id = max(self._next_id, exchange.id) + 1
        self.exchanges.append(exchange)
        self._by_id[exchange.id] = exchange
        if self._recorders:
            optional = {
                "frame": frame_seq,
                "rpc_method": rpc_method,
                "rpc_id": rpc_id,
                "note": note,
                "resumes": resumes,
            }
            self._record(
                "begin",
                exchange,
                exchange.started,
                method=method,
                url=exchange.url,
                headers=http_records.header_list(exchange.request_headers),
                size=request_size,
                **{name: value for name, value in optional.items() if value is not None},
            )
        self._changed(exchange)
        return exchange

    def response(
        self,
        exchange: HttpExchange,
        status: int,
        reason: str,
        headers: list[tuple[str, str]] | dict[str, str],
        at: float | None = None,
    ) -> None:
        now = at if at is not None else self._clock()
        exchange.status = status
        exchange.reason = reason
        exchange.response_headers = mask_headers(headers)
        exchange.content_type = exchange.header("content-type")
        exchange.headers_ms = (now - exchange.started) * 1000
        if self._recorders:
            headers_list = http_records.header_list(exchange.response_headers)
            self._record("response", exchange, now, status=status, reason=reason, headers=headers_list)
        self._changed(exchange)

    def event(
        self,
        exchange: HttpExchange,
        event: str,
        event_id: str | None,
        size: int,
        retry: int | None = None,
        at: float | None = None,
    ) -> SseEventRecord:
        record = SseEventRecord(at if at is not None else self._clock(), event, event_id, size, retry)
        if self._recorders:
            self._record("event", exchange, record.at, event=event, id=event_id, size=size, retry=retry)
        exchange.event_count += 1
        if len(exchange.events) < MAX_EVENTS:
            exchange.events.append(record)
        exchange.response_size += size
        self._changed(exchange)
        return record

    def body(self, exchange: HttpExchange, size: int) -> None:
        exchange.response_size += size
        if self._recorders:
            self._record("body", exchange, self._clock(), size=size)

    def finish(self, exchange: HttpExchange, error: str | None = None, at: float | None = None) -> None:
        now = at if at is not None else self._clock()
        exchange.total_ms = (now - exchange.started) * 1000
        exchange.state = "failed" if error else "done"
        exchange.error = error
        if self._recorders:
            self._record("finish", exchange, now, error=error)
        self._changed(exchange)

    def link(
        self, exchange_id: Any, seq: int, *, sent: bool = False, rpc_method: str | None = None, rpc_id: Any = None
    ) -> None:
        """A traffic entry (``seq``) was carried by this exchange. ``sent``: it is the frame in the
        request's body (a proxy's exchange, whose body is recorded after ``begin``), with its
        JSON-RPC method and id."""
        exchange = self._by_id.get(exchange_id) if isinstance(exchange_id, int) else None
        if exchange is None:
            return
        if sent and exchange.sent_seq is None:
            exchange.sent_seq = seq
            exchange.rpc_method, exchange.rpc_id = rpc_method, rpc_id
            self._carriers.setdefault(seq, exchange.id)
        if len(exchange.frame_seqs) < MAX_SEQS:
            exchange.frame_seqs.append(seq)
        if sent:
            self._changed(exchange)  # its line in the view names the JSON-RPC method now
        else:
            self.version += 1

    def get(self, exchange_id: int) -> HttpExchange | None:
        return self._by_id.get(exchange_id)

    def carrier(self, seq: int) -> int | None:
        """The exchange whose request body carried the frame we sent as ``seq`` (None: none known)."""
        return self._carriers.get(seq)

    def __len__(self) -> int:
        return len(self.exchanges)


def apply(log: HttpLog, op: http_records.HttpOp, translate: Callable[[int], int] | None = None) -> None:
    """Play ``op`` into ``log`` (the exchange keeps its id and times). ``translate``: a ``frame``
    seq as written -> the store's (a loaded file renumbers)."""
    fields = op.fields
    if op.op == "begin":
        if log.get(op.exchange) is None:
            frame = fields.get("frame")
            if frame is not None and translate is not None:
                frame = translate(frame)
            log.begin(
                fields["method"],
                fields["url"],
                fields["headers"],
                rpc_method=fields.get("rpc_method"),
                rpc_id=fields.get("rpc_id"),
                request_size=fields["size"],
                resumes=fields.get("resumes"),
                note=fields.get("note") or http_records.NOTES.get(fields["method"]),
                frame_seq=frame,
                exchange_id=op.exchange,
                at=op.at,
            )
        return
    exchange = log.get(op.exchange)
    if exchange is None:
        return  # begun before this reader's window (or its line was unreadable)
    if op.op == "response":
        log.response(exchange, fields["status"], fields["reason"], fields["headers"], at=op.at)
    elif op.op == "event":
        log.event(exchange, fields["event"], fields["id"], fields["size"], fields["retry"], at=op.at)
    elif op.op == "body":
        log.body(exchange, fields["size"])
    elif exchange.state == "open":
        log.finish(exchange, fields["error"], at=op.at)


def link_entry(log: HttpLog, entry: TrafficEntry) -> None:
    """An entry of the proxy's that an exchange carried: linked to it (a proxy's note is not a frame)."""
    meta = entry.meta
    exchange_id = meta.get("exchange") if isinstance(meta, dict) else None
    if type(exchange_id) is not int or entry.direction is Direction.LOCAL or entry.kind is Kind.STDERR:
        return
    sent = entry.direction is Direction.OUT
    log.link(exchange_id, entry.seq, sent=sent, rpc_method=entry.method, rpc_id=entry.msg_id if entry.has_id else None)


def exchange_records(exchange: HttpExchange) -> list[dict[str, Any]]:
    """The ``http_records`` lines the recorder wrote for ``exchange`` (what ``apply`` plays back into
    the same exchange), rebuilt from what the log holds, in order and with their times: for an export
    of a session that was not recorded. The SSE events past ``MAX_EVENTS`` are not held (their sizes
    are, in the ``body`` line: ``response_size`` comes back the same); nor is a body's own time (it is
    put at the finish)."""
    started = exchange.started
    optional = {
        "frame": exchange.sent_seq if exchange.frame_seqs[:1] == [exchange.sent_seq] else None,
        "rpc_method": exchange.rpc_method,
        "rpc_id": exchange.rpc_id,
        "note": exchange.note,
        "resumes": exchange.resumes,
    }
    records = [
        http_records.record(
            "begin",
            exchange.id,
            started,
            method=exchange.method,
            url=exchange.url,
            headers=http_records.header_list(exchange.request_headers),
            size=exchange.request_size,
            **{name: value for name, value in optional.items() if value is not None},
        )
    ]
    last = started
    if exchange.status is not None:
        last = started + (exchange.headers_ms or 0.0) / 1000
        headers = http_records.header_list(exchange.response_headers)
        records.append(
            http_records.record(
                "response", exchange.id, last, status=exchange.status, reason=exchange.reason, headers=headers
            )
        )
    for item in exchange.events:
        last = max(last, item.at)
        records.append(
            http_records.record(
                "event", exchange.id, item.at, event=item.event, id=item.id, size=item.size, retry=item.retry
            )
        )
    end = started + exchange.total_ms / 1000 if exchange.total_ms is not None else last
    rest = exchange.response_size - sum(item.size for item in exchange.events)
    if rest > 0:
        records.append(http_records.record("body", exchange.id, max(last, end), size=rest))
    if exchange.state != "open":
        records.append(http_records.record("finish", exchange.id, end, error=exchange.error))
    return records
