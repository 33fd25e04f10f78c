"""Tasks: a tool call the server runs as a task, followed to its end, in both eras.

2025-11-25 (legacy era; experimental, ``basic/utilities/tasks.mdx``): the server
declares ``capabilities.tasks {list?, cancel?, requests.tools.call}`` and each tool
its ``execution.taskSupport`` (forbidden, the default; optional; required). The
client asks for a task by adding ``params.task {ttl?}`` to ``tools/call``; the answer
is a ``CreateTaskResult {task}``. The client polls ``tasks/get`` (at the task's
``pollInterval``), calls ``tasks/result`` at once when the task is ``input_required``
(the server then sends its ``elicitation/create`` / ``sampling/createMessage`` with
``_meta["io.modelcontextprotocol/related-task"]``, answered by the session's usual
handlers) or when it is terminal, and gets the tool's CallToolResult or the JSON-RPC
error the tool call ended with. ``tasks/cancel`` answers with the Task;
``tasks/list`` pages; ``notifications/tasks/status`` carries a Task.

2026-07-28 (modern era; the ``io.modelcontextprotocol/tasks`` extension, SEP-2663):
the client always declares the extension in its per-request capabilities and the
server decides: it may answer ``tools/call`` with ``resultType: "task"`` and the
Task inline (``taskId``, ``status``, ``ttlMs``, ``pollIntervalMs``...). ``tasks/get``
answers a DetailedTask: ``result`` when completed, ``error`` when failed,
``inputRequests`` when input_required (answered with the MRTR handlers of mrtr.py,
each key once, and sent back with ``tasks/update {taskId, inputResponses}``).
``tasks/cancel`` is an empty acknowledgement; there is no tasks/list or tasks/result.
A task result to any request but ``tools/call`` is invalid (modern.py).

The API (the TUI and the CLI code against it)
---------------------------------------------
* :class:`TaskRecord` (``task_id, tool, first_seq, task, status, result, error,
  updates, created``; ``cancel_requested`` too): ``session.tasks`` maps every task
  seen in this session (created by our calls, listed, or announced) to its record.
* ``session.task_support(tool_name) -> "required" | "optional" | "forbidden"``: the
  tool's ``execution.taskSupport`` with the server's declaration taken into account
  (legacy: ``tasks.requests.tools.call``; modern: the extension in
  ``capabilities.extensions``, where the server decides per call). A tool that says
  required on a server that declares nothing stays "required" (the contradiction is a
  note in the traffic store); an optional one there is "forbidden" (the spec: MUST NOT).
* ``session.begin_tool_call(name, arguments, *, as_task=None, **options)``: ``None``
  asks for a task exactly when the tool requires one, ``True`` when it allows one,
  ``False`` never (legacy era only; ``task_ttl=ms`` adds a requested ttl).
* ``session.finish_tool_call(pending) -> ToolCallOutcome`` (``task_id`` set when a task
  ran) follows a task to its end, emitting ``TaskUpdated(task, first_seq, source)``
  (source ``created``, ``poll`` when a poll changed something, ``notification``,
  ``result``, ``cancel``; ``list`` from list_tasks). A failed task raises the RpcError it
  carries; a cancelled one :class:`~..protocol.errors.TaskCancelled` (a RequestCancelled);
  past ``max_total`` :class:`~..protocol.errors.TaskTimedOut` (tasks/cancel is sent); a
  malformed task :class:`~..protocol.errors.MalformedTask`. While it follows, ``pending.
  cancel()`` ends the task with ``tasks/cancel`` (through ``pending.cancel_hook``).
* ``session.list_tasks()`` (legacy, every page) ``-> list[TaskRecord]``,
  ``session.get_task(id) -> TaskRecord``, ``session.task_result(id) -> dict`` (legacy
  ``tasks/result``, which blocks until the task ends; modern: the ``result``/``error`` of
  ``tasks/get``, an InspectorError while it still runs), ``session.cancel_task(id) ->
  TaskRecord``, ``session.can_list_tasks() -> bool``.

Polling: at the task's ``pollInterval`` / ``pollIntervalMs`` clamped to [0.1 s, 30 s],
1 s when absent; a status notification wakes the loop early. Each poll has the call's
request timeout; the follow as a whole is bounded only by ``max_total`` (the CLI passes
one) and by cancellation. Progress notifications on the call's token stay linked to
the call while its task runs (2025-11-25: the token "remains valid throughout the task").

Client capabilities: modern, ``extensions: {"io.modelcontextprotocol/tasks": {}}``.
Legacy, ``tasks: {}``: the spec says a client that supports task-augmented requests
MUST declare ``tasks``, and its members say what the client can RECEIVE as a task
(``list``, ``cancel``, ``requests.sampling.createMessage``, ``requests.elicitation.
create``, an exhaustive set). mcp-inspector runs no task of its own, so it declares the
capability with none of them: no server request of ours may be task-augmented, and
no tasks/list or tasks/cancel is offered.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import anyio

from ..protocol.errors import (ConnectionLost, InputDeclined, InspectorError, MalformedTask, ProtocolViolation, RequestTimeout,
                               RpcError, TaskCancelled, TaskTimedOut)
from ..protocol.jsonrpc import id_key
from ..protocol.rpc import PendingRequest
from ..traffic.entry import TrafficEntry
from . import mrtr
from .events import InputRequested, TaskUpdated
from .modern import TASKS_EXTENSION

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
    value = task.get("pollIntervalMs" if modern else "pollInterval")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return DEFAULT_POLL
    return min(MAX_POLL, max(MIN_POLL, value / 1000))


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
        raise MalformedTask(f"{where}: task {task_id!r} has an unknown status {status!r} "
                            f"(one of {', '.join(STATUSES)} expected)")
    return {key: value for key, value in task.items() if key not in _NOT_TASK}


def is_create_task_result(result: dict[str, Any]) -> bool:
    """A 2025-11-25 CreateTaskResult (``{task}``; a CallToolResult always has content)."""
    return isinstance(result.get("task"), dict) and "content" not in result


def wants_task(support: str, as_task: bool | None) -> bool:
    """Whether a legacy call goes as a task: None -> when required, True -> when allowed."""
    if as_task is None:
        return support == "required"
    return bool(as_task) and support in ("required", "optional")


def _rpc_error(error: Any, where: str) -> RpcError:
    if not isinstance(error, dict) or isinstance(error.get("code"), bool) or not isinstance(error.get("code"), int) \
            or not isinstance(error.get("message"), str):
        raise MalformedTask(f"{where}: the failed task's error is not a JSON-RPC error object (got {error!r})")
    return RpcError(error["code"], error["message"], error.get("data"), error)


class TaskMethods:
    """McpSession's task methods (a mixin: legacy.py keeps the session, this module the tasks)."""

    def _init_tasks(self) -> None:
        self.tasks: dict[str, TaskRecord] = {}
        self._followers: dict[str, _Follower] = {}
        self._support_noted: set[str] = set()

    # -- what the server offers -----------------------------------------
    def _server_declares_tasks(self) -> bool:
        caps: dict[str, Any] = self.capabilities  # type: ignore[attr-defined]
        if self.era == "modern":  # type: ignore[attr-defined]
            extensions = caps.get("extensions")
            return isinstance(extensions, dict) and TASKS_EXTENSION in extensions
        node: Any = caps.get("tasks")
        for key in ("requests", "tools", "call"):
            if not isinstance(node, dict) or key not in node:
                return False
            node = node[key]
        return True

    def task_support(self, tool_name: str) -> str:
        """required, optional or forbidden (see the module docstring)."""
        tool = self.tool(tool_name)  # type: ignore[attr-defined]
        execution = tool.get("execution") if isinstance(tool, dict) else None
        declared = execution.get("taskSupport") if isinstance(execution, dict) else None
        if declared is not None and declared not in SUPPORT:
            self._note_support(tool_name, f"tool {tool_name!r} has execution.taskSupport {declared!r}, not one of "
                                          f"{', '.join(SUPPORT)}: taken as forbidden")
        server = self._server_declares_tasks()
        if self.era == "modern":  # type: ignore[attr-defined]
            if declared in SUPPORT:
                return declared
            return "optional" if server else "forbidden"
        value = declared if declared in SUPPORT else "forbidden"
        if value != "forbidden" and not server:
            if value == "required":
                self._note_support(tool_name, f"tool {tool_name!r} requires a task (execution.taskSupport \"required\"), "
                                              "but the server does not declare tasks.requests.tools.call: called as a task anyway")
                return "required"
            self._note_support(tool_name, f"tool {tool_name!r} allows a task, but the server does not declare "
                                          "tasks.requests.tools.call: never called as a task (2025-11-25: MUST NOT)")
            return "forbidden"
        return value

    def _note_support(self, tool_name: str, text: str) -> None:
        if text not in self._support_noted:
            self._support_noted.add(text)
            self.store.note(text, task_support=tool_name)  # type: ignore[attr-defined]

    def can_list_tasks(self) -> bool:
        """Legacy servers that declare ``tasks.list`` (the extension has no tasks/list)."""
        tasks = self.capabilities.get("tasks")  # type: ignore[attr-defined]
        return self.era == "legacy" and isinstance(tasks, dict) and "list" in tasks  # type: ignore[attr-defined]

    # -- records and events ---------------------------------------------
    def _take_task(self, task: dict[str, Any], source: str, *, tool: str | None = None, first_seq: int | None = None,
                   always: bool = True) -> TaskRecord:
        """Keep a checked Task in its record; emit TaskUpdated when ``always`` or it changed."""
        record = self.tasks.get(task["taskId"])
        if record is None:
            record = TaskRecord(task["taskId"], tool, first_seq, dict(task), task["status"])
            self.tasks[record.task_id] = record
            changed = True
        else:
            changed = task != record.task
            if record.terminal and task["status"] != record.status:
                self.store.note(f"task {record.task_id}: the server moved it from the terminal status {record.status!r} "  # type: ignore[attr-defined]
                                f"to {task['status']!r} (a terminal task MUST NOT change status)", task=record.task_id)
            record.task, record.status = dict(task), task["status"]
            record.tool = record.tool or tool
            record.first_seq = record.first_seq if record.first_seq is not None else first_seq
        if changed or always:
            record.updates += 1
            self._emit(TaskUpdated(dict(record.task), record.first_seq, source))  # type: ignore[attr-defined]
        follower = self._followers.get(record.task_id)
        if follower is not None:
            follower.poke()
        return record

    def _on_task_status(self, method: str, params: dict[str, Any], entry: TrafficEntry) -> None:
        """``notifications/tasks/status`` (legacy) or ``notifications/tasks`` (modern)."""
        era = STATUS_NOTIFICATIONS[method]
        problem = None
        if era != self.era:  # type: ignore[attr-defined]
            problem = f"{method} belongs to the {era} era's tasks, not this {self.era} session"  # type: ignore[attr-defined]
        try:
            task = check_task(params, method)
        except MalformedTask as exc:
            problem = str(exc)
            task = None
        if problem is not None:
            entry.problem = f"{entry.problem}; {problem}" if entry.problem else problem
            self.store.version += 1  # type: ignore[attr-defined]
        if task is not None:
            self._take_task(task, "notification")

    # -- requests -------------------------------------------------------
    async def _task_request(self, method: str, task_id: str, **options: Any) -> tuple[dict[str, Any], PendingRequest]:
        if not isinstance(task_id, str) or not task_id:
            raise InspectorError(f"{method}: a task id (a non-empty string) is needed, got {task_id!r}")
        pending = await self.connection.send_request(method, {"taskId": task_id}, **options)  # type: ignore[attr-defined]
        result = await pending.wait()
        if self.era == "modern":  # type: ignore[attr-defined]
            _judge_modern(self, method, result, pending)
        return result, pending

    async def get_task(self, task_id: str, *, source: str = "poll", **options: Any) -> TaskRecord:
        """``tasks/get``: the record, updated (TaskUpdated when something changed)."""
        result, _ = await self._task_request("tasks/get", task_id, **options)
        return self._take_task(check_task(result, "tasks/get", task_id), source, always=source != "poll")

    async def cancel_task(self, task_id: str, reason: str = "tasks/cancel was sent", **options: Any) -> TaskRecord:
        """``tasks/cancel``; legacy answers the Task, modern only acknowledges (then one
        tasks/get shows what the server says now). Emits TaskUpdated source "cancel"."""
        record = self.tasks.get(task_id)
        result, _ = await self._task_request("tasks/cancel", task_id, **options)
        if self.era != "modern":  # type: ignore[attr-defined]
            record = self._take_task(check_task(result, "tasks/cancel", task_id), "cancel")
        else:
            try:
                options["timeout"] = min(CANCEL_LIMIT, self.timeout or CANCEL_LIMIT)  # type: ignore[attr-defined]
                record = await self.get_task(task_id, source="cancel", **options)
            except (InspectorError, ProtocolViolation) as exc:  # MAY be deleted at once: the ack is what counts
                self.store.note(f"tasks/cancel of task {task_id} was acknowledged; tasks/get after it failed: {exc}",  # type: ignore[attr-defined]
                                task=task_id)
                if record is None:
                    record = TaskRecord(task_id, None, None, {"taskId": task_id}, "working")
                    self.tasks[task_id] = record
                record.updates += 1
                self._emit(TaskUpdated(dict(record.task), record.first_seq, "cancel"))  # type: ignore[attr-defined]
        record.cancel_requested = record.cancel_requested or reason
        follower = self._followers.get(task_id)
        if follower is not None and follower.cancel_reason is None:
            follower.cancel_reason = reason
            follower.poke()
        return record

    async def task_result(self, task_id: str, **options: Any) -> dict[str, Any]:
        """The task's CallToolResult: legacy ``tasks/result`` (blocks until the task ends;
        its JSON-RPC error raises), modern the ``result`` of ``tasks/get``."""
        record = self.tasks.get(task_id)
        if self.era == "modern":  # type: ignore[attr-defined]
            record = await self.get_task(task_id, source="result", **options)
            return _modern_outcome(record, "tools/call")
        try:
            result, _ = await self._task_request("tasks/result", task_id, **options)
        except RpcError as exc:
            if record is not None:
                record.error = exc
            raise
        if record is not None:
            record.result = result
            record.updates += 1
            self._emit(TaskUpdated(dict(record.task), record.first_seq, "result"))  # type: ignore[attr-defined]
        return result

    async def list_tasks(self) -> list[TaskRecord]:
        """``tasks/list``, every page (legacy; the extension has none). Emits TaskUpdated
        source "list" for each task; a malformed one is a note, the others are kept."""
        if self.era == "modern":  # type: ignore[attr-defined]
            raise InspectorError("the 2026-07-28 tasks extension has no tasks/list: only the tasks this session "
                                 "created are known")
        records = []
        for item in await self._paginate("tasks/list", "tasks"):  # type: ignore[attr-defined]
            try:
                task = check_task(item, "tasks/list")
            except MalformedTask as exc:
                self.store.note(str(exc), task_list=True)  # type: ignore[attr-defined]
                continue
            records.append(self._take_task(task, "list"))
        return records

    # -- a tool call's task ---------------------------------------------
    async def _follow_task(self, pending: PendingRequest, result: dict[str, Any],
                           last: PendingRequest) -> tuple[dict[str, Any], TaskRecord]:
        """Follow the task a tools/call answered with; (its CallToolResult, its record)."""
        modern = self.era == "modern"  # type: ignore[attr-defined]
        params = getattr(pending, "mrtr_params", None) or pending.params or {}
        if modern:
            task = check_task(result, "tools/call (resultType \"task\")")
        else:
            task = check_task(result.get("task"), "tools/call (CreateTaskResult)")
            if "task" not in params and last.reply is not None:
                problem = "a CreateTaskResult to a tools/call that did not ask for a task (no params.task)"
                last.reply.problem = f"{last.reply.problem}; {problem}" if last.reply.problem else problem
                self.store.version += 1  # type: ignore[attr-defined]
        first_seq = pending.entry.seq if pending.entry is not None else None
        record = self._take_task(task, "created", tool=params.get("name"), first_seq=first_seq)
        follower = _Follower(self, pending, record, last, modern)
        self._followers[record.task_id] = follower
        try:
            return await follower.run(), record
        finally:
            if self._followers.get(record.task_id) is follower:
                del self._followers[record.task_id]


