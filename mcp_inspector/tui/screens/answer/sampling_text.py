"""A ``sampling/createMessage`` request in words: the messages by role with every content type
(text, image, audio, tool_use, tool_result, resources), the system prompt, the limits, the model
preferences and the tools offered (sampling with tools, 2025-11-25). Plain strings, made safe for
the terminal (``clean``), so the screen and the tests read the same thing."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from ...text.traffic_text import clean, human_size

TEXT_LIMIT = 4000  # characters of one text block shown (the rest is in the traffic log)
JSON_LIMIT = 600


def _cut(text: str, limit: int = TEXT_LIMIT) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit} more characters]"


def _json(value: Any, limit: int = JSON_LIMIT) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    return clean(_cut(text, limit))


def _data_size(data: Any) -> str:
    if not isinstance(data, str):
        return "no data"
    try:
        return human_size(len(base64.b64decode(data, validate=True)))
    except (binascii.Error, ValueError):
        return f"{len(data)} characters, not valid base64"


def describe_block(block: Any, indent: str = "") -> list[str]:
    """One content block as lines."""
    if not isinstance(block, dict):
        return [f"{indent}(not a content block: {_json(block, 120)})"]
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return [indent + line for line in clean(_cut(text if isinstance(text, str) else _json(text))).split("\n")] or [
            indent
        ]
    if kind in ("image", "audio"):
        return [f"{indent}[{kind} {clean(str(block.get('mimeType', '?')))}, {_data_size(block.get('data'))}]"]
    if kind == "tool_use":
        return [
            f"{indent}→ tool_use {clean(str(block.get('name', '?')))} (id {clean(str(block.get('id', '?')))}): "
            f"{_json(block.get('input'))}"
        ]
    if kind == "tool_result":
        error = " (isError)" if block.get("isError") else ""
        lines = [f"{indent}← tool_result for {clean(str(block.get('toolUseId', '?')))}{error}:"]
        content = block.get("content")
        for inner in content if isinstance(content, list) else [content]:
            lines += describe_block(inner, indent + "  ")
        if "structuredContent" in block:
            lines.append(f"{indent}  structuredContent {_json(block['structuredContent'])}")
        return lines
    if kind == "resource":
        resource = block.get("resource") if isinstance(block.get("resource"), dict) else {}
        body = resource.get("text")
        what = _cut(clean(body), 300) if isinstance(body, str) else _data_size(resource.get("blob"))
        return [f"{indent}[resource {clean(str(resource.get('uri', '?')))}] {what}"]
    if kind == "resource_link":
        return [f"{indent}[resource link {clean(str(block.get('uri', '?')))}] {clean(str(block.get('name', '')))}"]
    return [f"{indent}(unknown content type {clean(str(kind))!s}: {_json(block, 200)})"]


def describe_message(message: Any) -> tuple[str, list[str]]:
    """(role, lines) of a SamplingMessage (content one block or a list of them)."""
    if not isinstance(message, dict):
        return "?", [f"(not a message: {_json(message, 120)})"]
    content = message.get("content")
    lines: list[str] = []
    for block in content if isinstance(content, list) else [content]:
        lines += describe_block(block)
    return clean(str(message.get("role", "?"))), lines


def describe_limits(params: dict) -> str:
    parts = [f"maxTokens {_json(params.get('maxTokens'), 40)}"]
    if "temperature" in params:
        parts.append(f"temperature {_json(params['temperature'], 40)}")
    if params.get("stopSequences"):
        parts.append(f"stopSequences {_json(params['stopSequences'], 200)}")
    if "includeContext" in params:
        parts.append(f"includeContext {_json(params['includeContext'], 40)}")
    return " · ".join(parts)


def describe_preferences(preferences: Any) -> str | None:
    if not isinstance(preferences, dict) or not preferences:
        return None
    parts = []
    hints = preferences.get("hints")
    if isinstance(hints, list) and hints:
        names = [clean(str(h.get("name"))) if isinstance(h, dict) else _json(h, 40) for h in hints]
        parts.append("hints " + ", ".join(names))
    for key in ("costPriority", "speedPriority", "intelligencePriority"):
        if key in preferences:
            parts.append(f"{key.removesuffix('Priority')} {_json(preferences[key], 20)}")
    return "Model preferences: " + (" · ".join(parts) if parts else _json(preferences))


def tool_names(params: dict) -> list[str]:
    tools = params.get("tools")
    return (
        [str(t["name"]) for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
        if isinstance(tools, list)
        else []
    )


def describe_tools(params: dict) -> list[str]:
    """The tools offered, with toolChoice: one line each (name, description, its arguments)."""
    tools = params.get("tools")
    if not isinstance(tools, list) or not tools:
        return []
    choice = params.get("toolChoice")
    mode = choice.get("mode", "auto") if isinstance(choice, dict) else "auto"
    lines = [f"Tools offered ({len(tools)}, toolChoice {clean(str(mode))}):"]
    for tool in tools[:50]:
        if not isinstance(tool, dict):
            lines.append(f"  (not a tool: {_json(tool, 80)})")
            continue
        schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        args = ", ".join(clean(str(name)) for name in list(props)[:8]) + ("…" if len(props) > 8 else "")
        description = clean(_cut(str(tool.get("description", "")), 200))
        lines.append(f"  {clean(str(tool.get('name', '?')))}({args}){' — ' + description if description else ''}")
    if len(tools) > 50:
        lines.append(f"  … and {len(tools) - 50} more")
    return lines


def describe_sampling(params: dict) -> str:
    """The whole request as text (what the modal shows, in one string: for tests and copying)."""
    lines: list[str] = []
    if isinstance(params.get("systemPrompt"), str):
        lines += ["System prompt:", *("  " + line for line in clean(_cut(params["systemPrompt"])).split("\n"))]
    messages = params.get("messages")
    for message in messages if isinstance(messages, list) else []:
        role, body = describe_message(message)
        lines += [f"{role}:", *("  " + line for line in body)]
    lines.append(describe_limits(params))
    preferences = describe_preferences(params.get("modelPreferences"))
    if preferences:
        lines.append(preferences)
    lines += describe_tools(params)
    if "metadata" in params:
        lines.append(f"metadata {_json(params['metadata'])}")
    return "\n".join(lines)
