"""URL elicitation required (-32042) in the TUI, by keys alone, on real servers.

``tests/servers/raw_server.py --mode url-required``: ``signin`` fails with -32042 (two URLs,
e-1 and e-2) until both are complete; ``complete {id}`` completes one and sends
``notifications/elicitation/complete``. The test sends those ``complete`` calls on the app's
own session while the screen is open, as another client (the browser flow) would make the
server do. server-everything's ``trigger-url-elicitation`` (``errorPath=true``) sends no
complete notification: it is retried by hand (ctrl+s).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from app_helpers import choose_tool, collect_calls, live_app, outgoing, wait_for, wait_for_tools
from textual.widgets import Button, Static

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.session.url_elicitation import UrlElicitationRequired
from mcp_inspector.tui.screens.answer.url_required import UrlRequiredScreen

pytestmark = pytest.mark.anyio

RAW = [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "raw_server.py"), "--mode", "url-required"]
SMALL = (80, 24)


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def call_and_wait_for_screen(pilot, app, tool: str, arguments: dict | None = None) -> UrlRequiredScreen:
    await wait_for_tools(pilot, app)
    await choose_tool(pilot, app, tool)
    if arguments is not None:
        await app.main.composer.set_arguments(arguments)
    app.main.tool_list.option_list.focus()
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, UrlRequiredScreen), what="the URL-required screen", timeout=20)
    screen = app.screen
    await wait_for(pilot, lambda: app.focused is not None and app.focused.screen is screen, what="the focus in it")
    return screen


async def test_urls_shown_opened_on_request_marked_done_then_the_call_retried_by_itself():
    done: list = []
    opened: list = []
    app = live_app(ServerSpec("url-required", RAW))
    app.open_url = lambda url, **_: opened.append(url)  # no browser in tests
    async with app.run_test(size=SMALL, message_hook=collect_calls(done)) as pilot:
        screen = await call_and_wait_for_screen(pilot, app, "signin")
        assert isinstance(done[0].error, UrlElicitationRequired)
        assert "signin needs 2 URLs completed first" in text(screen, "#request-title")
        bodies = [str(s.render()) for s in screen.query(".url-item Static")]
        assert "Opens a page on auth.example" in bodies and "https://auth.example/start" in bodies
        assert "Opens a page on pay.example" in bodies and "Approve the payment" in bodies
        await wait_for(pilot, lambda: app.focused is screen.query_one("#open-0", Button), what="the first URL focused")
        assert opened == []  # nothing opened (nor fetched) without asking

        await pilot.press("ctrl+o")  # the focused one, then the focus goes to the next
        await wait_for(pilot, lambda: opened == ["https://auth.example/start"], what="the first URL opened")
        assert "opened in your browser" in text(screen, "#url-status-0")
        assert app.focused is screen.query_one("#open-1", Button)

        session = app.main.connection.live
        await session.call_tool("complete", {"id": "e-1"})
        await wait_for(pilot, lambda: screen.done == {0}, what="e-1 marked done")
        assert text(screen, "#url-status-0").startswith("✓ done")
        assert screen.query_one("#url-item-0").has_class("done") and app.screen is screen
        assert len(outgoing(app, "tools/call")) == 2  # signin and complete: no retry yet

        await pilot.press("enter")  # the second URL's button
        assert opened == ["https://auth.example/start", "https://pay.example/approve"]
        await session.call_tool("complete", {"id": "e-2"})
        await wait_for(pilot, lambda: len(done) == 2, what="the retried call")
        assert app.screen is not screen
        assert done[1].outcome.result["content"][0]["text"] == "signed in"
        retried = outgoing(app, "tools/call")[-1]
        assert b'"name":"signin"' in retried.raw.replace(b" ", b"")


async def test_escape_closes_without_retrying_and_ctrl_s_retries_by_hand(server_everything):
    done: list = []
    opened: list = []
    app = live_app(ServerSpec("everything", server_everything), timeout=30.0)
    app.open_url = lambda url, **_: opened.append(url)
    async with app.run_test(size=SMALL, message_hook=collect_calls(done)) as pilot:
        arguments = {"url": "https://example.com/login", "errorPath": True}
        screen = await call_and_wait_for_screen(pilot, app, "trigger-url-elicitation", arguments)
        assert "Opens a page on modelcontextprotocol.io" in [str(s.render()) for s in screen.query(".url-item Static")]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is not screen, what="the screen closed")
        calls = len(outgoing(app, "tools/call"))
        await app.main.connection.live.ping()  # a retry would have gone out before this round trip's end
        assert len(outgoing(app, "tools/call")) == calls and opened == []  # closed: not retried

        # (the same arguments again would count as the retry of the first: the server remembers them)
        arguments = {"url": "https://example.com/other", "errorPath": True}
        screen = await call_and_wait_for_screen(pilot, app, "trigger-url-elicitation", arguments)
        await pilot.press("enter")  # open it
        assert opened == ["https://modelcontextprotocol.io"]
        await pilot.press("ctrl+s")  # the server sends no complete notification: retry by hand
        # the retry goes through by the request path: a URL-mode elicitation/create
        await wait_for(pilot, lambda: getattr(app.screen, "kind", None) == "url", what="the retry's URL elicitation")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any(getattr(m, "outcome", None) for m in done), what="the retried call")
        outcome = next(m.outcome for m in done if getattr(m, "outcome", None))
        assert "User completed the URL elicitation flow" in outcome.result["content"][0]["text"]
