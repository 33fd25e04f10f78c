"""Views that are not shown do no per-tick work, and catch up once when shown.

A flood used to be paid for by every mounted view: each one's timer extended
its index, resized itself (a layout of the whole screen) and repainted, 15 times
a second, shown or not. These tests feed real stores (and the demo server) while
one view is shown and check that the others stayed as they were, then show them
and check that they show the latest entries.
"""

from __future__ import annotations

import pytest
from app_helpers import SIZE, live_app, wait_for, wait_for_tools
from textual.app import ComposeResult
from textual.widgets import ContentSwitcher, Footer, Static
from textual.widgets._footer import FooterKey
from traffic_apps import ThemedApp, frame

from mcp_inspector.core.base import jsonrpc
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.tui.pilot_steps import ticked
from mcp_inspector.tui.widgets.store_lines import StoreLinesView
from mcp_inspector.tui.widgets.views.console_view import ConsoleView
from mcp_inspector.tui.widgets.views.notifications.view import NotificationLines, NotificationsView
from mcp_inspector.tui.widgets.views.traffic.log import TrafficLog

pytestmark = pytest.mark.anyio


class SwitchingApp(ThemedApp):
    """The three store views in a ContentSwitcher, as the main screen holds them."""

    def __init__(self, store: TrafficStore) -> None:
        super().__init__()
        self.store = store

    def compose(self) -> ComposeResult:
        with ContentSwitcher(initial="log"):
            yield TrafficLog(self.store, id="log")
            yield NotificationsView(self.store, id="notes")
            yield ConsoleView(self.store, id="console")


def feed(store: TrafficStore, start: int, count: int) -> None:
    """``count`` log notifications and as many stderr lines, numbered from ``start``."""
    for i in range(start, start + count):
        params = {"level": "info", "logger": "flood", "data": f"note {i}"}
        store.append(
            Direction.IN,
            Kind.NOTIFICATION,
            frame(jsonrpc.notification("notifications/message", params)),
            method="notifications/message",
        )
        store.append(Direction.IN, Kind.STDERR, f"stderr line {i}".encode())


def shown_text(view) -> str:
    return "\n".join(view.render_line(y).text for y in range(view.scrollable_content_region.height))


def counts_text(notes: NotificationsView) -> str:
    return str(notes.query_one("#notifications-counts", Static).render())


async def feed_over_ticks(pilot, store: TrafficStore, start: int, rounds: int = 8, per_round: int = 40) -> int:
    """Entries arriving over several poll ticks (1/15 s), then a counts tick (1/2 s) gone by."""
    for r in range(rounds):
        feed(store, start + r * per_round, per_round)
        await ticked(pilot, StoreLinesView.REFRESH_INTERVAL, what="a poll tick")
    await ticked(pilot, NotificationsView.COUNTS_INTERVAL, what="a counts tick")
    return start + rounds * per_round


async def test_hidden_views_stay_put_during_a_stream_and_catch_up_when_shown():
    store = TrafficStore()
    app = SwitchingApp(store)
    async with app.run_test(size=(100, 24)) as pilot:
        switcher = app.query_one(ContentSwitcher)
        log = app.query_one(TrafficLog)
        notes = app.query_one(NotificationsView)
        lines = app.query_one(NotificationLines)
        console = app.query_one(ConsoleView)
        await wait_for(pilot, lambda: counts_text(notes), what="the counts line")
        counts_before = counts_text(notes)

        # never shown yet: the traffic log follows, the other two do nothing per tick
        end = await feed_over_ticks(pilot, store, 1)
        await wait_for(pilot, lambda: log.virtual_size.height == len(store))
        assert lines.row_count == 0 and console.row_count == 0
        assert lines.virtual_size.height == 0 and console.virtual_size.height == 0
        assert counts_text(notes) == counts_before

        # shown: caught up at once, tail on the newest
        switcher.current = "notes"
        await wait_for(pilot, lambda: lines.row_count == store.kind_counts[Kind.NOTIFICATION])
        await wait_for(pilot, lambda: f"note {end - 1}" in shown_text(lines), what="the newest note drawn")
        assert f"{end - 1} notifications" in counts_text(notes)

        # hidden again: more arrive, the notifications view keeps what it had
        switcher.current = "log"
        await wait_for(pilot, lambda: not lines.is_on_screen and log.is_on_screen, what="the log shown")
        seen_rows, seen_counts = lines.row_count, counts_text(notes)
        end = await feed_over_ticks(pilot, store, end)
        await wait_for(pilot, lambda: log.virtual_size.height == len(store))
        assert lines.row_count == seen_rows
        assert counts_text(notes) == seen_counts
        assert f"#{store.last_seq}" in shown_text(log)

        # and each view, once shown, shows the latest
        switcher.current = "notes"
        await wait_for(pilot, lambda: lines.row_count == store.kind_counts[Kind.NOTIFICATION])
        await wait_for(pilot, lambda: f"note {end - 1}" in shown_text(lines), what="the newest note drawn")
        assert f"{end - 1} notifications" in counts_text(notes)
        switcher.current = "console"
        await wait_for(pilot, lambda: console.row_count == store.kind_counts[Kind.STDERR])
        await wait_for(pilot, lambda: f"stderr line {end - 1}" in shown_text(console), what="the newest line drawn")
        # the traffic log, hidden now, stops following (it has no index: its size tells)
        height = log.virtual_size.height
        assert height == log.row_count
        feed(store, end, 20)
        await wait_for(pilot, lambda: console.row_count == store.kind_counts[Kind.STDERR], what="the console's poll")
        await ticked(pilot, StoreLinesView.REFRESH_INTERVAL)  # and one more tick of the same interval
        assert log.virtual_size.height == height
        switcher.current = "log"
        await wait_for(pilot, lambda: log.virtual_size.height == len(store))
        await wait_for(pilot, lambda: f"#{store.last_seq}" in shown_text(log), what="the newest row drawn")


