"""The whole app on 2026-07-28 ("modern") servers: a modern-only server over stdio
(tests/servers/modern_raw_server.py) and over HTTP, the SDK's, and a server that
answers every POST with HTTP 400 and a typed error.

MRTR in the TUI: each input round is answered in the modal, which says which round of
which request it is; the traffic log marks the retries as rounds of the first request;
the in-flight panel keeps one row for the logical call. Excluded tools are listed apart
and refused. The tool list refreshes live through subscriptions/listen.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, choose_tool, live_app, wait_for, wait_for_tools
from traffic_apps import screen_text

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.messages import CallFailed, CallFinished
from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen
from mcp_inspector.tui.screens.traffic.frame_detail import FrameDetailScreen
from mcp_inspector.tui.widgets.status_bar import describe_status

pytestmark = pytest.mark.anyio

SERVERS = Path(__file__).resolve().parent.parent / "servers"
MODERN = [sys.executable, str(SERVERS / "modern_raw_server.py")]
HTTP_RAW = SERVERS / "http_raw_server.py"


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def start_on_port(*argv: str) -> tuple[subprocess.Popen, int]:
    """A fixture server that prints ``PORT <n>`` once it listens on 127.0.0.1."""
    process = subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line.startswith("PORT "):
        process.kill()
        process.wait()
        raise AssertionError(f"the server did not start: {line!r}")
    return process, int(line.split()[1])


@pytest.fixture
def modern_http_url():
    process, port = start_on_port(str(SERVERS / "modern_raw_server.py"), "--http", "--mode", "header-tools")
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait()


@pytest.fixture
def typed_error_url():
    process, port = start_on_port(str(HTTP_RAW))
    try:
        yield f"http://127.0.0.1:{port}/status400json"
    finally:
        process.kill()
        process.wait()


def text_of(outcome) -> str:
    return "\n".join(block.get("text", "") for block in outcome.result.get("content", []) if isinstance(block, dict))


def collect(into: list):
    return lambda message: into.append(message) if isinstance(message, (CallFinished, CallFailed)) else None


async def answer(pilot, app, value: str) -> None:
    """Accept the modal: an elicitation's form filled from the JSON ``value``, or sampling's reply text."""
    screen = app.screen
    if screen.form is not None:
        for name, typed in json.loads(value).items():
            screen.form.body.editors[f"$.{name}"].value = typed
        await pilot.pause()
        await pilot.press("ctrl+s")
        return
    screen.query_one("#sampling-reply").text = value  # sampling: the reply editor
    await pilot.click("#accept")


async def test_modern_stdio_server_era_in_status_and_overview():
    app = live_app(ServerSpec("modern", MODERN))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        status = main.status_bar.status
        assert (status.transport, status.era, status.protocol_version) == ("stdio", "modern", "2026-07-28")
        assert "·  stdio  ·  modern 2026-07-28  ·  pid" in describe_status(status)[0]
        await pilot.press("2")  # the overview picks up the acknowledgement whenever it comes
        await wait_for(
            pilot, lambda: main.facts.subscription_ack is not None, what="the subscriptions/listen acknowledgement"
        )
        await wait_for(pilot, lambda: "modern 2026-07-28" in screen_text(app), what="the era drawn")
        text = screen_text(app)
        assert "modern 2026-07-28" in text and main.facts.era_reason[:40] in text
        assert "ttlMs 60000, cacheScope public" in text  # server/discover's caching
        assert "subscriptions/listen  toolsListChanged" in text  # the honoured subset
        assert "HTTP session" not in text  # stdio: no HTTP level


async def test_mrtr_rounds_in_the_modal_traffic_log_and_in_flight_panel():
    done: list = []
    app = live_app(ServerSpec("modern", MODERN))
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        await choose_tool(pilot, app, "wizard")
        main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")

        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the first input request")
        first = next(e for e in main.store if e.direction is Direction.OUT and e.method == "tools/call")
        modal = app.screen
        assert modal.method == "elicitation/create"
        assert (
            modal.context
            == f"Input round 1 of tools/call wizard (#{first.seq}): the server needs this answer before it can reply."
        )
        assert "Input round 1 of tools/call wizard" in str(modal.query_one("#request-context").render())
        rows = main.inflight.rows
        assert len(rows) == 1 and rows[0].pending.entry is first
        await wait_for(pilot, lambda: rows[0].round == 1, what="the in-flight row's round")
        await answer(pilot, app, json.dumps({"name": "Ada"}))

        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ServerRequestScreen) and app.screen is not modal,
            what="the second input request",
        )
        assert app.screen.method == "sampling/createMessage"
        assert app.screen.context.startswith(f"Input round 2 of tools/call wizard (#{first.seq})")
        assert len(main.inflight.rows) == 1  # one row for the logical call, not one per retry
        await wait_for(pilot, lambda: main.inflight.rows[0].round == 2, what="round 2 in the in-flight row")
        await answer(pilot, app, "roses are red")

        await wait_for(pilot, lambda: done, what="the call to finish")
        assert isinstance(done[0], CallFinished), done[0]
        assert text_of(done[0].outcome) == "Ada: roses are red"
        assert len(done[0].outcome.rounds) == 3

        # the retries are grouped under the first request in the traffic log
        retries = [
            e for e in main.store if e.direction is Direction.OUT and e.method == "tools/call" and e is not first
        ]
        assert [r.meta["mrtr"] for r in retries] == [{"first": first.seq, "round": 1}, {"first": first.seq, "round": 2}]
        log = main.query_one("#live-traffic")
        lines = {e.seq: log.format_entry(e).plain for e in retries}
        assert all(f"↳ tools/call round {n} of #{first.seq}" in lines[r.seq] for n, r in enumerate(retries, 1))
        reply = main.store.get(retries[-1].reply_seq)
        assert f"round 2 of #{first.seq}" in log.format_entry(reply).plain
        assert "round" not in log.format_entry(first).plain
        from mcp_inspector.tui.screens.traffic.frame_detail import describe_entry

        assert f"input round 2 of #{first.seq} (MRTR retry)" in describe_entry(retries[1], main.store, str).plain
        asked = main.store.get(first.reply_seq)
        assert (
            "⋯ input required" in log.format_entry(asked).plain
            and "⋯ input required" not in log.format_entry(reply).plain
        )
        # the row ends with the logical call (it lingers, then goes)
        await wait_for(pilot, lambda: not main.inflight.rows, what="the in-flight row to go")


async def test_tool_list_refreshes_live_in_the_modern_era():
    done: list = []
    app = live_app(ServerSpec("modern", MODERN))
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        await wait_for(pilot, lambda: main.connection.live.subscription_ack is not None, what="subscriptions/listen")
        await choose_tool(pilot, app, "add_tool")
        await main.composer.set_arguments({"name": "fresh_tool"})
        main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, what="add_tool")
        await wait_for(
            pilot,
            lambda: any(t.get("name") == "fresh_tool" for t in main.tool_list.tools),
            what="the tool list to refresh through subscriptions/listen",
        )
        assert main.tool_list.marks.get("fresh_tool") == "added"
        notification = next(e for e in main.store if e.method == "notifications/tools/list_changed")
        assert notification.direction is Direction.IN


async def test_excluded_tools_are_listed_apart_and_refused(modern_http_url):
    app = live_app(ServerSpec("modern-http", url=modern_http_url, transport="http"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        assert main.status_bar.status.era == "modern"
        tools = main.tool_list
        await wait_for(pilot, lambda: "bad_header" in tools.excluded, what="the excluded tool")
        assert "bad_header" not in {t.get("name") for t in tools.tools}
        reason = tools.excluded["bad_header"]
        options = tools.option_list
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        heading = prompts.index("── excluded (1) ──")
        # the reason under the name, cut with an ellipsis to the list's width (the detail has it whole)
        shown = prompts[heading + 1].split("\n", 1)[1].strip().rstrip("…")
        assert "bad_header" in prompts[heading + 1] and len(shown) >= 12 and reason.startswith(shown), prompts
        assert all("bad_header" not in p for p in prompts[:heading])
        assert "1 excluded" in str(tools.query_one("#tool-summary").render())

        # selecting it shows why; sending it is refused with the reason, and nothing goes out
        assert tools.select_name("bad_header")
        await wait_for(pilot, lambda: main.result_panel.kind != "empty", what="the reason")
        detail = " ".join(str(w.render()) for w in main.result_panel.query(".error-detail"))
        assert "'bad_header' was excluded from the list and is not called" in detail and reason in detail
        calls_before = sum(1 for e in main.store if e.method == "tools/call")
        main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any("bad_header is excluded" in str(n.message) for n in shown_notifications(app)))
        assert sum(1 for e in main.store if e.method == "tools/call") == calls_before

        await pilot.press("2")
        await wait_for(pilot, lambda: "Excluded tools (1)" in screen_text(app), what="the overview")


async def test_a_typed_error_over_http_is_explained_in_the_frame_detail(typed_error_url):
    app = live_app(ServerSpec("strict", url=typed_error_url, transport="streamable-http"))
    async with app.run_test(size=SIZE) as pilot:
        main = app.main
        await wait_for(
            pilot, lambda: any(e.kind is Kind.ERROR for e in main.store), what="the error response", timeout=15
        )
        error = next(e for e in main.store if e.kind is Kind.ERROR)
        assert error.meta["status"] == 400 and error.error_code == -32020
        assert "-32020 HeaderMismatch HTTP 400 " in main.query_one("#live-traffic").format_entry(error).plain
        await pilot.press("f6")
        traffic_log = main.query_one("#view-traffic").log_view
        traffic_log.sync(force=True)
        assert traffic_log.move_cursor_to_seq(error.seq)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FrameDetailScreen), what="the frame detail")
        header = str(app.screen.query_one("#frame-header").render())
        assert "meaning: HTTP 400 with -32020: header mismatch: Header mismatch: Mcp-Name header value 'foo'" in header
        assert f"HTTP exchange #{error.meta['exchange']} POST 400" in header


async def test_a_recorded_remote_modern_session_opens_with_its_era_and_server(tmp_path, modern_http_url):
    from mcp_inspector.tui.app import make_app
    from mcp_inspector.tui.config import TuiConfig

    path = tmp_path / "modern.jsonl"
    app = live_app(
        ServerSpec("modern-http", url=modern_http_url + "?token=sk-live-0123456789abcdef", transport="http"),
        record=str(path),
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
    assert "sk-live-0123456789abcdef" not in path.read_text()

    opened = make_app(open_file=str(path), config=TuiConfig())
    async with opened.run_test(size=SIZE) as pilot:
        main = opened.main
        await wait_for(pilot, lambda: main.replay is not None and main.tool_list.tools, what="the recording")
        facts = main.facts
        assert (facts.era, facts.protocol_version) == ("modern", "2026-07-28")
        assert facts.server_info.get("name") == "modern-raw-server"
        assert facts.cache_info == {"server/discover": {"ttlMs": 60000, "cacheScope": "public"}}
        assert {"echo", "wizard"} <= {t["name"] for t in main.tool_list.tools}
        # "copy as CLI command" knows the server was a URL (its secret masked)
        assert (
            main.log_spec is not None
            and main.log_spec.url is not None
            and main.log_spec.url.startswith(modern_http_url)
        )
        assert "sk-live-0123456789abcdef" not in main.log_spec.url


async def test_an_input_round_cancelled_in_the_modal_ends_the_call_and_its_row():
    done: list = []
    app = live_app(ServerSpec("modern", MODERN))
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        await choose_tool(pilot, app, "wizard")
        main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the input request")
        await pilot.press("escape")  # cancel: the retry carries {"action": "cancel"}
        await wait_for(pilot, lambda: done, what="the call to end")
        assert isinstance(done[0], CallFinished) and text_of(done[0].outcome) == "no name (cancel)"
        row = main.inflight.rows[0] if main.inflight.rows else None
        if row is not None:
            await wait_for(pilot, lambda: row.finished_at is not None, what="the row to finish")
            assert "done" in str(row.query_one(".inflight-timing").render())
        await wait_for(pilot, lambda: not main.inflight.rows, what="the row to go")
