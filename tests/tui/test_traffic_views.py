"""NotificationsView and ConsoleView fed by real servers over real pipes."""

from __future__ import annotations

import sys

import pytest
from textual.app import ComposeResult
from textual.widgets import Select
from traffic_apps import ThemedApp, frame, screen_text

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.stdio import StdioTransport
from mcp_inspector.tui.pilot_steps import wait_for
from mcp_inspector.tui.widgets.views.console_view import ConsoleView
from mcp_inspector.tui.widgets.views.notifications.view import NotificationLines, NotificationsView

pytestmark = pytest.mark.anyio
DEMO = [sys.executable, "-m", "mcp_inspector.demo"]


class ViewsApp(ThemedApp):
    def __init__(self, store: TrafficStore) -> None:
        super().__init__()
        self.store = store
        self.levels: list[str] = []

    def compose(self) -> ComposeResult:
        yield NotificationsView(self.store)
        yield ConsoleView(self.store)

    def on_notifications_view_set_level_requested(self, message: NotificationsView.SetLevelRequested) -> None:
        self.levels.append(message.level)


async def test_notifications_from_the_demo_with_levels_counts_and_set_level(tmp_path):
    store = TrafficStore(spill_dir=tmp_path)
    app = ViewsApp(store)
    async with app.run_test(size=(140, 40)) as pilot:
        view = app.query_one(NotificationsView)
        view.query_one(Select).value = "warning"
        await wait_for(pilot, lambda: app.levels == ["warning"], what="the level chosen")
        async with McpSession(StdioTransport(DEMO), store=store, timeout=20) as session:
            await session.initialize()
            await session.call_tool("emit_logs", {"count": 8})
            lines = app.query_one(NotificationLines)
            await wait_for(pilot, lambda: lines.row_count >= 9)  # initialized + 8 messages
            # the counts refresh at 2 Hz: wait for them to count the 8 messages
            await wait_for(pilot, lambda: "9 notifications" in screen_text(app), what="the counts")
            text = screen_text(app)
    for level in ("DEBUG", "INFO", "WARNING", "ERROR", "EMERGENCY"):
        assert level in text
    assert "[demo.emit_logs]" in text
    assert "notifications/initialized" in text
    counts = view.notification_counts()
    assert counts["notifications/message"] == 8 and counts["notifications/initialized"] == 1
    assert "message 8" in text and "9 notifications" in text
    # only notifications are indexed, never requests or responses
    assert all(store.get(lines.seq_at(row)).kind is Kind.NOTIFICATION for row in range(lines.row_count))


async def test_console_shows_stderr_and_process_events(raw_server, tmp_path):
    store = TrafficStore(spill_dir=tmp_path)
    app = ViewsApp(store)
    async with app.run_test(size=(140, 40)) as pilot:
        console = app.query_one(ConsoleView)
        async with McpSession(StdioTransport(raw_server("stderr-chatter")), store=store, timeout=20) as session:
            await session.initialize()
            await session.ping()
            await wait_for(pilot, lambda: store.kind_counts[Kind.STDERR] >= 3)
        await wait_for(
            pilot, lambda: console.row_count == store.kind_counts[Kind.STDERR] + store.kind_counts[Kind.EVENT]
        )
        lines = [console.render_line(y).text for y in range(console.row_count)]
    assert any("raw-server: received initialize" in line for line in lines)
    assert any("raw-server: received ping" in line for line in lines)
    assert any("●" in line for line in lines)  # process start/exit events


async def test_notification_lines_word_each_method():
    store = TrafficStore(cap=100)
    cases = {
        "notifications/progress": (
            {"progressToken": 7, "progress": 3, "total": 10, "message": "working"},
            "progress 3/10 token=7 working",
        ),
        "notifications/tools/list_changed": ({}, "tools list changed"),
        "notifications/resources/updated": ({"uri": "file:///x"}, "resource updated file:///x"),
        "notifications/cancelled": ({"requestId": 4, "reason": "user"}, "cancelled request 4 (user)"),
    }
    for method, (params, _) in cases.items():
        store.append(
            Direction.IN,
            Kind.NOTIFICATION,
            frame({"jsonrpc": "2.0", "method": method, "params": params}),
            method=method,
        )
    store.append(Direction.IN, Kind.RESPONSE, frame({"jsonrpc": "2.0", "id": 1, "result": {}}))
    app = ViewsApp(store)
    async with app.run_test(size=(140, 30)) as pilot:
        lines = app.query_one(NotificationLines)
        await wait_for(pilot, lambda: lines.row_count == len(cases), what="the notifications listed")
        rendered = [lines.render_line(y).text for y in range(lines.row_count)]
    assert len(rendered) == len(cases)
    for line, (_, expected) in zip(rendered, cases.values(), strict=True):
        assert expected in line
