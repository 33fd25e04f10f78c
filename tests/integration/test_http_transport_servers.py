"""HttpTransport under McpSession against real servers on 127.0.0.1: server-everything
(streamableHttp and the legacy sse transport) and the official SDK's HTTP server (stateful
with resumption, stateless, JSON replies, legacy SSE, and the 2026-07-28 era)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from waiting import until

from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.http import HttpTransport

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def session_for(
    url: str, *, mode: str = "auto", era: str = "legacy", **options: Any
) -> AsyncIterator[McpSession]:
    store = TrafficStore()
    transport = HttpTransport(
        url, mode=mode, http_log=store.http_log, headers={"Authorization": "Bearer tok-0123456789abcdef"}
    )
    try:
        with anyio.fail_after(30):  # a hang guard, not a timing assertion
            async with McpSession(transport, store=store, era=era, timeout=15, init_timeout=15, **options) as session:
                await session.initialize()
                yield session
    except BaseException:
        # What happened on the wire, for the failure report (pytest shows captured output).
        for x in store.http_log.exchanges:
            print(
                f"http #{x.id} {x.method} {x.status} {x.note or ''} {x.rpc_method or ''} {x.state} {x.error or ''} "
                f"events={x.event_count} resumes={x.resumes}"
            )
        for entry in store:
            print(f"frame {entry.seq} {entry.direction} {entry.kind} {entry.raw[:200]!r} {entry.problem or ''}")
        raise


def exchanges(session: McpSession, method: str | None = None, rpc: str | None = None) -> list:
    return [
        x
        for x in session.store.http_log.exchanges
        if (method is None or x.method == method) and (rpc is None or x.rpc_method == rpc)
    ]


async def test_everything_streamable_http_session_progress_and_delete(everything_http_url):
    async with session_for(everything_http_url) as session:
        transport = session.transport
        assert transport.kind == "http" and transport.session_id
        tools = {tool["name"] for tool in await session.list_tools()}
        assert "echo" in tools
        outcome = await session.call_tool("echo", {"message": "over http"})
        assert outcome.result["content"][0]["text"] == "Echo: over http"
        outcome = await session.call_tool(
            "trigger-long-running-operation", {"duration": 0.3, "steps": 3}, progress=True
        )
        call = exchanges(session, "POST", "tools/call")[-1]
        progress = [e for e in session.store if e.method == "notifications/progress"]
        assert len(progress) == 3 and all(e.meta and e.meta.get("exchange") == call.id for e in progress)
        assert call.header("Mcp-Session-Id", response=False) == transport.session_id
        assert call.header("MCP-Protocol-Version", response=False) == session.protocol_version
    delete = exchanges(session, "DELETE")
    assert delete and delete[0].status == 200


async def test_everything_legacy_sse_transport(everything_sse_url):
    async with session_for(everything_sse_url, mode="sse") as session:
        assert session.transport.kind == "sse"
        outcome = await session.call_tool("echo", {"message": "over sse"})
        assert outcome.result["content"][0]["text"] == "Echo: over sse"
        stream = exchanges(session, "GET")[0]
        reply = [e for e in session.store if e.reply_to is not None and e.meta and e.meta.get("exchange") == stream.id]
        assert reply  # responses arrive on the GET stream
    assert all(x.state != "open" for x in session.store.http_log.exchanges)


async def test_everything_sse_url_in_auto_mode_falls_back_to_http_sse(everything_sse_url):
    async with session_for(everything_sse_url, era="auto") as session:
        assert session.transport.kind == "sse" and session.transport.fell_back
        outcome = await session.call_tool("echo", {"message": "fallback"})
        assert outcome.result["content"][0]["text"] == "Echo: fallback"


async def test_sdk_stateful_stream_closed_by_the_server_is_resumed(fresh_sdk_http_server):
    server = fresh_sdk_http_server("--mode", "stateful", "--resumable", "--retry-interval", "700")
    async with session_for(server.url) as session:
        assert session.protocol_version >= "2025-11-25"
        outcome = await session.call_tool("close_stream", {})
        assert outcome.result["content"][0]["text"] == "resumed"
        post = exchanges(session, "POST", "tools/call")[-1]
        resumes = [x for x in exchanges(session, "GET") if x.note == "resume"]
        assert resumes and resumes[0].resumes == post.id and resumes[0].header("Last-Event-ID", response=False)
        logs = [e for e in session.store if e.method == "notifications/message"]
        assert any(b"after" in e.raw for e in logs)  # sent while the stream was closed, replayed on resume


async def test_sdk_stateless_and_json_servers(sdk_http_stateless_url, sdk_http_json_url):
    async with session_for(sdk_http_stateless_url) as session:
        assert session.transport.session_id is None
        assert (await session.call_tool("echo", {"text": "a"})).result["content"][0]["text"] == "a"
    async with session_for(sdk_http_json_url) as session:
        assert (await session.call_tool("add", {"a": 2, "b": 3})).result["structuredContent"] == {"sum": 5}
        assert exchanges(session, "POST", "tools/call")[-1].content_type == "application/json"


async def test_sdk_legacy_sse_server(sdk_http_sse_url):
    async with session_for(sdk_http_sse_url, mode="sse") as session:
        assert (await session.call_tool("echo", {"text": "b"})).result["content"][0]["text"] == "b"


async def test_sdk_2026_era_headers_no_session_and_cancel(sdk_modern_http_url):
    async with session_for(sdk_modern_http_url, era="modern") as session:
        assert session.era == "modern"
        assert (await session.call_tool("echo", {"text": "modern"})).result["content"][0]["text"] == "modern"
        call = exchanges(session, "POST", "tools/call")[-1]
        assert call.header("MCP-Protocol-Version", response=False) == "2026-07-28"
        assert call.header("Mcp-Method", response=False) == "tools/call"
        assert call.header("Mcp-Name", response=False) == "echo"
        assert call.header("Mcp-Session-Id", response=False) is None
        pending = await session.begin_tool_call("sleep", {"seconds": 30})
        # its POST under way (the SDK sends the response headers with the first event: none here)
        await until(lambda: any(x.rpc_id == pending.id for x in exchanges(session, "POST")), what="the call's POST")
        await pending.cancel()
        assert any(b"closed the response stream" in e.raw for e in session.store)
        assert not any(e.method == "notifications/cancelled" for e in session.store)
    assert not exchanges(session, "GET") and not exchanges(session, "DELETE")
