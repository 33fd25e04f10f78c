"""Snapshots of the Auth view after a real flow (``--oauth-open fetch`` against
tests/servers/oauth_server.py) at 120x40 and 80x24, and of the print-mode modal.

Stable although the server is live: snapshot mode masks the loopback ports (PORT), the
volatile headers (date) and the steps' durations; the flow's first step (the 401) is
selected, whose detail holds nothing random; the client is client-1 (the fixture counts).
Regenerate with ``--snapshot-update`` after looking at the report.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, settle, wait_for
from test_snapshots import _isolated  # noqa: F401  (the fixture isolates XDG dirs and cwd)
from traffic_apps import ThemedApp

from mcp_inspector.core.auth.model import AuthSettings
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.screens.dialogs.auth_prompt import AuthPromptScreen

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "auth"))
from auth_helpers import start_oauth_server  # noqa: E402 - after the sys.path/environment setup above

SMALL = (80, 24)
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


@pytest.fixture
def oauth_url():
    server = start_oauth_server()
    yield server.url
    server.stop()


def flow_app(url: str):
    spec = ServerSpec(
        "oauth", url=url, transport="http", source="test", auth=AuthSettings(open_mode="fetch", store="none")
    )
    return make_app(spec, snapshot_mode=True, config=TuiConfig(), timeout=20.0)


async def after_the_flow(pilot) -> None:
    app = pilot.app

    def tools() -> bool:
        try:
            return bool(app.main.tool_list.tools)
        except Exception:  # the main screen not composed yet
            return False

    await wait_for(pilot, tools, what="the tool list")
    await pilot.press("0")
    await wait_for(pilot, lambda: app.main.current_view == "auth", what="the Auth view")
    view = app.main.query_one("#view-auth")
    await wait_for(pilot, lambda: [step.kind for step, _ in view.steps()] == FLOW, what="the flow")
    await pilot.press("home")
    await wait_for(
        pilot, lambda: view.selected_step() is not None and view.selected_step().number == 1, what="the first step"
    )
    await settle(app)
    app.clear_notifications()
    await pilot.pause()


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
def test_auth_view_after_a_flow(snap_compare, oauth_url, size):
    assert snap_compare(flow_app(oauth_url), terminal_size=size, run_before=after_the_flow)


AUTH_URL = (
    "https://auth.example.com/authorize?response_type=code&client_id=client-7&redirect_uri="
    "http%3A%2F%2F127.0.0.1%3A33418%2Fcallback&state=k3Jx0p&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URW"
    "bu8n4rS0Awg&code_challenge_method=S256&resource=https%3A%2F%2Fmcp.example.com%2Fmcp&scope=mcp"
)


class PromptApp(ThemedApp):
    def on_mount(self) -> None:
        self.push_screen(AuthPromptScreen(AUTH_URL))


def test_print_mode_modal(snap_compare):
    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, AuthPromptScreen), what="the modal")
        pilot.app.screen.query_one("#auth-prompt-input").cursor_blink = False
        await pilot.pause()

    assert snap_compare(PromptApp(), terminal_size=SMALL, run_before=run_before)
