"""Era detection over real pipes: ``server/discover`` first (``auto``), the fallback to
``initialize`` for legacy servers (an error, or no answer in time), ``--era``
and ``protocol_version`` choosing the era, and clear errors when they cannot work."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import PYTHON, SERVERS_DIR, demo_server_command, raw_server_command, sdk_server_command

from mcp_inspector.core.base.errors import ConnectError
from mcp_inspector.core.session.events import SessionState
from mcp_inspector.core.traffic.entry import Direction

pytestmark = pytest.mark.anyio
MODERN = [PYTHON, str(SERVERS_DIR / "modern_raw_server.py")]


def sent(store) -> list[dict]:
    return [json.loads(e.raw) for e in store if e.direction is Direction.OUT]


def sent_methods(store) -> list[str]:
    return [m.get("method") for m in sent(store)]


async def test_a_modern_server_is_found_by_server_discover(connect):
    async with connect(MODERN, era="auto") as c:
        s = c.session
        assert s.era == "modern"
        assert s.era_reason == "server/discover answered with a DiscoverResult"
        assert s.protocol_version == "2026-07-28"
        assert s.server_info == {"name": "modern-raw-server", "version": "2.0.0"}
        assert s.capabilities["tools"] == {"listChanged": True}
        assert s.instructions == "Modern fixture server"
        assert s.discover_result is not None and s.initialize_result is None
        assert s.cache_info["server/discover"] == {"ttlMs": 60000, "cacheScope": "public"}
        assert s.connection.initialized and s.connection.modern
        assert s.state is SessionState.READY
        assert "initialize" not in sent_methods(c.store)
        assert "notifications/initialized" not in sent_methods(c.store)


async def test_a_legacy_server_that_rejects_discover_gets_initialize(connect):
    async with connect(raw_server_command(), era="auto") as c:
        s = c.session
        assert s.era == "legacy"
        assert (
            s.era_reason
            == "server/discover failed with -32601 Method not found: server/discover: fell back to initialize"
        )
        assert s.protocol_version == "2025-11-25"
        assert s.initialize_result is not None and s.discover_result is None
        assert sent_methods(c.store)[:3] == ["server/discover", "initialize", "notifications/initialized"]
        # The legacy handshake carries no modern _meta.
        initialize = sent(c.store)[1]
        assert "_meta" not in initialize["params"]
        assert not s.connection.modern and s.request_meta() is None


async def test_the_demo_server_is_legacy(connect):
    async with connect(demo_server_command(), era="auto") as c:
        assert c.session.era == "legacy"
        assert "-32601" in c.session.era_reason


async def test_the_sdk_server_is_dual_era_and_answers_discover(connect):
    """mcp 2.3.0 serves both eras: auto picks modern, --era legacy the handshake."""
    async with connect(sdk_server_command(), era="auto") as c:
        assert c.session.era == "modern"
        assert c.session.server_info["name"] == "sdk-fixture"
        tools = await c.session.list_tools()
        assert "add" in {t["name"] for t in tools}
        outcome = await c.session.call_tool("add", {"a": 2, "b": 3})
        assert outcome.view.structured == {"sum": 5}
        read = await c.session.read_resource("greeting://Ada")
        assert read["contents"][0]["text"] == "Hello, Ada!"
    async with connect(sdk_server_command(), era="legacy") as c:
        assert c.session.era == "legacy" and c.session.era_reason == "--era legacy"
        assert sent_methods(c.store)[0] == "initialize"


def silent_server(tmp_path: Path) -> list[str]:
    """A legacy server that never answers server/discover (nor anything but the handshake
    and tools/list), and notes on stderr every message it gets."""
    script = tmp_path / "silent.py"
    script.write_text(
        textwrap.dedent("""
        import json, sys
        for line in sys.stdin:
            msg = json.loads(line)
            sys.stderr.write("got " + str(msg.get("method")) + "\\n"); sys.stderr.flush()
            if msg.get("method") == "initialize":
                out = {"jsonrpc": "2.0", "id": msg["id"], "result": {"protocolVersion": "2025-06-18",
                       "capabilities": {"tools": {}}, "serverInfo": {"name": "silent", "version": "1"}}}
            elif msg.get("method") == "tools/list":
                out = {"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": []}}
            else:
                continue
            sys.stdout.write(json.dumps(out) + "\\n"); sys.stdout.flush()
    """)
    )
    return [sys.executable, str(script)]


async def test_a_silent_server_falls_back_after_the_short_probe_timeout(connect, tmp_path):
    async with connect(silent_server(tmp_path), era="auto", discover_timeout=0.3) as c:
        s = c.session
        assert s.era == "legacy"
        assert s.era_reason == "server/discover got no answer within 0.3 s: fell back to initialize"
        assert s.protocol_version == "2025-06-18"
        assert await s.list_tools() == []
        # The probe is not cancelled: a legacy server gets nothing before initialize.
        assert sent_methods(c.store)[:3] == ["server/discover", "initialize", "notifications/initialized"]
        assert "notifications/cancelled" not in sent_methods(c.store)


async def test_era_legacy_against_a_modern_server_is_a_clear_error(connect):
    async with connect(MODERN, era="legacy", initialize=False) as c:
        with pytest.raises(ConnectError) as caught:
            await c.session.initialize()
        message = str(caught.value)
        assert "rejected initialize" in message and "2026-07-28" in message and "--era auto" in message
        assert c.session.state is SessionState.FAILED
        assert sent_methods(c.store) == ["initialize"]


async def test_era_modern_against_a_legacy_server_is_a_clear_error(connect):
    async with connect(raw_server_command(), era="modern", initialize=False) as c:
        with pytest.raises(ConnectError, match="--era modern: server/discover failed.*try --era auto"):
            await c.session.initialize()
        assert "initialize" not in sent_methods(c.store)


async def test_a_protocol_version_implies_its_era(connect):
    async with connect(MODERN, era="auto", protocol_version="2026-07-28") as c:
        assert c.session.era == "modern"
        assert "2026-07-28" in c.session.era_reason
    async with connect(raw_server_command(), era="auto", protocol_version="2025-03-26") as c:
        assert c.session.era == "legacy" and c.session.protocol_version == "2025-03-26"
        assert sent_methods(c.store)[0] == "initialize"


async def test_an_era_that_contradicts_the_protocol_version_sends_nothing(connect):
    async with connect(MODERN, era="modern", protocol_version="2025-11-25", initialize=False) as c:
        with pytest.raises(ConnectError, match="--era modern contradicts protocol version 2025-11-25"):
            await c.session.initialize()
        assert sent_methods(c.store) == []


async def test_a_modern_server_without_a_common_version(connect):
    async with connect(MODERN + ["--mode", "unsupported"], era="auto", initialize=False) as c:
        with pytest.raises(ConnectError, match="supports none of the protocol versions.*2099-01-01"):
            await c.session.initialize()
        # A modern error: no fallback to initialize.
        assert sent_methods(c.store) == ["server/discover"]
