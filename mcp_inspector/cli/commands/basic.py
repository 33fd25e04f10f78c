"""The one-shot commands: info, tools, resources, prompts, call, get, ping (the others:
commands/session.py and commands/tasks.py).

Each is ``async (session, context, args) -> exit code``. With ``--json``,
``call``/``read``/``get`` print the ``result`` (or ``error``) member exactly as
the server sent it, taken from the raw frame; the listing commands print a
stable JSON document of what they fetched.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from ...core.base import jsonrpc
from ...core.base.errors import ProtocolViolation, RequestTimeout, RpcError, ToolExcluded
from ...core.base.masking import scrub
from ...core.protocol.rpc import PendingRequest
from ...core.session.events import LogMessage, TaskUpdated
from ...core.session.mcp_session import McpSession
from .. import exit_codes
from ..output import render
from ..output.report import error, for_stream
from ..runner import Context, format_log


def out(text: str) -> None:
    """A line of output; a secret this process holds (an OAuth token, a client secret) is masked
    where a server echoes it (the recording keeps the frames, masked the same way); on a terminal
    its control characters are shown, not obeyed (report.for_stream)."""
    text = for_stream(scrub(text), sys.stdout)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def out_json(document: Any) -> None:
    out(json.dumps(document, indent=2, ensure_ascii=False))


async def emit(ctx: Context, document: Any, human: Any, raw: str | None = None) -> int:
    """A command's output: ``--query`` over the JSON (``raw`` when the exact text is known), else
    that JSON with ``--json`` (``raw`` as it is), else ``human()``; the exit code (a failed query: 6)."""
    if ctx.options.query is not None:
        from .query import print_query

        return await print_query(ctx, raw if raw is not None else json.dumps(document, ensure_ascii=False), out)
    if ctx.options.json:
        out(raw) if raw is not None else out_json(document)
    else:
        out(human())
    return exit_codes.OK


async def cmd_info(session: McpSession, ctx: Context, args: Any) -> int:
    document = {
        "serverInfo": session.server_info,
        "protocolVersion": session.protocol_version,
        "era": session.era,
        "capabilities": session.capabilities,
        "instructions": session.instructions,
    }
    return await emit(
        ctx,
        document,
        lambda: render.info(
            session.server_info,
            session.protocol_version,
            session.capabilities,
            session.instructions,
            session.era,
            session.era_reason,
        ),
    )


async def _list(session: McpSession, ctx: Context, kind: str) -> list[dict[str, Any]]:
    """A whole list, or an empty one (with a note) when the server lacks the capability."""
    if not session.supports(kind):
        ctx.note(f"the server does not declare the {session_capability(kind)} capability; nothing to list")
        return []
    ctx.step = {
        "tools": "tools/list",
        "prompts": "prompts/list",
        "resources": "resources/list",
        "resource_templates": "resources/templates/list",
    }[kind]
    return await session.list_all(kind)


def session_capability(kind: str) -> str:
    return "resources" if kind == "resource_templates" else kind


async def cmd_tools(session: McpSession, ctx: Context, args: Any) -> int:
    items = await _list(session, ctx, "tools")
    # Over 2026-07-28 HTTP the session leaves out tools with invalid x-mcp-header annotations
    # (a client MUST NOT call them): listed apart, with the reason.
    excluded = dict(session.excluded_tools)
    if excluded:
        items = [tool for tool in session.lists.get("tools", items) if tool.get("name") not in excluded]
        for name, reason in excluded.items():
            ctx.warn(f"tool {name!r} is excluded (it cannot be called): {reason}")
    document: dict[str, Any] = {"tools": items}
    if excluded:
        document["excludedTools"] = [{"name": name, "reason": reason} for name, reason in excluded.items()]
    return await emit(ctx, document, lambda: render.tools(items))


async def cmd_prompts(session: McpSession, ctx: Context, args: Any) -> int:
    items = await _list(session, ctx, "prompts")
    return await emit(ctx, {"prompts": items}, lambda: render.prompts(items))


async def cmd_resources(session: McpSession, ctx: Context, args: Any) -> int:
    items = await _list(session, ctx, "resources")
    templates = await list_templates(session, ctx) if session.supports("resources") else []
    return await emit(
        ctx, {"resources": items, "resourceTemplates": templates}, lambda: render.resources(items, templates)
    )


async def list_templates(session: McpSession, ctx: Context) -> list[dict[str, Any]]:
    """``resources/templates/list``, every page; none (with a note) from a server that does not implement it."""
    try:
        return await _list(session, ctx, "resource_templates")
    except RpcError as exc:
        if exc.code != jsonrpc.METHOD_NOT_FOUND:
            raise
        ctx.note("the server does not implement resources/templates/list")
        return []


async def cmd_ping(session: McpSession, ctx: Context, args: Any) -> int:
    ctx.step = "ping"
    started = time.perf_counter()
    await session.ping()
    elapsed_ms = (time.perf_counter() - started) * 1000
    if ctx.options.json:
        out_json({"ok": True, "roundTripMs": round(elapsed_ms, 3)})
    else:
        out(f"pong: round trip {elapsed_ms:.2f} ms")
    return exit_codes.OK


async def finish_exact(session: McpSession, ctx: Context, pending: Any) -> tuple[dict[str, Any], str | None]:
    """``session.finish_request`` (MRTR rounds answered in 2026-07-28), with the exact ``result``
    member of the last reply; in --json mode an error reply is printed exactly before it is raised."""
    try:
        result = await session.finish_request(pending)
    except RpcError:
        last = _last_round(pending)
        if ctx.options.json and last.reply is not None:
            out(jsonrpc.raw_member(last.reply.raw, "error") or "null")
        raise
    last = _last_round(pending)
    return result, jsonrpc.raw_member(last.reply.raw, "result") if last.reply is not None else None


def _last_round(pending: Any) -> Any:
    while getattr(pending, "successor", None) is not None:
        pending = pending.successor
    return pending


async def cmd_get(session: McpSession, ctx: Context, args: Any) -> int:
    arguments = args.arguments  # parsed before connecting, so bad input is a usage error
    params: dict[str, Any] = {"name": args.prompt}
    if arguments:
        params["arguments"] = arguments
    ctx.step = "prompts/get"
    pending = await session.begin_request("prompts/get", params)  # MRTR rounds answered in 2026-07-28
    result, raw = await finish_exact(session, ctx, pending)
    messages = result.get("messages")
    if not isinstance(messages, list):
        ctx.warn("malformed result: prompts/get has no messages array")
    else:
        odd = sum(1 for m in messages if not (isinstance(m, dict) and isinstance(m.get("content"), dict)))
        if odd:
            ctx.warn(
                f"malformed result: {odd} of the {len(messages)} messages {'is' if odd == 1 else 'are'} "
                "not an object with a content object" + ("" if ctx.options.json else " (left out)")
            )
    return await emit(ctx, result, lambda: render.prompt_result(result), raw)


class ProgressDisplay:
    """Progress and log notifications on stderr while a call runs."""

    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.open_line = False

    def progress(self, pending: PendingRequest) -> None:
        progress = pending.progress
        if progress is None:
            return
        amount = f"{progress.progress:g}" + (f"/{progress.total:g}" if progress.total is not None else "")
        text = f"progress {amount}" + (f": {progress.message}" if progress.message else "")
        if self.tty:
            sys.stderr.write("\r\x1b[2K" + for_stream(text, sys.stderr))
            self.open_line = True
        else:
            sys.stderr.write(for_stream(text, sys.stderr) + "\n")
        sys.stderr.flush()

    def log(self, event: Any) -> None:
        if isinstance(event, LogMessage):
            self.finish()
            sys.stderr.write(for_stream(format_log(event), sys.stderr) + "\n")
            sys.stderr.flush()

    def finish(self) -> None:
        if self.open_line:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()
            self.open_line = False


class TaskStatusDisplay:
    """``call``: one stderr line per status change of the call's own task."""

    def __init__(self, first_seq: int | None) -> None:
        self.first_seq = first_seq
        self.last: tuple[Any, Any] | None = None

    def __call__(self, event: Any) -> None:
        if not isinstance(event, TaskUpdated) or (self.first_seq is not None and event.first_seq != self.first_seq):
            return
        state = (event.task.get("status"), event.task.get("statusMessage"))
        if event.source == "cancel" and state[0] not in ("completed", "failed", "cancelled"):
            sys.stderr.write(
                for_stream(
                    f"task {event.task.get('taskId', '?')} still {state[0]} after tasks/cancel: "
                    "the server may go on running it",
                    sys.stderr,
                )
                + "\n"
            )
            sys.stderr.flush()
            self.last = state
            return
        if state == self.last:
            return
        self.last = state
        message = f": {state[1]}" if isinstance(state[1], str) and state[1] else ""
        sys.stderr.write(for_stream(f"task {event.task.get('taskId', '?')} {state[0]}{message}", sys.stderr) + "\n")
        sys.stderr.flush()


