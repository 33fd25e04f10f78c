"""Snapshots of the Traffic view with a jq query: the count, the matching rows, the selected frame's outputs."""

from __future__ import annotations

import pytest
from traffic_apps import LogApp, fixed_time, sample_store

from mcp_inspector.tui.pilot_steps import wait_for
from mcp_inspector.tui.widgets.views.traffic.log import TrafficLog


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_traffic_view_with_a_query(snap_compare, size):
    app = LogApp(sample_store(), panel=True, time_format=fixed_time)

    async def query(pilot) -> None:
        log = app.query_one(TrafficLog)
        await pilot.press("vertical_line")
        app.focused.value = '.result.tools[]?.name, (select(.method == "tools/call") | .params.name)'
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: log.query_run is not None and log.query_run.through >= log.store.last_seq and log.row_count == 3,
            timeout=120,
        )
        log.move_cursor_to_seq(7)  # the tools/list response: its outputs under the log
        outputs = app.query_one("#query-outputs")
        await wait_for(pilot, lambda: "echo" in str(outputs.render()), timeout=120)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=query)
