"""On the main view, by keys: enter on a tool focuses its form's first field (not the Form/JSON
tabs above it; a tool without arguments: the Send button)."""

from __future__ import annotations

import pytest

from app_helpers import SIZE, live_app, wait_for, wait_for_tools

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


async def choose_by_keys(pilot, app, name: str) -> None:
    app.main.tool_list.option_list.focus()
    await pilot.press("slash", "escape", *name, "enter")  # clear an earlier filter
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

