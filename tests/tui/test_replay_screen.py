"""The TUI side of replays and diffs: ctrl+n re-runs a recording against the connected server
(a changed build of the demo), each request ✓/✗, enter shows recorded and now side by side;
m and = diff two frames of the traffic log and two results of the history (F10); the diff
screen's snapshots at 120x40 and 80x24 (side by side, then stacked)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, choose_tool, collect_calls, live_app, wait_for, wait_for_tools
from textual.widgets import Input, OptionList
from traffic_apps import ThemedApp

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.screens.traffic.replay_run import OpenRecordingScreen, ReplayScreen
from mcp_inspector.tui.screens.traffic.side_diff import SideDiffScreen
from mcp_inspector.tui.widgets.result.history import ResultHistoryScreen
from mcp_inspector.tui.widgets.side_diff import SideBySideDiff, diff_rows

REPO = Path(__file__).resolve().parents[2]
CHANGED_DEMO = REPO / "tests" / "servers" / "changed_demo.py"
SMALL = (80, 24)
SIZES = pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])

pytestmark = [pytest.mark.usefixtures("isolated_state")]


def record_add(path: Path) -> None:
    """tools/list and tools/call add a=1 b=2 against the demo, recorded by the real CLI."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcp_inspector",
            "--record",
            str(path),
            "call",
            "add",
            "a=1",
            "b=2",
            "--",
            sys.executable,
            "-m",
            "mcp_inspector.demo",
        ],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def changed_spec(change: str) -> ServerSpec:
    return ServerSpec("changed", [sys.executable, str(CHANGED_DEMO), "--change", change], source="test")


def test_diff_rows_pair_equal_lines_and_mark_the_others():
    rows = diff_rows("a\nb\nc", "a\nB\nc\nd")
    assert [(r.left, r.right, r.changed) for r in rows] == [
        ("a", "a", False),
        ("b", "B", True),
        ("c", "c", False),
        (None, "d", True),
    ]


@pytest.mark.anyio
@SIZES
async def test_ctrl_n_replays_a_recording_and_enter_shows_the_difference_side_by_side(tmp_path, size):
    recording = tmp_path / "add.jsonl"
    record_add(recording)
    app = live_app(changed_spec("add-result"))
    async with app.run_test(size=size) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: isinstance(app.screen, OpenRecordingScreen), what="the file prompt")
        field = app.screen.query_one(Input)
        assert app.screen.focused is field
        field.value = str(recording)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ReplayScreen) and app.screen.report is not None,
            what="the replay's end",
            timeout=30,
        )
        screen = app.screen
        assert [o.status for o in screen.outcomes] == ["equal", "different"]
        assert not screen.report.equal
        options = screen.query_one(OptionList)
        assert str(options.get_option_at_index(0).prompt).startswith("✓ tools/list")
        assert str(options.get_option_at_index(1).prompt).startswith("✗ tools/call add  2 differences")
        # the replayed requests are in the traffic like any others
        calls = [
            e
            for e in app.store.since(0)
            if e.direction is Direction.OUT and e.kind is Kind.REQUEST and e.method == "tools/call"
        ]
        assert len(calls) == 1 and b'"add"' in calls[0].raw
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SideDiffScreen), what="the diff")
        diff = app.screen.query_one(SideBySideDiff)
        assert diff.stacked is (size == SMALL)
        changed = [(r.left, r.right) for r in diff.rows if r.changed]
        assert changed == [('        "text": "3",', '        "text": "4",'), ('      "sum": 3', '      "sum": 4')]
        assert ".result.structuredContent.sum: 3 → 4" in str(app.screen.query_one("#side-diff-notes").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), what="back to the replay")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, what="the main screen")


@pytest.mark.anyio
async def test_a_replay_answers_server_requests_from_the_recording_then_gives_them_back(tmp_path):
    reply = tmp_path / "reply.json"
    reply.write_text('{"text": "a recorded haiku"}')
    recording = tmp_path / "sampling.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcp_inspector",
            "--record",
            str(recording),
            "call",
            "ask_the_client",
            "kind=sampling",
            "--sampling",
            f"@{reply}",
            "--",
            sys.executable,
            "-m",
            "mcp_inspector.demo",
        ],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        session = app.connection.live
        before = dict(session.connection.handlers)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: isinstance(app.screen, OpenRecordingScreen), what="the file prompt")
        app.screen.query_one(Input).value = str(recording)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ReplayScreen) and app.screen.report is not None,
            what="the replay's end",
            timeout=30,
        )
        assert [o.status for o in app.screen.outcomes] == ["equal", "equal"]  # no modal asked: the recording answered
        assert session.connection.handlers == before


