"""Snapshots of the answering modals at 120x40 and 80x24: sampling (every content type, model
preferences, tools offered, the reply editor), a form-mode elicitation (defaults pre-filled, a
refused accept showing its reasons) a URL-mode elicitation (the host, the full URL, the
warnings) and a -32042 error's URLs. The host app is bare, so the pictures change only when the modals do. Regenerate
with ``-n 0 --snapshot-update`` after looking at the report."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, wait_for
from traffic_apps import ThemedApp

from mcp_inspector.core.base.errors import RpcError
from mcp_inspector.core.session.url_elicitation import UrlElicitationRequired
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen
from mcp_inspector.tui.screens.answer.url_required import UrlRequiredScreen

SMALL = (80, 24)
SIZES = pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
CONTEXT = "Input round 2 of tools/call wizard (#12): the server needs this answer before it can reply."

SAMPLING = {
    "systemPrompt": "You are a careful assistant. Use the tools when they help.",
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in this picture, and what does the weather say?"},
                {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgoAAAANSUhEUg=="},
            ],
        },
        {
            "role": "assistant",
            "content": {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
        },
        {
            "role": "user",
            "content": {
                "type": "tool_result",
                "toolUseId": "toolu_1",
                "content": [{"type": "text", "text": "Snow, -3 °C"}],
            },
        },
        {"role": "user", "content": {"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="}},
    ],
    "maxTokens": 400,
    "temperature": 0.2,
    "stopSequences": ["\n\n"],
    "modelPreferences": {
        "hints": [{"name": "claude-sonnet"}, {"name": "gpt"}],
        "costPriority": 0.3,
        "intelligencePriority": 0.9,
    },
    "tools": [
        {
            "name": "weather",
            "description": "The weather in a city",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
        {
            "name": "search",
            "description": "Search the web",
            "inputSchema": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
            },
        },
    ],
    "toolChoice": {"mode": "auto"},
}
FORM = {
    "mode": "form",
    "message": "Your name, and what kind of poem?",
    "requestedSchema": {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "title": "Name", "minLength": 2},
            "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150},
            "style": {
                "type": "string",
                "title": "Poem style",
                "enum": ["haiku", "limerick", "sonnet"],
                "default": "haiku",
            },
            "rhyme": {"type": "boolean", "title": "Rhyme", "default": True},
        },
    },
}
URL = {
    "mode": "url",
    "message": "Connect your account to continue.",
    "elicitationId": "550e8400-e29b-41d4",
    "url": "http://user@xn--exmple-cua.com:8443/connect?elicitationId=550e8400-e29b-41d4",
}


REQUIRED = RpcError(
    -32042,
    "This request requires browser-based authorization.",
    {
        "elicitations": [
            {
                "mode": "url",
                "elicitationId": "e-1",
                "url": "https://auth.example/start?client=inspector",
                "message": "Sign in to Example",
            },
            {
                "mode": "url",
                "elicitationId": "e-2",
                "url": "http://pay.example/approve",
                "message": "Approve the payment",
            },
        ]
    },
)


class Host(ThemedApp):
    def __init__(self, method: str, params: dict, context: str | None = None) -> None:
        super().__init__()
        self.request = (method, params, context)

    def on_mount(self) -> None:
        method, params, context = self.request
        if method == "tools/call":  # a -32042 error's URLs
            error = UrlElicitationRequired(REQUIRED, "signin", {})
            self.push_screen(UrlRequiredScreen(error, 0, {}, context=context))
            return
        self.push_screen(ServerRequestScreen(method, params, context=context))


def showing(*keys: str):
    async def run_before(pilot) -> None:
        app = pilot.app
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the modal")
        for widget in app.screen.query("Input, TextArea"):
            widget.cursor_blink = False
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
        await pilot.pause()

    return run_before


@SIZES
def test_sampling_modal(snap_compare, size):
    assert snap_compare(
        Host("sampling/createMessage", SAMPLING, CONTEXT),
        terminal_size=size,
        run_before=showing(*"It is a snowy street.", "enter", *"Oslo: snow, minus 3."),
    )


@SIZES
def test_elicitation_form_refused_with_reasons(snap_compare, size):
    assert snap_compare(
        Host("elicitation/create", FORM), terminal_size=size, run_before=showing("A", "tab", "2", "0", "0", "ctrl+s")
    )


@SIZES
def test_url_elicitation(snap_compare, size):
    assert snap_compare(Host("elicitation/create", URL), terminal_size=size, run_before=showing())


@SIZES
def test_url_elicitation_required(snap_compare, size):
    """-32042: two URLs, the first done (its complete notification came), the second opened."""

    async def run_before(pilot) -> None:
        await showing()(pilot)
        screen = pilot.app.screen
        pilot.app.open_url = lambda url, **_: None
        screen.open_url(1)
        screen.mark_complete("e-1")
        await pilot.pause()

    assert snap_compare(Host("tools/call", {}), terminal_size=size, run_before=run_before)


def test_the_hosts_are_what_the_snapshots_say():
    """The snapshots' requests build the screens they are meant to show."""
    assert ServerRequestScreen("sampling/createMessage", SAMPLING).kind == "sampling"
    assert ServerRequestScreen("elicitation/create", FORM).kind == "form"
    url = ServerRequestScreen("elicitation/create", URL)
    assert url.kind == "url" and url.url.host == "xn--exmple-cua.com:8443" and len(url.url.warnings) == 3
