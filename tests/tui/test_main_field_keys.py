"""On the main view, by keys: enter on a tool focuses its form's first field (not the Form/JSON
tabs above it; a tool without arguments: the Send button), and escape in a composer field goes
back to the tool list, where the digits switch views again (in a field they are typed)."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, live_app, wait_for, wait_for_tools

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


async def choose_by_keys(pilot, app, name: str) -> None:
    await pilot.press("escape", "slash", "escape", *name, "enter")  # out of a field, clear the filter
    await wait_for(pilot, lambda: (app.main.composer.tool or {}).get("name") == name, what=name)


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_enter_on_a_tool_focuses_its_first_field_and_typing_fills_it(size):
    app = live_app()
    async with app.run_test(size=size) as pilot:
        await wait_for_tools(pilot, app)
        await choose_by_keys(pilot, app, "echo")
        composer = app.main.composer
        await wait_for(
            pilot,
            lambda: composer.schema_form is not None and app.focused in composer.schema_form.query("*"),
            what="the message field focused",
        )
        await pilot.press(*"hi")
        assert composer.get_arguments() == {"message": "hi"}

        await choose_by_keys(pilot, app, "toggle_extra_tools")  # no arguments: Send has the focus
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "send-button", what="Send focused")


async def test_escape_leaves_a_composer_field_so_digits_switch_views_again():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await choose_by_keys(pilot, app, "echo")
        composer = app.main.composer
        await wait_for(
            pilot,
            lambda: composer.schema_form is not None and app.focused in composer.schema_form.query("*"),
            what="the message field focused",
        )
        await pilot.press("7")  # typed: a field keeps its digits
        assert app.main.current_view == "main" and composer.get_arguments() == {"message": "7"}
        await pilot.press("escape")
        assert app.focused is app.main.tool_list.option_list
        await pilot.press("7")
        await wait_for(pilot, lambda: app.main.current_view == "resources", what="the Resources view")
        await pilot.press("1")  # back: the tool list has the focus again (not the field)
        assert app.focused is app.main.tool_list.option_list


async def test_escape_escape_3_typed_quickly_switches_to_notifications_the_first_time():
    """A terminal (tmux within its escape-time, 500 ms) sends escape escape 3 as ESC ESC 3; Textual
    read the last ESC 3 as the option+3 character "£", so the view did not switch until 3 again."""
    from textual._xterm_parser import XTermParser

    app = live_app()  # making the app sets up how ESC digit is read (58b2b2a): parse after it
    parser = XTermParser()
    keys = [event.key for event in [*parser.feed("\x1b\x1b3"), *parser.feed("")]]
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await choose_by_keys(pilot, app, "echo")
        composer = app.main.composer
        await wait_for(
            pilot,
            lambda: composer.schema_form is not None and app.focused in composer.schema_form.query("*"),
            what="the message field focused",
        )
        await pilot.press(*keys)
        await wait_for(pilot, lambda: app.main.current_view == "notifications", what="the Notifications view")
        assert composer.get_arguments() == {}  # nothing typed into the field on the way


async def test_ctrl_k_cancels_a_call_in_flight_from_a_text_field_and_edits_it_otherwise():
    from app_helpers import collect_calls

    from mcp_inspector.core.base.errors import RequestCancelled

    calls: list = []
    app = live_app()
    async with app.run_test(size=(80, 24), message_hook=collect_calls(calls)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_by_keys(pilot, app, "long_running_task")
        composer = app.main.composer
        await wait_for(
            pilot,
            lambda: composer.schema_form is not None and app.focused in composer.schema_form.query("*"),
            what="the duration field focused",
        )
        field = app.focused
        await pilot.press("ctrl+a", *"30", "home", "ctrl+k")  # nothing in flight: the field's own key
        assert field.value == "" and app.main.calls.in_flight == set()
        await pilot.press(*"30")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.main.calls.in_flight, what="the call in flight")
        assert app.focused is field
        await pilot.press("home", "ctrl+k")  # a call in flight: ctrl+k cancels it, the field keeps its text
        await wait_for(pilot, lambda: calls, what="the cancelled call")
        assert isinstance(calls[0].error, RequestCancelled)
        assert field.value == "30" and app.focused is field