async def cmd_call(session: McpSession, ctx: Context, args: Any) -> int:
    name = args.tool
    arguments = args.arguments  # parsed before connecting, so bad input is a usage error
    try:
        await check_call(session, ctx, name, arguments)
    except ToolExcluded as exc:  # a tool the client must not call: the request is never sent
        error(str(exc))
        return exit_codes.USAGE
    tty = sys.stderr.isatty()
    display = ProgressDisplay(tty) if not ctx.options.quiet and (ctx.options.progress or tty) else None
    remove_listener = remove_task_listener = None
    if display is not None:
        if ctx.options.log_level is not None:  # the runner shows the logs: through the display
            ctx.log_sink = display.log
        else:
            remove_listener = session.add_listener(display.log)
    ctx.step = f"tools/call {name}"
    try:
        try:
            # --timeout bounds the call as a whole: a task that never ends cannot hang us (max_total)
            as_task = getattr(args, "as_task", None)
            # a call that may run as a task: --timeout bounds it as a whole, so a task that never
            # ends cannot hang us (max_total); a plain call keeps the per-request timeout alone
            may_be_task = session.task_support(name) != "forbidden" and (
                as_task is not False or session.era == "modern"
            )
            pending = await session.begin_tool_call(
                name,
                arguments,
                as_task=as_task,
                on_progress=display.progress if display else None,
                max_total=ctx.options.timeout if may_be_task else None,
            )
        except ToolExcluded as exc:
            error(str(exc))
            return exit_codes.USAGE
        if display is not None:
            remove_task_listener = session.add_listener(TaskStatusDisplay(pending.entry.seq if pending.entry else None))
        try:
            outcome = await session.finish_tool_call(pending)
        except RpcError:
            last = _last_round(pending)  # an MRTR retry may be what failed
            if ctx.options.json and last.reply is not None:
                out(jsonrpc.raw_member(last.reply.raw, "error") or "null")
            raise
    finally:
        ctx.log_sink = None
        if remove_task_listener is not None:
            remove_task_listener()
        if display is not None:
            display.finish()
        if remove_listener is not None:
            remove_listener()
    view = outcome.view
    for problem in view.problems:
        ctx.warn(f"malformed result: {problem}")
    if outcome.task_id is not None:
        ctx.note(f"the call ran as task {outcome.task_id}")
    query_code = exit_codes.OK
    if ctx.options.json or ctx.options.query is not None:
        if outcome.task_id is not None:  # the result came by tasks/result (legacy) or tasks/get (modern)
            raw = task_result_raw(session, outcome.task_id)
        else:
            # the last round's reply: after MRTR rounds the first one is an InputRequiredResult
            last = outcome.rounds[-1] if outcome.rounds else _last_round(pending)
            raw = jsonrpc.raw_member(last.reply.raw, "result") if last.reply is not None else None
        query_code = await emit(ctx, outcome.result, None, raw or json.dumps(outcome.result, ensure_ascii=False))
        from ..output.repeats import summarized

        for line in summarized(str(issue) for issue in view.structured_issues):
            ctx.warn(f"structuredContent does not match the outputSchema: {line}")
        for note in view.unchecked:
            ctx.warn(f"outputSchema: {note}")
    else:
        out(render.tool_result(view))
    if view.is_error:  # an error result need not match the outputSchema: isError decides
        return exit_codes.TOOL_ERROR
    if query_code != exit_codes.OK:
        return query_code
    if view.structured_issues:
        ctx.warn(f"exit code {exit_codes.OUTPUT_SCHEMA}: the result violates the tool's outputSchema")
        return exit_codes.OUTPUT_SCHEMA
    return exit_codes.OK


