"""Tools that talk back while they run: progress, logs, notifications, client requests.

long_running_task (progress + cancellation), emit_logs, flood_notifications,
touch_resource (resources/updated) and ask_the_client (sampling, elicitation,
roots). They use the request context from server.py.
"""

from __future__ import annotations

import asyncio
import json
import time

from ..errors import ClientRpcError
from ..resources import README_URI
from .kit import LOG_LEVELS, hints, obj, result, text


async def long_running_task(args: dict, ctx) -> dict:
    duration, steps = float(args["duration_seconds"]), int(args["steps"])
    started = time.monotonic()
    for step in range(1, steps + 1):
        await asyncio.sleep(duration / steps)
        ctx.progress(step, steps, f"step {step}/{steps}")
    elapsed = time.monotonic() - started
    return result(text(f"Finished {steps} steps in {elapsed:.2f} s."))


LONG_RUNNING_TASK = {
    "name": "long_running_task",
    "title": "Long-running task",
    "description": "Sleeps for a while in steps, sending notifications/progress after each step "
    "when the request has a progressToken. Cancel it to see cancellation.",
    "inputSchema": obj(
        {
            "duration_seconds": {"type": "number", "title": "Duration (s)", "default": 5, "minimum": 0, "maximum": 600},
            "steps": {"type": "integer", "title": "Steps", "default": 10, "minimum": 1, "maximum": 1000},
        }
    ),
    "annotations": hints(read_only=True, idempotent=True),
}


async def emit_logs(args: dict, ctx) -> dict:
    count = int(args["count"])
    sent = 0
    for i in range(count):
        level = LOG_LEVELS[i % len(LOG_LEVELS)]
        summary = f"Demo log message {i + 1} of {count} at level {level}"
        data = (
            summary if i % 2 == 0 else {"message": summary, "index": i, "details": {"level": level, "ok": i % 3 != 0}}
        )
        sent += ctx.log(level, data, logger="demo.emit_logs")
    structured = {"requested": count, "sent": sent, "minimum_level": ctx.log_level}
    return result(
        text(f"Sent {sent} of {count} log messages (minimum level: {ctx.log_level})."),
        structured=structured,
    )


EMIT_LOGS = {
    "name": "emit_logs",
    "title": "Emit log messages",
    "description": "Sends notifications/message at rising levels (debug, info, notice, warning, error, "
    "critical, alert, emergency, then again), skipping those below the level set by logging/setLevel.",
    "inputSchema": obj({"count": {"type": "integer", "title": "Count", "default": 5, "minimum": 0, "maximum": 100}}),
    "outputSchema": obj(
        {
            "requested": {"type": "integer"},
            "sent": {"type": "integer"},
            "minimum_level": {"type": "string", "enum": LOG_LEVELS},
        },
        ["requested", "sent", "minimum_level"],
    ),
    "annotations": hints(read_only=True, idempotent=True),
}


async def flood_notifications(args: dict, ctx) -> dict:
    count, kind = int(args["count"]), args["kind"]
    if kind == "progress" and ctx.progress_token is None:
        return result(text("kind 'progress' needs a progressToken in the request's _meta."), error=True)
    started, sent = time.monotonic(), 0
    for i in range(1, count + 1):
        if kind == "progress":
            sent += ctx.progress(i, count, f"flood {i}/{count}")
        else:
            sent += ctx.log("info", f"flood message {i}/{count}", logger="demo.flood")
        if i % 200 == 0:
            await asyncio.sleep(0)  # let other requests and cancellation through
    elapsed = time.monotonic() - started
    return result(text(f"Sent {sent} of {count} {kind} notifications in {elapsed:.3f} s."))


FLOOD_NOTIFICATIONS = {
    "name": "flood_notifications",
    "title": "Flood notifications",
    "description": "Sends many notifications/message (or notifications/progress) as fast as possible, "
    "to test a client under load. Messages are at level info and honour logging/setLevel.",
    "inputSchema": obj(
        {
            "count": {"type": "integer", "title": "Count", "default": 1000, "minimum": 1, "maximum": 100000},
            "kind": {"type": "string", "title": "Kind", "enum": ["message", "progress"], "default": "message"},
        }
    ),
    "annotations": hints(read_only=True, idempotent=True),
}


async def touch_resource(args: dict, ctx) -> dict:
    uri = args["uri"]
    if not ctx.resources.exists(uri):
        return result(text(f"No such resource: {uri}"), error=True)
    revision = ctx.resources.touch(uri)
    subscribed = uri in ctx.resources.subscriptions
    if subscribed:
        ctx.notify("notifications/resources/updated", {"uri": uri})
    note = "sent notifications/resources/updated" if subscribed else "not subscribed, so no notification"
    return result(text(f"Touched {uri} (revision {revision}); {note}."))


TOUCH_RESOURCE = {
    "name": "touch_resource",
    "title": "Touch a resource",
    "description": "Marks a resource as changed. If the client subscribed to it, the server sends "
    "notifications/resources/updated.",
    "inputSchema": obj({"uri": {"type": "string", "title": "Resource URI", "default": README_URI}}, ["uri"]),
    "annotations": hints(read_only=False, destructive=False, idempotent=False),
}


# -- server->client requests --------------------------------------------------

ELICITATION_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "minLength": 1},
        "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150},
        "subscribe": {"type": "boolean", "title": "Subscribe to the newsletter", "default": False},
        "colour": {"type": "string", "title": "Favourite colour", "enum": ["red", "green", "blue", "yellow"]},
    },
    "required": ["name"],
}

CLIENT_REQUESTS = {
    "sampling": (
        "sampling",
        "sampling/createMessage",
        {
            "messages": [
                {
                    "role": "user",
                    "content": {"type": "text", "text": "Write a one-line haiku about inspecting MCP servers."},
                }
            ],
            "systemPrompt": "You are a concise, friendly assistant.",
            "includeContext": "none",
            "maxTokens": 100,
            "temperature": 0.7,
            "modelPreferences": {"hints": [{"name": "claude"}], "intelligencePriority": 0.5, "speedPriority": 0.8},
        },
    ),
    "elicitation": (
        "elicitation",
        "elicitation/create",
        {
            "message": "The demo server would like to know a little about you.",
            "requestedSchema": ELICITATION_SCHEMA,
        },
    ),
    "roots": ("roots", "roots/list", {}),
}


async def ask_the_client(args: dict, ctx) -> dict:
    capability, method, params = CLIENT_REQUESTS[args["kind"]]
    if capability not in ctx.client_capabilities:
        return result(
            text(
                f"The client did not declare the '{capability}' capability in initialize, "
                f"so the server may not send {method}."
            ),
            error=True,
        )
    try:
        answer = await ctx.ask_client(method, params)
    except ClientRpcError as exc:
        return result(text(f"The client answered {method} with an error: {exc}"), error=True)
    except TimeoutError:
        return result(text(f"The client did not answer {method} within {ctx.client_timeout:g} s."), error=True)
    except ConnectionError as exc:
        return result(text(f"{method} failed: {exc}"), error=True)
    return result(text(f"The client answered {method}:\n{json.dumps(answer, indent=2)}"))


ASK_THE_CLIENT = {
    "name": "ask_the_client",
    "title": "Ask the client",
    "description": "Sends a server->client request (sampling/createMessage, elicitation/create or "
    "roots/list) and returns the client's answer. Needs the matching client capability.",
    "inputSchema": obj(
        {"kind": {"type": "string", "title": "Request", "enum": ["sampling", "elicitation", "roots"]}},
        ["kind"],
    ),
    "annotations": hints(read_only=True, open_world=True),
}
