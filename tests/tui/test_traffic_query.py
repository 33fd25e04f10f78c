"""The jq query of the Traffic view and of the result panel, through Pilot, with real query children."""

from __future__ import annotations

import json

import pytest
from textual.app import ComposeResult
from textual.widgets import Input, Static, TextArea
from traffic_apps import BASE_TS, LogApp, ThemedApp, fixed_time, frame, sample_store, screen_text

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.session.mcp_session import ToolCallOutcome
from mcp_inspector.core.session.results import analyze_tool_result
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.tui.pilot_steps import wait_for
from mcp_inspector.tui.widgets.query_bar import QueryBar
from mcp_inspector.tui.widgets.result import query as result_query
from mcp_inspector.tui.widgets.result.view import ResultPanel
from mcp_inspector.tui.widgets.views.traffic import query as traffic_query
from mcp_inspector.tui.widgets.views.traffic.filter import TrafficFilter
from mcp_inspector.tui.widgets.views.traffic.log import TrafficLog
from mcp_inspector.tui.widgets.views.traffic.query import QueryProgress

pytestmark = pytest.mark.anyio
WAIT = 120  # seconds a condition may take on a machine loaded by other jobs (a bound, not a speed check)


KEYS = {
    " ": "space",
    ".": "full_stop",
    '"': "quotation_mark",
    "(": "left_parenthesis",
    ")": "right_parenthesis",
    "=": "equals_sign",
    "/": "slash",
    "[": "left_square_bracket",
    "]": "right_square_bracket",
    "|": "vertical_line",
    "{": "left_curly_bracket",
    "}": "right_curly_bracket",
    ",": "comma",
    "?": "question_mark",
    "1": "1",
    "e": "e",
}


async def type_text(pilot, text: str) -> None:
    await pilot.press(*[KEYS.get(char, char) for char in text])


def status(app) -> str:
    return str(app.query_one("#traffic-query #query-status", Static).render())


def caught_up(log: TrafficLog) -> bool:
    run = log.query_run
    return run is not None and (run.through >= log.store.last_seq or run.stopped is not None)


async def test_type_a_query_see_the_count_and_the_matching_frames_then_clear_it():
    store = sample_store()
    app = LogApp(store, panel=True, time_format=fixed_time)
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(TrafficLog)
        everything = log.row_count
        await pilot.press("vertical_line")
        assert isinstance(app.focused, Input) and app.focused.id == "query-input"
        await type_text(pilot, 'select(.method == "tools/call")')
        # the run catches up in its worker before its last progress message redraws the status
        await wait_for(
            pilot, lambda: caught_up(log) and "of" in status(app) and "scanning" not in status(app), timeout=WAIT
        )
        assert status(app) == "2 of 14 frames match · 2 not JSON or failed"  # the invalid line and the batch
        assert [log.entry_at(row).method for row in range(log.row_count)] == ["tools/call", "tools/call"]
        text = screen_text(app)
        assert "#8 tools/call id=3" in text and "#11 tools/call id=4" in text and "initialize" not in text

        await pilot.press("escape")  # leaves the input, the query stays
        assert app.focused is log and log.row_count == 2
        await pilot.press("x")
        await wait_for(pilot, lambda: log.query_run is None, timeout=WAIT)
        assert log.row_count == everything and not app.query_one("#traffic-query").has_class("-shown")


async def test_errors_show_as_you_type_and_leave_the_log_as_it_was():
    app = LogApp(sample_store(), panel=True, time_format=fixed_time)
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(TrafficLog)
        rows = log.row_count
        await pilot.press("vertical_line")
        await type_text(pilot, "select(.method ==")
        await wait_for(pilot, lambda: status(app).startswith("✗"), timeout=WAIT)
        assert status(app) == "✗ syntax error, unexpected end of file (column 16)"
        assert app.query_one("#traffic-query #query-status").has_class("-error")
        assert log.query_run is None and log.row_count == rows
        await type_text(pilot, ' "initialize")')
        await wait_for(pilot, lambda: caught_up(log) and "match" in status(app), timeout=WAIT)
        assert log.row_count == 1 and not app.query_one("#traffic-query #query-status").has_class("-error")


async def test_the_selected_frames_outputs_are_shown_under_the_log():
    app = LogApp(sample_store(), panel=True, time_format=fixed_time)
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(TrafficLog)
        await pilot.press("vertical_line")
        await type_text(pilot, ".result.tools[]? | .name")
        await pilot.press("enter")  # applies at once and goes back to the log
        await wait_for(pilot, lambda: caught_up(log) and log.row_count == 1, timeout=WAIT)
        outputs = app.query_one("#query-outputs", Static)
        await wait_for(pilot, lambda: "echo" in str(outputs.render()), timeout=WAIT)
        assert str(outputs.render()).splitlines() == ["#7 →", "echo", "add"]  # strings raw, one a line


