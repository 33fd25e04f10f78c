"""The proxy's recorder: the bytes both sides exchanged, as timeline entries, off the forward path.

The threads that forward bytes (``stdio``, through ``relay`` and ``sink``: the recorder runs
in a process of its own there) hand every chunk to :meth:`FrameRecorder.put` *before* writing
it on, so the recording keeps causal order (a reply is never recorded before the request it
answers). One recorder thread splits the chunks into lines
(``framing.LineFramer``), classifies each frame (``jsonrpc.classify``), appends it to the
:class:`TrafficStore` (whose recorder writes the session file) and links replies to
requests in both directions (the host's requests, and the server's requests the host answers).

The queue between them is bounded in bytes (``backlog``): the forward path never waits on
the disk unless the recording is that far behind, and then it waits rather than lose a
frame from the recording (a viewer's feed, in contrast, drops with a count: ``feed``).
Non-JSON lines are recorded as they are, flagged ``invalid`` with the reason.

The HTTP proxy (``http``) runs the recorder *held*: what it hands over is queued in order but
the thread is not woken per item (each wake-up is a thread switch and a fight for the GIL with
the event loop, mid-exchange); the proxy calls :meth:`FrameRecorder.wake` once an exchange has
been forwarded (or a stream's chunk, a little later). Its metadata may be a callable, made in
the recorder's thread (masking headers costs ~20 us a list: not on the forward path).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..base.framing import MAX_LINE_BYTES, LineFramer, OverlongLine, is_blank
from ..base.jsonrpc import Kind, classify, id_key
from ..telemetry.relay import RelaySpans
from ..traffic.entry import Direction, TrafficEntry
from ..traffic.store import TrafficStore

BACKLOG = 64 << 20  # bytes waiting for the recorder before the forward path waits for it
PENDING_CAP = 10_000  # requests remembered per direction for linking replies (the oldest are forgotten)
MAX_STDERR_LINE = 1 << 20

#: What a chunk came on: the host's stdin (to the server), the server's stdout, its stderr.
HOST = "host"
SERVER = "server"
STDERR = "stderr"
_DIRECTIONS = {HOST: Direction.OUT, SERVER: Direction.IN, STDERR: Direction.IN}
_SPAN_KINDS = frozenset((Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.ERROR))

#: A frame's or note's metadata: a dict, or a callable that makes it (in the recorder's thread).
Meta = dict[str, Any] | Callable[[], dict[str, Any]] | None


def _resolved(meta: Meta) -> dict[str, Any] | None:
    return meta() if callable(meta) else meta


class ChunkSink(Protocol):
    """Where the stdio pumps hand what they forward: a :class:`FrameRecorder`, or ``relay.RecordPipe``
    (the same calls, recorded in a process of its own)."""

    def put(self, source: str, data: bytes, ts: float | None = None) -> None: ...

    def end(self, source: str, ts: float | None = None) -> None: ...

    def note(self, text: str, ts: float | None = None, **meta: Any) -> None: ...


@dataclass(slots=True)
class _Chunk:
    source: str
    data: bytes | None  # None: that stream ended
    ts: float


@dataclass(slots=True)
class _Frame:
    """A whole frame (HTTP: a request body, a JSON response, an SSE event's data)."""

    direction: Direction
    raw: bytes
    meta: Meta
    ts: float


@dataclass(slots=True)
class _Http:
    """What happened to an HTTP exchange (``http_feed``'s record), for the live view."""

    record: dict[str, Any] | Callable[[], dict[str, Any]]


@dataclass(slots=True)
class _Note:
    text: str
    meta: Meta
    ts: float


class FrameRecorder:
    """Turns the chunks both ways into entries of ``store``, in a thread of its own."""

    def __init__(
        self,
        store: TrafficStore,
        backlog: int = BACKLOG,
        max_line: int = MAX_LINE_BYTES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.backlog = backlog
        self._clock = clock
        self._queue: deque[_Chunk | _Frame | _Note | _Http] = deque()
        self._queued = 0  # bytes in _queue
        self._cond = threading.Condition()
        self._closing = False
        self._framers = {
            HOST: LineFramer(max_line),
            SERVER: LineFramer(max_line),
            STDERR: LineFramer(MAX_STDERR_LINE),
        }
        # requests waiting for a reply: (who asked, id key) -> entry
        self._pending: dict[Direction, OrderedDict[tuple[bool, Any], TrafficEntry]] = {
            Direction.OUT: OrderedDict(),
            Direction.IN: OrderedDict(),
        }
        self.client_info: dict[str, Any] | None = None
        self.waited = 0  # times the forward path waited for the recorder (a full backlog)
        self.frames = 0
        #: Spans for the frames forwarded (core/telemetry/relay.py), when tracing is on; made and
        #: called in the recorder's thread, never on the forward path.
        self.spans: RelaySpans | None = None
        #: Called in the recorder's thread with each ``http_feed`` record, in order with the
        #: frames (the live view's publisher: ``feed.FeedPublisher.publish_record``).
        self.http_listeners: list[Callable[[dict[str, Any]], None]] = []
        #: Held (the HTTP proxy): items are queued without waking the thread; :meth:`wake` does.
        self.held = False
        self._thread = threading.Thread(target=self._run, name="proxy-recorder", daemon=True)

    def start(self) -> None:
        self._thread.start()

    # -- the forward threads' side ------------------------------------------
    def put(self, source: str, data: bytes, ts: float | None = None) -> None:
        """A chunk as read (before it is written on); waits only while the backlog is full."""
        with self._cond:
            if self._queued + len(data) > self.backlog and self._queue:
                self.waited += 1
                while self._queued + len(data) > self.backlog and self._queue and not self._closing:
                    self._cond.wait()
            self._queue.append(_Chunk(source, data, ts or self._clock()))
            self._queued += len(data)
            self._cond.notify_all()

    def put_frame(self, direction: Direction, raw: bytes, meta: Meta = None, ts: float | None = None) -> None:
        """A whole frame (the HTTP proxy's); never waits (the event loop calls it): HTTP bodies are
        bounded by the proxy's own caps."""
        with self._cond:
            self._queue.append(_Frame(direction, raw, meta, ts or self._clock()))
            self._queued += len(raw)
            if not self.held:
                self._cond.notify_all()

    def http(self, record: dict[str, Any] | Callable[[], dict[str, Any]]) -> None:
        """What happened to an HTTP exchange (``http_feed``; or a callable making it, in the
        recorder's thread); never waits (the event loop calls it)."""
        with self._cond:
            self._queue.append(_Http(record))
            if not self.held:
                self._cond.notify_all()

    def note_with(self, text: str, meta: Meta, ts: float | None = None) -> None:
        """:meth:`note` with its metadata as a dict or a callable making it (in the recorder's thread)."""
        with self._cond:
            self._queue.append(_Note(text, meta, ts or self._clock()))
            if not self.held:
                self._cond.notify_all()

    def wake(self) -> None:
        """Record what is queued now (a held recorder's hand-off)."""
        with self._cond:
            if self._queue:
                self._cond.notify_all()

    def end(self, source: str, ts: float | None = None) -> None:
        """That stream reached its end (an unterminated last line is recorded now)."""
        with self._cond:
            self._queue.append(_Chunk(source, None, ts or self._clock()))
            self._cond.notify_all()

    def note(self, text: str, ts: float | None = None, **meta: Any) -> None:
        """Something the proxy observed (host closed stdin, signal passed on, exit code)."""
        self.note_with(text, meta, ts)

    def close(self, timeout: float | None = None) -> None:
        """Record everything queued, then stop the thread."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout)

    # -- the recorder thread ---------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closing:
                    self._cond.wait()
                if not self._queue:
                    if self.spans is not None:
                        self.spans.close()
                    return
                batch = list(self._queue)
                self._queue.clear()
                self._queued = 0
                self._cond.notify_all()
            for item in batch:
                if isinstance(item, _Note):
                    meta = {key: value for key, value in (_resolved(item.meta) or {}).items() if value is not None}
                    self.store.append(
                        Direction.LOCAL, Kind.EVENT, item.text.encode("utf-8"), meta=meta or None, ts=item.ts
                    )
                elif isinstance(item, _Frame):
                    self.frames += 1
                    self._record(item.direction, item.raw, item.ts, _resolved(item.meta))
                elif isinstance(item, _Http):
                    record = item.record() if callable(item.record) else item.record
                    for listener in self.http_listeners:
                        listener(record)
                else:
                    self._chunk(item)

    def _chunk(self, chunk: _Chunk) -> None:
        framer = self._framers[chunk.source]
        if chunk.data is None:
            tail = framer.flush()
            if tail is not None and not is_blank(tail):
                self._line(chunk.source, tail, chunk.ts, terminated=False)
            return
        for line in framer.feed(chunk.data):
            if not is_blank(line):
                self._line(chunk.source, line, chunk.ts, terminated=True)

    def _line(self, source: str, line: bytes, ts: float, terminated: bool) -> None:
        meta: dict[str, Any] | None = None
        if not terminated:
            meta = {"unterminated": True}
        if type(line) is OverlongLine:
            meta = {**(meta or {}), "truncated": True, "size": line.size}
        direction = _DIRECTIONS[source]
        if source == STDERR:
            self.store.append(direction, Kind.STDERR, bytes(line), meta=meta, ts=ts)
            return
        self.frames += 1
        if type(line) is OverlongLine:
            self.store.append(
                direction, Kind.INVALID, bytes(line), problem=f"too long: {line.size} bytes", meta=meta, ts=ts
            )
            return
        self._record(direction, line, ts, meta)

    def _record(self, direction: Direction, line: bytes, ts: float, meta: dict[str, Any] | None) -> None:
        found = classify(line)
        request = None
        if found.kind in (Kind.RESPONSE, Kind.ERROR) and found.has_id:
            other = Direction.IN if direction is Direction.OUT else Direction.OUT
            request = self._pending[other].pop(id_key(found.id), None)
        entry = self.store.append(
            direction,
            found.kind,
            line,
            method=found.method,
            msg_id=found.id,
            has_id=found.has_id,
            problem=found.problem,
            error_code=found.error_code,
            reply_to=request.seq if request is not None else None,
            latency_ms=round((ts - request.ts) * 1000, 3) if request is not None else None,
            meta=meta,
            ts=ts,
        )
        if self.spans is not None and found.kind in _SPAN_KINDS:
            self.spans.frame(direction is Direction.OUT, found.kind.value, found.id, found.method, found.message)
        if request is not None:
            request.reply_seq = entry.seq  # linked as it is written: no annotation line needed
        elif found.kind is Kind.REQUEST:
            pending = self._pending[direction]
            pending[id_key(found.id)] = entry
            if len(pending) > PENDING_CAP:
                pending.popitem(last=False)
            if found.method == "initialize" and direction is Direction.OUT:
                self._host_hello(found.message)

    def _host_hello(self, message: Any) -> None:
        """The host's initialize: its clientInfo goes into the timeline (and so the recording)."""
        params = message.get("params") if isinstance(message, dict) else None
        info = params.get("clientInfo") if isinstance(params, dict) else None
        if not isinstance(info, dict):
            return
        self.client_info = info
        name = info.get("name") if isinstance(info.get("name"), str) else "?"
        version = info.get("version") if isinstance(info.get("version"), str) else ""
        self.store.note(
            f"host: {name} {version}".rstrip(),
            client_info=info,
            protocol_version=params.get("protocolVersion") if isinstance(params, dict) else None,
        )
