"""Elicitation answered in the modal's form, on real servers, by keyboard only.

Legacy era: the demo server's ``ask_the_client`` (kind ``elicitation``) sends an
``elicitation/create`` request; what the TUI answers is the JSON-RPC response it writes.
Modern era (2026-07-28): ``tests/servers/modern_raw_server.py`` asks through MRTR
(``wizard``: a form, ``open_url``: URL mode) and the official SDK's server
(``ask_user``); the answer goes on the wire inside the retry's ``inputResponses``.
Every assertion on the answer reads the raw frames of the traffic store.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, choose_tool, demo_spec, live_app, wait_for, wait_for_tools
from textual.widgets import Button, Input, Switch
from traffic_apps import ThemedApp

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.messages import CallFailed, CallFinished
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen
from mcp_inspector.tui.widgets.form.elicitation_form import ElicitationForm

pytestmark = pytest.mark.anyio

SERVERS = Path(__file__).resolve().parent.parent / "servers"
MODERN = [sys.executable, str(SERVERS / "modern_raw_server.py")]
SDK_MODERN = [sys.executable, str(SERVERS / "sdk_modern_server.py")]
SMALL = (80, 24)
# The legacy tools/call's own timeout keeps running while its elicitation is answered: room
# for a slow, busy machine (the default of the test app, 20 s, is not always enough)
LEGACY_CALL_TIMEOUT = (
    600.0  # a bound: the call waits while the modal is answered, and so does the demo (--client-timeout 600)
)


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def collect(into: list):
    return lambda message: into.append(message) if isinstance(message, (CallFinished, CallFailed)) else None


def text_of(outcome) -> str:
    return "\n".join(block.get("text", "") for block in outcome.result.get("content", []) if isinstance(block, dict))


def legacy_answers(app) -> list:
    """The results the client sent for the server's elicitation/create requests (raw frames, in order)."""
    asked = [e for e in app.store if e.direction is Direction.IN and e.method == "elicitation/create"]
    replies = [app.store.get(e.reply_seq) for e in asked if e.reply_seq is not None]
    return [json.loads(r.raw)["result"] for r in replies if r is not None and r.kind is Kind.RESPONSE]


def modern_answers(app, key: str) -> list:
    """The ``inputResponses[key]`` of each MRTR retry that went out (raw frames, in order)."""
    sent = [json.loads(e.raw) for e in app.store if e.direction is Direction.OUT and e.method == "tools/call"]
    return [m["params"]["inputResponses"][key] for m in sent if key in (m["params"].get("inputResponses") or {})]


async def open_modal(pilot, app, tool: str, arguments: dict | None = None) -> ServerRequestScreen:
    await wait_for_tools(pilot, app)
    await choose_tool(pilot, app, tool)
    if arguments is not None:
        await app.main.composer.set_arguments(arguments)
    app.main.tool_list.option_list.focus()
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the elicitation modal")
    screen = app.screen
    await wait_for(pilot, lambda: screen.form is None or screen.form.body.is_mounted, what="the form")
    await wait_for(
        pilot, lambda: app.focused is not None and app.focused.screen is screen, what="the focus in the modal"
    )
    if screen.form is not None and screen.form.body.editors:  # then on its first field (first the scroll may have it)
        await wait_for(pilot, lambda: app.focused in screen.form.body.editors.values(), what="the first field focused")
    return screen


def editor(screen: ServerRequestScreen, name: str):
    assert screen.form is not None
    return screen.form.body.editors[f"$.{name}"]


def error_text(screen: ServerRequestScreen) -> str:
    return str(screen.query_one("#elicitation-error").render())


def visible(screen, widget) -> bool:
    """The widget is drawn whole inside the modal's box and the terminal (not clipped, not scrolled away)."""
    box = screen.query_one("#request-box").content_region
    region = widget.region
    return bool(region.height) and box.contains_region(region) and screen.region.contains_region(region)


# -- legacy era: the demo server ---------------------------------------------------------------


