"""Following one task to its end for ``finish_tool_call`` (tasks.py has the API): polls
at the task's interval, status notifications waking it early; 2025-11-25 ``tasks/result``
on input_required and at the end; the extension's inputRequests answered once each and
sent with ``tasks/update``; ``pending.cancel_hook`` -> ``tasks/cancel``; ``max_total``."""

from __future__ import annotations

import contextlib
import time
from typing import Any, Protocol

import anyio
import anyio.abc

from ..base.errors import (
    ConnectionLost,
    InputDeclined,
    InspectorError,
    MalformedTask,
    ProtocolViolation,
    RequestTimeout,
    TaskCancelled,
    TaskTimedOut,
)
from ..base.jsonrpc import id_key
from ..protocol.rpc import PendingRequest
from ..transport.base import Closed
from . import mrtr
from .events import InputRequested, TaskUpdated
from .subscriptions import Subscriptions
from .task_model import CANCEL_LIMIT, TaskRecord, check_related, check_task, judge_modern, modern_outcome, poll_interval


class FollowedSession(mrtr.MrtrSession, Protocol):
    """What following a task needs of the session (mcp_session.py imports this module)."""

    @property
    def closed(self) -> Closed | None: ...
    @property
    def subscriptions(self) -> Subscriptions: ...
    @property
    def task_group(self) -> anyio.abc.TaskGroup | None: ...


class FollowedTasks(Protocol):
    """What following a task needs of the session's tasks (tasks.TaskTracker)."""

    async def get_task(self, task_id: str, *, source: str = ..., **options: Any) -> TaskRecord: ...
    async def cancel_task(self, task_id: str, reason: str = ..., **options: Any) -> TaskRecord: ...
    def take_task(
        self,
        task: dict[str, Any],
        source: str,
        *,
        tool: str | None = None,
        first_seq: int | None = None,
        always: bool = True,
    ) -> TaskRecord: ...


