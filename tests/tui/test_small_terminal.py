"""80x24 is usable, by keys alone, and the layout follows the terminal: below 110 columns the
composer sits over the result (beside it, at 80 columns, it had 23 columns), below 32 rows the
live traffic strip gives its rows to them; the traffic filter bar takes two rows when one would
cut its toggles off, and its inputs show their text while they have the focus."""

from __future__ import annotations

import pytest
from app_helpers import live_app, wait_for, wait_for_tools
from textual.widgets import Input
from traffic_apps import screen_text

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


async def choose_by_keys(pilot, app, name: str) -> None:
    await pilot.press("escape", "slash", "escape", *name, "enter")  # out of a field, clear the filter
    await wait_for(pilot, lambda: (app.main.composer.tool or {}).get("name") == name, what=name)
    composer = app.main.composer
    await wait_for(
        pilot,
        lambda: composer.schema_form is not None and app.focused in composer.schema_form.query("*"),
        what="the first field focused",
    )


async def test_at_80x24_the_composer_stacks_over_the_result_and_a_call_goes_through_by_keys():
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        assert main.has_class("-narrow") and main.has_class("-short")
        composer, result = main.composer, main.result_panel
        assert composer.region.width >= 40, composer.region  # it was 23
        assert composer.region.bottom <= result.region.y  # over the result, not beside it
        assert main.query_one("#live-traffic").display is False  # 5 shows the traffic

        await choose_by_keys(pilot, app, "echo")
        await pilot.press(*"hello small terminal", "ctrl+s")
        await wait_for(pilot, lambda: result.kind == "ok", what="the result")
        assert "hello small terminal" in screen_text(app)

        await pilot.press("ctrl+t")  # the JSON editor: more than one line to edit in
        editor = composer.json_editor
        await wait_for(pilot, lambda: editor.region.height > 0, what="the JSON editor")
        assert editor.region.height >= 4, editor.region


async def test_the_layout_follows_a_resize_between_80x24_and_140x45():
    app = live_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        assert main.has_class("-wide") and main.has_class("-tall")
        assert main.composer.region.y == main.result_panel.region.y  # side by side
        assert main.query_one("#live-traffic").region.height >= 10
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: main.has_class("-narrow") and main.has_class("-short"), what="the narrow layout")
        await pilot.pause()
        assert main.composer.region.bottom <= main.result_panel.region.y
        await pilot.resize_terminal(140, 45)
        await wait_for(pilot, lambda: main.has_class("-wide"), what="the wide layout")
        await pilot.pause()
        assert main.composer.region.y == main.result_panel.region.y


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_the_traffic_filter_bar_shows_every_toggle(size):
    app = live_app()
    async with app.run_test(size=size) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("5")
        await wait_for(pilot, lambda: app.main.current_view == "traffic", what="the Traffic view")
        await pilot.pause()
        view = app.main.query_one("#view-traffic")
        bar = view.query_one("TrafficFilterBar")
        assert bar.has_class("-stacked") == (size[0] < 112)
        for toggle in bar.query("FilterToggle"):
            region = toggle.region
            assert region.width > 0 and region.right <= size[0], (toggle.id, region)
            assert str(toggle.render()) in screen_text(app).splitlines()[region.y]


async def test_a_focused_filter_input_shows_what_is_typed():
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("5")
        await wait_for(pilot, lambda: app.main.current_view == "traffic", what="the Traffic view")
        methods = app.main.query_one("#view-traffic #filter-methods", Input)
        methods.focus()
        await pilot.press(*"tools/*")
        await pilot.pause()
        assert app.focused is methods and methods.value == "tools/*"
        assert methods.content_region.height == 1  # a focused Input had a tall border: no row left for the text
        assert "tools/*" in screen_text(app).splitlines()[methods.region.y]
