"""HTTP exchanges as records: one line per thing that happened to an exchange, for a session file
and for the HTTP proxy's live feed alike.

A record: ``{"type": "http", "op": OP, "exchange": N, "at": WALL_CLOCK, ...}`` with, by op:
``begin``: ``method``, ``url``, ``headers`` (``[[name, value], ...]``), ``size``, and optionally
``frame`` (the seq of the traffic entry in the request's body), ``rpc_method``, ``rpc_id``, ``note``
and ``resumes`` (the direct client's exchanges; the proxy's frames name their exchange instead);
``response``: ``status``, ``reason``, ``headers``; ``event``: ``event``, ``id``, ``size``, ``retry``;
``body``: ``size``; ``finish``: ``error``. URL and headers are masked before a record is made
(:func:`begin` and :func:`response` mask; ``HttpLog`` records what it masked already).

The writers: the HTTP proxy (``core/proxy/http_feed``, then its recorder thread, to the feed and the
recording) and ``HttpLog.add_recorder`` (the direct client's ``--record``: ``TrafficStore.attach_recorder``).
The readers take them like a file from outside: every field's type is checked (:func:`parse`:
ValueError, the line is skipped and counted), and an op about an exchange never begun (a viewer
attached after the proxy's ring dropped it; a torn file) is ignored.  ``http_log.apply`` plays a record
into an ``HttpLog``, which keeps its own cap: a file of a million begins holds ``cap`` exchanges.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from ..base.masking import mask_headers, mask_url

TYPE = "http"
OPS = frozenset({"begin", "response", "event", "body", "finish"})
MAX_HEADERS = 200
MAX_TEXT = 8192  # characters of a URL, header, reason or error kept
NOTES = {"GET": "stream", "DELETE": "session end"}  # what an exchange without a JSON-RPC body was for


def record(op: str, exchange: int, at: float | None = None, **fields: Any) -> dict[str, Any]:
    """A record of ``op`` (fields as given: already masked)."""
    return {"type": TYPE, "op": op, "exchange": exchange, "at": time.time() if at is None else at, **fields}


def header_list(headers: list[tuple[str, str]]) -> list[list[str]]:
    return [[name, value] for name, value in headers]


def begin(exchange: int, method: str, url: str, headers: list[tuple[str, str]], size: int) -> dict[str, Any]:
    return record(
        "begin", exchange, method=method, url=mask_url(url), headers=header_list(mask_headers(headers)), size=size
    )


def response(exchange: int, status: int, reason: str, headers: list[tuple[str, str]]) -> dict[str, Any]:
    return record("response", exchange, status=status, reason=reason, headers=header_list(mask_headers(headers)))


def event(exchange: int, name: str, event_id: str | None, size: int, retry: int | None) -> dict[str, Any]:
    return record("event", exchange, event=name, id=event_id, size=size, retry=retry)


def body(exchange: int, size: int) -> dict[str, Any]:
    return record("body", exchange, size=size)


def finish(exchange: int, error: str | None = None) -> dict[str, Any]:
    return record("finish", exchange, error=error)


def is_http(value: Any) -> bool:
    return type(value) is dict and value.get("type") == TYPE


@dataclass(slots=True)
class HttpOp:
    """One checked record (see the module's docstring)."""

    op: str
    exchange: int
    at: float
    fields: dict[str, Any]


def _int(value: Any, name: str, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if type(value) is not int or not 0 <= value < 1 << 53:
        raise ValueError(f"http {name!r} is not a count")
    return value


def _text(value: Any, name: str, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if type(value) is not str:
        raise ValueError(f"http {name!r} is not a string")
    return value[:MAX_TEXT]


def _headers(value: Any) -> list[tuple[str, str]]:
    if type(value) is not list or len(value) > MAX_HEADERS:
        raise ValueError("http 'headers' is not a list of pairs")
    pairs = []
    for pair in value:
        if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str or type(pair[1]) is not str:
            raise ValueError("http 'headers' is not a list of pairs")
        pairs.append((pair[0][:MAX_TEXT], pair[1][:MAX_TEXT]))
    return pairs


def _rpc_id(value: Any) -> Any:
    if value is None or type(value) is str:
        return value if value is None else value[:MAX_TEXT]
    if type(value) is int or (type(value) is float and math.isfinite(value)):
        return value
    raise ValueError("http 'rpc_id' is not a JSON-RPC id")


def parse(record: Any) -> HttpOp:
    """A line of type ``http``, checked; ValueError (one line) if it is not one."""
    if type(record) is not dict:
        raise ValueError("an http line is not an object")
    op = record.get("op")
    if op not in OPS:
        raise ValueError(f"http op {op!r} is not known")
    exchange = _int(record.get("exchange"), "exchange")
    at = record.get("at")
    if not (type(at) is float and math.isfinite(at)) and not (type(at) is int and abs(at) < 1 << 53):
        raise ValueError("http 'at' is not a time")
    get = record.get
    fields: dict[str, Any]
    if op == "begin":
        fields = {
            "method": _text(get("method"), "method"),
            "url": _text(get("url"), "url"),
            "headers": _headers(get("headers")),
            "size": _int(get("size"), "size"),
            "frame": _int(get("frame"), "frame", optional=True),
            "rpc_method": _text(get("rpc_method"), "rpc_method", optional=True),
            "rpc_id": _rpc_id(get("rpc_id")),
            "note": _text(get("note"), "note", optional=True),
            "resumes": _int(get("resumes"), "resumes", optional=True),
        }
    elif op == "response":
        status = _int(get("status"), "status")
        fields = {"status": status, "reason": _text(get("reason"), "reason"), "headers": _headers(get("headers"))}
    elif op == "event":
        fields = {
            "event": _text(get("event"), "event"),
            "id": _text(get("id"), "id", optional=True),
            "size": _int(get("size"), "size"),
            "retry": _int(get("retry"), "retry", optional=True),
        }
    elif op == "body":
        fields = {"size": _int(get("size"), "size")}
    else:
        fields = {"error": _text(get("error"), "error", optional=True)}
    assert exchange is not None
    return HttpOp(op, exchange, float(at), fields)
