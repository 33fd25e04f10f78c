"""Snapshot of a complex form: a list of objects (one open, one folded), a chosen variant,
an explicit null, free-form entries, a tuple, a recursive part and a JSON fallback with its
reason, with validation messages inside the sub-forms. Fixed schema, values and size."""

from __future__ import annotations

from composer_apps import ComposerApp, settle

from mcp_inspector.core.schema.validation import validate
from mcp_inspector.tui.widgets.composer import ComposerPanel
from mcp_inspector.tui.widgets.form.schema_form import SchemaForm

TOOL = {
    "name": "plan_trip",
    "title": "Plan a trip",
    "description": "Lists of objects, a oneOf, nullables, maps, tuples, recursion and one part no form can show.",
    "inputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "Traveller": {
                "type": "object",
                "title": "Traveller",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "age": {"type": "integer", "minimum": 0},
                },
                "required": ["name"],
            },
            "Stop": {"type": "object", "properties": {"city": {"type": "string"}, "next": {"$ref": "#/$defs/Stop"}}},
        },
        "properties": {
            "travellers": {
                "type": "array",
                "title": "Travellers",
                "items": {"$ref": "#/$defs/Traveller"},
                "minItems": 1,
                "maxItems": 8,
            },
            "transport": {
                "title": "Transport",
                "oneOf": [
                    {
                        "type": "object",
                        "title": "Train",
                        "properties": {"kind": {"const": "train"}, "class": {"enum": ["first", "second"]}},
                        "required": ["kind"],
                    },
                    {
                        "type": "object",
                        "title": "Car",
                        "properties": {
                            "kind": {"const": "car"},
                            "seats": {"type": "integer", "minimum": 1, "maximum": 9},
                        },
                        "required": ["kind", "seats"],
                    },
                ],
            },
            "note": {"type": ["string", "null"], "title": "Note", "maxLength": 50},
            "when": {"type": "string", "format": "date", "title": "Departure", "examples": ["2026-07-01"]},
            "start": {
                "type": "array",
                "title": "Start point",
                "prefixItems": [{"type": "number", "title": "lat"}, {"type": "number", "title": "lon"}],
                "items": False,
            },
            "labels": {
                "type": "object",
                "title": "Labels",
                "additionalProperties": {"type": "string"},
                "propertyNames": {"pattern": "^[a-z]+$"},
            },
            "route": {"$ref": "#/$defs/Stop", "title": "Route"},
            "budget": {"type": "integer", "title": "Budget", "not": {"const": 0}},
        },
        "required": ["travellers", "transport"],
    },
}

FILLED = {
    "travellers": [{"name": "Ada", "age": 36}, {"age": -2}],
    "transport": {"kind": "car"},
    "note": None,
    "when": "2026-02-30",
    "start": [48.85, 2.35],
    "labels": {"team": "blue", "Bad": "x"},
    "route": {"city": "Paris", "next": {"city": "Lyon"}},
    "budget": 300,
}


def snapshot_app(drafts_path) -> ComposerApp:
    return ComposerApp(drafts_path, TOOL, server="snapshot", draft_delay=0.5)


async def fill_form(pilot) -> None:
    await settle(pilot, pilot.app)
    composer = pilot.app.query_one(ComposerPanel)
    await composer.set_arguments(FILLED)
    await pilot.pause()
    form = pilot.app.query_one(SchemaForm)
    form.show_issues(validate(TOOL["inputSchema"], FILLED))  # as after a send attempt
    await pilot.pause()


def test_complex_form_with_sub_forms_and_messages(snap_compare, tmp_path):
    assert snap_compare(snapshot_app(tmp_path / "drafts.json"), terminal_size=(100, 100), run_before=fill_form)
