"""The Resources view (7) against the real demo server, driven by keys through Pilot:
reading each kind of resource, the template form with completion, subscriptions with live
updates, errors in the pane, and resource links in a tool result opening here."""

from __future__ import annotations

import json
import re

import pytest
from app_helpers import SIZE, choose_tool, live_app, outgoing, wait_for, wait_for_tools
from textual.widgets import Markdown

from mcp_inspector.tui.widgets.form.completion_input import CompletionInput
from mcp_inspector.tui.widgets.result.links import ResourceBlock
from mcp_inspector.tui.widgets.result.media import MediaBlock
from mcp_inspector.tui.widgets.views.resources.view import ResourcesView

pytestmark = pytest.mark.usefixtures("isolated_cwd")


async def open_view(pilot, app) -> ResourcesView:
    await wait_for_tools(pilot, app)
    await pilot.press("7")
    view = app.main.query_one("#view-resources", ResourcesView)
    await wait_for(pilot, lambda: {"resources", "resource_templates"} <= view.resource_list.listed, what="both lists")
    return view


async def highlight(pilot, view: ResourcesView, key: str) -> None:
    """Move the highlight (by keys) to the item whose uri / uriTemplate is ``key``."""
    view.resource_list.option_list.focus()
    for _ in range(40):
        current = view.resource_list.highlighted()
        if current is not None and key in (current[1].get("uri"), current[1].get("uriTemplate")):
            return
        await pilot.press("down")
    raise AssertionError(f"{key} not found in the list")


async def read_by_key(pilot, view: ResourcesView, uri: str) -> None:
    await highlight(pilot, view, uri)
    await pilot.press("enter")
    await wait_for(
        pilot, lambda: view.contents.kind != "pending" and view.contents.uri == uri, what=f"the read of {uri}"
    )


def row(view: ResourcesView, uri: str) -> str:
    """The text of a resource's row in the list ("" while it is not listed)."""
    option_id = f"r:{uri}"
    if option_id not in view.resource_list._ids:
        return ""
    return str(view.resource_list.option_list.get_option(option_id).prompt)


def sent(app, method: str) -> list[dict]:
    """The params of each request of ``method`` the app sent, from the traffic store."""
    return [json.loads(entry.raw).get("params") for entry in outgoing(app, method)]


def body_text(view: ResourcesView) -> str:
    from textual.widgets import Static

    return "\n".join(str(w.render()) for w in view.contents.query(Static))


@pytest.mark.anyio
async def test_lists_and_reads_markdown_json_and_an_image():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        uris = [r["uri"] for r in view.resource_list.items["resources"]]
        assert {"demo://readme", "demo://config.json", "demo://logo.png"} <= set(uris)
        templates = [t["uriTemplate"] for t in view.resource_list.items["resource_templates"]]
        assert "demo://notes/{note_id}" in templates
        assert app.focused is view.resource_list.option_list
        # first listing: a baseline, no change marks
        assert view.resource_list.marks == {}
        # before any read, the pane previews the highlighted item
        await highlight(pilot, view, "demo://config.json")
        assert view.contents.status_text == "demo://config.json · enter reads it"
        assert "A small JSON document" in body_text(view)
        assert sent(app, "resources/read") == []

        await read_by_key(pilot, view, "demo://readme")
        assert view.contents.kind == "ok"
        markdown = view.contents.query(Markdown)
        assert len(markdown) == 1 and "MCP Inspector demo server" in markdown.first().source
        assert sent(app, "resources/read") == [{"uri": "demo://readme"}]

        await read_by_key(pilot, view, "demo://config.json")
        text = body_text(view)
        assert '"server": "mcp-inspector-demo"' in text and "application/json" in text

        await read_by_key(pilot, view, "demo://logo.png")
        media = view.contents.query(MediaBlock)
        assert len(media) == 1 and media.first().info.size and media.first().info.mime_type == "image/png"
        assert "32×32 px" in body_text(view)
        # w on the image writes it (the test runs in a temp dir)
        media.first().focus()
        await pilot.press("w", "enter")  # asks where (prefilled), enter saves
        await wait_for(pilot, lambda: getattr(media.first(), "saved_path", None) is not None, what="the saved image")
        assert media.first().saved_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.anyio