def _judge_modern(session: Any, method: str, result: dict[str, Any], pending: PendingRequest) -> None:
    """A tasks/* result must say resultType "complete" (the extension's own example of a
    failed task says "task": flagged, and read anyway)."""
    kind = result.get("resultType", "complete")
    if kind == "complete":
        return
    if kind != "task":
        raise ProtocolViolation(f"the server answered {method} with resultType {kind!r} (\"complete\" expected)")
    if pending.reply is not None:
        problem = f"{method} answered with resultType \"task\"; the tasks extension says it MUST be \"complete\""
        pending.reply.problem = f"{pending.reply.problem}; {problem}" if pending.reply.problem else problem
        session.store.version += 1


def _modern_outcome(record: TaskRecord, method: str) -> dict[str, Any]:
    """The result of a modern task from its DetailedTask (an error raises)."""
    where = f"{method} task {record.task_id}"
    if record.status == "completed":
        result = record.task.get("result")
        if not isinstance(result, dict):
            raise MalformedTask(f"{where}: completed without a result object (got {result!r})")
        record.result = result
        return result
    if record.status == "failed":
        record.error = _rpc_error(record.task.get("error"), where)
        raise record.error
    if record.status == "cancelled":
        raise TaskCancelled(method, record.task_id, record.task.get("statusMessage") or "the server cancelled the task")
    raise InspectorError(f"{where} is {record.status!r}: no result yet")


