"""The Prompts view on a server with every content type, a malformed result and a
changing list (tests/servers/completion_server.py), and without a live session."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from app_helpers import DEMO_SESSION, SIZE, live_app, outgoing, wait_for
from textual.widgets import Static

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.widgets.result.media import MediaBlock
from mcp_inspector.tui.widgets.views.prompts.messages import OpenableBlock
from mcp_inspector.tui.widgets.views.prompts.view import PromptsView

pytestmark = pytest.mark.usefixtures("isolated_cwd")

SERVER = Path(__file__).resolve().parents[1] / "servers" / "completion_server.py"


def spec(*extra: str) -> ServerSpec:
    return ServerSpec("prompts", [sys.executable, str(SERVER), *extra], source="test")


async def open_prompts(pilot, app, with_tools: bool = False) -> PromptsView:
    await wait_for(pilot, lambda: app.main.status_bar.status.state == "connected", what="the connection")
    await pilot.press("8")
    await wait_for(pilot, lambda: app.main.query("#view-prompts"), what="the Prompts view")
    view = app.main.query_one("#view-prompts", PromptsView)
    await wait_for(pilot, lambda: view.prompt_list.prompts, what="the prompt list")
    return view


async def get(pilot, view: PromptsView, name: str) -> None:
    assert view.prompt_list.select_name(name), name
    view.prompt_list.option_list.focus()
    await pilot.press("enter")
    await wait_for(pilot, lambda: view.current is not None and view.current.get("name") == name, what=name)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: view.getting is None and view.status.display, what=f"{name} got")


def texts(widget) -> str:
    return "\n".join(str(s.render()) for s in widget.query(Static))


@pytest.mark.anyio
async def test_every_content_type_is_rendered_by_role():
    app = live_app(spec())
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        await get(pilot, view, "media")
        messages = view.messages
        assert len(messages.messages) == 8
        shown = texts(messages)
        assert "All of them" in shown  # the description
        assert "Look at these." in shown
        media = list(messages.query(MediaBlock))
        assert [m.info.type for m in media] == ["image", "audio", "resource"]  # image, audio, embedded blob
        assert "image/png" in shown and "108 bytes decoded" in shown
        assert "audio/wav" in shown and "204 bytes decoded" in shown
        assert "application/octet-stream · 1.0 KB decoded" in shown  # the embedded blob
        assert "test://readme" in shown and "resource link" in shown
        assert "embedded notes" in shown
        assert "hologram" in shown and '"depth": 3' in shown  # an unknown type as JSON
        assert "role must be user or assistant, got 'system'" in shown
        roles = [w for w in messages.children if w.has_class("prompt-message")]
        assert [r.has_class("role-user") for r in roles][:3] == [True, True, False]
        assert roles[2].has_class("role-assistant") and roles[7].has_class("role-unknown")
        # save the image with its key, from the keyboard
        media[0].focus()
        await pilot.press("w", "enter")  # asks where (prefilled), enter saves
        await wait_for(pilot, lambda: getattr(media[0], "saved_path", None), what="the saved image")
        assert media[0].saved_path.read_bytes().startswith(b"\x89PNG")


@pytest.mark.anyio
async def test_enter_on_a_resource_link_opens_the_resources_view():
    app = live_app(spec())
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        await get(pilot, view, "media")
        link = next(b for b in view.messages.query(OpenableBlock) if b.has_class("link-block"))
        assert link.uri == "test://readme" and link.contents is None
        embedded = next(b for b in view.messages.query(OpenableBlock) if b.has_class("embedded-block"))
        assert embedded.uri == "test://notes" and embedded.contents["text"] == "embedded notes"
        link.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_view == "resources", what="the Resources view")


@pytest.mark.anyio
async def test_a_malformed_result_is_shown_not_a_crash():
    app = live_app(spec())
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        await get(pilot, view, "broken")
        assert "malformed result" in str(view.status.render())
        assert "`messages` must be an array, got str" in texts(view.messages)
        assert '"nope"' in texts(view.messages)  # the raw result is shown


@pytest.mark.anyio
async def test_list_changed_marks_added_changed_and_removed_prompts():
    app = live_app(spec())
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        plist = view.prompt_list
        assert plist.marks == {} and plist.removed == []  # the first listing is the baseline
        first = str(plist.option_list.get_option_at_index(0).prompt)
        assert "◆" in first and "first*, second" in first  # icons mark, required starred
        await get(pilot, view, "toggle")
        await wait_for(pilot, lambda: plist.marks, what="the list_changed refetch")
        assert plist.marks == {"extra": "added", "pick": "changed"}
        assert [p["name"] for p in plist.removed] == ["broken"]
        assert "+1 new · ~1 changed · -1 gone" in str(plist.query_one("#prompt-summary").render())
        options = [plist.option_list.get_option_at_index(i) for i in range(plist.option_list.option_count)]
        assert [str(o.prompt).split("\n")[0].strip() for o in options] == [
            "~ Pick two ◆",
            "media",
            "toggle",
            "stall",
            "+ extra",
            "- broken",
        ]
        assert options[-1].disabled
        # the shown prompt's form follows its new definition
        plist.select_name("pick")
        await wait_for(
            pilot, lambda: view.current and view.current.get("description") == "Changed.", what="the new pick"
        )
        # the same session told again (as after a tools refetch): the marks stay
        app.main.views.session_changed()
        await pilot.pause()
        assert plist.marks == {"extra": "added", "pick": "changed"}
        # a new session (reconnect: a fresh server) is a new baseline: no marks, its own list
        old = app.main.connection.live
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.main.connection.live not in (None, old), what="the new session")
        await wait_for(
            pilot,
            lambda: [p["name"] for p in plist.prompts] == ["pick", "media", "broken", "toggle", "stall"],
            what="the new list",
        )
        assert plist.marks == {} and plist.removed == []


@pytest.mark.anyio
async def test_filter_narrows_the_list():
    app = live_app(spec())
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        await pilot.press("slash", *"medi")
        plist = view.prompt_list
        assert plist.option_list.option_count == 1 and plist.highlighted_prompt()["name"] == "media"
        await pilot.press("enter")  # enter in the filter goes to the prompt's form (no arguments: the button)
        await wait_for(pilot, lambda: view.current and view.current["name"] == "media", what="media's form")
        assert app.focused.has_class("prompt-get")
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.messages.messages, what="the messages")


@pytest.mark.anyio
async def test_completion_in_the_form_uses_the_other_argument():
    app = live_app(spec())
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        assert view.prompt_list.select_name("pick")
        view.prompt_list.option_list.focus()
        await pilot.press("enter", *"zed", "enter")  # enter with no list open: the next field
        second = view.fields()[1]
        await wait_for(pilot, lambda: app.focused is second, what="the second field")
        await pilot.press("down")
        await wait_for(pilot, lambda: second.suggestions, what="suggestions")
        assert second.suggestions == ["zed-a", "zed-b"]
        await pilot.press("enter", "enter")  # take zed-a, then get (the last field)
        await wait_for(pilot, lambda: view.messages.messages, what="the messages")
        assert json.loads(outgoing(app, "prompts/get")[-1].raw)["params"]["arguments"] == {
            "first": "zed",
            "second": "zed-a",
        }
        # values typed are kept per prompt
        view.prompt_list.select_name("media")
        await wait_for(pilot, lambda: view.current["name"] == "media", what="media")
        view.prompt_list.select_name("pick")
        await wait_for(pilot, lambda: view.current["name"] == "pick" and view.fields(), what="pick again")
        assert [f.value for f in view.fields()] == ["zed", "zed-a"]


@pytest.mark.anyio
async def test_a_recording_says_it_is_read_only():
    from mcp_inspector.tui.app import make_app
    from mcp_inspector.tui.config import TuiConfig

    app = make_app(None, open_file=str(DEMO_SESSION), config=TuiConfig())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main.tool_list.tools, what="the recording")
        await pilot.press("8")
        await wait_for(pilot, lambda: app.main.query("#view-prompts"), what="the Prompts view")
        view = app.main.query_one("#view-prompts", PromptsView)
        assert view.prompt_list.note == "A read-only recording: no prompts/list was recorded."
        await pilot.press("ctrl+s")
        assert "Choose a prompt first" in str(view.status.render())


@pytest.mark.anyio
async def test_a_recording_shows_its_prompts_and_recorded_results(tmp_path):
    from mcp_inspector.tui.app import make_app
    from mcp_inspector.tui.config import TuiConfig

    path = tmp_path / "prompts.jsonl"
    app = live_app(spec(), record=str(path))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        await get(pilot, view, "media")
        assert len(view.messages.messages) == 8
    recording = make_app(None, open_file=str(path), config=TuiConfig())
    async with recording.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: recording.main.replay is not None, what="the recording")
        await pilot.press("8")
        await wait_for(pilot, lambda: recording.main.query("#view-prompts"), what="the Prompts view")
        view = recording.main.query_one("#view-prompts", PromptsView)
        await wait_for(pilot, lambda: view.prompt_list.prompts, what="the recorded list")
        assert [p["name"] for p in view.prompt_list.prompts] == ["pick", "media", "broken", "toggle", "stall"]
        assert "the prompts as recorded" in view.prompt_list.note
        await get(pilot, view, "media")  # the recorded result, nothing sent
        assert len(view.messages.messages) == 8 and "as recorded (read-only)" in str(view.status.render())
        await get(pilot, view, "broken")  # never got while recording
        assert "no prompts/get of broken" in str(view.status.render())
        assert view.prompt_list.select_name("pick")
        view.prompt_list.option_list.focus()
        await pilot.press("enter", *"item")
        field = view.fields()[0]
        await wait_for(pilot, lambda: field.value == "item", what="the typing")
        # no completion from a recording: no debounce timer set (not busy), so none can follow
        assert not field.busy and field.requests_sent == 0 and not field.list_open


@pytest.mark.anyio
async def test_ctrl_k_cancels_a_get_in_flight_and_is_the_fields_key_otherwise():
    app = live_app(spec())
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        # no get in flight: ctrl+k in a field deletes to the end, as in any Input
        assert view.prompt_list.select_name("pick")
        view.prompt_list.option_list.focus()
        await pilot.press("enter", *"abc", "home", "ctrl+k")
        assert view.fields()[0].value == ""
        assert view.prompt_list.select_name("stall")
        view.prompt_list.option_list.focus()
        await pilot.press("enter", "ctrl+s")
        await wait_for(pilot, lambda: view.get_pending is not None, what="the get in flight")
        assert "ctrl+k cancels" in str(view.status.render())
        request_id = json.loads(outgoing(app, "prompts/get")[-1].raw)["id"]
        await pilot.press("ctrl+k")
        await wait_for(pilot, lambda: view.getting is None, what="the cancel")
        assert str(view.status.render()).startswith("⊘ stall: cancelled")
        cancels = [json.loads(e.raw)["params"] for e in outgoing(app, "notifications/cancelled")]
        assert cancels and cancels[-1]["requestId"] == request_id


@pytest.mark.anyio
async def test_a_server_without_prompts_says_so_and_is_not_asked(raw_server):
    app = live_app(ServerSpec("raw", raw_server(), source="test"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.main.status_bar.status.state == "connected", what="the connection")
        await pilot.press("8")
        await wait_for(pilot, lambda: app.main.query("#view-prompts"), what="the Prompts view")
        view = app.main.query_one("#view-prompts", PromptsView)
        assert "declares no prompts capability" in view.prompt_list.note
        assert outgoing(app, "prompts/list") == []
        await pilot.press("ctrl+s")
        assert "Choose a prompt first" in str(view.status.render())


@pytest.mark.anyio
async def test_prompt_keys_remapped_by_binding_id():
    from mcp_inspector.tui.config import TuiConfig

    copied: list[str] = []
    app = live_app(spec(), config=TuiConfig(keymap={"prompts.get": "ctrl+g", "prompts.copy": "y"}))
    async with app.run_test(size=SIZE) as pilot:
        app.copy_to_clipboard = copied.append
        view = await open_prompts(pilot, app)
        assert view.prompt_list.select_name("media")
        view.prompt_list.option_list.focus()
        await pilot.press("enter", "ctrl+g")
        await wait_for(pilot, lambda: view.messages.messages, what="the messages (ctrl+g)")
        await pilot.press("y")
        assert json.loads(copied[-1]) == view.messages.messages


@pytest.mark.anyio
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_hint_line_follows_the_focus(size):
    from mcp_inspector.tui.widgets.views.hints import hint_text
    from mcp_inspector.tui.widgets.views.prompts.view import FIELD_HINT, HINT, MESSAGES_HINT

    app = live_app(spec())
    async with app.run_test(size=size) as pilot:
        view = await open_prompts(pilot, app)
        hint = view.query_one("#prompts-hint")
        width = hint.size.width - 2

        def shown() -> str:
            return str(hint.render())

        await wait_for(pilot, lambda: shown() == hint_text({}, HINT, width), what="the list's keys")
        assert shown() == "enter: form · ctrl+s: get · esc: list · /: filter"  # as Resources writes keys (not ^s)
        await pilot.press("enter")  # pick's form: its first field
        assert shown() == hint_text({}, FIELD_HINT, width) and shown().startswith("type: suggestions · ↓: suggest now")
        await get(pilot, view, "media")
        assert app.focused is view.messages and shown() == hint_text({}, MESSAGES_HINT, width)
        assert shown().startswith("c: copy JSON · s: save · tab: blocks")
        await pilot.press("tab")  # the first block inside the messages
        assert view.messages in app.focused.ancestors and shown() == hint_text({}, MESSAGES_HINT, width)
        await pilot.press("escape")
        assert shown() == hint_text({}, HINT, width)
        assert hint.region.right <= size[0] and len(shown()) <= width

        from mcp_inspector.tui.widgets.views.prompts.view import NO_COMPLETIONS_HINT

        at_80 = hint_text({}, NO_COMPLETIONS_HINT, 78)  # what fits 80 columns keeps the get key
        assert len(at_80) <= 78 and at_80.endswith("ctrl+s: get")


@pytest.mark.anyio
async def test_a_prompt_with_two_thousand_arguments_gets_a_capped_form():
    from mcp_inspector.tui.widgets.views.prompts.view import MAX_FIELDS

    app = live_app(spec("--wide", "2000"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        assert view.prompt_list.select_name("wide")
        view.prompt_list.option_list.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.current is not None and view.current.get("name") == "wide", what="wide")
        assert len(view.fields()) == MAX_FIELDS and app.focused is view.fields()[0]
        note = texts(view.form)
        assert f"declares 2,000 arguments: the form has fields for the first {MAX_FIELDS}" in note
        assert "Required among them: arg499, arg999, arg1499, arg1999." in note
        await pilot.press(*"v", "ctrl+s")  # the required ones left out are the server's to refuse
        await wait_for(pilot, lambda: view.getting is None and view.messages.messages, what="wide got")
        assert json.loads(outgoing(app, "prompts/get")[-1].raw)["params"]["arguments"] == {"arg0": "v"}


@pytest.mark.anyio
async def test_megabytes_of_title_and_description_are_cut_short_in_the_form():
    app = live_app(spec("--verbose-prompt"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_prompts(pilot, app)
        assert view.prompt_list.select_name("verbose")
        await wait_for(  # the prompt chosen, and its form mounted (a loaded machine shows the gap)
            pilot,
            lambda: (
                view.current is not None
                and view.current.get("name") == "verbose"
                and any("T" * 200 in str(w.render()) for w in view.form.query(".prompt-head"))
                and bool(view.form.query(".arg-label"))
            ),
            what="verbose's form",
        )
        head = str(view.form.query_one(".prompt-head").render())
        assert "T" * 200 + "… (100,000 characters)" in head
        assert "… (2,000,000 characters)" in head and len(head) < 3000
        label = str(view.form.query(".arg-label").first().render())
        assert label.startswith("t" * 200 + "… (100,000 characters) (" + "a" * 200 + "… (10,000 characters))")
        assert "*required" in label and "… (1,000,000 characters)" in label and len(label) < 3000
        await pilot.press("enter")  # into the field; a get without it is refused before anything is sent
        await pilot.press("ctrl+s")
        assert "Not sent" in str(view.status.render()) and outgoing(app, "prompts/get") == []


@pytest.mark.anyio
async def test_the_hint_line_shows_remapped_keys():
    """The hints were fixed text: a key remapped in config.toml [keymap] still showed its default."""
    from mcp_inspector.tui.config import TuiConfig

    app = live_app(
        spec(), config=TuiConfig(keymap={"prompts.get": "ctrl+t", "prompts.copy": "y", "prompts.filter": "f3"})
    )
    async with app.run_test(size=(120, 40)) as pilot:
        view = await open_prompts(pilot, app)
        hint = view.query_one("#prompts-hint")
        await pilot.press("enter")  # a field
        await wait_for(pilot, lambda: "ctrl+t: get" in str(hint.render()), what="the remapped get key")
        await pilot.press("escape")  # the list
        await wait_for(
            pilot,
            lambda: str(hint.render()) == "enter: form · ctrl+t: get · esc: list · f3: filter",
            what="the list's remapped keys",
        )
        assert view.prompt_list.select_name("media")
        view.prompt_list.option_list.focus()
        await pilot.press("enter", "ctrl+t")  # get, by its new key
        await wait_for(pilot, lambda: view.getting is None and view.messages.messages, what="media got")
        view.messages.focus()
        await wait_for(
            pilot, lambda: str(hint.render()).startswith("y: copy JSON · s: save"), what="the messages' keys"
        )
