"""The whole app on remote servers: real HTTP servers on 127.0.0.1 (tests/http_fixtures.py),
Streamable HTTP and the legacy HTTP+SSE transport, driven through Pilot.

What the TUI adds over the core: the status bar names the transport and era, the overview
says why and shows the HTTP session, the HTTP view lists the exchanges and opens their
detail, and the traffic log and the HTTP view lead to each other.
"""

from __future__ import annotations

import json
import re

import pytest
from app_helpers import SIZE, choose_tool, live_app, wait_for, wait_for_tools
from textual.widgets import Input, OptionList, Static
from traffic_apps import screen_text

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.messages import CallFinished
from mcp_inspector.tui.pilot_steps import palette_pick
from mcp_inspector.tui.screens.traffic.frame_detail import FrameDetailScreen
from mcp_inspector.tui.screens.traffic.http_detail import HttpExchangeScreen
from mcp_inspector.tui.widgets.status_bar import describe_status

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def static_text(widget: Static) -> str:
    return str(widget.render())


def text_of(outcome) -> str:
    return "\n".join(block.get("text", "") for block in outcome.result.get("content", []) if isinstance(block, dict))


async def call_echo(pilot, app, finished: list, text: str) -> None:
    await choose_tool(pilot, app, "echo")
    field = app.main.composer.query(Input).first()
    field.focus()
    await pilot.press(*text)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: finished, what="the echo call", timeout=15)


async def test_streamable_http_server_status_http_view_detail_and_jump_to_the_frame(sdk_http_stateful_url, tmp_path):
    finished: list[CallFinished] = []
    app = live_app(ServerSpec("sdk", url=sdk_http_stateful_url, transport="http"))
    async with app.run_test(
        size=SIZE, message_hook=lambda m: finished.append(m) if isinstance(m, CallFinished) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        # the era is kept for stdio servers only (eras.hint_applies): it is never used over HTTP
        assert not (tmp_path / "state" / "mcp-inspector" / "eras.json").exists()
        main = app.main
        status = main.status_bar.status
        assert status.transport == "http"
        line, _ = describe_status(status)
        assert "connected to sdk" in line and "·  http  ·" in line
        assert f"{status.era} {status.protocol_version}" in line and status.era in ("modern", "legacy")
        assert "pid" not in line  # no process of ours behind a URL

        await call_echo(pilot, app, finished, "over http")
        assert text_of(finished[0].outcome) == "over http"

        await pilot.press("f9")  # the composer has the focus: "6" would be typed
        view = main.query_one("#view-http")
        assert main.current_view == "http" and app.focused is view.exchange_list
        log = main.store.http_log
        calls = [ex for ex in log.exchanges if ex.rpc_method == "tools/call"]
        assert len(calls) == 1 and calls[0].status == 200
        await wait_for(
            pilot, lambda: view.exchange_list.row_count == len(log.exchanges), what="the HTTP view to catch up"
        )
        assert "HTTP exchange" in static_text(view.query_one("#http-summary"))
        # the line of the call: time, method, status, JSON-RPC method
        row = view.exchange_list.row_of(calls[0].id)
        rendered = view.exchange_list.render_line(row - round(view.exchange_list.scroll_y)).text
        assert "POST" in rendered and "200" in rendered and "tools/call" in rendered

        assert view.select(calls[0].id)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, HttpExchangeScreen), what="the exchange detail")
        detail = app.screen
        body = static_text(detail.query_one("#http-detail-text"))
        assert "Request headers" in body and "Response headers" in body and "Mcp-" in body.replace("MCP-", "Mcp-")
        assert sdk_http_stateful_url in body
        frames = detail.query_one("#http-frames", OptionList)
        await wait_for(pilot, lambda: frames.option_count >= 2, what="the carried frames")
        request_seq = int(frames.get_option_at_index(0).id)
        request = main.store.get(request_seq)
        assert request.direction is Direction.OUT and request.method == "tools/call"
        frames.focus()
        frames.highlighted = 1
        reply_seq = int(frames.get_option_at_index(1).id)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is main and main.current_view == "traffic", what="the traffic view")
        traffic_log = main.query_one("#view-traffic").log_view
        assert traffic_log.cursor_entry is not None and traffic_log.cursor_entry.seq == reply_seq
        assert main.store.get(reply_seq).kind is Kind.RESPONSE

        # and back, from the command palette: the selected frame's exchange
        await palette_pick(pilot, "selected frame's HTTP")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, HttpExchangeScreen), what="the exchange from the palette")
        assert app.screen.exchange_id == calls[0].id and main.current_view == "http"


