"""The HTTP proxy's exchanges on the live feed, so a viewer's HTTP view shows them as for a direct connection.

``http.HttpProxy`` says what happens to each exchange as a record (:func:`begin`, :func:`response`,
:func:`event`, :func:`body`, :func:`finish`); the recorder thread puts it on the feed in order with
the frames (``recorder.FrameRecorder.http``), and the viewer applies it to its store's ``HttpLog``
(:func:`apply`). The frames an exchange carried name it in ``meta["exchange"]``, as in the
recording; :func:`link_entry` links them (the request's body first, with its JSON-RPC method).

A record: ``{"type": "http", "op": OP, "exchange": N, "at": WALL_CLOCK, ...}`` with, by op:
``begin``: ``method``, ``url``, ``headers`` (``[[name, value], ...]``), ``size``; ``response``:
``status``, ``reason``, ``headers``; ``event``: ``event``, ``id``, ``size``, ``retry``; ``body``:
``size``; ``finish``: ``error``. URL and headers are masked by the proxy before they leave it.

The viewer reads them like a file from outside: every field's type is checked (:func:`parse`:
ValueError, the line is skipped), and an op about an exchange it never saw begin (it attached
after the proxy's ring dropped that) is ignored.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..base.jsonrpc import Kind
from ..base.masking import mask_headers, mask_url
from ..traffic.entry import Direction, TrafficEntry
from ..traffic.http_log import HttpLog

TYPE = "http"
OPS = frozenset({"begin", "response", "event", "body", "finish"})
MAX_HEADERS = 200
MAX_TEXT = 8192  # characters of a URL, header, reason or error kept
NOTES = {"GET": "stream", "DELETE": "session end"}  # what an exchange without a JSON-RPC body was for


def _record(op: str, exchange: int, **fields: Any) -> dict[str, Any]:
    return {"type": TYPE, "op": op, "exchange": exchange, "at": time.time(), **fields}


def begin(exchange: int, method: str, url: str, headers: list[tuple[str, str]], size: int) -> dict[str, Any]:
    return _record("begin", exchange, method=method, url=mask_url(url), headers=mask_headers(headers), size=size)


def response(exchange: int, status: int, reason: str, headers: list[tuple[str, str]]) -> dict[str, Any]:
    return _record("response", exchange, status=status, reason=reason, headers=mask_headers(headers))


def event(exchange: int, name: str, event_id: str | None, size: int, retry: int | None) -> dict[str, Any]:
    return _record("event", exchange, event=name, id=event_id, size=size, retry=retry)


def body(exchange: int, size: int) -> dict[str, Any]:
    return _record("body", exchange, size=size)


def finish(exchange: int, error: str | None = None) -> dict[str, Any]:
    return _record("finish", exchange, error=error)


@dataclass(slots=True)
class HttpOp:
    """One checked record of the feed (see the module's docstring)."""

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


def parse(record: dict[str, Any]) -> HttpOp:
    """A feed line of type ``http``, checked; ValueError (one line) if it is not one."""
    op = record.get("op")
    if op not in OPS:
        raise ValueError(f"http op {op!r} is not known")
    exchange = _int(record.get("exchange"), "exchange")
    at = record.get("at")
    if not isinstance(at, (int, float)) or isinstance(at, bool):
        raise ValueError("http 'at' is not a time")
    get = record.get
    fields: dict[str, Any]
    if op == "begin":
        fields = {
            "method": _text(get("method"), "method"),
            "url": _text(get("url"), "url"),
            "headers": _headers(get("headers")),
            "size": _int(get("size"), "size"),
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


def apply(log: HttpLog, op: HttpOp) -> None:
    """Play ``op`` into ``log`` (the exchange keeps the proxy's id and times)."""
    fields = op.fields
    if op.op == "begin":
        if log.get(op.exchange) is None:
            log.begin(
                fields["method"],
                fields["url"],
                fields["headers"],
                request_size=fields["size"],
                note=NOTES.get(fields["method"]),
                exchange_id=op.exchange,
                at=op.at,
            )
        return
    exchange = log.get(op.exchange)
    if exchange is None:
        return  # begun before this viewer's window
    if op.op == "response":
        log.response(exchange, fields["status"], fields["reason"], fields["headers"], at=op.at)
    elif op.op == "event":
        log.event(exchange, fields["event"], fields["id"], fields["size"], fields["retry"], at=op.at)
    elif op.op == "body":
        log.body(exchange, fields["size"])
    elif exchange.state == "open":
        log.finish(exchange, fields["error"], at=op.at)


def link_entry(log: HttpLog, entry: TrafficEntry) -> None:
    """An entry read from the feed that an exchange carried: linked to it (a proxy's note is not a frame)."""
    meta = entry.meta
    exchange_id = meta.get("exchange") if isinstance(meta, dict) else None
    if type(exchange_id) is not int or entry.direction is Direction.LOCAL or entry.kind is Kind.STDERR:
        return
    sent = entry.direction is Direction.OUT
    log.link(exchange_id, entry.seq, sent=sent, rpc_method=entry.method, rpc_id=entry.msg_id if entry.has_id else None)
