"""The Resources view against @modelcontextprotocol/server-everything: read architecture.md,
fill the dynamic text template with completion, subscribe and watch updates arrive after
toggle-subscriber-updates."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, choose_tool, live_app, wait_for
from test_resources_view import body_text, highlight, open_view, read_by_key, sent
from textual.widgets import Markdown

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.widgets.form.completion_input import CompletionInput

pytestmark = [pytest.mark.everything, pytest.mark.usefixtures("isolated_cwd")]

ARCHITECTURE = "demo://resource/static/document/architecture.md"
DYNAMIC_TEXT = "demo://resource/dynamic/text/{resourceId}"


def everything_app(command: list[str]):
    return live_app(ServerSpec("everything", command, source="test"))


@pytest.mark.anyio
async def test_read_architecture_and_the_dynamic_text_template_with_completion(server_everything):
    app = everything_app(server_everything)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        assert len(view.resource_list.items["resources"]) >= 7
        await read_by_key(pilot, view, ARCHITECTURE)
        assert view.contents.kind == "ok"
        assert len(view.contents.query(Markdown)) == 1

        await highlight(pilot, view, DYNAMIC_TEXT)
        await pilot.press("enter")
        form = view.template_form
        await wait_for(
            pilot, lambda: form.template_uri == DYNAMIC_TEXT and form.first_field() is not None, what="the form"
        )
        field = form.query_one(CompletionInput)
        assert app.focused is field
        await pilot.press("1")
        await wait_for(pilot, lambda: field.suggestions, what="resourceId suggestions")
        assert sent(app, "completion/complete")[-1]["ref"] == {"type": "ref/resource", "uri": DYNAMIC_TEXT}
        await pilot.press("tab")
        assert form.uri == f"demo://resource/dynamic/text/{field.value}"
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.contents.kind == "ok" and view.contents.uri == form.uri, what="the read")
        assert "Resource" in body_text(view)


@pytest.mark.anyio
async def test_subscribe_then_toggle_subscriber_updates_brings_updates(server_everything):
    app = everything_app(server_everything)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        await read_by_key(pilot, view, ARCHITECTURE)
        await pilot.press("s")
        await wait_for(pilot, lambda: ARCHITECTURE in view.session.subscribed, what="the subscription")
        assert sent(app, "resources/subscribe") == [{"uri": ARCHITECTURE}]
        await pilot.press("1")
        await choose_tool(pilot, app, "toggle-subscriber-updates")
        app.main.composer.focus()
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: view.resource_list.updates.get(ARCHITECTURE, 0) >= 1, timeout=15, what="an update"
        )
        await pilot.press("7")
        assert "↻" in str(view.resource_list.option_list.get_option(f"r:{ARCHITECTURE}").prompt)
        assert view.contents.stale.has_class("-stale")
        await pilot.press("r")
        await wait_for(
            pilot, lambda: len(sent(app, "resources/read")) == 2 and view.contents.kind == "ok", what="read again"
        )


@pytest.mark.anyio
async def test_a_longer_markdown_document_is_rendered_in_one_piece(server_everything):
    from mcp_inspector.tui.widgets.views.resources.contents import MARKDOWN_WIDGET_MAX

    app = everything_app(server_everything)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        await read_by_key(pilot, view, "demo://resource/static/document/structure.md")
        assert view.contents.kind == "ok"
        rendered = view.contents.query(".rich-markdown")
        assert len(rendered) == 1 and not view.contents.query(Markdown)
        header = view.contents.query_one(".block-header").render().plain  # "¶ #0 text/markdown · 12,324 characters"
        assert int(header.split("·")[-1].split()[0].replace(",", "")) > MARKDOWN_WIDGET_MAX


async def call(pilot, app, tool: str, arguments: dict | None = None) -> None:
    """Call a tool from the composer; wait for its result."""
    await pilot.press("1")
    await choose_tool(pilot, app, tool)
    if arguments:
        await app.main.composer.set_arguments(arguments)
    app.main.composer.focus()
    before = app.main.result_panel.status_text
    await pilot.press("ctrl+s")
    await wait_for(
        pilot,
        lambda: (
            app.main.result_panel.kind == "ok"
            and app.main.result_panel.status_text != before
            and tool in app.main.result_panel.status_text
        ),
        timeout=15,
        what=f"the result of {tool}",
    )


@pytest.mark.anyio
async def test_resource_links_and_embedded_resources_of_its_tools_open_in_the_view(server_everything):
    """get-resource-links (links), get-resource-reference (an embedded text resource) and
    gzip-file-as-resource (a link to a session resource, then an embedded blob) open in the
    Resources view: a link is read there, embedded contents are shown as they came."""
    from mcp_inspector.tui.widgets.result.links import ResourceBlock
    from mcp_inspector.tui.widgets.result.media import MediaBlock

    app = everything_app(server_everything)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, app)
        result = app.main.result_panel

        await call(pilot, app, "get-resource-links", {"count": 2})
        links = list(result.query(ResourceBlock))
        assert len(links) == 2 and all(link.contents is None for link in links)
        links[1].focus()
        await pilot.press("v")
        await wait_for(
            pilot,
            lambda: (
                app.main.current_view == "resources"
                and view.contents.kind == "ok"
                and view.contents.uri == links[1].uri
            ),
            what="the linked resource read",
        )
        assert sent(app, "resources/read")[-1] == {"uri": links[1].uri}

        await call(pilot, app, "get-resource-reference", {"resourceType": "Text", "resourceId": 3})
        embedded = [block for block in result.query(ResourceBlock) if block.contents is not None]
        assert len(embedded) == 1
        reads = len(sent(app, "resources/read"))
        embedded[0].focus()
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: app.main.current_view == "resources" and view.contents.uri == embedded[0].uri,
            what="the embedded resource",
        )
        assert "embedded in a tool result" in view.contents.status_text and "Resource 3" in body_text(view)
        assert len(sent(app, "resources/read")) == reads  # shown as it came

        data = "data:text/plain;base64,aGVsbG8gZ3ppcAo="  # "hello gzip\n"
        await call(pilot, app, "gzip-file-as-resource", {"data": data, "name": "hello.gz"})
        link = result.query_one(ResourceBlock)
        assert link.uri.endswith("hello.gz") and link.contents is None
        link.focus()
        await pilot.press("v")
        await wait_for(
            pilot,
            lambda: view.contents.uri == link.uri and view.contents.kind == "ok",
            what="the session resource read",
        )
        assert "application/gzip" in body_text(view) and "1f 8b" in body_text(view)  # gzip magic in the hex

        await call(pilot, app, "gzip-file-as-resource", {"data": data, "name": "again.gz", "outputType": "resource"})
        blob = [m for m in result.query(MediaBlock) if m.info.type == "resource"][0]
        blob.focus()
        await pilot.press("v")
        await wait_for(pilot, lambda: view.contents.uri.endswith("again.gz"), what="the embedded blob")
        assert "embedded in a tool result" in view.contents.status_text and "1f 8b" in body_text(view)
