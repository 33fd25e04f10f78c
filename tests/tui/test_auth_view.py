"""The Auth view: a flow's steps as rows with their marks, the selected step's detail
(request, parameters, response document, details, what the spec expects), the head line,
following new steps, step-by-step through the log's gate, copying a step, the 80x24 layout,
what it says without authorization, and the print-mode modal (TuiAuthUi)."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from auth_apps import AuthViewApp, failed_flow
from rich.console import Console
from traffic_apps import ThemedApp, screen_text

from mcp_inspector.core.auth.model import AuthError, AuthLog
from mcp_inspector.tui.pilot_steps import shown_notifications, wait_for
from mcp_inspector.tui.screens.dialogs.auth_prompt import CANCELLED, AuthPromptScreen, TuiAuthUi
from mcp_inspector.tui.widgets.views.auth.view import AuthView

pytestmark = pytest.mark.anyio


def detail_text(app) -> str:
    """The selected step's detail as plain text, whole (the pane may show only its top)."""
    console = Console(width=200, file=io.StringIO(), color_system=None, legacy_windows=False)
    console.print(app.query_one(AuthView).detail)
    return console.file.getvalue()


def row_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()[:2].strip().isdigit()]


async def test_the_steps_are_rows_and_the_newest_is_shown():
    log = await failed_flow(AuthLog())
    app = AuthViewApp(lambda: log)
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(AuthView)
        await wait_for(pilot, lambda: view.step_list.option_count == 7)
        text = screen_text(app)
        assert "Auth  failed at step 7: the token endpoint answered 500" in text
        rows = [line for line in text.splitlines() if "resource-metadata" in line or " challenge " in line]
        assert any(" 1 ✓ challenge         401 from POST http://127.0.0." in line for line in rows), rows
        assert any(" 2 ! resource-metadata" in line for line in rows), rows
        assert " 7 ✗ token" in text
        # the newest step is selected: its detail beside the list
        detail = detail_text(app)
        assert "Step 7 · token · ✗ failed · 12 ms" in detail
        assert "✗ the token endpoint answered 500  (RFC 6749 §5.2)" in detail
        assert "POST http://127.0.0.1:45123/token" in detail and "500 Internal Server Error" in detail
        assert "client authentication: client_secret_basic" in detail
        # each row is one line even when the title is longer than the list is wide
        lines = text.splitlines()
        starts = [next(i for i, line in enumerate(lines) if line.startswith(f" {n} ")) for n in range(1, 8)]
        assert starts == list(range(starts[0], starts[0] + 7)), starts
        assert "…" in lines[starts[1]]  # cut with an ellipsis, not wrapped


async def test_moving_in_the_list_shows_that_step():
    log = await failed_flow(AuthLog())
    app = AuthViewApp(lambda: log)
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(AuthView)
        await wait_for(pilot, lambda: view.step_list.option_count == 7)
        await pilot.press("up", "up")
        await wait_for(pilot, lambda: "Step 5 · authorization" in detail_text(app))
        detail = detail_text(app)
        # the authorization URL's parameters, decoded, one a line
        assert "code_challenge_method" in detail and "S256" in detail
        assert "resource" in detail and "http://127.0.0.1:45123/mcp" in detail
        await pilot.press("home")
        await wait_for(pilot, lambda: "Step 1 · challenge" in detail_text(app))
        detail = detail_text(app)
        assert "401 Unauthorized" in detail and "www-authenticate" in detail and "resource_metadata" in detail
        assert "✓ WWW-Authenticate names the resource metadata (resource_metadata)  (RFC 9728 §5.1)" in detail
        await pilot.press("down")
        await wait_for(pilot, lambda: "Step 2 · resource-metadata · ! ok, with deviations" in detail_text(app))
        assert '"authorization_servers"' in detail_text(app)  # the document, pretty-printed
        assert "✗ resource http://127.0.0.1:45123/mcp/ is not the server's URL" in detail_text(app)


async def test_new_steps_are_followed_unless_an_older_one_is_selected():
    log = AuthLog()
    app = AuthViewApp(lambda: log)
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(AuthView)
        log.begin_flow("401")
        first = await log.step("challenge", "401 from POST")
        log.done(first)
        await wait_for(pilot, lambda: "Step 1 · challenge" in detail_text(app))
        second = await log.step("resource-metadata", "metadata")
        await wait_for(pilot, lambda: "Step 2 · resource-metadata · … running" in detail_text(app))
        log.done(second)
        await wait_for(pilot, lambda: "Step 2 · resource-metadata · ✓ ok" in detail_text(app))
        await pilot.press("up")
        await wait_for(pilot, lambda: "Step 1 · challenge" in detail_text(app))
        log.done(await log.step("server-metadata", "more metadata"))
        await wait_for(pilot, lambda: view.step_list.option_count == 3)
        assert "Step 1 · challenge" in detail_text(app)  # the user's choice stays
        await pilot.press("end")
        await wait_for(pilot, lambda: "Step 3 · server-metadata" in detail_text(app))
        log.done(await log.step("registration", "register"))
        await wait_for(pilot, lambda: "Step 4 · registration" in detail_text(app))  # following again


