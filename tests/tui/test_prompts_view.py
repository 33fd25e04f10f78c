"""The Prompts view (8) of the whole app against real servers, by keyboard: the demo
server (legacy, stdio) and server-everything (its four prompts, completable-prompt's
second argument narrowed by the first, resource-prompt's embedded resources)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, live_app, outgoing, wait_for, wait_for_tools

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.widgets.form.completion_input import CompletionInput
from mcp_inspector.tui.widgets.views.prompts.view import PromptsView

pytestmark = pytest.mark.usefixtures("isolated_cwd")


async def open_prompts(pilot, app) -> PromptsView:
    await wait_for_tools(pilot, app)
    await pilot.press("8")
    await wait_for(pilot, lambda: app.main.query("#view-prompts"), what="the Prompts view")
    view = app.main.query_one("#view-prompts", PromptsView)
    await wait_for(pilot, lambda: view.prompt_list.prompts, what="the prompt list")
    return view


async def choose(pilot, view: PromptsView, name: str) -> None:
    assert view.prompt_list.select_name(name), name
    view.prompt_list.option_list.focus()
    await pilot.press("enter")
    await wait_for(
        pilot, lambda: view.current is not None and view.current.get("name") == name, what=f"the form of {name}"
    )


def field(view: PromptsView, argument: str) -> CompletionInput:
    return next(f for f in view.fields() if f.argument == argument)


def status(view: PromptsView) -> str:
    return str(view.status.render())


@pytest.mark.anyio
async def test_demo_prompts_listed_with_arguments_and_got_by_keyboard():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        assert [p["name"] for p in view.prompt_list.prompts][:2] == ["summarize", "code_review"]
        assert app.main.focused is view.prompt_list.option_list
        listing = [str(view.prompt_list.option_list.get_option_at_index(i).prompt) for i in range(2)]
        assert listing[0] == "  Summarize text\n  summarize · text*, style"  # required arguments starred
        assert listing[1].startswith("  Review code\n  code_review · language*")
        await choose(pilot, view, "summarize")
        assert app.focused is field(view, "text")
        await pilot.press(*"MCP is a protocol.")
        await pilot.press("tab")
        assert app.focused is field(view, "style")
        await pilot.press(*"fo")
        await wait_for(pilot, lambda: field(view, "style").list_open, what="style suggestions")
        assert field(view, "style").suggestions == ["formal"]
        await pilot.press("enter")  # takes the suggestion
        assert field(view, "style").value == "formal"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: view.messages.messages, what="the messages")
        sent = json.loads(outgoing(app, "prompts/get")[-1].raw)["params"]
        assert sent["name"] == "summarize"
        assert sent["arguments"] == {"text": "MCP is a protocol.", "style": "formal"}
        completion = json.loads(outgoing(app, "completion/complete")[-1].raw)["params"]
        assert completion["ref"] == {"type": "ref/prompt", "name": "summarize"}
        assert completion["context"] == {"arguments": {"text": "MCP is a protocol."}}
        assert status(view).startswith("✓ summarize · 1 message")
        assert view.messages.messages[0]["role"] == "user"
        assert "formal summary" in view.messages.messages[0]["content"]["text"]
        assert app.focused is view.messages


@pytest.mark.anyio
async def test_required_arguments_are_checked_before_sending():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        await choose(pilot, view, "code_review")
        await pilot.press(*"python", "escape")  # close the suggestion list if it opened
        await pilot.press("ctrl+s")
        assert "Not sent" in status(view) and "code" in status(view)
        assert outgoing(app, "prompts/get") == []
        assert app.focused is field(view, "code")
        assert field(view, "code").has_class("-missing")
        await pilot.press(*"print(1)", "enter")  # enter on the last field gets the prompt
        await wait_for(pilot, lambda: len(view.messages.messages) == 2, what="two messages")
        roles = [m["role"] for m in view.messages.messages]
        assert roles == ["user", "assistant"]
        assert len(view.messages.query(".role-assistant")) == 1


@pytest.mark.anyio
async def test_server_error_is_shown_in_the_view():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        await choose(pilot, view, "code_review")
        # a prompt the server no longer knows: the -32602 is shown, nothing crashes
        view.current = dict(view.current, name="no_such_prompt", arguments=[])
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: view.getting is None and "✖" in status(view), what="the error")
        assert "-32602" in status(view) and "Unknown prompt" in status(view)
        assert view.messages.messages == []


@pytest.mark.anyio
async def test_copy_and_save_the_messages(tmp_path):
    copied: list[str] = []
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        app.copy_to_clipboard = copied.append
        view = await open_prompts(pilot, app)
        await choose(pilot, view, "summarize")
        await pilot.press(*"hello", "ctrl+s")
        await wait_for(pilot, lambda: view.messages.messages, what="the messages")
        assert app.focused is view.messages
        await pilot.press("c")
        assert json.loads(copied[-1]) == view.messages.messages
        await pilot.press("s")
        await wait_for(pilot, lambda: view.messages.saved_path is not None, what="the saved file")
        assert json.loads(view.messages.saved_path.read_text()) == view.messages.messages
        assert view.messages.saved_path.parent == tmp_path


def everything_spec(command: list[str]) -> ServerSpec:
    return ServerSpec("everything", command, source="test")


@pytest.mark.anyio
async def test_everything_completable_prompt_narrows_the_second_argument_by_the_first(server_everything):
    app = live_app(everything_spec(server_everything))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        names = {p["name"] for p in view.prompt_list.prompts}
        assert {"simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"} <= names
        await choose(pilot, view, "completable-prompt")
        department = field(view, "department")
        assert app.focused is department
        await pilot.press("E")
        await wait_for(pilot, lambda: department.suggestions == ["Engineering"], what="Engineering")
        await pilot.press("tab")
        assert department.value == "Engineering"
        await pilot.press("tab")  # the list is closed: tab moves on
        name = field(view, "name")
        assert app.focused is name
        await pilot.press("down")  # ask now, for the empty value
        await wait_for(pilot, lambda: name.list_open and name.suggestions, what="the names")
        assert name.suggestions == ["Alice", "Bob", "Charlie"]
        request = json.loads(outgoing(app, "completion/complete")[-1].raw)["params"]
        assert request["context"] == {"arguments": {"department": "Engineering"}}
        await pilot.press("down", "enter")
        assert name.value == "Bob"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: view.messages.messages, what="the messages")
        assert view.messages.messages[0]["content"]["text"] == "Please promote Bob to the head of the Engineering team."


@pytest.mark.anyio
async def test_everything_resource_prompt_shows_the_embedded_resource(server_everything):
    app = live_app(everything_spec(server_everything))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        await choose(pilot, view, "resource-prompt")
        await pilot.press(*"Text", "escape", "tab", *"1", "escape")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(view.messages.messages) == 2, what=f"the messages ({status(view)})")
        embedded = view.messages.messages[1]["content"]
        assert embedded["type"] == "resource"
        shown = " ".join(str(s.render()) for s in view.messages.query("Static"))
        assert "embedded resource" in shown and embedded["resource"]["uri"] in shown


@pytest.mark.anyio
async def test_demo_explain_error_narrows_the_error_by_the_language():
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_prompts(pilot, app)
        await choose(pilot, view, "explain_error")
        await pilot.press(*"rus")
        language = field(view, "language")
        await wait_for(pilot, lambda: language.suggestions == ["rust"] and language.list_open, what="rust")
        await pilot.press("enter")
        assert language.value == "rust"
        await pilot.press("tab")
        error = field(view, "error")
        assert app.focused is error
        await pilot.press(*"E03")
        await wait_for(pilot, lambda: error.list_open and error.suggestions, what="rust's errors")
        assert error.suggestions == ["E0308 mismatched types", "E0382 use of moved value"]
        request = json.loads(outgoing(app, "completion/complete")[-1].raw)["params"]
        assert request["context"] == {"arguments": {"language": "rust"}}
        assert error.dropdown.region.bottom <= 24 - 2  # the list is on screen at 80x24, above the hint and footer
        await pilot.press("down", "tab", "ctrl+s")
        await wait_for(pilot, lambda: view.messages.messages, what="the messages")
        assert "E0382 use of moved value" in view.messages.messages[0]["content"]["text"]


@pytest.mark.anyio
async def test_modern_era_sdk_server_prompt_without_completions():
    server = Path(__file__).resolve().parents[1] / "servers" / "sdk_modern_server.py"
    app = live_app(ServerSpec("modern", [sys.executable, str(server)], source="test"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        assert app.main.status_bar.status.era == "modern"
        assert "completions" not in app.main.connection.live.capabilities
        await choose(pilot, view, "greet_prompt")
        name = field(view, "name")
        await pilot.press(*"Ada")
        assert not name.busy  # no debounce timer set: no request can follow
        assert name.requests_sent == 0 and outgoing(app, "completion/complete") == []  # not declared: not asked
        assert str(view.query_one("#prompts-hint").render()).startswith("no suggestions: the server has no completions")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: view.messages.messages or "✖" in status(view), what="the messages")
        assert view.messages.messages, status(view)
        assert "Ada" in json.dumps(view.messages.messages)
        request = json.loads(outgoing(app, "prompts/get")[-1].raw)
        assert "io.modelcontextprotocol/protocolVersion" in request["params"]["_meta"]


@pytest.mark.anyio
async def test_everything_over_streamable_http_completes_and_gets(everything_http_url):
    app = live_app(ServerSpec("everything", url=everything_http_url, transport="http"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        await choose(pilot, view, "completable-prompt")
        await pilot.press(*"Sa")
        department = field(view, "department")
        await wait_for(pilot, lambda: department.suggestions == ["Sales"] and not department.busy, what="Sales")
        await pilot.press("enter", "tab", *"E")
        name = field(view, "name")
        await wait_for(pilot, lambda: name.suggestions == ["Eve"] and not name.busy, what="Eve")
        await pilot.press("enter", "ctrl+s")
        await wait_for(pilot, lambda: view.messages.messages, what="the messages")
        assert view.messages.messages[0]["content"]["text"] == "Please promote Eve to the head of the Sales team."


@pytest.mark.anyio
async def test_everything_simple_and_args_prompts(server_everything):
    app = live_app(everything_spec(server_everything))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        await choose(pilot, view, "simple-prompt")
        assert view.fields() == [] and app.focused.has_class("prompt-get")  # no arguments: the button
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.messages.messages, what="simple-prompt's messages")
        assert view.messages.messages[0]["role"] == "user"
        await choose(pilot, view, "args-prompt")
        city = field(view, "city")
        assert city.has_class("prompt-arg") and app.focused is city
        labels = " ".join(str(s.render()) for s in view.form.query(".arg-label"))
        assert "*required" in labels and "optional" in labels
        await pilot.press("ctrl+s")
        assert "Not sent" in status(view) and "city" in status(view)
        await pilot.press(*"Paris", "escape", "ctrl+s")
        await wait_for(
            pilot,
            lambda: view.messages.messages and "Paris" in json.dumps(view.messages.messages),
            what="args-prompt's messages",
        )
        assert view.messages.messages[0]["content"]["text"] == "What's weather in Paris?"
        assert json.loads(outgoing(app, "prompts/get")[-1].raw)["params"]["arguments"] == {
            "city": "Paris"
        }  # empty state left out