async def test_legacy_form_filled_by_keyboard_and_accepted():
    done: list = []
    app = live_app(demo_spec("--client-timeout", "600"), timeout=LEGACY_CALL_TIMEOUT)
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        screen = await open_modal(pilot, app, "ask_the_client", {"kind": "elicitation"})
        assert screen.kind == "form" and screen.context is None  # a legacy request: no input round
        assert "would like to know a little about you" in str(screen.query_one("#elicitation-message").render())
        assert (
            isinstance(editor(screen, "subscribe"), Switch) and editor(screen, "subscribe").value is False
        )  # its default

        assert app.focused is editor(screen, "name")  # the first field has the focus
        await pilot.press(*"Ada", "tab", *"36", "tab")
        assert app.focused is editor(screen, "subscribe")
        await pilot.press("tab")  # the default (false) stays
        assert app.focused is editor(screen, "colour")
        await pilot.press("enter", "down", "down", "enter")  # open the list: (not set), red, green
        await pilot.pause()
        assert editor(screen, "colour").value == 1  # the option index of "green"
        await pilot.press("ctrl+s")

        await wait_for(pilot, lambda: done, what="the call to finish")
        assert not isinstance(app.screen, ServerRequestScreen)
        assert legacy_answers(app) == [
            {"action": "accept", "content": {"name": "Ada", "age": 36, "subscribe": False, "colour": "green"}}
        ]
        assert '"name": "Ada"' in text_of(done[0].outcome)  # the server got it too


async def test_legacy_invalid_values_are_refused_with_reasons_then_accepted():
    done: list = []
    app = live_app(demo_spec("--client-timeout", "600"), timeout=LEGACY_CALL_TIMEOUT)
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        screen = await open_modal(pilot, app, "ask_the_client", {"kind": "elicitation"})
        await pilot.press("tab", *"200")  # no name, and an age over the maximum of 150
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "2 fields to fix before accepting" in error_text(screen), what="the refusal")
        assert app.screen is screen and legacy_answers(app) == [] and not done  # refused: nothing sent
        assert "150" in (screen.form.body.message_for("$.age") or "")
        assert "required" in (screen.form.body.message_for("$.name") or "")
        assert "2 fields to fix before accepting" in error_text(screen)

        assert app.focused is editor(screen, "name")  # the first field to fix has the focus
        await pilot.press(*"Grace", "tab", "backspace", "backspace", "backspace", *"42")
        assert screen.form.body.message_for("$.age") is None
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, what="the call to finish")
        assert legacy_answers(app) == [
            {"action": "accept", "content": {"name": "Grace", "age": 42, "subscribe": False}}
        ], (done, [(e.seq, e.direction, e.reply_to, e.reply_seq, e.raw[:100]) for e in app.store][-5:])


async def test_legacy_decline_and_cancel():
    done: list = []
    app = live_app(demo_spec("--client-timeout", "600"), timeout=LEGACY_CALL_TIMEOUT)
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        await open_modal(pilot, app, "ask_the_client", {"kind": "elicitation"})
        await pilot.press(*"typed but declined", "ctrl+r")
        await wait_for(pilot, lambda: len(done) == 1, what="the declined call")
        assert legacy_answers(app) == [{"action": "decline"}], (done, [(e.seq, e.raw[:120]) for e in app.store][-6:])

        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the second modal")
        second = app.screen
        await wait_for(pilot, lambda: app.focused is not None and app.focused.screen is second, what="its focus")
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(done) == 2, what="the cancelled call")
        assert legacy_answers(app) == [{"action": "decline"}, {"action": "cancel"}]
        assert '"action": "cancel"' in text_of(done[1].outcome)


