"""JSON-RPC 2.0 envelopes: classify raw frames, build outgoing ones.

Classification is done from the raw bytes and our own rules, never by a model
that would silently reinterpret a frame (``"id": true`` is invalid, not a
notification). Invalid frames are reported with the reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .json_text import SAFE_INTEGER, JsonTextError, parse_frame

JSONRPC_VERSION = "2.0"

# Standard and MCP error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_TIMEOUT = -32001
RESOURCE_NOT_FOUND = -32002

ERROR_NAMES = {
    PARSE_ERROR: "Parse error",
    INVALID_REQUEST: "Invalid request",
    METHOD_NOT_FOUND: "Method not found",
    INVALID_PARAMS: "Invalid params",
    INTERNAL_ERROR: "Internal error",
    REQUEST_TIMEOUT: "Request timeout",
    RESOURCE_NOT_FOUND: "Resource not found",
    -32020: "HeaderMismatch",  # 2026-07-28: HTTP headers do not match the body
    -32021: "MissingRequiredClientCapability",  # 2026-07-28
    -32022: "UnsupportedProtocolVersion",  # 2026-07-28
    -32042: "URL elicitation required",
    -32800: "Request cancelled",
}

_ENVELOPE_KEYS = {
    "request": {"jsonrpc", "id", "method", "params"},
    "notification": {"jsonrpc", "method", "params"},
    "response": {"jsonrpc", "id", "result"},
    "error": {"jsonrpc", "id", "error"},
}


class Kind(StrEnum):
    """What a timeline entry is. The first six come from frames."""

    REQUEST = "request"
    NOTIFICATION = "notification"
    RESPONSE = "response"
    ERROR = "error"
    BATCH = "batch"
    INVALID = "invalid"
    STDERR = "stderr"
    EVENT = "event"


@dataclass(slots=True)
class Classified:
    """The outcome of classifying one frame."""

    kind: Kind
    message: Any = None
    method: str | None = None
    id: Any = None
    has_id: bool = False
    problem: str | None = None  # why it is invalid, or a non-fatal warning
    error_code: int | None = None


def valid_id(value: Any) -> bool:
    """MCP ids are strings or integers (never null, bool or float)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def parse_json(raw: bytes) -> tuple[Any, str | None]:
    """Parse a frame; what is off but readable (invalid UTF-8, another encoding, NaN,
    duplicate keys...) comes back as a note rather than an error.

    Raises ValueError (:class:`JsonTextError`) for a frame that cannot be parsed.
    """
    message, notes = parse_frame(raw)
    return message, "; ".join(notes) if notes else None


def classify(raw: bytes) -> Classified:
    """Classify one frame from its raw bytes. Never raises, whatever the bytes."""
    try:
        message, note = parse_json(raw)
    except JsonTextError as exc:
        return Classified(Kind.INVALID, problem=str(exc))
    if isinstance(message, list):
        if not message:
            return Classified(Kind.INVALID, message, problem="empty batch")
        return Classified(Kind.BATCH, message, problem=note)
    result = classify_message(message)
    if type(result.id) is int and not -SAFE_INTEGER <= result.id <= SAFE_INTEGER:
        beyond = f"id {result.id} is beyond ±2^53 (JavaScript clients lose precision)"
        note = beyond if note is None else f"{note}; {beyond}"
    if note:
        result.problem = note if result.problem is None else f"{note}; {result.problem}"
    return result


def classify_message(message: Any) -> Classified:
    """Classify an already parsed message (also used for batch members)."""
    if not isinstance(message, dict):
        return Classified(Kind.INVALID, message, problem=f"not a JSON object ({type(message).__name__})")
    version = message.get("jsonrpc")
    has_id = "id" in message
    msg_id = message.get("id")
    method = message.get("method")
    if version != JSONRPC_VERSION:
        return _invalid(message, f'jsonrpc must be "2.0", got {json.dumps(version)}', method, msg_id, has_id)
    if "method" in message:
        if not isinstance(method, str):
            return _invalid(message, "method must be a string", None, msg_id, has_id)
        if "result" in message or "error" in message:
            return _invalid(message, "a message with a method cannot carry result or error", method, msg_id, has_id)
        params = message.get("params")
        if "params" in message and not isinstance(params, (dict, list)):
            return _invalid(message, "params must be an object", method, msg_id, has_id)
        if has_id:
            if not valid_id(msg_id):
                return _invalid(
                    message, f"id must be a string or an integer, got {json.dumps(msg_id)}", method, msg_id, has_id
                )
            return Classified(Kind.REQUEST, message, method, msg_id, True, _extra_keys(message, "request"))
        return Classified(Kind.NOTIFICATION, message, method, None, False, _extra_keys(message, "notification"))
    if "result" in message and "error" in message:
        return _invalid(message, "a response cannot carry both result and error", None, msg_id, has_id)
    if "result" in message:
        if not has_id or not valid_id(msg_id):
            return _invalid(
                message, f"response id must be a string or an integer, got {json.dumps(msg_id)}", None, msg_id, has_id
            )
        return Classified(Kind.RESPONSE, message, None, msg_id, True, _extra_keys(message, "response"))
    if "error" in message:
        error = message["error"]
        if not has_id or not (msg_id is None or valid_id(msg_id)):
            return _invalid(
                message,
                f"error id must be a string, an integer or null, got {json.dumps(msg_id)}",
                None,
                msg_id,
                has_id,
            )
        if not isinstance(error, dict) or not isinstance(error.get("code"), int) or isinstance(error.get("code"), bool):
            return _invalid(message, "error must be an object with an integer code", None, msg_id, has_id)
        if not isinstance(error.get("message"), str):
            return _invalid(message, "error.message must be a string", None, msg_id, has_id)
        return Classified(Kind.ERROR, message, None, msg_id, True, _extra_keys(message, "error"), error["code"])
    return _invalid(message, "neither a request, a notification nor a response", None, msg_id, has_id)


