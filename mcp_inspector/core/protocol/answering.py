"""Answering the server's requests to the client (``roots/list``, ``sampling/createMessage``,
``elicitation/create``...): the handlers the user of the connection registers, ``ping``
answered at once, -32601 for an unknown method (and for any request in the 2026-07-28 era,
where servers send none), a bounded number waiting at once (incoming.py), and cancellation by
the server's ``notifications/cancelled``. While a handler runs (a person may be at a form), the
timeouts of our own requests wait: ``answering`` counts them.

:class:`ServerRequests` belongs to one RpcConnection (``connection.answers``); what it needs of
it is :class:`AnsweringConnection`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import anyio.abc

from .. import telemetry
from ..base import jsonrpc
from ..base.errors import ConnectionLost, RpcError
from ..base.jsonrpc import Kind, id_key
from ..traffic.entry import TrafficEntry
from ..traffic.store import TrafficStore
from .incoming import WaitingRequests
from .pending import PendingRequest
from .raw import IncomingRequest

if TYPE_CHECKING:  # the types only (telemetry's own rule: importing it costs nothing at run time)
    from ..telemetry import Peer, Telemetry

RequestHandler = Callable[[dict[str, Any] | None, TrafficEntry], Awaitable[dict[str, Any]]]


class AnsweringConnection(Protocol):
    """What answering needs of the RpcConnection (rpc.py imports this module)."""

    @property
    def store(self) -> TrafficStore: ...
    @property
    def modern(self) -> bool: ...
    @property
    def telemetry(self) -> Telemetry | None: ...
    @property
    def pending(self) -> list[PendingRequest]: ...

    def peer(self) -> Peer: ...
    async def send_recorded(self, data: bytes, kind: Kind, **fields: Any) -> TrafficEntry: ...


class ServerRequests:
    """The server's requests to one connection: handlers, the ones waiting, their answers."""

    def __init__(self, connection: AnsweringConnection) -> None:
        self.connection = connection
        self.handlers: dict[str, RequestHandler] = {}
        #: Server requests being answered (a handler runs), by id, bounded (incoming.py).
        self.waiting = WaitingRequests(connection.store)
        #: Server requests being answered now (a person may be filling an elicitation form):
        #: while it is above 0, the timeouts of our own requests wait (see PendingRequest.wait).
        self.answering = 0
        self._task_group: anyio.abc.TaskGroup | None = None

    def start(self, task_group: anyio.abc.TaskGroup) -> None:
        """Where the handlers run (the connection's task group)."""
        self._task_group = task_group

    def withdraw(self, msg_id: Any) -> IncomingRequest | None:
        """A server request answered some other way (a response sent by hand): its handler is
        stopped, so it sends nothing, and it is no longer listed. None if no such request waits."""
        incoming = self.waiting.pop(id_key(msg_id)) if jsonrpc.valid_id(msg_id) else None
        if incoming is not None:
            incoming.withdrawn = True
            incoming.scope.cancel()
        return incoming

    def cancel(self, request_id: Any) -> None:
        """The server's ``notifications/cancelled`` for one of its requests: its handler stops."""
        incoming = self.waiting.get(id_key(request_id)) if jsonrpc.valid_id(request_id) else None
        if incoming is not None:
            incoming.scope.cancel()

    def cancel_all(self) -> None:
        """The connection closed: every handler stops."""
        for incoming in self.waiting:
            incoming.scope.cancel()

    def on_request(self, message: dict[str, Any], entry: TrafficEntry) -> None:
        method = message["method"]
        params = message.get("params")
        modern = self.connection.modern
        handler = None if modern else self.handlers.get(method)
        if handler is None and method == "ping" and not modern:
            handler = _pong
        assert self._task_group is not None, "started: RpcConnection.start"
        msg_id = message["id"]
        incoming = None
        if handler is None:
            refusal = (jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")
        elif handler is not _pong and self.waiting.full():  # a flood: bounded, each refused at once
            refusal = self.waiting.refuse(method, handler)
        else:
            # registered now, not when its task starts: a flood read in one chunk sees the count grow
            refusal = None
            incoming = IncomingRequest(msg_id, method, entry, anyio.CancelScope(), time.perf_counter())
            self.waiting.add(id_key(msg_id), incoming)
        self._task_group.start_soon(
            self._answer,
            msg_id,
            method,
            params if isinstance(params, dict) else None,
            handler,
            entry,
            incoming,
            refusal,
        )

    async def _answer(
        self,
        msg_id: Any,
        method: str,
        params: dict[str, Any] | None,
        handler: RequestHandler | None,
        entry: TrafficEntry,
        incoming: IncomingRequest | None,
        refusal: tuple[int, str] | None,
    ) -> None:
        connection = self.connection
        started = incoming.started if incoming is not None else time.perf_counter()
        # the server's request: a SERVER span until our reply is written (core/telemetry)
        span = (
            None
            if connection.telemetry is None
            else telemetry.incoming(connection.telemetry, method, params, msg_id, connection.peer())
        )
        reply: dict[str, Any] | None
        if handler is None or incoming is None or refusal is not None:
            code, text = refusal or (jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")
            reply = jsonrpc.error_response(msg_id, code, text)
        else:
            scope = incoming.scope
            key = id_key(msg_id)
            reply = None
            # The server waits for this answer before it can reply to what we asked, so the
            # time spent answering does not count against our requests' timeouts: the handler's
            # own time, not the wait since the request was read (in a flood of pings that wait
            # is seconds per ping, and adding it each time pushed a call's timeout away forever).
            paused = {id(p): (p, p.deadline) for p in connection.pending if p.deadline is not None}
            handler_started = time.perf_counter()
            self.answering += 1
            try:
                with scope:
                    result = await handler(params, entry)
                    if isinstance(result, dict):
                        reply = jsonrpc.response(msg_id, result)
                    else:  # "result": null would be an invalid response on the wire
                        reply = jsonrpc.error_response(
                            msg_id,
                            jsonrpc.INTERNAL_ERROR,
                            f"the {method} handler returned {type(result).__name__}, not an object",
                        )
            except RpcError as exc:
                reply = jsonrpc.error_response(msg_id, exc.code, exc.message, exc.data)
            except Exception as exc:  # a handler bug must not kill the connection
                reply = jsonrpc.error_response(msg_id, jsonrpc.INTERNAL_ERROR, f"{exc.__class__.__name__}: {exc}")
            finally:
                self.waiting.done(key, incoming)
                self.answering -= 1
                spent = time.perf_counter() - handler_started
                for pending, deadline in paused.values():
                    if pending.deadline is not None:
                        pending.deadline = max(pending.deadline, deadline + spent)
            if reply is None:  # cancelled by the server: no response is sent
                if span is not None:
                    telemetry.answered(span, None)
                return
        kind = Kind.ERROR if "error" in reply else Kind.RESPONSE
        try:
            sent = await connection.send_recorded(
                jsonrpc.dumps(reply),
                kind,
                msg_id=msg_id,
                has_id=True,
                error_code=reply["error"]["code"] if "error" in reply else None,
                reply_to=entry.seq,
                latency_ms=(time.perf_counter() - started) * 1000,
            )
        except ConnectionLost:
            if span is not None:
                span.finish("connection_lost", "the connection closed before our reply")
            return
        if span is not None:
            telemetry.answered(span, reply)
        entry.reply_seq = sent.seq
        connection.store.changed()


async def _pong(params: dict[str, Any] | None, entry: TrafficEntry) -> dict[str, Any]:
    return {}
