"""The session over real HTTP servers on 127.0.0.1: era detection through HttpTransport
(2026-07-28 Streamable HTTP, the fallback to legacy Streamable HTTP and then to
HTTP+SSE), tools whose x-mcp-header annotations are invalid left out, Mcp-Param
mirrors on calls, and a legacy session that expires (HTTP 404) re-initialized."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from conftest import SERVERS_DIR
from waiting import until

from mcp_inspector.core.base.errors import ToolExcluded, TransportFailure
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.http import HttpTransport

pytestmark = pytest.mark.anyio
HTTP_RAW = SERVERS_DIR / "http_raw_server.py"
MODERN = SERVERS_DIR / "modern_raw_server.py"


def start(command: list[str]) -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    assert line.startswith("PORT "), line
    return process, int(line.split()[1])


@pytest.fixture(scope="module")
def raw_http_base() -> Any:
    process, port = start([sys.executable, str(HTTP_RAW)])
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def modern_http_url() -> Any:
    process, port = start([sys.executable, str(MODERN), "--http", "--mode", "header-tools"])
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait()


def session_for(url: str, **options: Any) -> McpSession:
    store = TrafficStore()
    transport = HttpTransport(url, mode="auto", http_log=store.http_log)
    options.setdefault("timeout", 10.0)
    options.setdefault("auto_refresh", False)
    return McpSession(transport, store=store, **options)


def sent_methods(store) -> list[str]:
    return [e.method for e in store if e.direction.value == "out" and e.method]


async def test_a_modern_http_server_with_invalid_header_annotations(modern_http_url):
    async with session_for(modern_http_url) as s:
        await s.initialize()
        assert s.era == "modern" and s.transport.kind == "http"
        names = [t["name"] for t in await s.list_tools()]
        assert "mirrored" in names and "bad_header" not in names
        assert list(s.excluded_tools) == ["bad_header"] and s.excluded_tools["bad_header"]
        assert any(b"bad_header" in e.raw and b"excluded" in e.raw for e in s.store if e.direction.value == "local")
        with pytest.raises(ToolExcluded, match="bad_header"):
            await s.call_tool("bad_header", {"v": 1})
        outcome = await s.call_tool("mirrored", {"region": "eu-west", "text": "hi"})
        headers = json.loads(outcome.result["content"][0]["text"])
        assert headers["mcp-param-region"] == "eu-west"
        assert headers["mcp-method"] == "tools/call" and headers["mcp-name"] == "mirrored"
        assert "bad_header" not in sent_methods(s.store)


async def test_the_sdk_serves_the_modern_era_over_http(sdk_modern_http_url):
    async with session_for(sdk_modern_http_url) as s:
        await s.initialize()
        assert s.era == "modern" and s.protocol_version == "2026-07-28"
        assert "initialize" not in sent_methods(s.store)
        tools = await s.list_tools()
        assert tools and s.excluded_tools == {}


async def test_an_http_sse_only_server_gets_the_whole_fallback(raw_http_base):
    async with session_for(f"{raw_http_base}/sseonly") as s:
        await s.initialize()
        assert s.era == "legacy" and s.protocol_version == "2024-11-05"
        assert s.transport.fell_back and s.transport.kind == "sse"
        assert "server/discover failed" in s.era_reason and "HTTP+SSE" in s.era_reason
        assert sent_methods(s.store)[:3] == ["server/discover", "initialize", "initialize"]
        assert await s.list_tools() is not None


async def test_an_expired_legacy_session_is_initialized_again(raw_http_base):
    async with session_for(f"{raw_http_base}/expire", era="legacy") as s:
        await s.initialize()
        assert s.transport.session_id == "s1"
        with pytest.raises(TransportFailure):
            await s.call_tool("echo", {"text": "x"})
        await until(lambda: any(b"re-initialized" in e.raw for e in s.store))
        assert s.transport.session_id == "s2"
        assert sent_methods(s.store).count("initialize") == 2
        outcome = await s.call_tool("echo", {"text": "again"})
        assert json.loads(outcome.result["content"][0]["text"]) == {"text": "again"}


async def test_subscriptions_listen_over_http_drives_the_live_refresh(fresh_sdk_http_server):
    from mcp_inspector.core.session.events import ListChanged

    server = fresh_sdk_http_server("--mode", "stateful")
    async with session_for(server.url, auto_refresh=True) as s:
        events: list = []
        s.add_listener(events.append)
        await s.initialize()
        assert s.era == "modern"
        await s.list_tools()
        await until(lambda: s.subscription_ack is not None)
        await s.call_tool("change_tools", {})
        await until(lambda: [e for e in events if isinstance(e, ListChanged) and e.cause == "notification"])
        changed = [e for e in events if isinstance(e, ListChanged) and e.cause == "notification"][0]
        assert [t["name"] for t in changed.diff.added] == ["extra_1"]


async def test_server_everything_over_http_is_legacy(everything_http_url, everything_sse_url):
    async with session_for(everything_http_url) as s:
        await s.initialize()
        assert s.era == "legacy" and s.era_reason.startswith("server/discover failed")
        assert not s.transport.fell_back and s.transport.session_id
        assert await s.list_tools()
    async with session_for(everything_sse_url) as s:
        await s.initialize()
        assert s.era == "legacy" and s.transport.fell_back and s.protocol_version == "2025-11-25"
        assert await s.list_tools()


async def test_the_fallback_to_http_sse_proposes_what_transport_sse_proposes(everything_sse_url):
    """server-everything's HTTP+SSE endpoint: --transport auto fell back proposing 2024-11-05 (and got
    it), --transport sse proposed and got 2025-11-25. The fallback now proposes what the first
    initialize proposed, as --transport sse does."""
    got: dict[str, tuple[str, str | None]] = {}
    for mode in ("auto", "sse"):
        store = TrafficStore()
        transport = HttpTransport(everything_sse_url, mode=mode, http_log=store.http_log)
        async with McpSession(transport, store=store, timeout=10.0, auto_refresh=False) as s:
            await s.initialize()
            proposed = [
                json.loads(e.raw)["params"]["protocolVersion"]
                for e in s.store
                if e.direction.value == "out" and e.method == "initialize"
            ]
            got[mode] = (proposed[-1], s.protocol_version)
    assert got["auto"] == got["sse"] == ("2025-11-25", "2025-11-25")
