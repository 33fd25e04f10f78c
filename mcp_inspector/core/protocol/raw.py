"""Frames sent by hand (the TUI's raw frame screen, ``pipe``): the bytes as typed go to the
live connection's transport, recorded in the traffic store exactly as sent, and what comes
back is correlated like the session's own traffic.

- A request registers its id, so its reply is linked to it (an id already in flight, ours or
  the session's, is refused: :class:`IdInFlight`). Templates offer ``"raw-N"`` string ids
  (:func:`fresh_id`), which the session's own counter (integers) can never take.
- A response (or error) whose id is a server request waiting for an answer answers it: the
  request's handler is stopped (``RpcConnection.withdraw``), so the answering screen sends
  nothing more, and the frame is linked to the request.
- ``notifications/cancelled`` naming a request in flight ends it here too (it would otherwise
  wait for a reply the server will not send); a late reply is marked late, as usual.
- A batch is one frame; its requests are registered one by one. Batching was removed in
  2025-06-18: it is sent anyway, with a note.
- A frame that is not JSON-RPC at all is sent too; a server's error naming no id
  (``"id": null``: a parse error, a refused batch) that follows is linked to it.

:func:`describe` is the kind hint shown while typing, :func:`prepare` turns the editor's text
into the bytes sent (a stdio frame is one line: see there).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

from ..base import jsonrpc
from ..base.errors import RequestCancelled, RpcError
from ..base.jsonrpc import Classified, Kind, classify, classify_message, id_key
from ..traffic.entry import Direction, TrafficEntry
from .pending import PendingRequest, RequestOwner

RAW_ID_PREFIX = "raw-"
IDLESS_WINDOW = 30.0  # seconds a frame sent by hand waits for an error naming no id
IDLESS_MEMORY = 16  # such frames remembered at most
BATCHES_REMOVED_IN = "2025-06-18"
HINT_PARSE_LIMIT = 4 * 1024 * 1024  # characters the kind hint parses while typing


class IdInFlight(ValueError):
    """A request sent by hand reuses an id that is in flight."""


class FrameRefused(ValueError):
    """Text that is not a JSON-RPC frame, sent without "as is": the one-line reason."""


@dataclass(slots=True, eq=False)
class IncomingRequest:
    """A server request being answered (its handler runs: a person may be at a form)."""

    id: Any
    method: str
    entry: TrafficEntry
    scope: anyio.CancelScope
    started: float  # perf_counter
    withdrawn: bool = False  # answered by a frame sent by hand: the handler sends nothing


@dataclass(slots=True, eq=False)
class IdlessFrame:
    """A frame sent by hand whose answer may name no id (not JSON, a batch)."""

    entry: TrafficEntry
    started: float  # perf_counter
    members: list[PendingRequest] = field(default_factory=list)  # a batch's requests


@dataclass(slots=True, eq=False)
class RawSent:
    """What ``send_frame`` sent: the recorded entry and what waits for an answer."""

    entry: TrafficEntry
    kind: Kind
    pending: PendingRequest | None = None  # a request (or an invalid frame that has a method and an id)
    members: list[PendingRequest] = field(default_factory=list)  # a batch's requests
    answered: IncomingRequest | None = None  # the server request a response answered
    cancelled: PendingRequest | None = None  # the request a notifications/cancelled ended here
    notes: list[str] = field(default_factory=list)  # one-line warnings to show

    @property
    def waits(self) -> list[PendingRequest]:
        return ([self.pending] if self.pending is not None else []) + self.members

    @property
    def expects_reply(self) -> bool:
        """Whether an answer may come (requests, a batch with requests, a frame not understood)."""
        return bool(self.waits) or self.kind is Kind.INVALID


# -- the hint and the bytes ------------------------------------------------


class RawConnection(RequestOwner, Protocol):
    """What sending by hand needs of the RpcConnection (rpc.py imports this module)."""

    next_raw_id: int
    initialized: bool

    @property
    def by_id(self) -> dict[tuple[bool, Any], PendingRequest]: ...
    @property
    def idless(self) -> list[IdlessFrame]: ...
    @property
    def default_timeout(self) -> float | None: ...
    @property
    def protocol_version(self) -> str | None: ...

    def check_open(self) -> None: ...
    def track(self, pending: PendingRequest) -> None: ...
    def forget(self, pending: PendingRequest) -> None: ...
    def release(self, pending: PendingRequest, error: BaseException, reason: str = ...) -> None: ...
    def withdraw(self, msg_id: Any) -> IncomingRequest | None: ...
    async def send_tracked(
        self, pending: PendingRequest, data: bytes, kind: Kind = ..., problem: str | None = None
    ) -> None: ...
    async def transmit(
        self, entry: TrafficEntry, data: bytes, kind: Kind, method: str | None, meta: dict[str, Any] | None = None
    ) -> None: ...


@dataclass(slots=True)
class FrameHint:
    kind: str  # request | notification | response | error | batch | not JSON | not JSON-RPC | empty
    text: str  # one line for the screen
    line: int | None = None  # where JSON parsing failed (1-based)
    column: int | None = None

    @property
    def sendable(self) -> bool:
        """Sendable without "as is" (JSON-RPC, or a batch of anything)."""
        return self.kind in ("request", "notification", "response", "error", "batch")


def describe(text: str) -> FrameHint:
    """What the text is, as a frame, with the parse error's line and column when it is not JSON."""
    if not text.strip():
        return FrameHint("empty", "empty: type a frame, or pick a template (ctrl+t)")
    if len(text) > HINT_PARSE_LIMIT:
        return FrameHint("request", f"{len(text):,} characters: checked when sent")
    try:
        message = json.loads(text)
    except json.JSONDecodeError as exc:
        return FrameHint(
            "not JSON", f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}", exc.lineno, exc.colno
        )
    except (RecursionError, ValueError) as exc:
        return FrameHint("not JSON", f"not JSON: {exc}")
    if isinstance(message, list):
        if not message:
            return FrameHint("not JSON-RPC", "an empty batch: not JSON-RPC")
        kinds = [classify_message(member).kind.value for member in message]
        return FrameHint("batch", f"batch of {len(message)}: {', '.join(kinds[:6])}{' …' if len(kinds) > 6 else ''}")
    info = classify_message(message)
    if info.kind is Kind.INVALID:
        return FrameHint("not JSON-RPC", f"not JSON-RPC: {info.problem}")
    if info.kind is Kind.REQUEST:
        return FrameHint("request", f"request {info.method} (id {json.dumps(info.id)})")
    if info.kind is Kind.NOTIFICATION:
        return FrameHint("notification", f"notification {info.method}: no reply is expected")
    what = "error response" if info.kind is Kind.ERROR else "response"
    return FrameHint(info.kind.value, f"{what} to id {json.dumps(info.id)}")


