"""The JSON-RPC connection: ids, correlation, timeouts, cancellation, progress.

Any number of requests may be in flight; there is no "busy" state. Every frame
in either direction is recorded in the traffic store before anything else is
done with it. Here: sending, the frame dispatch of what is received, closing. The
connection owns two collaborators: ``requests`` (request_table.py: our requests by id,
what a reply answers, late and duplicate replies) and ``answers`` (answering.py: the
server's requests, answered by the handlers the user of the connection registers;
``ping`` automatically, an unknown method with -32601).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

import anyio
import anyio.abc

from .. import telemetry
from ..base import jsonrpc
from ..base.errors import ConnectionLost, ProtocolViolation, RpcError, TransportFailure
from ..base.json_text import loads_strict
from ..base.jsonrpc import Kind, classify, classify_message, id_key
from ..traffic.entry import Direction, TrafficEntry
from ..traffic.store import TrafficStore
from ..transport.base import Closed, Note, Received, StderrLine, Transport, TransportError, TransportEvent, Undelivered
from .answering import RequestHandler as RequestHandler  # re-exported: the session modules import it from here
from .answering import ServerRequests
from .pending import PendingRequest as PendingRequest  # re-exported: the session modules import it from here
from .pending import Progress
from .raw import IncomingRequest, batch_request, end_idless_batch, send_frame
from .request_table import RequestTable

NotificationListener = Callable[[str, dict[str, Any] | None, TrafficEntry], None]
CloseListener = Callable[[Closed], None]

CANCEL_SEND_LIMIT = 1.0  # seconds allowed for sending notifications/cancelled
BATCHES_REMOVED_IN = "2025-06-18"  # the first protocol revision without JSON-RPC batching


class RpcConnection:
    """JSON-RPC over one transport, recording every frame into a TrafficStore."""

    def __init__(
        self, transport: Transport, store: TrafficStore | None = None, default_timeout: float | None = 60.0
    ) -> None:
        self.transport = transport
        self.store = store if store is not None else TrafficStore()
        self.default_timeout = default_timeout
        #: The server's requests: their handlers (method -> handler), answered by ``answers``.
        self.answers = ServerRequests(self)
        self.handlers: dict[str, RequestHandler] = self.answers.handlers
        self._notification_listeners: list[NotificationListener] = []
        self._close_listeners: list[CloseListener] = []
        #: Our requests by id, in flight and recently ended (request_table.py).
        self.requests = RequestTable(self.store)
        self.by_id = self.requests.by_id
        self.by_token = self.requests.by_token
        self.idless = self.requests.idless  # frames sent by hand answered by an error naming no id (raw.py)
        self.next_raw_id = 1  # "raw-N" ids offered for frames sent by hand (raw.fresh_id)
        self.closed: Closed | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # set on asyncio: PendingRequest.wait uses its timers
        #: The negotiated protocol revision (the session sets it): frames are judged by it.
        self.protocol_version: str | None = None
        #: True once the client sent ``notifications/initialized`` (seen on the way out, or
        #: set by a session whose era has no such notification). Before that, a server
        #: request other than ping is flagged.
        self.initialized = False
        #: True in the 2026-07-28 era (set by the session): servers may send no requests,
        #: so one is flagged and answered -32601 without running a handler.
        self.modern = False
        #: Called as ``meta_provider(method, params) -> params`` for every request sent with
        #: send_request (the session adds the 2026-07-28 ``_meta`` there); not for send_raw.
        self.meta_provider: Callable[[str, dict[str, Any] | None], dict[str, Any] | None] | None = None
        #: Spans for the frames we send (core/telemetry): read once; None (tracing off) costs
        #: one test per frame.
        self.telemetry: telemetry.Telemetry | None = telemetry.active()
        self.started: float | None = None  # perf_counter at start (mcp.client.session.duration)
        transport.work_in_flight = self.work_in_flight

    def work_in_flight(self) -> bool:
        """A request of ours unanswered (or given up on: the server may still be at it), or one
        of the server's being answered."""
        return bool(self.requests.busy() or self.answers.waiting)

    # -- lifecycle -----------------------------------------------------
    async def start(self, task_group: anyio.abc.TaskGroup) -> None:
        self.answers.start(task_group)
        self.started = time.perf_counter()
        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:  # another anyio backend: waits use cancel scopes
            self.loop = None
        await self.transport.start(task_group, self._on_event)

    async def aclose(self) -> None:
        await self.transport.close()

    @property
    def pending(self) -> list[PendingRequest]:
        return list(self.by_id.values())

    @property
    def answering(self) -> int:
        """Server requests being answered now: while above 0 our requests' timeouts wait."""
        return self.answers.answering

    @property
    def server_requests(self) -> list[IncomingRequest]:
        """The server's requests waiting for our answer (a person may be at the answering screen)."""
        return list(self.answers.waiting)

    @property
    def refused_requests(self) -> int:
        """Server requests answered with an error at once because too many already waited."""
        return self.answers.waiting.refused

    def withdraw(self, msg_id: Any) -> IncomingRequest | None:
        """A server request answered some other way (answering.ServerRequests.withdraw)."""
        return self.answers.withdraw(msg_id)

    def add_notification_listener(self, listener: NotificationListener) -> None:
        self._notification_listeners.append(listener)

    def add_close_listener(self, listener: CloseListener) -> None:
        self._close_listeners.append(listener)

    # -- sending -------------------------------------------------------
    def allocate_id(self) -> int:
        return self.requests.allocate_id()

    async def send_request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None | str = "default",
        reset_on_progress: bool = False,
        max_total: float | None = None,
        on_progress: Callable[[PendingRequest], None] | None = None,
        progress: bool = False,
        msg_id: Any = None,
        transport_meta: dict[str, Any] | None = None,
        entry_meta: dict[str, Any] | None = None,
    ) -> PendingRequest:
        """Send a request and return its handle without waiting for the answer.

        ``transport_meta`` goes to ``Transport.send`` with the frame (an HTTP
        transport reads ``headers`` from it, e.g. ``Mcp-Param-*`` mirrors);
        ``entry_meta`` is kept on the request's traffic entry."""
        if msg_id is None:
            msg_id = self.allocate_id()
        if self.meta_provider is not None:
            params = self.meta_provider(method, params)
        token = None
        if progress or on_progress is not None:
            token = msg_id
            params = dict(params or {})
            meta = dict(params.get("_meta") or {})
            meta["progressToken"] = token
            params["_meta"] = meta
        operation = None
        if self.telemetry is not None:
            operation = self.telemetry.start(method, params, msg_id, self.peer())
            params = telemetry.with_trace_context(params, operation)
        pending = PendingRequest(
            self,
            msg_id,
            method,
            params,
            self.default_timeout if timeout == "default" else timeout,  # type: ignore[arg-type]  # timeout is "default" or a number; the str case is taken
            reset_on_progress,
            max_total,
            on_progress,
            token,
            transport_meta,
            entry_meta,
        )
        pending.operation = operation
        data = jsonrpc.dumps(jsonrpc.request(msg_id, method, params))
        await self.send_tracked(pending, data)
        return pending

    async def request(self, method: str, params: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
        """Send a request and wait for its result."""
        pending = await self.send_request(method, params, **options)
        return await pending.wait()

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> TrafficEntry:
        operation = None
        if self.telemetry is not None:
            operation = self.telemetry.start(method, params, None, self.peer())
            params = telemetry.with_trace_context(params, operation)
        data = jsonrpc.dumps(jsonrpc.notification(method, params))
        try:
            entry = await self.send_recorded(data, Kind.NOTIFICATION, method=method)
        except ConnectionLost:
            if operation is not None:
                operation.finish("connection_lost", "not delivered")
            raise
        if operation is not None:  # a notification has no ack: its span ends once it is written
            operation.finish()
        return entry

    def peer(self) -> telemetry.Peer:
        """What a span says about this connection (only asked while tracing is on)."""
        return telemetry.peer_of(self.transport, self.protocol_version)

    async def send_raw(
        self, data: bytes, timeout: float | None | str = "default", info: jsonrpc.Classified | None = None
    ) -> tuple[TrafficEntry, PendingRequest | None]:
        """Send bytes as they are (for ``pipe``; the raw frame screen uses ``raw.send_frame``,
        which says more). A request gets a pending entry so its response is correlated (an id
        in flight is refused: ``raw.IdInFlight``, a ValueError); anything else, even an invalid
        frame on purpose, is recorded and sent. ``info``: ``classify(data)`` when the caller
        already has it (pipe classifies each line first), so the line is parsed once."""
        sent = await send_frame(self, data, timeout, info)
        return sent.entry, sent.pending

    def track(self, pending: PendingRequest) -> None:
        """Register a request about to be sent, so its reply finds it."""
        self.requests.track(pending)

    async def send_tracked(
        self, pending: PendingRequest, data: bytes, kind: Kind = Kind.REQUEST, problem: str | None = None
    ) -> None:
        self.check_open()
        self.track(pending)
        # Recorded before the write is awaited: a reply may arrive while a large
        # request is still draining, and it must find the entry to link to.
        pending.entry = self.store.append(
            Direction.OUT,
            kind,
            data,
            method=pending.method,
            msg_id=pending.id,
            has_id=True,
            problem=problem,
            meta=pending.entry_meta,
        )
        try:
            await self.transmit(pending.entry, data, kind, pending.method, pending.transport_meta)
        except BaseException:
            self.forget(pending)
            raise

    async def send_recorded(self, data: bytes, kind: Kind, **fields: Any) -> TrafficEntry:
        """Record a frame that is not a request of ours, then write it (ConnectionLost if it cannot be)."""
        self.check_open()
        entry = self.store.append(Direction.OUT, kind, data, **fields)
        if kind is Kind.NOTIFICATION and fields.get("method") == "notifications/initialized":
            self.initialized = True
        await self.transmit(entry, data, kind, fields.get("method"))
        return entry

    async def transmit(
        self, entry: TrafficEntry, data: bytes, kind: Kind, method: str | None, meta: dict[str, Any] | None = None
    ) -> None:
        """Write a recorded frame; a failure is recorded beside it and raised as ConnectionLost."""
        try:
            # the entry's seq goes with the frame: an HTTP transport links it to the exchange that carries it
            await self.transport.send(data, {**meta, "seq": entry.seq} if meta else {"seq": entry.seq})
        except TransportError as exc:
            self.store.flag(entry, f"not delivered: {exc}")
            # The entry was already recorded as sent: the session file gets the failure too.
            self.store.append(
                Direction.LOCAL,
                Kind.EVENT,
                f"#{entry.seq} not delivered: {exc}".encode(),
                reply_to=entry.seq,
                problem="not delivered",
            )
            raise ConnectionLost(
                f"cannot send {method or kind.value}: {exc}", stderr_tail=self._stderr_tail()
            ) from None

    def check_open(self) -> None:
        if self.closed is not None:
            raise ConnectionLost(self.closed.reason, self.closed.exit_code, self.closed.signal, self.closed.stderr_tail)

    def forget(self, pending: PendingRequest) -> None:
        self.requests.forget(pending)

    async def abandon(self, pending: PendingRequest, error: BaseException, reason: str) -> None:
        """Time out or cancel: forget the request, tell the server, resolve the waiter."""
        if pending.done:
            return
        self.requests.ended(pending, reason)
        pending.resolve(error=error)
        # Neither initialize nor the era probe (server/discover before any handshake: a
        # legacy server must get nothing but initialize and pings first) is cancelled.
        if (
            self.closed is None
            and pending.method != "initialize"
            and (self.initialized or pending.method != "server/discover")
        ):
            # Bounded and shielded: a server that stopped reading its input must not
            # turn a timeout or a cancel into a hang.
            with anyio.move_on_after(CANCEL_SEND_LIMIT, shield=True):
                done = await self.transport.cancel_request(pending.id)
                if done is not None:  # e.g. 2026-07-28 HTTP: closing the stream is the cancellation
                    self.store.append(
                        Direction.LOCAL,
                        Kind.EVENT,
                        f"#{pending.entry.seq if pending.entry else '?'} {done}".encode(),
                        reply_to=pending.entry.seq if pending.entry is not None else None,
                    )
                    return
                with contextlib.suppress(ConnectionLost):
                    await self.notify("notifications/cancelled", {"requestId": pending.id, "reason": reason})
                await self.transport.abandon_request(pending.id)  # e.g. its HTTP response stream closed

    def release(self, pending: PendingRequest, error: BaseException, reason: str = "ended by the server") -> None:
        """End a request the server ended itself (``notifications/cancelled`` for a
        long-lived ``subscriptions/listen``), or that a frame sent by hand cancelled:
        resolved with ``error``, nothing sent; a late reply is marked with ``reason``."""
        if pending.done:
            return
        self.requests.ended(pending, reason)
        pending.resolve(error=error)

    def _stderr_tail(self) -> list[str]:
        tail = getattr(self.transport, "stderr_tail", None)
        return list(tail)[-10:] if tail else []

    # -- receiving -----------------------------------------------------
    def _on_event(self, event: TransportEvent) -> None:
        if type(event) is Received:
            if event.problem is None:
                self._on_frame(event.raw, event.meta)
            else:
                self._on_unreadable(event.raw, event.problem, event.meta)
        elif type(event) is StderrLine:
            self.store.append(Direction.IN, Kind.STDERR, event.raw, meta=event.meta)
        elif type(event) is Note:
            self.store.append(Direction.LOCAL, Kind.EVENT, event.text.encode("utf-8"), meta=event.meta)
        elif type(event) is Closed:
            self._on_closed(event)
        elif type(event) is Undelivered:
            self._on_undelivered(event)

    def _on_undelivered(self, event: Undelivered) -> None:
        """The transport says a request will get no reply (an HTTP error without a
        JSON-RPC body, a cut stream): record why, linked to the request, and fail it."""
        pending = self.by_id.get(id_key(event.msg_id)) if jsonrpc.valid_id(event.msg_id) else None
        request_entry = pending.entry if pending is not None else None
        prefix = f"#{request_entry.seq} " if request_entry is not None else ""
        entry = self.store.append(
            Direction.LOCAL,
            Kind.EVENT,
            f"{prefix}{event.reason}".encode(),
            reply_to=request_entry.seq if request_entry is not None else None,
            problem="undelivered",
            meta=event.meta,
        )
        if pending is None:
            return
        self.forget(pending)
        if request_entry is not None and request_entry.reply_seq is None:
            request_entry.reply_seq = entry.seq
        status = event.meta.get("status") if event.meta else None
        pending.resolve(
            error=TransportFailure(
                pending.method, event.reason, status if isinstance(status, int) else None, event.meta
            )
        )

    def _on_frame(self, raw: bytes, meta: dict[str, Any] | None) -> None:
        # Correlate first, append second: a recorder writes the entry the moment it is
        # appended, so reply_to, latency and the late flag must already be on it.
        info = classify(raw)
        kind = info.kind
        if kind is Kind.INVALID and info.message is None and not info.has_id:
            # Not parsed at all (nested too deep, not JSON): if its top level shows the id of a
            # request of ours, that request fails now instead of waiting for its timeout.
            msg_id = _head_id(raw)
            if msg_id is not None:
                info.id, info.has_id = msg_id, True
        # Plain locals rather than a dict of fields: this runs for every frame.
        problem = info.problem
        reply_to: int | None = None
        latency_ms: float | None = None
        late = False
        ts: float | None = None
        pending: PendingRequest | None = None
        request_entry: TrafficEntry | None = None
        progress_for: PendingRequest | None = None
        is_reply = kind is Kind.RESPONSE or kind is Kind.ERROR
        if is_reply or (kind is Kind.INVALID and info.has_id and jsonrpc.valid_id(info.id) and info.method is None):
            pending, request_entry, reply_to, latency_ms, late, ts, problem = self.requests.correlate(
                info, meta, is_reply
            )
        elif kind is Kind.NOTIFICATION and info.method == "notifications/progress":
            progress_for = self.requests.progress_target(info.message.get("params"))
            if progress_for is not None:
                reply_to = progress_for.entry.seq if progress_for.entry is not None else None
            elif info.problem is None:
                problem = "progress for a token with no request in flight"
        elif kind is Kind.REQUEST and self.modern:
            modern = (
                "a request from the server, which 2026-07-28 forbids (servers ask through MRTR results): "
                "answered -32601"
            )
            problem = modern if problem is None else f"{problem}; {modern}"
        elif kind is Kind.REQUEST and not self.initialized and info.method != "ping":
            early = "sent before initialization (the client had not sent notifications/initialized)"
            problem = early if problem is None else f"{problem}; {early}"
        elif kind is Kind.BATCH:
            if self.protocol_version is not None and self.protocol_version >= BATCHES_REMOVED_IN:
                removed = (
                    f"a batch, but batching was removed in {BATCHES_REMOVED_IN} (negotiated {self.protocol_version})"
                )
                problem = removed if problem is None else f"{problem}; {removed}"
            request_entry = batch_request(self.by_id, self.idless, info.message)
            if request_entry is not None:  # a batch answering a batch we sent (by hand)
                reply_to = request_entry.seq
                latency_ms = (self.store.now() - request_entry.ts) * 1000
        entry = self.store.append(
            Direction.IN,
            kind,
            raw,
            method=info.method,
            msg_id=info.id,
            has_id=info.has_id,
            problem=problem,
            error_code=info.error_code,
            reply_to=reply_to,
            latency_ms=latency_ms,
            late=late,
            meta=meta,
            ts=ts,
        )
        if request_entry is not None:
            request_entry.reply_seq = entry.seq
        if pending is None and request_entry is not None and kind is Kind.ERROR:
            end_idless_batch(self, request_entry, info.message, entry)
        if pending is not None:
            self.requests.answered(pending.id, entry.seq)
            pending.reply = entry
            if kind is Kind.INVALID:
                pending.resolve(
                    error=ProtocolViolation(
                        f"the server answered {pending.method} with an invalid frame: {info.problem}"
                    )
                )
            else:
                self._deliver(pending, info.message)
        elif kind is Kind.NOTIFICATION:
            self._on_notification(info.method or "", info.message.get("params"), entry, progress_for)
        elif kind is Kind.REQUEST:
            self.answers.on_request(info.message, entry)
        elif kind is Kind.BATCH:
            for member in info.message:
                sub = classify_message(member)
                if sub.kind in (Kind.RESPONSE, Kind.ERROR):
                    self._on_batch_reply(member, sub.id, entry)
                elif sub.kind is Kind.NOTIFICATION:
                    params = member.get("params")
                    target = self.requests.progress_target(params) if sub.method == "notifications/progress" else None
                    self._on_notification(sub.method or "", params, entry, target)
                elif sub.kind is Kind.REQUEST:
                    self.answers.on_request(member, entry)

    def _on_unreadable(self, raw: bytes, problem: str, meta: dict[str, Any] | None) -> None:
        """A frame the transport could not deliver whole (over the line cap): ``raw`` is
        its head. Recorded as invalid; if the head shows it answers a request in flight,
        that request fails now rather than at its timeout."""
        msg_id = _head_id(raw)
        pending = self.by_id.get(id_key(msg_id)) if msg_id is not None else None
        reply_to: int | None = None
        latency_ms: float | None = None
        if pending is not None:
            self.forget(pending)
            reply_to = pending.entry.seq if pending.entry is not None else None
            latency_ms = (time.perf_counter() - pending.started) * 1000
        entry = self.store.append(
            Direction.IN,
            Kind.INVALID,
            raw,
            msg_id=msg_id,
            has_id=msg_id is not None,
            problem=problem,
            reply_to=reply_to,
            latency_ms=latency_ms,
            meta=meta,
        )
        if pending is not None:
            if pending.entry is not None:
                pending.entry.reply_seq = entry.seq
            pending.reply = entry
            self.requests.answered(pending.id, entry.seq)
            pending.resolve(
                error=ProtocolViolation(
                    f"the server answered {pending.method} with a frame it could not read: {problem}"
                )
            )

    def _on_batch_reply(self, message: dict[str, Any], msg_id: Any, entry: TrafficEntry) -> None:
        """A response inside a batch: the batch entry is already recorded, so link it here."""
        pending = self.by_id.get(id_key(msg_id))
        if pending is None:
            return
        self.forget(pending)
        self.requests.answered(pending.id, entry.seq)
        pending.reply = entry
        if pending.entry is not None:
            pending.entry.reply_seq = entry.seq
            self.store.changed()
        self._deliver(pending, message)

    def _deliver(self, pending: PendingRequest, message: dict[str, Any]) -> None:
        if "error" in message:
            error = message["error"]
            pending.resolve(error=RpcError(error["code"], error["message"], error.get("data"), error))
        else:
            result = message["result"]
            if not isinstance(result, dict):
                pending.resolve(error=ProtocolViolation(f"the result of {pending.method} is not an object"))
            else:
                if pending.method == "initialize" and isinstance(result.get("protocolVersion"), str):
                    # Seen here too, so a raw handshake (pipe, the composer) sets it as well.
                    self.protocol_version = result["protocolVersion"]
                pending.resolve(result=result)

    def _on_notification(
        self, method: str, params: Any, entry: TrafficEntry, progress_for: PendingRequest | None = None
    ) -> None:
        if progress_for is not None and isinstance(params, dict):
            progress = params.get("progress")
            total = params.get("total")
            message = params.get("message")
            progress_for.progressed(
                Progress(
                    float(progress) if isinstance(progress, (int, float)) and not isinstance(progress, bool) else 0.0,
                    float(total) if isinstance(total, (int, float)) and not isinstance(total, bool) else None,
                    message if isinstance(message, str) else None,
                    time.perf_counter(),
                )
            )
        elif method == "notifications/cancelled" and isinstance(params, dict):
            self.answers.cancel(params.get("requestId"))
        if self.telemetry is not None:  # the server's notification: a SERVER span, ended at once
            telemetry.incoming(self.telemetry, method, params, None, self.peer()).finish()
        for listener in self._notification_listeners:
            try:
                listener(method, params if isinstance(params, dict) else None, entry)
            except Exception as exc:  # a listener bug must not stop the reader (and the connection)
                self.store.note(
                    f"error in a notification listener: {exc.__class__.__name__}: {exc}", listener_error=True
                )

    def _on_closed(self, event: Closed) -> None:
        self.closed = event
        detail = event.reason
        self.store.append(
            Direction.LOCAL,
            Kind.EVENT,
            detail.encode("utf-8"),
            meta={"exit_code": event.exit_code, "signal": event.signal, "expected": event.expected, "closed": True},
        )
        error = ConnectionLost(event.reason, event.exit_code, event.signal, event.stderr_tail)
        for pending in list(self.by_id.values()):
            pending.resolve(error=error)
        self.by_id.clear()
        self.by_token.clear()
        self.answers.cancel_all()
        if self.telemetry is not None and self.started is not None:
            self.telemetry.session_ended(
                time.perf_counter() - self.started, self.peer(), None if event.expected else "connection_lost"
            )
        for listener in self._close_listeners:
            try:
                listener(event)
            except Exception as exc:
                self.store.note(f"error in a close listener: {exc.__class__.__name__}: {exc}", listener_error=True)


def _head_id(head: bytes) -> Any:
    """The id of a response that could not be parsed (its head is all we have, or it nests too
    deep), if its top level shows one and no ``method`` (None otherwise). A shallow scan: the
    nested values are never parsed, so any depth is safe."""
    members = jsonrpc.shallow_members(head, ("id", "method"))
    text = members.get("id")
    if text is None or "method" in members:
        return None
    try:
        value = loads_strict(text)
    except ValueError:  # JsonTextError is a ValueError
        return None
    return value if jsonrpc.valid_id(value) else None