async def test_filter_narrows_both_lists():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        view.resource_list.option_list.focus()
        await pilot.press("slash")
        assert app.focused is view.resource_list.filter_input
        await pilot.press(*"note")
        await wait_for(
            pilot, lambda: set(k.split(":", 1)[0] for k in view.resource_list._ids) == {"t"}, what="the filter"
        )
        assert [item["uriTemplate"] for _, item in view.resource_list._ids.values()] == ["demo://notes/{note_id}"]
        await pilot.press("escape")
        assert view.resource_list.filter_input.value == ""
        assert any(k.startswith("r:") for k in view.resource_list._ids)


@pytest.mark.anyio
async def test_template_form_completes_expands_and_reads():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        await highlight(pilot, view, "demo://files{/path*}{#section}")
        await pilot.press("enter")
        form = view.template_form
        await wait_for(pilot, lambda: form.has_class("-shown") and form.first_field() is not None, what="the form")
        fields = list(form.query(CompletionInput))
        assert [f.variable_name for f in fields] == ["path", "section"]
        assert app.focused is fields[0]
        await pilot.press(*"docs/gu")
        await wait_for(pilot, lambda: fields[0].suggestions, what="path suggestions")
        assert all(s.startswith("docs/gu") for s in fields[0].suggestions)
        await pilot.press("tab")  # take the first suggestion
        path = fields[0].value
        assert path.startswith("docs/gu")
        # section completion is narrowed by the path typed (context.arguments)
        fields[1].focus()
        await pilot.press("down")
        await wait_for(pilot, lambda: fields[1].suggestions, what="section suggestions")
        asked = [p for p in sent(app, "completion/complete") if p["argument"]["name"] == "section"]
        assert asked[-1]["context"] == {"arguments": {"path": path}}
        assert asked[-1]["ref"] == {"type": "ref/resource", "uri": "demo://files{/path*}{#section}"}
        await pilot.press("tab")
        section = fields[1].value
        assert section
        # the expansion is shown before reading; the exploded {/path*} takes the value as a list item
        assert form.uri == f"demo://files/{path.replace('/', '%2F')}#{section}"
        assert form.uri in str(form.query_one("#template-uri").render())
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.contents.kind == "ok" and view.contents.uri == form.uri, what="the read")
        assert sent(app, "resources/read")[-1] == {"uri": form.uri}


@pytest.mark.anyio
async def test_exploded_variable_takes_comma_separated_values_and_query_operator():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        await highlight(pilot, view, "demo://files{/path*}{#section}")
        await pilot.press("enter")
        form = view.template_form
        await wait_for(pilot, lambda: form.first_field() is not None, what="the form")
        await pilot.press(*"docs,guide.md")
        assert form.uri == "demo://files/docs/guide.md"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: view.contents.kind == "ok" and view.contents.uri == form.uri, what="the read")
        await pilot.press("escape", "escape")  # the suggestions (if open), then back to the list
        assert app.focused is view.resource_list.option_list

        await highlight(pilot, view, "demo://search{?q,lang,limit}")
        await pilot.press("enter")
        await wait_for(pilot, lambda: form.template_uri == "demo://search{?q,lang,limit}", what="the search form")
        fields = list(form.query(CompletionInput))
        fields[1].value = "python"
        fields[2].value = "999"
        await pilot.pause()
        assert form.uri == "demo://search?lang=python&limit=999"
        fields[2].focus()
        await pilot.press("enter")
        # the demo refuses limit 999: the JSON-RPC error is shown in the pane, not raised
        await wait_for(pilot, lambda: view.contents.kind == "rpc-error", what="the error")
        assert "-32602" in view.contents.status_text and "demo://search" in view.contents.status_text


