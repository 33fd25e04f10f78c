"""The status bar keeps to one line at 80 columns: pid, transport and era are dropped first,
then the end of the line is cut with an ellipsis (it wrapped to two or three lines)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from mcp_inspector.tui.messages import ConnectionStatus
from mcp_inspector.tui.widgets.status_bar import StatusBar, connected_parts, fit_parts

pytestmark = pytest.mark.anyio

BUSY = ConnectionStatus(
    "connected", "node", "node server.js", "2025-11-25", 123456, in_flight=3, transport="streamable-http", era="legacy"
)


class Bar(App):
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")


def shown(app) -> list[str]:
    return str(app.query_one(StatusBar).render()).splitlines()


async def test_a_long_connected_status_fits_one_line_at_80_columns():
    app = Bar()
    async with app.run_test(size=(80, 10)) as pilot:
        bar = app.query_one(StatusBar)
        bar.server_name = "a-server-with-a-long-name-from-config"
        bar.status = BUSY
        await pilot.pause()
        [line] = shown(app)
        assert "connected to a-server-with-a-long-name-from-config" in line and "3 in flight" in line
        assert "pid" not in line and bar.size.height == 1
        bar.switching = "another-server"
        await pilot.pause()
        [line] = shown(app)
        assert line.endswith("switching to another-server…") and "3 in flight" in line and bar.size.height == 1
        bar.switching = ""
        await pilot.resize_terminal(140, 10)
        await pilot.pause()
        [line] = shown(app)
        assert "pid 123456" in line and "streamable-http" in line  # room enough: everything


async def test_a_long_read_only_status_is_cut_with_an_ellipsis():
    app = Bar()
    async with app.run_test(size=(80, 10)) as pilot:
        bar = app.query_one(StatusBar)
        bar.status = ConnectionStatus("read-only", "demo", "", "2025-11-25", detail="x" * 120, era="legacy")
        await pilot.pause()
        [line] = shown(app)
        assert line.endswith("…") and bar.size.height == 1


def test_the_parts_dropped_first():
    parts = connected_parts(BUSY, name="srv")
    assert (
        fit_parts(parts, 0)
        == "connected to srv  ·  streamable-http  ·  legacy 2025-11-25  ·  pid 123456  ·  3 in flight"
    )
    assert fit_parts(parts, 60) == "connected to srv  ·  legacy 2025-11-25  ·  3 in flight"
    assert fit_parts(parts, 30) == "connected to srv  ·  3 in flight"
    assert fit_parts(parts, 24) == "connected to srv  ·  3 in flight"  # the name too short to cut: the bar cuts the end
    long = connected_parts(BUSY, name="n" * 60)
    assert fit_parts(long, 60) == f"connected to {'n' * 30}…  ·  3 in flight"
