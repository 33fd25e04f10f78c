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
  seen in this session (created by our calls, listed, or announced: at most
  STRANGER_LIMIT of those only announced by a status notification) to its record.
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
  carries; a cancelled one :class:`~..base.errors.TaskCancelled` (a RequestCancelled);
  past ``max_total`` :class:`~..base.errors.TaskTimedOut` (tasks/cancel is sent); a
  malformed task :class:`~..base.errors.MalformedTask`. While it follows, ``pending.
  cancel()`` ends the task with ``tasks/cancel`` (through ``pending.cancel_hook``; it
  returns at once, finish_tool_call raises TaskCancelled once tasks/cancel answered);
  a follow that ends any other way while the task lives (a caller that stops waiting, a
  refused input request: InputDeclined, a malformed reply, a poll's timeout) sends
  tasks/cancel too (bounded: 2 s) rather than leave the task running. Events for a task
  may come before its "created" one (a server may send a status notification before its
  CreateTaskResult: ``first_seq`` and ``tool`` are then None until "created").
* ``session.list_tasks()`` (legacy, every page) ``-> list[TaskRecord]``,
  ``session.get_task(id, *, source="poll", **options) -> TaskRecord``,
  ``session.task_result(id, **options) -> dict`` (legacy ``tasks/result``, which blocks
  until the task ends; modern: the ``result``/``error`` of ``tasks/get``, an
  InspectorError while it still runs), ``session.cancel_task(id, reason=..., **options)
  -> TaskRecord``, ``session.can_list_tasks() -> bool``.

Polling: at the task's ``pollInterval`` / ``pollIntervalMs`` clamped to [0.1 s, 30 s],
1 s when absent; a status notification updates the task at once (no extra poll). In the
modern era a followed task also joins an open subscriptions/listen stream (``taskIds``). Each poll has the call's
request timeout; the follow as a whole is bounded only by ``max_total`` (the CLI passes
one) and by cancellation. Progress notifications on the call's token stay linked to
the call while its task runs (2025-11-25: the token "remains valid throughout the task").

Modules: tasks.py (this API: the session's :class:`TaskTracker`, ``session.task_tracker``,
which McpSession's task methods call), task_model.py (TaskRecord, shapes,
the poll interval), task_follow.py (following one task).

Client capabilities: modern, ``extensions: {"io.modelcontextprotocol/tasks": {}}``.
Legacy, ``tasks: {}``: the spec says a client that supports task-augmented requests
MUST declare ``tasks``, and its members say what the client can RECEIVE as a task
(``list``, ``cancel``, ``requests.sampling.createMessage``, ``requests.elicitation.
create``, an exhaustive set). mcp-inspector runs no task of its own, so it declares the
capability with none of them: no server request of ours may be task-augmented, and
no tasks/list or tasks/cancel is offered.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..base.errors import InspectorError, MalformedTask, ProtocolViolation, RpcError
from ..protocol.request_table import is_create_task_result
from ..protocol.rpc import PendingRequest
from ..traffic.entry import TrafficEntry
from ..traffic.store import TrafficStore
from .events import SessionEvent, TaskUpdated
from .modern import TASKS_EXTENSION
from .task_follow import FollowedSession, Follower
from .task_model import (
    CANCEL_LIMIT,
    LEGACY_CLIENT_CAPABILITY,
    RELATED_TASK_KEY,
    STATUS_NOTIFICATIONS,
    STATUSES,
    SUPPORT,
    TERMINAL,
    TaskRecord,
    check_related,
    check_task,
    judge_modern,
    modern_outcome,
    poll_interval,
    wants_task,
)

#: Tasks first seen in a status notification (not made by a call, not listed) kept per session.
STRANGER_LIMIT = 1000

__all__ = [
    "LEGACY_CLIENT_CAPABILITY",
    "RELATED_TASK_KEY",
    "STATUSES",
    "STATUS_NOTIFICATIONS",
    "SUPPORT",
    "TERMINAL",
    "TaskRecord",
    "TaskTracker",
    "check_task",
    "is_create_task_result",
    "poll_interval",
    "wants_task",
]


class TaskSession(FollowedSession, Protocol):
    """What tasks need of the session (mcp_session.py imports this module)."""

    @property
    def store(self) -> TrafficStore: ...
    @property
    def capabilities(self) -> dict[str, Any]: ...
    @property
    def era(self) -> str | None: ...
    @property
    def timeout(self) -> float | None: ...

    def tool(self, name: str) -> dict[str, Any] | None: ...
    def emit(self, event: SessionEvent) -> None: ...


class Paginator(Protocol):
    """Every page of a list method (listing.Lister)."""

    async def paginate(self, method: str, key: str) -> list[dict[str, Any]]: ...


class TaskTracker:
    """The session's tasks: ``records`` (``session.tasks``), the followers of running calls."""

    def __init__(self, session: TaskSession, pages: Paginator) -> None:
        self.session = session
        self.pages = pages
        self.records: dict[str, TaskRecord] = {}
        #: task id -> the Follower of the tool call that runs it, while it runs
        self.followers: dict[str, Follower] = {}
        self._support_noted: set[str] = set()
        self._strangers = 0  # tasks first seen in a status notification (see _take_task)
        self._strangers_noted = False

    # -- what the server offers -----------------------------------------
    def _server_declares_tasks(self) -> bool:
        caps: dict[str, Any] = self.session.capabilities
        if self.session.era == "modern":
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
        tool = self.session.tool(tool_name)
        execution = tool.get("execution") if isinstance(tool, dict) else None
        declared = execution.get("taskSupport") if isinstance(execution, dict) else None
        if declared is not None and declared not in SUPPORT:
            self._note_support(
                tool_name,
                f"tool {tool_name!r} has execution.taskSupport {declared!r}, not one of "
                f"{', '.join(SUPPORT)}: taken as forbidden",
            )
        server = self._server_declares_tasks()
        if self.session.era == "modern":
            if declared in SUPPORT:
                return declared
            return "optional" if server else "forbidden"
        value = declared if declared in SUPPORT else "forbidden"
        if value != "forbidden" and not server:
            if value == "required":
                self._note_support(
                    tool_name,
                    f'tool {tool_name!r} requires a task (execution.taskSupport "required"), '
                    "but the server does not declare tasks.requests.tools.call: called as a task anyway",
                )
                return "required"
            self._note_support(
                tool_name,
                f"tool {tool_name!r} allows a task, but the server does not declare "
                "tasks.requests.tools.call: never called as a task (2025-11-25: MUST NOT)",
            )
            return "forbidden"
        return value

    def _note_support(self, tool_name: str, text: str) -> None:
        if text not in self._support_noted:
            self._support_noted.add(text)
            self.session.store.note(text, task_support=tool_name)

    def can_list_tasks(self) -> bool:
        """Legacy servers that declare ``tasks.list`` (the extension has no tasks/list)."""
        tasks = self.session.capabilities.get("tasks")
        return self.session.era == "legacy" and isinstance(tasks, dict) and "list" in tasks

    # -- records and events ---------------------------------------------
    def take_task(
        self,
        task: dict[str, Any],
        source: str,
        *,
        tool: str | None = None,
        first_seq: int | None = None,
        always: bool = True,
    ) -> TaskRecord:
        """Keep a checked Task in its record; emit TaskUpdated when ``always`` or it changed."""
        record = self.records.get(task["taskId"])
        if record is None and source == "notification" and tool is None:
            # A task this session never made nor listed: kept up to STRANGER_LIMIT of them (a
            # server announcing a fresh task id in every notification cannot fill memory).
            if self._strangers >= STRANGER_LIMIT:
                if not self._strangers_noted:
                    self._strangers_noted = True
                    self.session.store.note(
                        f"more than {STRANGER_LIMIT} tasks announced by notifications/tasks/status that "
                        "no call of this session made: later ones are not kept",
                        task_list=True,
                    )
                return TaskRecord(task["taskId"], None, None, dict(task), task["status"])
            self._strangers += 1
        if record is None:
            record = TaskRecord(task["taskId"], tool, first_seq, dict(task), task["status"])
            self.records[record.task_id] = record
            changed = True
        else:
            changed = task != record.task
            if record.terminal and task["status"] != record.status:
                self.session.store.note(
                    f"task {record.task_id}: the server moved it from the terminal status {record.status!r} "
                    f"to {task['status']!r} (a terminal task MUST NOT change status)",
                    task=record.task_id,
                )
            record.task, record.status = dict(task), task["status"]
            record.tool = record.tool or tool
            record.first_seq = record.first_seq if record.first_seq is not None else first_seq
        if changed or always:
            record.updates += 1
            self.session.emit(TaskUpdated(dict(record.task), record.first_seq, source))
        follower = self.followers.get(record.task_id)
        if follower is not None:
            follower.poke()
        return record

    def on_status(self, method: str, params: dict[str, Any], entry: TrafficEntry) -> None:
        """``notifications/tasks/status`` (legacy) or ``notifications/tasks`` (modern)."""
        era = STATUS_NOTIFICATIONS[method]
        problem = None
        if era != self.session.era:
            problem = f"{method} belongs to the {era} era's tasks, not this {self.session.era} session"
        try:
            task = check_task(params, method)
        except MalformedTask as exc:
            problem = str(exc)
            task = None
        if problem is not None:
            self.session.store.flag(entry, problem)
        if task is not None:
            self.take_task(task, "notification")

    # -- requests -------------------------------------------------------
    async def _task_request(self, method: str, task_id: str, **options: Any) -> tuple[dict[str, Any], PendingRequest]:
        if not isinstance(task_id, str) or not task_id:
            raise InspectorError(f"{method}: a task id (a non-empty string) is needed, got {task_id!r}")
        pending = await self.session.connection.send_request(method, {"taskId": task_id}, **options)
        result = await pending.wait()
        if self.session.era == "modern":
            judge_modern(self.session, method, result, pending)
        return result, pending

    async def get_task(self, task_id: str, *, source: str = "poll", **options: Any) -> TaskRecord:
        """``tasks/get``: the record, updated (TaskUpdated when something changed)."""
        result, _ = await self._task_request("tasks/get", task_id, **options)
        return self.take_task(check_task(result, "tasks/get", task_id), source, always=source != "poll")

    async def cancel_task(self, task_id: str, reason: str = "tasks/cancel was sent", **options: Any) -> TaskRecord:
        """``tasks/cancel``; legacy answers the Task, modern only acknowledges (then one
        tasks/get shows what the server says now). Emits TaskUpdated source "cancel"."""
        record = self.records.get(task_id)
        result, _ = await self._task_request("tasks/cancel", task_id, **options)
        if self.session.era != "modern":
            record = self.take_task(check_task(result, "tasks/cancel", task_id), "cancel")
        else:
            try:
                options["timeout"] = min(CANCEL_LIMIT, self.session.timeout or CANCEL_LIMIT)
                record = await self.get_task(task_id, source="cancel", **options)
            except (InspectorError, ProtocolViolation) as exc:  # MAY be deleted at once: the ack is what counts
                self.session.store.note(
                    f"tasks/cancel of task {task_id} was acknowledged; tasks/get after it failed: {exc}",
                    task=task_id,
                )
                if record is None:
                    record = TaskRecord(task_id, None, None, {"taskId": task_id}, "working")
                    self.records[task_id] = record
                record.updates += 1
                self.session.emit(TaskUpdated(dict(record.task), record.first_seq, "cancel"))
        record.cancel_requested = record.cancel_requested or reason
        follower = self.followers.get(task_id)
        if follower is not None and follower.cancel_reason is None:
            follower.cancel_reason = reason
            follower.poke()
        return record

    async def task_result(self, task_id: str, **options: Any) -> dict[str, Any]:
        """The task's CallToolResult: legacy ``tasks/result`` (blocks until the task ends;
        its JSON-RPC error raises), modern the ``result`` of ``tasks/get``."""
        record = self.records.get(task_id)
        if self.session.era == "modern":
            record = await self.get_task(task_id, source="result", **options)
            return modern_outcome(record, "tools/call")
        try:
            result, request = await self._task_request("tasks/result", task_id, **options)
        except RpcError as exc:
            if record is not None:
                record.error = exc
            raise
        check_related(self.session, result, task_id, request)
        if record is not None:
            record.result = result
            record.updates += 1
            self.session.emit(TaskUpdated(dict(record.task), record.first_seq, "result"))
        return result

    async def list_tasks(self) -> list[TaskRecord]:
        """``tasks/list``, every page (legacy; the extension has none). Emits TaskUpdated
        source "list" for each task; a malformed one is a note, the others are kept."""
        if self.session.era == "modern":
            raise InspectorError(
                "the 2026-07-28 tasks extension has no tasks/list: only the tasks this session created are known"
            )
        records = []
        for item in await self.pages.paginate("tasks/list", "tasks"):
            try:
                task = check_task(item, "tasks/list")
            except MalformedTask as exc:
                self.session.store.note(str(exc), task_list=True)
                continue
            records.append(self.take_task(task, "list"))
        return records

    # -- a tool call's task ---------------------------------------------
    async def follow(
        self, pending: PendingRequest, result: dict[str, Any], last: PendingRequest
    ) -> tuple[dict[str, Any], TaskRecord]:
        """Follow the task a tools/call answered with; (its CallToolResult, its record)."""
        modern = self.session.era == "modern"
        params = getattr(pending, "mrtr_params", None) or pending.params or {}
        if modern:
            task = check_task(result, 'tools/call (resultType "task")')
        else:
            task = check_task(result.get("task"), "tools/call (CreateTaskResult)")
            if "task" not in params:
                self.session.store.flag(
                    last.reply,
                    "a CreateTaskResult to a tools/call that did not ask for a task (no params.task)",
                )
        first_seq = pending.entry.seq if pending.entry is not None else None
        record = self.take_task(task, "created", tool=params.get("name"), first_seq=first_seq)
        follower = Follower(self.session, self, pending, record, last, modern)
        self.followers[record.task_id] = follower
        try:
            return await follower.run(), record
        finally:
            if self.followers.get(record.task_id) is follower:
                del self.followers[record.task_id]