async def test_legacy_sse_server_frame_detail_names_its_exchange_and_h_opens_it(everything_sse_url):
    app = live_app(ServerSpec("everything", url=everything_sse_url, transport="sse"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        status = main.status_bar.status
        assert (status.transport, status.era) == ("sse", "legacy")
        assert "·  sse  ·" in describe_status(status)[0] and "legacy" in describe_status(status)[0]
        log = main.store.http_log
        streams = [ex for ex in log.exchanges if ex.method == "GET"]
        assert streams and streams[0].state == "open" and streams[0].event_count >= 1

        # the tools/list response came on the GET stream, as an SSE event
        reply = next(
            e
            for e in main.store
            if e.direction is Direction.IN
            and e.kind is Kind.RESPONSE
            and e.reply_to is not None
            and main.store.get(e.reply_to).method == "tools/list"
        )
        assert reply.meta["exchange"] == streams[0].id
        await pilot.press("5")
        traffic_log = main.query_one("#view-traffic").log_view
        traffic_log.sync(force=True)
        assert traffic_log.move_cursor_to_seq(reply.seq)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FrameDetailScreen), what="the frame detail")
        header = static_text(app.screen.query_one("#frame-header"))
        assert f"HTTP exchange #{streams[0].id} GET 200" in header
        assert "h  HTTP exchange" in static_text(app.screen.query_one("#frame-keys"))
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HttpExchangeScreen), what="the exchange detail")
        assert app.screen.exchange_id == streams[0].id
        assert main.current_view == "http"
        assert main.query_one("#view-http").exchange_list.cursor_id == streams[0].id
        body = static_text(app.screen.query_one("#http-detail-text"))
        assert "SSE events" in body and "event=endpoint" in body
        # each message event names the frame in its data
        assert reply.meta.get("sse_id") is None or f"→ #{reply.seq}" in body


async def test_everything_streamable_http_overview_shows_the_http_session(everything_http_url):
    app = live_app(ServerSpec("everything", url=everything_http_url, transport="http"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        facts = main.facts
        assert facts.transport == "http" and facts.era == "legacy"
        assert facts.http_session_id  # server-everything keeps a session (Mcp-Session-Id)
        assert facts.era_reason
        await pilot.press("2")
        await wait_for(pilot, lambda: "HTTP session" in screen_text(app), what="the overview")
        text = screen_text(app)
        assert re.search(rf"HTTP session +{facts.http_session_id}", text)
        assert f"legacy {facts.protocol_version}" in text and facts.era_reason[:40] in text
        assert everything_http_url in text


async def test_a_stdio_server_has_no_http_level():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        assert app.main.status_bar.status.transport == "stdio"
        await pilot.press("f9")
        view = app.main.query_one("#view-http")
        none = view.query_one("#http-none")
        assert none.display and "runs over stdio: there is no HTTP level" in static_text(none)
        assert not view.exchange_list.display


async def test_command_palette_and_f7_offer_remote_servers(tmp_path, monkeypatch, sdk_http_stateful_url):
    """F7 lists URL servers from config files, masked; choosing one connects over HTTP."""
    from mcp_inspector.tui.screens.dialogs.connect import ConnectScreen

    monkeypatch.chdir(tmp_path)
    secret_url = sdk_http_stateful_url + "?token=sk-live-abcdef0123456789"
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"remote-one": {"type": "http", "url": secret_url}}}))
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("f7")
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectScreen), what="the server list")
        screen = app.screen
        await wait_for(pilot, lambda: any(s.url for s in screen.specs.values()), what="the config's remote server")
        option_list = screen.query_one("#connect-servers", OptionList)
        prompts = [str(option_list.get_option_at_index(i).prompt) for i in range(option_list.option_count)]
        remote = next(p for p in prompts if "remote-one" in p)
        assert "http · " in remote and "sk-live-abcdef0123456789" not in remote and "token=sk-l" in remote
        index = next(i for i, p in enumerate(prompts) if "remote-one" in p)
        option_list.highlighted = index
        option_list.focus()
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: app.main.status_bar.status.state == "connected" and app.main.status_bar.status.transport == "http",
            what="the remote connection",
            timeout=20,
        )
        assert "sk-live-abcdef0123456789" not in app.main.status_bar.status.command


