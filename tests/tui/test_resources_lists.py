"""The Resources view against tests/servers/resources_server.py (a raw stdio server): paged
lists, added/changed/removed marks after notifications/resources/list_changed with the diff,
subscribe without the capability (a warning, then the request), and awkward read results (binary with a hex preview,
several contents, a big text, a malformed result, a broken content item, icons)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, choose_tool, live_app, wait_for
from test_resources_view import body_text, highlight, open_view, read_by_key, row, sent
from textual.widgets import Static

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.dialogs.tool_diff import ToolDiffScreen
from mcp_inspector.tui.widgets.result.media import MediaBlock

pytestmark = pytest.mark.usefixtures("isolated_cwd")

SERVER = Path(__file__).resolve().parents[1] / "servers" / "resources_server.py"


def server_app():
    return live_app(ServerSpec("resources", [sys.executable, str(SERVER)], source="test"))


@pytest.mark.anyio
async def test_paged_lists_then_list_changed_marks_diff_and_dismiss():
    app = server_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        listing = view.resource_list
        assert len(listing.items["resources"]) == 8  # four pages of two
        assert len(sent(app, "resources/list")) == 4
        assert listing.marks == {} and listing.removed["resources"] == []
        prompt = str(listing.option_list.get_option("r:res://icon").prompt)
        assert "◈" in prompt and "for user" in prompt and "priority 0.5" in prompt and "modified 2026-01-02" in prompt

        await pilot.press("1")
        await choose_tool(pilot, app, "mutate")
        app.main.composer.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: listing.marks, what="the refetch after list_changed")
        await pilot.press("7")
        assert listing.marks == {"r:res://new": "added", "r:res://text": "changed"}
        assert [r["uri"] for r in listing.removed["resources"]] == ["res://gone"]
        removed = listing.option_list.get_option("removed:r:res://gone")
        assert removed.disabled and "Soon removed" in str(removed.prompt)
        summary = str(listing.query_one("#resource-summary", Static).render())
        assert "+1 new" in summary and "~1 changed" in summary and "-1 gone" in summary

        await highlight(pilot, view, "res://text")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolDiffScreen), what="the diff")
        assert app.screen.change.fields == ["description"]
        verdict = str(app.screen.query_one("#diff-verdict").render())
        assert "· /resources/res:~1~1text/description: description changed" in verdict
        await pilot.press("escape")
        await pilot.press("ctrl+x")
        assert listing.marks == {} and listing.removed["resources"] == []


@pytest.mark.anyio
async def test_subscribe_without_the_capability_warns_and_asks_anyway():
    """As the CLI does: a warning that the server does not declare resources.subscribe, then the
    request (an inspector shows what the server does; this one answers -32601)."""
    app = server_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        await highlight(pilot, view, "res://text")
        await pilot.press("s")
        await wait_for(pilot, lambda: sent(app, "resources/subscribe") == [{"uri": "res://text"}], what="the request")
        messages = lambda: [str(n.message) for n in shown_notifications(app)]  # noqa: E731 - a one-line function, kept beside its use
        assert any("does not declare resources.subscribe" in m and "anyway" in m for m in messages())
        await wait_for(
            pilot,
            lambda: any("resources/subscribe res://text failed" in m and "-32601" in m for m in messages()),
            what="the server's error",
        )
        assert "res://text" not in view.session.subscribed


@pytest.mark.anyio
async def test_binary_multi_big_malformed_and_broken_reads():
    app = server_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        await read_by_key(pilot, view, "res://bin")
        media = view.contents.query(MediaBlock)
        assert len(media) == 1 and media.first().info.size == 300
        hexed = str(view.contents.query_one(".hex-preview", Static).render())
        assert hexed.splitlines()[0].startswith("00000000  00 01 02 03")
        lines = hexed.splitlines()
        per_line = len(lines[0].split("  ")[1].split())
        assert per_line in (8, 16) and len(lines) == 256 // per_line  # the first 256 bytes
        preview = view.contents.query_one(".hex-preview", Static)
        await wait_for(pilot, lambda: preview.size.width > 0, what="the hex preview laid out")
        width = preview.size.width
        assert all(len(line) <= width for line in lines), width  # never wrapped: the columns stay
        assert "first 256 of 300 bytes" in body_text(view)

        view.open_resource("res://hugeblob", None)  # 3 MB: its size from the base64 length, its head decoded
        await wait_for(
            pilot,
            lambda: (
                view.contents.uri == "res://hugeblob"
                and view.contents.kind == "ok"
                and bool(view.contents.query(MediaBlock))
            ),
            what="the blob shown",
        )
        assert view.contents.query_one(MediaBlock).info.size == 3_000_005
        assert "00 48 55 47 45 00" in str(view.contents.query_one(".hex-preview", Static).render())
        assert "first 256 of 2.9 MB" in body_text(view)

        await read_by_key(pilot, view, "res://icon")  # the list's facts in full above the contents
        meta = str(view.contents.query_one(".resource-meta", Static).render())
        assert 'lastModified="2026-01-02T03:04:05Z"' in meta and "icons: PNG icon, 3 B" in meta

        await read_by_key(pilot, view, "res://multi")
        assert "2 contents" in view.contents.status_text
        text = body_text(view)
        assert "first part" in text and '"second"' in text and "res://multi#2" in text
        view.contents.focus()
        app.clear_notifications()
        await pilot.press("p")  # headless: no pager to suspend to, so it says where the text is
        await wait_for(
            pilot, lambda: any("the text is in" in str(n.message) for n in shown_notifications(app)), what="the pager"
        )
        paged = next(str(n.message) for n in shown_notifications(app) if "the text is in" in str(n.message)).split(
            "the text is in "
        )[-1]
        assert "=== contents[0] res://multi#1 text/plain ===\nfirst part" in Path(paged).read_text()
        Path(paged).unlink()

        await read_by_key(pilot, view, "res://big")
        assert view.contents.truncated
        assert "truncated" in body_text(view) and "w: save the whole result" in body_text(view)
        assert "broken for display (w / p give the exact text)" in body_text(view)  # w saves here: s subscribes
        view.contents.focus()
        await pilot.press("w", "enter")  # the whole result, as JSON (asks where, prefilled)
        await wait_for(pilot, lambda: getattr(view.contents, "saved_path", None) is not None, what="the saved result")
        assert len(json.loads(view.contents.saved_path.read_text())["contents"][0]["text"]) == 300_000

        await read_by_key(pilot, view, "res://bad")
        assert view.contents.kind == "rpc-error" and "malformed" in view.contents.status_text
        assert "no `contents` array" in body_text(view)

        await read_by_key(pilot, view, "res://broken-item")
        assert "needs `text` or `blob`" in body_text(view)

        # the template without completions capability: a plain form, reading res://item/7
        await highlight(pilot, view, "res://item/{id}")
        await pilot.press("enter")
        form = view.template_form
        await wait_for(pilot, lambda: form.first_field() is not None, what="the form")
        await pilot.press("7", "enter")
        await wait_for(
            pilot, lambda: view.contents.uri == "res://item/7" and view.contents.kind == "ok", what="the read"
        )
        assert "item 7" in body_text(view)
        assert sent(app, "completion/complete") == []


MODERN = [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "modern_raw_server.py")]


@pytest.mark.anyio
async def test_a_textual_blob_that_is_utf8_shows_as_text():
    """Markdown and JSON sent as base64 blobs render as their text would (Markdown, JSON with
    its tree), with a note that they came as blobs; a text/plain blob that is not UTF-8 keeps
    the hex preview."""
    from textual.widgets import Markdown

    from mcp_inspector.tui.widgets.views.resources.contents import JsonBlock, readable_contents

    app = server_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        view.open_resource("res://textblobs", None)
        await wait_for(
            pilot, lambda: view.contents.uri == "res://textblobs" and view.contents.kind == "ok", what="the read"
        )
        await pilot.pause()
        text = body_text(view)
        assert "came as a base64 blob (26 bytes of UTF-8), shown as text" in text  # é: 2 bytes
        assert "came as a base64 blob (25 bytes of UTF-8), shown as text" in text
        assert "¶ #0 text/markdown · res://textblobs#md · 25 characters" in text
        markdown = view.contents.query_one(Markdown)
        assert "Blob title" in markdown.source
        assert len(view.contents.query(JsonBlock)) == 1
        assert '"from": "blob"' in text  # pretty-printed
        media = view.contents.query(MediaBlock)  # the Latin-1 one: bytes, as before
        assert len(media) == 1 and media.first().info.mime_type == "text/plain"
        assert "63 61 66 e9" in str(view.contents.query_one(".hex-preview", Static).render())
        paged = readable_contents(view.contents.payload)  # what p opens in $PAGER
        assert "(a base64 blob, as text) ===\n# Blob title" in paged and "(8 base64 characters, not shown)" in paged


@pytest.mark.anyio
async def test_modern_era_subscribes_through_subscriptions_listen():
    from textual.widgets import Input

    app = live_app(ServerSpec("modern", MODERN, source="test"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        assert view.session.era == "modern"
        await read_by_key(pilot, view, "memo://one")
        view.contents.focus()
        await pilot.press("s")  # s on the shown contents subscribes too (not "save", which is w here)
        await wait_for(pilot, lambda: "memo://one" in view.session.subscribed, what="the subscription")
        assert sent(app, "resources/subscribe") == []
        listens = sent(app, "subscriptions/listen")
        assert listens and "memo://one" in json.dumps(listens[-1])
        await pilot.press("1")
        await choose_tool(pilot, app, "touch")
        field = app.main.composer.query(Input).first()
        field.focus()
        await pilot.press(*"memo://one")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: view.resource_list.updates.get("memo://one") == 1, what="the update")
        await pilot.press("7")
        assert "updated 1x since read" in str(view.contents.stale.render())


@pytest.mark.anyio
async def test_a_recording_says_it_is_read_only():
    from app_helpers import DEMO_SESSION

    from mcp_inspector.tui.app import make_app
    from mcp_inspector.tui.config import TuiConfig

    app = make_app(open_file=str(DEMO_SESSION), snapshot_mode=True, config=TuiConfig())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main.replay is not None, what="the recording")
        await pilot.press("7")
        view = app.main.query_one("#view-resources")
        note = view.query_one("#resources-note", Static)
        assert note.has_class("-shown") and "read-only" in str(note.render())
        await pilot.press("s")
        await wait_for(
            pilot, lambda: any("read-only" in str(n.message) for n in shown_notifications(app)), what="the note"
        )


@pytest.mark.anyio
async def test_modern_read_that_asks_for_input_first_mrtr():
    from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen

    app = live_app(ServerSpec("modern", MODERN, source="test"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        view.open_resource("memo://ask", None)  # not listed: read by URI, like a resource_link
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the input round's modal")
        await pilot.press("ctrl+s")  # accept (the server asks no fields)
        await wait_for(pilot, lambda: view.contents.kind == "ok" and view.contents.uri == "memo://ask", what="the read")
        assert "hello" in body_text(view)
        assert len(sent(app, "resources/read")) == 2  # the first request, then the retry with inputResponses


@pytest.mark.anyio
async def test_a_failing_templates_list_is_said_in_its_section():
    app = live_app(ServerSpec("resources", [sys.executable, str(SERVER), "--no-templates"], source="test"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        listing = view.resource_list
        assert len(listing.items["resources"]) == 8 and listing.items["resource_templates"] == []
        assert "-32601" in listing.errors["resource_templates"]
        rows = [str(listing.option_list.get_option_at_index(i).prompt) for i in range(listing.option_list.option_count)]
        assert any("Templates (0)" in row for row in rows)
        assert any("resources/templates/list failed" in row and "-32601" in row for row in rows)
        await read_by_key(pilot, view, "res://text")  # the rest works
        assert "hello resources" in body_text(view)


@pytest.mark.anyio
async def test_ctrl_k_cancels_a_read_in_flight():
    from mcp_inspector.core.traffic.entry import Direction

    app = server_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        view.open_resource("res://never", None)
        await wait_for(pilot, lambda: view.reading is not None, what="the read in flight")
        assert view.contents.kind == "pending"
        await pilot.press("ctrl+k")
        await wait_for(pilot, lambda: view.contents.kind == "transport", what="the cancelled read")
        assert "cancelled" in view.contents.status_text and "res://never" in view.contents.status_text
        cancelled = [e for e in app.store if e.direction is Direction.OUT and e.method == "notifications/cancelled"]
        assert len(cancelled) == 1
        assert view.reading is None
        # no read in flight: ctrl+k is the main screen's again (cancel a request in flight)
        app.clear_notifications()
        await pilot.press("ctrl+k")
        await wait_for(
            pilot,
            lambda: any("No request to cancel" in str(n.message) for n in shown_notifications(app)),
            what="the main screen's answer",
        )


@pytest.mark.anyio
async def test_a_server_that_pages_for_ever_is_stopped_with_what_it_sent():
    """A fresh nextCursor on every page (no loop to detect): the list stops at MAX_ITEMS with
    the items so far and says why, instead of growing without bound."""
    from mcp_inspector.core.session.listing import MAX_ITEMS

    app = live_app(ServerSpec("resources", [sys.executable, str(SERVER), "--endless"], source="test"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        listing = view.resource_list
        await wait_for(pilot, lambda: "resources" in listing.errors, timeout=120, what="the stopped list")
        assert MAX_ITEMS <= len(listing.items["resources"]) < MAX_ITEMS + 1000
        assert "still sends a nextCursor" in listing.errors["resources"]
        assert len(sent(app, "resources/list")) == 4 + MAX_ITEMS // 1000
        await read_by_key(pilot, view, "res://text")  # the first items are there and work
        assert "hello resources" in body_text(view)


@pytest.mark.anyio
async def test_a_flood_of_updates_keeps_the_view_usable_and_counts_right():
    """flood://x sends notifications/resources/updated as fast as the pipe takes them until
    it is unsubscribed: the keys still work during the flood, and the row's count ends equal
    to the session's (the marks are redrawn a few times a second, not once per update). The
    updates reach the screen coalesced: a SessionNotice carries the newest update per URI and
    the next is posted only once the screen took it (one message per update kept view switches
    waiting behind tens of thousands of them)."""
    from mcp_inspector.tui.messages import SessionNotice

    hostile = Path(__file__).resolve().parents[1] / "servers" / "hostile_surface_server.py"
    app = live_app(ServerSpec("hostile", [sys.executable, str(hostile)], source="test"))
    notices: list = []

    def hook(message) -> None:
        if isinstance(message, SessionNotice):
            notices.append(message)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        view = await open_view(pilot, app)
        session = view.session
        await highlight(pilot, view, "flood://x")
        await pilot.press("s")
        await wait_for(
            pilot, lambda: session.resource_updates.get("flood://x", 0) >= 5000, timeout=120, what="a flood of updates"
        )
        await pilot.press("f3")  # view switches during the flood
        await wait_for(pilot, lambda: app.main.current_view == "overview", what="the Overview")
        await pilot.press("f2", "7")
        await wait_for(pilot, lambda: app.main.current_view == "resources", what="the Resources view again")
        await wait_for(pilot, lambda: view.resource_list.option_list.has_focus, what="the list focused again")
        await pilot.press("slash")  # the keys still work: filter, then back to the list
        await pilot.press("f", "l")
        await wait_for(pilot, lambda: view.resource_list.filter_input.value == "fl", what="the filter typed")
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.resource_list.option_list.has_focus, what="the list focused")
        # a read during the flood: its stale note counts the updates since the read, not all of them
        before = session.resource_updates["flood://x"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.contents.kind not in ("pending", "empty"), what="the read's answer")
        await wait_for(pilot, lambda: view.contents.stale.has_class("-stale"), what="the stale note")
        since = int(re.search(r"updated (\d+)x since read", str(view.contents.stale.render())).group(1))
        assert since <= session.resource_updates["flood://x"] - before
        await pilot.press("s")  # unsubscribe: the flood stops
        await wait_for(pilot, lambda: "flood://x" not in session.subscribed, timeout=60, what="the unsubscription")
        await session.ping()  # the updates sent before it are in (a round trip after them, not a time)
        count = session.resource_updates["flood://x"]
        await wait_for(
            pilot,
            lambda: view.resource_list.updates.get("flood://x") == session.resource_updates["flood://x"],
            what="the row's count to catch up",
        )
        assert f"↻{session.resource_updates['flood://x']}" in row(view, "flood://x") and count >= 5000
        assert not any(n.latest for n in notices)  # every update was taken
        assert len(notices) * 10 < count, (len(notices), count)  # coalesced (one each before)


@pytest.mark.anyio
async def test_an_image_is_drawn_where_the_terminal_draws_images(monkeypatch):
    """MCP_INSPECTOR_IMAGES=halfcell draws without a terminal's protocol (a test has no
    terminal to ask): the demo's logo is drawn, an image/png that is no image says so."""
    from textual_image.widget import HalfcellImage

    from mcp_inspector.tui import images

    monkeypatch.setenv("MCP_INSPECTOR_IMAGES", "halfcell")
    monkeypatch.setattr(images, "_prepared", False)
    monkeypatch.setattr(images, "_kind", None)
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        await read_by_key(pilot, view, "demo://logo.png")
        await wait_for(pilot, lambda: bool(view.contents.query(HalfcellImage)), what="the drawn logo")
        drawn = view.contents.query_one(HalfcellImage)
        await wait_for(pilot, lambda: drawn.size.height > 0, what="the image laid out")
        assert 0 < drawn.size.height <= images.MAX_ROWS and drawn.size.width > 0
        assert "image 32×32 px" in body_text(view)
    app = server_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        view.open_resource("res://badimage", None)
        await wait_for(
            pilot, lambda: "not drawn: the image cannot be decoded" in body_text(view), what="the read shown"
        )
        assert not view.contents.query(HalfcellImage)