def prepare(text: str, *, as_is: bool, stdio: bool) -> tuple[bytes, list[str]]:
    """The bytes to send for the editor's text, and warnings.

    Without ``as_is``, the text must be JSON-RPC (or a batch): else :class:`FrameRefused`.
    Over stdio a frame is one line, and a newline in valid JSON can only be whitespace
    between tokens (never inside a string), so the line breaks and the indentation after
    them are dropped: the frame means the same and stays one line. ``as_is`` sends the
    text unchanged (the transport appends the one newline that ends a stdio frame, so a
    text ending with a newline loses that one); a newline inside would split it: warned.
    """
    warnings: list[str] = []
    if as_is:
        if stdio and text.endswith("\n"):
            text = text[:-1]
            if text.endswith("\r"):
                text = text[:-1]
        if stdio and ("\n" in text or "\r" in text):
            lines = text.replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1
            warnings.append(f"the text holds line breaks: over stdio the server reads it as {lines} lines")
        return text.encode("utf-8", "surrogateescape"), warnings
    hint = describe(text)
    if not hint.sendable:
        raise FrameRefused(f"{hint.text} (ctrl+n sends it as is)")
    if stdio:
        text = _one_line(text)
    return text.encode("utf-8"), warnings


def _one_line(text: str) -> str:
    out: list[str] = []
    for number, line in enumerate(text.strip().replace("\r\n", "\n").replace("\r", "\n").split("\n")):
        out.append(line.strip() if number else line.rstrip())
    return "".join(out)


