"""The first tool list of a connection is its baseline: nothing is marked new, even when the server
announces a change while it is being listed (server-everything does, on every connect); a
reconnect to the same server compares with what that server listed before, and says so."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, live_app, outgoing, wait_for, wait_for_tools
from conftest import raw_server_command

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.pilot_steps import shown_notifications

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


def incoming(app, method: str) -> list:
    return [e for e in app.store if e.direction is Direction.IN and e.method == method]


def answered(app, method: str) -> bool:
    """Every request of ``method`` we sent has its response."""
    sent = outgoing(app, method)
    return bool(sent) and all(e.reply_seq is not None for e in sent)


def relisted(app) -> bool:
    """Every announced change was followed by a tools/list, and every tools/list is answered:
    what the app marks now is its final word on what it was told (server-everything announces
    changes several times around each connect, and a loaded machine spreads them out)."""
    last_change = last_list = -1
    for n, e in enumerate(app.store):
        if e.direction is Direction.IN and e.method == "notifications/tools/list_changed":
            last_change = n
        elif e.direction is Direction.OUT and e.method == "tools/list":
            last_list = n
    return last_list > last_change and answered(app, "tools/list")


def changed_titles(app) -> list[str]:
    return [str(n.title) for n in shown_notifications(app) if "Tool list changed" in str(n.title or "")]


async def test_list_changed_during_the_first_listing_marks_nothing_then_reconnect_shows_the_diff(tmp_path):
    extra = tmp_path / "extra-tools.txt"
    app = live_app(ServerSpec("raw", raw_server_command("changed-during-list", extra_tools=extra), source="test"))
    async with app.run_test(size=SIZE) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        await wait_for(
            pilot,
            lambda: incoming(app, "notifications/tools/list_changed") and answered(app, "tools/list"),
            what="the announced change handled",
        )
        await wait_for(pilot, lambda: len(main.tool_list.tools) == 3, what="the tools")
        assert main.tool_list.marks == {} and main.tool_list.removed == []
        assert changed_titles(app) == []
        assert "new" not in str(main.tool_list.query_one("#tool-summary").render())

        # the server's tool list changes between two connections: ctrl+r compares with before
        extra.write_text("extra_one\n")
        pid = main.status_bar.status.pid
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: main.status_bar.status.state == "connected" and main.status_bar.status.pid != pid,
            what="the new connection",
        )
        await wait_for(pilot, lambda: "extra_one" in {t["name"] for t in main.tool_list.tools}, what="the new tool")
        assert main.tool_list.marks == {"extra_one": "added"}
        assert changed_titles(app) == ["Tool list changed since the last connection"]
        message = [str(n.message) for n in shown_notifications(app) if "since the last connection" in str(n.title)][-1]
        assert "added extra_one" in message
        assert message.splitlines()[-1] == "1 compatible"  # classified as mcp-inspector diff would


@pytest.mark.everything
async def test_server_everything_connects_without_new_marks(server_everything):
    app = live_app(ServerSpec("everything", server_everything, source="test"), timeout=30)
    async with app.run_test(size=SIZE) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        await wait_for(pilot, lambda: relisted(app), what="every announced change listed and answered")
        await pilot.pause()
        assert main.tool_list.marks == {}, main.tool_list.marks
        assert changed_titles(app) == []
        # a restart (f8) of the same server: the same tools, so nothing marked either
        pid = main.status_bar.status.pid
        lists_before = len(outgoing(app, "tools/list"))
        await pilot.press("f8")
        await wait_for(
            pilot,
            lambda: main.status_bar.status.state == "connected" and main.status_bar.status.pid != pid,
            what="the restarted server",
        )
        await wait_for(
            pilot,
            lambda: len(outgoing(app, "tools/list")) > lists_before and relisted(app),
            what="the restarted server's tools listed and every announced change after",
        )
        await pilot.pause()
        assert main.tool_list.marks == {}, main.tool_list.marks
        assert changed_titles(app) == []