async def test_legacy_at_80x24_the_buttons_stay_on_screen():
    done: list = []
    app = live_app(demo_spec("--client-timeout", "600"), timeout=LEGACY_CALL_TIMEOUT)
    async with app.run_test(size=SMALL, message_hook=collect(done)) as pilot:
        screen = await open_modal(pilot, app, "ask_the_client", {"kind": "elicitation"})
        buttons = [screen.query_one(f"#elicitation-{b}", Button) for b in ("accept", "decline", "cancel")]
        keys = screen.query_one("#request-keys")
        await wait_for(pilot, lambda: all(visible(screen, b) for b in [*buttons, keys]), what="the buttons laid out")
        await pilot.press(*"Ada")
        for name in ("age", "subscribe", "colour"):  # every field comes into view, the buttons stay
            await pilot.press("tab")
            await wait_for(
                pilot, lambda name=name: app.focused is editor(screen, name) and visible(screen, app.focused), what=name
            )
            assert all(visible(screen, b) for b in buttons), name
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, what="the call")
        assert legacy_answers(app) == [{"action": "accept", "content": {"name": "Ada", "subscribe": False}}]


# -- modern era: MRTR --------------------------------------------------------------------------


async def test_modern_mrtr_form_refuses_an_empty_required_name_then_sends_it():
    done: list = []
    app = live_app(ServerSpec("modern", MODERN))
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        screen = await open_modal(pilot, app, "wizard")
        first = next(e for e in app.store if e.direction is Direction.OUT and e.method == "tools/call")
        assert screen.kind == "form"
        assert str(screen.query_one("#request-context").render()).startswith(
            f"Input round 1 of tools/call wizard (#{first.seq})"
        )
        assert isinstance(editor(screen, "name"), Input) and editor(screen, "name").value == ""

        await pilot.press("ctrl+s")  # the name is required
        await wait_for(
            pilot, lambda: (screen.form.body.message_for("$.name") or "").startswith("required"), what="the refusal"
        )
        assert app.screen is screen and modern_answers(app, "who") == []
        await pilot.press(*"Ada", "ctrl+s")

        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ServerRequestScreen) and app.screen is not screen,
            what="the second round (sampling)",
        )
        assert app.screen.kind == "sampling" and app.screen.method == "sampling/createMessage"
        assert app.screen.context.startswith(f"Input round 2 of tools/call wizard (#{first.seq})")
        await pilot.press(*"a poem")  # the reply editor has the focus
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, what="the call")
        assert text_of(done[0].outcome) == "Ada: a poem"
        assert modern_answers(app, "who") == [{"action": "accept", "content": {"name": "Ada"}}]


async def test_modern_mrtr_decline():
    done: list = []
    app = live_app(ServerSpec("modern", MODERN))
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        await open_modal(pilot, app, "wizard")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: done, what="the call")
        assert text_of(done[0].outcome) == "no name (decline)"
        assert modern_answers(app, "who") == [{"action": "decline"}]


async def test_modern_url_mode_opens_only_on_request_and_accepts():
    done: list = []
    opened: list = []
    app = live_app(ServerSpec("modern", MODERN))
    app.open_url = lambda url, **_: opened.append(url)  # no browser in tests
    async with app.run_test(size=SMALL, message_hook=collect(done)) as pilot:
        screen = await open_modal(pilot, app, "open_url")
        assert screen.kind == "url" and screen.form is None
        assert str(screen.query_one("#url-host").render()) == "Opens a page on auth.example"
        assert str(screen.query_one("#url-full").render()) == "https://auth.example/start"
        assert "Sign in, please" in str(screen.query_one("#url-message").render())
        assert all(
            visible(screen, screen.query_one(f"#{b}", Button)) for b in ("open-url", "accept", "decline", "cancel")
        )
        await pilot.pause()
        assert opened == []  # never opened (nor fetched) without asking: the modal is up, nothing was opened

        await pilot.press("ctrl+o")
        await pilot.pause()
        assert opened == ["https://auth.example/start"] and screen.opened
        assert "Opened in your browser: auth.example" in str(screen.query_one("#url-opened").render())
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, what="the call")
        assert text_of(done[0].outcome) == "url: accept"
        assert modern_answers(app, "visit") == [{"action": "accept"}]  # URL mode: no content
        assert not any((e.meta or {}).get("undeclared") for e in app.store)  # URL mode is declared: not flagged


