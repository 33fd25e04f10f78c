"""Human-readable output (no Rich: plain text that also reads well in a log file)."""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING

from ...core.base.json_text import JsonTextError, loads_strict, same_json

if TYPE_CHECKING:
    from typing import Any

DESCRIPTION_WIDTH = 100
ANNOTATION_FLAGS = (
    ("readOnlyHint", True, "read-only"),
    ("destructiveHint", True, "destructive"),
    ("idempotentHint", True, "idempotent"),
    ("openWorldHint", True, "open-world"),
)


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def first_line(text: Any, width: int = DESCRIPTION_WIDTH) -> str:
    if not isinstance(text, str):
        return ""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def schema_type(schema: Any) -> str:
    """A short type for a signature: ``string``, ``number[]``, ``"a"|"b"``, ``object``."""
    if not isinstance(schema, dict):
        return "any"
    if isinstance(schema.get("enum"), list) and 0 < len(schema["enum"]) <= 5:
        return "|".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    kind = schema.get("type")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    if kind == "array":
        return schema_type(schema.get("items")) + "[]" if isinstance(schema.get("items"), dict) else "array"
    if isinstance(kind, str):
        return kind
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return "|".join(schema_type(option) for option in schema[key])
    return "any"


def signature(name: str, schema: Any) -> str:
    """``name(a: number, b?: string)`` from an object schema."""
    parts: list[str] = []
    if isinstance(schema, dict):
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        for prop, prop_schema in properties.items():
            mark = "" if prop in required else "?"
            parts.append(f"{prop}{mark}: {schema_type(prop_schema)}")
    return f"{name}({', '.join(parts)})"


def tool_flags(tool: dict[str, Any]) -> list[str]:
    flags: list[str] = []
    annotations = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
    for key, value, label in ANNOTATION_FLAGS:
        if annotations.get(key) is value:
            flags.append(label)
    if tool.get("outputSchema") is not None:
        flags.append("structured output")
    return flags


def tools(items: list[dict[str, Any]]) -> str:
    if not items:
        return "No tools."
    lines = []
    for tool in items:
        line = signature(str(tool.get("name", "?")), tool.get("inputSchema"))
        description = first_line(tool.get("description"))
        annotations = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
        title = tool.get("title") or annotations.get("title")
        if description:
            line += f" — {description}"
        elif isinstance(title, str):
            line += f" — {title}"
        flags = tool_flags(tool)
        if flags:
            line += f"  [{', '.join(flags)}]"
        lines.append(line)
    lines.append(f"({len(items)} tool{'s' if len(items) != 1 else ''})")
    return "\n".join(lines)


def prompts(items: list[dict[str, Any]]) -> str:
    if not items:
        return "No prompts."
    lines = []
    for prompt in items:
        if not isinstance(prompt, dict):  # a malformed item: shown as the JSON it is
            lines.append(f"(not a prompt: {json.dumps(prompt, ensure_ascii=False)[:200]})")
            continue
        args = []
        arguments = prompt.get("arguments")
        for argument in arguments if isinstance(arguments, list) else []:
            if isinstance(argument, dict):
                args.append(f"{argument.get('name', '?')}{'' if argument.get('required') is True else '?'}")
        line = f"{prompt.get('name', '?')}({', '.join(args)})"
        description = first_line(prompt.get("description"))
        if description:
            line += f" — {description}"
        lines.append(line)
    lines.append(f"({len(items)} prompt{'s' if len(items) != 1 else ''})")
    return "\n".join(lines)


def resources(items: list[dict[str, Any]], templates: list[dict[str, Any]]) -> str:
    lines = [f"Resources ({len(items)}):"]
    for resource in items:
        lines.append("  " + _resource_line(resource, "uri"))
    lines.append(f"Resource templates ({len(templates)}):")
    for template in templates:
        lines.append("  " + _resource_line(template, "uriTemplate"))
    return "\n".join(lines)


def templates(items: list[dict[str, Any]]) -> str:
    if not items:
        return "No resource templates."
    lines = [_resource_line(template, "uriTemplate") for template in items]
    lines.append(f"({len(items)} resource template{'s' if len(items) != 1 else ''})")
    return "\n".join(lines)


def _resource_line(item: dict[str, Any], uri_key: str) -> str:
    line = str(item.get(uri_key, "?"))
    name = item.get("title") or item.get("name")
    if name:
        line += f"  {name}"
    facts = [str(item["mimeType"])] if item.get("mimeType") else []
    size = item.get("size")
    if isinstance(size, int) and not isinstance(size, bool):
        facts.append(f"{size:,} bytes")
    if facts:
        line += f"  ({', '.join(facts)})"
    description = first_line(item.get("description"))
    if description:
        line += f" — {description}"
    flags = _annotation_words(item.get("annotations"))
    icons = item.get("icons")
    if isinstance(icons, list) and icons:
        flags.append(f"{len(icons)} icon{'s' if len(icons) != 1 else ''}")
    if flags:
        line += f"  [{', '.join(flags)}]"
    return line


def _annotation_words(annotations: Any) -> list[str]:
    """A resource's annotations, short: audience, priority, lastModified."""
    if not isinstance(annotations, dict):
        return []
    words = []
    audience = annotations.get("audience")
    if isinstance(audience, list) and audience:
        words.append("for " + "+".join(str(a) for a in audience))
    priority = annotations.get("priority")
    if isinstance(priority, (int, float)) and not isinstance(priority, bool):
        words.append(f"priority {priority:g}")
    if isinstance(annotations.get("lastModified"), str):
        words.append(f"modified {annotations['lastModified']}")
    return words


