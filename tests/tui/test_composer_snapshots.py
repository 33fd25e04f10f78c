"""Snapshots of the composer with a complex form (fixed schema, fixed values: deterministic)."""

from __future__ import annotations

from composer_apps import ComposerApp, settle

from mcp_inspector.core.schema.validation import validate
from mcp_inspector.tui.widgets.composer import ComposerPanel
from mcp_inspector.tui.widgets.form.schema_form import SchemaForm

# The demo's create_ticket input schema, frozen here so demo edits do not churn the
# snapshots, plus a $ref property to show a JSON fallback subtree.
TICKET_TOOL = {
    "name": "create_ticket",
    "title": "Create a ticket",
    "description": "Files a (pretend) ticket: enums, defaults, arrays, a nested object, formats and ranges.",
    "inputSchema": {
        "type": "object",
        "$defs": {"Link": {"type": "object", "properties": {"url": {"type": "string"}}}},
        "properties": {
            "title": {
                "type": "string",
                "title": "Title",
                "description": "One-line summary.",
                "minLength": 3,
                "maxLength": 80,
            },
            "priority": {
                "type": "string",
                "title": "Priority",
                "enum": ["low", "medium", "high", "urgent"],
                "default": "medium",
            },
            "tags": {"type": "array", "title": "Tags", "items": {"type": "string"}, "uniqueItems": True},
            "assignee": {
                "type": "object",
                "title": "Assignee",
                "properties": {
                    "name": {"type": "string", "title": "Name"},
                    "email": {"type": "string", "title": "Email", "format": "email"},
                },
                "required": ["name"],
            },
            "count": {"type": "integer", "title": "How many copies", "default": 1, "minimum": 1, "maximum": 100},
            "notify": {"type": "boolean", "title": "Notify watchers", "default": True},
            "labels": {
                "type": "array",
                "title": "Labels",
                "items": {"type": "string", "enum": ["bug", "feature", "docs"]},
                "uniqueItems": True,
            },
            "link": {"$ref": "#/$defs/Link", "title": "Related link"},
        },
        "required": ["title"],
    },
}

FILLED = {
    "title": "ab",
    "tags": ["web", "auth"],
    "assignee": {"name": "Ada", "email": "ada@"},
    "count": 500,
    "labels": ["bug", "docs"],
    "link": {"url": "https://example.com"},
}


def snapshot_app(drafts_path) -> ComposerApp:
    return ComposerApp(drafts_path, TICKET_TOOL, server="snapshot", draft_delay=0.5)


async def fill_form(pilot) -> None:
    await settle(pilot, pilot.app)
    composer = pilot.app.query_one(ComposerPanel)
    await composer.set_arguments(FILLED)
    form = pilot.app.query_one(SchemaForm)
    form.show_issues(validate(TICKET_TOOL["inputSchema"], FILLED))  # as after a send attempt
    await pilot.pause()


def test_composer_form_with_values_and_messages(snap_compare, tmp_path):
    assert snap_compare(snapshot_app(tmp_path / "drafts.json"), terminal_size=(100, 60), run_before=fill_form)


def test_composer_json_view_with_a_parse_error(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await fill_form(pilot)
        await pilot.press("ctrl+t")
        await pilot.pause()
        composer = pilot.app.query_one(ComposerPanel)
        composer.json_editor.text = '{\n  "title": "Broken",\n  "count": 3,\n}'
        composer.json_editor.move_cursor((0, 0))
        await pilot.pause()
        pilot.app.set_focus(None)
        await pilot.pause()

    assert snap_compare(snapshot_app(tmp_path / "drafts.json"), terminal_size=(100, 30), run_before=run_before)


# origin and dest reach one $ref model; newText is sent as "" on purpose; path is left out (required).
EDIT_TRIP_TOOL = {
    "name": "edit_trip",
    "inputSchema": {
        "type": "object",
        "$defs": {
            "Place": {
                "title": "Place",
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            }
        },
        "properties": {
            "path": {"type": "string"},
            "newText": {"type": "string"},
            "origin": {"$ref": "#/$defs/Place"},
            "dest": {"$ref": "#/$defs/Place"},
        },
        "required": ["path", "newText", "origin"],
    },
}
EDIT_TRIP_ARGS = {"newText": "", "origin": {"city": "Oslo"}}


async def fill_edit_trip(pilot) -> None:
    await settle(pilot, pilot.app)
    await pilot.app.query_one(ComposerPanel).set_arguments(EDIT_TRIP_ARGS)
    pilot.app.query_one(SchemaForm).show_issues(validate(EDIT_TRIP_TOOL["inputSchema"], EDIT_TRIP_ARGS))
    await pilot.pause()


def test_empty_string_and_ref_titles_at_80x24(snap_compare, tmp_path):
    app = ComposerApp(tmp_path / "drafts.json", EDIT_TRIP_TOOL, server="snapshot", draft_delay=0.5)
    assert snap_compare(app, terminal_size=(80, 24), run_before=fill_edit_trip)


def test_empty_string_and_ref_titles_at_120x40(snap_compare, tmp_path):
    app = ComposerApp(tmp_path / "drafts.json", EDIT_TRIP_TOOL, server="snapshot", draft_delay=0.5)
    assert snap_compare(app, terminal_size=(120, 40), run_before=fill_edit_trip)
