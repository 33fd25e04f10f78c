"""Templates for the raw frame screen: the common frames, ready to edit.

Requests get a fresh ``"raw-N"`` id (``raw.fresh_id``). In the 2026-07-28 era a request
carries its own ``_meta`` (version, capabilities, client info), which the session adds to
its own requests: ``meta`` is that object, added to the template's params, so a frame
sent by hand is what the session itself would send.
"""

from __future__ import annotations

import json
from typing import Any

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
#: Gone from 2026-07-28 (sent anyway, if you pick them): what the template's note says.
REMOVED_IN_MODERN = {
    "ping": "ping was removed in 2026-07-28: a modern server answers -32601",
    "logging/setLevel": "logging/setLevel was removed in 2026-07-28 (the level goes in each request's _meta): "
    "a modern server answers -32601",
}
#: A result skeleton per server request method, for a response sent by hand.
RESULT_SKELETONS: dict[str, dict[str, Any]] = {
    "elicitation/create": {"action": "accept", "content": {}},
    "sampling/createMessage": {
        "role": "assistant",
        "content": {"type": "text", "text": ""},
        "model": "typed by hand",
        "stopReason": "endTurn",
    },
    "roots/list": {"roots": []},
    "ping": {},
}
#: Text that is not JSON, on purpose: an object cut short.
INVALID_JSON = '{"jsonrpc": "2.0", "id": "raw-invalid", "method": "ping"'


def dump(message: Any) -> str:
    return json.dumps(message, indent=2, ensure_ascii=False)


def request(msg_id: Any, method: str, params: dict[str, Any] | None = None, meta: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if meta:
        params = dict(params or {})
        params["_meta"] = {**meta, **(params.get("_meta") or {})}
    if params is not None:
        message["params"] = params
    return dump(message)


def notification(method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return dump(message)


def cancelled(request_id: Any) -> str:
    return notification("notifications/cancelled", {"requestId": request_id, "reason": "cancelled by hand"})


def response(msg_id: Any, method: str) -> str:
    return dump({"jsonrpc": "2.0", "id": msg_id, "result": RESULT_SKELETONS.get(method, {})})


def batch(first_id: Any, second_id: Any, meta: dict[str, Any] | None = None) -> str:
    return dump(
        [json.loads(request(first_id, "ping", meta=meta)), json.loads(request(second_id, "tools/list", meta=meta))]
    )
