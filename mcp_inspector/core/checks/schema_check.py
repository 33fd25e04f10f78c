"""The deferred checks: each server frame against the negotiated revision's schema (``mcp-types``'
validators; folded in from an old protocol module that nothing called), content blocks
(base64, mimeType, types) and the 2026-07-28 result rules. ``mcp_types`` takes ~0.7 s to import,
so it is imported on the first frame judged (``LiveChecker.drain``), never on the ingest path.
"""

from __future__ import annotations

import binascii
from typing import Any

from ..base.jsonrpc import Kind, parse_json
from ..protocol.versions import LATEST_LEGACY
from ..traffic.entry import TrafficEntry
from .catalog import finding
from .frames import Emit
from .model import Severity, cut

MAX_ERRORS = 5
CONTENT_METHODS = {"tools/call": "content", "prompts/get": "messages", "resources/read": "contents"}
# content block types by revision (2024-11-05: text, image, resource; +audio 2025-03-26; +resource_link 2025-06-18)
BLOCK_TYPES = {
    "2024-11-05": {"text", "image", "resource"},
    "2025-03-26": {"text", "image", "audio", "resource"},
}
LATEST_BLOCK_TYPES = {"text", "image", "audio", "resource", "resource_link"}
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
KNOWN_RESULT_TYPES = {"complete", "input_required", "task"}
# 2025-11-25 tasks: defined by the spec, not modelled by mcp_types (no schema to judge them by)
TASK_NOTIFICATIONS = {"notifications/tasks/status"}


def preload() -> None:
    """Import the schema models (``mcp_types``: 0.7-1.7 s) and jsonschema in a daemon thread, so the
    first ``LiveChecker.drain`` (or a check's probes) does not wait for them on the event loop.
    Call it when a session starts; calling it again costs nothing."""
    import threading

    def load() -> None:
        try:
            import jsonschema  # noqa: F401 - imported ahead, off the event loop
            import mcp_types.methods  # noqa: F401 - imported ahead, off the event loop
        except Exception:  # noqa: BLE001 - drain imports them again and reports what failed
            pass

    threading.Thread(target=load, name="checks-preload", daemon=True).start()


def _message(entry: TrafficEntry) -> dict[str, Any] | None:
    try:
        message = parse_json(entry.raw)[0]
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def problems(method: str, kind: Kind, version: str | None, message: dict[str, Any]) -> list[str] | None:
    """What is wrong with a server frame by the schema of ``version``: a list (empty: conforms),
    or None when the schema does not know the method (a custom one)."""
    from mcp_types import methods

    version = version or LATEST_LEGACY
    try:
        if kind is Kind.NOTIFICATION:
            methods.parse_server_notification(method, version, message.get("params"))
        elif kind is Kind.REQUEST:
            methods.parse_server_request(method, version, message.get("params"))
        else:
            result = message.get("result")
            methods.validate_server_result(method, version, result if isinstance(result, dict) else {})
    except KeyError:
        return None
    except ValueError as exc:
        errors = getattr(exc, "errors", None)
        return format_errors(errors()) if callable(errors) else [str(exc)]
    return []


def _union_member(loc: tuple[Any, ...]) -> tuple | None:
    """The location up to a union member's name ("content.0.ImageContent"), if it has one."""
    for index, part in enumerate(loc):
        if isinstance(part, str) and part[:1].isupper():
            return tuple(loc[: index + 1])
    return None


def format_errors(errors: list[dict[str, Any]]) -> list[str]:
    """pydantic's errors, one line each; for a union (a content block), only the member whose
    ``type`` matched (the others' "Input should be 'text'" say nothing about the frame)."""
    mismatched = {
        _union_member(tuple(error.get("loc", ())))
        for error in errors
        if tuple(error.get("loc", ()))[-1:] == ("type",) and str(error.get("msg", "")).startswith("Input should be")
    }
    mismatched.discard(None)
    kept = [error for error in errors if _union_member(tuple(error.get("loc", ()))) not in mismatched]
    errors = kept or errors
    lines = []
    for error in errors[:MAX_ERRORS]:
        location = ".".join(str(part) for part in error.get("loc", ()) if part not in ("params",))
        lines.append(f"{location or '(root)'}: {error.get('msg', 'invalid')}")
    if len(errors) > MAX_ERRORS:
        lines.append(f"... and {len(errors) - MAX_ERRORS} more")
    return lines


class SchemaCheck:
    """``schema-violation``: results, notifications and requests of the server, by the revision in
    force when the frame came. A notification or request the revision does not define is info."""

    def check(self, entry: TrafficEntry, method: str | None, version: str | None, era: str | None, emit: Emit) -> None:
        kind = entry.kind
        if kind is Kind.RESPONSE:
            if method is None:
                return  # a reply to no request (response-id says so) or to a frame sent by hand
        else:
            method = entry.method
        if method is None:
            return
        message = _message(entry)
        if message is None:
            return
        result = message.get("result")
        if kind is Kind.RESPONSE and isinstance(result, dict) and isinstance(result.get("task"), dict):
            return  # a CreateTaskResult (a task-augmented request): mcp_types has no model for it
        if method in TASK_NOTIFICATIONS and (version or LATEST_LEGACY) >= "2025-11-25":
            return
        found = problems(method, kind, version, message)
        where = f"frame #{entry.seq}"
        if found is None:
            if kind is not Kind.RESPONSE:
                emit(
                    finding(
                        "schema-violation",
                        f"{method} is not a server {kind.value} defined by MCP {version or LATEST_LEGACY}",
                        severity=Severity.INFO,
                        where=where,
                        seq=entry.seq,
                        evidence=cut(entry.text, 200),
                        hint="Custom notifications are ignored by clients; use notifications/message for logs.",
                    )
                )
            return
        if found:
            what = f"the {method} result" if kind is Kind.RESPONSE else f"{method} ({kind.value})"
            emit(
                finding(
                    "schema-violation",
                    f"{what} fails the {version or LATEST_LEGACY} schema: {'; '.join(found)}",
                    where=where,
                    seq=entry.seq,
                    evidence=cut(entry.text, 300),
                )
            )


