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
        await wait_for(pilot, lambda: composer.schema_form is not None and app.focused in composer.schema_form.query("*"),
                       what="the message field focused")
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
        await wait_for(pilot, lambda: composer.schema_form is not None and app.focused in composer.schema_form.query("*"),
                       what="the message field focused")
        await pilot.press("7")  # typed: a field keeps its digits
        assert app.main.current_view == "main" and composer.get_arguments() == {"message": "7"}
        await pilot.press("escape")
        assert app.focused is app.main.tool_list.option_list
        await pilot.press("7")
        await wait_for(pilot, lambda: app.main.current_view == "resources", what="the Resources view")
        await pilot.press("1")  # back: the tool list has the focus again (not the field)
        assert app.focused is app.main.tool_list.option_list