def fresh_id(connection: RawConnection) -> str:
    """A ``"raw-N"`` id not in flight on ``connection``."""
    while True:
        candidate = f"{RAW_ID_PREFIX}{connection.next_raw_id}"
        connection.next_raw_id += 1
        if id_key(candidate) not in connection.by_id:
            return candidate


# -- sending ---------------------------------------------------------------


def _in_flight(connection: RawConnection, msg_id: Any) -> None:
    pending = connection.by_id.get(id_key(msg_id))
    if pending is not None:
        where = f", #{pending.entry.seq}" if pending.entry is not None else ""
        raise IdInFlight(
            f"a request with id {json.dumps(msg_id)} is already in flight ({pending.method}{where}): "
            f"use another id, e.g. {json.dumps(fresh_id(connection))}"
        )


def _pending_for(connection: RawConnection, msg_id: Any, method: str, params: Any, timeout: Any) -> PendingRequest:
    pending = PendingRequest(
        connection,
        msg_id,
        method,
        params if isinstance(params, dict) else None,
        connection.default_timeout if timeout == "default" else timeout,
        False,
        None,
        None,
        None,
        entry_meta={"by_hand": True},
    )
    meta = params.get("_meta") if isinstance(params, dict) else None
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    if jsonrpc.valid_id(token):
        pending.progress_token = token
    return pending


async def send_frame(
    connection: RawConnection, data: bytes, timeout: float | None | str = "default", info: Classified | None = None
) -> RawSent:
    """Send ``data`` as it is on ``connection`` (an RpcConnection) and register what it asks.
    ``info`` is ``classify(data)`` if the caller already made it (it must be of these bytes)."""
    if info is None:
        info = classify(data)
    if info.kind is Kind.REQUEST or (
        info.kind is Kind.INVALID and info.method is not None and jsonrpc.valid_id(info.id)
    ):
        _in_flight(connection, info.id)
        params = info.message.get("params") if isinstance(info.message, dict) else None
        pending = _pending_for(connection, info.id, info.method or "", params, timeout)
        await connection.send_tracked(pending, data, info.kind, info.problem)
        assert pending.entry is not None
        return RawSent(pending.entry, info.kind, pending=pending)
    if info.kind is Kind.BATCH:
        return await _send_batch(connection, data, info)
    connection.check_open()
    sent = RawSent(None, info.kind)  # type: ignore[arg-type]  # the entry is set below
    fields: dict[str, Any] = {
        "method": info.method,
        "msg_id": info.id,
        "has_id": info.has_id,
        "problem": info.problem,
        "error_code": info.error_code,
        "meta": {"by_hand": True},
    }
    target: PendingRequest | None = None
    if info.kind in (Kind.RESPONSE, Kind.ERROR):
        incoming = connection.withdraw(info.id)
        if incoming is not None:
            sent.answered = incoming
            fields.update(reply_to=incoming.entry.seq, latency_ms=(time.perf_counter() - incoming.started) * 1000)
        elif getattr(connection, "modern", False):
            sent.notes.append("2026-07-28 servers send no requests: no request waits for this response (sent anyway)")
        else:
            sent.notes.append(f"no server request with id {json.dumps(info.id)} waits for an answer (sent anyway)")
    elif info.kind is Kind.NOTIFICATION and info.method == "notifications/cancelled":
        params = info.message.get("params")
        request_id = params.get("requestId") if isinstance(params, dict) else None
        target = connection.by_id.get(id_key(request_id)) if jsonrpc.valid_id(request_id) else None
        if target is None:
            sent.notes.append(f"no request with id {json.dumps(request_id)} is in flight (sent anyway)")
    elif info.kind is Kind.NOTIFICATION and info.method == "notifications/initialized":
        connection.initialized = True
    entry = sent.entry = connection.store.append(Direction.OUT, info.kind, data, **fields)
    if sent.answered is not None:
        sent.answered.entry.reply_seq = entry.seq
        connection.store.changed()
    if info.kind is Kind.INVALID:
        remember_idless(connection.idless, IdlessFrame(entry, time.perf_counter()))
    await connection.transmit(entry, data, info.kind, info.method)
    if target is not None and not target.done:  # the server will not answer it now: it ends here too
        sent.cancelled = target
        connection.release(
            target, RequestCancelled(target.method, "cancelled by a frame sent by hand"), "cancelled by hand"
        )
    return sent


