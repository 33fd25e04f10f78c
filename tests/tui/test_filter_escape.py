"""Escape in a filter field, by keys only: the first escape clears it, the next leaves it for the
list, where the digits switch views again (in a field they are typed)."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, live_app, wait_for, wait_for_tools
from textual.widgets import Input

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_escape_twice_leaves_the_tool_filter_so_5_opens_traffic(size):
    app = live_app()
    async with app.run_test(size=size) as pilot:
        await wait_for_tools(pilot, app)
        tools = app.main.tool_list
        await pilot.press("1", "slash", *"ech")
        assert app.focused is tools.filter_input and tools.filter_input.value == "ech"
        await pilot.press("escape")  # clears
        assert tools.filter_input.value == ""
        await pilot.press("escape")  # leaves
        assert app.focused is tools.option_list
        await pilot.press("5")
        await wait_for(pilot, lambda: app.main.current_view == "traffic", what="the Traffic view")
        assert tools.filter_input.value == ""  # the 5 was not typed into the filter


async def test_escape_twice_leaves_the_traffic_filter_so_digits_switch_views():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("5")
        await wait_for(pilot, lambda: app.main.current_view == "traffic", what="the Traffic view")
        methods = app.main.query_one("#view-traffic #filter-methods", Input)
        for _ in range(12):  # tab round to the method filter
            if app.focused is methods:
                break
            await pilot.press("tab")
        assert app.focused is methods
        await pilot.press(*"tools")
        await pilot.press("escape")
        assert methods.value == ""
        await pilot.press("escape")
        assert not isinstance(app.focused, Input)
        await pilot.press("1")
        await wait_for(pilot, lambda: app.main.current_view == "main", what="the main view")
        assert methods.value == ""


async def test_escape_twice_leaves_the_notifications_filter_so_digits_switch_views():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("3")
        await wait_for(pilot, lambda: app.main.current_view == "notifications", what="the Notifications view")
        method = app.main.query_one("#notifications-method", Input)
        await pilot.press("slash", *"message")
        assert app.focused is method and method.value == "message"
        await pilot.press("escape", "escape")
        assert not isinstance(app.focused, Input)
        await pilot.press("1")
        await wait_for(pilot, lambda: app.main.current_view == "main", what="the main view")