async def test_step_by_step_holds_each_step_until_n():
    log = AuthLog()
    app = AuthViewApp(lambda: log)
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(AuthView)
        await pilot.press("s")
        assert view.step_mode and log.gate is not None
        made: list[str] = []

        async def flow() -> None:
            log.begin_flow("restart")
            for kind in ("challenge", "resource-metadata", "server-metadata"):
                step = await log.step(kind, f"the {kind} step")
                made.append(kind)
                log.done(step)
            log.end_flow(True, "authorized as client c with scopes mcp")

        task = asyncio.ensure_future(flow())
        await wait_for(pilot, lambda: view.pending is not None)
        assert made == [] and not log.steps
        await wait_for(pilot, lambda: "⏸ challenge" in screen_text(app))
        text = screen_text(app)
        assert "step-by-step: n / enter runs the next step" in text
        assert "waiting for n / enter (step-by-step)" in detail_text(app)
        await pilot.press("n")
        await wait_for(
            pilot,
            lambda: made == ["challenge"] and view.pending is not None and view.pending.kind == "resource-metadata",
        )
        await wait_for(pilot, lambda: "⏸ resource-metadata" in screen_text(app))
        assert " 1 ✓ challenge" in screen_text(app)
        await pilot.press("enter")  # enter on the list lets it go too
        await wait_for(pilot, lambda: made == ["challenge", "resource-metadata"])
        await pilot.press("s")  # off: the waiting step runs and so does the rest
        await wait_for(pilot, lambda: task.done())
        assert made == ["challenge", "resource-metadata", "server-metadata"] and log.gate is None
        await wait_for(pilot, lambda: "Auth  authorized: authorized as client c with scopes mcp" in screen_text(app))
        await pilot.press("n")  # nothing waits: said, not an error
        await wait_for(pilot, lambda: any("No step is waiting" in str(n.message) for n in shown_notifications(app)))


async def test_c_copies_the_selected_step_as_json():
    log = await failed_flow(AuthLog())
    app = AuthViewApp(lambda: log)
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(AuthView)
        await wait_for(pilot, lambda: view.step_list.option_count == 7)
        await pilot.press("home", "down", "down", "down", "c")
        await wait_for(pilot, lambda: bool(app.clipboard))
        copied = json.loads(app.clipboard)
        assert copied["number"] == 4 and copied["kind"] == "registration"
        assert copied["response"]["body"]["client_secret"] == "••••••"
        assert copied["findings"] == []


async def test_80x24_puts_the_detail_under_the_list():
    log = await failed_flow(AuthLog())
    app = AuthViewApp(lambda: log)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(AuthView)
        await wait_for(pilot, lambda: view.step_list.option_count == 7 and view.has_class("-narrow"))
        await wait_for(pilot, lambda: view.query_one("#auth-detail").region.y > view.step_list.region.y)
        steps = view.step_list.region
        detail = view.query_one("#auth-detail").region
        assert detail.y >= steps.bottom and detail.width >= 78
        text = screen_text(app)
        assert all(len(line) <= 80 for line in text.splitlines())
        assert "Step 7 · token · ✗ failed" in text
        await pilot.resize_terminal(120, 40)
        await wait_for(pilot, lambda: not view.has_class("-narrow"))
        await wait_for(pilot, lambda: view.query_one("#auth-detail").region.x >= view.step_list.region.right)


@pytest.mark.parametrize(
    ("transport", "source", "said"),
    [
        ("stdio", None, "not an HTTP server"),
        ("recording", None, "This is a recording (--open)"),
        ("http", None, "This server did not ask for authorization"),
        ("http", "log", "This server did not ask for authorization: no request was answered with 401"),
    ],
)
async def test_without_a_flow_the_view_says_why(transport, source, said):
    log = AuthLog()
    app = AuthViewApp((lambda: log) if source == "log" else (lambda: None), transport=transport)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: said in screen_text(app).replace("\n", " "))
        assert not app.query_one("#auth-body").display
        await pilot.press("r")  # nothing to restart with: said, no traceback
        await wait_for(
            pilot,
            lambda: any("No authorization for this connection" in str(n.message) for n in shown_notifications(app)),
        )


