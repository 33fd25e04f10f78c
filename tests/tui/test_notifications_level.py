"""The server's log level from the notifications view, in both eras, on real servers:
legacy sends logging/setLevel (only to a server that declares logging), 2026-07-28 puts
the level in every request's _meta and sends nothing; the view shows the level in force."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, live_app, outgoing, wait_for, wait_for_tools
from textual.widgets import Select, Static

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.pilot_steps import shown_notifications

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]
SERVERS = Path(__file__).resolve().parent.parent / "servers"


async def open_view(pilot, app):
    await wait_for_tools(pilot, app)
    await pilot.press("3")
    view = app.main.query_one("#view-notifications")
    await wait_for(pilot, lambda: "now:" in state(view) or "declares no" in state(view), what="the level state")
    return view


def state(view) -> str:
    return str(view.query_one("#notifications-level-state", Static).render())


async def choose_level(pilot, view, level: str) -> None:
    """By keyboard: focus the level select, open it, type the level's first letters, enter."""
    select = view.query_one("#notifications-level", Select)
    select.focus()
    await wait_for(pilot, lambda: select.has_focus, what="the select focused")
    await pilot.press("enter")
    await wait_for(pilot, lambda: select.expanded, what="the select open")
    await pilot.press(*level[:3], "enter")
    await wait_for(pilot, lambda: select.value == level, what=f"the level {level}")


def said(app) -> list[str]:
    return [str(n.message) for n in shown_notifications(app)]


async def test_legacy_demo_gets_logging_set_level_and_then_logs_only_at_that_level():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        assert state(view) == "now: server default · logging/setLevel"
        await choose_level(pilot, view, "error")
        await wait_for(pilot, lambda: outgoing(app, "logging/setLevel"), what="logging/setLevel")
        assert json.loads(outgoing(app, "logging/setLevel")[0].raw)["params"] == {"level": "error"}
        await wait_for(pilot, lambda: state(view) == "now: error · logging/setLevel", what="the level shown")
        assert any("Log level set to error (logging/setLevel)" in text for text in said(app))
        # the demo honours it: of 8 messages at every level, the 4 at or above error arrive
        await app.main.connection.live.call_tool("emit_logs", {"count": 8})
        levels = [
            json.loads(e.raw)["params"]["level"]
            for e in app.store
            if e.direction is Direction.IN and e.method == "notifications/message"
        ]
        assert levels == ["error", "critical", "alert", "emergency"]


async def test_legacy_server_without_logging_is_not_sent_logging_set_level(raw_server):
    app = live_app(ServerSpec("raw", raw_server(), source="test"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        assert state(view) == "this server declares no logging capability"
        await choose_level(pilot, view, "warning")
        await wait_for(
            pilot, lambda: any("declares no logging capability" in text for text in said(app)), what="the notice"
        )
        assert any("logging/setLevel was not sent" in text for text in said(app))
        await app.main.connection.live.ping()  # a round trip later, still nothing was sent
        assert not outgoing(app, "logging/setLevel")


async def test_modern_server_gets_the_level_in_meta_and_no_request():
    app = live_app(ServerSpec("modern", [sys.executable, str(SERVERS / "modern_raw_server.py")], source="test"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        assert state(view) == "now: server default · sent in each request's _meta (2026-07-28)"
        await choose_level(pilot, view, "critical")
        await wait_for(pilot, lambda: "now: critical" in state(view), what="the level shown")
        assert any("no request was sent" in text for text in said(app))
        assert not outgoing(app, "logging/setLevel")
        # the next request carries it; the server logs at that level and above
        await app.main.connection.live.call_tool("log", {})
        call = json.loads(outgoing(app, "tools/call")[-1].raw)
        assert call["params"]["_meta"]["io.modelcontextprotocol/logLevel"] == "critical"
        await wait_for(
            pilot,
            lambda: len([e for e in app.store if e.method == "notifications/message"]) == 3,
            what="the log messages",
        )
        levels = [json.loads(e.raw)["params"]["level"] for e in app.store if e.method == "notifications/message"]
        assert levels == ["critical", "alert", "emergency"]


async def test_l_opens_the_level_dropdown_on_the_current_level_so_down_enter_picks_the_next():
    """Keys only: with no level set, `l` opens on "(unchanged)" (nothing was highlighted, and down
    enter picked "(unchanged)"), so down enter picks debug; after that `l` opens on debug."""
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        select = view.query_one("#notifications-level", Select)
        await pilot.press("l")
        await wait_for(pilot, lambda: select.expanded, what="the select open")
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: select.value == "debug", what="debug chosen")
        await pilot.press("escape", "l")
        await wait_for(pilot, lambda: select.expanded, what="the select open again")
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: select.value == "info", what="info chosen (the one after debug)")
