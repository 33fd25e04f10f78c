"""Nested forms driven like a user: lists of objects (add, fill, reorder, remove), a oneOf
variant switch, null, free-form entries, a recursive part opened on demand, and sending.

The composer posts ``ComposerPanel.SendRequested``; the tests assert on its arguments.
"""

from __future__ import annotations

import json

import pytest
from composer_apps import ComposerApp, settle, type_into
from textual.widgets import Checkbox, Input, Select

from mcp_inspector.core.schema.validation import validate
from mcp_inspector.tui.widgets.composer import ComposerPanel, ConfirmSendScreen
from mcp_inspector.tui.widgets.form.fields import EntriesField, FormBody, ListField, NestedField, VariantField
from mcp_inspector.tui.widgets.form.fields.composites import ItemRow
from mcp_inspector.tui.widgets.form.schema_form import SchemaForm

pytestmark = pytest.mark.anyio

TRIP = {
    "name": "plan_trip",
    "title": "Plan a trip",
    "inputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "Traveller": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "age": {"type": "integer", "minimum": 0},
                },
                "required": ["name"],
            },
        },
        "properties": {
            "travellers": {"type": "array", "items": {"$ref": "#/$defs/Traveller"}, "minItems": 1},
            "transport": {
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
                        "properties": {"kind": {"const": "car"}, "seats": {"type": "integer", "minimum": 1}},
                        "required": ["kind", "seats"],
                    },
                ]
            },
            "note": {"type": ["string", "null"], "maxLength": 50},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["travellers", "transport"],
    },
}

TREE = {
    "name": "tree",
    "inputSchema": {
        "type": "object",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"label": {"type": "string"}, "parent": {"$ref": "#/$defs/Node"}},
                "required": ["label"],
            }
        },
        "properties": {"node": {"$ref": "#/$defs/Node"}},
        "required": ["node"],
    },
}


def rows(field: ListField) -> list[ItemRow]:
    return [row for row in field.query(ItemRow) if row.owner is field]


async def test_fill_a_list_of_objects_switch_a_variant_and_send(tmp_path):
    app = ComposerApp(tmp_path / "drafts.json", TRIP)
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        form = app.query_one(SchemaForm)
        # required parts start usable: one traveller (minItems 1), the first transport with its const
        assert composer.get_arguments() == {"travellers": [{}], "transport": {"kind": "train"}}
        travellers = form.editors["$.travellers"]
        assert isinstance(travellers, ListField) and len(rows(travellers)) == 1

        await type_into(pilot, rows(travellers)[0].body.editors["$.name"], "Ada")
        await pilot.click(travellers.query_one(".list-add-item"))
        await settle(pilot, app)
        second = rows(travellers)[1]
        assert app.focused is second.body.editors["$.name"]  # the new item is open and focused
        await pilot.press(*"Bo")
        await type_into(pilot, second.body.editors["$.age"], "7")
        await settle(pilot, app)
        assert composer.get_arguments()["travellers"] == [{"name": "Ada"}, {"name": "Bo", "age": 7}]

        # reorder with the keyboard on the item's header, then remove the first one
        rows(travellers)[1].header.focus()
        await pilot.press("ctrl+up")
        await settle(pilot, app)
        assert composer.get_arguments()["travellers"] == [{"name": "Bo", "age": 7}, {"name": "Ada"}]
        await rows(travellers)[1].header.action_remove()
        await settle(pilot, app)
        assert composer.get_arguments()["travellers"] == [{"name": "Bo", "age": 7}]

        # switch the variant: the discriminator follows, the new alternative's fields appear
        transport = form.editors["$.transport"]
        assert isinstance(transport, VariantField)
        transport.query_one(Select).focus()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("down", "enter")
        await settle(pilot, app)
        assert transport.value["choice"] == 1
        await type_into(pilot, transport.body.editors["$.seats"], "4")

        # null, explicitly
        note_null = form.body._null_boxes["$.note"]
        assert isinstance(note_null, Checkbox)
        await pilot.click(note_null)
        await settle(pilot, app)
        assert form.editors["$.note"].disabled

        # a free-form entry
        labels = form.query_one(EntriesField)
        await pilot.click(labels.query_one(".entries-add"))
        await settle(pilot, app)
        await pilot.press(*"team")
        value_input = labels.query(".entry").first().query_one(FormBody).query_one(Input)
        await type_into(pilot, value_input, "blue")
        await settle(pilot, app)

        expected = {
            "travellers": [{"name": "Bo", "age": 7}],
            "transport": {"kind": "car", "seats": 4},
            "note": None,
            "labels": {"team": "blue"},
        }
        assert composer.get_arguments() == expected
        assert json.loads(composer.json_editor.text) == expected  # the JSON view followed every edit
        assert validate(TRIP["inputSchema"], expected) == []
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        assert [(m.tool_name, m.arguments, m.issues) for m in app.sent] == [("plan_trip", expected, [])]