class _Follower:
    """Follows one task to its end for finish_tool_call."""

    def __init__(self, session: Any, pending: PendingRequest, record: TaskRecord, last: PendingRequest,
                 modern: bool) -> None:
        self.session = session
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
            connection._by_token[token] = pending  # progress stays linked to the call while the task runs
        try:
            return await self._loop()
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._cancel_quietly("the caller stopped waiting")
            raise
        except InputDeclined:
            await self._cancel_quietly("the client declined the task's input request")
            raise
        except (_Overdue, RequestTimeout) as exc:
            deadline = pending.hard_deadline
            if isinstance(exc, RequestTimeout) and not (deadline is not None and time.perf_counter() >= deadline - 0.01):
                raise  # one request's own timeout
            status = self.record.status
            await self._cancel_quietly(f"no terminal status within the maximum total time of {pending.max_total:g} s")
            raise TaskTimedOut("tools/call", self.record.task_id, pending.max_total or 0.0, status) from None
        finally:
            pending.cancel_hook = None
            if token is not None and connection._by_token.get(token) is pending:
                del connection._by_token[token]
            request = self.result_request
            if request is not None and not request.done:
                with anyio.CancelScope(shield=True):
                    await request.cancel("the task's follow ended")

    async def _cancel_quietly(self, reason: str) -> None:
        if self.record.terminal or self.record.cancel_requested is not None or self.session.closed is not None:
            return
        with anyio.move_on_after(CANCEL_LIMIT):
            try:
                await self.session.cancel_task(self.record.task_id, reason, timeout=CANCEL_LIMIT)
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
                raise TaskCancelled("tools/call", record.task_id, record.task.get("statusMessage")
                                    or "the server cancelled the task")
            if self.modern and record.terminal:  # completed (result) or failed (error): in the task
                try:
                    return _modern_outcome(record, "tools/call")
                finally:
                    record.updates += 1
                    self.session._emit(TaskUpdated(dict(record.task), record.first_seq, "result"))
            if record.status == "input_required":
                if self.modern:
                    await self._answer_inputs()
                    if self.cancel_reason is not None:
                        continue
                elif self.result_request is None:  # the server sends its requests on tasks/result
                    await self._start_result()
            self._check_deadline()
            await self._guarded(self._sleep(poll_interval(record.task, self.modern)))
            if self.cancel_reason is not None or self.result_done.is_set():
                continue
            self._check_deadline()
            await self._guarded(self._poll())

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
            "tasks/get", {"taskId": self.record.task_id}, timeout=self.pending.timeout, max_total=self._remaining())
        result = await request.wait()
        if self.modern:
            _judge_modern(self.session, "tasks/get", result, request)
        task = check_task(result, "tasks/get", self.record.task_id)
        if task.get("status") == "input_required":
            self.asked = request
        self.session._take_task(task, "poll", always=False)

    async def _start_result(self, timeout: float | None = None) -> None:
        """``tasks/result``, waited for in the session's task group (input_required: it
        blocks until the task ends, so no request timeout, only max_total)."""
        self.result_request = await self.session.connection.send_request(
            "tasks/result", {"taskId": self.record.task_id}, timeout=timeout, max_total=self._remaining())
        self.session._task_group.start_soon(self._wait_result, self.result_request)

    async def _wait_result(self, request: PendingRequest) -> None:
        try:
            self.result = await request.wait()
        except InspectorError as exc:
            self.result_error = exc
        finally:
            self.result_done.set()
        self.poke()

    async def _legacy_result(self) -> dict[str, Any]:
        """The task ended (or its tasks/result answered): the CallToolResult, or its error."""
        record = self.record
        if self.result_request is None:
            await self._start_result(self.pending.timeout)
        await self._guarded(self.result_done.wait())
        if self.cancel_reason is not None:
            return await self._cancelled()
        if not record.terminal:  # tasks/result answered first: one look at the final status
            try:
                await self.session.get_task(record.task_id, timeout=self.pending.timeout, max_total=self._remaining())
            except (InspectorError, ProtocolViolation):
                pass  # the result is what matters; the task MAY already be gone
        if self.result_error is not None:
            record.error = self.result_error
        else:
            record.result = self.result
        record.updates += 1
        self.session._emit(TaskUpdated(dict(record.task), record.first_seq, "result"))
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
        self.session._emit(InputRequested(self.rounds, new, record.first_seq))
        responses = await mrtr.answer_inputs(self.session, self.where, new, self.asked)
        self.answered.update(new)
        if self.cancel_reason is not None:
            return
        request = await self.session.connection.send_request(
            "tasks/update", {"taskId": record.task_id, "inputResponses": responses},
            timeout=self.pending.timeout, max_total=self._remaining())
        _judge_modern(self.session, "tasks/update", await request.wait(), request)

    async def _cancelled(self) -> dict[str, Any]:
        reason = self.cancel_reason or "cancelled"
        if self.record.cancel_requested is None and not self.record.terminal:
            try:
                await self.session.cancel_task(self.record.task_id, reason, timeout=self.pending.timeout)
            except ConnectionLost:
                raise
            except (InspectorError, ProtocolViolation) as exc:
                reason = f"{reason} (tasks/cancel failed: {exc})"
        raise TaskCancelled("tools/call", self.record.task_id, reason)


class _Overdue(Exception):
    """Internal: the follow passed max_total (turned into TaskTimedOut by finish)."""