def _base64_ok(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        binascii.a2b_base64(value, strict_mode=True)
    except (binascii.Error, ValueError):
        return False
    return True


def block_problems(block: Any, types: set[str]) -> list[str]:
    """What breaks the schema's promises in one content block (or resource contents item)."""
    if not isinstance(block, dict):
        return ["a content block that is not an object"]
    kind = block.get("type")
    found = []
    if kind not in types:
        found.append(f"unknown content type {kind!r} (this revision has {', '.join(sorted(types))})")
    elif kind in ("image", "audio"):
        if not isinstance(block.get("mimeType"), str) or not block.get("mimeType"):
            found.append(f"an {kind} block without mimeType")
        elif not block["mimeType"].startswith(f"{kind}/"):
            found.append(f"an {kind} block with mimeType {block['mimeType']!r}")
        if not _base64_ok(block.get("data")):
            found.append(f"an {kind} block whose data is not base64")
    elif kind == "resource":
        resource = block.get("resource")
        if isinstance(resource, dict):
            found.extend(contents_problems(resource))
    return found


def contents_problems(item: Any) -> list[str]:
    """A resources/read contents item (or an embedded resource): a blob must be base64."""
    if not isinstance(item, dict):
        return []
    if "blob" in item and not _base64_ok(item.get("blob")):
        return [f"the blob of {cut(str(item.get('uri')), 80)} is not base64"]
    return []


class ContentCheck:
    """``content``: the blocks of tools/call results, prompts/get messages and resources/read contents."""

    def check(self, entry: TrafficEntry, method: str | None, version: str | None, era: str | None, emit: Emit) -> None:
        if entry.kind is not Kind.RESPONSE or method not in CONTENT_METHODS:
            return
        message = _message(entry)
        result = message.get("result") if message is not None else None
        if not isinstance(result, dict):
            return
        types = BLOCK_TYPES.get(version or "", LATEST_BLOCK_TYPES)
        found: list[str] = []
        items = result.get(CONTENT_METHODS[method])
        if not isinstance(items, list):
            return  # the schema check says so
        for index, item in enumerate(items[:1000]):
            if method == "tools/call":
                found.extend(f"content[{index}]: {text}" for text in block_problems(item, types))
            elif method == "prompts/get":
                block = item.get("content") if isinstance(item, dict) else None
                found.extend(f"messages[{index}].content: {text}" for text in block_problems(block, types))
            else:
                found.extend(f"contents[{index}]: {text}" for text in contents_problems(item))
        if found:
            more = f" (and {len(found) - MAX_ERRORS} more)" if len(found) > MAX_ERRORS else ""
            emit(
                finding(
                    "content",
                    f"the {method} result: {'; '.join(found[:MAX_ERRORS])}{more}",
                    where=f"frame #{entry.seq}",
                    seq=entry.seq,
                    evidence=cut(entry.text, 300),
                )
            )


class ModernResultCheck:
    """2026-07-28: ``result-type`` (a known resultType on every result) and ``server-info-meta``
    (serverInfo in _meta; said once per session)."""

    def __init__(self) -> None:
        self.said_server_info = False

    def check(self, entry: TrafficEntry, method: str | None, version: str | None, era: str | None, emit: Emit) -> None:
        if era != "modern" or entry.kind is not Kind.RESPONSE or method is None:
            return
        message = _message(entry)
        result = message.get("result") if message is not None else None
        if not isinstance(result, dict):
            return
        where = f"frame #{entry.seq}"
        if method == "server/discover":
            self._discover(entry, result, emit)
        kind = result.get("resultType")
        if kind is None:
            emit(
                finding(
                    "result-type",
                    f'the {method} result has no resultType (required in 2026-07-28; read as "complete")',
                    severity=Severity.WARNING,
                    where=where,
                    seq=entry.seq,
                    evidence=cut(entry.text, 200),
                )
            )
        elif kind not in KNOWN_RESULT_TYPES:
            emit(
                finding(
                    "result-type",
                    f"the {method} result has resultType {cut(repr(kind), 60)}, which 2026-07-28 does not define",
                    where=where,
                    seq=entry.seq,
                    evidence=cut(entry.text, 200),
                )
            )
        meta = result.get("_meta")
        if not self.said_server_info and not (isinstance(meta, dict) and isinstance(meta.get(SERVER_INFO_KEY), dict)):
            self.said_server_info = True
            emit(
                finding(
                    "server-info-meta",
                    f"the {method} result has no _meta serverInfo (said once)",
                    where=where,
                    seq=entry.seq,
                    evidence=cut(entry.text, 200),
                )
            )

    def _discover(self, entry: TrafficEntry, result: dict[str, Any], emit: Emit) -> None:
        """``discover-result``: supportedVersions (a non-empty list of strings) and capabilities."""
        versions = result.get("supportedVersions")
        problems = []
        if not isinstance(versions, list) or not versions or not all(isinstance(v, str) for v in versions):
            problems.append("no supportedVersions list")
        if not isinstance(result.get("capabilities"), dict):
            problems.append("no capabilities object")
        if problems:
            emit(
                finding(
                    "discover-result",
                    f"the server/discover result has {' and '.join(problems)}",
                    where=f"frame #{entry.seq}",
                    seq=entry.seq,
                    evidence=cut(entry.text, 200),
                )
            )
