"""Two marks that said the wrong thing: a log message's level ran into its text
("EMERGENCYEmergency-level message" from server-everything, which sends no logger), and a
result whose structuredContent fails the tool's outputSchema got the green ✓."""

from __future__ import annotations

import re

import pytest
from app_helpers import choose_tool, live_app, wait_for, wait_for_tools
from traffic_apps import screen_text

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.widgets.views.notifications.filter import LOG_LEVELS

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]
ROW = re.compile(r"← (?P<level>[A-Z]+)(?P<gap> +)(?P<text>\S.*)$")


@pytest.mark.everything
async def test_a_log_level_is_a_column_apart_from_the_message(server_everything):
    app = live_app(ServerSpec("everything", server_everything, source="test"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_tools(pilot, app)
        await app.main.connection.live.call_tool("toggle-simulated-logging", {})
        await pilot.press("3")

        def rows() -> list[re.Match]:
            found = (ROW.search(line) for line in screen_text(app).splitlines())
            return [m for m in found if m and m["level"].lower() in LOG_LEVELS and "level message" in m["text"]]

        await wait_for(pilot, rows, timeout=15, what="a simulated log message")
        for row in rows():
            # the level column is as wide as the longest level and one more: the text starts 11
            # cells after the level's first, whatever the level ("EMERGENCY" included)
            assert len(row["level"]) + len(row["gap"]) == 11, row.group(0)
            assert row["text"].lower().startswith(row["level"].lower()[:4]), row.group(0)


async def test_a_result_failing_its_output_schema_gets_no_green_tick():
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "broken_structured_output")
        await pilot.press("ctrl+s")
        panel = app.main.result_panel
        await wait_for(pilot, lambda: panel.kind not in ("empty", "pending"), what="the result")
        assert panel.kind == "schema-error"
        assert "✓" not in panel.status_text and panel.status_text.startswith("⚠ broken_structured_output")
        assert "fails its outputSchema" in panel.status_text

        await choose_tool(pilot, app, "emit_logs")  # a valid structured result keeps its ✓
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: panel.kind not in ("empty", "pending") and "emit_logs" in panel.status_text,
            what="the second result",
        )
        assert panel.kind == "ok" and panel.status_text.startswith("✓ emit_logs")
