"""Hardening of the composer (issue 7): memory across tool switches, ``$ref`` object titles,
sending an empty string, notes for hidden values inside sub-forms, exact ``multipleOf``,
required tuples left empty."""

from __future__ import annotations

import asyncio
import gc
import json
import weakref

import pytest
from composer_apps import ComposerApp, settle
from textual.widget import Widget

from mcp_inspector.tui.widgets.composer import ComposerPanel
from mcp_inspector.tui.widgets.form.schema_form import SchemaForm

pytestmark = pytest.mark.anyio

TOOL_A = {
    "name": "create",
    "inputSchema": {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "count": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "owner": {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}}},
            "budget": {"not": {"type": "null"}},  # a JSON field (a TextArea)
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},  # entries: name inputs
        },
        "required": ["title"],
    },
}
TOOL_B = {
    "name": "search",
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "default": 10},
            "mode": {"enum": ["fast", "full"]},
        },
    },
}


def live(cls: type) -> list:
    gc.collect()
    return [obj for obj in gc.get_objects() if isinstance(obj, cls)]


async def test_switching_tools_keeps_exactly_one_form_alive(tmp_path):
    app = ComposerApp(tmp_path / "drafts.json", tool=TOOL_A)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        await composer.set_arguments({"title": "t", "labels": {"a": "x", "b": "y"}})
        # left over from other tests in this process, whatever keeps them: not this test's business
        before_forms, before_widgets = weakref.WeakSet(live(SchemaForm)), weakref.WeakSet(live(Widget))
        before_forms.discard(composer.schema_form)
        for index in range(10):  # a leak keeps one form (and its fields) per switch: 10 show it
            composer.set_tool(TOOL_B if index % 2 == 0 else TOOL_A)
            await settle(pilot, app)
        forms = [form for form in live(SchemaForm) if form not in before_forms]
        widgets = [widget for widget in live(Widget) if widget not in before_widgets]
        print(f"after 10 switches: {len(forms)} forms alive, {len(widgets)} new widgets alive")
        assert forms == [composer.schema_form]
        # nor any of their fields (Textual's text-selection signal held every removed Input and TextArea)
        assert [widget for widget in widgets if not widget.is_attached] == []
        assert composer.schema_form.spec.root.children[0].name == "title"


async def test_a_form_replaced_while_it_mounts_is_removed_only_once_mounted(tmp_path):
    """A second set_tool while the first tool's form is still mounting (e.g. the list arriving, then
    the restored tool, after an F7 switch): removing a form mid-mount pruned the parts of its Select
    before the Select's own Mount handler ran, which then failed on them (NoMatches; CI, 008efd1)."""
    app = ComposerApp(tmp_path / "drafts.json", tool=TOOL_A)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        for steps in range(40):  # every point of the mount, one scheduling step apart
            composer.set_tool(TOOL_B)  # its "mode" enum is a Select
            for _ in range(steps):
                await asyncio.sleep(0)
            composer.set_tool(TOOL_A)
            await settle(pilot, app)
            assert composer.schema_form is not None and composer.schema_form.is_attached
            assert composer.tool is TOOL_A, steps


TRIP = {
    "name": "plan_trip",
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
            "origin": {"$ref": "#/$defs/Place"},
            "dest": {"$ref": "#/$defs/Place"},
            "traveller": {"title": "Traveller", "type": "object", "properties": {"name": {"type": "string"}}},
        },
        "required": ["origin", "dest"],
    },
}


async def test_objects_reached_through_a_ref_show_their_property_name(tmp_path):
    from textual.widgets import Collapsible

    app = ComposerApp(tmp_path / "drafts.json", tool=TRIP)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        titles = [str(c._title.label) for c in app.query(Collapsible)]
        assert titles == ["origin *  Place", "dest *  Place", "traveller"]


EDIT_FILE = {
    "name": "edit_file",
    "inputSchema": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "oldText": {"type": "string"}, "newText": {"type": "string"}},
        "required": ["path", "oldText", "newText"],
    },
}