class Follower:
    """Follows one task to its end for finish_tool_call."""

    def __init__(
        self,
        session: FollowedSession,
        tasks: FollowedTasks,
        pending: PendingRequest,
        record: TaskRecord,
        last: PendingRequest,
        modern: bool,
    ) -> None:
        self.session = session
        self.tasks = tasks
        self.pending = pending
        self.record = record
        self.asked = last  # the request whose result asked for input last (modern) / made the task
        self.modern = modern
        self.wake = anyio.Event()
        self.cancel_reason: str | None = None
        self.scope: anyio.CancelScope | None = None
        self.answered: set[str] = set()  # modern inputRequests keys answered (each only once)
        self.rounds = 0
        self.result_request: PendingRequest | None = None  # legacy tasks/result in flight
        self.result_done = anyio.Event()
        self.result: dict[str, Any] | None = None
        self.result_error: BaseException | None = None
        self.where = f"tools/call task {record.task_id}"
        self.next_poll = time.perf_counter() + poll_interval(record.task, modern)  # the pollInterval is kept

    def poke(self) -> None:
        self.wake.set()

    async def on_cancel(self, reason: str) -> None:
        """``pending.cancel_hook``: the follow sends tasks/cancel and ends as cancelled."""
        if self.cancel_reason is None:
            self.cancel_reason = reason
        self.poke()
        if self.scope is not None:
            self.scope.cancel()

    async def run(self) -> dict[str, Any]:
        pending, connection = self.pending, self.session.connection
        if pending.cancel_requested is not None:  # cancelled before the task was known
            self.cancel_reason = pending.cancel_requested
        pending.cancel_hook = self.on_cancel
        token = id_key(pending.progress_token) if pending.progress_token is not None else None
        if token is not None and not self.modern:
            connection.by_token[token] = pending  # progress stays linked to the call while the task runs
        watched = False
        try:
            if self.modern:  # notifications/tasks on the open subscriptions/listen stream, if one runs
                watched = await self.session.subscriptions.watch_task(self.record.task_id)
            return await self._loop()
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._cancel_quietly("the caller stopped waiting")
            raise
        except (_Overdue, RequestTimeout) as exc:
            deadline = pending.hard_deadline
            if isinstance(exc, RequestTimeout) and not (
                deadline is not None and time.perf_counter() >= deadline - 0.01
            ):
                await self._cancel_quietly(f"the follow ended: {exc}")  # one request's own timeout
                raise
            status = self.record.status
            await self._cancel_quietly(f"no terminal status within the maximum total time of {pending.max_total:g} s")
            raise TaskTimedOut("tools/call", self.record.task_id, pending.max_total or 0.0, status) from None
        except Exception as exc:
            # No one follows the task any more (a refused input request, a malformed reply...):
            # a live one is cancelled rather than left running (a terminal one is left alone).
            if not isinstance(exc, TaskCancelled):
                await self._cancel_quietly(
                    "the client declined the task's input request"
                    if isinstance(exc, InputDeclined)
                    else f"the follow ended: {exc}"
                )
            raise
        finally:
            pending.cancel_hook = None
            if token is not None and connection.by_token.get(token) is pending:
                del connection.by_token[token]
            request = self.result_request
            if request is not None and not request.done:
                with anyio.CancelScope(shield=True):
                    await request.cancel("the task's follow ended")
            if watched:
                with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_LIMIT):
                    await self.session.subscriptions.unwatch_task(self.record.task_id)

    async def _cancel_quietly(self, reason: str) -> None:
        if self.record.terminal or self.record.cancel_requested is not None or self.session.closed is not None:
            return
        with anyio.move_on_after(CANCEL_LIMIT):
            try:
                record = await self.tasks.cancel_task(self.record.task_id, reason, timeout=CANCEL_LIMIT)
                if not record.terminal:
                    self.session.store.note(
                        f"{self.where}: tasks/cancel was sent ({reason}), yet the server still "
                        f"reports the task {record.status!r}: it may go on running",
                        task=self.record.task_id,
                    )
            except (InspectorError, ProtocolViolation) as exc:
                self.session.store.note(f"{self.where}: tasks/cancel failed: {exc}", task=self.record.task_id)

    async def _loop(self) -> dict[str, Any]:
        record = self.record
        while True:
            self.wake = anyio.Event()
            if self.cancel_reason is not None:
                return await self._cancelled()
            if self.result_done.is_set() or (record.status in ("completed", "failed") and not self.modern):
                return await self._legacy_result()
            if record.status == "cancelled":
                raise TaskCancelled(
                    "tools/call", record.task_id, record.task.get("statusMessage") or "the server cancelled the task"
                )
            if self.modern and record.terminal:  # completed (result) or failed (error): in the task
                try:
                    return modern_outcome(record, "tools/call")
                finally:
                    record.updates += 1
                    self.session.emit(TaskUpdated(dict(record.task), record.first_seq, "result"))
            if record.status == "input_required":
                if self.modern:
                    await self._answer_inputs()
                    if self.cancel_reason is not None:
                        continue
                elif self.result_request is None:  # the server sends its requests on tasks/result
                    await self._start_result()
            self._check_deadline()
            wait = self.next_poll - time.perf_counter()
            if wait > 0:  # a status notification wakes it early: the state is looked at, no poll
                await self._guarded(self._sleep(wait))
                continue
            await self._guarded(self._poll())
            self.next_poll = time.perf_counter() + poll_interval(record.task, self.modern)

    async def _guarded(self, step: Any) -> None:
        """Run a wait or a poll so that pending.cancel() can stop it."""
        try:
            with anyio.CancelScope() as self.scope:
                await step
        finally:
            self.scope = None

    async def _sleep(self, seconds: float) -> None:
        deadline = self.pending.hard_deadline
        if deadline is not None:
            seconds = max(0.0, min(seconds, deadline - time.perf_counter()))
        with anyio.move_on_after(seconds):
            await self.wake.wait()

    def _remaining(self) -> float | None:
        deadline = self.pending.hard_deadline
        return None if deadline is None else max(0.001, deadline - time.perf_counter())

    def _check_deadline(self) -> None:
        deadline = self.pending.hard_deadline
        if deadline is not None and time.perf_counter() >= deadline:
            raise _Overdue()

    async def _poll(self) -> None:
        request = await self.session.connection.send_request(
            "tasks/get", {"taskId": self.record.task_id}, timeout=self.pending.timeout, max_total=self._remaining()
        )
        result = await request.wait()
        if self.modern:
            judge_modern(self.session, "tasks/get", result, request)
        task = check_task(result, "tasks/get", self.record.task_id)
        if task.get("status") == "input_required":
            self.asked = request
        self.tasks.take_task(task, "poll", always=False)

    async def _start_result(self, timeout: float | None = None) -> None:
        """``tasks/result``, waited for in the session's task group (input_required: it
        blocks until the task ends, so no request timeout, only max_total)."""
        self.result_request = await self.session.connection.send_request(
            "tasks/result", {"taskId": self.record.task_id}, timeout=timeout, max_total=self._remaining()
        )
        group = self.session.task_group
        assert group is not None, "a session that sends requests is open: it has its task group"
        group.start_soon(self._wait_result, self.result_request)

    async def _wait_result(self, request: PendingRequest) -> None:
        result: dict[str, Any] | None = None
        error: BaseException | None = None
        try:
            result = await request.wait()
        except InspectorError as exc:
            error = exc
        finally:
            if request is self.result_request:  # a replaced one (see _legacy_result) counts for nothing
                if result is not None:
                    check_related(self.session, result, self.record.task_id, request)
                self.result, self.result_error = result, error
                self.result_done.set()
                self.poke()

    async def _legacy_result(self) -> dict[str, Any]:
        """The task ended (or its tasks/result answered): the CallToolResult, or its error."""
        record = self.record
        if self.result_request is None:
            await self._start_result(self.pending.timeout)
        elif not self.result_done.is_set() and record.terminal:
            # The task ended, yet the tasks/result sent at input_required has not answered:
            # it gets the request timeout, then a fresh tasks/result takes its place.
            with anyio.move_on_after(self.pending.timeout):
                await self._guarded(self.result_done.wait())
            if not self.result_done.is_set() and self.cancel_reason is None:
                stale = self.result_request
                seq = stale.entry.seq if stale.entry is not None else "?"
                self.session.store.note(
                    f"{self.where} is {record.status} but its tasks/result #{seq} did not answer: asking again",
                    task=record.task_id,
                )
                await self._start_result(self.pending.timeout)
                with anyio.CancelScope(shield=True):
                    await stale.cancel("replaced by a new tasks/result")
        await self._guarded(self.result_done.wait())
        if self.cancel_reason is not None:
            return await self._cancelled()
        if not record.terminal:  # tasks/result answered first: one look at the final status
            with contextlib.suppress(InspectorError, ProtocolViolation):  # the result matters; the task MAY be gone
                await self.tasks.get_task(record.task_id, timeout=self.pending.timeout, max_total=self._remaining())
        if self.result_error is not None:
            record.error = self.result_error
        else:
            record.result = self.result
        record.updates += 1
        self.session.emit(TaskUpdated(dict(record.task), record.first_seq, "result"))
        if self.result_error is not None:
            raise self.result_error
        assert self.result is not None
        return self.result

    async def _answer_inputs(self) -> None:
        """Modern input_required: answer each new inputRequests key once, then tasks/update."""
        record = self.record
        requests = record.task.get("inputRequests")
        if not isinstance(requests, dict):
            raise MalformedTask(f"{self.where}: input_required without an inputRequests object (got {requests!r})")
        checked = mrtr.check_input_requests(self.where, requests)
        new = {key: request for key, request in checked.items() if key not in self.answered}
        if not new:
            return  # the same outstanding requests again: already answered (deduplicated)
        self.rounds += 1
        self.session.emit(InputRequested(self.rounds, new, record.first_seq))
        responses = await mrtr.answer_inputs(self.session, self.where, new, self.asked)
        self.answered.update(new)
        if self.cancel_reason is not None:
            return
        request = await self.session.connection.send_request(
            "tasks/update",
            {"taskId": record.task_id, "inputResponses": responses},
            timeout=self.pending.timeout,
            max_total=self._remaining(),
        )
        judge_modern(self.session, "tasks/update", await request.wait(), request)

    async def _cancelled(self) -> dict[str, Any]:
        reason = self.cancel_reason or "cancelled"
        sent = self.record.cancel_requested is not None  # by session.cancel_task (the Tasks view, a caller)
        if not sent and not self.record.terminal:
            try:
                await self.tasks.cancel_task(self.record.task_id, reason, timeout=self.pending.timeout)
                sent = True
            except ConnectionLost:
                raise
            except (InspectorError, ProtocolViolation) as exc:
                reason = f"{reason} (tasks/cancel failed: {exc})"
        if sent:
            status = self.record.status
            reason += (
                " (tasks/cancel was sent)"
                if status == "cancelled"
                else f" (tasks/cancel was sent, yet the server still reports the task {status!r}: it may go on running)"
            )
        raise TaskCancelled("tools/call", self.record.task_id, reason)


class _Overdue(Exception):
    """Internal: the follow passed max_total (turned into TaskTimedOut by finish)."""