async def test_the_tui_declares_url_mode_elicitation_in_both_eras():
    app = live_app(ServerSpec("modern", MODERN))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        sent = json.loads(next(e for e in app.store if e.direction is Direction.OUT and e.method == "tools/list").raw)
        declared = sent["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["elicitation"]
        assert declared == {"form": {}, "url": {}}
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        sent = json.loads(next(e for e in app.store if e.direction is Direction.OUT and e.method == "initialize").raw)
        assert sent["params"]["capabilities"]["elicitation"] == {"form": {}, "url": {}}


async def test_modern_url_mode_cancel():
    done: list = []
    opened: list = []
    app = live_app(ServerSpec("modern", MODERN))
    app.open_url = lambda url, **_: opened.append(url)
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        await open_modal(pilot, app, "open_url")
        await pilot.press("escape")
        await wait_for(pilot, lambda: done, what="the call")
        assert text_of(done[0].outcome) == "url: cancel" and opened == []
        assert modern_answers(app, "visit") == [{"action": "cancel"}]


async def test_modern_sdk_server_ask_user_by_keyboard():
    done: list = []
    app = live_app(ServerSpec("sdk-modern", SDK_MODERN), timeout=30.0)
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        await wait_for(pilot, lambda: bool(app.main.tool_list.tools), what="the SDK server's tools", timeout=30)
        screen = await open_modal(pilot, app, "ask_user")
        assert screen.kind == "form" and "What is your name?" in str(screen.query_one("#elicitation-message").render())
        await pilot.press(*"Ada", "ctrl+s")
        await wait_for(pilot, lambda: done, what="the call")
        assert text_of(done[0].outcome) == "Hello, Ada!"
        answers = [
            a
            for m in (json.loads(e.raw) for e in app.store if e.direction is Direction.OUT and e.method == "tools/call")
            for a in (m["params"].get("inputResponses") or {}).values()
        ]
        assert answers == [{"action": "accept", "content": {"name": "Ada"}}]


# -- the modal alone: defaults, the raw fallback ------------------------------------------------

DEFAULTS = {
    "mode": "form",
    "message": "Check these",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "Ada"},
            "count": {"type": "integer", "default": 3},
            "size": {"type": "string", "enum": ["S", "M", "L"], "default": "M"},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": ["b"]},
            "ok": {"type": "boolean", "default": True},
        },
    },
}


class ModalApp(ThemedApp):
    def __init__(self, params: dict, method: str = "elicitation/create") -> None:
        super().__init__()
        self.params = params
        self.method = method
        self.answers: list = []

    def on_mount(self) -> None:
        self.push_screen(ServerRequestScreen(self.method, self.params), callback=self.answers.append)


async def test_defaults_are_pre_filled_and_sent_unchanged_and_the_fields_scroll_at_80x24():
    app = ModalApp(DEFAULTS)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the modal")
        screen = app.screen
        await wait_for(pilot, lambda: screen.form.query_one("VerticalScroll").max_scroll_y > 0, what="the layout")
        assert editor(screen, "name").value == "Ada" and editor(screen, "count").value == "3"
        assert editor(screen, "size").value == 1 and editor(screen, "ok").value is True
        assert list(editor(screen, "tags").selected) == [1]

        fields = screen.form.query_one("VerticalScroll")
        buttons = [screen.query_one(f"#elicitation-{b}", Button) for b in ("accept", "decline", "cancel")]
        assert fields.max_scroll_y > 0 and fields.scroll_y == 0  # five fields do not fit in 24 rows
        assert all(visible(screen, b) for b in buttons) and not visible(screen, editor(screen, "ok"))
        await pilot.press("tab", "tab", "tab", "tab")  # to the last field: the body scrolls, the buttons do not
        await wait_for(
            pilot, lambda: app.focused is editor(screen, "ok") and visible(screen, app.focused), what="the last field"
        )
        assert fields.scroll_y > 0 and all(visible(screen, b) for b in buttons)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.answers, what="the answer")
    assert app.answers[0].result == {
        "action": "accept",
        "content": {"name": "Ada", "count": 3, "size": "M", "tags": ["b"], "ok": True},
    }