async def test_views_switched_in_the_app_catch_up_and_the_in_flight_row_waits():
    """The whole app on the demo server: logs and a running call while another view is shown."""
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        session = main.connection.live
        await app.action_show_view("notifications")
        lines = app.query_one(NotificationLines)
        await wait_for(pilot, lambda: lines.row_count == store_notifications(app), what="the notifications view")

        # Main shown: a running call ticks in the in-flight panel; logs arrive
        await app.action_show_view("main")
        # long enough to still be running when the view comes back on a loaded machine; cancelled below
        main.call_tool(session, "long_running_task", {"duration_seconds": 60, "steps": 600})
        await wait_for(pilot, lambda: bool(main.inflight.rows), what="the in-flight row")
        await session.call_tool("emit_logs", {"count": 40})
        await ticked(pilot, NotificationLines.REFRESH_INTERVAL)
        assert lines.row_count < store_notifications(app)  # hidden: not indexed per tick

        # another view shown: the in-flight row is not updated per tick
        await app.action_show_view("console")
        row = main.inflight.rows[0]
        timing = row.query_one(".inflight-timing", Static)
        await wait_for(pilot, lambda: not timing.is_on_screen, what="the main view hidden")
        before = str(timing.render())
        await ticked(pilot, 0.1, times=3)  # the in-flight rows' interval: a tick would have come (the clock moved)
        assert str(timing.render()) == before

        # shown again: updated at once
        await app.action_show_view("main")
        await wait_for(pilot, lambda: str(timing.render()) != before, what="the row updated")
        await app.action_show_view("notifications")
        await wait_for(pilot, lambda: lines.row_count == store_notifications(app), what="the catch-up")
        # the logs are in it (progress notifications of the running call may come after them and fill the screen)
        rows = [lines.entry_at(row) for row in range(lines.row_count)]
        assert any("Demo log message 40 of 40" in entry.text for entry in rows if entry is not None)
        await app.action_show_view("main")
        await main.action_cancel_request()
        await wait_for(pilot, lambda: not main.calls.in_flight, what="the call to end")


def store_notifications(app) -> int:
    return app.store.kind_counts[Kind.NOTIFICATION]


def shown_keys(app) -> list[FooterKey]:
    return [key for footer in app.main.query(Footer) if footer.display for key in footer.query(FooterKey)]


async def test_footer_is_not_rebuilt_when_its_keys_do_not_change():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await wait_for(pilot, lambda: bool(shown_keys(app)), what="the footer's keys")
        keys = shown_keys(app)
        # a bindings refresh with nothing changed (Textual sends several per focus move)
        for _ in range(3):
            app.main.refresh_bindings()
            await pilot.pause()
        assert shown_keys(app) == keys
        # a view with other keys: shown, with them
        await app.action_show_view("traffic")
        await wait_for(
            pilot, lambda: any(k.description == "Req↔resp" for k in shown_keys(app)), what="the traffic log's keys"
        )
        traffic_keys = shown_keys(app)
        await app.action_show_view("main")
        await wait_for(
            pilot, lambda: not any(k.description == "Req↔resp" for k in shown_keys(app)), what="the main view's keys"
        )
        # and back and forth: the same footers shown again (the very FooterKeys), not rebuilt
        assert shown_keys(app) == keys
        for _ in range(2):
            await app.action_show_view("traffic")
            await wait_for(pilot, lambda: shown_keys(app) == traffic_keys, what="the traffic log's footer")
            await app.action_show_view("main")
            await wait_for(pilot, lambda: shown_keys(app) == keys, what="the main view's footer")
        assert [k.description for k in shown_keys(app)] == [k.description for k in keys]


