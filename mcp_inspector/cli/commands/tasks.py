"""``tasks``: the server's tasks (2025-11-25 experimental tasks; the 2026-07-28
``io.modelcontextprotocol/tasks`` extension). ``call``'s task status lines: commands.py.

    tasks [list]        tasks/list, every page (a legacy server that declares tasks.list;
                        otherwise a note and an empty list, exit 0)
    tasks get ID        tasks/get: the task's state
    tasks result ID     the task's CallToolResult (legacy tasks/result, which waits for the
                        task to end; modern: tasks/get at the task's pollIntervalMs until it
                        ends), shown and exited on as ``call`` does (1 for isError); --timeout
                        bounds the wait as a whole (exit 4; the task is not cancelled)
    tasks cancel ID     tasks/cancel, then the state the server reports

A task id names a task on the server, so these work from a new session (each command
is one). ``--json`` prints the Task objects (``{"tasks": [...]}`` for list), or the result
exactly as the server sent it (as ``call --json`` does).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio

from ...core.base.errors import InspectorError, RequestTimeout
from ...core.session.mcp_session import McpSession
from ...core.session.results import analyze_tool_result
from ...core.session.task_model import TERMINAL, modern_outcome, poll_interval
from .. import exit_codes
from ..output import render
from ..output.report import for_stream
from ..runner import Context
from .basic import out, out_json, task_result_raw


def task_line(task: dict[str, Any]) -> str:
    """``ID  STATUS[: message]  (created ..., ttl ...)``."""
    line = f"{task.get('taskId', '?')}  {task.get('status', '?')}"
    if isinstance(task.get("statusMessage"), str) and task["statusMessage"]:
        line += f": {task['statusMessage']}"
    facts = [f"{key} {task[key]}" for key in ("createdAt", "lastUpdatedAt") if isinstance(task.get(key), str)]
    for key in ("ttl", "ttlMs"):
        if key in task:
            facts.append(f"{key} {json.dumps(task[key])}")
    return line + (f"  ({', '.join(facts)})" if facts else "")


async def cmd_tasks(session: McpSession, ctx: Context, args: Any) -> int:
    action, task_id = args.action, args.task_id
    if action == "list":
        if not session.can_list_tasks():
            why = (
                "the 2026-07-28 tasks extension has no tasks/list"
                if session.era == "modern"
                else "the server does not declare tasks.list"
            )
            ctx.note(f"{why}: no task list (tasks get|result|cancel ID still work for a task you know)")
            out_json({"tasks": []}) if ctx.options.json else out("No tasks.")
            return exit_codes.OK
        ctx.step = "tasks/list"
        records = await session.list_tasks()
        if ctx.options.json:
            out_json({"tasks": [record.task for record in records]})
        else:
            out("\n".join(task_line(record.task) for record in records) if records else "No tasks.")
        return exit_codes.OK
    if action == "get":
        ctx.step = "tasks/get"
        record = await session.get_task(task_id, source="list")
        out_json(record.task) if ctx.options.json else out(task_line(record.task))
        return exit_codes.OK
    if action == "cancel":
        ctx.step = "tasks/cancel"
        record = await session.cancel_task(task_id, "tasks cancel from the command line")
        out_json(record.task) if ctx.options.json else out(task_line(record.task))
        return exit_codes.OK
    ctx.step = "tasks/result" if session.era != "modern" else "tasks/get"
    result = await (_wait_modern(session, ctx, task_id) if session.era == "modern" else session.task_result(task_id))
    view = analyze_tool_result(result)
    for problem in view.problems:  # as call says them
        ctx.warn(f"malformed result: {problem}")
    if ctx.options.json:  # exactly as the server sent it, as call prints it
        out(task_result_raw(session, task_id) or json.dumps(result, ensure_ascii=False))
    else:
        out(render.tool_result(view))
    return exit_codes.TOOL_ERROR if view.is_error else exit_codes.OK


async def _wait_modern(session: McpSession, ctx: Context, task_id: str) -> dict[str, Any]:
    """2026-07-28 has no blocking tasks/result: tasks/get at the task's interval until it ends,
    --timeout bounding the whole wait (then exit 4; the task goes on, it is not cancelled).
    Each status change is a line on stderr with --progress, as call shows its task's."""
    limit = ctx.options.timeout
    last = None
    with anyio.move_on_after(limit):
        while True:
            record = await session.get_task(task_id, source="result")
            if record.status in TERMINAL:
                return modern_outcome(record, "tools/call")
            if record.status == "input_required":  # its inputRequests belong to the session that follows it
                raise InspectorError(
                    f"task {task_id} is input_required: tasks result cannot answer its inputRequests "
                    "(the client that created it does)"
                )
            state = (record.status, record.task.get("statusMessage"))
            if state != last and ctx.options.progress and not ctx.options.quiet:
                message = f": {state[1]}" if isinstance(state[1], str) and state[1] else ""
                sys.stderr.write(for_stream(f"task {task_id} {state[0]}{message}", sys.stderr) + "\n")
                sys.stderr.flush()
            last = state
            await anyio.sleep(poll_interval(record.task, True))
    timed_out = RequestTimeout("tasks/get", limit or 0, True)
    timed_out.args = (
        f"tasks result: task {task_id} was still {last[0] if last else 'working'!r} after the "
        f"--timeout of {limit:g} s (not cancelled: tasks result {task_id} waits again)",
    )
    raise timed_out


COMMANDS = {"tasks": cmd_tasks}
