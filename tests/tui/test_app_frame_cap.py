"""The TUI reads the server's frames under the cap it was given (--max-frame-size), across reconnects."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, live_app, wait_for, wait_for_tools

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.config.servers import ServerSpec

pytestmark = pytest.mark.anyio

SERVER = ServerSpec(
    "frames",
    [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "frame_path_server.py")],
    source="test",
)


async def test_a_frame_over_the_cap_is_recorded_as_too_long_and_the_session_goes_on():
    app = live_app(SERVER, max_frame_bytes=1 << 20)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        for _ in range(2):  # the cap holds after a reconnect too
            session = app.connection.live
            outcome = await session.call_tool("long", {"bytes": 3_000_000})
            assert outcome.result["content"][0]["text"] == "after long"
            await pilot.press("ctrl+r")
            await wait_for(
                pilot,
                lambda session=session: app.connection.live is not None and app.connection.live is not session,
                what="the reconnect",
            )
        too_long = [e for e in app.store if e.kind is Kind.INVALID and (e.problem or "").startswith("too long")]
        assert [e.problem for e in too_long] == [f"too long: 3000000 bytes (cap {1 << 20})"] * 2
        assert all(len(e.raw) <= 64 * 1024 for e in too_long)
