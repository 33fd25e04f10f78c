"""The 2026-07-28 era over real pipes, against tests/servers/modern_raw_server.py (which
answers -32602 to any request without the modern ``_meta``): ``_meta`` on every
request, ``resultType``, the log level, pagination, ping, server requests refused,
and the tasks extension's results shown as they came."""

from __future__ import annotations

import json

import pytest
from conftest import PYTHON, SERVERS_DIR

from mcp_inspector.core.base.errors import MalformedTask, ProtocolViolation
from mcp_inspector.core.session.events import LogMessage
from mcp_inspector.core.traffic.entry import Direction, Kind

pytestmark = pytest.mark.anyio
MODERN = [PYTHON, str(SERVERS_DIR / "modern_raw_server.py")]
PV = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"
INFO = "io.modelcontextprotocol/clientInfo"
LEVEL = "io.modelcontextprotocol/logLevel"


async def elicit(params, entry):
    return {"action": "accept", "content": {"name": "Ada"}}


def requests_sent(store) -> list[dict]:
    return [json.loads(e.raw) for e in store if e.direction is Direction.OUT and e.kind is Kind.REQUEST]


async def test_every_request_carries_the_modern_meta(connect):
    async with connect(MODERN, era="auto", handlers={"elicitation/create": elicit}) as c:
        s = c.session
        await s.list_tools()
        await s.list_resources()
        await s.call_tool("echo", {"text": "hi"})
        await s.read_resource("memo://one")
        await s.request("prompts/list")
        frames = requests_sent(c.store)
        assert len(frames) >= 6
        for frame in frames:
            meta = frame["params"]["_meta"]
            assert meta[PV] == "2026-07-28", frame
            assert meta[CAPS] == {"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}}, (
                frame
            )
            assert meta[INFO]["name"] == "mcp-inspector", frame
            assert LEVEL not in meta
        # The server answered each (it refuses a request without _meta with -32602).
        assert not any(e.kind is Kind.ERROR for e in c.store)
        assert s.cache_info["tools/list"] == {"ttlMs": 1000, "cacheScope": "private"}
        # The same _meta for callers that build frames themselves (pipe, the raw composer).
        assert s.request_meta() == frames[-1]["params"]["_meta"]


async def test_the_log_level_goes_in_meta_not_in_a_request(connect):
    async with connect(MODERN, era="auto") as c:
        s = c.session
        assert await s.set_log_level("error") == {}
        assert "logging/setLevel" not in [f["method"] for f in requests_sent(c.store)]
        outcome = await s.call_tool("log", {})
        assert outcome.result["content"][0]["text"] == "logged 4"
        assert requests_sent(c.store)[-1]["params"]["_meta"][LEVEL] == "error"
        assert [e.level for e in c.of_type(LogMessage)] == ["error", "critical", "alert", "emergency"]


async def test_an_empty_cursor_is_a_page_not_the_end(connect):
    async with connect(MODERN, era="auto") as c:
        prompts = await c.session.list_prompts()
        assert [p["name"] for p in prompts] == ["first", "second"]
        cursors = [f["params"].get("cursor") for f in requests_sent(c.store) if f["method"] == "prompts/list"]
        assert cursors == [None, ""]


async def test_ping_is_a_discover_round_trip_in_the_modern_era(connect):
    async with connect(MODERN, era="auto") as c:
        result = await c.session.ping()
        assert result["supportedVersions"] == ["2026-07-28"]
        assert "ping" not in [f["method"] for f in requests_sent(c.store)]


async def test_an_unknown_result_type_is_a_clear_error_and_the_session_goes_on(connect):
    async with connect(MODERN + ["--mode", "bad-result-type"], era="auto") as c:
        with pytest.raises(ProtocolViolation, match="resultType 'mystery'.*does not know"):
            await c.session.call_tool("echo", {"text": "x"})
        assert len(await c.session.list_tools()) == 14


async def test_a_task_result_without_a_task_id_is_a_clear_error(connect):
    """``long`` answers resultType "task" with a 2025-11-25-style nested ``task`` (no taskId
    inline): the session says so in words, and goes on (core/session/tasks.py)."""
    async with connect(MODERN, era="auto") as c:
        with pytest.raises(MalformedTask, match="no taskId"):
            await c.session.call_tool("long", {})
        assert (await c.session.call_tool("echo", {"text": "x"})).result["content"][0]["text"] == "x"


async def test_a_server_request_is_refused_in_the_modern_era(connect):
    called = []

    async def roots(params, entry):
        called.append(params)
        return {"roots": []}

    async with connect(MODERN + ["--mode", "server-request"], era="auto", handlers={"roots/list": roots}) as c:
        outcome = await c.session.call_tool("echo", {"text": "x"})
        assert outcome.result["content"][0]["text"] == "x"
        incoming = [e for e in c.store if e.direction is Direction.IN and e.kind is Kind.REQUEST]
        assert len(incoming) == 1 and "2026-07-28 forbids" in (incoming[0].problem or "")
        # Answered -32601 without running the handler.
        for _ in range(100):
            replies = [e for e in c.store if e.direction is Direction.OUT and e.kind is Kind.ERROR]
            if replies:
                break
            await c.session.ping()
        assert replies and replies[0].error_code == -32601 and replies[0].reply_to == incoming[0].seq
        assert called == []
