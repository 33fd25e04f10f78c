"""Hardening of the composer (issue 7): memory across tool switches, ``$ref`` object titles,
sending an empty string, notes for hidden values inside sub-forms, exact ``multipleOf``,
required tuples left empty."""

from __future__ import annotations

import gc

import pytest
from textual.widget import Widget

from composer_apps import ComposerApp, settle
from mcp_inspector.tui.widgets.composer import ComposerPanel
from mcp_inspector.tui.widgets.schema_form import SchemaForm

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
        for index in range(100):
            composer.set_tool(TOOL_B if index % 2 == 0 else TOOL_A)
            await settle(pilot, app)
        forms = live(SchemaForm)
        widgets = live(Widget)
        print(f"after 100 switches: {len(forms)} forms alive, {len(widgets)} widgets alive")
        assert forms == [composer.schema_form]
        assert composer.schema_form.spec.root.children[0].name == "title"


TRIP = {
    "name": "plan_trip",
    "inputSchema": {
        "type": "object",
        "$defs": {"Place": {"title": "Place", "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
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