async def test_a_schema_the_form_cannot_take_falls_back_to_raw_json_with_a_note():
    nested = {"message": "Where?", "requestedSchema": {"type": "object", "properties": {"place": {"type": "object"}}}}
    app = ModalApp(nested)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the modal")
        screen = app.screen
        await wait_for(pilot, lambda: app.focused is screen.query_one("#request-text", Input), what="the JSON field")
        assert screen.kind == "raw" and not screen.query(ElicitationForm)
        note = screen.query_one("#request-note")
        assert str(note.render()).startswith(
            "No form for this schema, answer as JSON: place: object fields are not allowed"
        )
        assert note.region.height == 1  # one line
        assert all(visible(screen, screen.query_one(f"#{b}", Button)) for b in ("accept", "decline", "cancel"))
        field = screen.query_one("#request-text", Input)
        assert app.focused is field
        field.value = '{"place": {"x": 1}}'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.answers, what="the answer")
    assert app.answers[0].action == "accept" and app.answers[0].text == '{"place": {"x": 1}}'


async def test_an_unknown_mode_and_a_url_that_cannot_be_opened():
    app = ModalApp({"mode": "telepathy", "message": "Think of a number"})
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the modal")
        assert app.screen.kind == "raw" and "Unknown elicitation mode 'telepathy'" in str(
            app.screen.query_one("#request-note").render()
        )
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.answers, what="the answer")
    assert app.answers[0].action == "decline"

    app = ModalApp({"mode": "url", "message": "Run this", "url": "javascript:alert(1)"})
    opened: list = []
    app.open_url = lambda url, **_: opened.append(url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the modal")
        screen = app.screen
        await wait_for(pilot, lambda: screen.query(".url-warning"), what="the warning")
        assert screen.query_one("#open-url", Button).disabled
        assert "not a web address (javascript): it will not be opened" in " ".join(
            str(w.render()) for w in screen.query(".url-warning")
        )
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert opened == []
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.answers, what="the answer")
    assert app.answers[0].result == {"action": "decline"}


async def test_no_fields_asked_and_keys_remapped_by_id():
    class Remapped(ModalApp):
        keymap = {"server-request.accept": "ctrl+y", "server-request.decline": "ctrl+b"}

        def on_mount(self) -> None:
            self.set_keymap(self.keymap)
            super().on_mount()

    app = Remapped({"mode": "form", "message": "Ready?", "requestedSchema": {"type": "object", "properties": {}}})
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the modal")
        screen = app.screen
        await wait_for(pilot, lambda: screen.query(".form-empty"), what="the empty form")
        assert "The server asks for no fields: Accept sends an empty answer." in str(
            screen.query_one(".form-empty").render()
        )
        assert "ctrl+y accept · ctrl+b decline · esc cancel" in str(screen.query_one("#request-keys").render())
        await pilot.press("ctrl+s")  # no longer bound here
        await pilot.pause()  # the key was handled (press waits for that); the queue after it too
        assert app.answers == []
        await pilot.press("ctrl+y")
        await wait_for(pilot, lambda: app.answers, what="the answer")
    assert app.answers[0].result == {"action": "accept", "content": {}}


async def test_the_buttons_stay_on_screen_when_the_terminal_shrinks():
    app = ModalApp(DEFAULTS)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the modal")
        screen = app.screen
        buttons = [screen.query_one(f"#elicitation-{b}", Button) for b in ("accept", "decline", "cancel")]

        def laid_out(ok_shown: bool) -> bool:
            return all(visible(screen, b) for b in buttons) and visible(screen, editor(screen, "ok")) is ok_shown

        await wait_for(pilot, lambda: laid_out(True), what="all of it at 120x40")
        await pilot.resize_terminal(80, 20)
        await wait_for(pilot, lambda: laid_out(False), what="the buttons at 80x20, the last field scrolled off")
        await pilot.resize_terminal(*SIZE)
        await wait_for(pilot, lambda: laid_out(True), what="all of it again")
