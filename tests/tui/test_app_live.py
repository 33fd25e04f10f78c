"""The whole app against real demo-server subprocesses, driven through Pilot."""

from __future__ import annotations

import asyncio
import json
import sys
import time

import pytest
from app_helpers import SIZE, choose_tool, live_app, outgoing, wait_for, wait_for_tools
from textual.widgets import Input

from mcp_inspector.tui.messages import CallFinished
from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen
from mcp_inspector.tui.screens.dialogs.tool_diff import ToolDiffScreen


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    """Drafts and config go to a temp dir, never the developer's home."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def text_of(outcome) -> str:
    return "\n".join(block.get("text", "") for block in outcome.result.get("content", []) if isinstance(block, dict))


@pytest.mark.anyio
async def test_first_screen_shows_tools_composer_and_traffic_with_status():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        status = main.status_bar.status
        assert status.state == "connected"
        assert status.protocol_version == "2025-11-25"
        assert isinstance(status.pid, int)
        for widget_id in ("#tools", "#composer", "#result", "#live-traffic"):
            widget = main.query_one(widget_id)
            assert widget.region.area > 0, f"{widget_id} is not visible on the first screen"
        assert {t["name"] for t in main.tool_list.tools} >= {"echo", "add", "toggle_extra_tools"}
        # the first tool is selected for the composer straight away
        await wait_for(pilot, lambda: main.composer.tool is not None, what="a selected tool")


@pytest.mark.anyio
async def test_call_through_the_form_returns_its_result():
    finished: list[CallFinished] = []
    app = live_app()
    async with app.run_test(
        size=SIZE, message_hook=lambda m: finished.append(m) if isinstance(m, CallFinished) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "echo")
        field = app.main.composer.query(Input).first()
        field.focus()
        await pilot.press(*"hello form")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: finished, what="the call to finish")
        outcome = finished[0].outcome
        assert outcome.name == "echo"
        assert outcome.arguments == {"message": "hello form"}
        assert text_of(outcome) == "hello form"
        request = json.loads(outgoing(app, "tools/call")[-1].raw)
        assert request["params"]["arguments"] == {"message": "hello form"}
        assert request["params"]["_meta"]["progressToken"] is not None


@pytest.mark.anyio
async def test_tool_list_updates_on_list_changed_and_shows_the_diff():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        tools = app.main.tool_list
        assert "weather_forecast" not in {t["name"] for t in tools.tools}
        await choose_tool(pilot, app, "toggle_extra_tools")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: tools.marks, what="the list_changed refetch")
        assert tools.marks == {"weather_forecast": "added", "echo": "changed"}
        assert "weather_forecast" in {t["name"] for t in tools.tools}
        assert set(tools.changes["echo"].fields) >= {"description", "inputSchema"}
        # a toast summarises the change, classified in the words of mcp-inspector diff
        (notice,) = [n for n in shown_notifications(app) if "weather_forecast" in str(n.message)]
        assert str(notice.message).splitlines()[-1] == "2 compatible, 1 cosmetic  (ctrl+g shows the diff)"
        assert notice.severity == "information"
        tools.option_list.focus()
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolDiffScreen), what="the diff modal")
        body = str(app.screen.query_one("#diff-body").render())
        assert "uppercase" in body and "+Echoes the message back, optionally" in body
        assert str(app.screen.query_one("#diff-verdict").render()).splitlines() == [
            "+ compatible (1)",
            "  + /tools/echo/inputSchema/properties/uppercase: optional argument uppercase added",
            "",
            "· cosmetic (1)",
            "  · /tools/echo/description: description changed",
        ]
        await pilot.press("escape")

        # toggling back removes the tool: it stays visible, struck through, until dismissed
        await choose_tool(pilot, app, "toggle_extra_tools")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: tools.removed, what="the second list change")
        assert [t["name"] for t in tools.removed] == ["weather_forecast"]
        (notice,) = [n for n in shown_notifications(app) if "removed weather_forecast" in str(n.message)]
        assert "2 breaking, 1 cosmetic" in str(notice.message) and notice.severity == "warning"
        assert "removed:weather_forecast" in tools._ids
        tools.option_list.focus()
        await pilot.press("ctrl+x")
        assert not tools.removed and not tools.marks


@pytest.mark.anyio
async def test_refresh_key_refetches_the_tool_list():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        before = len(outgoing(app, "tools/list"))
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: len(outgoing(app, "tools/list")) > before, what="a tools/list request")


@pytest.mark.anyio
async def test_type_to_filter_the_tool_list():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        tools = app.main.tool_list
        tools.option_list.focus()
        await pilot.press(*"weather")
        await wait_for(pilot, lambda: len(tools._ids) == 2, what="the filtered list")
        assert tools.filter_input.value == "weather"
        # by title/name (weather_report) and by description (toggle_extra_tools mentions weather_forecast)
        assert sorted(t["name"] for t in tools._ids.values()) == ["toggle_extra_tools", "weather_report"]
        await pilot.press("escape")
        assert tools.filter_input.value == ""
        tools.option_list.focus()
        await pilot.press(*"weather_rep")
        await wait_for(pilot, lambda: [t["name"] for t in tools._ids.values()] == ["weather_report"], what="one tool")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_tool["name"] == "weather_report", what="the chosen tool")


@pytest.mark.anyio
async def test_enter_after_filtering_chooses_a_tool_the_filter_names():
    """The highlighted tool matched the new filter only by its description (toggle_extra_tools
    mentions weather_forecast): enter after typing "weather" kept it instead of a weather tool."""
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        tools = app.main.tool_list
        assert tools.select_name("toggle_extra_tools")
        await wait_for(
            pilot, lambda: (app.main.current_tool or {}).get("name") == "toggle_extra_tools", what="the first tool"
        )
        tools.option_list.focus()
        await pilot.press(*"weather")
        await wait_for(pilot, lambda: len(tools._ids) < len(tools.tools), what="the filtered list")
        assert "toggle_extra_tools" in [t["name"] for t in tools._ids.values()]  # still listed
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: (app.main.current_tool or {}).get("name") == "weather_report", what="a weather tool"
        )
        # a highlighted tool whose name holds the filter stays highlighted (weather_report is listed first)
        tools.filter_input.value = ""
        await wait_for(pilot, lambda: len(tools._ids) == len(tools.tools), what="the whole list")
        assert tools.select_name("generate_report")
        tools.option_list.focus()
        await pilot.press(*"report")
        await wait_for(pilot, lambda: len(tools._ids) < len(tools.tools), what="the filtered list")
        assert tools.highlighted_tool()["name"] == "generate_report"


@pytest.mark.anyio
async def test_several_calls_in_flight_and_cancel_sends_notifications_cancelled():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        await choose_tool(pilot, app, "long_running_task")
        # long enough to be still running when cancelled on a loaded machine (both are cancelled)
        await main.composer.set_arguments({"duration_seconds": 120, "steps": 600})
        await pilot.press("ctrl+s")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(main.calls.in_flight) == 2, what="two calls in flight")
        assert main.status_bar.status.in_flight == 2
        first = next(iter(main.calls.in_flight))
        await wait_for(pilot, lambda: all(p.progress is not None for p in main.calls.in_flight), what="progress")
        assert first.progress.total == 600
        # cancel both through the in-flight panel's key (it cancels the newest waiting one)
        rows = main.inflight.rows
        assert len(rows) == 2
        rows[-1].focus()
        await wait_for(pilot, lambda: rows[-1].has_focus_within or rows[-1].has_focus, what="the row focused")
        await pilot.press("c")
        await wait_for(pilot, lambda: len(main.calls.in_flight) == 1, what="the first cancel")
        main.inflight.focus()
        await wait_for(
            pilot, lambda: main.inflight.has_focus_within or main.inflight.has_focus, what="the panel focused"
        )
        await pilot.press("c")
        await wait_for(pilot, lambda: not main.calls.in_flight, what="the calls to end")
        cancelled = [json.loads(e.raw)["params"] for e in outgoing(app, "notifications/cancelled")]
        assert len(cancelled) == 2
        assert all(c["reason"] == "cancelled by the user" for c in cancelled)


@pytest.mark.anyio
async def test_app_stays_responsive_during_a_notification_flood():
    """20000 notifications/message: a key press is handled while they still arrive.

    Pilot's press() waits for the app to be idle (it would wait out the flood), so the
    key is posted with simulate_key and the loop is polled with plain sleeps.
    """
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        await choose_tool(pilot, app, "flood_notifications")
        await main.composer.set_arguments({"count": 20000, "kind": "message"})
        main.tool_list.option_list.focus()
        await wait_for(pilot, lambda: main.tool_list.option_list.has_focus, what="the list focused")
        main.composer.action_send()
        deadline = time.monotonic() + 10
        while app.store.method_counts.get("notifications/message", 0) == 0:
            assert time.monotonic() < deadline, "the flood never started"
            await asyncio.sleep(0.002)
        deadline = time.monotonic() + 60  # a hang guard only
        app.simulate_key("2")  # first switch to Overview: mounts the view too
        while main.current_view != "overview":
            assert time.monotonic() < deadline, "the key press was never handled"
            await asyncio.sleep(0.002)
        # the proof is the order of events: the key was handled before the flood was over
        # (latency figures: bench/bench_tui_flood.py)
        received = app.store.method_counts.get("notifications/message", 0)
        assert received < 20000, "the flood was over before the key press was handled"
        await wait_for(
            pilot,
            lambda: not main.calls.in_flight and app.store.method_counts["notifications/message"] == 20000,
            timeout=60,
            what="the flood to finish",
        )


@pytest.mark.anyio
async def test_reconnect_keeps_the_log_the_selected_tool_and_the_draft():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        await choose_tool(pilot, app, "echo")
        await main.composer.set_arguments({"message": "keep me"})
        first_pid = main.status_bar.status.pid
        before = app.store.total
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: main.status_bar.status.state == "connected" and main.status_bar.status.pid != first_pid,
            what="the new connection",
        )
        await wait_for(pilot, lambda: len(outgoing(app, "tools/list")) >= 2, what="the tools of the new connection")
        await wait_for(pilot, lambda: (main.current_tool or {}).get("name") == "echo", what="the tool chosen again")
        assert app.store.first_seq == 1 and app.store.total > before
        assert len(outgoing(app, "initialize")) == 2
        assert main.current_tool["name"] == "echo"
        assert main.composer.get_arguments() == {"message": "keep me"}
        assert main.tool_list.selected_name == "echo"
        # restart (f8) does the same with a fresh process, without the graceful wait
        second_pid = main.status_bar.status.pid
        await pilot.press("f8")
        await wait_for(
            pilot,
            lambda: main.status_bar.status.state == "connected" and main.status_bar.status.pid != second_pid,
            what="the restarted server",
        )
        assert len(outgoing(app, "initialize")) == 3
        assert any(e.text.startswith("restart:") for e in app.store)


@pytest.mark.anyio
async def test_server_exit_shows_code_and_stderr_in_the_status_bar(raw_server):
    from mcp_inspector.core.config.servers import ServerSpec

    app = live_app(ServerSpec("crasher", raw_server("exit-on-start")))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main.status_bar.status.state in ("failed", "exited"), what="the failure")
        status = app.main.status_bar.status
        assert status.exit_code is not None and status.exit_code != 0
        rendered = str(app.main.status_bar.render())
        assert f"exit code {status.exit_code}" in rendered
        assert "cannot start: missing API_KEY" in rendered  # the last stderr lines


@pytest.mark.anyio
async def test_server_requests_roots_and_elicitation_are_answered(tmp_path):
    finished: list[CallFinished] = []
    app = live_app(cwd=str(tmp_path))
    async with app.run_test(
        size=SIZE, message_hook=lambda m: finished.append(m) if isinstance(m, CallFinished) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "ask_the_client")
        await app.main.composer.set_arguments({"kind": "roots"})
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: finished, what="the roots call")
        # no roots given: an empty list, never the working directory (tests/tui/test_roots.py)
        assert '"roots": []' in text_of(finished[0].outcome) and tmp_path.resolve().as_uri() not in text_of(
            finished[0].outcome
        )

        await app.main.composer.set_arguments({"kind": "elicitation"})
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the elicitation modal")
        form = app.screen.form
        form.body.editors["$.name"].value = "Ada"
        form.body.editors["$.age"].value = "36"
        await pilot.pause()
        await pilot.click("#elicitation-accept")
        await wait_for(pilot, lambda: len(finished) == 2, what="the elicitation call")
        answer = text_of(finished[1].outcome)
        assert '"action": "accept"' in answer and '"Ada"' in answer and '"age": 36' in answer


@pytest.mark.anyio
async def test_server_killed_during_a_call_shows_the_signal_and_the_call_fails(raw_server):
    from mcp_inspector.core.base.errors import ConnectionLost
    from mcp_inspector.core.config.servers import ServerSpec
    from mcp_inspector.tui.messages import CallFailed

    failed: list[CallFailed] = []
    app = live_app(ServerSpec("victim", raw_server("die-by-signal")))
    async with app.run_test(
        size=SIZE, message_hook=lambda m: failed.append(m) if isinstance(m, CallFailed) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "echo")
        await app.main.composer.set_arguments({"text": "bye"})
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.main.status_bar.status.state == "exited", what="the exit")
        assert app.main.status_bar.status.signal == 9
        assert "killed by SIGKILL" in str(app.main.status_bar.render())
        await wait_for(pilot, lambda: failed, what="the failed call")
        assert isinstance(failed[0].error, ConnectionLost)
        # reconnect brings it back, and the log keeps both sessions
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.main.status_bar.status.state == "connected", what="the reconnect")
        assert len(outgoing(app, "initialize")) == 2


@pytest.mark.anyio
async def test_sampling_request_declined_by_the_user():
    finished: list[CallFinished] = []
    app = live_app()
    async with app.run_test(
        size=SIZE, message_hook=lambda m: finished.append(m) if isinstance(m, CallFinished) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "ask_the_client")
        await app.main.composer.set_arguments({"kind": "sampling"})
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the sampling modal")
        assert any("haiku" in str(part.render()) for part in app.screen.query("#request-body Static"))
        await pilot.click("#decline")
        await wait_for(pilot, lambda: finished, what="the sampling call")
        outcome = finished[0].outcome
        assert outcome.is_error and "declined" in text_of(outcome)


@pytest.mark.anyio
async def test_record_writes_a_session_file_that_open_reads_back(tmp_path):
    from mcp_inspector.core.traffic.loading import load_session

    path = tmp_path / "recorded.jsonl"
    app = live_app(record=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "add")
        await app.main.composer.set_arguments({"a": 1, "b": 2})
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: len(outgoing(app, "tools/call")) == 1 and not app.main.calls.in_flight, what="the call"
        )
        total = app.store.total
    loaded = load_session(path)
    assert loaded.header["name"] == "demo"
    assert loaded.store.total >= total
    assert [e.method for e in loaded.store if e.method == "tools/call"] == ["tools/call"]


@pytest.mark.anyio
async def test_switch_server_from_the_connect_screen_keeps_the_log(raw_server):
    from mcp_inspector.core.config.servers import ServerSpec
    from mcp_inspector.tui.screens.dialogs.connect import ConnectScreen

    app = live_app(ServerSpec("raw", raw_server()))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        assert "toggle_extra_tools" not in {t["name"] for t in app.main.tool_list.tools}
        await pilot.press("f7")
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectScreen), what="the connect screen")
        app.screen.query_one("#connect-command", Input).value = f"{sys.executable} -m mcp_inspector.demo"
        app.screen.query_one("#connect-command", Input).focus()
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: (
                app.main.status_bar.status.state == "connected"
                and app.main.status_bar.status.server == "mcp_inspector.demo"
            ),
            what="the demo server",
        )
        await wait_for(
            pilot, lambda: "toggle_extra_tools" in {t["name"] for t in app.main.tool_list.tools}, what="its tools"
        )
        assert len(outgoing(app, "initialize")) == 2  # both servers' traffic is in the one log


@pytest.mark.anyio
async def test_log_level_from_the_notifications_view_sends_logging_set_level():
    from mcp_inspector.tui.widgets.views.notifications.view import NotificationsView

    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("3")
        view = app.main.query_one("#view-notifications", NotificationsView)
        view.post_message(NotificationsView.SetLevelRequested("warning"))
        await wait_for(pilot, lambda: outgoing(app, "logging/setLevel"), what="logging/setLevel")
        assert json.loads(outgoing(app, "logging/setLevel")[0].raw)["params"] == {"level": "warning"}
