"""Small builders shared by the tool modules: result blocks, schemas, annotations.

Keeps the tool definitions themselves short and declarative.
"""

from __future__ import annotations

import json

# RFC 5424 severities, lowest first: logging/setLevel and notifications/message use them.
LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


class Tool:
    """One tool: its ``tools/list`` entry plus the coroutine that runs it."""

    __slots__ = ("name", "definition", "handler")

    def __init__(self, definition: dict, handler) -> None:
        self.name = definition["name"]
        self.definition = definition
        self.handler = handler


def text(value: str, **extra) -> dict:
    return {"type": "text", "text": value, **extra}


def result(*blocks: dict, structured: dict | None = None, error: bool = False) -> dict:
    out: dict = {"content": list(blocks)}
    if structured is not None:
        out["structuredContent"] = structured
    if error:
        out["isError"] = True
    return out


def structured_result(data: dict) -> dict:
    """Structured content plus its JSON as text, as the spec recommends."""
    return result(text(json.dumps(data, indent=2)), structured=data)


def hints(read_only: bool, destructive: bool = False, idempotent: bool = False, open_world: bool = False) -> dict:
    return {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": open_world,
    }


def obj(properties: dict | None = None, required: list[str] | None = None, **extra) -> dict:
    schema: dict = {"type": "object", "properties": properties or {}}
    if required:
        schema["required"] = required
    schema.update(extra)
    return schema


NO_ARGS = {"type": "object", "additionalProperties": False}
