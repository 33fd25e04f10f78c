"""The proxy's spans: each forwarded request is a CLIENT span parented on the host's traceparent,
which reaches the server untouched (the server's SDK span is the host span's child too)."""

from __future__ import annotations

import json
import os
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
