"""The Resources view against @modelcontextprotocol/server-everything: read architecture.md,
fill the dynamic text template with completion, subscribe and watch updates arrive after
toggle-subscriber-updates."""

from __future__ import annotations

import pytest
from textual.widgets import Markdown

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.widgets.completion_input import CompletionInput

from app_helpers import SIZE, choose_tool, live_app, wait_for
from test_resources_view import body_text, highlight, open_view, read_by_key, sent

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
        await wait_for(pilot, lambda: form.template_uri == DYNAMIC_TEXT and form.first_field() is not None, what="the form")
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
        await wait_for(pilot, lambda: view.resource_list.updates.get(ARCHITECTURE, 0) >= 1, timeout=15, what="an update")
        await pilot.press("7")
        assert "↻" in str(view.resource_list.option_list.get_option(f"r:{ARCHITECTURE}").prompt)
        assert view.contents.stale.has_class("-stale")
        await pilot.press("r")
        await wait_for(pilot, lambda: len(sent(app, "resources/read")) == 2 and view.contents.kind == "ok", what="read again")


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