async def test_a_required_string_can_be_sent_empty_and_shows_it(tmp_path):
    from composer_apps import type_into
    from textual.widgets import Input

    from mcp_inspector.tui.widgets.composer import ConfirmSendScreen

    app = ComposerApp(tmp_path / "drafts.json", tool=EDIT_FILE)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        form = composer.schema_form
        await type_into(pilot, form.editors["$.path"], "a.txt")
        await type_into(pilot, form.editors["$.oldText"], "x")
        new_text = form.editors["$.newText"]
        assert isinstance(new_text, Input)
        assert composer.get_arguments() == {"path": "a.txt", "oldText": "x"}  # empty: left out
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmSendScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert form.message_for("$.newText") == 'required (ctrl+delete sends "")'  # how to send ""
        new_text.focus()
        await pilot.pause()
        await pilot.press("ctrl+delete")
        await pilot.pause()
        assert new_text.placeholder.startswith('""  empty string, sent') and new_text.has_class("-empty-string")
        assert form.message_for("$.newText") is None
        assert composer.get_arguments() == {"path": "a.txt", "oldText": "x", "newText": ""}
        assert json.loads(composer.json_editor.text) == {"path": "a.txt", "oldText": "x", "newText": ""}
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmSendScreen)
        assert [m.arguments for m in app.sent] == [{"path": "a.txt", "oldText": "x", "newText": ""}]
        # typing replaces the explicit "", and erasing it again leaves the field out
        await pilot.press("z", "backspace")
        await pilot.pause()
        assert composer.get_arguments() == {"path": "a.txt", "oldText": "x"} and not new_text.has_class("-empty-string")
        # "" typed in the JSON view comes back as a flagged field, not as a hidden extra
        await composer.set_arguments({"path": "", "oldText": "x", "newText": ""})
        await pilot.pause()
        assert form.editors["$.path"].has_class("-empty-string") and new_text.has_class("-empty-string")
        assert form.query_one("#form-extras").has_class("has-note") is False
        assert composer.get_arguments() == {"path": "", "oldText": "x", "newText": ""}


ORDERS = {
    "name": "place_orders",
    "inputSchema": {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}},
            },
            "ship": {
                "oneOf": [
                    {
                        "title": "Pickup",
                        "type": "object",
                        "properties": {"kind": {"const": "pickup"}, "store": {"type": "string"}},
                        "required": ["kind"],
                    },
                    {
                        "title": "Post",
                        "type": "object",
                        "properties": {"kind": {"const": "post"}, "address": {"type": "string"}},
                        "required": ["kind"],
                    },
                ]
            },
            "owner": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
    },
}


async def test_values_hidden_inside_list_items_and_variants_are_noted(tmp_path):
    app = ComposerApp(tmp_path / "drafts.json", tool=ORDERS)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        arguments = {
            "items": [{"sku": "a", "qty": 1}, {"sku": "b", "colour": "red"}],
            "ship": {"kind": "post", "address": "1 Road", "express": True},
            "owner": {"name": "Ada", "age": 36},
            "note": "hi",
        }
        await composer.set_arguments(arguments)
        await pilot.pause()
        assert composer.get_arguments() == arguments
        note = composer.schema_form.query_one("#form-extras")
        assert note.has_class("has-note")
        assert str(note.render()) == (
            "Also sent, not shown in the form (edit in the JSON view): note, items[1].colour, ship.express, owner.age"
        )


BUDGET = {
    "name": "set_budget",
    "inputSchema": {
        "type": "object",
        "properties": {"title": {"type": "string"}, "budget": {"not": {"type": "string"}}},
    },
}


async def test_json_typed_by_the_user_is_parsed_strictly(tmp_path):
    from mcp_inspector.core.schema.form import FormValueError

    app = ComposerApp(tmp_path / "drafts.json", tool=BUDGET)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        form = composer.schema_form
        await pilot.press("ctrl+t")
        for text, reason in (
            (
                '{"title": ' + "[" * 3000 + "]" * 3000 + "}",
                "nested deeper than",
            ),  # was accepted (far deeper: a RecursionError)
            ('{"title": "x", "budget": NaN}', "NaN is not a JSON value"),  # was accepted, and sent as NaN
            ('{"budget": 1e999}', "number out of range"),
        ):
            composer.json_editor.text = text
            await settle(pilot, app)
            assert composer.json_error is not None and reason.lower() in composer.json_error.lower(), reason
            assert composer.get_arguments() == {}
        # the JSON fallback field of the form: same parser, same reasons
        await form.set_values({**form.values, "$.budget": "[NaN]"})
        assert form.message_for("$.budget") == "invalid JSON: NaN is not a JSON value"
        with pytest.raises(FormValueError, match="NaN"):
            composer.get_arguments()
