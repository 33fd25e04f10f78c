"""The HTTP level as text: what a status code or a 2026-07-28 typed error means,
and one exchange of the HttpLog as a line or as a detail.

Shared by the HTTP view, its detail screen, the frame detail and the result
view, so none of them imports another for these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from ...core.traffic.http_log import HttpExchange

if TYPE_CHECKING:
    from ...core.protocol.rpc import PendingRequest
from .traffic_text import clean, human_size

#: 2026-07-28 typed errors (sent with HTTP 400 over Streamable HTTP).
TYPED_ERRORS = {
    -32020: (
        "header mismatch",
        "an HTTP header (Mcp-Method, Mcp-Name, Mcp-Param-*, MCP-Protocol-Version) disagrees with the body",
    ),
    -32021: (
        "missing required client capability",
        "the request needs a client capability that was not declared in _meta",
    ),
    -32022: ("unsupported protocol version", "the server does not speak the protocol version in _meta"),
}

#: What an HTTP status means for an MCP client.
STATUS_MEANINGS = {
    200: "OK",
    202: "accepted (a notification or response; no body)",
    204: "no content",
    400: "bad request (a typed error or missing _meta, or an old server refusing the POST)",
    401: "unauthorized: the server wants credentials (-H 'Authorization: Bearer …')",
    403: "forbidden (credentials refused, or the Origin header was rejected)",
    404: "not found: the session expired (with Mcp-Session-Id), an unknown method, or the wrong URL",
    405: "method not allowed (no GET stream or DELETE here; an older server?)",
    406: "not acceptable: the server wants another Accept header",
    409: "conflict",
    413: "request too large",
    415: "unsupported media type (Content-Type)",
    429: "too many requests: rate limited",
    500: "internal server error",
    502: "bad gateway (a proxy could not reach the server)",
    503: "service unavailable",
    504: "gateway timeout",
}

SHORT_TYPES = {"application/json": "json", "text/event-stream": "sse", "text/plain": "text", "text/html": "html"}


def reply_status(pending: PendingRequest | None) -> int | None:
    """The HTTP status of the response that answered a request (None over stdio)."""
    reply = pending.reply if pending is not None else None
    status = reply.meta.get("status") if reply is not None and isinstance(reply.meta, dict) else None
    return status if isinstance(status, int) else None


def status_meaning(status: int | None) -> str:
    if status is None:
        return "no response"
    meaning = STATUS_MEANINGS.get(status)
    if meaning is None:
        meaning = {2: "success", 3: "redirect", 4: "client error", 5: "server error"}.get(status // 100, "unexpected")
    return meaning


def status_style(status: int | None) -> str:
    """A theme variable name for a status: 2xx success, 4xx warning, 5xx error."""
    if status is None:
        return "text-muted"
    if status < 300:
        return "success"
    if status < 400:
        return "accent"
    if status < 500:
        return "warning"
    return "error"


def explain_error(code: int | None, message: str = "", data: Any = None, status: int | None = None) -> str | None:
    """One sentence for a typed error and/or an HTTP status: ``HTTP 400 + -32020: header mismatch: …``.

    None when there is nothing to add (an ordinary JSON-RPC error over stdio)."""
    parts: list[str] = []
    typed = TYPED_ERRORS.get(code) if code is not None else None
    if typed is not None:
        name, why = typed
        line = f"{name}: {clean(message)}" if message else f"{name}: {why}"
        if code == -32022 and isinstance(data, dict):
            supported = data.get("supported")
            if isinstance(supported, list):
                shown = ", ".join(clean(str(v)) for v in supported[:8])
                line += f" (supported: {shown}; requested: {clean(str(data.get('requested')))})"
        elif code == -32021 and isinstance(data, dict) and isinstance(data.get("requiredCapabilities"), dict):
            line += f" (required: {', '.join(clean(str(k)) for k in list(data['requiredCapabilities'])[:8])})"
        parts.append(line)
    elif code == -32601 and status == 404:
        parts.append("method not found: the server does not implement this method")
    if status is not None and (status >= 300 or typed is not None):
        prefix = f"HTTP {status} {status_meaning(status)}" if typed is None else f"HTTP {status}"
        parts.insert(0, prefix + (f" with {code}" if code is not None and typed is not None else ""))
    if not parts:
        return None
    return ": ".join(parts) if len(parts) == 2 and typed is not None else " · ".join(parts)


def short_type(content_type: str | None) -> str:
    if not content_type:
        return ""
    base = content_type.split(";", 1)[0].strip().lower()
    return SHORT_TYPES.get(base, base)


def mcp_headers(exchange: HttpExchange) -> str:
    """``Mcp-Method`` and ``Mcp-Name`` of the request, as ``tools/call echo``."""
    method = exchange.header("mcp-method", response=False)
    name = exchange.header("mcp-name", response=False)
    return " ".join(clean(v) for v in (method, name) if v)


def duration(exchange: HttpExchange) -> str:
    """How long it took (to the end, or to the headers while it is open), in at most 8 characters."""
    ms = exchange.total_ms if exchange.total_ms is not None else exchange.headers_ms
    return "…" if ms is None else compact_ms(ms)


def compact_ms(ms: float) -> str:
    if ms < 100:
        return f"{ms:.1f} ms"
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 600_000:
        return f"{ms / 1000:.1f} s"
    return f"{ms / 60_000:.0f} min"


def what_for(exchange: HttpExchange) -> str:
    """The JSON-RPC method in the body, else what the exchange was for (GET stream, DELETE…)."""
    if exchange.rpc_method:
        return clean(exchange.rpc_method)
    return clean(exchange.note or "")


COLUMNS = (
    ("time", 12),
    ("http", 6),
    ("st", 3),
    ("json-rpc", 20),
    ("Mcp-Method/Name", 24),
    ("type", 5),
    ("took", 8),
    ("size", 7),
    ("sse", 4),
    ("state", 6),
)
#: Below this width the Mcp-Method/Name column goes (Mcp-Name joins the JSON-RPC method) so that 80 columns fit.
NARROW = 110


def columns(width: int) -> tuple[tuple[str, int], ...]:
    if width >= NARROW:
        return COLUMNS
    return tuple((label, size) for label, size in COLUMNS if label != "Mcp-Method/Name")


def header_line(width: int = NARROW) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    for label, size in columns(width):
        text.append(label.ljust(size) + " ")
    return text


def exchange_line(exchange: HttpExchange, time_text: str, styles: dict[str, Any], width: int = NARROW) -> Text:
    """One row of the HTTP view (``styles`` maps column roles to rich styles)."""

    def cell(value: str, size: int) -> str:
        value = value if len(value) <= size else value[: max(1, size - 1)] + "…"
        return value.ljust(size) + " "

    narrow = width < NARROW
    status = "…" if exchange.status is None else str(exchange.status)
    if exchange.status is None and exchange.state == "failed":
        status = "✖"
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(cell(time_text, 12), styles.get("time"))
    text.append(cell(exchange.method, 6), styles.get("method"))
    text.append(cell(status, 3), styles.get(status_style(exchange.status)))
    rpc = what_for(exchange)
    if narrow:
        name = exchange.header("mcp-name", response=False)
        text.append(
            cell(f"{rpc} {clean(name)}" if name else rpc, 20),
            styles.get("rpc") if exchange.rpc_method else styles.get("note"),
        )
    else:
        text.append(cell(rpc, 20), styles.get("rpc") if exchange.rpc_method else styles.get("note"))
        text.append(cell(mcp_headers(exchange), 24), styles.get("mcp"))
    text.append(cell(short_type(exchange.content_type), 5))
    text.append(cell(duration(exchange), 8))
    size = exchange.response_size
    text.append(cell(human_size(size) if size or exchange.state != "open" else "", 7))
    text.append(cell(str(exchange.event_count) if exchange.event_count else "", 4))
    state_style = {"open": "mcp", "failed": "error"}.get(exchange.state)
    text.append(cell(exchange.state, 6), styles.get(state_style) if state_style else None)
    extra = []
    if exchange.resumes is not None:
        extra.append(f"resumes #{exchange.resumes}")
    if exchange.error:
        extra.append(clean(exchange.error[:160]))
    elif exchange.rpc_method and exchange.note:
        extra.append(clean(exchange.note))
    if extra:
        text.append(" · ".join(extra), styles.get("error") if exchange.error else styles.get("note"))
    return text
