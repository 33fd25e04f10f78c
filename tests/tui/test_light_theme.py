"""Readable on the light theme: every piece of a traffic row (time, seq, id, latency, preview)
stands out from the log's background. The views' muted parts are "auto" colours, which a
partial Rich style used to turn into white: white on #f0f0f0."""

from __future__ import annotations

import pytest
from app_helpers import live_app, wait_for, wait_for_tools
from textual.color import Color

from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.widgets.store_lines import StoreLinesView

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""

    def luminance(colour: Color) -> float:
        def channel(value: int) -> float:
            c = value / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def worst_contrast(log: StoreLinesView, rows: int) -> tuple[float, str]:
    worst, where = 21.0, ""
    for y in range(rows):
        for segment in log.render_line(y):
            style = segment.style
            if not segment.text.strip() or style is None or style.color is None or style.bgcolor is None:
                continue
            ratio = contrast(Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor))
            if ratio < worst:
                worst, where = ratio, segment.text
    return worst, where


@pytest.mark.parametrize("theme", ["inspector-light", "inspector-dark", "textual-light"])
async def test_every_part_of_a_traffic_row_is_readable(theme):
    app = live_app(config=TuiConfig(theme=theme))
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_for_tools(pilot, app)
        assert app.theme == theme
        await pilot.press("5")
        log = app.main.query_one("#view-traffic StoreLinesView")
        await wait_for(pilot, lambda: log.entry_at(4) is not None, what="traffic rows")
        await pilot.pause()
        ratio, text = worst_contrast(log, 5)
        assert ratio >= 3.0, f"{text!r}: contrast {ratio:.2f} on {theme}"


async def test_the_muted_parts_stay_readable_after_switching_to_the_light_theme():
    app = live_app(config=TuiConfig(theme="inspector-dark"))
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_for_tools(pilot, app)
        log = app.main.query_one("#live-traffic", StoreLinesView)
        await wait_for(pilot, lambda: log.entry_at(4) is not None, what="traffic rows")
        app.theme = "inspector-light"
        await wait_for(pilot, lambda: worst_contrast(log, 5)[0] >= 3.0, what="the light theme's colours")
        ratio, text = worst_contrast(log, 5)
        assert ratio >= 3.0, f"{text!r}: contrast {ratio:.2f} after the switch"


def chip_contrasts(option_list) -> dict[tuple[str, bool], float]:
    """The worst contrast of each annotation chip (RO DESTR IDEM OPEN) in the tool list, on the
    highlighted row and on the others."""
    highlight = option_list.get_component_rich_style("option-list--option-highlighted").bgcolor
    worst: dict[tuple[str, bool], float] = {}
    for y in range(option_list.size.height):
        strip = option_list.render_line(y)
        on_cursor = any(s.style is not None and s.style.bgcolor == highlight for s in strip if not s.text.strip())
        for segment in strip:
            chip, style = segment.text.strip(), segment.style
            if chip in ("RO", "DESTR", "IDEM", "OPEN") and style is not None and style.color and style.bgcolor:
                ratio = contrast(Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor))
                worst[chip, on_cursor] = min(worst.get((chip, on_cursor), 21.0), ratio)
    return worst


@pytest.mark.parametrize("theme", ["inspector-light", "textual-light", "inspector-dark"])
async def test_the_tool_lists_annotation_chips_are_readable_on_the_highlighted_row_too(theme):
    app = live_app(config=TuiConfig(theme=theme))
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_for_tools(pilot, app)
        option_list = app.main.tool_list.option_list
        option_list.focus()
        await pilot.pause()
        worst = chip_contrasts(option_list)
        assert {chip for chip, _ in worst} == {"RO", "DESTR", "IDEM", "OPEN"}
        assert any(on_cursor for _, on_cursor in worst)  # the first tool (echo: RO IDEM) is highlighted
        assert min(worst.values()) >= 4.5, f"{theme}: {worst}"


@pytest.mark.parametrize("theme", ["inspector-light", "textual-light"])
async def test_the_http_views_muted_columns_are_readable_on_a_light_theme(theme):
    from http_apps import Clock, HttpViewApp, modern_session

    from mcp_inspector.core.traffic.http_log import HttpLog
    from mcp_inspector.core.traffic.store import TrafficStore
    from mcp_inspector.tui.app import InspectorApp
    from mcp_inspector.tui.look.themes import builtin_themes

    class LightHttpApp(HttpViewApp):
        get_theme_variable_defaults = InspectorApp.get_theme_variable_defaults

        def on_load(self) -> None:
            for each in builtin_themes():
                self.register_theme(each)
            self.theme = theme

    clock = Clock()
    store = TrafficStore()
    store.http_log = HttpLog(cap=100, clock=clock)
    modern_session(clock, store.http_log)
    app = LightHttpApp(store)
    async with app.run_test(size=(140, 20)) as pilot:
        rows = app.query_one("#view-http").exchange_list
        await wait_for(pilot, lambda: rows.row_count == 6, what="the exchanges")
        await pilot.pause()
        ratio, text = worst_contrast(rows, 6)
        assert ratio >= 3.0, f"{text!r}: contrast {ratio:.2f} on {theme}"