async def _send_batch(connection: RawConnection, data: bytes, info: Any) -> RawSent:
    members: list[PendingRequest] = []
    seen: set[tuple[bool, Any]] = set()
    answers: list[Any] = []
    for member in info.message:
        sub = classify_message(member)
        if sub.kind is Kind.REQUEST:
            _in_flight(connection, sub.id)
            if id_key(sub.id) in seen:
                raise IdInFlight(f"the batch holds two requests with id {json.dumps(sub.id)}")
            seen.add(id_key(sub.id))
            members.append(_pending_for(connection, sub.id, sub.method or "", member.get("params"), timeout="default"))
        elif sub.kind in (Kind.RESPONSE, Kind.ERROR):
            answers.append(sub.id)
    connection.check_open()
    sent = RawSent(None, Kind.BATCH, members=members)  # type: ignore[arg-type]  # a batch has no id
    version = connection.protocol_version
    if version is not None and version >= BATCHES_REMOVED_IN:
        sent.notes.append(f"batches were removed in {BATCHES_REMOVED_IN} (this session speaks {version}): sent anyway")
    for msg_id in answers:
        incoming = connection.withdraw(msg_id)
        sent.answered = sent.answered or incoming
    entry = sent.entry = connection.store.append(
        Direction.OUT, Kind.BATCH, data, problem=info.problem, meta={"by_hand": True}
    )
    for pending in members:
        pending.entry = entry
        connection.track(pending)
    if members:
        remember_idless(connection.idless, IdlessFrame(entry, time.perf_counter(), members))
    try:
        await connection.transmit(entry, data, Kind.BATCH, None)
    except BaseException:
        for pending in members:
            connection.forget(pending)
        raise
    return sent


# -- answers naming no id (called by RpcConnection._on_frame) ----------------


def remember_idless(frames: list[IdlessFrame], frame: IdlessFrame) -> None:
    frames.append(frame)
    del frames[:-IDLESS_MEMORY]


def take_idless(frames: list[IdlessFrame]) -> IdlessFrame | None:
    """The oldest frame sent by hand still waiting for an answer naming no id (recent ones only)."""
    now = time.perf_counter()
    while frames:
        frame = frames.pop(0)
        if now - frame.started <= IDLESS_WINDOW and frame.entry.reply_seq is None:
            return frame
    return None


def batch_request(
    pending: dict[tuple[bool, Any], PendingRequest], frames: list[IdlessFrame], message: Any
) -> TrafficEntry | None:
    """The batch we sent that a batch from the server answers (its first member whose id is in flight)."""
    for member in message if isinstance(message, list) else ():
        if (
            isinstance(member, dict)
            and ("result" in member or "error" in member)
            and jsonrpc.valid_id(member.get("id"))
        ):
            found = pending.get(id_key(member["id"]))
            if found is not None and found.entry is not None and found.entry.kind is Kind.BATCH:
                frames[:] = [frame for frame in frames if frame.entry is not found.entry]
                return found.entry
    return None


def end_idless_batch(connection: RawConnection, request: TrafficEntry, message: Any, reply: TrafficEntry) -> None:
    """An error naming no id answered a batch sent by hand: the server refused the whole batch,
    so its requests end with that error (rather than at their timeout)."""
    if request.kind is not Kind.BATCH:
        return
    error = message.get("error") if isinstance(message, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    text = error.get("message") if isinstance(error, dict) else None
    for pending in list(connection.by_id.values()):
        if pending.entry is request and not pending.done:
            connection.forget(pending)
            pending.reply = reply
            pending.resolve(
                error=RpcError(
                    code if isinstance(code, int) else jsonrpc.INVALID_REQUEST,
                    text if isinstance(text, str) else "the batch was refused",
                    None,
                    error if isinstance(error, dict) else None,
                )
            )
