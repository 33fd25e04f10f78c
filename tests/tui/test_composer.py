"""The composer driven like a user would: typing, picking, switching to JSON and back,
sending invalid input on purpose, and getting a draft back after a restart."""

from __future__ import annotations

import json

import pytest
from composer_apps import ComposerApp, settle, type_into
from conftest import demo_server_command, run_async
from textual.widgets import Select, SelectionList, Switch, TabbedContent

from mcp_inspector.core.config.drafts import DraftStore
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.transport.stdio import StdioTransport
from mcp_inspector.tui.pilot_steps import shown_notifications, wait_for
from mcp_inspector.tui.widgets.composer import ComposerPanel, ConfirmSendScreen
from mcp_inspector.tui.widgets.form.schema_form import ListEditor, SchemaForm

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def demo_tools() -> dict[str, dict]:
    async def fetch() -> list[dict]:
        async with McpSession(StdioTransport(demo_server_command()), timeout=10) as session:
            await session.initialize()
            return await session.list_tools()

    return {tool["name"]: tool for tool in run_async(fetch)}


def form_of(app) -> SchemaForm:
    return app.query_one(SchemaForm)


async def test_fill_a_nested_enum_and_array_form(tmp_path, demo_tools):
    app = ComposerApp(tmp_path / "drafts.json", server="demo", tool=demo_tools["create_ticket"])
    async with app.run_test(size=(100, 80)) as pilot:
        await settle(pilot, app)
        form = form_of(app)
        editors = form.editors
        # defaults are shown, and (untouched) not sent
        assert form.values["$.priority"] == "medium" and form.values["$.notify"] is True
        assert app.query_one(ComposerPanel).get_arguments() == {}

        await type_into(pilot, editors["$.title"], "ab")
        await pilot.pause()
        assert form.message_for("$.title") == "at least 3 characters (now 2)"
        await pilot.press("c")
        await pilot.pause()
        assert form.message_for("$.title") is None

        await type_into(pilot, editors["$.assignee.name"], "Ada")  # inside the nested object
        await type_into(pilot, editors["$.count"], "x")  # an integer Input refuses letters
        await pilot.press("backspace", "3")
        await pilot.pause()

        priority = editors["$.priority"]
        assert isinstance(priority, Select)
        priority.focus()
        await pilot.press("enter")  # open the overlay, move from "medium" to "high"
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()

        labels = editors["$.labels"]
        assert isinstance(labels, SelectionList)
        labels.focus()
        await pilot.press("space", "down", "down", "space")  # bug, docs
        await pilot.pause()

        tags = editors["$.tags"]
        assert isinstance(tags, ListEditor)
        await pilot.click(tags.query_one(".list-add"))
        await pilot.pause()
        await pilot.press(*"web")
        await pilot.click(tags.query_one(".list-add"))
        await pilot.pause()
        await pilot.press(*"auth")
        await pilot.pause()

        notify = editors["$.notify"]
        assert isinstance(notify, Switch)
        notify.focus()
        await pilot.press("space")
        await settle(pilot, app)

        expected = {
            "title": "abc",
            "priority": "high",
            "tags": ["web", "auth"],
            "assignee": {"name": "Ada"},
            "count": 3,
            "notify": False,
            "labels": ["bug", "docs"],
        }
        composer = app.query_one(ComposerPanel)
        assert composer.get_arguments() == expected
        assert json.loads(composer.json_editor.text) == expected  # the JSON view followed

        # removing a list item
        await pilot.click(tags.query(".list-remove").first())
        await settle(pilot, app)
        assert composer.get_arguments()["tags"] == ["auth"]

        await pilot.press("ctrl+s")
        await settle(pilot, app)
        assert [(m.tool_name, m.arguments, m.issues) for m in app.sent] == [
            ("create_ticket", {**expected, "tags": ["auth"]}, [])
        ]


