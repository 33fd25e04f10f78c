"""Readable on the light theme: every piece of a traffic row (time, seq, id, latency, preview)
stands out from the log's background. The views' muted parts are "auto" colours, which a
partial Rich style used to turn into white: white on #f0f0f0."""

from __future__ import annotations

import pytest
from textual.color import Color

from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.widgets.store_lines import StoreLinesView

from app_helpers import live_app, wait_for, wait_for_tools

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
        await pilot.pause(0.2)
        ratio, text = worst_contrast(log, 5)
        assert ratio >= 3.0, f"{text!r}: contrast {ratio:.2f} after the switch"
