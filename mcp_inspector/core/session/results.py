"""Understanding a ``tools/call`` result without losing anything in it.

Content blocks are kept in order and each is checked on its own, so one block
of an unknown type degrades to "unknown" instead of failing the whole result.
``isError`` (a tool-level failure) stays distinct from a JSON-RPC error, and
``structuredContent`` is validated against the tool's ``outputSchema``.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any

from ..schema.validation import Issue, check

KNOWN_BLOCK_TYPES = {"text", "image", "audio", "resource_link", "resource"}


@dataclass(slots=True)
class BlockInfo:
    index: int
    type: str
    block: Any
    problem: str | None = None
    size: int | None = None  # decoded bytes for image/audio/blob
    mime_type: str | None = None


@dataclass(slots=True)
class ToolResultView:
    result: dict[str, Any]
    is_error: bool
    blocks: list[BlockInfo]
    has_structured: bool
    structured: Any
    structured_issues: list[Issue] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # shape problems of the result itself
    output_schema: Any = None
    unchecked: list[str] = field(default_factory=list)  # outputSchema patterns not matched, and why


def analyze_tool_result(result: dict[str, Any], tool: dict[str, Any] | None = None) -> ToolResultView:
    problems: list[str] = []
    content = result.get("content")
    blocks: list[BlockInfo] = []
    if content is None:
        problems.append("the result has no `content` array")
    elif not isinstance(content, list):
        problems.append(f"`content` must be an array, got {type(content).__name__}")
    else:
        blocks = [describe_block(i, block) for i, block in enumerate(content)]
    is_error = result.get("isError", False)
    if not isinstance(is_error, bool):
        problems.append("`isError` must be a boolean")
        is_error = bool(is_error)
    output_schema = (tool or {}).get("outputSchema")
    has_structured = "structuredContent" in result
    structured = result.get("structuredContent")
    issues: list[Issue] = []
    unchecked: list[str] = []
    if output_schema is not None and not is_error:
        if not has_structured:
            issues.append(Issue("$", "the tool declares an outputSchema but the result has no structuredContent"))
        else:
            verdict = check(output_schema, structured)
            issues, unchecked = verdict.issues, verdict.unchecked
    return ToolResultView(
        result, is_error, blocks, has_structured, structured, issues, problems, output_schema, unchecked
    )


def describe_block(index: int, block: Any) -> BlockInfo:
    if not isinstance(block, dict):
        return BlockInfo(index, "unknown", block, f"a content block must be an object, got {type(block).__name__}")
    kind = block.get("type")
    if kind not in KNOWN_BLOCK_TYPES:
        return BlockInfo(index, "unknown", block, f"unknown content type {kind!r}")
    info = BlockInfo(index, kind, block)
    if kind == "text":
        if not isinstance(block.get("text"), str):
            info.problem = "text block without a string `text`"
    elif kind in ("image", "audio"):
        info.mime_type = block.get("mimeType")
        info.size, info.problem = _decoded_size(block.get("data"))
        if not isinstance(info.mime_type, str):
            info.problem = info.problem or "missing `mimeType`"
    elif kind == "resource_link":
        info.mime_type = block.get("mimeType")
        if not isinstance(block.get("uri"), str) or not isinstance(block.get("name"), str):
            info.problem = "resource_link needs `uri` and `name`"
    elif kind == "resource":
        resource = block.get("resource")
        if not isinstance(resource, dict) or not isinstance(resource.get("uri"), str):
            info.problem = "embedded resource needs a `resource` object with a `uri`"
        else:
            info.mime_type = resource.get("mimeType")
            if "blob" in resource:
                info.size, info.problem = _decoded_size(resource.get("blob"))
            elif not isinstance(resource.get("text"), str):
                info.problem = "embedded resource needs `text` or `blob`"
    return info


def _decoded_size(data: Any) -> tuple[int | None, str | None]:
    if not isinstance(data, str):
        return None, "missing base64 `data`"
    try:
        return len(base64.b64decode(data, validate=True)), None
    except (binascii.Error, ValueError):
        return None, "`data` is not valid base64"


TEXT_APPLICATION_TYPES = (
    "application/json",
    "application/xml",
    "application/javascript",
    "application/ecmascript",
    "application/x-javascript",
    "application/yaml",
    "application/x-yaml",
    "application/toml",
    "application/sql",
    "application/graphql",
    "application/x-sh",
    "application/x-www-form-urlencoded",
    "application/ld+json",
    "application/x-ndjson",
    "application/jsonl",
)
TEXT_SUFFIXES = ("+json", "+xml", "+yaml")
BLOB_TEXT_MAX = 4_000_000  # base64 characters of a textual blob decoded to show it as text (~3 MB); past it: bytes


def is_textual_mime(mime: Any) -> bool:
    """A mimeType whose content is text: text/*, JSON, XML, YAML, JavaScript..."""
    if not isinstance(mime, str):
        return False
    base = mime.split(";")[0].strip().lower()
    return base.startswith("text/") or base in TEXT_APPLICATION_TYPES or base.endswith(TEXT_SUFFIXES)


def blob_text(blob: Any, mime: Any, limit: int | None = BLOB_TEXT_MAX) -> str | None:
    """A blob of a textual mimeType decoded to text when its bytes are valid UTF-8 (a server
    may send text as base64); None when it is not textual, not base64, not UTF-8 or over ``limit``."""
    if not isinstance(blob, str) or not is_textual_mime(mime) or (limit is not None and len(blob) > limit):
        return None
    try:
        return base64.b64decode(blob, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):  # UnicodeDecodeError is a ValueError
        return None


def decode_block_bytes(block: dict[str, Any]) -> bytes:
    """The binary payload of an image/audio block or a blob resource."""
    if block.get("type") == "resource":
        return base64.b64decode(block["resource"]["blob"])
    return base64.b64decode(block["data"])


def content_problem(item: Any) -> str | None:
    """What is wrong with one ``resources/read`` content (TextResourceContents or
    BlobResourceContents), or None. The blob's base64 is not checked here (it may be big)."""
    if not isinstance(item, dict):
        return f"a content item must be an object, got {type(item).__name__}"
    if not isinstance(item.get("uri"), str):
        return "a content item needs a string `uri`"
    if "text" in item and not isinstance(item["text"], str):
        return "`text` must be a string"
    if "blob" in item and not isinstance(item["blob"], str):
        return "`blob` must be a base64 string"
    if "text" not in item and "blob" not in item:
        return "a content item needs `text` or `blob`"
    return None


def read_problems(result: Any, check_base64: bool = True) -> list[str]:
    """The shape problems of a ``resources/read`` result, one sentence each."""
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list):
        got = "missing" if not isinstance(result, dict) or "contents" not in result else type(contents).__name__
        return [f"`contents` must be an array, got {got}"]
    problems = []
    for index, item in enumerate(contents):
        problem = content_problem(item)
        if problem is None and check_base64 and "blob" in item:
            try:
                base64.b64decode(item["blob"], validate=True)
            except (binascii.Error, ValueError):
                problem = "`blob` is not valid base64"
        if problem is not None:
            problems.append(f"contents[{index}]: {problem}")
    return problems
