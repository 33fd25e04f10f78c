"""The raw frame screen (ctrl+e) on the real demo server, driven by keys: a ping from the
template and its pong linked in the traffic log, a method typed by hand and the server's
-32601, invalid JSON sent as is and the server's parse error, a call in flight cancelled from
the template, a response to the server's elicitation that the answering screen then leaves
alone, the id rule, and the history kept across runs (a corrupt file set aside)."""

from __future__ import annotations

import json

import pytest
from app_helpers import SIZE, choose_tool, live_app, wait_for, wait_for_tools

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.messages import CallFailed, CallFinished
from mcp_inspector.tui.pilot_steps import palette_pick
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen
from mcp_inspector.tui.screens.traffic.pick_list import PickList
from mcp_inspector.tui.screens.traffic.raw_frame import RawFrameScreen

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def text_of(screen: RawFrameScreen, widget_id: str) -> str:
    return str(screen.query_one(f"#{widget_id}").render())


def by_hand(app) -> list:
    return [e for e in app.store if e.direction is Direction.OUT and isinstance(e.meta, dict) and e.meta.get("by_hand")]


async def open_screen(pilot, app) -> RawFrameScreen:
    await wait_for_tools(pilot, app)
    app.main.tool_list.option_list.focus()
    await pilot.press("ctrl+e")
    await wait_for(pilot, lambda: isinstance(app.screen, RawFrameScreen), what="the raw frame screen")
    return app.screen


async def template(pilot, app, letter: str) -> None:
    await pilot.press("ctrl+t")
    await wait_for(pilot, lambda: isinstance(app.screen, PickList), what="the templates")
    await pilot.press(letter)


async def send_and_wait_reply(pilot, screen: RawFrameScreen, count: int) -> str:
    """ctrl+s, then the reply panel once it shows the reply (``count`` frames sent by hand in all)."""
    app = screen.app
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: len(by_hand(app)) == count, what="the frame sent")
    sent = by_hand(app)[-1]
    await wait_for(
        pilot,
        lambda: sent.reply_seq is not None and text_of(screen, "raw-reply-text").startswith(f"#{sent.reply_seq} "),
        what="the reply shown",
    )
    return text_of(screen, "raw-reply-text")


async def paste(pilot, screen: RawFrameScreen, text: str) -> None:
    """A terminal paste into the editor (typing long JSON key by key is slow on a loaded machine)."""
    from textual.events import Paste

    screen.app.post_message(Paste(text))  # as the terminal driver does: the app hands it to the focused editor
    await wait_for(pilot, lambda: text in screen.editor.text, what="the pasted text")


async def select_all_and_type(pilot, text: str) -> None:
    await pilot.press("f7")  # the editor's "select all"
    await pilot.press(*text)


async def test_a_ping_from_the_template_shows_its_pong_and_the_pair_is_linked_in_the_traffic_log():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, app)
        await template(pilot, app, "p")
        await wait_for(pilot, lambda: app.screen is screen, what="back on the screen")
        assert json.loads(screen.editor.text) == {"jsonrpc": "2.0", "id": "raw-1", "method": "ping"}
        assert text_of(screen, "raw-kind") == 'request ping (id "raw-1")'
        reply = await send_and_wait_reply(pilot, screen, 1)
        (sent,) = by_hand(app)
        pong = app.store.get(sent.reply_seq)
        assert pong.kind is Kind.RESPONSE and pong.reply_to == sent.seq
        assert reply.startswith(f"#{pong.seq} response to #{sent.seq} · ") and " ms" in reply.splitlines()[0]
        assert text_of(screen, "raw-status") == f'Sent #{sent.seq}: request ping (id "raw-1").'
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, what="closed")
        await pilot.press("5")
        log = app.main.query_one("#view-traffic").log_view
        await wait_for(pilot, lambda: log.move_cursor_to_seq(sent.seq), what="the frame in the traffic view")
        log.focus()
        assert f"#{sent.seq} ✎ ping id='raw-1'" in log.format_entry(sent).plain  # marked as sent by hand
        await pilot.press("j")
        assert log.cursor_entry.seq == pong.seq
        await pilot.press("j")
        assert log.cursor_entry.seq == sent.seq