def _invalid(message: Any, problem: str, method: Any, msg_id: Any, has_id: bool) -> Classified:
    return Classified(
        Kind.INVALID,
        message,
        method if isinstance(method, str) else None,
        msg_id,
        has_id,
        problem,
    )


def _extra_keys(message: dict[str, Any], shape: str) -> str | None:
    allowed = _ENVELOPE_KEYS[shape]
    if message.keys() <= allowed:  # the usual case, without building a set
        return None
    extra = message.keys() - allowed
    if not extra:
        return None
    return "unknown envelope fields: " + ", ".join(sorted(extra))


_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode  # built once, not per frame


def dumps(message: Any) -> bytes:
    """Serialise compactly; the transport adds the frame delimiter.

    A string with a lone surrogate (a server may send ``"\\ud800"`` as an id, and we
    echo ids back) cannot be UTF-8: such a message is written with ASCII escapes,
    which is the same JSON value.
    """
    try:
        return _encode(message).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def request(msg_id: Any, method: str, params: dict[str, Any] | None = None) -> dict:
    message: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "id": msg_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: dict[str, Any] | None = None) -> dict:
    message: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "method": method}
    if params is not None:
        message["params"] = params
    return message


def response(msg_id: Any, result: dict[str, Any]) -> dict:
    return {"jsonrpc": JSONRPC_VERSION, "id": msg_id, "result": result}


def error_response(msg_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": JSONRPC_VERSION, "id": msg_id, "error": error}


def id_key(msg_id: Any) -> tuple[bool, Any]:
    """A dict key that keeps 1 and "1" apart (they are different JSON-RPC ids)."""
    return (isinstance(msg_id, str), msg_id)


def raw_member(raw: bytes, key: str) -> str | None:
    """Return the exact text of a top-level member (e.g. ``result``) of a frame.

    Used where output must be the object exactly as received, whitespace and
    number spellings included. Returns None if the frame is not a well-formed
    object or has no such member.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
    try:
        return _find_member(text, key)
    except (ValueError, IndexError):  # malformed or truncated frame
        return None


def _find_member(text: str, key: str) -> str | None:
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if pos >= len(text) or text[pos] != "{":
        return None
    pos = _skip_ws(text, pos + 1)
    while pos < len(text) and text[pos] != "}":
        name, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if text[pos] != ":":
            return None
        pos = _skip_ws(text, pos + 1)
        start = pos
        _, pos = decoder.raw_decode(text, pos)
        if name == key:
            return text[start:pos]
        pos = _skip_ws(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
        elif pos < len(text) and text[pos] != "}":
            return None  # members not separated by a comma
    return None


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


SHALLOW_TOKEN_BUDGET = 1_000_000
_SHALLOW_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[{]+|[\]}]+|[,:]', re.S)


def shallow_members(raw: bytes, keys: tuple[str, ...]) -> dict[str, str]:
    """The text of the top-level members named ``keys`` of a frame that could not be parsed
    (nested too deep, or only its head received), found by scanning strings and runs of
    brackets without parsing any nested value: linear, no recursion, at any depth. A member
    is returned once its value is followed by ``,`` or ``}`` at the top level; a frame whose
    top level is not an object gives nothing, and so does one of more than
    ``SHALLOW_TOKEN_BUDGET`` tokens (strings, bracket runs, commas, colons: any frame under
    ~1 MB fits), so that a hostile frame cannot hold the event loop for seconds."""
    text = raw.decode("utf-8", "replace")
    found: dict[str, str] = {}
    depth = 0
    key: str | None = None
    expect_key = False
    value_start = -1

    def keep(end: int) -> None:
        if key is not None and key in keys and value_start >= 0:
            found[key] = text[value_start:end].strip()

    for count, match in enumerate(_SHALLOW_TOKEN.finditer(text)):
        if count > SHALLOW_TOKEN_BUDGET:
            return {}
        token = match.group()
        first = token[0]
        if first == '"':
            if depth == 1 and expect_key:
                try:
                    name = json.loads(token)
                except ValueError:
                    return found
                key = name if isinstance(name, str) else None
                expect_key = False
        elif first in "{[":
            if depth == 0:
                if token != "{":
                    return found
                expect_key = True
            depth += len(token)
        elif first in "}]":
            if depth - len(token) <= 0:  # the run closes the top-level object
                keep(match.start() + depth - 1)
                return found
            depth -= len(token)
        elif depth == 1:
            if first == ":":
                value_start = match.end()
            else:  # ","
                keep(match.start())
                key, expect_key, value_start = None, True, -1
    return found
