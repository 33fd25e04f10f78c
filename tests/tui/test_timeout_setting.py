"""The request timeout is settable in the TUI (F11, or the palette's "settings: Request timeout"):
a bad value is said in the modal, a good one applies to the requests sent from then on."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, choose_tool, collect_calls, live_app, wait_for, wait_for_tools
from textual.widgets import Input, Static

from mcp_inspector.core.base.errors import RequestTimeout
from mcp_inspector.tui.messages import CallFailed, CallFinished
from mcp_inspector.tui.screens.dialogs.timeout_setting import TimeoutScreen, parse_timeout

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


def ready(app) -> bool:
    return isinstance(app.screen, TimeoutScreen) and bool(app.screen.query("#timeout-input"))


def test_parse_timeout():
    assert parse_timeout("2.5") == (True, 2.5, "")
    assert parse_timeout(" 30s ") == (True, 30.0, "")
    assert parse_timeout("none")[:2] == (True, None) and parse_timeout("0")[:2] == (True, None)
    assert parse_timeout("soon")[0] is False and "not a number" in parse_timeout("soon")[2]
    assert parse_timeout("-1")[0] is False and parse_timeout("nan")[0] is False


async def test_f11_sets_the_timeout_of_new_requests():
    calls: list = []
    app = live_app(timeout=20.0)
    async with app.run_test(size=SIZE, message_hook=collect_calls(calls)) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        await choose_tool(pilot, app, "long_running_task")
        await main.composer.set_arguments({"duration_seconds": 2, "steps": 1})  # no progress for 2 s
        main.tool_list.option_list.focus()

        await pilot.press("f11")
        await wait_for(pilot, lambda: ready(app), what="the timeout setting")
        field = app.screen.query_one("#timeout-input", Input)
        assert field.value == "20" and app.screen.focused is field
        field.value = "soon"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TimeoutScreen)  # stays open, says why
        assert "not a number" in str(app.screen.query_one("#timeout-problem", Static).render())
        field.value = "0.3"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is main, what="the main screen")
        assert main.timeout == 0.3 and main.connection.session.connection.default_timeout == 0.3
        assert main.connection.timeout == 0.3  # what the connection of a switch starts with

        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: calls, what="the call's end", timeout=15)
        assert isinstance(calls[0], CallFailed) and isinstance(calls[0].error, RequestTimeout)

        # escape keeps the value; "none" waits for ever (the 2 s call now finishes)
        await pilot.press("f11")
        await wait_for(pilot, lambda: ready(app), what="the setting again")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is main, what="the main screen")
        assert main.timeout == 0.3
        app.action_request_timeout()
        await wait_for(pilot, lambda: ready(app), what="the setting from the palette action")
        app.screen.query_one("#timeout-input", Input).value = "none"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is main, what="the main screen")
        assert main.timeout is None and main.connection.timeout is None
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(calls) == 2, what="the second call's end", timeout=15)
        assert isinstance(calls[1], CallFinished)