async def test_a_typed_method_gets_minus_32601_and_invalid_json_the_parse_error_and_the_session_goes_on():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, app)
        await paste(pilot, screen, '{"jsonrpc": "2.0", "id": "mine", "method": "no/such/method"}')
        assert text_of(screen, "raw-kind") == 'request no/such/method (id "mine")'
        reply = await send_and_wait_reply(pilot, screen, 1)
        assert reply.splitlines()[0].startswith(f"#{by_hand(app)[0].reply_seq} error -32601 to #")
        # typed, not JSON, without "as is": refused with where it broke
        await select_all_and_type(pilot, '{"jsonrpc":')
        assert text_of(screen, "raw-kind").startswith("not JSON: Expecting value at line 1, column 12")
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: text_of(screen, "raw-status").startswith("Not sent: not JSON"), what="the refusal"
        )
        assert "(ctrl+n sends it as is)" in text_of(screen, "raw-status") and len(by_hand(app)) == 1
        # invalid JSON on purpose: the template turns "as is" on
        await template(pilot, app, "i")
        await wait_for(pilot, lambda: app.screen is screen and screen.as_is, what="as is")
        assert text_of(screen, "raw-kind").endswith(": sent as is") and "As is: ON" in text_of(screen, "raw-note")
        reply = await send_and_wait_reply(pilot, screen, 2)
        assert " error -32700 to #" in reply.splitlines()[0]
        await template(pilot, app, "p")
        await wait_for(pilot, lambda: app.screen is screen and not screen.as_is, what="as is off again")
        reply = await send_and_wait_reply(pilot, screen, 3)
        assert " response to #" in reply.splitlines()[0]  # the session still works


async def test_a_call_in_flight_is_cancelled_from_the_template_and_its_id_cannot_be_reused():
    calls: list = []
    app = live_app(timeout=600.0)  # the call must stay in flight however slow a loaded machine types
    async with app.run_test(
        size=SIZE, message_hook=lambda m: calls.append(m) if isinstance(m, (CallFinished, CallFailed)) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "long_running_task")
        await app.main.composer.set_arguments({"duration_seconds": 600, "steps": 600})
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        conn = app.main.connection.live.connection
        await wait_for(pilot, lambda: any(p.method == "tools/call" for p in conn.pending), what="the call in flight")
        call = next(p for p in conn.pending if p.method == "tools/call")
        screen = await open_screen(pilot, app)
        # the id rule: a request reusing the call's id is refused, a fresh one is offered
        await paste(pilot, screen, json.dumps({"jsonrpc": "2.0", "id": call.id, "method": "ping"}))
        await pilot.press("ctrl+s")
        try:
            await wait_for(
                pilot, lambda: "already in flight" in text_of(screen, "raw-status"), timeout=30, what="the refusal"
            )
        except AssertionError as exc:
            raise AssertionError(
                f"{exc}: status {text_of(screen, 'raw-status')!r}, text {screen.editor.text!r}, "
                f"in flight {[(p.id, p.method) for p in conn.pending]}"
            ) from None
        assert text_of(screen, "raw-status") == (
            f"Not sent: a request with id {call.id} is already in flight "
            f'(tools/call, #{call.entry.seq}): use another id, e.g. "raw-1"'
        )
        await template(pilot, app, "c")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, PickList) and app.screen.choices[0][2] != "ping",
            what="the requests in flight",
        )
        assert [value for _, _, value in app.screen.choices] == [call.id]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen, what="back on the screen")
        assert json.loads(screen.editor.text)["params"]["requestId"] == call.id
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: calls, what="the call ended")
        assert isinstance(calls[0], CallFailed) and "cancelled by a frame sent by hand" in str(calls[0].error)
        assert "ended here too" in text_of(screen, "raw-status")
        cancels = [e for e in app.store if e.direction is Direction.OUT and e.method == "notifications/cancelled"]
        assert [json.loads(e.raw)["params"]["requestId"] for e in cancels] == [call.id]


async def test_a_response_by_hand_answers_the_elicitation_and_the_answering_screen_leaves():
    calls: list = []
    app = live_app(timeout=120.0)
    async with app.run_test(
        size=SIZE, message_hook=lambda m: calls.append(m) if isinstance(m, (CallFinished, CallFailed)) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "ask_the_client")
        await app.main.composer.set_arguments({"kind": "elicitation"})
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the answering screen", timeout=15
        )
        modal = app.screen
        # the focus is in the modal's form, whose fields keep ctrl+e: the palette
        await palette_pick(pilot, "raw frame: send")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RawFrameScreen), what="the raw frame screen")
        screen = app.screen
        await template(pilot, app, "r")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, PickList) and app.screen.choices[0][1].find("elicitation/create") > 0,
            what="the server requests waiting",
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen, what="back on the screen")
        answer = json.loads(screen.editor.text)
        assert answer["result"] == {"action": "accept", "content": {}}
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: calls, what="the tool's result")
        assert isinstance(calls[0], CallFinished)
        assert '"action": "accept"' in calls[0].outcome.result["content"][0]["text"]
        assert "(its answering screen is withdrawn)" in text_of(screen, "raw-status")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, what="both screens gone")
        assert not modal.is_attached or modal not in app.screen_stack
        responses = [e for e in app.store if e.direction is Direction.OUT and e.kind in (Kind.RESPONSE, Kind.ERROR)]
        assert len(responses) == 1 and responses[0].meta == {"by_hand": True}


