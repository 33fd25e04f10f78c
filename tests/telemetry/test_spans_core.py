"""Spans from a real session over a real pipe, exported over OTLP/HTTP to a real receiver on
127.0.0.1: names, kinds, attributes, status, parent links (the server's own SDK spans are
parented on the ``traceparent`` the inspector put in ``params._meta``), and the metrics."""

from __future__ import annotations

import json
import sys

import anyio
import pytest
from otlp_receiver import Receiver
from waiting import until

from mcp_inspector.core import telemetry
from mcp_inspector.core.base.errors import RequestCancelled, RpcError
from mcp_inspector.core.telemetry.otel import OtelTelemetry
from mcp_inspector.core.traffic.entry import Direction

pytestmark = pytest.mark.anyio
CLIENT, SERVER, ERROR = 3, 2, 2  # the protobuf enums (Span.SpanKind, Status.StatusCode)


@pytest.fixture
def tracing(receiver: Receiver):
    on = OtelTelemetry(receiver.url)
    telemetry.set_active(on)
    try:
        yield on
    finally:
        telemetry.set_active(None)
        on.shutdown()


def sent_meta(store, method: str) -> list[dict]:
    return [json.loads(e.raw)["params"]["_meta"] for e in store if e.direction is Direction.OUT and e.method == method]


async def test_request_and_notification_spans_join_the_servers(connect, traced_server, receiver, tracing) -> None:
    env = {"TRACED_SERVER_OTLP": receiver.url}
    async with connect(traced_server, env=env) as c:
        outcome = await c.session.call_tool("add", {"a": 1, "b": 2})
        assert outcome.result["structuredContent"] == {"sum": 3}
        failed = await c.session.call_tool("fail", {})
        assert failed.result["isError"] is True
        with pytest.raises(RpcError):
            await c.session.connection.request("no/such/method")
        store = c.store
        # the server's SDK spans arrive as they end (SimpleSpanProcessor)
        await until(lambda: receiver.named("tools/call add") and receiver.named("tools/call fail"), what="server spans")
    tracing.shutdown()  # flushes the client's batch (and the metrics)
    await until(lambda: len(receiver.named("tools/call add")) == 2, what="the client's span")

    client = {s.name: s for s in receiver.spans if s.service == "mcp-inspector"}
    add = client["tools/call add"]
    assert add.kind == CLIENT
    assert add.parent_span_id == ""  # the inspector starts the trace
    assert add.attributes["mcp.method.name"] == "tools/call"
    assert add.attributes["gen_ai.tool.name"] == "add"
    assert add.attributes["gen_ai.operation.name"] == "execute_tool"
    assert add.attributes["network.transport"] == "pipe"
    assert add.attributes["mcp.protocol.version"] == c.session.protocol_version
    assert add.attributes["jsonrpc.request.id"] == str(json.loads(_sent(store, "tools/call")[0].raw)["id"])
    assert "error.type" not in add.attributes and add.status_code != ERROR

    # the traceparent sent in _meta is this span's, and the server's span is its child
    traceparent = sent_meta(store, "tools/call")[0]["traceparent"]
    assert traceparent.split("-")[:3] == ["00", add.trace_id, add.span_id]
    assert int(traceparent.split("-")[3], 16) & 1  # sampled
    (server_add,) = [s for s in receiver.named("tools/call add") if s.service == "traced-server"]
    assert server_add.kind == SERVER
    assert (server_add.trace_id, server_add.parent_span_id) == (add.trace_id, add.span_id)

    fail = client["tools/call fail"]
    assert fail.attributes["error.type"] == "tool_error" and fail.status_code == ERROR
    unknown = client["no/such/method"]
    assert unknown.attributes["error.type"] == "-32601"
    assert unknown.attributes["rpc.response.status_code"] == "-32601"
    assert unknown.status_code == ERROR and unknown.status_message

    # a notification: a span of its own, no request id, its traceparent in _meta too
    initialized = client["notifications/initialized"]
    assert initialized.kind == CLIENT and "jsonrpc.request.id" not in initialized.attributes
    assert sent_meta(store, "notifications/initialized")[0]["traceparent"].split("-")[2] == initialized.span_id
    assert client["initialize"].attributes["jsonrpc.request.id"] == "1"

    # metrics: an operation duration point per method, and the session's duration
    await until(lambda: "mcp.client.session.duration" in receiver.metrics, what="metrics")
    operations = receiver.metrics["mcp.client.operation.duration"]
    assert {p["attributes"]["mcp.method.name"] for p in operations} >= {"initialize", "tools/call", "no/such/method"}
    assert all(p["unit"] == "s" for p in operations)
    assert {"error.type": "tool_error"}.items() <= next(
        p["attributes"] for p in operations if p["attributes"].get("gen_ai.tool.name") == "fail"
    ).items()
    assert all("jsonrpc.request.id" not in p["attributes"] for p in operations)  # low cardinality
    assert receiver.metrics["mcp.client.session.duration"][0]["attributes"]["network.transport"] == "pipe"


def _sent(store, method: str) -> list:
    return [e for e in store if e.direction is Direction.OUT and e.method == method]


