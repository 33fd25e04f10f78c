"""The notifications view's filter (method terms with completion, minimum log level), the
folding of identical consecutive notifications, and the rates per method, fed by the demo
server over real pipes (and, for the storm, a real store of 100k entries)."""

from __future__ import annotations

import sys
import time

import pytest
from textual.app import ComposeResult
from textual.widgets import Input, Select, Static
from traffic_apps import ThemedApp, frame

from mcp_inspector.core.base import jsonrpc
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.stdio import StdioTransport
from mcp_inspector.tui.pilot_steps import wait_for
from mcp_inspector.tui.widgets.views.notifications.filter import MethodSuggester, NotificationFilter
from mcp_inspector.tui.widgets.views.notifications.view import NotificationLines, NotificationsView
from mcp_inspector.tui.widgets.views.traffic.filter import FilterToggle

pytestmark = pytest.mark.anyio
DEMO = [sys.executable, "-m", "mcp_inspector.demo"]


class NotesApp(ThemedApp):
    def __init__(self, store: TrafficStore) -> None:
        super().__init__()
        self.store = store

    def compose(self) -> ComposeResult:
        yield NotificationsView(self.store)


def rows(lines: NotificationLines) -> list[str]:
    return [lines.format_entry(lines.entry_at(row)).plain for row in range(lines.row_count)]


def counts_text(view: NotificationsView) -> str:
    return str(view.query_one("#notifications-counts", Static).render())


async def choose(pilot, select: Select, downs: int) -> None:
    """Pick an option by keyboard: focus, open, move down, enter."""
    select.focus()
    await wait_for(pilot, lambda: select.has_focus, what="the select focused")
    await pilot.press("enter")
    await wait_for(pilot, lambda: select.expanded, what="the select open")
    for _ in range(downs):
        await pilot.press("down")
    await pilot.press("enter")
    await wait_for(pilot, lambda: not select.expanded, what="the select closed")


async def test_level_and_method_filter_on_the_demos_logs(tmp_path):
    store = TrafficStore(spill_dir=tmp_path)
    app = NotesApp(store)
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(NotificationsView)
        lines = view.notification_lines
        async with McpSession(StdioTransport(DEMO), store=store, timeout=20) as session:
            await session.initialize()
            await session.call_tool("emit_logs", {"count": 8})
            await wait_for(pilot, lambda: lines.row_count == 9)  # initialized + one message per level
        # logs at or above error (4 of the 8); the initialized notification is no log and stays
        level = view.query_one("#notifications-min-level", Select)
        await choose(pilot, level, 4)  # every level, info, notice, warning, error
        assert level.value == "error"
        await wait_for(pilot, lambda: lines.row_count == 5)
        shown = rows(lines)
        assert [line.split()[2] for line in shown[1:]] == ["ERROR", "CRITICAL", "ALERT", "EMERGENCY"]
        assert "notifications/initialized" in shown[0]
        # typed terms, the suggestion taken with the right arrow: only the initialized one
        method = view.query_one("#notifications-method", Input)
        method.focus()
        await pilot.press(*"init")
        await wait_for(pilot, lambda: method._suggestion == "initialized")
        await pilot.press("right", "enter")
        assert method.value == "initialized"
        await wait_for(pilot, lambda: lines.row_count == 1)
        assert lines.has_focus  # enter goes back to the list
        # !term hides: every log at or above error, not the initialized one
        method.value = "!initialized"
        await wait_for(pilot, lambda: lines.row_count == 4)
        assert all("notifications/initialized" not in line for line in rows(lines))
        await wait_for(pilot, lambda: "4 rows shown" in str(view.query_one("#notifications-shown", Static).render()))
        # a glob, and everything back
        method.value = "*/mess*"
        level.clear()
        await wait_for(pilot, lambda: lines.row_count == 8)
        method.value = ""
        await wait_for(pilot, lambda: lines.row_count == 9)


async def test_a_storm_of_list_changed_is_one_row_with_a_count(tmp_path):
    """toggle_extra_tools sends notifications/tools/list_changed each time: five in a row fold into one."""
    store = TrafficStore(spill_dir=tmp_path)
    app = NotesApp(store)
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(NotificationsView)
        lines = view.notification_lines
        async with McpSession(StdioTransport(DEMO), store=store, timeout=20, auto_refresh=False) as session:
            await session.initialize()
            for _ in range(5):
                await session.call_tool("toggle_extra_tools", {})
            await session.call_tool("emit_logs", {"count": 1})
            for _ in range(2):
                await session.call_tool("toggle_extra_tools", {})
            await wait_for(pilot, lambda: store.method_counts["notifications/tools/list_changed"] == 7)
            await wait_for(pilot, lambda: lines.row_count == 4 and "×2" in rows(lines)[3])
        shown = rows(lines)
        assert "×5" in shown[1] and "tools list changed" in shown[1]
        assert "DEBUG" in shown[2]
        assert "×2" in shown[3]
        # the count grows on the row as more of the run arrive (no new row)
        raw = frame(jsonrpc.notification("notifications/tools/list_changed", {}))
        store.append(Direction.IN, Kind.NOTIFICATION, raw, method="notifications/tools/list_changed")
        await wait_for(pilot, lambda: "×3" in rows(lines)[3])
        assert lines.row_count == 4
        # folding off (keyboard): one row each
        toggle = view.query_one("#notifications-collapse", FilterToggle)
        toggle.focus()
        await pilot.press("space")
        await wait_for(pilot, lambda: lines.row_count == 1 + 5 + 1 + 3)
        assert not any("×" in line for line in rows(lines))


