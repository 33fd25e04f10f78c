"""The Auth view over real flows: the TUI connects to tests/servers/oauth_server.py (an
authorization server and a protected MCP server on 127.0.0.1) with ``--oauth-open fetch``
(or ``print``: the modal), and the view shows each step of the flow; no token, code, secret or
verifier the server issued or saw reaches the screen, a step's detail or a copied step;
restart step by step; clearing the stored credentials; a step-up and a refresh as flows of their own."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path

import pytest
from app_helpers import live_app, wait_for, wait_for_tools
from rich.console import Console
from traffic_apps import screen_text

from mcp_inspector.core.auth.model import AuthSettings
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.dialogs.auth_prompt import AuthPromptScreen, ConfirmForgetScreen
from mcp_inspector.tui.widgets.views.auth.step_text import step_detail
from mcp_inspector.tui.widgets.views.auth.view import AuthView

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "auth"))
from auth_helpers import follow_authorization, install_fake_browser, start_oauth_server  # noqa: E402 - after the sys.path/environment setup above

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]

FLOW = [
    "challenge",
    "resource-metadata",
    "server-metadata",
    "registration",
    "authorization",
    "redirect",
    "token",
    "retry",
]
#: a flow the user restarts (r): no 401 to start from, no request waiting to be sent again
RESTARTED = FLOW[1:-1]


@pytest.fixture
def oauth_server():
    started = []

    def start(*args: str):
        server = start_oauth_server(*args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def oauth_app(server, mode: str = "fetch", store: str = "none", **settings):
    spec = ServerSpec(
        "oauth",
        url=server.url,
        transport="http",
        source="test",
        auth=AuthSettings(open_mode=mode, store=store, **settings),
    )
    return live_app(spec)


def rendered(renderable) -> str:
    console = Console(width=300, file=io.StringIO(), color_system=None, legacy_windows=False)
    console.print(renderable)
    return console.file.getvalue()


async def show_auth(pilot, app) -> AuthView:
    await pilot.press("0")
    await wait_for(pilot, lambda: app.main.current_view == "auth", what="the Auth view")
    view = app.main.query_one("#view-auth", AuthView)
    await wait_for(pilot, lambda: view.step_list.option_count > 0, what="the steps")
    return view


def kinds(view: AuthView) -> list[str]:
    return [step.kind for step, _ in view.steps()]


async def test_a_fetch_flow_is_shown_step_by_step_and_no_secret_reaches_the_screen(oauth_server):
    server = oauth_server("--jwt")
    app = oauth_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_tools(pilot, app)
        view = await show_auth(pilot, app)
        await wait_for(pilot, lambda: kinds(view) == FLOW, what="the eight steps")
        assert all(status == "ok" for _, status in view.steps()), [(s.kind, st) for s, st in view.steps()]
        text = screen_text(app)
        assert "Auth  authorized as client client-1 (dynamic) with scope mcp" in text
        for number, kind in enumerate(FLOW, 1):
            assert f" {number} ✓ {kind}" in text
        # the last step: the request sent again with the new token, accepted
        assert "Step 8 · retry · ✓ ok" in rendered(view.detail)
        # the token step: grant, client authentication, scopes, the JWT's claims
        await pilot.press("up")
        await wait_for(
            pilot,
            lambda: view.selected_step() is not None and view.selected_step().kind == "token",
            what="the token step",
        )
        await wait_for(pilot, lambda: "Step 7 · token" in rendered(view.detail), what="the token step's detail")
        detail = rendered(view.detail)
        assert "Step 7 · token · ✓ ok" in detail
        assert "grant type: authorization_code" in detail and "client auth: none" in detail
        assert "scope asked: mcp" in detail and "scope granted: mcp" in detail
        assert '"sub": "user-of-client-1"' in detail and '"aud": "' + server.url in detail
        assert "exp " in detail and " UTC (in 60 min)" in detail
        # every step, on screen, in its whole detail and copied as JSON: no secret of the run
        secrets = server.secrets()
        assert len(secrets) >= 4  # an access token, a refresh token, a code, its verifier
        await pilot.press("home")
        for number in range(1, len(FLOW) + 1):
            await wait_for(
                pilot,
                lambda number=number: view.selected_step() is not None and view.selected_step().number == number,
                what=f"step {number}",
            )
            await wait_for(
                pilot, lambda number=number: f"Step {number} ·" in rendered(view.detail), what=f"step {number}'s detail"
            )
            await pilot.press("c")
            await wait_for(
                pilot, lambda number=number: f'"number": {number},' in (app.clipboard or ""), what="the copy"
            )
            seen = screen_text(app) + rendered(view.detail) + app.clipboard
            leaked = [secret for secret in secrets if secret in seen]
            assert not leaked, (number, leaked)
            await pilot.press("down")


async def test_restart_step_by_step_waits_for_n_at_each_step(oauth_server):
    server = oauth_server()
    app = oauth_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_tools(pilot, app)
        view = await show_auth(pilot, app)
        await wait_for(pilot, lambda: kinds(view) == FLOW, what="the first flow")
        await pilot.press("s", "r")
        await wait_for(pilot, lambda: view.pending is not None, what="the first step held")
        held = view.pending.kind
        assert held == "resource-metadata"  # a restart has no 401 to start from
        await wait_for(pilot, lambda: f"⏸ {held}" in screen_text(app), what="the waiting row")
        assert "authorizing" in screen_text(app) and "step-by-step: n / enter runs the next step" in screen_text(app)
        assert server.stats()["authorize"] == 1
        ran = []
        for _ in range(10):
            step = view.pending
            if step is None:
                break
            ran.append(step.kind)
            await pilot.press("n")
            await wait_for(pilot, lambda step=step: view.pending is not step, what=f"{step.kind} let go")
            await wait_for(
                pilot,
                lambda: view.pending is not None or app.main.connection.auth.log.state != "authorizing",
                what="the next step or the end",
            )
        assert ran == RESTARTED, ran
        await wait_for(pilot, lambda: app.main.connection.auth.log.state == "authorized", what="authorized again")
        assert server.stats()["authorize"] == 2
        await wait_for(pilot, lambda: "─" * 20 in screen_text(app), what="the line between the flows")
        await pilot.press("s")  # off again
        assert app.main.connection.auth.log.gate is None


async def test_d_asks_then_clears_the_stored_credentials(oauth_server, tmp_path):
    server = oauth_server()
    app = oauth_app(server, store="file")
    store_dir = tmp_path / "state" / "mcp-inspector" / "auth"
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        view = await show_auth(pilot, app)
        await wait_for(pilot, lambda: kinds(view) == FLOW, what="the flow")
        assert [p for p in store_dir.iterdir() if p.is_file()], "the tokens were stored"
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmForgetScreen), what="the question")
        await pilot.press("n")  # keep them
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmForgetScreen), what="the question closed")
        assert [p for p in store_dir.iterdir() if p.is_file()]
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmForgetScreen), what="the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: not [p for p in store_dir.iterdir() if p.is_file()], what="the store emptied")
        await wait_for(pilot, lambda: "credentials forgotten" in screen_text(app), what="the head line")
        assert app.main.connection.auth.tokens is None
        await wait_for(
            pilot,
            lambda: any("1 stored entry removed" in str(n.message) for n in shown_notifications(app)),
            what="what was removed",
        )


async def test_a_step_up_is_a_second_flow_after_a_line(oauth_server):
    server = oauth_server()
    app = oauth_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_tools(pilot, app)
        session = app.main.connection.live
        await session.call_tool("admin_action", {})
        view = await show_auth(pilot, app)
        await wait_for(
            pilot,
            lambda: (
                kinds(view).count("challenge") == 2
                and view.steps()[-1][0].kind == "retry"
                and view.steps()[-1][1] == "ok"
            ),
            what="the step-up flow",
        )
        second = [step for step, _ in view.steps()][len(FLOW) :]
        assert second[0].kind == "challenge" and "403" in second[0].title
        await pilot.press("home")
        await wait_for(pilot, lambda: " 9 ✓ challenge" in screen_text(app), what="the second flow's rows")
        lines = screen_text(app).splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith(" 9 ✓ challenge"))
        assert lines[at - 1].startswith("───") and lines[at - 2].startswith(" 8 ✓ retry")  # a line between
        await wait_for(
            pilot,
            lambda: "with scope mcp admin" in screen_text(app) or "with scope admin mcp" in screen_text(app),
            what="the union of scopes",
        )


async def test_print_mode_asks_in_a_modal_and_the_pasted_redirect_authorizes(oauth_server):
    server = oauth_server()
    app = oauth_app(server, mode="print")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AuthPromptScreen), what="the modal")
        url = app.screen.url
        assert url.startswith(server.base + "/authorize?")
        await wait_for(pilot, lambda: "Authorize at 127.0.0.1" in screen_text(app), what="the modal drawn")
        await pilot.pause()  # what the modal's mount posted was handled
        assert not shown_notifications(app)  # the modal says it: no toast repeating the URL beside it
        location = await asyncio.to_thread(follow_authorization, url)
        app.screen.query_one("#auth-prompt-input").value = location
        await pilot.press("enter")
        await wait_for_tools(pilot, app)
        view = await show_auth(pilot, app)
        await wait_for(pilot, lambda: kinds(view) == FLOW, what="the flow")
        assert "code=" not in rendered(view.detail) or "•" in rendered(view.detail)
        leaked = [secret for secret in server.secrets() if secret in screen_text(app) + rendered(view.detail)]
        assert not leaked


async def test_escape_in_the_print_modal_fails_the_flow_and_the_view_says_where(oauth_server):
    server = oauth_server()
    app = oauth_app(server, mode="print")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AuthPromptScreen), what="the modal")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.main.status_bar.status.state == "failed", what="the connection failed")
        assert "authorization cancelled" in app.main.status_bar.status.detail
        view = await show_auth(pilot, app)
        await wait_for(pilot, lambda: "failed at step 5: authorization cancelled" in screen_text(app), what="the head")
        step, status = view.steps()[-1]
        assert step.kind == "authorization" and status == "failed"
        await pilot.press("r")  # the connection is gone: r connects again, and the new flow asks again
        await wait_for(pilot, lambda: isinstance(app.screen, AuthPromptScreen), what="the modal again")
        location = await asyncio.to_thread(follow_authorization, app.screen.url)
        app.screen.query_one("#auth-prompt-input").value = location
        await pilot.press("enter")
        await wait_for_tools(pilot, app)
        await wait_for(pilot, lambda: "Auth  authorized as client client-" in screen_text(app), what="authorized")
        # one AuthLog for the server across reconnects: the cancelled flow is still there, then the new one
        assert kinds(view) == FLOW[:5] + FLOW, kinds(view)
        assert [status for _, status in view.steps()][4] == "failed"


async def test_a_refresh_is_its_own_flow_with_the_token_kept_out_of_sight(oauth_server):
    server = oauth_server("--expires-in", "1")  # expired at once: the next request refreshes first
    app = oauth_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_tools(pilot, app)
        await asyncio.sleep(1.5)  # past the token's expiry
        await app.main.connection.live.call_tool("echo", {"text": "hi"})
        view = await show_auth(pilot, app)
        await wait_for(
            pilot,
            lambda: "refresh" in kinds(view) and all(st != "running" for _, st in view.steps()),
            what="a refresh step",
        )
        step = next(step for step, _ in view.steps() if step.kind == "refresh")
        assert step.status == "ok" and step.details.get("grant_type") == "refresh_token"
        assert server.stats()["token"]["refresh_token"] >= 1
        await wait_for(
            pilot,
            lambda: (
                "authorized as client client-1 (dynamic) with scope mcp · access token refreshed" in screen_text(app)
            ),
            what="the head after the refresh",
        )
        lines = screen_text(app).splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith(f" {step.number} ✓ refresh"))
        assert lines[at - 1].startswith("───")  # a flow of its own
        await pilot.press("end")
        await wait_for(pilot, lambda: "· refresh ·" in rendered(view.detail), what="the refresh detail")
        seen = screen_text(app) + "".join(rendered(step_detail(step)) for step, _ in view.steps())
        leaked = [secret for secret in server.secrets() if secret in seen]
        assert not leaked


async def test_a_flow_stopped_while_the_modal_asks_takes_the_modal_away(oauth_server):
    server = oauth_server()
    app = oauth_app(server, mode="print")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AuthPromptScreen), what="the modal")
        first = app.screen
        app.action_reconnect()  # ctrl+r: the connection (and its flow) is stopped, a new one starts
        await wait_for(pilot, lambda: not first.is_attached, what="the first modal gone")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, AuthPromptScreen) and app.screen is not first,
            what="the new flow's modal",
        )
        assert len(app.screen_stack) == 2  # the main screen and one modal, not a pile


async def test_browser_mode_says_so_and_the_view_shows_the_loopback_listener(oauth_server, tmp_path, monkeypatch):
    import json
    import webbrowser

    browser, browser_log = install_fake_browser(tmp_path / "browser")
    monkeypatch.setenv("BROWSER", browser)
    monkeypatch.setenv("FAKE_BROWSER_LOG", str(browser_log))
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # webbrowser reads $BROWSER again
    server = oauth_server()
    app = oauth_app(server, mode="browser")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(
            pilot,
            lambda: any("Opened the browser to authorize" in str(n.message) for n in shown_notifications(app)),
            what="the notification",
        )
        await wait_for_tools(pilot, app)
        view = await show_auth(pilot, app)
        await wait_for(pilot, lambda: kinds(view) == FLOW, what="the flow")
        step = next(step for step, _ in view.steps() if step.kind == "authorization")
        assert "(only during this flow)" in rendered(step_detail(step))
        seen = json.loads(browser_log.read_text().splitlines()[-1])
        assert seen.get("listener_status") == 200, seen


async def test_a_token_the_server_echoes_is_masked_in_the_result_the_traffic_log_and_the_frame_detail(oauth_server):
    from app_helpers import choose_tool

    from mcp_inspector.tui.screens.traffic.frame_detail import FrameDetailScreen

    server = oauth_server()
    app = oauth_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "leak_token")
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        panel = app.main.result_panel
        await wait_for(pilot, lambda: panel.kind == "ok" and "you sent: Bearer" in screen_text(app), what="the result")
        seen = [screen_text(app)]
        assert "you sent: Bearer" in seen[0]
        await pilot.press("5")
        await wait_for(pilot, lambda: '"result":{"content"' in screen_text(app), what="the reply in the traffic log")
        seen.append(screen_text(app))
        reply = [entry for entry in app.main.connection.store if b"you sent" in entry.raw][-1]
        app.push_screen(FrameDetailScreen(app.main.connection.store, reply.seq))
        await wait_for(pilot, lambda: isinstance(app.screen, FrameDetailScreen), what="the frame detail")
        await wait_for(
            pilot,
            lambda: any("you sent: Bearer" in area.text for area in app.screen.query("TextArea")),
            what="its text",
        )
        seen.append(screen_text(app) + "\n".join(area.text for area in app.screen.query("TextArea")))
        assert "you sent: Bearer" in seen[2]
        leaked = [secret for secret in server.secrets() if any(secret in text for text in seen)]
        assert not leaked, leaked


async def test_a_step_check_that_failed_is_an_oauth_step_finding_in_the_checks_view(oauth_server):
    """Issue 20: the Auth view's step checks are findings of the check engine too (oauth-step), in
    the Checks view and the status bar's count, once the step is done."""
    server = oauth_server("--no-s256")
    app = oauth_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        await wait_for(
            pilot,
            lambda: any(item.rule == "oauth-step" for item in main.checks.findings),
            what="the oauth-step finding",
        )
        (found,) = [item for item in main.checks.findings if item.rule == "oauth-step"]
        assert found.severity.value == "error" and "code_challenge_methods_supported" in found.message
        assert found.where.startswith("auth step ")
        await pilot.press("exclamation_mark")
        await wait_for(pilot, lambda: main.current_view == "checks", what="the Checks view")
        view = main.query_one("#view-checks")
        await wait_for(pilot, lambda: view.table.row_count >= 1, what="its row")
        await wait_for(pilot, lambda: main.checks.summary()["error"] >= 1, what="the count")
