"""The proxy's spans: each forwarded request is a CLIENT span parented on the host's traceparent,
which reaches the server untouched (the server's SDK span is the host span's child too)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from otlp_receiver import Receiver
from waiting import until_sync

REPO = Path(__file__).resolve().parents[2]
HOST_TRACE, HOST_SPAN = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
TRACEPARENT = f"00-{HOST_TRACE}-{HOST_SPAN}-01"


def line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


def test_the_proxy_links_its_spans_to_the_hosts_traceparent(tmp_path, receiver: Receiver, traced_server) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(PYTHONPATH=str(REPO), TRACED_SERVER_OTLP=receiver.url, XDG_RUNTIME_DIR=str(tmp_path))
    command = [
        sys.executable,
        "-m",
        "mcp_inspector",
        "proxy",
        "--no-live",
        "--otlp",
        receiver.url,
        "--",
        *traced_server,
    ]
    host = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert host.stdin is not None and host.stdout is not None
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}
    host.stdin.write(line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}))
    host.stdin.flush()
    assert json.loads(host.stdout.readline())["id"] == 1
    call = {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": {"traceparent": TRACEPARENT}}
    sent = line({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
    host.stdin.write(line({"jsonrpc": "2.0", "method": "notifications/initialized"}) + sent)
    host.stdin.flush()
    reply = json.loads(host.stdout.readline())
    assert reply["id"] == 2 and reply["result"]["structuredContent"] == {"sum": 3}
    host.stdin.close()
    assert host.wait(timeout=30) == 0, host.stderr.read() if host.stderr else ""

    until_sync(lambda: len(receiver.named("tools/call add")) == 2, what="the proxy's and the server's spans")
    by_service = {s.service: s for s in receiver.named("tools/call add")}
    proxy, server = by_service["mcp-inspector-proxy"], by_service["traced-server"]
    assert (proxy.trace_id, proxy.parent_span_id) == (HOST_TRACE, HOST_SPAN)
    assert (server.trace_id, server.parent_span_id) == (HOST_TRACE, HOST_SPAN)  # forwarded untouched
    assert proxy.kind == 3 and proxy.attributes["jsonrpc.request.id"] == "2"
    assert proxy.attributes["network.transport"] == "pipe"
    assert proxy.attributes["mcp.protocol.version"] == "2025-11-25"
    # a request without a traceparent (initialize) starts a trace of its own; the notification has a span
    (initialize,) = [s for s in receiver.named("initialize") if s.service == "mcp-inspector-proxy"]
    assert initialize.parent_span_id == "" and initialize.trace_id != HOST_TRACE
    assert any(s.service == "mcp-inspector-proxy" for s in receiver.named("notifications/initialized"))


def test_the_http_proxy_links_a_real_hosts_spans(tmp_path, receiver: Receiver, sdk_http_stateful_url) -> None:
    """The host is the mcp SDK's client, tracing with OpenTelemetry: it puts its own span's
    traceparent in each request's _meta; the HTTP proxy's span for the call is that span's child."""
    import anyio
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from opentelemetry.sdk.trace import TracerProvider

    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(PYTHONPATH=str(REPO), XDG_RUNTIME_DIR=str(tmp_path))
    command = [
        sys.executable,
        "-m",
        "mcp_inspector",
        "proxy",
        "--listen",
        "127.0.0.1:0",
        "--url",
        sdk_http_stateful_url,
    ]
    proxy = subprocess.Popen(
        [*command, "--no-live", "--otlp", receiver.url],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        assert proxy.stderr is not None
        said = proxy.stderr.readline().decode()
        assert "listening on " in said, said
        url = said.split("listening on ", 1)[1].strip()
        tracer = TracerProvider().get_tracer("host")
        host_span: list = []

        async def host() -> None:
            async with (
                httpx2.AsyncClient(timeout=30) as http,
                streamable_http_client(url, http_client=http) as streams,
                ClientSession(streams[0], streams[1]) as session,
            ):
                await session.initialize()
                with tracer.start_as_current_span("host turn") as span:
                    host_span.append(span.get_span_context())
                    result = await session.call_tool("add", {"a": 2, "b": 2})
                assert not result.is_error

        anyio.run(host)
    finally:
        proxy.send_signal(signal.SIGTERM)
        proxy.wait(timeout=30)
    until_sync(lambda: receiver.named("tools/call add"), what="the proxy's span")
    (span,) = receiver.named("tools/call add")
    (context,) = host_span
    assert span.service == "mcp-inspector-proxy"
    assert span.trace_id == f"{context.trace_id:032x}"
    # the SDK client injects the current context (its own tracer is the global no-op one here,
    # whose spans carry their parent's context): the proxy's span is the host span's child
    assert span.parent_span_id == f"{context.span_id:016x}"
    assert span.attributes["network.transport"] == "tcp"
    assert span.attributes["server.address"] == "127.0.0.1"
