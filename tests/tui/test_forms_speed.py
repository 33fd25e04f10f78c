"""Big forms stay quick: a 200-field form and a 100-item list mount without visible lag.

Only the first screenful of a big form is mounted (the rest sits in folded sections that
mount when opened), and list items past a few are folded to one-line summaries, with a
page of rows mounted at a time. The tests assert that structure (how much is mounted),
not times: times on a shared machine are noise. They print the mount time (after a
warm-up mount, since the first mount of a widget class also parses its CSS) for people.
"""

from __future__ import annotations

import time

import pytest
from textual.app import App

from mcp_inspector.core.schema.form import arguments_to_values, build_form
from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS
from mcp_inspector.tui.widgets.form.fields import ListField
from mcp_inspector.tui.widgets.form.fields.composites import PAGE, ItemRow
from mcp_inspector.tui.widgets.form.fields.sections import LazySection
from mcp_inspector.tui.widgets.form.schema_form import SchemaForm

pytestmark = pytest.mark.anyio
KINDS = [
    {"type": "string", "description": "free text"},
    {"type": "integer", "minimum": 0},
    {"type": "boolean"},
    {"type": "string", "enum": ["a", "b", "c"]},
]
WIDE = {"type": "object", "properties": {f"f{i:03}": KINDS[i % 4] for i in range(200)}, "required": ["f148"]}
ROWS = {
    "type": "object",
    "properties": {
        "rows": {
            "type": "array",
            "items": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
        }
    },
}


class Bare(App):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)


async def timed_mount(pilot, app, form: SchemaForm) -> float:
    start = time.perf_counter()
    await app.screen.mount(form)
    await pilot.pause()
    return time.perf_counter() - start


async def test_a_200_field_form_shows_at_once_and_the_rest_on_demand():
    app = Bare()
    spec = build_form(WIDE)
    async with app.run_test(size=(120, 50)) as pilot:
        warm = SchemaForm(spec)
        await timed_mount(pilot, app, warm)
        await warm.remove()
        form = SchemaForm(spec)
        elapsed = await timed_mount(pilot, app, form)
        print(f"200-field form mounted in {elapsed * 1000:.0f} ms")
        assert len(form.editors) == 20  # one screenful
        sections = list(form.query(LazySection))
        assert len(sections) == 9 and "1 required" in sections[6].title  # f148 is in fields 141-160
        sections[6].query_one("Button").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert "$.f148" in form.editors and form.editors["$.f148"].is_mounted
        form.editors["$.f148"].focus()
        await pilot.press(*"hi")
        await pilot.pause()
        assert form.get_arguments()["f148"] == "hi"


async def test_a_100_item_list_of_objects_mounts_folded_and_paged():
    app = Bare()
    spec = build_form(ROWS)
    data = {"rows": [{"a": f"row {i}", "b": i} for i in range(100)]}
    async with app.run_test(size=(120, 50)) as pilot:
        warm = SchemaForm(spec, arguments_to_values(spec, data))
        await timed_mount(pilot, app, warm)
        await warm.remove()
        form = SchemaForm(spec, arguments_to_values(spec, data))
        elapsed = await timed_mount(pilot, app, form)
        print(f"100-item list mounted in {elapsed * 1000:.0f} ms")
        field = form.query_one(ListField)
        assert len(field.query(ItemRow)) == PAGE and not any(row.is_open for row in field.query(ItemRow))
        more = field.query_one(".list-more")
        assert str(more.label) == f"show {PAGE} more ({100 - PAGE} hidden)"
        more.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert len(field.query(ItemRow)) == 2 * PAGE
        assert form.get_arguments() == data  # folded or not, every item is sent


async def test_a_20000_field_form_folds_its_sections_into_sections():
    """20,000 fields made 999 folded sections: 16 s of layout on the event loop before the form
    showed (issue 19). Past MAX_SECTIONS, a section holds sections: 20 at the top here."""
    app = Bare()
    schema = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(20_000)}}
    spec = build_form({**schema, "required": ["p12345"]})
    async with app.run_test(size=(120, 50)) as pilot:
        form = SchemaForm(spec)
        elapsed = await timed_mount(pilot, app, form)
        print(f"20,000-field form mounted in {elapsed * 1000:.0f} ms")
        assert len(form.editors) == 20
        top = list(form.query(LazySection))
        assert len(top) == 20 and top[0].title.startswith("▸ fields 21–1020: p20, p21")
        section = top[12]  # fields 12021-13020: p12345 is field 12346
        assert section.title.startswith("▸ fields 12021–13020") and "1 required" in section.title
        section.query_one("Button").focus()
        await pilot.press("enter")
        await pilot.pause()
        inner = list(section.query(LazySection))
        assert len(inner) == 50 and inner[16].title.startswith("▸ fields 12341–12360")
        assert "$.p12345" not in form.editors and not form.body.fully_mounted
        inner[16].query_one("Button").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert form.editors["$.p12345"].is_mounted
        form.editors["$.p12345"].focus()
        await pilot.press(*"hi")
        await pilot.pause()
        assert form.get_arguments() == {"p12345": "hi"}