async def test_a_url_server_is_named_by_its_server_info_with_the_host_after(sdk_http_stateful_url):
    """Issue 21: the status bar named a remote server ``127.0.0.1`` and the same server over stdio
    by its serverInfo: now the serverInfo name everywhere, the host in brackets after it."""
    from mcp_inspector.tui.screens.dialogs.connect import parse_command_line

    spec = parse_command_line(sdk_http_stateful_url)
    assert spec.source == "command line" and spec.name == "127.0.0.1"
    app = live_app(spec)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        session = main.connection.live
        assert session is not None
        info_name = session.server_info.get("title") or session.server_info.get("name")
        await wait_for(
            pilot, lambda: f"connected to {info_name} (127.0.0.1)" in static_text(main.status_bar), what="the name"
        )


@pytest.mark.slow
def test_mcp_inspector_url_opens_the_tui_on_the_remote_server(sdk_http_stateful_url):
    """The real program on a pseudo-terminal: ``mcp-inspector --url URL`` connects over HTTP."""
    import sys

    from shutdown_helpers import PtyProcess

    tui = PtyProcess([sys.executable, "-m", "mcp_inspector", "--url", sdk_http_stateful_url])
    try:
        tui.wait_for_output("(127.0.0.1)", timeout=30)  # the serverInfo name, then the host
        tui.wait_for_output("modern 2026-07-28", timeout=10)
        assert "http" in tui.text()
        tui.send(b"\x11")  # ctrl+q
        assert tui.wait(20) == 0
    finally:
        tui.kill()


async def test_tool_list_refreshes_live_over_streamable_http_in_the_modern_era(fresh_sdk_http_server):
    """change_tools on the SDK server: notifications/tools/list_changed on the subscriptions/listen
    stream (an open SSE response), then a new tools/list, and the list shows the new tool."""
    server = fresh_sdk_http_server("--mode", "stateful")
    finished: list[CallFinished] = []
    app = live_app(ServerSpec("sdk", url=server.url, transport="http"))
    async with app.run_test(
        size=SIZE, message_hook=lambda m: finished.append(m) if isinstance(m, CallFinished) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        assert main.status_bar.status.era == "modern"
        await choose_tool(pilot, app, "change_tools")
        main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: finished, what="change_tools")
        await wait_for(
            pilot,
            lambda: any(t.get("name") == "extra_1" for t in main.tool_list.tools),
            what="the new tool through subscriptions/listen",
            timeout=15,
        )
        assert main.tool_list.marks.get("extra_1") == "added"
        listen = next(ex for ex in main.store.http_log.exchanges if ex.rpc_method == "subscriptions/listen")
        changed = next(e for e in main.store if e.method == "notifications/tools/list_changed")
        assert changed.meta["exchange"] == listen.id  # it came on the listen stream


def test_a_url_typed_in_the_server_list_is_a_remote_server():
    from mcp_inspector.tui.screens.dialogs.connect import parse_command_line

    spec = parse_command_line("https://mcp.example.com/mcp?token=abc")
    assert (spec.url, spec.transport, spec.name) == ("https://mcp.example.com/mcp?token=abc", "http", "mcp.example.com")
    spec = parse_command_line("sse http://127.0.0.1:8000/sse")
    assert (spec.url, spec.transport, spec.name) == ("http://127.0.0.1:8000/sse", "sse", "127.0.0.1")
    assert parse_command_line("streamable-http https://h/mcp").transport == "streamable-http"