def task_result_raw(session: McpSession, task_id: str) -> str | None:
    """The exact text of a task's result as the server sent it, or None: legacy, the ``result``
    of the last ``tasks/result`` reply for the task; 2026-07-28, the ``result`` member inside
    the ``result`` of the last ``tasks/get`` reply (a completed task carries it there)."""
    method = "tasks/get" if session.era == "modern" else "tasks/result"
    store = session.store
    for seq in range(store.last_seq, store.first_seq - 1, -1):
        entry = store.get(seq)
        if entry is None or entry.method != method or entry.reply_seq is None or entry.direction.value != "out":
            continue
        try:
            params = json.loads(entry.raw).get("params") or {}
        except (ValueError, AttributeError):
            continue
        if params.get("taskId") != task_id:
            continue
        reply = store.get(entry.reply_seq)
        raw = jsonrpc.raw_member(reply.raw, "result") if reply is not None else None
        if raw is not None and method == "tasks/get":
            raw = jsonrpc.raw_member(raw.encode(), "result")
        return raw
    return None


async def check_call(session: McpSession, ctx: Context, name: str, arguments: dict[str, Any]) -> None:
    """Fetch the tool list and validate the arguments: warnings only, the call is sent anyway."""
    if session.supports("tools"):
        ctx.step = "tools/list"
        try:
            await session.list_tools()
        except (RpcError, ProtocolViolation, RequestTimeout) as exc:
            ctx.warn(f"cannot check the arguments, tools/list failed: {exc}")
            return
    if name in session.excluded_tools:
        raise ToolExcluded(name, session.excluded_tools[name])
    tool = session.tool(name)
    if tool is None:
        ctx.warn(f"the server lists no tool named {name!r}; sending the call anyway")
        return
    from ..output.repeats import summarized

    issues = session.check_arguments(name, arguments)
    for line in summarized(f"argument {issue.path}: {issue.message} (sending anyway)" for issue in issues):
        ctx.warn(line)


COMMANDS = {
    "info": cmd_info,
    "tools": cmd_tools,
    "resources": cmd_resources,
    "prompts": cmd_prompts,
    "call": cmd_call,
    "get": cmd_get,
    "ping": cmd_ping,
}