async def test_json_editor_and_form_stay_in_sync(tmp_path, demo_tools):
    app = ComposerApp(tmp_path / "drafts.json", server="demo", tool=demo_tools["create_ticket"])
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        await pilot.press("ctrl+t")
        await settle(pilot, app)
        assert app.query_one(TabbedContent).active == "composer-json"
        assert app.focused is composer.json_editor

        edited = {"title": "From JSON", "assignee": {"name": "Bo", "team": "core"}, "labels": ["ui"], "unknown": [1, 2]}
        composer.json_editor.text = json.dumps(edited)
        await settle(pilot, app)
        form = form_of(app)
        assert form.values["$.title"] == "From JSON" and form.values["$.assignee.name"] == "Bo"
        assert form.values["$.labels"] == ["ui"]
        assert composer.get_arguments() == edited  # unknown keys survive JSON -> form -> JSON
        assert "unknown" in str(form.query_one("#form-extras").render())

        # invalid JSON: the error is shown and the form keeps the last valid arguments
        composer.json_editor.text = '{"title": "broken",'
        await settle(pilot, app)
        assert (
            composer.json_error is not None
            and composer.json_error.startswith("Not JSON: Expecting")
            and "line 1" in composer.json_error
        )
        assert app.query_one("#json-error").has_class("has-error")
        assert form.values["$.title"] == "From JSON"
        await pilot.press("ctrl+s")  # sending from a broken JSON view is refused, with a reason
        await settle(pilot, app)
        assert app.sent == []
        composer.json_editor.text = "[1, 2]"
        await settle(pilot, app)
        assert "must be a JSON object" in composer.json_error

        # back to the form: editing it rewrites the JSON
        composer.json_editor.text = json.dumps(edited)
        await settle(pilot, app)
        await pilot.press("ctrl+t")
        await settle(pilot, app)
        await type_into(pilot, form.editors["$.title"], "!")
        await settle(pilot, app)
        assert json.loads(composer.json_editor.text)["title"] == "From JSON!"
        assert json.loads(composer.json_editor.text)["unknown"] == [1, 2]
        assert composer.json_error is None


async def test_invalid_arguments_ask_first_and_can_still_be_sent(tmp_path, demo_tools):
    app = ComposerApp(tmp_path / "drafts.json", server="demo", tool=demo_tools["create_ticket"])
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot, app)
        form = form_of(app)
        await type_into(pilot, form.editors["$.count"], "00")  # "1" becomes "100"
        await settle(pilot, app)
        await pilot.click("#send-button")
        await settle(pilot, app)
        assert isinstance(app.screen, ConfirmSendScreen)
        assert [issue.message for issue in app.screen.issues] == ["'title' is a required property"]
        assert form.message_for("$.title") == "required"  # the issues are shown on the form too
        await pilot.press("escape")  # cancel: nothing sent
        await settle(pilot, app)
        assert not isinstance(app.screen, ConfirmSendScreen) and app.sent == []

        await pilot.press("ctrl+s")
        await settle(pilot, app)
        assert isinstance(app.screen, ConfirmSendScreen)
        await pilot.click("#confirm-send")
        await settle(pilot, app)
        assert len(app.sent) == 1
        sent = app.sent[0]
        assert sent.tool_name == "create_ticket" and sent.arguments["count"] == 100
        assert "title" not in sent.arguments
        assert [issue.message for issue in sent.issues] == ["'title' is a required property"]


async def test_draft_survives_switching_tools_and_a_restart(tmp_path, demo_tools):
    drafts = tmp_path / "drafts.json"
    app = ComposerApp(drafts, server="demo", tool=demo_tools["weather_report"])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        await type_into(pilot, form_of(app).editors["$.city"], "Lisbon")
        saved = lambda: DraftStore(drafts).get("demo", "weather_report") == {"city": "Lisbon"}  # noqa: E731 - a one-line function, kept beside its use
        await wait_for(pilot, saved, what="the draft saved (after its debounce)")
        await settle(pilot, app)

        composer.set_tool(demo_tools["echo"])
        await settle(pilot, app)
        await type_into(pilot, form_of(app).editors["$.message"], "hi")
        composer.set_tool(demo_tools["weather_report"])  # switching away saves at once
        await settle(pilot, app)
        assert composer.get_arguments() == {"city": "Lisbon"}
        assert "draft restored" in str(app.query_one("#composer-status").render())

    restarted = ComposerApp(drafts, server="demo", tool=demo_tools["echo"])
    async with restarted.run_test(size=(100, 40)) as pilot:
        await settle(pilot, restarted)
        assert restarted.query_one(ComposerPanel).get_arguments() == {"message": "hi"}
        # another server has its own drafts
        composer = restarted.query_one(ComposerPanel)
        composer.set_server("other-server")
        composer.set_tool(demo_tools["weather_report"])
        await settle(pilot, restarted)
        assert composer.get_arguments() == {}
        # reset drops the draft
        composer.set_server("demo")
        composer.set_tool(demo_tools["weather_report"])
        await settle(pilot, restarted)
        assert composer.get_arguments() == {"city": "Lisbon"}
        await pilot.click("#reset-button")
        await settle(pilot, restarted)
        assert composer.get_arguments() == {}
        assert DraftStore(drafts).get("demo", "weather_report") is None


