"""A history per tool (F10): the last results the panel showed, newest first, each re-openable."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, choose_tool, collect_calls, live_app, wait_for, wait_for_tools
from textual.widgets import OptionList

from mcp_inspector.tui.widgets.result.history import (
    HISTORY_LIMIT,
    ResultHistory,
    ResultHistoryScreen,
    history_of,
    server_key,
)

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


def test_history_keeps_the_last_n_per_server_and_tool():
    from mcp_inspector.tui.widgets.result.history import HistoryEntry

    history = ResultHistory(limit=3)
    for n in range(5):
        history.add("s", HistoryEntry("add", f"#{n}", "ok", float(n)))
    history.add("other", HistoryEntry("add", "elsewhere", "ok", 9.0))
    assert [e.status for e in history.of("s", "add")] == ["#4", "#3", "#2"]
    assert history.of("s", "echo") == [] and len(history.of("other", "add")) == 1


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["120x40", "80x24"])
async def test_f10_lists_a_tools_results_and_reopens_one(size):
    calls: list = []
    app = live_app()
    async with app.run_test(size=size, message_hook=collect_calls(calls)) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        panel = main.result_panel
        await choose_tool(pilot, app, "add")
        for n, (a, b) in enumerate([(1, 2), (10, 20)], start=1):
            await main.composer.set_arguments({"a": a, "b": b})
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda n=n: len(calls) == n and panel.kind == "ok", what=f"call {n}")
        assert panel.payload["structuredContent"] == {"sum": 30}

        main.tool_list.option_list.focus()
        await pilot.press("f10")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ResultHistoryScreen) and bool(app.screen.query("#history-list")),
            what="the history",
        )
        options = app.screen.query_one("#history-list", OptionList)
        assert options.option_count == 2 and app.screen.focused is options
        assert "add" in str(options.get_option_at_index(0).prompt)
        # each call's arguments under its status (issue 21)
        assert '{"a": 10, "b": 20}' in str(options.get_option_at_index(0).prompt)
        assert '{"a": 1, "b": 2}' in str(options.get_option_at_index(1).prompt)
        await pilot.press("down", "enter")  # the older one: its result, and its arguments in the form
        await wait_for(pilot, lambda: app.screen is main, what="the main screen")
        assert panel.payload["structuredContent"] == {"sum": 3}
        assert "from the history" in panel.status_text
        await wait_for(pilot, lambda: main.composer.get_arguments() == {"a": 1, "b": 2}, what="the form re-filled")
        assert "from the history" in str(main.composer.query_one("#composer-status").render())
        await pilot.press("ctrl+s")  # sent again as it was
        await wait_for(pilot, lambda: len(calls) == 3 and panel.kind == "ok", what="call 3")
        assert panel.payload["structuredContent"] == {"sum": 3}
        assert len(history_of(app).of(server_key(app), "add")) == 3  # re-opening recorded nothing; call 3 did

        # another tool has its own (empty) history
        await choose_tool(pilot, app, "echo")
        await pilot.press("f10")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ResultHistoryScreen) and bool(app.screen.query("#history-list")),
            what="echo's history",
        )
        assert "No result of echo yet" in str(
            app.screen.query_one("#history-list", OptionList).get_option_at_index(0).prompt
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is main, what="the main screen")
        assert HISTORY_LIMIT >= 10