async def test_rates_per_method_and_the_cost_of_a_tick_in_a_100k_storm(tmp_path):
    """100k notifications in memory, a storm going on: the summary names the storm with its rate,
    and a tick reads only the entries that arrived since the last one."""
    store = TrafficStore(cap=200_000, spill_dir=tmp_path)
    changed = frame(jsonrpc.notification("notifications/tools/list_changed", {}))
    old = time.time() - 120  # long ago: not in the rate window
    for i in range(100_000):
        listed = i % 2 == 0  # the last one is a log message
        store.append(
            Direction.IN,
            Kind.NOTIFICATION,
            changed
            if listed
            else frame(jsonrpc.notification("notifications/message", {"level": "info", "data": f"m{i}"})),
            method="notifications/tools/list_changed" if listed else "notifications/message",
            ts=old + i / 1000,
        )
    app = NotesApp(store)
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(NotificationsView)
        lines = view.notification_lines
        await wait_for(pilot, lambda: lines.row_count == 100_000)  # alternating: nothing folds
        now = time.time()
        for i in range(240):  # the storm: 240 in the last few seconds
            store.append(
                Direction.IN,
                Kind.NOTIFICATION,
                changed,
                method="notifications/tools/list_changed",
                ts=now - 3 + i / 100,
            )
        view.update_counts()
        lines.sync()
        assert (
            view.rates.visited == 240
        )  # the new entries only, not the 100k before them (no timing: the count is the proof)
        text = counts_text(view)
        assert "notifications/tools/list_changed 240 in the last 10 s (24/s)" in text
        assert "100240 notifications" in text
        assert lines.row_count == 100_001  # the storm is one row
        assert "×240" in lines.format_entry(lines.entry_at(lines.row_count - 1)).plain
        # a tick with nothing new reads nothing
        view.update_counts()
        assert view.rates.visited == 0


def test_method_filter_terms():
    matches = NotificationFilter(methods="message, !progress").method_matcher()
    assert matches("notifications/message") and not matches("notifications/progress")
    assert not matches("notifications/tools/list_changed")
    hide_only = NotificationFilter(methods="-list_changed").method_matcher()
    assert hide_only("notifications/message") and not hide_only("notifications/prompts/list_changed")
    glob = NotificationFilter(methods="tools/*").method_matcher()  # a glob matches the short name too
    assert glob("notifications/tools/list_changed") and not glob("notifications/message")
    assert NotificationFilter(methods="MESSAGE").method_matcher()("notifications/message")


async def test_the_suggester_completes_the_last_term_from_the_methods_seen():
    methods = ["notifications/message", "notifications/tools/list_changed", "notifications/progress"]
    suggester = MethodSuggester(lambda: methods)
    assert await suggester.get_suggestion("too") == "tools/list_changed"
    assert await suggester.get_suggestion("message, !pro") == "message, !progress"
    assert await suggester.get_suggestion("notifications/m") == "notifications/message"
    assert await suggester.get_suggestion("zzz") is None
    assert await suggester.get_suggestion("") is None


def test_the_level_of_a_log_message_even_when_its_data_has_a_level_too():
    from mcp_inspector.tui.widgets.views.notifications.filter import message_level

    def log(params: dict) -> bytes:
        return frame(jsonrpc.notification("notifications/message", params))

    assert message_level(log({"level": "warning", "data": "x"})) == "warning"
    assert message_level(log({"data": {"level": "debug"}, "level": "error"})) == "error"  # parsed: two of them
    assert message_level(log({"data": "no level"})) is None
    assert message_level(b"not json") is None
    big = log({"level": "alert", "data": "x" * 100_000})  # past the parse limit: the pattern alone
    assert message_level(big) == "alert"


async def test_a_storm_longer_than_the_stores_memory_stays_one_row_with_its_whole_count(tmp_path):
    """A store that keeps 1000 entries in memory, 5000 list_changed in a row (with requests
    between them, as a client refreshing its list would send): the run's first row leaves
    memory many times over, yet the storm stays one row counting all 5000, timed from its
    first notification (it restarted at the count of the entries still in memory)."""
    store = TrafficStore(cap=1000, spill_dir=tmp_path)
    changed = frame(jsonrpc.notification("notifications/tools/list_changed", {}))
    start = time.time() - 60
    store.append(
        Direction.IN,
        Kind.NOTIFICATION,
        frame(jsonrpc.notification("notifications/initialized", {})),
        method="notifications/initialized",
        ts=start - 1,
    )
    app = NotesApp(store)
    async with app.run_test(size=(120, 40)) as pilot:
        lines = app.query_one(NotificationsView).notification_lines
        for batch in range(10):  # each batch is seen by the view before the next one evicts it
            for i in range(500):
                store.append(
                    Direction.IN,
                    Kind.NOTIFICATION,
                    changed,
                    method="notifications/tools/list_changed",
                    ts=start + batch + i / 1000,
                )
            store.append(
                Direction.OUT,
                Kind.REQUEST,
                frame(jsonrpc.request(batch + 1, "tools/list", {})),
                method="tools/list",
                ts=start + batch + 0.5,
            )
            lines.sync()
            await pilot.pause()
        assert store.first_seq > 3000  # the storm's first entries (and initialized) have left memory
        assert lines.row_count == 1
        (row,) = rows(lines)
        assert "×5000" in row and "tools list changed" in row
        assert row.split()[0] == lines.time_format(start)  # the run's own first time, not a later entry's