async def test_corrupt_drafts_file_is_reported_not_fatal(tmp_path, demo_tools):
    drafts = tmp_path / "drafts.json"
    drafts.write_text("garbage", encoding="utf-8")
    app = ComposerApp(drafts, server="demo", tool=demo_tools["echo"])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        assert any("corrupt" in n.message for n in shown_notifications(app))
        assert app.query_one(ComposerPanel).get_arguments() == {}


async def test_fallback_subtree_is_a_json_field(tmp_path):
    tool = {
        "name": "refs",
        "inputSchema": {
            "type": "object",
            "$defs": {"P": {"type": "object", "properties": {"x": {"type": "integer"}}, "not": {"required": ["y"]}}},
            "properties": {"name": {"type": "string"}, "point": {"$ref": "#/$defs/P"}},
        },
    }
    app = ComposerApp(tmp_path / "drafts.json", tool, server="demo")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        form = form_of(app)
        area = form.editors["$.point"]
        assert "edited as JSON: it uses `not`" in str(form.query_one(".field-note").render())
        area.text = '{"x": "no"}'
        await settle(pilot, app)
        assert form.message_for("$.point") == "'no' is not of type 'integer'"
        area.text = '{"x": 3'
        await settle(pilot, app)
        assert form.message_for("$.point").startswith("invalid JSON")
        area.text = '{"x": 3}'
        await settle(pilot, app)
        assert app.query_one(ComposerPanel).get_arguments() == {"point": {"x": 3}}


async def test_server_text_with_markup_characters_is_shown_literally(tmp_path):
    tool = {
        "name": "m[/]x",
        "title": "[bold]T[/",
        "description": "[/] desc",
        "inputSchema": {
            "type": "object",
            "properties": {
                "o": {"type": "object", "title": "[/]obj[", "properties": {"a": {"type": "string", "title": "[/b]"}}},
                "e": {"type": "string", "enum": ["[/]", "a[b"]},
                "l": {"type": "array", "items": {"type": "string", "enum": ["[/]", "[b]"]}},
            },
        },
    }
    app = ComposerApp(tmp_path / "drafts.json", tool, server="demo")
    async with app.run_test(size=(100, 50)) as pilot:
        await settle(pilot, app)
        form = form_of(app)
        form.editors["$.e"].focus()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("down", "down", "enter")
        form.editors["$.l"].focus()
        await pilot.press("space")
        await settle(pilot, app)
        assert app.query_one(ComposerPanel).get_arguments() == {"e": "a[b", "l": ["[/]"]}
        assert "[/]obj[" in str(form.query_one("CollapsibleTitle").render())


async def test_wait_loaded_wakes_when_the_last_tools_form_is_built(tmp_path, demo_tools):
    """Enter on a tool focuses its first field after this wait (an event, no poll): a tool set
    while another's form was loading is the one waited for."""
    app = ComposerApp(tmp_path / "drafts.json", server="demo", tool=demo_tools["echo"])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        composer.set_tool(demo_tools["create_ticket"])
        composer.set_tool(demo_tools["weather_report"])
        await composer.wait_loaded()
        assert composer.tool is demo_tools["weather_report"]
        assert composer.schema_form is not None and composer.schema_form.is_attached
        assert composer.form_spec is not None and "city" in [f.name for f in composer.form_spec.fields()]
        await composer.wait_loaded()  # nothing loading: at once
