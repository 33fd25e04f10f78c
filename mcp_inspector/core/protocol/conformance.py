"""Check a server's frames against the MCP schema of the negotiated version.

Uses the ``mcp-types`` per-version validators. It runs on demand (the frame
detail view, the CLI's ``--check``), never on the ingest path: typed
validation costs tens of microseconds a frame, and ``mcp_types`` takes ~0.3 s
to import, so it is imported lazily here.
"""

from __future__ import annotations

from typing import Any

from ..traffic.entry import TrafficEntry
from ..traffic.store import TrafficStore
from .jsonrpc import Kind, parse_json
from .versions import LATEST_LEGACY

MAX_ERRORS = 5


def check_entry(entry: TrafficEntry, version: str | None, store: TrafficStore | None = None) -> list[str]:
    """Problems with one frame from the server, judged by protocol ``version``.

    Responses need the request they answer (found through ``store``) to know
    which result type to expect. Returns an empty list when the frame conforms
    or when there is nothing to check (frames we sent, stderr, events).
    """
    if entry.direction.value != "in" or entry.kind not in (Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE):
        return []
    try:
        message, _ = parse_json(entry.raw)
    except ValueError:
        return []
    if not isinstance(message, dict):
        return []
    version = version or LATEST_LEGACY
    from mcp_types import methods

    try:
        if entry.kind is Kind.NOTIFICATION:
            methods.parse_server_notification(entry.method or "", version, message.get("params"))
        elif entry.kind is Kind.REQUEST:
            methods.parse_server_request(entry.method or "", version, message.get("params"))
        else:
            request = store.get(entry.reply_to) if store is not None and entry.reply_to is not None else None
            if request is None or request.method is None:
                return []
            methods.validate_server_result(request.method, version, message.get("result") or {})
    except KeyError:
        method = entry.method if entry.kind is not Kind.RESPONSE else "this result"
        if entry.kind is Kind.RESPONSE:
            return []  # a result for a method the schema does not know (a custom request we sent)
        return [f"{method} is not a server {entry.kind.value} defined by MCP {version}"]
    except ValueError as exc:
        errors = getattr(exc, "errors", None)
        if callable(errors):
            return _format_errors(errors())
        return [str(exc)]
    return []


def check_result(method: str, result: dict[str, Any], version: str | None) -> list[str]:
    """Problems with a result of ``method`` (e.g. ``tools/call``)."""
    from mcp_types import methods

    try:
        methods.validate_server_result(method, version or LATEST_LEGACY, result)
    except KeyError:
        return []
    except ValueError as exc:
        errors = getattr(exc, "errors", None)
        return _format_errors(errors()) if callable(errors) else [str(exc)]
    return []


def _format_errors(errors: list[dict[str, Any]]) -> list[str]:
    lines = []
    for error in errors[:MAX_ERRORS]:
        location = ".".join(str(part) for part in error.get("loc", ()) if part not in ("params",))
        lines.append(f"{location or '(root)'}: {error.get('msg', 'invalid')}")
    if len(errors) > MAX_ERRORS:
        lines.append(f"... and {len(errors) - MAX_ERRORS} more")
    return lines
