"""The HTTP view over an HttpLog: columns, thousands of exchanges with bounded rendering,
a cursor that survives eviction, no work while hidden, and enter to open an exchange."""

from __future__ import annotations

import pytest
from http_apps import URL, Clock, HttpViewApp, modern_session, request_headers
from traffic_apps import screen_text

from mcp_inspector.core.traffic.http_log import HttpLog
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.tui.pilot_steps import ticked, wait_for
from mcp_inspector.tui.text.http_text import explain_error, header_line, status_meaning

pytestmark = pytest.mark.anyio


def store_with(clock: Clock, cap: int = 5_000) -> TrafficStore:
    store = TrafficStore()
    store.http_log = HttpLog(cap=cap, clock=clock)
    return store


def fill(log: HttpLog, clock: Clock, count: int, start: int = 0) -> None:
    for number in range(start, start + count):
        exchange = log.begin(
            "POST", URL, request_headers("tools/call", f"t{number}"), rpc_method="tools/call", rpc_id=number
        )
        clock.advance(2)
        log.response(exchange, 200, "OK", [("content-type", "application/json")])
        log.body(exchange, 100)
        log.finish(exchange)


async def test_each_exchange_is_a_row_with_its_columns():
    clock = Clock()
    store = store_with(clock)
    modern_session(clock, store.http_log)
    app = HttpViewApp(store)
    async with app.run_test(size=(140, 20)) as pilot:
        view = app.query_one("#view-http")
        await wait_for(pilot, lambda: view.exchange_list.row_count == 6)
        text = screen_text(app)
        assert "6 HTTP exchanges  ·  1 open  ·  1 failed  ·  http" in text
        assert header_line(140).plain.rstrip() in text
        lines = [line for line in text.splitlines() if " POST " in line]
        assert len(lines) == 6
        assert lines[0].split()[1:5] == ["POST", "200", "server/discover", "server/discover"]
        assert (
            "tools/call long_running" in lines[3] and "sse" in lines[3] and "2.1 s" in lines[3] and "  4  " in lines[3]
        )
        assert "400" in lines[4] and "tools/call echo" in lines[4]
        assert "failed" in lines[5] and "the stream ended before the reply" in lines[5]
        assert lines[2].split()[-1] == "open"
        assert "sk-live-0123456789abcdef" not in text


async def test_narrow_terminal_keeps_the_essential_columns():
    clock = Clock()
    store = store_with(clock)
    modern_session(clock, store.http_log)
    app = HttpViewApp(store)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one("#view-http")
        await wait_for(pilot, lambda: view.exchange_list.row_count == 6)
        text = screen_text(app)
        assert "Mcp-Method/Name" not in text  # the column goes, Mcp-Name joins the method
        line = next(line for line in text.splitlines() if "long_run" in line)
        assert line.split()[1:5] == ["POST", "200", "tools/call", "long_run…"]
        assert "2.1 s" in line and "sse" in line


async def test_thousands_of_exchanges_render_only_what_is_visible_and_the_cursor_survives_eviction():
    clock = Clock()
    store = store_with(clock, cap=5_000)
    log = store.http_log
    fill(log, clock, 12_000)
    app = HttpViewApp(store)
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one("#view-http")
        exchanges = view.exchange_list
        await wait_for(pilot, lambda: exchanges.row_count == 5_000)
        assert exchanges.cursor_id == log.exchanges[-1].id == 12_000  # following the newest
        assert "5000 HTTP exchanges" in screen_text(app) and "7000 older dropped" in screen_text(app)
        height = exchanges.scrollable_content_region.height
        exchanges.focus()
        for _ in range(5):
            await pilot.press("pageup")
        await pilot.pause()
        # each screenful rendered once per cursor move at most: never the 5000 rows
        assert exchanges.renders < height * 12
        assert not exchanges.tail
        chosen = exchanges.cursor_id
        assert chosen is not None and chosen < 12_000
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.opened == [chosen], what="the exchange opened")

        fill(log, clock, 200, start=12_000)  # the chosen one is still in memory: the cursor stays
        await wait_for(pilot, lambda: exchanges.row_count == len(log.exchanges), what="the new exchanges listed")
        assert exchanges.cursor_id == chosen and not exchanges.tail
        fill(log, clock, 5_000, start=12_200)  # now it is dropped: the cursor goes to the oldest left
        await wait_for(pilot, lambda: exchanges.cursor_id == log.exchanges[0].id)
        await pilot.press("end")
        await wait_for(pilot, lambda: exchanges.tail and exchanges.cursor_id == 17_200, what="the end")


