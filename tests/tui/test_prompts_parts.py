"""The Prompts view's parts on their own, with large and hostile data: the prompt list
(5,000 prompts, odd items) and the messages pane (1,000 messages, odd shapes)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from mcp_inspector.tui.widgets.views.prompts.messages import MAX_MESSAGES, PromptMessages, check_result
from mcp_inspector.tui.widgets.views.prompts.prompt_list import MAX_SHOWN, PromptList, arguments_summary, prompt_title


class PartsApp(App):
    def compose(self) -> ComposeResult:
        yield PromptList(id="list")
        yield PromptMessages(id="messages")


def test_titles_and_arguments_of_odd_prompts():
    assert prompt_title({"name": "a", "title": ""}) == "a"
    assert "\x1b" not in prompt_title({"title": "x\x1b[31my"})  # no terminal escapes
    assert prompt_title({}) == "(unnamed)"
    assert arguments_summary({"arguments": "nope"}) == "no arguments"
    assert (
        arguments_summary({"arguments": [{"name": "a", "required": True}, {"required": True}, 3, {"name": "b"}]})
        == "a*, b"
    )


def test_check_result_shapes():
    assert check_result({"messages": []}) == ([], [])
    assert check_result([]) == ([], ["the result is not an object (list)"])
    assert check_result({}) == ([], ["the result has no `messages` array"])
    assert check_result({"messages": [], "description": 3}) == ([], ["`description` is not a string"])


@pytest.mark.anyio
async def test_five_thousand_prompts_are_capped_and_filtered():
    prompts = [{"name": f"p{i:04d}", "description": "even" if i % 2 == 0 else "odd"} for i in range(5000)]
    prompts += [{"name": "p0000"}, "not an object", {"title": "no name"}]  # a duplicate and junk
    app = PartsApp()
    async with app.run_test(size=(80, 24)) as pilot:
        plist = app.query_one(PromptList)
        plist.set_prompts(prompts)
        await pilot.pause()
        assert plist.option_list.option_count == MAX_SHOWN
        assert plist.hidden_matches == 5002 - MAX_SHOWN  # the dicts (a duplicate name is counted, then skipped)
        assert "more match: type to narrow" in str(plist.query_one("#prompt-summary").render())
        plist.filter_input.value = "p4999"
        await pilot.pause()
        assert plist.option_list.option_count == 1 and plist.highlighted_prompt()["name"] == "p4999"


@pytest.mark.anyio
async def test_a_thousand_messages_are_capped_and_odd_ones_explained():
    messages = [{"role": "user", "content": {"type": "text", "text": f"message {i}"}} for i in range(1000)]
    messages[1] = "just a string"
    messages[2] = {"role": "assistant"}
    messages[3] = {"role": "user", "content": [{"type": "text", "text": "a list of blocks"}, {"type": "image"}]}
    app = PartsApp()
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(PromptMessages)
        problems = pane.show_result("big", {"messages": messages})
        await pilot.pause()
        assert problems == []
        assert len(pane.query(".prompt-message")) == MAX_MESSAGES
        shown = "\n".join(str(s.render()) for s in pane.query(Static))
        assert f"showing the first {MAX_MESSAGES} of 1,000 messages" in shown
        assert "message 1 is not an object" in shown
        assert "the message has no `content`" in shown
        assert "a list of blocks" in shown and "missing base64 `data`" in shown
        assert pane.messages_json().count('"role"') == 999  # copy/save take them all