async def test_the_history_is_kept_across_runs_recalled_by_keys_and_listed(tmp_path):
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, app)
        await template(pilot, app, "p")
        await send_and_wait_reply(pilot, screen, 1)
        await template(pilot, app, "t")
        await send_and_wait_reply(pilot, screen, 2)
    path = tmp_path / "state" / "mcp-inspector" / "raw-frames.json"
    assert path.stat().st_mode & 0o777 == 0o600
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, app)
        await pilot.press(*"draft")
        await pilot.press("ctrl+up")
        assert json.loads(screen.editor.text)["method"] == "tools/list"
        await pilot.press("ctrl+up")
        assert json.loads(screen.editor.text)["method"] == "ping"
        assert text_of(screen, "raw-status").startswith("History 1/2 (sent ")
        await pilot.press("ctrl+down")
        assert json.loads(screen.editor.text)["method"] == "tools/list"
        await pilot.press("ctrl+down")
        assert screen.editor.text == "draft"
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, PickList), what="the history list")
        assert [label for _, label, _ in app.screen.choices][0].startswith(
            '{ "jsonrpc": "2.0", "id": "raw-2", "method": "tools/list"'
        )
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.screen is screen, what="back")
        assert json.loads(screen.editor.text)["method"] == "ping"


async def test_a_corrupt_history_file_is_set_aside_with_a_note(tmp_path):
    path = tmp_path / "state" / "mcp-inspector" / "raw-frames.json"
    path.parent.mkdir(parents=True)
    path.write_text("{ not json")
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, app)
        assert text_of(screen, "raw-status").startswith(f"the raw frame history {path} is corrupt (")
        assert path.with_name("raw-frames.json.corrupt").exists()
        await template(pilot, app, "p")
        await send_and_wait_reply(pilot, screen, 1)
    (frames,) = json.loads(path.read_text())["servers"].values()
    assert json.loads(frames[0]["text"])["method"] == "ping"


async def test_the_key_is_in_the_help_and_the_palette():
    from mcp_inspector.tui.commands import InspectorCommands
    from mcp_inspector.tui.screens.help import view_bindings

    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        titles = {title: help_text for title, _, help_text in InspectorCommands(app.screen)._commands()}
        assert titles["raw frame: send a JSON-RPC frame by hand"] == "key: ctrl+e"
    groups = dict(view_bindings())
    assert {b.id for b in groups["Raw frame (ctrl+e)"]} >= {
        "raw-frame.send",
        "raw-frame.templates",
        "raw-frame.older",
        "raw-frame.newer",
        "raw-frame.history",
        "raw-frame.as-is",
        "raw-frame.close",
    }


async def test_over_streamable_http_the_screen_posts_the_frame_and_shows_the_reply(everything_http_url):
    from mcp_inspector.core.config.servers import ServerSpec

    app = live_app(ServerSpec("everything", url=everything_http_url, transport="http"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, app)
        assert text_of(screen, "raw-title").startswith("Raw frame → everything (http, ")
        await template(pilot, app, "t")
        reply = await send_and_wait_reply(pilot, screen, 1)
        assert " response to #" in reply.splitlines()[0] and '"echo"' in reply
        (sent,) = by_hand(app)
        post = next(x for x in app.store.http_log.exchanges if x.rpc_id == "raw-1")
        assert post.header("Mcp-Session-Id", response=False) == app.main.connection.live.transport.session_id
        assert app.store.get(sent.reply_seq).meta["exchange"] == post.id
        await template(pilot, app, "i")
        reply = await send_and_wait_reply(pilot, screen, 2)
        assert " error -32700 to #" in reply.splitlines()[0]


async def test_the_screens_actions_are_in_the_palette_opened_over_it():
    from textual.command import CommandPalette

    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, app)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await pilot.press(*"raw frame: templates")

        def first_hit() -> bool:
            options = app.screen.query_one("CommandList")
            return options.option_count > 0 and "raw frame: templates" in str(options.get_option_at_index(0).prompt)

        await wait_for(pilot, first_hit, what="the entry")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PickList), what="the templates, from the palette")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back")
        titles = {title: help_text for title, _, help_text in screen.palette_commands()}
        assert titles["raw frame: send the frame"] == "key: ctrl+s"
        assert titles["raw frame: history: the frame sent before"] == "key: ctrl+up"
