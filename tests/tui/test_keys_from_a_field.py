"""ctrl+e (raw frame) and ctrl+n (replay) work from a composer field, where the focus is after
picking a tool: ctrl+e was the field's end of line and ctrl+n the form's 'send ""' (now
ctrl+delete). In a modal's text editor ctrl+e stays end of line (a view key remapped to ctrl+e
still wins: test_resources_view). Keys only, on the demo server."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, live_app, wait_for, wait_for_tools
from textual.widgets import Input

from mcp_inspector.tui.screens.traffic.raw_frame import RawFrameScreen

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


async def in_echo_field(pilot, app) -> Input:
    await pilot.press("escape", "slash", "escape", *"echo", "enter")
    composer = app.main.composer
    await wait_for(
        pilot,
        lambda: composer.schema_form is not None and app.focused in composer.schema_form.query("*"),
        what="the message field focused",
    )
    assert isinstance(app.focused, Input)
    return app.focused


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_ctrl_e_and_ctrl_n_work_from_a_composer_field(size):
    app = live_app()
    async with app.run_test(size=size) as pilot:
        await wait_for_tools(pilot, app)
        field = await in_echo_field(pilot, app)
        await pilot.press(*"hi", "home", "ctrl+e")
        await wait_for(pilot, lambda: isinstance(app.screen, RawFrameScreen), what="the raw frame screen")
        screen = app.screen
        editor = screen.editor
        editor.focus()
        await pilot.press("ctrl+home", "ctrl+e")  # in the modal's editor: end of line, no second screen
        await wait_for(pilot, lambda: editor.cursor_location[1] == len(editor.document.get_line(0)), what="eol")
        assert app.screen is screen
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, what="back on the main screen")
        assert app.main.composer.get_arguments() == {"message": "hi"}  # nothing typed into the form

        field.focus()
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.screen is not app.main, what="the replay file prompt")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, what="back again")
        field.focus()
        await pilot.press("end", "backspace", "backspace", "ctrl+delete")  # the form's 'send ""' moved here
        await wait_for(pilot, lambda: app.main.composer.get_arguments() == {"message": ""}, what='"" sent')