@pytest.fixture
def raw_http_base():
    import subprocess
    import sys
    from pathlib import Path

    server = Path(__file__).resolve().parent.parent / "servers" / "http_raw_server.py"
    process = subprocess.Popen([sys.executable, str(server)], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("PORT "), line
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        process.kill()
        process.wait()


async def test_a_resumed_stream_shows_which_exchange_it_resumes(raw_http_base):
    """The reply stream is cut after a priming event; the transport resumes it with a GET and
    Last-Event-ID: the HTTP view shows the GET as resuming the POST, and the call succeeds."""
    finished: list[CallFinished] = []
    app = live_app(ServerSpec("resume", url=f"{raw_http_base}/resume", transport="http"))
    async with app.run_test(
        size=SIZE, message_hook=lambda m: finished.append(m) if isinstance(m, CallFinished) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        await call_echo(pilot, app, finished, "again")
        main = app.main
        post = next(ex for ex in main.store.http_log.exchanges if ex.rpc_method == "tools/call")
        resume = next(ex for ex in main.store.http_log.exchanges if ex.resumes == post.id)
        assert resume.method == "GET" and resume.header("last-event-id", response=False) == "e1"
        await pilot.press("f9")
        view = main.query_one("#view-http")
        await wait_for(
            pilot, lambda: view.exchange_list.row_count == len(main.store.http_log.exchanges), what="the HTTP view"
        )
        assert f"resumes #{post.id}" in screen_text(app)
        # the detail's SSE events name the frame each carried: e3 is the reply
        from mcp_inspector.tui.screens.traffic.http_detail import event_frames, exchange_body

        reply = next(
            e for e in main.store if e.kind is Kind.RESPONSE and e.meta and e.meta.get("exchange") == resume.id
        )
        body = exchange_body(resume, str, "", event_frames(resume, main.store)).plain
        line = next(line for line in body.splitlines() if "id=e3" in line)
        assert line.endswith(f"→ #{reply.seq}")


async def test_a_remote_server_that_went_away_shows_in_the_status_bar(fresh_sdk_http_server):
    """No process to watch over HTTP: a call that cannot be delivered says so in the status bar."""
    from mcp_inspector.tui.messages import CallFailed

    server = fresh_sdk_http_server("--mode", "stateful")
    failed: list[CallFailed] = []
    app = live_app(ServerSpec("sdk", url=server.url, transport="http"))
    async with app.run_test(
        size=SIZE, message_hook=lambda m: failed.append(m) if isinstance(m, CallFailed) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        server.stop()
        await call_echo(pilot, app, failed, "anyone?")
        line, _ = describe_status(app.main.status_bar.status)
        assert "connected to sdk" in line and "⚠ last request not delivered: cannot connect to" in line
        assert "connection refused" in line


async def test_our_reply_to_roots_list_is_a_frame_its_post_carried(everything_http_url):
    """server-everything asks roots/list; the POST carrying our answer showed "Frames carried: none"
    and the reply's frame detail had no exchange (h: "not carried over HTTP"). Now each frame we
    send is linked to the exchange whose body carried it, both ways."""
    app = live_app(ServerSpec("everything", url=everything_http_url, transport="http"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main

        def our_reply():
            for entry in main.store:
                asked = main.store.get(entry.reply_to) if entry.reply_to is not None else None
                if entry.direction is Direction.OUT and asked is not None and asked.method == "roots/list":
                    return entry
            return None

        await wait_for(pilot, lambda: our_reply() is not None, what="our reply to roots/list", timeout=15)
        reply = our_reply()
        await pilot.press("5")
        traffic_log = main.query_one("#view-traffic").log_view
        traffic_log.sync(force=True)
        assert traffic_log.move_cursor_to_seq(reply.seq)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FrameDetailScreen), what="the frame detail")
        assert re.search(r"HTTP exchange #\d+ POST", static_text(app.screen.query_one("#frame-header")))
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HttpExchangeScreen), what="the exchange detail")
        exchange = main.store.http_log.get(app.screen.exchange_id)
        assert exchange.method == "POST" and exchange.status == 202
        frames = app.screen.query_one("#http-frames", OptionList)
        await wait_for(pilot, lambda: frames.option_count == 1, what="the carried frame")
        assert int(frames.get_option_at_index(0).id) == reply.seq
        assert "Frames carried (1)" in str(app.screen.query_one("#http-frames-caption").render())


async def test_the_tuis_recording_of_a_remote_server_has_its_http_exchanges(sdk_http_stateful_url, tmp_path):
    """Issue 24: the TUI's --record writes the HTTP view's exchanges; --open (load_session) reads them back."""
    from mcp_inspector.core.traffic.loading import load_session

    record = tmp_path / "tui.jsonl"
    token = "s3cret-bearer-of-the-tui-0123456789"
    spec = ServerSpec("sdk", url=sdk_http_stateful_url, transport="http", headers={"Authorization": f"Bearer {token}"})
    app = live_app(spec, record=str(record))

    def summary(exchange) -> tuple:
        e = exchange
        return (e.method, e.url, e.status, e.rpc_method, e.rpc_id, e.event_count, e.frame_seqs, e.note, e.state)

    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        log = app.main.store.http_log
        await wait_for(pilot, lambda: any(e.rpc_method == "tools/list" and e.state == "done" for e in log.exchanges))
        live = {e.id: summary(e) for e in log.exchanges if e.state != "open"}  # a GET stream ends at quit
    assert token not in record.read_text()
    loaded = load_session(record)
    assert loaded.skipped == 0, loaded.describe_skipped()
    opened = loaded.store.http_log
    assert {exchange_id: summary(opened.get(exchange_id)) for exchange_id in live} == live
    assert any(e.rpc_method == "tools/list" and e.status == 200 for e in opened.exchanges)


async def test_an_export_of_a_remote_session_opens_with_its_http_view(sdk_http_stateful_url, tmp_path):
    """Not recorded, exported afterwards with ``e``: --open of the export shows the HTTP exchanges."""
    from mcp_inspector.tui.app import make_app
    from mcp_inspector.tui.config import TuiConfig
    from mcp_inspector.tui.widgets.views.traffic.log import TrafficLog

    exported: list = []
    app = live_app(ServerSpec("sdk", url=sdk_http_stateful_url, transport="http"))
    hook = lambda m: exported.append(m) if isinstance(m, TrafficLog.Exported) else None  # noqa: E731
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        log = main.store.http_log
        await wait_for(pilot, lambda: any(e.rpc_method == "tools/list" and e.state == "done" for e in log.exchanges))
        await pilot.press("f6")
        traffic_log = main.query_one("#view-traffic").log_view
        traffic_log.export_dir = tmp_path
        traffic_log.focus()
        await pilot.press("e")
        await wait_for(pilot, lambda: app.screen is not main, what="the save-as dialog")
        await pilot.press("enter")
        await wait_for(pilot, lambda: exported, what="the export", timeout=10)
        result = exported[0].result
        # ids are dense from 1: those the export had (a stream's status may come after it)
        live = {e.id: (e.method, e.rpc_method) for e in log.exchanges if e.id <= result.exchanges}
    assert result is not None and result.exchanges >= 3 and "HTTP exchanges" in result.describe()

    opened = make_app(open_file=str(result.path), config=TuiConfig())
    async with opened.run_test(size=SIZE) as pilot:
        main = opened.main
        await wait_for(pilot, lambda: main.replay is not None and main.tool_list.tools, what="the export")
        http = main.store.http_log
        assert {e.id: (e.method, e.rpc_method) for e in http.exchanges} == live
        assert any(e.rpc_method == "tools/list" and e.status == 200 for e in http.exchanges)
        await pilot.press("f9")
        view = main.query_one("#view-http")
        await wait_for(pilot, lambda: view.exchange_list.row_count == len(live), what="the HTTP view")