class PromptApp(ThemedApp):
    def __init__(self) -> None:
        super().__init__()
        self.answers: list[object] = []

    def ask(self, url: str) -> None:
        async def run() -> None:
            try:
                self.answers.append(await TuiAuthUi(self).ask_redirect_url(url))
            except AuthError as exc:
                self.answers.append(exc)

        self.run_worker(run(), exit_on_error=False)


AUTH_URL = (
    "http://127.0.0.1:45123/authorize?response_type=code&client_id=client-7&redirect_uri="
    "http%3A%2F%2F127.0.0.1%3A39001%2Fcallback&state=s-1&code_challenge=c-1&code_challenge_method=S256"
)


async def test_the_print_modal_returns_the_pasted_redirect_url():
    app = PromptApp()
    async with app.run_test(size=(80, 24)) as pilot:
        app.ask(AUTH_URL)
        await wait_for(pilot, lambda: "Authorize at 127.0.0.1" in screen_text(app))
        text = screen_text(app)
        assert "http://127.0.0.1:39001/callback" in text  # where the browser will land
        await pilot.press("enter")  # nothing pasted: asked again, not submitted
        assert isinstance(app.screen, AuthPromptScreen) and not app.answers
        await pilot.press("ctrl+y")
        assert app.clipboard == AUTH_URL
        redirect = "http://127.0.0.1:39001/callback?code=abc&state=s-1"
        app.screen.query_one("#auth-prompt-input").value = redirect
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.answers == [redirect])
        assert not isinstance(app.screen, AuthPromptScreen)


async def test_escape_in_the_print_modal_cancels_the_authorization():
    app = PromptApp()
    async with app.run_test(size=(120, 40)) as pilot:
        app.ask(AUTH_URL)
        await wait_for(pilot, lambda: isinstance(app.screen, AuthPromptScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: bool(app.answers))
        assert isinstance(app.answers[0], AuthError) and str(app.answers[0]) == CANCELLED


async def test_key_0_shows_the_view_and_its_keys_are_in_the_help_and_the_palette(isolated_state):
    from app_helpers import live_app, wait_for_tools

    from mcp_inspector.tui.screens.help import HelpScreen

    app = live_app()  # the demo server, over stdio
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        assert "0Auth" in str(app.main.query_one("#nav").render())[:80]
        await pilot.press("0")
        await wait_for(pilot, lambda: app.main.current_view == "auth")
        await wait_for(pilot, lambda: "not an HTTP server" in screen_text(app))
        assert app.focused is app.main.query_one("#view-auth", AuthView).step_list
        titles = [title for title, _, _ in app.extra_commands()]
        assert "auth: restart the authorization flow" in titles and "auth: step-by-step on / off" in titles
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        from mcp_inspector.tui.screens.help import VIEWS_TEXT, bindings_table

        console = Console(width=200, file=io.StringIO(), color_system=None, legacy_windows=False)
        console.print(bindings_table(app.keymap))
        help_text = console.file.getvalue() + VIEWS_TEXT
        for binding_id in ("auth.restart", "auth.forget", "auth.step-mode", "auth.next", "auth.copy", "view-auth"):
            assert binding_id in help_text, binding_id
        assert "Auth (0)" in help_text


async def test_a_hostile_document_is_shown_bounded_and_without_control_codes():
    log = AuthLog()
    log.begin_flow("401")
    step = await log.step("server-metadata", "Authorization server metadata\x1b[2J\x07 from a hostile server")
    nested: object = "deep"
    for _ in range(5_000):
        nested = [nested]
    step.response = {
        "status": 200,
        "reason": "OK\x1b]0;pwned\x07",
        "headers": [["x-evil", "\x1b[31mred\x1b[0m"]],
        "body": {"nested": nested},
    }
    log.fail(step, "the issuer \x1b[1mdoes not match\x1b[0m", "RFC 8414 §3.3")
    huge = await log.step("resource-metadata", "A huge document")
    huge.response = {"status": 200, "reason": "OK", "headers": [], "body": {"resource": "x" * 500_000}}
    log.done(huge)
    app = AuthViewApp(lambda: log)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: "Step 2 · resource-metadata" in detail_text(app))
        detail = detail_text(app)
        assert len(detail) < 100_000 and "… (cut)" in detail
        await pilot.press("up")
        await wait_for(pilot, lambda: "Step 1 · server-metadata" in detail_text(app))
        detail = detail_text(app)
        assert "(a document nested too deeply to show)" in detail
        text = screen_text(app) + detail
        assert "\x1b" not in text and "\x07" not in text
        assert "✗ the issuer" in detail and "does not match" in detail