async def test_a_shown_view_growing_does_not_lay_out_the_screen():
    """New rows change the scrollbar only: no layout of the whole screen per tick.

    Assigning ``virtual_size`` (a layout reactive) used to ask for one each time
    rows arrived, ~15 times a second during a flood.
    """
    store = TrafficStore()
    app = SwitchingApp(store)
    async with app.run_test(size=(100, 24)) as pilot:
        log = app.query_one(TrafficLog)
        switcher = app.query_one(ContentSwitcher)
        feed(store, 1, 5)
        await wait_for(pilot, lambda: log.virtual_size.height == len(store))
        await pilot.pause()
        layouts = 0
        refresh_layout = app.screen._refresh_layout

        def counting(*args, **kwargs):
            nonlocal layouts
            layouts += 1
            return refresh_layout(*args, **kwargs)

        app.screen._refresh_layout = counting
        end = await feed_over_ticks(pilot, store, 6)
        await wait_for(pilot, lambda: log.virtual_size.height == len(store))
        await pilot.pause()
        assert layouts == 0
        # the scrollbar and the view follow the rows all the same
        assert log.vertical_scrollbar.window_virtual_size == len(store)
        assert log.scroll_y == log.max_scroll_y > 0
        assert f"#{store.last_seq}" in shown_text(log)
        # and the same for a view shown after a switch (its catch-up included)
        switcher.current = "console"
        console = app.query_one(ConsoleView)
        await wait_for(pilot, lambda: console.row_count == store.kind_counts[Kind.STDERR])
        await pilot.pause()
        layouts = 0
        end = await feed_over_ticks(pilot, store, end)
        await wait_for(pilot, lambda: console.row_count == store.kind_counts[Kind.STDERR])
        await pilot.pause()
        assert layouts == 0
        assert console.vertical_scrollbar.window_virtual_size == console.row_count
        assert f"stderr line {end - 1}" in shown_text(console)


async def test_focusing_the_overview_does_not_restyle_its_markdown():
    """Each switch to and from the overview moved the focus to/from it, and Textual
    restyled its whole subtree (every Markdown block) both times."""
    from textual.widgets import Markdown

    from mcp_inspector.tui.widgets.views.overview import ServerOverview

    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await app.action_show_view("overview")
        overview = app.query_one(ServerOverview)
        await wait_for(
            pilot,
            lambda: "Not connected" not in str(overview.query_one("#overview-server", Static).render()),
            what="the overview",
        )
        await wait_for(pilot, lambda: app.focused is overview, what="the overview focused")
        markdown = overview.query_one(Markdown)
        inside = set(markdown.walk_children(with_self=True))
        assert len(inside) > 1
        restyled: list = []
        update_nodes = app.stylesheet.update_nodes

        def recording(nodes, animate=False):
            nodes = list(nodes)
            restyled.extend(nodes)
            return update_nodes(nodes, animate)

        app.stylesheet.update_nodes = recording
        await app.action_show_view("main")
        await wait_for(pilot, lambda: app.focused is not overview, what="the main view focused")
        await app.action_show_view("overview")
        await wait_for(pilot, lambda: app.focused is overview, what="the overview focused again")
        await pilot.pause()
        assert overview in restyled  # its own focus styles follow
        assert not inside.intersection(restyled)


async def test_behind_a_modal_the_in_flight_bar_stops_pulsing_and_pulses_again_after(raw_server, isolated_state):
    """A call in flight with no progress shows a pulsing bar (15 frames a second); behind a modal
    (an answering screen while the call waits for that answer) each frame redrew the whole
    dimmed screen: a core kept busy (the elicitation and sampling tests took 20-110 s under
    load, 3-7 s now)."""
    from app_helpers import choose_tool
    from textual.screen import ModalScreen

    from mcp_inspector.core.config.servers import ServerSpec

    class Covering(ModalScreen[None]):
        def compose(self) -> ComposeResult:
            yield Static("on top")

    app = live_app(ServerSpec("raw", raw_server("never-answer"), source="test"), timeout=600)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "echo")
        await app.main.composer.set_arguments({"text": "hi"})
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        panel = app.main.inflight

        def pulses() -> list:
            return [bar.auto_refresh for bar in panel.query(".inflight-progress > #bar")]

        await wait_for(pilot, lambda: pulses() and all(pulses()), what="the pulsing bar of the call")
        await app.push_screen(Covering())
        row = panel.rows[0]
        await wait_for(pilot, lambda: not any(pulses()) or row.finished_at is not None, what="the bar stilled")
        assert row.finished_at is None  # still waiting for its answer: stilled because it is covered
        app.pop_screen()
        await wait_for(pilot, lambda: pulses() and all(pulses()), what="the bar pulsing again")
        assert row.finished_at is None
