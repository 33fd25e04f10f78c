"""Sampling answered in its modal, on real servers, by keyboard: the request by role with its
limits and model preferences, a multi-line reply with model and stop reason, a tool_use reply
for an offered tool (2025-11-25 sampling with tools, here through an MRTR round), decline, and
"always answer like this": a rule saved for the server that answers the next request without
asking. Every assertion on the answer reads the raw frames the client wrote."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, choose_tool, demo_spec, live_app, wait_for, wait_for_tools
from textual.widgets import Checkbox, Input, TextArea

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.config.sampling_rules import SamplingRules
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.messages import CallFailed, CallFinished
from mcp_inspector.tui.screens.answer.sampling import SamplingScreen
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]

MODERN = [sys.executable, str(Path(__file__).resolve().parent.parent / "servers" / "modern_raw_server.py")]
SMALL = (80, 24)
# A bound: the legacy tools/call waits while the modal is typed into, and so does the demo
# (--client-timeout 600); on a loaded machine typing the reply took over 60 s.
CALL_TIMEOUT = 600.0


def collect(into: list):
    return lambda message: into.append(message) if isinstance(message, (CallFinished, CallFailed)) else None


def sampling_replies(app) -> list:
    """What the client answered to the server's sampling/createMessage requests (raw frames)."""
    asked = [e for e in app.store if e.direction is Direction.IN and e.method == "sampling/createMessage"]
    replies = [app.store.get(e.reply_seq) for e in asked if e.reply_seq is not None]
    return [json.loads(r.raw) for r in replies if r is not None and r.kind in (Kind.RESPONSE, Kind.ERROR)]


async def ask(pilot, app, tool: str = "ask_the_client", arguments: dict | None = None) -> SamplingScreen:
    await wait_for_tools(pilot, app)
    await choose_tool(pilot, app, tool)
    await app.main.composer.set_arguments({"kind": "sampling"} if arguments is None else arguments)
    app.main.tool_list.option_list.focus()
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen), what="the sampling modal")
    screen = app.screen
    await wait_for(pilot, lambda: app.focused is screen.query_one("#sampling-reply"), what="the focus in the reply")
    return screen


def body_text(screen) -> str:
    return "\n".join(str(part.render()) for part in screen.query("#request-body Static"))


def visible(screen, widget) -> bool:
    box = screen.query_one("#request-box").content_region
    return (
        bool(widget.region.height)
        and box.contains_region(widget.region)
        and screen.region.contains_region(widget.region)
    )


async def test_the_request_by_role_and_a_multi_line_reply_with_model_and_stop_reason():
    done: list = []
    app = live_app(demo_spec("--client-timeout", "600"), timeout=CALL_TIMEOUT)
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        screen = await ask(pilot, app)
        assert isinstance(screen, ServerRequestScreen) and screen.kind == "sampling"
        text = body_text(screen)
        assert "system prompt\nYou are a concise, friendly assistant." in text
        assert "user\nWrite a one-line haiku about inspecting MCP servers." in text
        assert 'maxTokens 100 · temperature 0.7 · includeContext "none"' in text
        assert "Model preferences: hints claude · speed 0.8 · intelligence 0.5" in text
        assert not screen.query("#sampling-tool")  # no tools offered: a text reply only

        await pilot.press(*"Servers answer", "enter", *"frames fly by")
        await pilot.press("tab", "tab", "tab")  # the reply kind, the stop reason, the model
        assert app.focused is screen.query_one("#sampling-model", Input)
        await pilot.press("ctrl+u", *"my-model")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, what="the call")
        assert sampling_replies(app), (
            done[0].outcome.result,
            [(e.seq, e.direction, e.reply_seq, e.raw[-150:]) for e in app.store][-6:],
        )
        assert sampling_replies(app)[0]["result"] == {
            "role": "assistant",
            "content": {"type": "text", "text": "Servers answer\nframes fly by"},
            "model": "my-model",
            "stopReason": "endTurn",
        }
        assert "frames fly by" in done[0].outcome.result["content"][0]["text"]  # the demo got it


async def test_decline_is_a_json_rpc_error():
    done: list = []
    app = live_app(demo_spec("--client-timeout", "600"), timeout=CALL_TIMEOUT)
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        await ask(pilot, app)
        await pilot.press(*"typed, then declined", "ctrl+r")
        await wait_for(pilot, lambda: done, what="the call")
        reply = sampling_replies(app)[0]
        assert "result" not in reply and reply["error"]["code"] == -1 and "declined" in reply["error"]["message"]


async def test_always_answer_like_this_saves_a_rule_that_answers_the_next_request(tmp_path):
    done: list = []
    app = live_app(demo_spec("--client-timeout", "600"), timeout=CALL_TIMEOUT)
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        screen = await ask(pilot, app)
        await pilot.press(*"A canned haiku")
        await pilot.press("tab", "tab", "tab", "tab")  # kind, stop reason, model, then "always"
        assert app.focused is screen.query_one("#sampling-always", Checkbox)
        await pilot.press("space", "tab", *"haiku")
        assert screen.query_one("#sampling-always", Checkbox).value is True
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, what="the first call")

        rules = SamplingRules.load()
        assert rules.problem is None and [(r.server, r.match, r.reply) for r in rules.rules] == [
            (app.main.spec.key, "haiku", "A canned haiku")
        ]

        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")  # the same request again: answered by the rule, no modal
        await wait_for(pilot, lambda: len(done) == 2, what="the second call")
        assert not isinstance(app.screen, ServerRequestScreen)
        replies = sampling_replies(app)
        assert len(replies) == 2 and replies[1]["result"]["content"] == {"type": "text", "text": "A canned haiku"}
        assert replies[1]["result"]["model"] == "mcp-inspector (typed by a person)"  # as it was typed
        assert any((e.meta or {}).get("sampling_rule") and b"answered by a saved rule" in e.raw for e in app.store)