@pytest.mark.anyio
async def test_subscribe_updates_stale_note_and_read_again():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        await read_by_key(pilot, view, "demo://clock")
        session = view.session
        assert not view.contents.stale.has_class("-stale")
        await pilot.press("s")
        await wait_for(pilot, lambda: "demo://clock" in session.subscribed, what="the subscription")
        assert sent(app, "resources/subscribe")[-1] == {"uri": "demo://clock"}
        # updates arrive every second: the count in the list and the stale note on the shown resource
        await wait_for(pilot, lambda: view.resource_list.updates.get("demo://clock", 0) >= 2, what="two updates")
        prompt = row(view, "demo://clock")
        assert "●" in prompt and "↻" in prompt
        summary = view.resource_list.query_one("#resource-summary")
        last = str(summary.render()).splitlines()[-1]  # the URI and the time, on one line that fits
        assert re.fullmatch(r"↻ demo://clock updated at \d\d:\d\d:\d\d\.\d{3}", last), last
        assert len(last) <= summary.size.width
        assert view.contents.stale.has_class("-stale")
        assert "since read" in str(view.contents.stale.render()) and "press r" in str(view.contents.stale.render())
        reads = len(outgoing(app, "resources/read"))
        await pilot.press("r")
        await wait_for(
            pilot,
            lambda: len(outgoing(app, "resources/read")) == reads + 1 and view.contents.kind == "ok",
            what="the second read",
        )
        assert view.read_at_updates >= 2
        await pilot.press("s")
        await wait_for(pilot, lambda: "demo://clock" not in session.subscribed, what="the unsubscription")
        assert sent(app, "resources/unsubscribe")[-1] == {"uri": "demo://clock"}
        await wait_for(pilot, lambda: "●" not in row(view, "demo://clock"), what="the mark to go")


@pytest.mark.anyio
async def test_the_hint_says_unsubscribe_on_a_subscribed_resource():
    """The hint line said "s: subscribe" on a resource already subscribed (where s unsubscribes)."""
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)

        def hint() -> str:
            return str(view.query_one("#resources-hint").render())

        await highlight(pilot, view, "demo://readme")
        assert "s: subscribe" in hint()
        await pilot.press("s")
        await wait_for(pilot, lambda: "demo://readme" in view.session.subscribed, what="the subscription")
        await wait_for(pilot, lambda: "s: unsubscribe" in hint(), what="s: unsubscribe on the list")
        await highlight(pilot, view, "demo://config.json")  # another resource: s subscribes to it
        await wait_for(pilot, lambda: "s: subscribe" in hint(), what="s: subscribe on another resource")
        await read_by_key(pilot, view, "demo://readme")
        view.contents.focus()
        await wait_for(pilot, lambda: hint().startswith("s: unsubscribe · r: read again"), what="the contents' keys")
        await pilot.press("s")
        await wait_for(pilot, lambda: "demo://readme" not in view.session.subscribed, what="the unsubscription")
        await wait_for(pilot, lambda: hint().startswith("s: subscribe · r: read again"), what="s: subscribe again")


@pytest.mark.anyio
async def test_not_found_is_shown_in_the_pane():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        view.open_resource("demo://nothing-here", None)
        await wait_for(pilot, lambda: view.contents.kind == "rpc-error", what="the error")
        assert "-32002" in view.contents.status_text and "demo://nothing-here" in view.contents.status_text


@pytest.mark.anyio
async def test_resource_link_and_embedded_resource_in_a_result_open_in_the_view():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "all_content_types")
        app.main.composer.focus()
        await pilot.press("ctrl+s")
        result = app.main.result_panel
        await wait_for(pilot, lambda: len(result.query(ResourceBlock)) == 2, what="the result's resource blocks")
        link, embedded = result.query(ResourceBlock)
        assert link.uri == "demo://readme" and link.contents is None
        link.focus()
        await pilot.press("v")
        await wait_for(pilot, lambda: app.main.current_view == "resources", what="the Resources view")
        view = app.main.query_one("#view-resources", ResourcesView)
        await wait_for(
            pilot, lambda: view.contents.kind == "ok" and view.contents.uri == "demo://readme", what="the read"
        )
        assert sent(app, "resources/read")[-1] == {"uri": "demo://readme"}
        reads = len(outgoing(app, "resources/read"))

        await pilot.press("1")
        embedded.focus()
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: app.main.current_view == "resources" and view.contents.uri == "demo://config.json",
            what="the embedded resource",
        )
        assert "embedded in a tool result" in view.contents.status_text
        assert '"source": "all_content_types"' in body_text(view)
        assert len(outgoing(app, "resources/read")) == reads  # shown as it came, not read
        await pilot.press("r")  # r reads it from the server
        await wait_for(pilot, lambda: len(outgoing(app, "resources/read")) == reads + 1, what="the read")

        # the embedded PNG blob: v in its media block
        await pilot.press("1")
        blob = [m for m in result.query(MediaBlock) if m.info.type == "resource"][0]
        blob.focus()
        await pilot.press("v")
        await wait_for(
            pilot,
            lambda: app.main.current_view == "resources" and view.contents.uri == "demo://logo.png",
            what="the embedded blob",
        )
        assert "32×32 px" in body_text(view)


