"""Snapshots of the traffic log (every kind of entry) and of the frame detail screen.

Timestamps go through an injected formatter and the store is filled with fixed
times, so the pictures are deterministic. Update with ``--snapshot-update`` and
look at the SVGs before committing.
"""

from __future__ import annotations

from traffic_apps import LogApp, fixed_time, sample_store

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.tui.pilot_steps import wait_for
from mcp_inspector.tui.screens.traffic.frame_detail import FrameDetailScreen
from mcp_inspector.tui.widgets.views.traffic.log import TrafficLog

SIZE = (120, 40)


def test_traffic_log_snapshot(snap_compare):
    app = LogApp(sample_store(), panel=True, time_format=fixed_time)
    assert snap_compare(app, terminal_size=SIZE)


def test_frame_detail_snapshot(snap_compare):
    store = sample_store()
    request = next(e for e in store if e.method == "tools/call")
    app = LogApp(store, time_format=fixed_time)

    async def open_request(pilot) -> None:
        log = app.query_one(TrafficLog)
        log.move_cursor_to_seq(request.seq)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FrameDetailScreen) and app.screen.is_mounted)

    assert snap_compare(app, terminal_size=SIZE, run_before=open_request)


def test_filtered_log_snapshot(snap_compare):
    app = LogApp(sample_store(), panel=True, time_format=fixed_time)

    async def filter_errors(pilot) -> None:
        # let the bar lay out before clicking it
        await wait_for(pilot, lambda: app.query_one("#filter-kind-stderr").region.area > 0, what="the filter bar")
        await pilot.click("#filter-kind-request")
        await pilot.click("#filter-kind-notification")
        await pilot.click("#filter-kind-event")
        await pilot.click("#filter-kind-stderr")
        log = app.query_one(TrafficLog)
        wanted = {Kind.RESPONSE, Kind.ERROR, Kind.INVALID, Kind.BATCH}
        shown = lambda: {e.kind for e in map(app.store.get, (log.seq_at(r) for r in range(log.row_count)))}  # noqa: E731 - a one-line function, kept beside its use
        await wait_for(pilot, lambda: shown() == wanted, what="the four kinds hidden")
        log.focus()
        await wait_for(pilot, lambda: log.has_focus, what="the log focused")

    assert snap_compare(app, terminal_size=SIZE, run_before=filter_errors)