def info(
    server_info: dict[str, Any],
    version: str | None,
    capabilities: dict[str, Any],
    instructions: str | None,
    era: str | None = None,
    era_reason: str = "",
) -> str:
    name = server_info.get("name", "?")
    line = f"Server:       {name} {server_info.get('version', '')}".rstrip()
    if server_info.get("title") and server_info.get("title") != name:
        line += f" ({server_info['title']})"
    lines = [line, f"Protocol:     {version}"]
    if era:
        lines.append(f"Era:          {era}" + (f" ({era_reason})" if era_reason else ""))
    if capabilities:
        lines.append("Capabilities:")
        for key, value in capabilities.items():
            detail = ""
            if isinstance(value, dict) and value:
                detail = ": " + ", ".join(
                    k if v is True else f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in value.items()
                )
            lines.append(f"  {key}{detail}")
    else:
        lines.append("Capabilities: none")
    if instructions:
        lines.append("Instructions:")
        lines.extend(("  " + text).rstrip() for text in instructions.rstrip().splitlines())
    return "\n".join(lines)


def text_block(text: str) -> str:
    """Text as is, or pretty-printed when the whole text is a JSON object or array."""
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return pretty(loads_strict(stripped))
        except JsonTextError:  # not JSON, or JSON we would not reformat (too deep, NaN...)
            pass
    return text


def _size(data: Any) -> str:
    if not isinstance(data, str):
        return "no data"
    try:
        return f"{len(base64.b64decode(data, validate=True))} bytes"
    except (binascii.Error, ValueError):
        return "invalid base64"


def content_block(block: Any) -> str:
    if not isinstance(block, dict):
        return f"[invalid content block: {json.dumps(block, ensure_ascii=False)}]"
    kind = block.get("type")
    if kind == "text":
        return text_block(block.get("text")) if isinstance(block.get("text"), str) else "[text block without text]"
    if kind in ("image", "audio"):
        return f"[{kind} {block.get('mimeType', '?')}, {_size(block.get('data'))}]"
    if kind == "resource_link":
        line = f"[resource link] {block.get('uri', '?')}"
        name = block.get("title") or block.get("name")
        if name:
            line += f"  {name}"
        if block.get("mimeType"):
            line += f"  ({block['mimeType']})"
        return line
    if kind == "resource":
        return embedded_resource(block.get("resource"))
    return f"[{kind or 'unknown'} block] {json.dumps(block, ensure_ascii=False)}"


def embedded_resource(resource: Any) -> str:
    if not isinstance(resource, dict):
        return "[embedded resource: invalid]"
    head = f"[resource] {resource.get('uri', '?')}"
    if resource.get("mimeType"):
        head += f"  ({resource['mimeType']})"
    if isinstance(resource.get("text"), str):
        return head + "\n" + text_block(resource["text"])
    if "blob" in resource:
        from ...core.session.results import blob_text  # (results and schema validation: not for a listing)

        text = blob_text(resource.get("blob"), resource.get("mimeType"), limit=None)
        if text is not None:
            return head + f"  [base64 blob, {len(text.encode('utf-8'))} bytes of UTF-8 text]\n" + text_block(text)
        return head + f"  [blob, {_size(resource.get('blob'))}]"
    return head


def tool_result(view: Any) -> str:
    """A ToolResultView: the blocks, then structured content and its validation."""
    lines: list[str] = []
    if view.is_error:
        lines.append("ERROR: the tool reported a failure (isError: true)")
    for block in view.blocks:
        lines.append(content_block(block.block))
    if not view.blocks and not view.problems:
        lines.append("(no content)")
    if view.has_structured and _in_a_text_block(view):
        lines.append("(structuredContent: same as the text above)")
    elif view.has_structured:
        lines.append("structuredContent:")
        lines.append(pretty(view.structured))
    if view.output_schema is not None and not view.is_error:
        if view.structured_issues:
            lines.append("outputSchema: INVALID")
            from .repeats import summarized

            lines.extend(f"  {line}" for line in summarized(str(issue) for issue in view.structured_issues))
        else:
            lines.append("outputSchema: valid" + (" (not every pattern checked)" if view.unchecked else ""))
        lines.extend(f"  note: {note}" for note in view.unchecked)
    return "\n".join(lines)


def _in_a_text_block(view: Any) -> bool:
    """A text block holds the same JSON as structuredContent (servers send both, as the spec advises
    for backwards compatibility): printed once."""
    for block in view.blocks:
        raw = block.block
        text = raw.get("text") if isinstance(raw, dict) and raw.get("type") == "text" else None
        if not isinstance(text, str) or text.strip()[:1] not in ("{", "["):
            continue
        try:
            if same_json(loads_strict(text.strip()), view.structured):
                return True
        except JsonTextError:
            continue
    return False


def read_result(result: dict[str, Any]) -> str:
    contents = result.get("contents")
    if not isinstance(contents, list) or not contents:
        return "(no contents)"
    return "\n".join(embedded_resource(item) for item in contents)


def prompt_result(result: dict[str, Any]) -> str:
    lines: list[str] = []
    if isinstance(result.get("description"), str):
        lines.append(result["description"])
    messages = result.get("messages")
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        lines.append(f"[{message.get('role', '?')}]")
        lines.append(content_block(message.get("content")))
    return "\n".join(lines) if lines else "(no messages)"