@pytest.mark.anyio
async def test_json_contents_fold_as_a_tree():
    from textual.widgets import Tree

    from mcp_inspector.tui.widgets.views.resources.contents import JsonBlock

    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        await read_by_key(pilot, view, "demo://readme")
        assert not view.contents.query(JsonBlock)
        await read_by_key(pilot, view, "demo://config.json")
        block = view.contents.query_one(JsonBlock)
        assert block.data["server"] == "mcp-inspector-demo"
        await pilot.press("t")
        tree = view.contents.query_one(Tree)
        assert tree.display and app.focused is tree
        labels = [str(node.label) for node in tree.root.children]
        assert any("features" in label for label in labels) and any("nested" in label for label in labels)
        nested = next(node for node in tree.root.children if "nested" in str(node.label))
        assert nested.is_expanded
        tree.move_cursor(nested)
        await pilot.press("space")  # folds it
        assert not nested.is_expanded
        await pilot.press("t")
        assert not tree.display
        assert not view.contents.tree_mode


@pytest.mark.anyio
async def test_the_palette_opens_the_view_and_keys_remap_by_binding_id():
    from mcp_inspector.tui.commands import InspectorCommands

    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        commands = {title: callback for title, callback, _ in InspectorCommands(app.screen)._commands()}
        await commands["views: Resources"]()
        await wait_for(pilot, lambda: app.main.current_view == "resources", what="the Resources view")
        view = app.main.query_one("#view-resources", ResourcesView)
        await wait_for(pilot, lambda: "resources" in view.resource_list.listed, what="the list")
        app.set_keymap({"resources.subscribe": "u", "resources.reread": "ctrl+e"})
        await highlight(pilot, view, "demo://readme")
        await pilot.press("s")
        await pilot.press("u")
        await wait_for(pilot, lambda: "demo://readme" in view.session.subscribed, what="the subscription")
        assert len(sent(app, "resources/subscribe")) == 1  # s is no longer the key: u's is the only one sent
        await pilot.press("ctrl+e")  # nothing shown yet: reads the highlighted resource
        await wait_for(
            pilot, lambda: view.contents.uri == "demo://readme" and view.contents.kind == "ok", what="the read"
        )


@pytest.mark.anyio
async def test_reconnect_lists_again_as_a_new_baseline():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        first = view.session
        await highlight(pilot, view, "demo://readme")
        await pilot.press("s")
        await wait_for(pilot, lambda: "demo://readme" in first.subscribed, what="the subscription")
        lists_before = len(sent(app, "resources/list"))
        await pilot.press("ctrl+r")
        await wait_for(
            pilot, lambda: view.session is not None and view.session is not first, timeout=20, what="the new session"
        )
        await wait_for(pilot, lambda: len(sent(app, "resources/list")) > lists_before, what="the lists again")
        await wait_for(
            pilot,
            lambda: (
                "r:demo://readme" in view.resource_list._ids  # listed again (not mid-clear)
                and "●" not in row(view, "demo://readme")
            ),
            what="the subscription mark of the old session to go",
        )
        assert view.resource_list.marks == {}  # the new session's first listing is a baseline
        assert not view.query_one("#resources-note").has_class("-shown")
        await read_by_key(pilot, view, "demo://config.json")
        assert view.contents.kind == "ok"