async def test_new_frames_are_tested_as_they_arrive_and_combine_with_the_filter():
    store = sample_store()
    app = LogApp(store, panel=True, time_format=fixed_time)
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(TrafficLog)
        await pilot.press("vertical_line")
        await type_text(pilot, ".params.progress")
        await pilot.press("enter")
        await wait_for(pilot, lambda: caught_up(log) and "match" in status(app), timeout=WAIT)
        assert log.row_count == 0
        for n in range(1, 301):
            method = "notifications/progress"
            store.append(
                Direction.IN,
                Kind.NOTIFICATION,
                frame({"jsonrpc": "2.0", "method": method, "params": {"progressToken": n % 2, "progress": n}}),
                method=method,
                ts=BASE_TS + 5 + n / 1000,
            )
        await wait_for(pilot, lambda: caught_up(log) and log.row_count == 300, timeout=WAIT)
        # the status line is written after the rows: wait for it rather than read it at once
        await wait_for(pilot, lambda: status(app).startswith("300 of 314 frames match"), timeout=WAIT)
        log.set_filter(TrafficFilter(text='"progressToken":1'))  # the text filter narrows the query's rows
        await wait_for(pilot, lambda: caught_up(log) and log.row_count == 150, timeout=WAIT)


async def test_a_big_store_is_matched_in_chunks_and_a_stale_run_is_stopped():
    store = TrafficStore(cap=50_000)
    for n in range(20_000):
        store.append(
            Direction.IN,
            Kind.RESPONSE,
            frame({"jsonrpc": "2.0", "id": n, "result": {"n": n}}),
            msg_id=n,
            has_id=True,
            ts=BASE_TS + n / 1000,
        )
    progress: list[QueryProgress] = []

    def hook(message) -> None:
        if isinstance(message, QueryProgress):
            progress.append(message)

    app = LogApp(store, panel=True, time_format=fixed_time)
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        log = app.query_one(TrafficLog)
        log.set_query("last(range(1e12))")  # busy for a long while: replaced before it answers
        first = log.query_run
        log.set_query(".result.n % 1000 == 0")
        assert first.cancelled and log.query_run is not first
        await wait_for(pilot, lambda: caught_up(log), timeout=WAIT)
        assert log.row_count == 20
        ours = [m for m in progress if m.run is log.query_run]
        assert len(ours) >= 20_000 // traffic_query.CHUNK  # one message per chunk, never one for the whole store
        assert not any(m.run is first and m.hits for m in progress)


async def test_an_endless_query_is_stopped_and_the_view_stays_usable(monkeypatch):
    monkeypatch.setattr(traffic_query, "CPU_LIMIT", 1.0)
    app = LogApp(sample_store(), panel=True, time_format=fixed_time)
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(TrafficLog)
        await pilot.press("vertical_line")
        await type_text(pilot, "last(range(1e12))")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "stopped" in status(app), timeout=WAIT)
        assert "more than 1 s of CPU" in status(app)
        assert app.query_one("#traffic-query #query-status").has_class("-error")
        await pilot.press("x")
        await wait_for(pilot, lambda: log.query_run is None, timeout=WAIT)
        assert log.row_count == len(log.store)


class ResultApp(ThemedApp):
    def compose(self) -> ComposeResult:
        yield ResultPanel()


def outcome_of(result: dict, name: str = "tool") -> ToolCallOutcome:
    return ToolCallOutcome(name, {}, result, analyze_tool_result(result, None))


def shown_outputs(panel: ResultPanel) -> str:
    box = panel.query_one("#result-query-outputs")
    return "\n".join([str(w.render()) for w in box.query(Static)] + [w.text for w in box.query(TextArea)])


async def test_the_result_query_replaces_the_rendered_result_until_cleared():
    from conftest import demo_server_command

    from mcp_inspector.core.session.mcp_session import McpSession
    from mcp_inspector.core.transport.stdio import StdioTransport

    app = ResultApp()
    async with McpSession(StdioTransport(demo_server_command()), timeout=10) as session:
        await session.initialize()
        await session.list_tools()
        outcome = await session.call_tool("weather_report", {"city": "Oslo"})
        async with app.run_test(size=(100, 30)) as pilot:
            panel = app.query_one(ResultPanel)
            panel.show_outcome(outcome)
            assert panel.payload_frame is not None  # queried from the reply's bytes
            panel.focus()
            await pilot.press("vertical_line")
            await type_text(pilot, ".structuredContent | .city, {humidity_percent}")
            await pilot.press("enter")
            body = panel.query_one("#result-body")
            await wait_for(pilot, lambda: "Oslo" in shown_outputs(panel), timeout=WAIT)
            assert shown_outputs(panel).splitlines() == ["Oslo", '{"humidity_percent":61}']
            assert not body.display and str(panel.query_one("#result-query #query-status").render()) == "2 outputs"
            # a new result is queried again
            panel.show_outcome(await session.call_tool("weather_report", {"city": "Lima"}))
            await wait_for(pilot, lambda: "Lima" in shown_outputs(panel), timeout=WAIT)
            await pilot.press("x")
            assert body.display and not panel.query_one("#result-query-outputs").display


