"""The shapes of tasks (both eras; see tasks.py): the record the session keeps, the
checks of a Task a server sent, the poll interval, and what a terminal modern task
gives. No I/O here."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..base.errors import InspectorError, MalformedTask, ProtocolViolation, RpcError, TaskCancelled
from ..protocol.rpc import PendingRequest
from ..traffic.store import TrafficStore


class HasStore(Protocol):
    """A session, as far as judging a task result needs it: where problems are noted."""

    @property
    def store(self) -> TrafficStore: ...


STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
TERMINAL = frozenset({"completed", "failed", "cancelled"})
SUPPORT = ("required", "optional", "forbidden")
MIN_POLL, MAX_POLL, DEFAULT_POLL = 0.1, 30.0, 1.0  # seconds
CANCEL_LIMIT = 2.0  # seconds for the tasks/cancel sent when a follow ends by a timeout or the caller
#: What the client declares in ``initialize`` (see the module docstring).
LEGACY_CLIENT_CAPABILITY: dict[str, Any] = {}
#: Status notification -> the era that has it.
STATUS_NOTIFICATIONS = {"notifications/tasks/status": "legacy", "notifications/tasks": "modern"}
RELATED_TASK_KEY = "io.modelcontextprotocol/related-task"
_NOT_TASK = ("resultType", "_meta")  # result members kept out of TaskRecord.task


@dataclass(slots=True)
class TaskRecord:
    """A task as this session last saw it."""

    task_id: str
    tool: str | None  # the tool it runs (None: a task we did not create, e.g. from tasks/list)
    first_seq: int | None  # the traffic entry of the tools/call that created it
    task: dict[str, Any]  # the last Task as the server sent it (resultType and _meta left out)
    status: str
    result: dict[str, Any] | None = None  # the CallToolResult, once fetched
    error: BaseException | None = None  # what the task ended with, if not a result
    updates: int = 0  # TaskUpdated events emitted for it
    created: float = field(default_factory=time.time)
    cancel_requested: str | None = None  # why tasks/cancel was sent (modern: acknowledged only)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


def poll_interval(task: dict[str, Any], modern: bool) -> float:
    """Seconds until the next poll: the task's suggestion clamped to [0.1, 30], else 1."""
    seconds = ms_to_seconds(task.get("pollIntervalMs" if modern else "pollInterval"))
    if seconds is None or seconds != seconds:  # absent, not a number, NaN
        return DEFAULT_POLL
    return min(MAX_POLL, max(MIN_POLL, seconds))


def ms_to_seconds(value: Any) -> float | None:
    """Milliseconds a server sent (``ttl``, ``pollInterval``...) as seconds; None when not a
    number. An integer too big for a float (a 400-digit one) is an infinity, not an
    OverflowError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return value / 1000
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def check_task(task: Any, where: str, expected_id: str | None = None) -> dict[str, Any]:
    """The Task a server sent, checked (MalformedTask, in words, when its shape is wrong);
    returned without ``resultType`` and ``_meta``."""
    if not isinstance(task, dict):
        raise MalformedTask(f"{where}: the task is not an object (got {type(task).__name__})")
    task_id = task.get("taskId")
    if not isinstance(task_id, str) or not task_id:
        raise MalformedTask(f"{where}: the task has no taskId (a non-empty string; got {task_id!r})")
    if expected_id is not None and task_id != expected_id:
        raise MalformedTask(f"{where}: asked about task {expected_id!r}, the server answered about {task_id!r}")
    status = task.get("status")
    if status not in STATUSES:
        raise MalformedTask(
            f"{where}: task {task_id!r} has an unknown status {status!r} (one of {', '.join(STATUSES)} expected)"
        )
    return {key: value for key, value in task.items() if key not in _NOT_TASK}


def wants_task(support: str, as_task: bool | None) -> bool:
    """Whether a legacy call goes as a task: None -> when required, True -> when allowed."""
    if as_task is None:
        return support == "required"
    return bool(as_task) and support in ("required", "optional")


def rpc_error(error: Any, where: str) -> RpcError:
    if (
        not isinstance(error, dict)
        or isinstance(error.get("code"), bool)
        or not isinstance(error.get("code"), int)
        or not isinstance(error.get("message"), str)
    ):
        raise MalformedTask(f"{where}: the failed task's error is not a JSON-RPC error object (got {error!r})")
    return RpcError(error["code"], error["message"], error.get("data"), error)


def check_related(session: HasStore, result: dict[str, Any], task_id: str, pending: PendingRequest) -> None:
    """A 2025-11-25 ``tasks/result`` answer MUST carry ``_meta["io.modelcontextprotocol/
    related-task"] = {taskId}`` (its result has no task id of its own): flagged if not."""
    meta = result.get("_meta")
    related = meta.get(RELATED_TASK_KEY) if isinstance(meta, dict) else None
    if isinstance(related, dict) and related.get("taskId") == task_id:
        return
    session.store.flag(
        pending.reply,
        f'tasks/result for task {task_id} without _meta["{RELATED_TASK_KEY}"] = '
        f'{{"taskId": {task_id!r}}} (got {related!r}; 2025-11-25 tasks.mdx: MUST include it)',
    )


def judge_modern(session: HasStore, method: str, result: dict[str, Any], pending: PendingRequest) -> None:
    """A tasks/* result must say resultType "complete" (the extension's own example of a
    failed task says "task": flagged, and read anyway)."""
    kind = result.get("resultType", "complete")
    if kind == "complete":
        return
    if kind != "task":
        raise ProtocolViolation(f'the server answered {method} with resultType {kind!r} ("complete" expected)')
    session.store.flag(
        pending.reply, f'{method} answered with resultType "task"; the tasks extension says it MUST be "complete"'
    )


def modern_outcome(record: TaskRecord, method: str) -> dict[str, Any]:
    """The result of a modern task from its DetailedTask (an error raises)."""
    where = f"{method} task {record.task_id}"
    if record.status == "completed":
        result = record.task.get("result")
        if not isinstance(result, dict):
            raise MalformedTask(f"{where}: completed without a result object (got {result!r})")
        record.result = result
        return result
    if record.status == "failed":
        record.error = rpc_error(record.task.get("error"), where)
        raise record.error
    if record.status == "cancelled":
        raise TaskCancelled(method, record.task_id, record.task.get("statusMessage") or "the server cancelled the task")
    raise InspectorError(f"{where} is {record.status!r}: no result yet")
