"""``mcp-inspector attach``: the TUI on a running proxy's feed, read-only, filled as the session goes."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys

import pytest
from app_helpers import DEMO_SESSION, SIZE, wait_for
from traffic_apps import screen_text
from waiting import until_sync

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.proxy.feed import FeedPublisher
from mcp_inspector.core.proxy.viewer import FeedReader
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.loading import load_session
from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


@pytest.mark.anyio
async def test_attach_shows_the_hosts_session_from_its_start_then_live(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir(mode=0o700)
    publisher = FeedPublisher("demo", {"server": "demo-server"}, directory=run_dir / "mcp-inspector")
    entries = list(load_session(DEMO_SESSION).store.iter_all())
    half = len(entries) // 2
    for entry in entries[:half]:  # the session so far: the viewer attaches late
        publisher.publish(entry)
    app = make_app(None, live_feed=FeedReader(publisher.path), config=TuiConfig())
    try:
        async with app.run_test(size=SIZE) as pilot:
            main = app.main
            await wait_for(pilot, lambda: app.store.total == half, what="the session so far")
            assert main.read_only and main.composer.disabled
            assert main.status_bar.status.state == "read-only"
            assert "proxy demo" in main.status_bar.status.detail
            for entry in entries[half:]:
                publisher.publish(entry)
            await wait_for(pilot, lambda: app.store.total == len(entries), what="the rest, live")
            # the tool list as the host received it, the last change as a diff; the server's facts
            await wait_for(pilot, lambda: main.tool_list.marks, what="the tool list diff")
            assert main.tool_list.marks == {"weather_forecast": "added", "echo": "changed"}
            assert main.facts.server_info["name"] == "mcp-inspector-demo"
            assert app.store.get(entries[3].seq).raw == entries[3].raw
            publisher.close()
            await wait_for(pilot, lambda: "ended" in main.status_bar.status.detail, what="the end of the session")
            assert not [
                e
                for e in app.store
                if e.kind is Kind.EVENT and e.direction is Direction.LOCAL and e.meta and "missed" in e.meta
            ]
    finally:
        publisher.close(drain=0)


TOKEN = "s3cret-token-of-the-host-0123456789"


def _start_http_proxy(env: dict, url: str, name: str) -> tuple[str, subprocess.Popen]:
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_inspector", "proxy", "--listen", "127.0.0.1:0", "--url", url, "--name", name],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    said = bytearray()

    def listening() -> bool:
        if select.select([process.stderr], [], [], 0.05)[0]:
            said.extend(os.read(process.stderr.fileno(), 4096))
        return re.search(rb"listening on \S+\n", bytes(said)) is not None

    until_sync(listening, what="the proxy to listen")
    found = re.search(rb"listening on (\S+)", bytes(said))
    assert found is not None
    return found.group(1).decode(), process


async def _host_session(url: str) -> None:
    """A host nobody here wrote: the mcp SDK's Streamable HTTP client, with a bearer token."""
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(url, http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        await session.call_tool("echo", {"text": "seen by the viewer"})


@pytest.mark.anyio
async def test_attached_to_an_http_proxy_the_http_view_shows_the_hosts_exchanges(tmp_path, sdk_http_stateful_url):
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path))
    proxy_url, process = _start_http_proxy(env, sdk_http_stateful_url, "web")
    try:
        reader = FeedReader(tmp_path / "mcp-inspector" / "web.sock")
        app = make_app(None, live_feed=reader, config=TuiConfig())
        async with app.run_test(size=SIZE) as pilot:
            await _host_session(proxy_url)  # while the viewer watches
            main = app.main
            log = main.store.http_log

            def the_call():
                return next((ex for ex in log.exchanges if ex.rpc_method == "tools/call" and ex.state == "done"), None)

            await wait_for(pilot, lambda: the_call() is not None, what="the host's tools/call exchange")
            call = the_call()
            assert call.method == "POST" and call.url == sdk_http_stateful_url and call.status == 200
            assert call.header("authorization", response=False) not in (None, f"Bearer {TOKEN}")  # masked
            assert call.header("mcp-session-id", response=False) and call.header("content-type")
            assert call.headers_ms is not None and call.total_ms is not None
            request = main.store.get(call.sent_seq)
            assert request.method == "tools/call" and request.direction is Direction.OUT
            replies = [main.store.get(seq) for seq in call.frame_seqs if seq != call.sent_seq]
            assert any(e.reply_to == request.seq and b"seen by the viewer" in e.raw for e in replies)
            assert main.store.exchange_of(request) == call.id
            assert [ex.rpc_method for ex in log.exchanges][:2] == ["initialize", "notifications/initialized"]
            stream = next(ex for ex in log.exchanges if ex.method == "GET")
            assert stream.note == "stream"
            await wait_for(pilot, lambda: stream.state != "open", what="the host's GET stream to end")
            assert stream.state == "done"  # the host closed it: not a failure

            await pilot.press("f9")  # the HTTP view
            view = main.query_one("#view-http")
            await wait_for(pilot, lambda: view.exchange_list.row_count == len(log.exchanges), what="the HTTP view")
            text = screen_text(app)
            assert "·  http" in text and TOKEN not in text
            row = next(line for line in text.splitlines() if "tools/call" in line and " POST " in line)
            assert "200" in row and "done" in row
    finally:
        process.kill()
        process.wait()


@pytest.mark.anyio
async def test_ctrl_e_when_attached_sends_a_frame_into_the_hosts_session_and_shows_its_reply(tmp_path):
    from conftest import PYTHON, SERVERS_DIR

    from mcp_inspector.core.proxy.viewer import running_proxies
    from mcp_inspector.tui.screens.traffic.inject_frame import InjectFrameScreen

    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path))
    peer = [PYTHON, str(SERVERS_DIR / "proxy_peer.py")]
    host = subprocess.Popen(  # the host: this test, holding the proxy's stdin open and writing nothing
        [sys.executable, "-m", "mcp_inspector", "proxy", "--name", "peer", "--", *peer],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        until_sync(lambda: running_proxies(tmp_path / "mcp-inspector"), what="the live view")
        app = make_app(None, live_feed=FeedReader(tmp_path / "mcp-inspector" / "peer.sock"), config=TuiConfig())
        async with app.run_test(size=SIZE) as pilot:
            main = app.main
            await pilot.press("ctrl+e")
            await wait_for(pilot, lambda: isinstance(app.screen, InjectFrameScreen), what="the frame screen")
            screen = app.screen
            assert "host's live session" in str(screen.query_one("#inject-warning").render())
            assert '"ping"' in screen.editor.text and "viewer-1" in screen.editor.text
            await pilot.press("ctrl+s")
            reply = screen.query_one("#inject-reply-text")
            await wait_for(pilot, lambda: "reply" in str(reply.render()), what="the server's reply")
            assert '"viewer-1"' in str(reply.render()) and "b64" in str(reply.render())  # the peer's echo, our id
            injected = lambda: [e for e in main.store if e.meta and e.meta.get("injected")]  # noqa: E731
            await wait_for(pilot, lambda: len(injected()) == 2, what="both frames in the traffic log")
            request, answer = injected()
            assert request.direction is Direction.OUT and answer.reply_to == request.seq
            screen.editor.load_text('{"jsonrpc": "2.0", "id": 1, "result": {}}')
            await pilot.press("ctrl+s")
            status = screen.query_one("#inject-status")
            await wait_for(pilot, lambda: "Not sent" in str(status.render()), what="a response refused")
    finally:
        host.kill()
        host.wait()