async def test_json_edits_rebuild_items_and_pick_the_variant(tmp_path):
    app = ComposerApp(tmp_path / "drafts.json", TRIP)
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        form = app.query_one(SchemaForm)
        edited = {
            "travellers": [{"name": f"T{i}", "age": i} for i in range(6)],
            "transport": {"kind": "car", "seats": 2},
            "labels": {"a": "1"},
            "extra": {"kept": True},
        }
        composer.json_editor.text = json.dumps(edited)
        await settle(pilot, app)
        travellers = form.editors["$.travellers"]
        assert len(rows(travellers)) == 6 and not any(row.is_open for row in rows(travellers))  # many: folded
        assert "T5" in str(rows(travellers)[5].header.render())  # a folded item shows a summary
        assert form.editors["$.transport"].value["choice"] == 1  # the discriminator picked "Car"
        assert composer.get_arguments() == edited  # unknown keys survive JSON -> form -> JSON
        await rows(travellers)[2].toggle()
        await settle(pilot, app)
        await type_into(pilot, rows(travellers)[2].body.editors["$.name"], "x")
        await settle(pilot, app)
        assert json.loads(composer.json_editor.text)["travellers"][2] == {"name": "T2x", "age": 2}


async def test_issues_land_inside_list_items_and_variants(tmp_path):
    app = ComposerApp(tmp_path / "drafts.json", TRIP)
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        await composer.set_arguments({"travellers": [{"name": "Ada"}, {"age": -1}], "transport": {"kind": "car"}})
        await settle(pilot, app)
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        assert isinstance(app.screen, ConfirmSendScreen)
        await pilot.press("escape")
        await settle(pilot, app)
        form = app.query_one(SchemaForm)
        second = rows(form.editors["$.travellers"])[1]
        assert second.body.message_for("$.name") == "required"  # minLength 1: no hint about sending ""
        assert second.body.message_for("$.age") == "must be ≥ 0"
        transport = form.editors["$.transport"]
        assert transport.body.message_for("$.seats") == "required"  # precise: the chosen alternative's issue
        assert form.message_for("$.transport") == "does not match the chosen alternative: see below"
        assert app.sent == []


async def test_recursive_part_is_opened_on_demand(tmp_path):
    app = ComposerApp(tmp_path / "drafts.json", TREE)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        form = app.query_one(SchemaForm)
        await type_into(pilot, form.editors["$.node.label"], "leaf")
        parent = form.editors["$.node.parent"]
        assert isinstance(parent, NestedField) and parent.body is None
        await pilot.click(parent.query_one(".nested-open"))
        await settle(pilot, app)
        await type_into(pilot, parent.body.editors["$.label"], "root")
        await settle(pilot, app)
        assert composer.get_arguments() == {"node": {"label": "leaf", "parent": {"label": "root"}}}
        grand = parent.body.editors["$.parent"]
        assert isinstance(grand, NestedField) and grand.body is None  # one level at a time
        await pilot.click(parent.query_one(".nested-clear"))
        await settle(pilot, app)
        assert composer.get_arguments() == {"node": {"label": "leaf"}}


MAP_OF_OBJECTS = {
    "name": "scores",
    "inputSchema": {
        "type": "object",
        "properties": {
            "scores": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": {"value": {"type": "number"}, "note": {"type": "string"}},
                    "required": ["value"],
                },
            },
        },
    },
}


async def test_issues_inside_a_free_form_entry_land_on_that_entry(tmp_path):
    app = ComposerApp(tmp_path / "drafts.json", MAP_OF_OBJECTS)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        await composer.set_arguments({"scores": {"ada": {"note": "x"}}})
        await settle(pilot, app)
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        assert [(i.path, i.message) for i in app.screen.issues] == [("$.scores.ada", "'value' is a required property")]
        await pilot.press("escape")
        await settle(pilot, app)
        form = app.query_one(SchemaForm)
        entry = form.query_one(EntriesField).query(".entry").first()
        assert entry.query_one(".entry-name", Input).value == "ada"
        assert entry.query_one(FormBody).message_for("$.value") == "required"
        assert form.message_for("$.scores") is None  # said once, where it belongs