@pytest.mark.anyio
async def test_a_file_that_is_not_a_recording_says_why_on_the_replay_screen(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: isinstance(app.screen, OpenRecordingScreen), what="the file prompt")
        app.screen.query_one(Input).value = str(tmp_path / "missing.jsonl")
        await pilot.press("enter")
        assert "There is no file" in str(app.screen.query_one("#open-recording-problem").render())
        app.screen.query_one(Input).value = str(bad)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, ReplayScreen)
                and "line 1 is not JSON" in str(app.screen.query_one("#replay-status").render())
            ),
            what="the reason",
        )


async def add_twice(pilot, app, calls: list):
    """add 1+2, then 10+20, from the composer; the main screen."""
    await wait_for_tools(pilot, app)
    main = app.main
    await choose_tool(pilot, app, "add")
    for n, (a, b) in enumerate([(1, 2), (10, 20)], start=1):
        await main.composer.set_arguments({"a": a, "b": b})
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda n=n: len(calls) == n and main.result_panel.kind == "ok", what=f"call {n}")
    return main


@pytest.mark.anyio
async def test_m_and_equals_diff_two_frames_of_the_traffic_log():
    calls: list = []
    app = live_app()
    async with app.run_test(size=SIZE, message_hook=collect_calls(calls)) as pilot:
        main = await add_twice(pilot, app, calls)
        replies = [
            e
            for e in app.store.since(0)
            if e.direction is Direction.IN and e.kind is Kind.RESPONSE and b'"structuredContent":{"sum"' in e.raw
        ]
        await pilot.press("escape", "5")
        log = main.query_one("#view-traffic").log_view
        await wait_for(pilot, lambda: log.move_cursor_to_seq(replies[0].seq), what="the first reply")
        log.focus()
        await pilot.press("equals_sign")  # nothing marked yet: a warning, no screen
        assert app.screen is main
        await pilot.press("m")
        assert log.move_cursor_to_seq(replies[1].seq)
        await pilot.press("equals_sign")
        await wait_for(pilot, lambda: isinstance(app.screen, SideDiffScreen), what="the diff")
        diff = app.screen.query_one(SideBySideDiff)
        assert diff.left_title.startswith(f"#{replies[0].seq}") and "(marked)" in diff.left_title
        changed = [(r.left, r.right) for r in diff.rows if r.changed]
        assert changed[0][0].startswith('  "id": ') and changed[0][1].startswith('  "id": ')  # JSON-RPC ids
        assert changed[1:] == [('        "text": "3",', '        "text": "30",'), ('      "sum": 3', '      "sum": 30')]


@pytest.mark.anyio
async def test_m_and_equals_diff_two_results_of_the_history():
    calls: list = []
    app = live_app()
    async with app.run_test(size=SMALL, message_hook=collect_calls(calls)) as pilot:
        main = await add_twice(pilot, app, calls)
        main.tool_list.option_list.focus()
        await pilot.press("f10")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ResultHistoryScreen) and bool(app.screen.query("#history-list")),
            what="the history",
        )
        await pilot.press("m", "down", "equals_sign")
        await wait_for(pilot, lambda: isinstance(app.screen, SideDiffScreen), what="the diff")
        diff = app.screen.query_one(SideBySideDiff)
        assert diff.stacked  # 80 columns: one side above the other
        changed = [(r.left, r.right) for r in diff.rows if r.changed]
        assert changed == [('      "text": "30",', '      "text": "3",'), ('    "sum": 30', '    "sum": 3')]


def test_the_keys_are_in_the_keymap_the_palette_and_help():
    from mcp_inspector.tui.keymap import APP_KEYS
    from mcp_inspector.tui.screens.help import view_bindings

    spec = next(s for s in APP_KEYS if s.id == "replay")
    assert (spec.key, spec.action) == ("ctrl+n", "replay")
    assert f"{spec.group.lower()}: {spec.description}" == "replay: re-run a recording against this server"
    ids = {b.id for _, bindings in view_bindings() for b in bindings}
    assert {
        "traffic.mark",
        "traffic.diff",
        "result-history.mark",
        "result-history.diff",
        "replay.close",
        "side-diff.close",
    } <= ids


class DiffHost(ThemedApp):
    def on_mount(self) -> None:
        recorded = {"result": {"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3}}}
        now = {
            "result": {"content": [{"type": "text", "text": "4"}], "structuredContent": {"sum": 4}, "isError": False}
        }
        from mcp_inspector.tui.widgets.side_diff import pretty

        self.push_screen(
            SideDiffScreen(
                "tools/call add: different",
                pretty(recorded),
                pretty(now),
                "recorded (line 10)",
                "now",
                [
                    '.result.content[0].text: "3" → "4"',
                    ".result.structuredContent.sum: 3 → 4",
                    ".result.isError: (absent) → false",
                ],
            )
        )


@SIZES
def test_diff_screen_snapshot(snap_compare, size):
    async def ready(pilot) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, SideDiffScreen), what="the diff")
        await pilot.pause()

    assert snap_compare(DiffHost(), terminal_size=size, run_before=ready)
