"""The session against the official SDK (mcp 2.3.0) serving 2026-07-28 only over stdio
(tests/servers/sdk_modern_server.py): detection, MRTR elicitation, the log level in
_meta, the live tool list through subscriptions/listen, and --era legacy refused."""

from __future__ import annotations

import pytest
from waiting import until

from mcp_inspector.core.base.errors import ConnectError
from mcp_inspector.core.session.events import InputRequested, ListChanged, LogMessage

pytestmark = pytest.mark.anyio


async def name_ada(params, entry):
    return {"action": "accept", "content": {"name": "Ada"}}


async def test_the_sdk_modern_server_end_to_end(connect, sdk_modern_stdio_command):
    async with connect(sdk_modern_stdio_command, era="auto", handlers={"elicitation/create": name_ada}) as c:
        s = c.session
        assert s.era == "modern" and s.protocol_version == "2026-07-28"
        assert s.server_info.get("name")
        names = {t["name"] for t in await s.list_tools()}
        assert {"echo", "ask_user", "change_tools"} <= names

        outcome = await s.call_tool("ask_user", {})
        assert outcome.result["content"][0]["text"] == "Hello, Ada!"
        assert len(outcome.rounds) == 2 and len(c.of_type(InputRequested)) == 1

        await s.set_log_level("info")
        logged = await s.call_tool("progress_and_log", {"steps": 2})
        assert logged.result["content"][0]["text"] == "done 2 steps"
        assert [e.data for e in c.of_type(LogMessage)][-2:] == ["step 1", "step 2"]

        await until(lambda: s.subscription_ack is not None)
        await s.call_tool("change_tools", {})
        await until(lambda: [e for e in c.of_type(ListChanged) if e.cause == "notification"])
        changed = [e for e in c.of_type(ListChanged) if e.cause == "notification"][0]
        assert [t["name"] for t in changed.diff.added] == ["extra_1"]


async def test_era_legacy_against_the_sdk_modern_server(connect, sdk_modern_stdio_command):
    async with connect(sdk_modern_stdio_command, era="legacy", initialize=False) as c:
        with pytest.raises(ConnectError, match="rejected initialize.*--era auto"):
            await c.session.initialize()
