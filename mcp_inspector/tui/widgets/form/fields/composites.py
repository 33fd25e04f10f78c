"""Editors holding sub-forms: list items, variants, free-form entries and nested (recursive) fields.

Each keeps its part of the values (a list of sub-values, a ``{"choice", "values"}`` dict,
``[name, sub-values]`` pairs, a sub-values dict or None) in ``value``, mounts a
``FormBody`` per sub-form (the body that creates an editor hands it the class, so this
module does not import ``body``), and posts ``EditorChanged`` when anything in it changes.
Big lists stay cheap: items are collapsed to a one-line summary when there are many,
a collapsed item's fields are not mounted at all, and only a page of rows is shown.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Select, Static

from .....core.schema.form import (
    FieldSpec,
    default_values,
    issues_under,
    key_message,
    subform,
    switch_variant,
    variant_issues,
)
from .....core.schema.validation import Issue, json_path
from .base import EditorChanged, FormInput, summary

PAGE = 25  # rows mounted at once; "show more" mounts the next page
OPEN_UP_TO = 3  # lists this short start with their items open


class ItemHeader(Static, can_focus=True):
    """An item's one-line header: click or enter opens/closes it; ↑ ↓ ✕ move and remove it.

    One widget rather than four buttons: a list shows dozens of these.
    """

    BINDINGS = [
        Binding("enter,space", "toggle", "Open/close", show=False),
        Binding("ctrl+up", "move_up", "Move up", show=False),
        Binding("ctrl+down", "move_down", "Move down", show=False),
        Binding("delete", "remove", "Remove", show=False),
    ]
    DEFAULT_CSS = """
    ItemHeader { height: 1; width: 1fr; }
    ItemHeader:focus { background: $block-cursor-background; color: $block-cursor-foreground; }
    """

    def __init__(self, row: ItemRow) -> None:
        super().__init__(markup=False)
        self.row = row

    def render(self) -> Content:
        row = self.row
        marker = "▾" if row.is_open else "▸"
        text = "" if row.is_open else summary(row.owner.item_root, row.owner.value[row.index])
        flag = "  ⚠" if row.has_issues else ""
        return Content.from_markup(
            "[@click=toggle][b]$marker $number.[/b] [dim]$text[/dim][/]$flag  [@click=move_up] ↑ "
            "[/][@click=move_down] ↓ [/][@click=remove] ✕ [/]",
            marker=marker,
            number=str(row.index + 1),
            text=text,
            flag=flag,
        )

    async def action_toggle(self) -> None:
        await self.row.toggle()

    async def action_move_up(self) -> None:
        await self.row.owner.move(self.row.index, -1)

    async def action_move_down(self) -> None:
        await self.row.owner.move(self.row.index, 1)

    async def action_remove(self) -> None:
        await self.row.owner.remove_item(self.row.index)


class ItemRow(Vertical):
    """One list item: its header and, when open, its sub-form (not mounted while closed)."""

    DEFAULT_CSS = """
    ItemRow { height: auto; border-left: tall $primary 40%; padding-left: 1; }
    ItemRow.-open { margin-bottom: 1; }
    """

    def __init__(self, owner: ListField, index: int, is_open: bool) -> None:
        super().__init__(classes="-open" if is_open else "")
        self.owner = owner
        self.index = index
        self.is_open = is_open
        self.has_issues = False
        self.body = None
        self.header = ItemHeader(self)

    def compose(self) -> ComposeResult:
        yield self.header
        if self.is_open:
            yield self._make_body()

    def _make_body(self):
        self.body = self.owner.body_class(self.owner.item_root, self.owner.value[self.index])
        return self.body

    def refresh_title(self) -> None:
        self.header.refresh()

    async def toggle(self) -> None:
        self.is_open = not self.is_open
        self.set_class(self.is_open, "-open")
        item_id = id(self.owner.value[self.index])
        if self.is_open:
            await self.mount(self._make_body())
            self.owner.open_items.add(item_id)
            self.owner.pass_issues(self)
        elif self.body is not None:
            await self.body.remove()
            self.body = None
            self.owner.open_items.discard(item_id)
        self.refresh_title()


class ListField(Vertical):
    """A list whose items are sub-forms (objects, arrays, variants...): add, remove, reorder."""

    DEFAULT_CSS = """
    ListField { height: auto; }
    ListField .list-actions { height: auto; }
    ListField .list-actions Button { width: auto; margin-right: 1; }
    """

    def __init__(self, spec: FieldSpec, value: Any, body_class: type) -> None:
        super().__init__()
        self.body_class = body_class  # FormBody, handed in by the body that mounts this editor
        self.spec = spec
        self.item_root = subform(spec)
        self.value: list[dict[str, Any]] = value if isinstance(value, list) else []
        self.open_items: set[int] = {id(item) for item in self.value} if len(self.value) <= OPEN_UP_TO else set()
        self.shown = PAGE
        self._issues: list[Issue] = []
        self._rebuilding = asyncio.Lock()  # see _rebuild

    def compose(self) -> ComposeResult:
        yield from self._rows()
        with Horizontal(classes="list-actions"):
            yield Button("+ add item", classes="list-add-item", compact=True)
            yield Button("", classes="list-more", compact=True)

    def _rows(self) -> list[ItemRow]:
        return [ItemRow(self, i, id(item) in self.open_items) for i, item in enumerate(self.value[: self.shown])]

    def on_mount(self) -> None:
        self._refresh_more()

    def _refresh_more(self) -> None:
        more = self.query_one(".list-more", Button)
        hidden = len(self.value) - self.shown
        more.label = f"show {min(hidden, PAGE)} more ({hidden} hidden)" if hidden > 0 else ""
        more.display = hidden > 0

    async def set_value(self, value: Any) -> None:
        self.value = value if isinstance(value, list) else []
        self.open_items = {id(item) for item in self.value} if len(self.value) <= OPEN_UP_TO else set()
        await self._rebuild()

    async def _rebuild(self, focus: int | None = None) -> None:
        # one rebuild at a time: the composer's set_value (JSON typed) and this field's own buttons run in
        # two tasks, and two rebuilds interleaved each removed the old rows, then both mounted theirs
        async with self._rebuilding:
            await self.query(ItemRow).remove()
            rows = self._rows()
            if rows:
                await self.mount_all(rows, before=self.query_one(".list-actions"))
            for row in rows:
                self.pass_issues(row)
            self._refresh_more()
            if focus is not None and 0 <= focus < len(rows):
                target = rows[focus]
                inputs = target.query("Input, Select, TextArea, Switch, SelectionList")
                (inputs.first() if inputs else target.header).focus()

    def _changed(self) -> None:
        self.post_message(EditorChanged(self))

    @on(Button.Pressed, ".list-add-item")
    async def _add(self, event: Button.Pressed) -> None:
        event.stop()
        item = default_values(self.item_root, 1)
        self.value.append(item)
        self.open_items.add(id(item))
        self.shown = max(self.shown, len(self.value))
        await self._rebuild(focus=len(self.value) - 1)
        self._changed()

    @on(Button.Pressed, ".list-more")
    async def _more(self, event: Button.Pressed) -> None:
        event.stop()
        self.shown += PAGE
        await self._rebuild()

    async def move(self, index: int, delta: int) -> None:
        other = index + delta
        if not (0 <= index < len(self.value) and 0 <= other < len(self.value)):
            return
        self.value[index], self.value[other] = self.value[other], self.value[index]
        await self._rebuild()
        rows = list(self.query(ItemRow))
        if other < len(rows):
            rows[other].header.focus()
        self._changed()

    async def remove_item(self, index: int) -> None:
        if not 0 <= index < len(self.value):
            return
        self.open_items.discard(id(self.value[index]))
        del self.value[index]
        await self._rebuild()
        self._changed()

    def on_form_body_changed(self, event) -> None:
        row = event.body.parent
        if isinstance(row, ItemRow) and row.owner is self:
            event.stop()
            self._changed()

    def show_issues(self, issues: list[Issue]) -> None:
        self._issues = issues
        for row in self.query(ItemRow):
            if row.owner is self:
                self.pass_issues(row)

    def pass_issues(self, row: ItemRow) -> None:
        if row.body is not None:
            row.body.show_issues(issues_under(f"$[{row.index}]", self._issues))
        row.has_issues = any(issue.path.startswith(f"$[{row.index}]") for issue in self._issues)
        row.refresh_title()


class VariantField(Vertical):
    """``oneOf``/``anyOf``: pick an alternative, then fill its sub-form (shared fields carry over)."""

    DEFAULT_CSS = """
    VariantField { height: auto; }
    VariantField > .variant-body { height: auto; padding-left: 1; border-left: tall $accent 40%; }
    """

    def __init__(self, spec: FieldSpec, value: Any, body_class: type) -> None:
        super().__init__()
        self.body_class = body_class  # FormBody, handed in by the body that mounts this editor
        self.spec = spec
        self.value: dict[str, Any] = value if isinstance(value, dict) else {"choice": None, "values": {}}
        self.body = None
        self._rebuilding = asyncio.Lock()  # one body mount at a time (see ListField._rebuild)
        self._select = Select(
            [(Content(choice.title), index) for index, choice in enumerate(spec.choices)],
            prompt="(choose one)",
            value=self._choice_or_null(),
            compact=True,
            classes="variant-select",
        )

    def _choice_or_null(self) -> Any:
        choice = self.value.get("choice")
        return choice if isinstance(choice, int) else Select.NULL

    def compose(self) -> ComposeResult:
        yield self._select
        yield Vertical(classes="variant-body")

    async def on_mount(self) -> None:
        await self._mount_body()

    async def _mount_body(self) -> None:
        async with self._rebuilding:  # set_value (the composer's task) and a pick here interleave
            holder = self.query_one(".variant-body", Vertical)
            await holder.remove_children()
            self.body = None
            choice = self.value.get("choice")
            if isinstance(choice, int):
                self.body = self.body_class(subform(self.spec, choice), self.value.setdefault("values", {}))
                await holder.mount(self.body)

    async def set_value(self, value: Any) -> None:
        self.value = value if isinstance(value, dict) else {"choice": None, "values": {}}
        with self.prevent(Select.Changed):
            self._select.value = self._choice_or_null()
        await self._mount_body()

    @on(Select.Changed, ".variant-select")
    async def _picked(self, event: Select.Changed) -> None:
        if event.select is not self._select:
            return
        event.stop()
        choice = None if event.value is Select.NULL else int(event.value)
        if choice == self.value.get("choice"):
            return
        self.value = switch_variant(self.spec, self.value, choice)
        await self._mount_body()
        self.post_message(EditorChanged(self))

    def on_form_body_changed(self, event) -> None:
        if event.body is self.body:
            event.stop()
            self.post_message(EditorChanged(self))

    def show_issues(self, issues: list[Issue]) -> None:
        if self.body is not None:
            precise = variant_issues(self.spec, self.value)
            self.body.show_issues(precise if precise else issues)


class EntriesField(Vertical):
    """The free-form part of an object (``additionalProperties``/``patternProperties``): name → value rows."""

    DEFAULT_CSS = """
    EntriesField { height: auto; }
    EntriesField .entry { height: auto; border-left: tall $secondary 40%; padding-left: 1; margin-bottom: 1; }
    EntriesField .entry-head { height: auto; }
    EntriesField .entry-name { width: 1fr; }
    EntriesField .entry-remove { min-width: 3; width: 3; }
    EntriesField .entry-error { color: $text-error; height: auto; }
    EntriesField .entries-title { color: $text-muted; height: auto; }
    EntriesField .entries-add { width: auto; }
    """

    def __init__(self, spec: FieldSpec, value: Any, body_class: type) -> None:
        super().__init__()
        self.body_class = body_class  # FormBody, handed in by the body that mounts this editor
        self.spec = spec
        self.entry_root = subform(spec)
        self.value: list[list[Any]] = value if isinstance(value, list) else []
        self._rebuilding = asyncio.Lock()  # one rebuild at a time (see ListField._rebuild)

    def compose(self) -> ComposeResult:
        what = f"names matching {self.spec.key_pattern}" if self.spec.key_pattern else "any name"
        yield Static(f"other entries ({what}):", classes="entries-title", markup=False)
        for index in range(min(len(self.value), PAGE * 4)):
            yield self._row(index)
        yield Button("+ add entry", classes="entries-add", compact=True)

    def _row(self, index: int) -> Vertical:
        name, sub = self.value[index]
        name_input = FormInput(value=name, placeholder="name", compact=True, classes="entry-name")
        name_input.entry_index = index  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
        remove = Button("✕", classes="entry-remove", compact=True, tooltip="remove this entry")
        remove.entry_index = index  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
        error = Static(self._name_message(index) or "", classes="entry-error", markup=False)
        body = self.body_class(self.entry_root, sub)
        row = Vertical(Horizontal(name_input, remove, classes="entry-head"), error, body, classes="entry")
        row.entry_index = index  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
        return row

    def _name_message(self, index: int) -> str | None:
        name = self.value[index][0]
        if any(other[0] == name for i, other in enumerate(self.value) if i != index):
            return "this name is used twice: only the last one is sent"
        if name == "":
            return None
        message = key_message(self.spec, name)
        if message is None and name in {child.name for child in self.spec.children}:
            return "this name is a field of its own above"
        return message

    async def set_value(self, value: Any) -> None:
        self.value = value if isinstance(value, list) else []
        async with self._rebuilding:
            await self.query(".entry").remove()
            rows = [self._row(i) for i in range(min(len(self.value), PAGE * 4))]
            if rows:
                await self.mount_all(rows, before=self.query_one(".entries-add"))

    @on(Button.Pressed, ".entries-add")
    async def _add(self, event: Button.Pressed) -> None:
        event.stop()
        self.value.append(["", default_values(self.entry_root, 1)])
        async with self._rebuilding:
            row = self._row(len(self.value) - 1)
            await self.mount(row, before=self.query_one(".entries-add"))
        row.query_one(".entry-name", Input).focus()
        self.post_message(EditorChanged(self))

    @on(Button.Pressed, ".entry-remove")
    async def _remove(self, event: Button.Pressed) -> None:
        index = getattr(event.button, "entry_index", None)
        if index is None:
            return
        event.stop()
        del self.value[index]
        await self.set_value(self.value)
        self.post_message(EditorChanged(self))

    @on(Input.Changed, ".entry-name")
    def _renamed(self, event: Input.Changed) -> None:
        index = getattr(event.input, "entry_index", None)
        if index is None or index >= len(self.value):
            return
        event.stop()
        if self.value[index][0] == event.value:
            return
        self.value[index][0] = event.value
        for row in self.query(".entry"):
            i = getattr(row, "entry_index", None)
            if i is not None and i < len(self.value):
                row.query_one(".entry-error", Static).update(self._name_message(i) or "")
        self.post_message(EditorChanged(self))

    def on_form_body_changed(self, event) -> None:
        if event.body.parent is not None and event.body.parent.parent is self:
            event.stop()
            self.post_message(EditorChanged(self))

    def show_issues(self, issues: list[Issue]) -> None:
        for row in self.query(".entry"):
            index = getattr(row, "entry_index", None)
            if index is not None and index < len(self.value) and row.parent is self:
                row.query_one(self.body_class).show_issues(issues_under(json_path([self.value[index][0]]), issues))


class NestedField(Vertical):
    """A field whose schema refers back to itself (a tree): filled in only when the user opens it."""

    DEFAULT_CSS = """
    NestedField { height: auto; }
    NestedField .nested-actions { height: auto; }
    NestedField .nested-actions Button { width: auto; margin-right: 1; }
    NestedField > .nested-body { height: auto; padding-left: 1; border-left: tall $secondary 40%; }
    """

    def __init__(self, spec: FieldSpec, value: Any, body_class: type) -> None:
        super().__init__()
        self.body_class = body_class  # FormBody, handed in by the body that mounts this editor
        self.spec = spec
        self.value: dict[str, Any] | None = value if isinstance(value, dict) else None
        self.body = None
        self._rebuilding = asyncio.Lock()  # one body mount at a time (see ListField._rebuild)

    def compose(self) -> ComposeResult:
        with Horizontal(classes="nested-actions"):
            yield Button(
                f"+ fill in {self.spec.label}",
                classes="nested-open",
                compact=True,
                tooltip="this part refers back to an enclosing one: it is opened on demand",
            )
            yield Button("✕ leave out", classes="nested-clear", compact=True)
        yield Vertical(classes="nested-body")

    async def on_mount(self) -> None:
        await self._mount_body()

    async def _mount_body(self) -> None:
        async with self._rebuilding:  # set_value (the composer's task) and the buttons here interleave
            holder = self.query_one(".nested-body", Vertical)
            await holder.remove_children()
            self.body = None
            self.query_one(".nested-open").display = self.value is None
            self.query_one(".nested-clear").display = self.value is not None
            if self.value is not None:
                self.body = self.body_class(subform(self.spec), self.value)
                await holder.mount(self.body)

    async def set_value(self, value: Any) -> None:
        self.value = value if isinstance(value, dict) else None
        await self._mount_body()

    @on(Button.Pressed, ".nested-open, .nested-clear")
    async def _toggle(self, event: Button.Pressed) -> None:
        if event.button.parent is None or event.button.parent.parent is not self:
            return
        event.stop()
        self.value = default_values(subform(self.spec), 1) if event.button.has_class("nested-open") else None
        await self._mount_body()
        self.post_message(EditorChanged(self))

    def on_form_body_changed(self, event) -> None:
        if event.body is self.body:
            event.stop()
            self.post_message(EditorChanged(self))

    def show_issues(self, issues: list[Issue]) -> None:
        if self.body is not None:
            self.body.show_issues(issues)
