"""CompletionInput against real subprocess servers (tests/servers/completion_server.py,
the demo server): debounce, stale requests cancelled, context arguments, total/hasMore,
no request without the capability, errors as a quiet note, the keys of the list."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from app_helpers import wait_for
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input

from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.widgets.form.completion_input import CompletionInput, count_text

SERVER = Path(__file__).resolve().parents[1] / "servers" / "completion_server.py"
REF = {"type": "ref/prompt", "name": "pick"}


class FormApp(App):
    BINDINGS = [Binding("escape", "left_field", "Leave", id="test-leave")]

    def __init__(self, session, ref: dict = REF, names: tuple[str, str] = ("first", "second")) -> None:
        super().__init__()
        self.live = session
        self.ref = ref
        self.names = names
        self.submitted: list[str] = []
        self.changed: list[str] = []
        self.left = 0

    def compose(self) -> ComposeResult:
        with Vertical():
            for name in self.names:
                yield CompletionInput(
                    ref=self.ref, argument=name, context=self.values, session=lambda: self.live, id=f"f-{name}"
                )
            yield Input(id="other")

    def values(self) -> dict[str, str]:
        return {field.argument: field.value for field in self.query(CompletionInput)}

    def field(self, name: str) -> CompletionInput:
        return self.query_one(f"#f-{name}", CompletionInput)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.submitted.append(event.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.changed.append(event.value)

    def action_left_field(self) -> None:
        self.left += 1


def requests(session, method: str = "completion/complete") -> list[dict]:
    return [json.loads(e.raw) for e in session.store if e.direction is Direction.OUT and e.method == method]


def cancels(session) -> list[dict]:
    return requests(session, "notifications/cancelled")


def options_text(field: CompletionInput) -> list[str]:
    options = field.dropdown.options
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def settled(pilot, field: CompletionInput, what: str) -> None:
    """The list is open on the answer to the value typed last (``busy`` alone is not enough: between
    the request's end and the handling of its answer the field is idle with the older list open)."""
    await wait_for(pilot, lambda: field.list_open and not field.busy and field.answered, what=what)


def test_count_text():
    assert count_text(5, 40, True) == "5 of 40+"
    assert count_text(3, 3, False) == "3 of 3"
    assert count_text(2, None, True) == "2+ suggestions"
    assert count_text(2, None, None) == "2 suggestions"
    assert count_text(1, None, None) == "1 suggestion"
    assert count_text(5, 2, False) == "5 suggestions"  # a total below what was sent is not believed


@pytest.mark.anyio
async def test_keystrokes_are_debounced_into_one_request_and_hasmore_is_shown(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(80, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"item0")
            await settled(pilot, field, "the suggestions")
            sent = requests(c.session)
            assert [r["params"]["argument"] for r in sent] == [{"name": "first", "value": "item0"}]
            assert sent[0]["params"]["ref"] == REF
            assert "context" not in sent[0]["params"]  # the other field is empty
            assert options_text(field) == ["item00", "item01", "item02", "item03", "item04"]
            assert str(field.dropdown.status.render()).startswith("5 of 10+")
            assert field.dropdown.region.y == field.region.bottom  # right under the input
            assert app.changed[-1] == "item0"  # Input.Changed still reaches the parent


@pytest.mark.anyio
async def test_a_newer_keystroke_cancels_the_request_in_flight(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(80, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"slow")
            await wait_for(pilot, lambda: field._pending is not None, what="the slow request in flight")
            slow_id = requests(c.session)[0]["id"]
            await pilot.press("backspace", "backspace", "backspace", "backspace", *"item1")
            await settled(pilot, field, "the suggestions for item1")
            assert [c["params"]["requestId"] for c in cancels(c.session)] == [slow_id]
            assert [r["params"]["argument"]["value"] for r in requests(c.session)] == ["slow", "item1"]
            assert options_text(field)[0] == "item10"
            assert field.requests_sent == 2


@pytest.mark.anyio
async def test_context_arguments_narrow_the_second_field_and_keys_take_a_value(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(80, 24)) as pilot:
            first, second = app.field("first"), app.field("second")
            first.focus()
            await pilot.press(*"zed")
            await settled(pilot, first, "the (empty) answer")  # not the "waiting" line a slow answer opens
            assert str(first.dropdown.status.render()) == "no suggestions"
            second.focus()
            await pilot.pause()
            assert not first.list_open  # leaving the field closes its list
            await pilot.press("down")  # ask at once, for the empty value
            await settled(pilot, second, "the narrowed suggestions")
            last = requests(c.session)[-1]["params"]
            assert last["argument"] == {"name": "second", "value": ""}
            assert last["context"] == {"arguments": {"first": "zed"}}
            assert options_text(second) == ["zed-a", "zed-b"]
            await pilot.press("down", "enter")
            assert second.value == "zed-b"
            assert not second.list_open and app.submitted == []  # enter took the value, did not submit
            sent = len(requests(c.session))
            await pilot.press("enter")  # the list closed: enter submits as an Input does
            assert app.submitted == ["zed-b"]
            # taking a value asks nothing more: no debounce timer was set, nothing is being sent
            assert not second.busy and len(requests(c.session)) == sent


@pytest.mark.anyio
async def test_escape_closes_the_list_then_reaches_the_parent_and_tab_takes(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(80, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"item3")
            await settled(pilot, field, "the suggestions")
            await pilot.press("escape")
            assert not field.list_open and app.left == 0 and app.focused is field
            await pilot.press("escape")
            assert app.left == 1
            await pilot.press("down")
            await settled(pilot, field, "the list again")
            await pilot.press("down", "down", "up", "tab")
            assert field.value == "item31"
            assert app.focused is field


class SlowSend:
    """The real session, but its requests wait for ``release`` before they go out (a full pipe)."""

    def __init__(self, session) -> None:
        import anyio

        self.session = session
        self.release = anyio.Event()
        self.waiting = 0

    def __getattr__(self, name: str):
        return getattr(self.session, name)

    async def begin_request(self, *args, **kwargs):
        self.waiting += 1
        await self.release.wait()
        return await self.session.begin_request(*args, **kwargs)


@pytest.mark.anyio
async def test_the_second_escape_leaves_while_the_dropped_request_is_still_being_sent(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        slow = SlowSend(c.session)
        app = FormApp(slow)
        async with app.run_test(size=(80, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"item")
            await wait_for(pilot, lambda: slow.waiting == 1, what="the request being sent")
            await pilot.press("escape")  # drops the suggestions on their way
            assert app.left == 0 and field.busy
            await pilot.press("escape")  # leaves, though the dropped request is not out yet
            assert app.left == 1
            slow.release.set()
            await wait_for(pilot, lambda: not field.busy, what="the dropped request")
            await wait_for(pilot, lambda: cancels(c.session), what="its notifications/cancelled")
            assert not field.list_open


@pytest.mark.anyio
async def test_errors_and_malformed_answers_are_a_quiet_note(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(80, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"boom")
            await settled(pilot, field, "the error note")
            assert "-32602" in field.note and "no completions for boom" in field.note
            assert str(field.dropdown.status.render()) == field.note
            await pilot.press("ctrl+u", *"bad")
            await settled(pilot, field, "the malformed note")
            assert field.note.startswith("malformed completion")
            assert field.suggestions == []


@pytest.mark.anyio
async def test_no_request_without_the_completions_capability(connect):
    async with connect([sys.executable, str(SERVER), "--no-completions"]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(80, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"item", "down")
            # no debounce timer was set (busy is false), so no request can follow: nothing to wait for
            assert not field.busy
            assert requests(c.session) == [] and field.requests_sent == 0
            assert not field.list_open
            assert field.value == "item"


@pytest.mark.anyio
async def test_no_request_without_a_session():
    app = FormApp(None)
    async with app.run_test(size=(80, 24)) as pilot:
        field = app.field("first")
        field.focus()
        await pilot.press(*"ab", "down")
        assert not field.busy  # no debounce timer set: no request can follow
        assert field.requests_sent == 0 and not field.list_open and field.value == "ab"


@pytest.mark.anyio
async def test_demo_server_suggests_styles(connect):
    async with connect([sys.executable, "-m", "mcp_inspector.demo"]) as c:
        app = FormApp(c.session, {"type": "ref/prompt", "name": "summarize"}, ("text", "style"))
        async with app.run_test(size=(80, 24)) as pilot:
            app.field("text").value = "some text"
            field = app.field("style")
            field.focus()
            await pilot.press("c")
            await settled(pilot, field, "the styles")
            assert options_text(field) == ["concise", "casual"]
            assert requests(c.session)[-1]["params"]["context"] == {"arguments": {"text": "some text"}}
            await pilot.press("down", "enter")
            assert field.value == "casual"


@pytest.mark.anyio
async def test_removing_the_field_cancels_its_request_in_flight(connect):
    async with connect([sys.executable, str(SERVER)]) as c:
        app = FormApp(c.session)
        async with app.run_test(size=(80, 24)) as pilot:
            field = app.field("first")
            field.focus()
            await pilot.press(*"slow")
            await wait_for(pilot, lambda: field._pending is not None, what="the slow request in flight")
            slow_id = requests(c.session)[0]["id"]
            dropdown = field.dropdown
            await field.remove()
            await wait_for(pilot, lambda: cancels(c.session), what="notifications/cancelled")
            assert cancels(c.session)[0]["params"]["requestId"] == slow_id
            assert not dropdown.is_attached  # its list went with it
