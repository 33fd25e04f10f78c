"""The Checks view (issue 20): the live rules on a real session, the count in the status bar, the
finding's detail, enter to its frame in the Traffic view, the traffic log's mark, and the active
checks run on demand (r). Keys only; a real stdio server with known defects
(tests/servers/checks_tui_server.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, live_app, settle, wait_for, wait_for_tools
from test_snapshots import _isolated  # noqa: F401  (no user config, state or cwd files)

from mcp_inspector.core.checks.model import Severity
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig

SERVER = Path(__file__).resolve().parent.parent / "servers" / "checks_tui_server.py"
SESSION = Path(__file__).resolve().parent / "fixtures" / "checks-session.jsonl"


def defects_app():
    return live_app(ServerSpec("checks-tui", [sys.executable, str(SERVER)], source="test"))


def rules(app) -> list[str]:
    return [item.rule for item in app.main.checks.findings]


@pytest.mark.anyio
async def test_live_findings_listed_counted_and_jump_to_their_frame():
    app = defects_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        await wait_for(
            pilot,
            lambda: {"stdout-not-jsonrpc", "logging-undeclared", "list-changed-undeclared"} <= set(rules(app)),
            what="the live findings",
        )
        await wait_for(pilot, lambda: "2 errors · 1 warning" in str(main.status_bar.render()), what="the count")
        await pilot.press("exclamation_mark")
        await wait_for(pilot, lambda: main.current_view == "checks", what="the Checks view")
        view = main.query_one("#view-checks")
        await wait_for(pilot, lambda: view.table.row_count == 3, what="three rows")
        assert app.focused is view.table
        first = view.selected()
        assert first.severity is Severity.ERROR  # worst first
        detail = str(view.query_one("#checks-detail").render())
        assert first.rule in detail and "Fix:" in detail and "Spec:" in detail and "Evidence:" in detail
        banner = next(item for item in main.checks.findings if item.rule == "stdout-not-jsonrpc")
        while view.selected() is not banner:
            await pilot.press("down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: main.current_view == "traffic", what="the Traffic view")
        log = main.query_one("#view-traffic").log_view
        assert log.cursor_entry is not None and log.cursor_entry.seq == banner.seq
        assert "✖" in log.format_entry(log.cursor_entry).plain  # the log marks a frame that drew a finding


@pytest.mark.anyio
async def test_run_checks_merges_the_probes_findings():
    app = defects_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        await pilot.press("exclamation_mark")
        await wait_for(pilot, lambda: main.current_view == "checks", what="the Checks view")
        await pilot.press("r")
        await wait_for(pilot, lambda: main.checks.runs == 1, what="the end of the run")
        assert "tool-name-format" in rules(app) and not main.checks.progress
        await settle(app)
        view = main.query_one("#view-checks")
        await wait_for(pilot, lambda: view.table.row_count == len(main.checks.findings), what="the rows")
        assert main.checks.counts[Severity.ERROR] >= 3
        # run again: the same findings are not added twice
        before = len(main.checks.findings)
        await pilot.press("r")
        await wait_for(pilot, lambda: main.checks.runs == 2, what="the end of the second run")
        assert rules(app).count("tool-name-format") == 1 and len(main.checks.findings) == before


@pytest.mark.anyio
async def test_a_recording_is_judged_by_the_live_rules():
    app = make_app(open_file=str(SESSION), snapshot_mode=True, config=TuiConfig())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main.replay is not None, what="the recording")
        await wait_for(pilot, lambda: len(rules(app)) == 3, what="the recording's findings")
        await pilot.press("exclamation_mark", "r")  # no session: said, nothing run
        await wait_for(pilot, lambda: app.main.current_view == "checks", what="the Checks view")
        assert not app.main.checks.progress


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_checks_view_snapshot(snap_compare, size):
    async def run_before(pilot) -> None:
        app = pilot.app
        await wait_for(pilot, lambda: app.main.replay is not None, what="the recording")
        await wait_for(pilot, lambda: len(rules(app)) == 3, what="the findings")
        checks = app.main.checks
        await wait_for(pilot, lambda: checks.ready and not checks.pending, what="the schema checks")
        await pilot.press("exclamation_mark")
        view = await _view(pilot)
        await wait_for(pilot, lambda: view.table.row_count == 3, what="the rows")
        await settle(app)
        app.clear_notifications()
        await pilot.pause(0.2)

    assert snap_compare(
        make_app(open_file=str(SESSION), snapshot_mode=True, config=TuiConfig()),
        terminal_size=size,
        run_before=run_before,
    )


async def _view(pilot):
    await wait_for(pilot, lambda: pilot.app.main.current_view == "checks", what="the Checks view")
    return pilot.app.main.query_one("#view-checks")


@pytest.mark.anyio
async def test_the_palette_runs_the_checks_from_another_view():
    """ctrl+p "run checks" from the Main view: the Checks view is shown and the probes run."""
    from test_view_palette import palette

    app = defects_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        first = await palette(pilot, app, "run checks")
        assert first.lower().startswith("checks: run checks"), first
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.checks.runs == 1, what="the checks run from the palette")
        assert app.main.current_view == "checks" and "tool-name-format" in rules(app)


@pytest.mark.anyio
async def test_a_flood_of_findings_shows_the_worst_thousand():
    from mcp_inspector.core.checks.catalog import finding
    from mcp_inspector.tui.widgets.views.checks_view import MAX_ROWS

    app = make_app(open_file=str(SESSION), snapshot_mode=True, config=TuiConfig())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(rules(app)) == 3, what="the recording's findings")
        app.main.checks.add([finding("tool-description", f"tool t{i} has no description") for i in range(1500)])
        await pilot.press("exclamation_mark")
        view = await _view(pilot)
        await wait_for(pilot, lambda: view.table.row_count == MAX_ROWS, what="the capped table")
        assert view.selected().severity is Severity.ERROR  # the worst are kept
        assert "the worst 1,000 shown" in str(view.query_one("#checks-summary").render())


@pytest.mark.anyio
async def test_run_checks_waits_for_the_schema_models_on_their_event() -> None:
    """The active checks wait for preload's thread to set its event (no 50 ms poll): wait_ready
    returns once the models are in, and at once after."""
    from mcp_inspector.core.traffic.store import TrafficStore
    from mcp_inspector.tui.server.live_checks import LiveChecks

    checks = LiveChecks(TrafficStore())
    checks.preload()
    await checks.wait_ready()
    assert checks.ready and "mcp_types.methods" in sys.modules
    await checks.wait_ready()
