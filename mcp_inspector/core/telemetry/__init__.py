"""Tracing seam: OpenTelemetry spans and metrics for MCP traffic, when asked for.

Nothing here imports OpenTelemetry. ``configure(url)`` (the CLI calls it once, for ``--otlp URL`` or
``OTEL_EXPORTER_OTLP_ENDPOINT``) loads ``otel.py`` (the ``mcp-inspector[otel]`` extra) and makes it
the process's ``active()`` telemetry; every ``RpcConnection`` made afterwards reads it once. Off (the
default), ``active()`` is None and a connection's only cost per frame is one ``is not None`` test.

The conventions followed are OpenTelemetry's GenAI semantic conventions for MCP
(open-telemetry/semantic-conventions-genai v0.1.0, docs/gen-ai/mcp.md): see otel.py.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the types only: every RpcConnection imports this package, tracing on or not
    from .api import Operation as Operation
    from .api import Peer as Peer
    from .api import Telemetry as Telemetry
    from .relay import RelaySpans

ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT"
TRACES_ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
MISSING_EXTRA = "tracing (--otlp, OTEL_EXPORTER_OTLP_ENDPOINT) needs the otel extra: pip install 'mcp-inspector[otel]'"


class TelemetryUnavailable(Exception):
    """Tracing was asked for but cannot run (the extra is not installed, a bad URL)."""


_active: Telemetry | None = None


def active() -> Telemetry | None:
    """The process's telemetry, or None when tracing is off."""
    return _active


def set_active(telemetry: Telemetry | None) -> None:
    global _active
    _active = telemetry


def requested(url: str | None) -> str | None:
    """The endpoint asked for: ``--otlp URL`` first, then the standard environment variables."""
    if url:
        return url
    return os.environ.get(ENDPOINT_ENV) or os.environ.get(TRACES_ENDPOINT_ENV) or None


def configure(url: str | None, service_name: str = "mcp-inspector", quiet: bool = False) -> Telemetry | None:
    """Turn tracing on if asked (``url`` or the environment); None when not asked.

    ``url`` is the collector's OTLP/HTTP base (``http://127.0.0.1:4318``): spans go to
    ``/v1/traces`` and metrics to ``/v1/metrics`` under it. Raises TelemetryUnavailable with a
    sentence saying what to install when the extra is missing. ``quiet``: export failures are not
    logged (the TUI: its screen is the terminal)."""
    endpoint = requested(url)
    if endpoint is None:
        return None
    if not endpoint.startswith(("http://", "https://")):
        raise TelemetryUnavailable(f"--otlp wants an http:// or https:// URL, got {endpoint!r}")
    try:
        from . import otel
    except ImportError as exc:
        raise TelemetryUnavailable(f"{MISSING_EXTRA} ({exc})") from None
    telemetry = otel.OtelTelemetry(url, service_name, quiet)
    set_active(telemetry)
    return telemetry


def shutdown() -> None:
    """Flush and stop the active telemetry, if any (the CLI calls it on its way out)."""
    telemetry = _active
    if telemetry is not None:
        set_active(None)
        telemetry.shutdown()


def peer_of(transport: object, protocol_version: str | None) -> Peer:
    """network.transport, server.address/port and the HTTP session id of a transport."""
    from urllib.parse import urlsplit

    from .api import Peer

    url = getattr(transport, "url", None)
    session_id = getattr(transport, "session_id", None)
    if not isinstance(url, str):
        return Peer("pipe", protocol_version=protocol_version)
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = None
    return Peer(
        "tcp",
        parts.hostname,
        port,
        session_id if isinstance(session_id, str) else None,
        protocol_version,
    )


def with_trace_context(params: dict[str, Any] | None, operation: Operation) -> dict[str, Any]:
    """``params`` with the span's W3C context in ``_meta`` (SEP-414: unprefixed ``traceparent`` and
    ``tracestate``), a copy: the caller's dict is not changed."""
    params = dict(params or {})
    meta = dict(params.get("_meta") or {})
    meta["traceparent"] = operation.traceparent
    if operation.tracestate:
        meta["tracestate"] = operation.tracestate
    params["_meta"] = meta
    return params


def incoming(telemetry: Telemetry, method: str, params: Any, msg_id: Any, peer: Peer) -> Operation:
    """A SERVER span for a request (``msg_id`` set) or notification the server sent us, parented on
    the ``traceparent`` in its ``params._meta`` when it has one."""
    params = params if isinstance(params, dict) else None
    meta = params.get("_meta") if params is not None else None
    return telemetry.start(method, params, msg_id, peer, parent=meta if isinstance(meta, dict) else None, incoming=True)


def answered(operation: Operation, reply: dict[str, Any] | None) -> None:
    """End an incoming request's span with our reply (None: the server cancelled it, no reply)."""
    if reply is None:
        operation.finish("cancelled", "the server cancelled its request")
        return
    error = reply.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        code = code if type(code) is int else None
        text = error.get("message")
        operation.finish(str(code) if code is not None else "error", text if isinstance(text, str) else None, code)
    else:
        operation.finish()


def relay_spans(url: str | None) -> RelaySpans | None:
    """Spans for a proxy's forwarded frames (relay.py) if tracing is on: ``url`` is the upstream
    (HTTP proxy), None for a stdio server. None when tracing is off."""
    telemetry = _active
    if telemetry is None:
        return None
    from urllib.parse import urlsplit

    from .api import Peer
    from .relay import RelaySpans

    if url is None:
        return RelaySpans(telemetry, Peer("pipe"))
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = None
    return RelaySpans(telemetry, Peer("tcp", parts.hostname, port))
