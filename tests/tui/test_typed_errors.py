"""Typed errors and HTTP statuses in words in the result view: real replies from a real
HTTP server (tests/servers/http_raw_server.py on 127.0.0.1) through HttpTransport and
RpcConnection, shown by the ResultPanel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from mcp_inspector.core.base.errors import InspectorError, RpcError, TransportFailure
from mcp_inspector.core.protocol.rpc import RpcConnection
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.http import HttpTransport
from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS
from mcp_inspector.tui.pilot_steps import wait_for
from mcp_inspector.tui.screens.opener import ScreenDialogs
from mcp_inspector.tui.text.http_text import reply_status
from mcp_inspector.tui.widgets.result.view import ResultPanel

pytestmark = pytest.mark.anyio
SERVER = Path(__file__).resolve().parent.parent / "servers" / "http_raw_server.py"


@pytest.fixture(scope="module")
def base_url():
    process = subprocess.Popen([sys.executable, str(SERVER)], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("PORT "), line
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        process.kill()
        process.wait()


class ResultApp(App):
    @property
    def dialogs(self) -> ScreenDialogs:  # the screens its widgets open (widgets/dialogs.py)
        return ScreenDialogs(self)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield ResultPanel()


async def failed_call(url: str) -> tuple[InspectorError, int | None]:
    """A tools/call over HTTP that fails: the error and the HTTP status of the reply, if any."""
    store = TrafficStore()
    conn = RpcConnection(HttpTransport(url, http_log=store.http_log), store, default_timeout=10)
    with anyio.fail_after(30):  # a hang guard
        async with anyio.create_task_group() as tg:
            await conn.start(tg)
            try:
                pending = await conn.send_request("tools/call", {"name": "echo", "arguments": {}})
                with pytest.raises(InspectorError) as caught:
                    await pending.wait()
                return caught.value, reply_status(pending)
            finally:
                await conn.aclose()
                tg.cancel_scope.cancel()


def shown(panel: ResultPanel) -> str:
    return "\n".join(str(w.render()) for w in panel.query(Static))


async def test_a_400_with_a_header_mismatch_error_is_explained(base_url):
    error, status = await failed_call(f"{base_url}/status400json")
    assert isinstance(error, RpcError) and error.code == -32020 and status == 400
    app = ResultApp()
    async with app.run_test(size=(120, 30)) as pilot:
        panel = app.query_one(ResultPanel)
        panel.show_error(error, 5.0, http_status=status)
        await wait_for(pilot, lambda: "JSON-RPC error -32020" in shown(panel), what="the error shown")
        text = shown(panel)
        assert "JSON-RPC error -32020" in text
        assert "HTTP 400 with -32020: header mismatch: Header mismatch: Mcp-Name header value 'foo'" in text


async def test_an_http_error_without_a_json_rpc_body_says_what_the_status_means(base_url):
    error, status = await failed_call(f"{base_url}/html500")
    assert isinstance(error, TransportFailure) and error.status == 500 and status is None
    app = ResultApp()
    async with app.run_test(size=(120, 30)) as pilot:
        panel = app.query_one(ResultPanel)
        panel.show_error(error, 5.0)
        await wait_for(pilot, lambda: "not delivered (HTTP 500)" in shown(panel), what="the error shown")
        text = shown(panel)
        assert "not delivered (HTTP 500)" in text
        assert "HTTP 500 internal server error" in text
