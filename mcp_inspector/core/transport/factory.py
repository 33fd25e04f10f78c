"""One place that turns a ``ServerSpec`` into a transport: stdio for a command,
HTTP (Streamable HTTP, with fallback to the 2024-11-05 HTTP+SSE transport) for a URL."""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING, Any

from ..protocol.framing import MAX_LINE_BYTES
from .base import Transport, TransportError

if TYPE_CHECKING:
    from ..config.servers import ServerSpec
    from ..traffic.http_log import HttpLog

#: ``ServerSpec.transport`` values for a URL, and the HttpTransport mode each means.
URL_MODES = {
    "http": "auto",  # Streamable HTTP, falling back to HTTP+SSE when the server is that old
    "auto": "auto",
    "streamable-http": "streamable-http",
    "streamable_http": "streamable-http",
    "streamableHttp": "streamable-http",
    "sse": "sse",
}


def make_transport(
    spec: "ServerSpec",
    *,
    max_frame_bytes: int = MAX_LINE_BYTES,
    http_log: "HttpLog | None" = None,
    insecure: bool = False,
    started: subprocess.Popen | None = None,
    write_stall: float = 30.0,
    **http_options: Any,
) -> Transport:
    """The transport for ``spec``.

    ``insecure`` (or ``spec.insecure``) turns TLS certificate verification off.
    ``http_options`` go to ``HttpTransport`` as they are (``connect_timeout``,
    ``read_timeout``, ``mode``) and override what the spec says."""
    if spec.url:
        from .http import HttpTransport

        mode = http_options.pop("mode", None) or URL_MODES.get(spec.transport or "http")
        if mode is None:
            raise TransportError(f"unknown transport {spec.transport!r} for a URL (use http, streamable-http or sse)")
        verify = not (insecure or bool(getattr(spec, "insecure", False)))
        return HttpTransport(
            spec.url,
            headers=dict(spec.headers or {}),
            mode=mode,
            verify=verify,
            max_frame_bytes=max_frame_bytes,
            http_log=http_log,
            **http_options,
        )
    if not spec.command:
        raise TransportError(f"server {spec.name!r} has neither a command nor a URL")
    from .stdio import StdioTransport

    return StdioTransport(spec.command, spec.env, spec.cwd, started=started, write_stall=write_stall,
                          max_line_bytes=max_frame_bytes)
