"""The types of the telemetry seam (no OpenTelemetry here): what a connection tells a span about
its peer, a span in progress, the telemetry itself; and reading a W3C ``traceparent``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(slots=True)
class Peer:
    """What a span says about the connection (filled in by the connection when a span starts)."""

    transport: str  # "pipe" (stdio) or "tcp" (HTTP), network.transport
    address: str | None = None  # server.address (HTTP)
    port: int | None = None  # server.port
    session_id: str | None = None  # mcp.session.id (the HTTP session, when there is one)
    protocol_version: str | None = None  # mcp.protocol.version, once negotiated


class Operation(Protocol):
    """One span in progress: a request until its answer, or a notification (ended at once)."""

    #: The W3C ``traceparent`` / ``tracestate`` of this span, to put in the frame's ``params._meta``.
    traceparent: str
    tracestate: str | None

    def finish(self, error_type: str | None = None, message: str | None = None, code: int | None = None) -> None:
        """End the span (idempotent): ``error_type`` set when it failed (a JSON-RPC code as text,
        ``timeout``, ``cancelled``, ``tool_error``...), ``code`` the JSON-RPC error code if any."""


class Telemetry(Protocol):
    """What the connection (and the proxy) call; otel.py is the one implementation."""

    def start(
        self,
        method: str,
        params: dict[str, Any] | None,
        msg_id: Any,
        peer: Peer,
        parent: dict[str, Any] | None = None,
        incoming: bool = False,
    ) -> Operation:
        """Start a CLIENT span for a request (``msg_id`` set) or notification (``msg_id`` None).
        ``parent``: a ``_meta`` carrying a ``traceparent`` (a proxy passes the host's frame's) to
        parent the span on; otherwise the span starts a trace of its own. ``incoming``: the peer
        sent it (a server's request or notification to us): a SERVER span, its duration in
        ``mcp.server.operation.duration``."""

    def session_ended(self, seconds: float, peer: Peer, error_type: str | None = None) -> None:
        """Record ``mcp.client.session.duration``."""

    def shutdown(self) -> None:
        """Flush what is buffered to the collector (bounded) and stop."""


def parse_traceparent(value: Any) -> tuple[str, str] | None:
    """(trace id, span id) of a W3C ``traceparent`` (``00-<32 hex>-<16 hex>-<2 hex>``), else None."""
    if not isinstance(value, str):
        return None
    parts = value.strip().split("-")
    if len(parts) < 4 or len(parts[1]) != 32 or len(parts[2]) != 16:
        return None
    trace_id, span_id = parts[1].lower(), parts[2].lower()
    try:
        int(trace_id, 16), int(span_id, 16)
    except ValueError:
        return None
    if trace_id == "0" * 32 or span_id == "0" * 16:
        return None
    return trace_id, span_id


def frame_trace(raw: bytes) -> tuple[str, str] | None:
    """(trace id, span id) of the ``traceparent`` in a frame's ``params._meta`` (SEP-414), if it
    has a valid one: the inspector's own requests while tracing is on, or a host's through the
    proxy. Frames without the word are not parsed."""
    if b"traceparent" not in raw:
        return None
    try:
        message = json.loads(raw)
    except ValueError:
        return None
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return parse_traceparent(meta.get("traceparent")) if isinstance(meta, dict) else None
