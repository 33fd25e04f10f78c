"""Tools that show off results: text, structured output, every content type, errors.

echo, add, create_ticket (rich input form), all_content_types, weather_report,
weather_forecast (only while extra tools are on), broken_structured_output
(violates its own outputSchema) and failing_tool (isError: true).
"""

from __future__ import annotations

import json
import zlib
from datetime import UTC, date, datetime, timedelta

from .. import media
from ..resources import CONFIG_URI, LOGO_URI, README_URI
from .kit import NO_ARGS, hints, obj, result, structured_result, text


def echo_definition(extras_on: bool) -> dict:
    properties = {"message": {"type": "string", "title": "Message", "description": "Text to send back."}}
    description = "Echoes the message back unchanged."
    if extras_on:
        properties["uppercase"] = {
            "type": "boolean",
            "title": "Uppercase",
            "description": "Shout the message back.",
            "default": False,
        }
        description = "Echoes the message back, optionally in UPPERCASE (changed by toggle_extra_tools)."
    return {
        "name": "echo",
        "title": "Echo",
        "description": description,
        "inputSchema": obj(properties, ["message"]),
        "annotations": hints(read_only=True, idempotent=True),
    }


async def echo(args: dict, ctx) -> dict:
    message = args["message"]
    return result(text(message.upper() if args.get("uppercase") else message))


ADD = {
    "name": "add",
    "title": "Add two numbers",
    "description": "Adds a and b. Returns the sum as text and as structured content.",
    "inputSchema": obj(
        {
            "a": {"type": "number", "description": "First addend"},
            "b": {"type": "number", "description": "Second addend"},
        },
        ["a", "b"],
    ),
    "outputSchema": obj({"sum": {"type": "number"}}, ["sum"], additionalProperties=False),
    "annotations": hints(read_only=True, idempotent=True),
}


async def add(args: dict, ctx) -> dict:
    total = args["a"] + args["b"]
    if isinstance(total, float) and total.is_integer():
        total = int(total)
    return result(text(str(total)), structured={"sum": total})


PRIORITIES = ["low", "medium", "high", "urgent"]
LABELS = ["bug", "feature", "docs", "ui", "backend", "security"]

TICKET_INPUT = obj(
    {
        "title": {
            "type": "string",
            "title": "Title",
            "description": "One-line summary.",
            "minLength": 3,
            "maxLength": 80,
        },
        "description": {"type": "string", "title": "Description", "description": "Longer free text."},
        "priority": {"type": "string", "title": "Priority", "enum": PRIORITIES, "default": "medium"},
        "tags": {
            "type": "array",
            "title": "Tags",
            "description": "Free-form tags, no duplicates.",
            "items": {"type": "string"},
            "uniqueItems": True,
        },
        "assignee": obj(
            {
                "name": {"type": "string", "title": "Name"},
                "email": {"type": "string", "title": "Email", "format": "email"},
            },
            ["name"],
            title="Assignee",
        ),
        "due": {"type": "string", "title": "Due date", "format": "date"},
        "estimate_hours": {"type": "number", "title": "Estimate (hours)", "minimum": 0, "maximum": 1000},
        "count": {"type": "integer", "title": "How many copies", "default": 1, "minimum": 1, "maximum": 100},
        "notify": {"type": "boolean", "title": "Notify watchers", "default": True},
        "labels": {
            "type": "array",
            "title": "Labels",
            "items": {"type": "string", "enum": LABELS},
            "uniqueItems": True,
        },
    },
    ["title"],
)

TICKET_OUTPUT = obj(
    {
        "id": {"type": "string"},
        "status": {"type": "string", "enum": ["open"]},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "priority": {"type": "string", "enum": PRIORITIES},
        "tags": {"type": "array", "items": {"type": "string"}},
        "assignee": TICKET_INPUT["properties"]["assignee"],
        "due": {"type": "string", "format": "date"},
        "estimate_hours": {"type": "number"},
        "count": {"type": "integer"},
        "notify": {"type": "boolean"},
        "labels": {"type": "array", "items": {"type": "string", "enum": LABELS}},
        "created_at": {"type": "string", "format": "date-time"},
    },
    ["id", "status", "title", "priority", "tags", "count", "notify", "labels", "created_at"],
    additionalProperties=False,
)

CREATE_TICKET = {
    "name": "create_ticket",
    "title": "Create a ticket",
    "description": "Files a (pretend) ticket. Its input schema uses most form features: "
    "enums, defaults, arrays, a nested object, formats and numeric ranges.",
    "inputSchema": TICKET_INPUT,
    "outputSchema": TICKET_OUTPUT,
    "annotations": hints(read_only=False, destructive=False, idempotent=False, open_world=True),
}


async def all_content_types(args: dict, ctx) -> dict:
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    sample = {"kind": "demo", "numbers": [1, 2, 3], "nested": {"ok": True, "none": None}}
    return result(
        text("Plain text block: every MCP content type follows, in order."),
        text(json.dumps(sample, indent=2), annotations={"audience": ["assistant"], "priority": 0.3}),
        {
            "type": "image",
            "data": media.b64(media.logo_png()),
            "mimeType": "image/png",
            "annotations": {"audience": ["user"], "priority": 0.8, "lastModified": now},
        },
        {"type": "audio", "data": media.b64(media.beep_wav()), "mimeType": "audio/wav"},
        {
            "type": "resource_link",
            "uri": README_URI,
            "name": "readme",
            "title": "Demo README",
            "description": "A link to a resource the client can read.",
            "mimeType": "text/markdown",
        },
        {
            "type": "resource",
            "resource": {
                "uri": CONFIG_URI,
                "mimeType": "application/json",
                "text": json.dumps({"embedded": True, "source": "all_content_types"}),
            },
        },
        {
            "type": "resource",
            "resource": {"uri": LOGO_URI, "mimeType": "image/png", "blob": media.b64(media.logo_png())},
            "annotations": {"audience": ["user"], "priority": 0.5},
        },
    )


