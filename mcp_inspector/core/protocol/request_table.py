"""Our requests by id: the ones in flight, and the recently ended ones a reply may still name.

A reply is correlated here before it is recorded (``correlate``): the request in flight it
answers, or the frame sent by hand with no id that an error naming no id answers (raw.py), or
it is marked as a duplicate of a reply already seen, as late (the request timed out, was
cancelled or released), or as naming an id with no request. Progress notifications find their
request by its token (``progress_target``). The memories of ended requests are bounded.

:class:`RequestTable` belongs to one RpcConnection (``connection.requests``), which also
exposes its ``by_id``, ``by_token`` and ``idless``.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

from ..base import jsonrpc
from ..base.jsonrpc import Classified, Kind, id_key
from ..traffic.entry import TrafficEntry
from ..traffic.store import TrafficStore
from .pending import PendingRequest
from .raw import IdlessFrame, take_idless

ABANDONED_MEMORY = 1000  # ids of timed-out/cancelled requests remembered to mark late replies
ANSWERED_MEMORY = 10_000  # ids of answered requests remembered to mark duplicate replies

#: What ``correlate`` found for a reply: (the request in flight it answers, the entry of the
#: request it answers, reply_to, latency_ms, late, the reply's timestamp when set here, problem).
Correlation = tuple[
    PendingRequest | None, TrafficEntry | None, int | None, float | None, bool, float | None, str | None
]


class RequestTable:
    """The requests of one connection, in flight and recently ended, by id key."""

    def __init__(self, store: TrafficStore) -> None:
        self.store = store
        self.by_id: dict[tuple[bool, Any], PendingRequest] = {}
        self.by_token: dict[tuple[bool, Any], PendingRequest] = {}
        #: Frames sent by hand that may get an answer naming no id (not JSON, a batch): an
        #: error with ``"id": null`` is linked to the oldest (raw.py).
        self.idless: list[IdlessFrame] = []
        self._abandoned: OrderedDict[tuple[bool, Any], tuple[TrafficEntry | None, str]] = OrderedDict()
        self._answered: OrderedDict[tuple[bool, Any], int] = OrderedDict()  # id -> seq of its reply
        self._next_id = 1

    def busy(self) -> bool:
        """A request in flight, or one given up on (the server may still be at it)."""
        return bool(self.by_id or self._abandoned)

    def allocate_id(self) -> int:
        while id_key(self._next_id) in self.by_id:
            self._next_id += 1
        msg_id = self._next_id
        self._next_id += 1
        return msg_id

    def track(self, pending: PendingRequest) -> None:
        """Register a request about to be sent, so its reply finds it."""
        key = id_key(pending.id)
        self.by_id[key] = pending
        self._answered.pop(key, None)  # the id is in use again: its replies are not duplicates
        self._abandoned.pop(key, None)
        if pending.progress_token is not None:
            self.by_token[id_key(pending.progress_token)] = pending

    def forget(self, pending: PendingRequest, keep_token: bool = False) -> None:
        self.by_id.pop(id_key(pending.id), None)
        if pending.progress_token is not None and not keep_token:
            self.by_token.pop(id_key(pending.progress_token), None)

    def ended(self, pending: PendingRequest, reason: str) -> None:
        """Forget a request that ended without its reply; a late reply is marked with ``reason``."""
        self.forget(pending)
        abandoned = self._abandoned
        abandoned[id_key(pending.id)] = (pending.entry, reason)
        while len(abandoned) > ABANDONED_MEMORY:
            abandoned.popitem(last=False)

    def answered(self, msg_id: Any, seq: int) -> None:
        """The request ``msg_id`` got its reply (entry ``seq``): another one is a duplicate."""
        answered = self._answered
        answered[id_key(msg_id)] = seq
        if len(answered) > ANSWERED_MEMORY:
            answered.popitem(last=False)

    def progress_target(self, params: Any) -> PendingRequest | None:
        if not isinstance(params, dict):
            return None
        token = params.get("progressToken")
        if not jsonrpc.valid_id(token):
            return None
        return self.by_token.get(id_key(token))

    def correlate(self, info: Classified, meta: dict[str, Any] | None, is_reply: bool) -> Correlation:
        """What a reply (or an invalid frame with an id and no method) answers; the request it
        answers in flight is forgotten (the caller resolves it once the reply is recorded)."""
        problem = info.problem
        reply_to: int | None = None
        latency_ms: float | None = None
        late = False
        ts: float | None = None
        request_entry: TrafficEntry | None = None
        key = id_key(info.id)
        pending = self.by_id.get(key)
        if pending is None and info.id is None and meta is not None and "request_id" in meta:
            # An error with "id": null in the response to an HTTP POST answers the
            # request that POST carried (a server that could not read the id, or
            # refused the request before reading it).
            key = id_key(meta["request_id"])
            pending = self.by_id.get(key)
        if pending is not None:
            # A task-augmented request answered with its task: the server goes on sending progress
            # with the request's token while the task runs, from the next frame on. The token stays
            # linked until the session's follow of the task ends (task_follow.py), which takes it
            # over; dropping it here left a gap in which progress was "for no request in flight".
            self.forget(pending, keep_token=is_reply and _task_created(pending, info))
            request_entry = pending.entry
            reply_to = request_entry.seq if request_entry is not None else None
            latency_ms = (time.perf_counter() - pending.started) * 1000
        elif info.kind is Kind.ERROR and info.id is None and self.idless:
            idless = take_idless(self.idless)
            if idless is not None:  # an error naming no id, after a frame sent by hand that had none
                request_entry = idless.entry
                reply_to = request_entry.seq
                latency_ms = (time.perf_counter() - idless.started) * 1000
        elif is_reply and key in self._answered:
            first = self._answered[key]
            problem = f"duplicate of #{first}: the request was already answered"
            first_entry = self.store.get(first)
            if first_entry is not None and first_entry.reply_to is not None:
                reply_to = first_entry.reply_to
        elif is_reply and key in self._abandoned:
            request_entry, reason = self._abandoned[key]
            late = True
            problem = f"late: arrived after the request ended ({reason})"
            if request_entry is not None:
                ts = now = self.store.now()
                reply_to = request_entry.seq
                latency_ms = (now - request_entry.ts) * 1000
        elif is_reply and info.id is not None and info.problem is None:
            problem = "reply to an id with no request in flight"
        return pending, request_entry, reply_to, latency_ms, late, ts, problem


def is_create_task_result(result: dict[str, Any]) -> bool:
    """A 2025-11-25 CreateTaskResult (``{task}``; a CallToolResult always has content)."""
    return isinstance(result.get("task"), dict) and "content" not in result


def _task_created(pending: PendingRequest, info: Classified) -> bool:
    """Whether this reply answers a task-augmented request (params ``task``) with its task."""
    params, message = pending.params, info.message
    if info.kind is not Kind.RESPONSE or params is None or "task" not in params or not isinstance(message, dict):
        return False
    result = message.get("result")
    return isinstance(result, dict) and is_create_task_result(result)