async def test_a_50_mb_result_is_queried_in_a_worker():
    huge = "0123456789abcdef" * (50_000_000 // 16)
    result = {"content": [{"type": "text", "text": huge}], "structuredContent": {"items": [{"id": 7}, {"id": 8}]}}
    app = ResultApp()
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(ResultPanel)
        bar = panel.query_one(QueryBar)
        panel.show_outcome(outcome_of(result, "huge"))
        panel.focus()
        await pilot.press("vertical_line")
        await type_text(pilot, ".structuredContent.items[].id, (.content[0].text | length)")
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: "running" in str(bar.query_one("#query-status").render()) or "7" in shown_outputs(panel)
        )
        await wait_for(pilot, lambda: "7" in shown_outputs(panel), timeout=WAIT)
        assert shown_outputs(panel).splitlines() == ["7", "8", "50000000"]


async def test_an_error_of_the_result_query_is_said(monkeypatch):
    monkeypatch.setattr(result_query, "CPU_LIMIT", 1.0)
    app = ResultApp()
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(ResultPanel)
        panel.show_outcome(outcome_of({"content": [{"type": "text", "text": "hi"}]}))
        panel.focus()
        await pilot.press("vertical_line")
        await type_text(pilot, ".content.x")
        await pilot.press("enter")
        status_line = panel.query_one("#result-query #query-status")
        await wait_for(pilot, lambda: "✗" in str(status_line.render()), timeout=WAIT)
        assert str(status_line.render()) == '0 outputs · ✗ Cannot index array with string ("x")'
        await pilot.press("vertical_line")
        app.focused.value = "last(range(1e12))"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "CPU" in str(status_line.render()), timeout=WAIT)
        assert json.dumps(panel.payload)  # the result itself is untouched


async def test_the_palette_and_f1_reach_the_queries(tmp_path, monkeypatch):
    from app_helpers import DEMO_SESSION, SIZE, wait_for

    from mcp_inspector.tui.app import make_app
    from mcp_inspector.tui.commands import InspectorCommands
    from mcp_inspector.tui.config import TuiConfig
    from mcp_inspector.tui.screens.help import bindings_table

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = make_app(open_file=str(DEMO_SESSION), config=TuiConfig())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: app.main.replay is not None and app.main.tool_list.tools, what="the recording", timeout=WAIT
        )
        commands = {title: callback for title, callback, _ in InspectorCommands(app.screen)._commands()}
        for title in (
            "traffic: query the frames with jq",
            "traffic: clear the jq query",
            "result: query the result with jq",
            "result: clear the jq query of the result",
        ):
            assert title in commands
        commands["traffic: query the frames with jq"]()
        await wait_for(
            pilot,
            lambda: (
                app.main.current_view == "traffic"
                and isinstance(app.focused, Input)
                and app.focused.id == "query-input"
            ),
            what="the traffic query input",
            timeout=WAIT,
        )
        await type_text(pilot, ".id == 1")
        await pilot.press("enter")
        log = app.query_one("#view-traffic TrafficLog", TrafficLog)
        await wait_for(
            pilot, lambda: caught_up(log) and log.row_count == 2, what="the request and reply with id 1", timeout=WAIT
        )
        commands["traffic: clear the jq query"]()
        await wait_for(pilot, lambda: log.query_run is None, what="the cleared query", timeout=WAIT)
        table = str(bindings_table({}).columns[2]._cells)
        assert "traffic.query" in table and "traffic.clear-query" in table and "result.query" in table


async def test_matches_that_left_memory_are_forgotten():
    store = TrafficStore(cap=100)
    app = LogApp(store, panel=True, time_format=fixed_time)
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(TrafficLog)
        log.set_query(".id")
        for n in range(1, 3001):
            store.append(
                Direction.IN,
                Kind.RESPONSE,
                frame({"jsonrpc": "2.0", "id": n, "result": {}}),
                msg_id=n,
                has_id=True,
                ts=BASE_TS + n / 1000,
            )
            if n % 100 == 0:  # each hundred tested before the next: every frame is tested
                await wait_for(pilot, lambda: caught_up(log), timeout=WAIT)
        run = log.query_run
        assert run.matched == run.tested == 3000 and log.row_count == len(store)
        assert len(log.query_run.hits) <= 2 * 1000 + traffic_query.CHUNK  # not one seq per match ever made
