"""Tools that run as 2025-11-25 tasks (see tasks.py for the protocol side).

long_job (``execution.taskSupport: "required"``): steps with a statusMessage
and progress per step; ``ask: true`` asks the client half-way with
``elicitation/create`` (the task goes ``input_required`` until the client waits
in ``tasks/result``); ``outcome`` picks how it ends (a result, an isError
result, a JSON-RPC error, or a result whose structuredContent violates the
outputSchema, so a client's check of a task's result can be tried). generate_report (``"optional"``): the same kind
of work, callable as a task or as a normal call.
"""

from __future__ import annotations

import asyncio
import time

from ..errors import INTERNAL_ERROR, ClientRpcError, RpcError
from .kit import hints, obj, result, text

NOTE_SCHEMA = {
    "type": "object",
    "properties": {
        "note": {"type": "string", "title": "A note for the result", "minLength": 1},
        "finish": {
            "type": "string",
            "title": "How to finish",
            "enum": ["normally", "as an error"],
            "default": "normally",
        },
    },
    "required": ["note"],
}


async def _ask_half_way(ctx) -> tuple[str | None, str]:
    """Ask the client for a note; returns (the note or None, a line for the result)."""
    if "elicitation" not in ctx.client_capabilities:
        raise _Refused("the client did not declare the 'elicitation' capability, so long_job cannot ask it")
    ctx.status("Half-way: asking the client for a note (elicitation/create).")
    try:
        answer = await ctx.ask_client(
            "elicitation/create",
            {
                "message": "long_job is half-way. Add a note to its result?",
                "requestedSchema": NOTE_SCHEMA,
            },
        )
    except ClientRpcError as exc:
        raise _Refused(f"the client answered elicitation/create with an error: {exc}") from None
    except TimeoutError:
        raise _Refused(f"the client did not answer elicitation/create within {ctx.client_timeout:g} s") from None
    except ConnectionError as exc:
        raise _Refused(f"elicitation/create failed: {exc}") from None
    action = answer.get("action") if isinstance(answer, dict) else None
    content = answer.get("content") if isinstance(answer, dict) else None
    if action == "accept" and isinstance(content, dict):
        return content, f"The client accepted: {content}"
    return None, f"The client chose {action!r}: no note."


class _Refused(Exception):
    """The half-way question could not be asked or answered: the tool returns isError."""


async def long_job(args: dict, ctx) -> dict:
    steps, duration = int(args["steps"]), float(args["duration_seconds"])
    outcome, ask = args["outcome"], bool(args["ask"])
    started, lines, note = time.monotonic(), [], None
    for step in range(1, steps + 1):
        ctx.status(f"Step {step} of {steps}")
        await asyncio.sleep(duration / steps)
        ctx.progress(step, steps, f"step {step}/{steps}")
        if ask and step == (steps + 1) // 2:
            try:
                note, line = await _ask_half_way(ctx)
            except _Refused as exc:
                return result(text(f"long_job stopped at step {step}: {exc}."), error=True)
            lines.append(line)
            if note and note.get("finish") == "as an error":
                outcome = "tool_error"
    elapsed = time.monotonic() - started
    summary = {"steps": steps, "seconds": round(elapsed, 3), "note": (note or {}).get("note")}
    if outcome == "protocol_error":
        raise RpcError(INTERNAL_ERROR, "long_job failed on purpose (outcome: protocol_error)", summary)
    lines.insert(0, f"long_job finished {steps} steps in {elapsed:.2f} s.")
    if outcome == "tool_error":
        return result(text("\n".join(lines) + "\nIt reports a failure on purpose (outcome: tool_error)."), error=True)
    if outcome == "bad_output":  # steps a string, seconds missing: the outputSchema is violated on purpose
        lines.append("Its structuredContent violates the outputSchema on purpose (outcome: bad_output).")
        return result(text("\n".join(lines)), structured={"steps": str(steps), "note": summary["note"]})
    return result(text("\n".join(lines)), structured=summary)


LONG_JOB = {
    "name": "long_job",
    "title": "Long job (task required)",
    "description": "A job that must run as a task (execution.taskSupport 'required'; a plain call is -32601). "
    "It sets a status message and sends progress at each step. ask: true asks you for a note half-way "
    "(the task goes input_required until the client waits in tasks/result). outcome picks the ending: "
    "a result, an isError result (task failed), a JSON-RPC error, or a result whose structuredContent "
    "violates the outputSchema (bad_output).",
    "inputSchema": obj(
        {
            "steps": {"type": "integer", "title": "Steps", "default": 5, "minimum": 1, "maximum": 100},
            "duration_seconds": {"type": "number", "title": "Duration (s)", "default": 5, "minimum": 0, "maximum": 600},
            "ask": {"type": "boolean", "title": "Ask for a note half-way (elicitation)", "default": False},
            "outcome": {
                "type": "string",
                "title": "Outcome",
                "enum": ["success", "tool_error", "protocol_error", "bad_output"],
                "default": "success",
            },
        }
    ),
    "outputSchema": obj(
        {
            "steps": {"type": "integer"},
            "seconds": {"type": "number"},
            "note": {"type": ["string", "null"]},
        },
        ["steps", "seconds", "note"],
    ),
    "annotations": hints(read_only=True, idempotent=True),
    "execution": {"taskSupport": "required"},
}


async def generate_report(args: dict, ctx) -> dict:
    topic, sections, duration = args["topic"], int(args["sections"]), float(args["duration_seconds"])
    body = [f"# Report: {topic}", ""]
    for number in range(1, sections + 1):
        ctx.status(f"Writing section {number} of {sections}")
        await asyncio.sleep(duration / sections)
        ctx.progress(number, sections, f"section {number}/{sections}")
        body += [f"## Section {number}", "", f"Pretend findings about {topic}, part {number}.", ""]
    return result(text("\n".join(body)), structured={"topic": topic, "sections": sections})


GENERATE_REPORT = {
    "name": "generate_report",
    "title": "Generate a report (task optional)",
    "description": "Writes a pretend report section by section. Task support is 'optional': call it "
    "normally, or as a task to poll it, watch its status messages and cancel it.",
    "inputSchema": obj(
        {
            "topic": {"type": "string", "title": "Topic", "default": "MCP tasks", "minLength": 1},
            "sections": {"type": "integer", "title": "Sections", "default": 3, "minimum": 1, "maximum": 20},
            "duration_seconds": {"type": "number", "title": "Duration (s)", "default": 3, "minimum": 0, "maximum": 600},
        }
    ),
    "outputSchema": obj({"topic": {"type": "string"}, "sections": {"type": "integer"}}, ["topic", "sections"]),
    "annotations": hints(read_only=True, idempotent=True),
    "execution": {"taskSupport": "optional"},
}