async def test_a_cancelled_request_ends_its_span(connect, sdk_server, receiver, tracing) -> None:
    async with connect(sdk_server) as c:
        pending = await c.session.connection.send_request(
            "tools/call", {"name": "progress_task", "arguments": {"steps": 50, "delay": 0.2}}
        )
        await pending.cancel("user pressed Esc")
        with pytest.raises(RequestCancelled):
            await pending.wait()
    tracing.shutdown()
    await until(lambda: receiver.named("tools/call progress_task"), what="the cancelled span")
    (span,) = receiver.named("tools/call progress_task")
    assert span.attributes["error.type"] == "cancelled" and span.status_code == ERROR
    cancelled = receiver.named("notifications/cancelled")
    assert cancelled and cancelled[0].kind == CLIENT


async def test_http_spans_name_the_server_and_the_session(sdk_http_stateful_url, receiver, tracing) -> None:
    from mcp_inspector.core.session.mcp_session import McpSession
    from mcp_inspector.core.transport.streamable_http import StreamableHttpTransport

    transport = StreamableHttpTransport(sdk_http_stateful_url)
    async with McpSession(transport, era="legacy", timeout=10, init_timeout=10) as session:
        await session.initialize()
        await session.call_tool("add", {"a": 1, "b": 2})
        session_id = transport.session_id
    tracing.shutdown()
    await until(lambda: receiver.named("tools/call add"), what="the span")
    (span,) = receiver.named("tools/call add")
    port = int(sdk_http_stateful_url.split(":")[2].split("/")[0])
    assert span.attributes["network.transport"] == "tcp"
    assert (span.attributes["server.address"], span.attributes["server.port"]) == ("127.0.0.1", port)
    assert session_id and span.attributes["mcp.session.id"] == session_id


async def test_tracing_off_sends_no_traceparent(connect, sdk_server) -> None:
    assert telemetry.active() is None
    async with connect(sdk_server) as c:
        assert c.session.connection.telemetry is None
        await c.session.call_tool("add", {"a": 1, "b": 2})
        assert not any(b"traceparent" in e.raw for e in c.store)


async def test_a_hostile_error_message_is_cut_in_the_span(receiver, tracing) -> None:
    """A server's megabyte-long error message reaches the collector cut to MAX_TEXT characters."""
    from mcp_inspector.core.telemetry.otel import MAX_TEXT
    from mcp_inspector.core.transport.stdio import StdioTransport

    server = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if 'id' in msg:\n"
        "        error = {'code': -32000, 'message': 'x' * 1_000_000}\n"
        "        print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'error': error}), flush=True)\n"
    )
    from mcp_inspector.core.protocol.rpc import RpcConnection

    connection = RpcConnection(StdioTransport([sys.executable, "-c", server]), default_timeout=10)
    async with anyio.create_task_group() as group:
        await connection.start(group)
        with pytest.raises(RpcError):
            await connection.request("tools/call", {"name": "y" * 100_000})
        await connection.aclose()
        group.cancel_scope.cancel()
    tracing.shutdown()
    await until(lambda: receiver.spans, what="the span")
    (span,) = receiver.spans
    assert span.attributes["error.type"] == "-32000"
    assert len(span.status_message) == MAX_TEXT
    assert len(span.attributes["gen_ai.tool.name"]) == MAX_TEXT
    assert span.name == "tools/call " + "y" * MAX_TEXT


async def test_the_servers_requests_and_notifications_get_server_spans_in_the_callers_trace(
    connect, raw_server, receiver, tracing
) -> None:
    """A server asking us (ping, roots/list, a method we do not know) and notifying us while it
    handles our call: each gets a SERVER span parented on the traceparent in its ``_meta`` (here
    our call's, which the server passed on), ended when our reply is written."""
    async with connect(raw_server("server-requests")) as c:
        outcome = await c.session.call_tool("ask", {})
        answers = json.loads(outcome.result["content"][0]["text"])
        assert answers["ping"]["result"] == {} and answers["custom"]["error"]["code"] == -32601
    tracing.shutdown()
    await until(lambda: receiver.named("custom/thing"), what="the spans")
    (call,) = receiver.named("tools/call ask")
    assert call.kind == CLIENT
    for name in ("ping", "roots/list", "custom/thing", "notifications/message"):
        (span,) = receiver.named(name)
        assert span.kind == SERVER, name
        assert (span.trace_id, span.parent_span_id) == (call.trace_id, call.span_id), name
        assert span.attributes["mcp.method.name"] == name
        assert span.attributes["network.transport"] == "pipe"
    assert receiver.named("ping")[0].attributes["jsonrpc.request.id"] == str(answers["ping"]["id"])
    assert "jsonrpc.request.id" not in receiver.named("notifications/message")[0].attributes
    assert "error.type" not in receiver.named("ping")[0].attributes
    custom = receiver.named("custom/thing")[0]
    assert custom.attributes["error.type"] == "-32601" and custom.status_code == ERROR
    await until(lambda: "mcp.server.operation.duration" in receiver.metrics, what="the metric")
    handled = {p["attributes"]["mcp.method.name"] for p in receiver.metrics["mcp.server.operation.duration"]}
    assert {"ping", "roots/list", "custom/thing", "notifications/message"} <= handled