ALL_CONTENT_TYPES = {
    "name": "all_content_types",
    "title": "Every content type",
    "description": "Returns text, JSON text, a PNG image, a WAV audio clip, a resource link and embedded "
    "text and blob resources, some with annotations.",
    "inputSchema": NO_ARGS,
    "annotations": hints(read_only=True, idempotent=True),
    "icons": [{"src": media.logo_data_uri(), "mimeType": "image/png", "sizes": ["32x32"]}],
}

CONDITIONS = ["sunny", "partly cloudy", "cloudy", "rain", "thunderstorm", "snow", "fog", "windy"]


def _seed(*parts: object) -> int:
    return zlib.crc32("|".join(map(str, parts)).lower().encode())


async def weather_report(args: dict, ctx) -> dict:
    city, seed = args["city"], _seed(args["city"])
    temperature = round(-5 + (seed % 400) / 10, 1)
    report = {
        "city": city,
        "temperature_c": temperature,
        "feels_like_c": round(temperature - (seed >> 8) % 40 / 10, 1),
        "conditions": CONDITIONS[(seed >> 4) % len(CONDITIONS)],
        "humidity_percent": (seed >> 12) % 101,
        "wind_kph": round((seed >> 16) % 600 / 10, 1),
        "observed_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
    }
    return structured_result(report)


WEATHER_REPORT = {
    "name": "weather_report",
    "title": "Current weather",
    "description": "Made-up (but stable per city) current weather, as structured content that "
    "matches the declared outputSchema.",
    "inputSchema": obj({"city": {"type": "string", "title": "City", "minLength": 1}}, ["city"]),
    "outputSchema": obj(
        {
            "city": {"type": "string"},
            "temperature_c": {"type": "number"},
            "feels_like_c": {"type": "number"},
            "conditions": {"type": "string", "enum": CONDITIONS},
            "humidity_percent": {"type": "integer", "minimum": 0, "maximum": 100},
            "wind_kph": {"type": "number", "minimum": 0},
            "observed_at": {"type": "string", "format": "date-time"},
        },
        ["city", "temperature_c", "conditions", "humidity_percent", "wind_kph", "observed_at"],
        additionalProperties=False,
    ),
    "annotations": hints(read_only=True, idempotent=True, open_world=True),
}


async def weather_forecast(args: dict, ctx) -> dict:
    city, today = args["city"], date.today()
    days = []
    for offset in range(int(args["days"])):
        seed = _seed(city, offset)
        low = round(-5 + (seed % 250) / 10, 1)
        days.append(
            {
                "date": (today + timedelta(days=offset)).isoformat(),
                "high_c": round(low + 2 + (seed >> 8) % 100 / 10, 1),
                "low_c": low,
                "conditions": CONDITIONS[(seed >> 4) % len(CONDITIONS)],
            }
        )
    return structured_result({"city": city, "days": days})


WEATHER_FORECAST = {
    "name": "weather_forecast",
    "title": "Weather forecast",
    "description": "A made-up multi-day forecast. Only listed while toggle_extra_tools is on.",
    "inputSchema": obj(
        {
            "city": {"type": "string", "title": "City", "minLength": 1},
            "days": {"type": "integer", "title": "Days", "default": 3, "minimum": 1, "maximum": 7},
        },
        ["city"],
    ),
    "outputSchema": obj(
        {
            "city": {"type": "string"},
            "days": {
                "type": "array",
                "items": obj(
                    {
                        "date": {"type": "string", "format": "date"},
                        "high_c": {"type": "number"},
                        "low_c": {"type": "number"},
                        "conditions": {"type": "string", "enum": CONDITIONS},
                    },
                    ["date", "high_c", "low_c", "conditions"],
                ),
            },
        },
        ["city", "days"],
    ),
    "annotations": hints(read_only=True, idempotent=True, open_world=True),
}


async def broken_structured_output(args: dict, ctx) -> dict:
    wrong = {"count": "three", "status": "maybe", "unexpected": True}
    return result(
        text(
            "This result deliberately violates the declared outputSchema: count is a string, "
            "status is not in the enum, an extra property is present and 'checked_at' is missing."
        ),
        structured=wrong,
    )


BROKEN_STRUCTURED_OUTPUT = {
    "name": "broken_structured_output",
    "title": "Broken structured output",
    "description": "Declares an outputSchema but returns structuredContent that violates it, "
    "so a client can show validation errors.",
    "inputSchema": NO_ARGS,
    "outputSchema": obj(
        {
            "count": {"type": "integer", "minimum": 0},
            "status": {"type": "string", "enum": ["ok", "failed"]},
            "checked_at": {"type": "string", "format": "date-time"},
        },
        ["count", "status", "checked_at"],
        additionalProperties=False,
    ),
    "annotations": hints(read_only=True, idempotent=True),
}


async def failing_tool(args: dict, ctx) -> dict:
    reason = args.get("reason") or "no reason given"
    return result(
        text(
            f"The operation failed: {reason}. This is a tool-level error (isError: true), "
            "not a JSON-RPC error, so a model could read it and try again."
        ),
        error=True,
    )


FAILING_TOOL = {
    "name": "failing_tool",
    "title": "Always fails",
    "description": "Pretends to run a dangerous operation and always fails with isError: true.",
    "inputSchema": obj({"reason": {"type": "string", "title": "Reason", "description": "Why it should fail."}}),
    "annotations": {
        "title": "Failing tool (annotations.title)",
        **hints(read_only=False, destructive=True, idempotent=True),
    },
}