@pytest.mark.anyio
async def test_modern_subscription_the_server_does_not_honour_is_said():
    """updates_server honours only ticker://clock in its acknowledgment: subscribing to another
    URI warns that no updates will come; ticker://clock itself gets no warning."""
    updates = [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "updates_server.py")]
    app = live_app(ServerSpec("updates", updates, source="test", era="modern"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connection.live is not None, what="the session")  # (no tools to wait for)
        await pilot.press("7")
        view = app.main.query_one("#view-resources")
        await wait_for(pilot, lambda: "resources" in view.resource_list.listed, what="the list")
        assert view.session.era == "modern"

        def warned() -> list[str]:
            return [str(n.message) for n in shown_notifications(app) if "did not acknowledge" in str(n.message)]

        await highlight(pilot, view, "ticker://clock")
        await pilot.press("s")
        await wait_for(pilot, lambda: view.resource_list.updates.get("ticker://clock", 0) >= 1, what="an update")
        view.open_resource("ticker://nothing", None)
        await wait_for(pilot, lambda: view.contents.kind not in ("pending", "empty"), what="the read")
        view.contents.focus()
        await pilot.press("s")
        await wait_for(pilot, lambda: bool(warned()), what="the warning")
        assert warned() == [
            "The server did not acknowledge the subscription to ticker://nothing (subscriptions/listen): "
            "no updates of it will come."
        ]


@pytest.mark.anyio
async def test_a_read_superseded_by_another_is_cancelled_on_the_server():
    """res://never is never answered: reading res://text meanwhile shows res://text and sends
    notifications/cancelled for the first read (the server may stop working on it), once."""
    from mcp_inspector.core.traffic.entry import Direction

    app = server_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        view.open_resource("res://never", None)
        await wait_for(pilot, lambda: view.reading is not None, what="the read in flight")
        first = view.reading
        await read_by_key(pilot, view, "res://text")
        assert "hello resources" in body_text(view)

        def cancelled():
            return [
                json.loads(e.raw)["params"]
                for e in app.store
                if e.direction is Direction.OUT and e.method == "notifications/cancelled"
            ]

        await wait_for(pilot, lambda: bool(cancelled()), what="notifications/cancelled")
        assert [c["requestId"] for c in cancelled()] == [first.id]


@pytest.mark.anyio
async def test_a_template_that_is_not_rfc_6570_is_said_in_its_form():
    """uritemplate takes {a b} as a variable named "a b": the form says the template is wrong."""
    app = live_app(ServerSpec("resources", [sys.executable, str(SERVER), "--bad-template"], source="test"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        await highlight(pilot, view, "res://bad/{a b}")
        await pilot.press("enter")
        form = view.template_form
        await wait_for(pilot, lambda: form.template_uri == "res://bad/{a b}", what="the form")
        problem = form.query_one("#template-problem", Static)
        assert problem.has_class("-shown")
        assert "{a b} in res://bad/{a b} is not an RFC 6570 expression" in str(problem.render())


@pytest.mark.anyio
async def test_json_over_the_display_cap_is_shown_indented():
    """A compact JSON document over the 100 KB cap: its first 100 KB are shown indented (they
    showed as one raw line), and saving writes the text as it came."""
    from textual.widgets import TextArea

    app = server_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        view.open_resource("res://bigjson", None)
        await wait_for(
            pilot,
            lambda: (
                view.contents.kind == "ok"
                and view.contents.uri == "res://bigjson"
                and bool(view.contents.query(TextArea))
            ),
            what="the read shown",
        )
        assert view.contents.truncated
        shown = view.contents.query_one(TextArea).text
        assert shown.startswith('[\n  {\n    "n": 0,\n    "name": "item 0"\n  },')
        raw = view.contents.payload["contents"][0]["text"]
        assert raw.startswith('[{"n":0,"name":"item 0"},')  # kept as it came (w saves it)


@pytest.mark.anyio
async def test_a_flood_of_list_changed_refetches_coalesced_and_keeps_keys_working():
    """flood://lists: tools, prompts and resources list_changed as fast as the pipe takes
    them. The session refetches a list at most one at a time (plus one queued), so the screen
    gets a message per refetch, not per notification; a view switch by key works during the
    flood, and the store still records every notification."""
    from mcp_inspector.tui.messages import ListFetched, ToolsFetched

    hostile = Path(__file__).resolve().parents[1] / "servers" / "hostile_surface_server.py"
    app = live_app(ServerSpec("hostile", [sys.executable, str(hostile)], source="test"))
    fetched: list = []

    def hook(message) -> None:
        if isinstance(message, (ListFetched, ToolsFetched)):
            fetched.append(message)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        view = await open_view(pilot, app)
        session = view.session
        store = app.store
        await session.subscribe("flood://lists")
        await wait_for(
            pilot,
            lambda: store.method_counts["notifications/tools/list_changed"] >= 5000,
            timeout=120,
            what="a flood of list_changed",
        )
        await pilot.press("f3")
        await wait_for(pilot, lambda: app.main.current_view == "overview", what="the Overview during the flood")
        await session.unsubscribe("flood://lists")
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.main.current_view == "main", what="the Main view")
        await session.ping()  # the list_changed sent before it are in
        await wait_for(pilot, lambda: not session.lister.refreshing, timeout=60, what="the last refetch")
        notes = sum(
            store.method_counts[f"notifications/{kind}/list_changed"] for kind in ("tools", "prompts", "resources")
        )
        assert store.method_counts["notifications/resources/list_changed"] >= 5000
        assert len(fetched) * 10 < notes, (len(fetched), notes)
        assert [tool["name"] for tool in app.main.tool_list.tools][:1] == ["never_ends"]  # the list still there