async def test_a_tool_use_reply_for_an_offered_tool_in_an_mrtr_round():
    done: list = []
    app = live_app(ServerSpec("modern", MODERN))
    async with app.run_test(size=SIZE, message_hook=collect(done)) as pilot:
        screen = await ask(pilot, app, "sample_with_tools", {})
        assert screen.context.startswith("Input round 1 of tools/call sample_with_tools")
        assert "Tools offered (1, toolChoice auto):\n  search()" in body_text(screen)
        await pilot.press("tab")  # the options under the reply: its kind
        assert app.focused is screen.query_one("#sampling-kind")
        await pilot.press("enter", "down", "enter")  # text -> tool_use
        await pilot.pause()
        assert str(screen.query_one("#sampling-stop").value) == "toolUse"
        assert screen.query_one("#sampling-reply", TextArea).text == "{}"
        assert screen.query_one("#sampling-always", Checkbox).disabled  # a rule answers with text only
        reply = screen.query_one("#sampling-reply", TextArea)
        reply.text = '{"query": ['  # not JSON: refused, with the reason
        await pilot.press("ctrl+s")
        error = screen.query_one("#sampling-error")
        await wait_for(pilot, lambda: "not valid JSON" in str(error.render()), what="the refusal")
        assert app.screen is screen
        reply.text = '{"query": "bees"}'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, what="the call")
        sent = [json.loads(e.raw) for e in app.store if e.direction is Direction.OUT and e.method == "tools/call"]
        plan = sent[-1]["params"]["inputResponses"]["plan"]
        assert plan["content"]["type"] == "tool_use" and plan["content"]["name"] == "search"
        assert plan["content"]["input"] == {"query": "bees"} and plan["content"]["id"].startswith("toolu_")
        assert plan["stopReason"] == "toolUse"
        assert not any((e.meta or {}).get("undeclared") for e in app.store)  # sampling.tools is declared


async def test_at_80x24_the_reply_and_the_buttons_stay_on_screen():
    done: list = []
    app = live_app(demo_spec("--client-timeout", "600"), timeout=CALL_TIMEOUT)
    async with app.run_test(size=SMALL, message_hook=collect(done)) as pilot:
        screen = await ask(pilot, app)
        parts = ("#sampling-reply", "#sampling-model", "#sampling-always", "#accept", "#decline", "#cancel")
        parts += ("#request-keys",)
        await wait_for(pilot, lambda: all(visible(screen, screen.query_one(p)) for p in parts), what="all on screen")
        await pilot.press(*"short", "ctrl+s")
        await wait_for(pilot, lambda: done, what="the call")
        assert sampling_replies(app)[0]["result"]["content"]["text"] == "short"


async def test_the_rules_screen_lists_every_rule_and_delete_removes_one(tmp_path):
    from textual.widgets import OptionList
    from traffic_apps import ThemedApp

    from mcp_inspector.core.config.sampling_rules import SamplingRule
    from mcp_inspector.tui.screens.answer.rules import SamplingRulesScreen

    path = tmp_path / "rules.json"
    rules = SamplingRules.load(path)
    rules.add(SamplingRule('cmd:["a"]', reply="first", match="poem"))
    rules.add(SamplingRule("url:http://b", file="~/reply.txt"))

    app = ThemedApp()
    async with app.run_test(size=SMALL) as pilot:
        app.push_screen(SamplingRulesScreen(path))
        await wait_for(
            pilot, lambda: isinstance(app.screen, SamplingRulesScreen) and app.screen.shown, what="the rules"
        )
        screen = app.screen
        listing = screen.query_one(OptionList)
        assert listing.option_count == 2
        assert "when the last user message holds 'poem': 'first'" in str(listing.get_option_at_index(0).prompt)
        assert "2 rules, first match wins" in str(screen.query_one("#rules-note").render())
        await pilot.press("down", "delete")  # the second one
        await pilot.pause()
        assert [r.reply for r in SamplingRules.load(path).rules] == ["first"] and listing.option_count == 1
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SamplingRulesScreen), what="closed")


async def test_the_saved_answers_are_listed_from_the_palette_and_keys_in_the_help():
    from textual.command import CommandPalette

    from mcp_inspector.tui.screens.answer.rules import SamplingRulesScreen

    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await pilot.press(*"saved auto-answers")
        palette = app.screen

        def first_hit() -> bool:
            options = palette.query_one("CommandList")
            return options.option_count > 0 and "auto-answers" in str(options.get_option_at_index(0).prompt)

        await wait_for(pilot, first_hit, what="the entry")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingRulesScreen), what="the rules list")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, what="back")
    from mcp_inspector.tui.screens.help import view_bindings

    groups = dict(view_bindings())
    assert "Saved sampling answers (palette)" in groups  # its keys in F1, read from its BINDINGS
    assert {b.id for b in groups["Saved sampling answers (palette)"]} == {
        "sampling-rules.remove",
        "sampling-rules.close",
    }
