"""A request in flight (``PendingRequest``): waiting for it, its timeout and progress,
cancelling it. Made and resolved by ``RpcConnection`` (rpc.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from ..base.errors import ConnectionLost, RequestCancelled, RequestTimeout, RpcError
from ..traffic.entry import TrafficEntry
from ..traffic.store import TrafficStore

if TYPE_CHECKING:  # tracing's types only (core/telemetry)
    from ..telemetry.api import Operation

ANSWER_RECHECK = 0.25  # seconds between looks at a timeout held while a server request is answered


class RequestOwner(Protocol):
    """What a request needs of the RpcConnection that made it (rpc.py imports this module)."""

    @property
    def store(self) -> TrafficStore: ...
    @property
    def answering(self) -> int: ...  # server requests being answered: timeouts wait meanwhile
    @property
    def transport(self) -> object: ...  # asked whether it is ``authorizing``
    @property
    def loop(self) -> asyncio.AbstractEventLoop | None: ...

    async def abandon(self, pending: PendingRequest, error: BaseException, reason: str) -> None: ...


@dataclass(slots=True)
class Progress:
    progress: float
    total: float | None
    message: str | None
    at: float  # perf_counter time


class PendingRequest:
    """A request in flight: wait for it, watch its progress, cancel it."""

    def __init__(
        self,
        connection: RequestOwner,
        msg_id: Any,
        method: str,
        params: dict[str, Any] | None,
        timeout: float | None,
        reset_on_progress: bool,
        max_total: float | None,
        on_progress: Callable[[PendingRequest], None] | None,
        progress_token: Any,
        transport_meta: dict[str, Any] | None = None,
        entry_meta: dict[str, Any] | None = None,
    ) -> None:
        self.connection = connection
        self.entry_meta = entry_meta  # kept on the request's traffic entry (e.g. the MRTR round)
        self.successor: PendingRequest | None = None  # the MRTR retry that followed this request
        self.cancel_requested: str | None = None  # why cancel() was called
        # Set by the session while it follows a task this request created (tasks.py): cancel()
        # then ends the task (``tasks/cancel``) instead of the request, which has its answer.
        self.cancel_hook: Callable[[str], Awaitable[None]] | None = None
        self.transport_meta = transport_meta  # per-message facts for the transport (HTTP headers)
        self.id = msg_id
        self.method = method
        self.params = params
        self.timeout = timeout
        self.reset_on_progress = reset_on_progress
        self.max_total = max_total
        self.on_progress = on_progress
        self.progress_token = progress_token
        self.started = time.perf_counter()
        self.deadline = None if timeout is None else self.started + timeout
        self.hard_deadline = None if max_total is None else self.started + max_total
        self.progress: Progress | None = None
        self.progress_count = 0
        self.entry: TrafficEntry | None = None  # the request as recorded
        self.reply: TrafficEntry | None = None  # the response as recorded
        self.result: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self.finished: float | None = None
        self._resolved = False
        self._auth_held = False  # the timeout waited for an OAuth flow (see wait)
        self._done: anyio.Event | None = None  # made only for waits outside asyncio
        self._wakers: list[asyncio.Future[Any]] | None = None  # asyncio waiters (see _sleep)
        self.operation: Operation | None = None  # its span, while tracing is on (core/telemetry)

    @property
    def done(self) -> bool:
        return self._resolved

    @property
    def elapsed(self) -> float:
        return (self.finished or time.perf_counter()) - self.started

    def effective_deadline(self) -> float | None:
        deadline, hard = self.deadline, self.hard_deadline
        if hard is None:
            return deadline
        return hard if deadline is None else min(deadline, hard)

    def remaining(self) -> float | None:
        """Seconds until the timeout fires, for countdowns."""
        deadline = self.effective_deadline()
        return None if deadline is None else max(0.0, deadline - time.perf_counter())

    def resolve(self, result: dict[str, Any] | None = None, error: BaseException | None = None) -> None:
        if self._resolved:
            return
        self.result = result
        self.error = error
        self.finished = time.perf_counter()
        self._resolved = True
        if self.operation is not None:
            end_operation(self.operation, self.method, result, error)
        if self._done is not None:
            self._done.set()
        if self._wakers:
            for waker in self._wakers:
                _wake_up(waker)

    def progressed(self, progress: Progress) -> None:
        self.progress = progress
        self.progress_count += 1
        if self.reset_on_progress and self.timeout is not None:
            self.deadline = progress.at + self.timeout
        if self.on_progress is not None:
            try:
                self.on_progress(self)
            except Exception as exc:  # a UI callback bug must not stop the reader
                self.connection.store.note(
                    f"error in a progress callback: {exc.__class__.__name__}: {exc}", listener_error=True
                )

    async def wait(self) -> dict[str, Any]:
        """The result, or raise RpcError / RequestTimeout / RequestCancelled / ConnectionLost."""
        try:
            while not self._resolved:
                deadline = self.effective_deadline()
                now = time.perf_counter()
                if deadline is not None and now >= deadline:
                    # The hard maximum fired if it is the earlier of the two deadlines.
                    hard = self.hard_deadline is not None and (
                        self.deadline is None or self.hard_deadline <= self.deadline
                    )
                    if not hard and self.connection.answering:
                        # We are answering a server request (a person may be at a form): the
                        # timeout waits; the answer's end adds the time spent to the deadline.
                        self.deadline = now + ANSWER_RECHECK
                        continue
                    if not hard and getattr(self.connection.transport, "authorizing", False):
                        # An OAuth flow runs (a person may be in a browser; it has its own limit):
                        # the timeout waits, and the request, sent again after it, gets a whole one.
                        self.deadline = now + ANSWER_RECHECK
                        self._auth_held = True
                        continue
                    if not hard and self._auth_held and self.timeout is not None:
                        self._auth_held = False
                        self.deadline = now + self.timeout
                        continue
                    seconds = self.max_total if hard else self.timeout
                    await self.connection.abandon(self, RequestTimeout(self.method, seconds or 0.0, hard), "timeout")
                    break
                loop = self.connection.loop
                if loop is not None:
                    await self._sleep(loop, None if deadline is None else deadline - now)
                else:
                    if self._done is None:
                        self._done = anyio.Event()
                    with anyio.move_on_after(None if deadline is None else deadline - now):
                        await self._done.wait()
        except anyio.get_cancelled_exc_class():
            if not self._resolved:
                with anyio.CancelScope(shield=True):
                    await self.connection.abandon(
                        self, RequestCancelled(self.method, "the caller stopped waiting"), "the caller stopped waiting"
                    )
            raise
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result

    async def _sleep(self, loop: asyncio.AbstractEventLoop, seconds: float | None) -> None:
        """Until resolved or ``seconds`` pass. Every request waits once, and on asyncio a
        bare future plus a loop timer cost a fraction of an anyio Event and cancel scope."""
        waker = loop.create_future()
        wakers = self._wakers
        if wakers is None:
            wakers = self._wakers = []
        wakers.append(waker)
        timer = None if seconds is None else loop.call_later(seconds, _wake_up, waker)
        try:
            await waker
        finally:
            if timer is not None:
                timer.cancel()
            wakers.remove(waker)

    async def cancel(self, reason: str = "cancelled by the user") -> None:
        """Stop waiting and tell the server (``notifications/cancelled``). On a request
        that MRTR retried, the latest retry is cancelled (and no further one is sent)."""
        self.cancel_requested = reason
        if self.cancel_hook is not None:
            await self.cancel_hook(reason)
            return
        target: PendingRequest = self
        while target.successor is not None:
            target = target.successor
        if not target._resolved:  # noqa: SLF001 the same class, in its own module
            await target.connection.abandon(target, RequestCancelled(target.method, reason), reason)


def end_operation(
    operation: Operation, method: str, result: dict[str, Any] | None, error: BaseException | None
) -> None:
    """End a request's span with the conventions' error.type: the JSON-RPC code as text,
    ``tool_error`` for a tools/call result with isError, else the kind of failure."""
    if error is None:
        if method == "tools/call" and result is not None and result.get("isError") is True:
            operation.finish("tool_error")
        else:
            operation.finish()
    elif isinstance(error, RpcError):
        operation.finish(str(error.code), error.message, error.code)
    elif isinstance(error, RequestTimeout):
        operation.finish("timeout", str(error))
    elif isinstance(error, RequestCancelled):
        operation.finish("cancelled", str(error))
    elif isinstance(error, ConnectionLost):
        operation.finish("connection_lost", str(error))
    else:
        operation.finish(type(error).__qualname__, str(error))


def _wake_up(waker: asyncio.Future[Any]) -> None:
    if not waker.done():
        waker.set_result(None)
