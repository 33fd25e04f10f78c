"""ctrl+z maximizes the panel the focus is in (the composer from one of its fields, the traffic
log, the frame detail's JSON) and ctrl+z or escape restores it; in the tool list ctrl+z widens
the list to half the screen and back. Keys only, on the demo server, at 80x24 and 120x40."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, live_app, wait_for, wait_for_tools

from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.dialogs.connect import ConnectScreen
from mcp_inspector.tui.screens.traffic.frame_detail import FrameDetailScreen

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_ctrl_z_maximizes_the_focused_panel_and_widens_the_tool_list(size):
    app = live_app()
    async with app.run_test(size=size) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        tools = main.tool_list
        narrow = tools.outer_size.width
        await pilot.press("ctrl+z")  # the tool list has the focus: wider, then back
        await wait_for(pilot, lambda: tools.outer_size.width == size[0] // 2, what="the tool list at half the screen")
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: tools.outer_size.width == narrow, what="the tool list back")

        await pilot.press("slash", *"echo", "enter")
        composer = main.composer
        await wait_for(
            pilot,
            lambda: composer.schema_form is not None and app.focused in composer.schema_form.query("*"),
            what="the message field focused",
        )
        await pilot.press("ctrl+z")  # from a text field: the whole composer (form and Send)
        await wait_for(pilot, lambda: main.maximized is composer, what="the composer maximized")
        await wait_for(pilot, lambda: composer.outer_size.width == size[0], what="the composer as wide as the screen")
        await pilot.press(*"hi", "ctrl+z")
        await wait_for(pilot, lambda: main.maximized is None, what="restored")
        assert composer.get_arguments() == {"message": "hi"}

        await pilot.press("escape", "5")  # the Traffic view: its log
        await wait_for(pilot, lambda: main.current_view == "traffic", what="the Traffic view")
        log = main.query_one("#view-traffic").log_view
        await wait_for(pilot, lambda: app.focused is log, what="the log focused")
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: main.maximized is log, what="the log maximized")
        await pilot.press("escape")
        await wait_for(pilot, lambda: main.maximized is None, what="restored by escape")

        await pilot.press("enter")  # the frame detail: its pretty JSON, then escape restores, escape closes
        await wait_for(pilot, lambda: isinstance(app.screen, FrameDetailScreen), what="the frame detail")
        detail = app.screen
        pretty = detail.query_one("#frame-pretty")
        await wait_for(pilot, lambda: app.focused is pretty, what="the pretty JSON focused")
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: detail.maximized is pretty, what="the pretty JSON maximized")
        await pilot.press("escape")
        await wait_for(pilot, lambda: detail.maximized is None, what="restored")
        assert app.screen is detail

        await pilot.press("escape", "f7")  # a one-line field alone on the screen helps no one: not maximized
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectScreen), what="the server picker")
        await pilot.press("ctrl+z")
        await wait_for(
            pilot,
            lambda: any("Nothing here to maximize" in str(n.message) for n in shown_notifications(app)),
            what="the note",
        )
        assert app.screen.maximized is None
