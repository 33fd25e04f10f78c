"""A 2026-07-28 MCP server over stdio built with the official ``mcp`` SDK (2.3.0), serving
the ``io.modelcontextprotocol/tasks`` extension through the SDK's extension interface
(``mcp.server.extension.Extension``: the SDK has no tasks of its own).

    python tests/servers/sdk_tasks_server.py

Tool ``report(sections: int = 3, delay: float = 0.1)``: when the request's client
capabilities declare the extension, ``tools/call`` answers ``resultType: "task"`` at once
and writes the report in the background (``statusMessage`` "section i of n"); else it runs
plainly. ``tasks/get`` answers the task (``result`` once completed), ``tasks/cancel``
acknowledges and marks it cancelled, ``tasks/update`` acknowledges. ``pollIntervalMs`` 100.
Modern era only (as tests/servers/sdk_modern_server.py). Exits on stdin EOF.
"""

from __future__ import annotations

import os
import sys
import uuid
import warnings
from datetime import UTC, datetime
from typing import Any

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import contextlib

from mcp.server.extension import Extension, MethodBinding  # noqa: E402 - after the sys.path/environment setup above
from mcp.server.mcpserver import MCPServer  # noqa: E402 - after the sys.path/environment setup above
from mcp.server.runner import _serve_modern_stream  # noqa: E402  (private: no public modern-only entry)
from mcp.server.stdio import stdio_server  # noqa: E402 - after the sys.path/environment setup above
from mcp_types import RequestParams  # noqa: E402 - after the sys.path/environment setup above

warnings.filterwarnings("ignore")
TASKS = "io.modelcontextprotocol/tasks"
tasks: dict[str, dict[str, Any]] = {}


class TaskIdParams(RequestParams):
    taskId: str
    inputResponses: dict[str, Any] | None = None


def now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def wants_tasks(ctx: Any) -> bool:
    """Whether this request's client capabilities declare the tasks extension."""
    params = ctx.params if isinstance(ctx.params, dict) else {}
    meta = params.get("_meta")
    if not isinstance(meta, dict) and ctx.meta is not None:
        meta = ctx.meta.model_dump(by_alias=True) if hasattr(ctx.meta, "model_dump") else dict(ctx.meta)
    capabilities = (meta or {}).get("io.modelcontextprotocol/clientCapabilities") or {}
    return TASKS in (capabilities.get("extensions") or {})


async def run_report(task_id: str, sections: int, delay: float) -> None:
    task = tasks[task_id]
    for i in range(1, sections + 1):
        if task["status"] == "cancelled":
            return
        task.update(statusMessage=f"section {i} of {sections}", lastUpdatedAt=now())
        await anyio.sleep(delay)
    if task["status"] == "cancelled":
        return
    task.update(
        status="completed",
        statusMessage="done",
        lastUpdatedAt=now(),
        result={
            "content": [{"type": "text", "text": f"report of {sections} sections"}],
            "structuredContent": {"result": f"report of {sections} sections"},
        },
    )


class TasksExtension(Extension):
    identifier = TASKS

    def __init__(self) -> None:
        self.group: Any = None

    def methods(self):
        return (
            MethodBinding("tasks/get", TaskIdParams, self.get),
            MethodBinding("tasks/cancel", TaskIdParams, self.cancel),
            MethodBinding("tasks/update", TaskIdParams, self.update),
        )

    async def intercept_tool_call(self, params, ctx, call_next):
        if params.name != "report" or not wants_tasks(ctx):
            return await call_next(ctx)
        arguments = params.arguments or {}
        task_id = uuid.uuid4().hex
        tasks[task_id] = {
            "taskId": task_id,
            "status": "working",
            "createdAt": now(),
            "lastUpdatedAt": now(),
            "ttlMs": 60000,
            "pollIntervalMs": 100,
        }
        self.group.start_soon(
            run_report, task_id, int(arguments.get("sections", 3)), float(arguments.get("delay", 0.1))
        )
        return {"resultType": "task", **tasks[task_id]}

    async def get(self, ctx, params):
        task = tasks.get(params.taskId)
        if task is None:
            raise ValueError(f"unknown task {params.taskId}")
        return {"resultType": "complete", **task}

    async def cancel(self, ctx, params):
        task = tasks.get(params.taskId)
        if task is not None and task["status"] == "working":
            task.update(status="cancelled", statusMessage="cancelled by request", lastUpdatedAt=now())
        return {"resultType": "complete"}

    async def update(self, ctx, params):
        return {"resultType": "complete"}


extension = TasksExtension()
server = MCPServer("sdk-tasks", version="1.0.0", extensions=[extension], log_level="WARNING")


@server.tool()
async def report(sections: int = 3, delay: float = 0.1) -> str:
    """Write a pretend report (as a task when the client declares the tasks extension)."""
    await anyio.sleep(delay * sections)
    return f"report of {sections} sections (no task)"


async def serve() -> None:
    low = server._lowlevel_server
    async with anyio.create_task_group() as group:
        extension.group = group
        async with stdio_server() as (read_stream, write_stream), low.lifespan(low) as lifespan_state:
            try:
                await _serve_modern_stream(
                    low, read_stream, write_stream, lifespan_state=lifespan_state, raise_exceptions=False
                )
            finally:
                await write_stream.aclose()
        group.cancel_scope.cancel()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(serve)
