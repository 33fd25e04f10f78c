"""``ListEditor``: an editable list of primitive items (one input per item, add, remove, reorder).

By keys: enter in an item adds an item after it and moves there (enter in an empty last item drops
it and goes on to the next field), ctrl+delete removes the item the focus is in.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Input, Switch

from .....core.schema.form import FieldSpec
from ...toggles import OnOffSwitch
from .base import FormInput


class ListEditor(Vertical):
    """An editable list of primitive items: one input per item, add, remove and reorder."""

    BINDINGS = [
        Binding(
            "ctrl+delete",
            "remove_item",
            "Remove item",
            id="list.remove-item",
            show=False,
            tooltip="Form list: remove the item the focus is in",
        ),
    ]

    DEFAULT_CSS = """
    ListEditor { height: auto; }
    ListEditor .list-row { height: auto; }
    ListEditor .list-row Input { width: 1fr; }
    ListEditor .list-row Button { min-width: 3; width: 3; }
    ListEditor .list-add { width: auto; min-width: 10; }
    """

    class Changed(Message):
        def __init__(self, editor: ListEditor) -> None:
            super().__init__()
            self.editor = editor

        @property
        def control(self) -> ListEditor:
            return self.editor

    def __init__(self, item: FieldSpec, items: list[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.item = item
        self.items = list(items)
        self._rebuilding = asyncio.Lock()  # one rebuild at a time (see ListField._rebuild)

    def compose(self) -> ComposeResult:
        for index, value in enumerate(self.items):
            yield self._row(index, value)
        yield Button("+ add item", classes="list-add", compact=True)

    def _row(self, index: int, value: Any) -> Horizontal:
        if self.item.kind == "boolean":
            editor: Widget = OnOffSwitch(value=bool(value))
        else:
            kind = {"integer": "integer", "number": "number"}.get(self.item.kind, "text")
            editor = FormInput(
                value=value if isinstance(value, str) else "", type=kind, placeholder=f"item {index + 1}", compact=True
            )
        buttons = [editor]
        for label, cls, tip in (
            ("↑", "list-up", "move up"),
            ("↓", "list-down", "move down"),
            ("✕", "list-remove", "remove this item"),
        ):
            button = Button(label, classes=cls, compact=True, tooltip=tip)
            button.item_index = index  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
            buttons.append(button)
        editor.item_index = index  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
        return Horizontal(*buttons, classes="list-row")

    async def set_items(self, items: list[Any]) -> None:
        self.items = list(items)
        await self._rebuild()

    async def _rebuild(self, focus_index: int | None = None) -> None:
        async with self._rebuilding:  # set_items (the composer's task) and this editor's buttons interleave
            await self.query(".list-row").remove()
            rows = [self._row(i, v) for i, v in enumerate(self.items)]
            if rows:
                await self.mount_all(rows, before=self.query_one(".list-add"))
            if focus_index is not None and 0 <= focus_index < len(rows):
                rows[focus_index].children[0].focus()

    @on(Button.Pressed, ".list-add")
    async def _add(self, event: Button.Pressed) -> None:
        event.stop()
        self.items.append(False if self.item.kind == "boolean" else "")
        await self._rebuild(focus_index=len(self.items) - 1)
        self.post_message(self.Changed(self))

    @on(Button.Pressed, ".list-remove, .list-up, .list-down")
    async def _row_button(self, event: Button.Pressed) -> None:
        event.stop()
        index = getattr(event.button, "item_index", None)
        if index is None or index >= len(self.items):
            return
        if event.button.has_class("list-remove"):
            del self.items[index]
            focus = None
        else:
            other = index - 1 if event.button.has_class("list-up") else index + 1
            if not 0 <= other < len(self.items):
                return
            self.items[index], self.items[other] = self.items[other], self.items[index]
            focus = other
        await self._rebuild(focus_index=focus)
        self.post_message(self.Changed(self))

    def _focused_index(self) -> int | None:
        focused = self.app.focused
        for node in focused.ancestors_with_self if focused is not None else []:
            if node is self:
                return None
            index = getattr(node, "item_index", None)
            if index is not None and node.parent is not None and node.parent.parent is self:
                return index
        return None

    async def action_remove_item(self) -> None:
        index = self._focused_index()
        if index is None or index >= len(self.items):
            return
        del self.items[index]
        if self.items:
            await self._rebuild(focus_index=min(index, len(self.items) - 1))
        else:
            await self._rebuild()
            self.query_one(".list-add", Button).focus()
        self.post_message(self.Changed(self))

    @on(Input.Submitted)
    async def _entered(self, event: Input.Submitted) -> None:
        """Enter in an item: a new item after it (an empty last item: dropped, on to the next field)."""
        index = getattr(event.input, "item_index", None)
        if index is None or event.input.parent is None or event.input.parent.parent is not self:
            return
        event.stop()
        if index >= len(self.items):
            return
        if event.value == "" and index == len(self.items) - 1:
            del self.items[index]
            await self._rebuild()
            chain = self.screen.focus_chain
            add = self.query_one(".list-add", Button)
            after = chain.index(add) + 1 if add in chain else len(chain)
            (chain[after] if after < len(chain) else add).focus()
            self.post_message(self.Changed(self))
            return
        self.items.insert(index + 1, "")
        await self._rebuild(focus_index=index + 1)
        self.post_message(self.Changed(self))

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        index = getattr(event.input, "item_index", None)
        if index is None or event.input.parent is None or event.input.parent.parent is not self:
            return
        event.stop()
        if index < len(self.items) and self.items[index] != event.value:
            self.items[index] = event.value
            self.post_message(self.Changed(self))

    @on(Switch.Changed)
    def _switched(self, event: Switch.Changed) -> None:
        index = getattr(event.switch, "item_index", None)
        if index is None or event.switch.parent is None or event.switch.parent.parent is not self:
            return
        event.stop()
        if index < len(self.items) and self.items[index] != event.value:
            self.items[index] = event.value
            self.post_message(self.Changed(self))
