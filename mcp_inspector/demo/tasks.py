"""2025-11-25 experimental tasks: task-augmented ``tools/call`` and the ``tasks/*`` methods.

Authority: schema/2025-11-25/schema.ts and basic/utilities/tasks.mdx of the
specification. Tasks exist only from protocol 2025-11-25: an older session
gets no ``tasks`` capability, no ``execution`` on tools, and its task tools run
as ordinary calls (a receiver that did not declare the capability MUST ignore
``params.task``).

- ``tools/call`` with ``params.task`` on a tool whose ``execution.taskSupport``
  is "optional" or "required" answers at once with ``CreateTaskResult`` and runs
  the tool in the background. "forbidden" (or absent) with a task, and
  "required" without one, are -32601 (the spec's tool-level rules).
- ``tasks/get`` returns the Task; ``tasks/result`` blocks until the task is
  terminal and returns the CallToolResult (with ``_meta`` related-task) or the
  JSON-RPC error the call raised; ``tasks/list`` is paginated; ``tasks/cancel``
  moves a live task to ``cancelled`` (a terminal one is -32602).
- Every status or statusMessage change sends ``notifications/tasks/status``
  (the whole Task). Progress notifications carry the related-task ``_meta``.
- When a running tool needs the client (``ctx.ask_client``), the task goes to
  ``input_required`` and the request, with ``_meta["io.modelcontextprotocol/
  related-task"]``, is held until the client is waiting in ``tasks/result`` (as
  the spec's flow has it); the answer puts the task back to ``working``.
- TTL: the requested ``task.ttl`` is clamped to [100 ms, 1 h] (default from
  ``--task-ttl``); a terminal task past its TTL is forgotten (-32602 "expired").
  ``pollInterval`` comes from ``--task-poll-interval``.

Tasks belong to one stdio connection (one requestor), so listing them exposes
nothing to anyone else; task ids are random UUIDs all the same.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime

from .errors import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, RpcError
from .paging import paginate

TASKS_VERSION = "2025-11-25"
RELATED_TASK = "io.modelcontextprotocol/related-task"
CAPABILITY = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
TERMINAL = ("completed", "failed", "cancelled")
MIN_TTL_MS, MAX_TTL_MS = 100, 3_600_000


def supported(protocol_version: str | None) -> bool:
    """Whether a session at this version has tasks at all."""
    return (protocol_version or "") >= TASKS_VERSION


def task_support(definition: dict | None) -> str:
    execution = (definition or {}).get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return support if support in ("optional", "required") else "forbidden"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class DemoTask:
    """One task: its protocol state plus what the server needs to run and answer it."""

    def __init__(self, tool: str, ttl: int, poll_interval: int) -> None:
        self.task_id = str(uuid.uuid4())
        self.tool = tool
        self.status = "working"
        self.status_message = f"{tool} has started."
        self.created_at = self.last_updated_at = _now()
        self.started = time.monotonic()
        self.ttl = ttl
        self.poll_interval = poll_interval
        self.outcome: dict | RpcError | None = None  # the CallToolResult or the JSON-RPC error
        self.poke = asyncio.Event()  # set on every change, wakes tasks/result waiters
        self.gates: list[asyncio.Event] = []  # held client requests, opened by tasks/result
        self.runner: asyncio.Task | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def expired(self) -> bool:
        return self.terminal and (time.monotonic() - self.started) * 1000 > self.ttl

    def to_json(self) -> dict:
        task = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.last_updated_at,
            "ttl": self.ttl,
            "pollInterval": self.poll_interval,
        }
        if self.status_message:
            task["statusMessage"] = self.status_message
        return task


class TaskManager:
    """The tasks of one connection. ``server`` is the DemoServer (notify, request_client, tools)."""

    def __init__(self, server, default_ttl: int, poll_interval: int, page_size: int) -> None:
        self.server = server
        self.default_ttl = default_ttl
        self.poll_interval = poll_interval
        self.page_size = page_size
        self.tasks: dict[str, DemoTask] = {}

    # -- tools/call -----------------------------------------------------------------

    def check_call(self, params: dict, definition: dict | None) -> bool:
        """Decide how a tools/call runs: True = as a task; raises the spec's -32601 cases."""
        if definition is None or not supported(self.server.protocol_version):
            return False  # unknown tools fail in the registry; old sessions ignore params.task
        support, name, wanted = task_support(definition), definition["name"], "task" in params
        if wanted and support == "forbidden":
            raise RpcError(
                METHOD_NOT_FOUND,
                f"Tool {name} does not support task-augmented execution (taskSupport: 'forbidden')",
                {"tool": name, "taskSupport": support},
            )
        if not wanted and support == "required":
            raise RpcError(
                METHOD_NOT_FOUND,
                f"Tool {name} requires task augmentation (taskSupport: 'required'): send params.task",
                {"tool": name, "taskSupport": support},
            )
        return wanted

    def create(self, params: dict, ctx) -> dict:
        """Start the call in the background and return its CreateTaskResult."""
        meta = params["task"]
        if not isinstance(meta, dict):
            raise RpcError(INVALID_PARAMS, "params.task must be an object")
        ttl = meta.get("ttl", self.default_ttl)
        if ttl is None:
            ttl = MAX_TTL_MS  # "unlimited" asked: we keep tasks at most an hour
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or ttl < 0:
            raise RpcError(INVALID_PARAMS, "params.task.ttl must be a number of milliseconds", {"ttl": ttl})
        task = DemoTask(params["name"], int(min(max(ttl, MIN_TTL_MS), MAX_TTL_MS)), self.poll_interval)
        self._purge()
        self.tasks[task.task_id] = task
        ctx.task = task
        call = {key: value for key, value in params.items() if key != "task"}
        # No status notification for the creation itself: the CreateTaskResult says it, and a
        # notification sent before that response would name a task the client does not know yet.
        task.runner = asyncio.create_task(self._run(task, call, ctx))
        return {
            "task": task.to_json(),
            "_meta": {
                "io.modelcontextprotocol/model-immediate-response": (
                    f"{task.tool} is running as task {task.task_id}; poll tasks/get or wait in tasks/result."
                )
            },
        }

    async def _run(self, task: DemoTask, call: dict, ctx) -> None:
        try:
            outcome = await self.server.tools.call(call, ctx)
        except asyncio.CancelledError:
            self._finish(task, "cancelled", "The task was cancelled.", None)
            return
        except RpcError as exc:
            self._finish(task, "failed", f"JSON-RPC error {exc.code}: {exc.message}", exc)
            return
        except Exception as exc:  # noqa: BLE001 - a bug in a tool fails its task, not the server
            self._finish(task, "failed", f"Internal error: {exc}", RpcError(INTERNAL_ERROR, f"Internal error: {exc}"))
            return
        if outcome.get("isError"):
            self._finish(task, "failed", "The tool returned isError: true; tasks/result has its content.", outcome)
        else:
            self._finish(task, "completed", "Completed; tasks/result has the result.", outcome)

    # -- what a running tool may do (through RequestContext) ---------------------------

    def set_message(self, task: DemoTask, message: str) -> None:
        if not task.terminal and message != task.status_message:
            self._change(task, task.status, message)

    async def ask(self, task: DemoTask, method: str, params: dict) -> object:
        """Send a server->client request for a task: input_required until tasks/result lets it out."""
        params = dict(params)
        params["_meta"] = {**(params.get("_meta") or {}), RELATED_TASK: {"taskId": task.task_id}}
        gate = asyncio.Event()
        task.gates.append(gate)
        self._change(task, "input_required", f"Waiting for the client to answer {method}: call tasks/result to get it.")
        try:
            await gate.wait()
            return await self.server.request_client(method, params)
        finally:
            if gate in task.gates:
                task.gates.remove(gate)
            if not task.terminal:
                self._change(task, "working", f"Got the answer to {method}; working again.")

    # -- tasks/* ----------------------------------------------------------------------

    async def get(self, params: dict) -> dict:
        return self._lookup(params).to_json()

    async def result(self, params: dict) -> dict:
        task = self._lookup(params)
        while not task.terminal:
            for gate in task.gates:
                gate.set()  # the client is listening now: send what the task waits on
            task.poke.clear()
            await task.poke.wait()
        if isinstance(task.outcome, RpcError):
            raise task.outcome
        if task.outcome is None:  # cancelled: there is no result to give
            raise RpcError(
                INVALID_PARAMS,
                f"Task {task.task_id} was cancelled: it has no result",
                {"taskId": task.task_id, "status": task.status},
            )
        meta = {**(task.outcome.get("_meta") or {}), RELATED_TASK: {"taskId": task.task_id}}
        return {**task.outcome, "_meta": meta}

    async def list(self, params: dict) -> dict:
        self._purge()
        page, next_cursor = paginate("tasks", [t.to_json() for t in self.tasks.values()], params, self.page_size)
        out: dict = {"tasks": page}
        if next_cursor is not None:
            out["nextCursor"] = next_cursor
        return out

    async def cancel(self, params: dict) -> dict:
        task = self._lookup(params)
        if task.terminal:
            raise RpcError(
                INVALID_PARAMS,
                f"Cannot cancel task: already in terminal status '{task.status}'",
                {"taskId": task.task_id, "status": task.status},
            )
        self._finish(task, "cancelled", "The task was cancelled by request.", None)
        if task.runner is not None:
            task.runner.cancel()
        return task.to_json()

    def shutdown(self) -> list[asyncio.Task]:
        """Cancel every running task (the connection is closing); returns the runners."""
        runners = [t.runner for t in self.tasks.values() if t.runner is not None and not t.runner.done()]
        for runner in runners:
            runner.cancel()
        return runners

    # -- internals --------------------------------------------------------------------

    def _lookup(self, params: dict) -> DemoTask:
        task_id = params.get("taskId")
        if not isinstance(task_id, str):
            raise RpcError(INVALID_PARAMS, "params.taskId must be a string")
        task = self.tasks.get(task_id)
        if task is not None and task.expired():
            del self.tasks[task_id]
            raise RpcError(INVALID_PARAMS, "Failed to retrieve task: Task has expired", {"taskId": task_id})
        if task is None:
            raise RpcError(INVALID_PARAMS, "Failed to retrieve task: Task not found", {"taskId": task_id})
        return task

    def _purge(self) -> None:
        for task_id in [t.task_id for t in self.tasks.values() if t.expired()]:
            del self.tasks[task_id]

    def _finish(self, task: DemoTask, status: str, message: str, outcome: dict | RpcError | None) -> None:
        if task.terminal:
            return  # terminal is final: a cancelled task stays cancelled whatever its runner does
        task.outcome = outcome
        self._change(task, status, message)

    def _change(self, task: DemoTask, status: str, message: str) -> None:
        task.status, task.status_message, task.last_updated_at = status, message, _now()
        task.poke.set()
        self._notify(task)

    def _notify(self, task: DemoTask) -> None:
        self.server.notify("notifications/tasks/status", task.to_json())
