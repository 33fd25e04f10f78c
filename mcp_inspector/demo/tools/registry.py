"""The tool registry: which tools exist right now, argument checking and dispatch.

The list changes with toggle_extra_tools (adds weather_forecast, alters echo),
so a client can see tools added, removed and modified via list_changed.
"""

from __future__ import annotations

from datetime import UTC, datetime

from ..errors import INVALID_PARAMS, RpcError
from ..schema_check import validate, with_defaults
from . import live as live
from . import output as out
from . import tasks as tasked
from .kit import NO_ARGS, Tool, hints, obj, result, structured_result, text

INPUT_ERRORS_AS_RESULTS = "2025-11-25"  # from this version, bad arguments are isError results


class ToolRegistry:
    """Current tool list (which changes with toggle_extra_tools) and dispatch."""

    def __init__(self) -> None:
        self.extras_on = False
        self._tickets = 0
        self._fixed = [
            Tool(out.ADD, out.add),
            Tool(out.CREATE_TICKET, self._create_ticket),
            Tool(live.LONG_RUNNING_TASK, live.long_running_task),
            Tool(TOGGLE_EXTRA_TOOLS, self._toggle_extra_tools),
            Tool(live.EMIT_LOGS, live.emit_logs),
            Tool(out.ALL_CONTENT_TYPES, out.all_content_types),
            Tool(out.WEATHER_REPORT, out.weather_report),
            Tool(out.BROKEN_STRUCTURED_OUTPUT, out.broken_structured_output),
            Tool(out.FAILING_TOOL, out.failing_tool),
            Tool(live.ASK_THE_CLIENT, live.ask_the_client),
            Tool(live.FLOOD_NOTIFICATIONS, live.flood_notifications),
            Tool(live.TOUCH_RESOURCE, live.touch_resource),
            Tool(tasked.LONG_JOB, tasked.long_job),
            Tool(tasked.GENERATE_REPORT, tasked.generate_report),
        ]

    def tools(self) -> list[Tool]:
        current = [Tool(out.echo_definition(self.extras_on), out.echo), *self._fixed]
        if self.extras_on:
            current.append(Tool(out.WEATHER_FORECAST, out.weather_forecast))
        return current

    def definitions(self) -> list[dict]:
        return [t.definition for t in self.tools()]

    def definition(self, name: object) -> dict | None:
        return next((t.definition for t in self.tools() if t.name == name), None)

    async def call(self, params: dict, ctx) -> dict:
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "tools/call needs a string 'name'")
        tool = next((t for t in self.tools() if t.name == name), None)
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}", {"name": name})
        if arguments is None:
            arguments = {}
        schema = tool.definition["inputSchema"]
        problems = validate(arguments, schema, "arguments")
        if problems:
            if (ctx.protocol_version or INPUT_ERRORS_AS_RESULTS) >= INPUT_ERRORS_AS_RESULTS:
                return result(text("Invalid arguments:\n" + "\n".join(f"- {p}" for p in problems)), error=True)
            raise RpcError(INVALID_PARAMS, f"Invalid arguments for {name}", {"errors": problems})
        return await tool.handler(with_defaults(arguments, schema), ctx)

    async def _create_ticket(self, args: dict, ctx) -> dict:
        self._tickets += 1
        ticket = {
            "id": f"TCK-{self._tickets:04d}",
            "status": "open",
            "title": args["title"],
            "priority": args["priority"],
            "tags": args.get("tags", []),
            "count": int(args["count"]),
            "notify": args["notify"],
            "labels": args.get("labels", []),
            "created_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        }
        for optional in ("description", "assignee", "due", "estimate_hours"):
            if optional in args:
                ticket[optional] = args[optional]
        return structured_result(ticket)

    async def _toggle_extra_tools(self, args: dict, ctx) -> dict:
        self.extras_on = not self.extras_on
        ctx.notify("notifications/tools/list_changed", None)
        if self.extras_on:
            summary = (
                "Extra tools ON: added 'weather_forecast'; 'echo' has a new description "
                "and an optional 'uppercase' argument."
            )
        else:
            summary = "Extra tools OFF: removed 'weather_forecast'; 'echo' is back to its original form."
        return result(
            text(summary + " Sent notifications/tools/list_changed."), structured={"extras_on": self.extras_on}
        )


TOGGLE_EXTRA_TOOLS = {
    "name": "toggle_extra_tools",
    "title": "Toggle extra tools",
    "description": "Each call flips a switch: adds or removes 'weather_forecast' and changes 'echo' "
    "(description and input schema), then sends notifications/tools/list_changed.",
    "inputSchema": NO_ARGS,
    "outputSchema": obj({"extras_on": {"type": "boolean"}}, ["extras_on"]),
    "annotations": hints(read_only=False, destructive=False, idempotent=False),
}