async def test_a_hidden_http_view_does_no_work_and_catches_up_when_shown():
    clock = Clock()
    store = store_with(clock)
    fill(store.http_log, clock, 10)
    app = HttpViewApp(store)
    async with app.run_test(size=(120, 20)) as pilot:
        view = app.query_one("#view-http")
        await wait_for(pilot, lambda: view.exchange_list.row_count == 10)
        view.display = False
        await wait_for(pilot, lambda: not view.exchange_list.is_on_screen, what="the view hidden")
        seen = view.exchange_list._seen_version
        fill(store.http_log, clock, 50, start=10)
        await ticked(pilot, view.exchange_list.REFRESH_INTERVAL)  # a poll would have come by now
        assert view.exchange_list._seen_version == seen  # no polling while hidden
        view.display = True
        await wait_for(pilot, lambda: view.exchange_list._seen_version == store.http_log.version)
        assert view.exchange_list.cursor_id == 60


async def test_an_empty_log_says_why():
    app = HttpViewApp(store_with(Clock()), transport="stdio")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "runs over stdio: there is no HTTP level" in screen_text(app), what="stdio")
        app.query_one("#view-http").transport = "http"
        await wait_for(pilot, lambda: "No HTTP exchanges yet" in screen_text(app), what="the empty log")


def test_typed_errors_and_statuses_in_words():
    assert (
        explain_error(-32020, "Mcp-Name header value 'a' does not match body value 'b'", None, 400)
        == "HTTP 400 with -32020: header mismatch: Mcp-Name header value 'a' does not match body value 'b'"
    )
    assert (
        explain_error(-32022, "", {"supported": ["2026-07-28"], "requested": "2099-01-01"}, None)
        == "unsupported protocol version: the server does not speak the protocol version in _meta "
        "(supported: 2026-07-28; requested: 2099-01-01)"
    )
    assert "missing required client capability" in explain_error(
        -32021, "needs sampling", {"requiredCapabilities": {"sampling": {}}}, 400
    )
    assert "required: sampling" in explain_error(
        -32021, "needs sampling", {"requiredCapabilities": {"sampling": {}}}, 400
    )
    assert explain_error(None, "", None, 401).startswith("HTTP 401 unauthorized")
    assert (
        explain_error(-32601, "Method not found", None, 404)
        == "HTTP 404 not found: the session expired (with Mcp-Session-Id), an unknown method, or the wrong URL · "
        "method not found: the server does not implement this method"
    )
    assert explain_error(-32602, "bad params", None, None) is None  # an ordinary error over stdio: nothing to add
    assert explain_error(None, "", None, 200) is None
    assert status_meaning(418) == "client error" and status_meaning(None) == "no response"


async def test_the_http_view_and_its_actions_are_in_the_keymap_and_the_palette(tmp_path, monkeypatch):
    from app_helpers import DEMO_SESSION, wait_for

    from mcp_inspector.tui.app import make_app
    from mcp_inspector.tui.commands import InspectorCommands
    from mcp_inspector.tui.config import TuiConfig
    from mcp_inspector.tui.keymap import APP_KEYS
    from mcp_inspector.tui.screens.traffic.http_detail import HttpExchangeScreen

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    spec = next(k for k in APP_KEYS if k.id == "view-http")
    assert (spec.key, spec.action, spec.palette) == ("f9,6", "show_view('http')", True)
    app = make_app(open_file=str(DEMO_SESSION), config=TuiConfig())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.main.replay is not None, what="the recording")
        clock = Clock()
        app.store.http_log = HttpLog(clock=clock)
        modern_session(clock, app.store.http_log)
        titles = {title: callback for title, callback, _ in InspectorCommands(app.screen)._commands()}
        assert "views: HTTP" in titles
        for title in (
            "http: show the selected exchange's detail",
            "http: follow the newest exchange",
            "http: the selected exchange's first frame in the traffic log",
            "traffic: open the selected frame's HTTP exchange",
        ):
            assert title in titles
        titles["http: follow the newest exchange"]()
        await wait_for(pilot, lambda: app.main.current_view == "http", what="the HTTP view")
        titles["http: show the selected exchange's detail"]()
        await wait_for(pilot, lambda: isinstance(app.screen, HttpExchangeScreen), what="the detail")
        assert app.screen.exchange_id == app.store.http_log.exchanges[-1].id
