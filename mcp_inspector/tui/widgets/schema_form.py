"""Textual widgets for a ``FormSpec``: one editor per field, messages as the user types.

The form's *values* dict (see ``core.schema_form``) is the source of truth; the
widgets only mirror it. Widget events update the values, and ``set_arguments``
updates the values first and then the widgets, so a late ``Changed`` event from
a programmatic update finds nothing new and is ignored (no echo loops).
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.markup import escape
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Collapsible, Input, Select, SelectionList, Static, Switch, TextArea

from ...core.schema_form import (
    FieldSpec,
    FormSpec,
    FormValueError,
    arguments_to_values,
    default_values,
    empty_value,
    issues_by_field,
    validate_field,
    values_to_arguments,
)
from ...core.validation import Issue
from .json_text import json_code_editor

UNSET_PROMPT = "(not set)"


def field_label(spec: FieldSpec) -> Text:
    """``Title *  name`` — the title, a required marker and the property name when they differ."""
    text = Text(spec.label, style="bold")
    if spec.required:
        text.append(" *", style="bold red")
    if spec.title and spec.name and spec.title != spec.name:
        text.append(f"  {spec.name}", style="dim")
    hint = _type_hint(spec)
    if hint:
        text.append(f"  {hint}", style="dim italic")
    return text


def _type_hint(spec: FieldSpec) -> str:
    c = spec.constraints
    parts = [spec.kind if spec.kind not in ("object", "enum") else ""]
    if spec.kind == "array" and spec.item is not None:
        parts = [f"list of {spec.item.kind}"]
    if "format" in c:
        parts.append(str(c["format"]))
    low = c.get("minimum", c.get("exclusiveMinimum"))
    high = c.get("maximum", c.get("exclusiveMaximum"))
    if low is not None or high is not None:
        parts.append(f"{'' if low is None else low}..{'' if high is None else high}")
    if spec.nullable:
        parts.append("nullable")
    return " · ".join(p for p in parts if p)


class ListEditor(Vertical):
    """An editable list of primitive items: one input per item, add and remove buttons."""

    DEFAULT_CSS = """
    ListEditor { height: auto; }
    ListEditor .list-row { height: auto; }
    ListEditor .list-row Input { width: 1fr; }
    ListEditor .list-row Button { min-width: 5; width: 5; }
    ListEditor .list-add { width: auto; min-width: 10; }
    """

    class Changed(Message):
        def __init__(self, editor: "ListEditor") -> None:
            super().__init__()
            self.editor = editor

        @property
        def control(self) -> "ListEditor":
            return self.editor

    def __init__(self, item: FieldSpec, items: list[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.item = item
        self.items = list(items)

    def compose(self) -> ComposeResult:
        for index, value in enumerate(self.items):
            yield self._row(index, value)
        yield Button("+ add item", classes="list-add", compact=True)

    def _row(self, index: int, value: Any) -> Horizontal:
        if self.item.kind == "boolean":
            editor: Widget = Switch(value=bool(value))
        else:
            kind = {"integer": "integer", "number": "number"}.get(self.item.kind, "text")
            editor = Input(value=value if isinstance(value, str) else "", type=kind, placeholder=f"item {index + 1}", compact=True)
        editor.item_index = index  # type: ignore[attr-defined]
        remove = Button("✕", classes="list-remove", compact=True, tooltip="remove this item")
        remove.item_index = index  # type: ignore[attr-defined]
        return Horizontal(editor, remove, classes="list-row")

    async def set_items(self, items: list[Any]) -> None:
        self.items = list(items)
        await self._rebuild()

    async def _rebuild(self, focus_index: int | None = None) -> None:
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

    @on(Button.Pressed, ".list-remove")
    async def _remove(self, event: Button.Pressed) -> None:
        event.stop()
        index = getattr(event.button, "item_index", None)
        if index is not None and index < len(self.items):
            del self.items[index]
            await self._rebuild()
            self.post_message(self.Changed(self))

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        index = getattr(event.input, "item_index", None)
        if index is not None and index < len(self.items) and self.items[index] != event.value:
            self.items[index] = event.value
            self.post_message(self.Changed(self))

    @on(Switch.Changed)
    def _switched(self, event: Switch.Changed) -> None:
        event.stop()
        index = getattr(event.switch, "item_index", None)
        if index is not None and index < len(self.items) and self.items[index] != event.value:
            self.items[index] = event.value
            self.post_message(self.Changed(self))


class SchemaForm(VerticalScroll):
    """A form for one tool's inputSchema. ``get_arguments()`` / ``set_arguments(args)``."""

    DEFAULT_CSS = """
    SchemaForm { height: 1fr; padding: 0 1; }
    SchemaForm .field { height: auto; margin-bottom: 1; }
    SchemaForm .field-label { height: auto; }
    SchemaForm .field-description { color: $text-muted; height: auto; }
    SchemaForm .field-error { color: $text-error; height: auto; display: none; }
    SchemaForm .field-error.has-error { display: block; }
    SchemaForm .field-note { color: $text-warning; height: auto; }
    SchemaForm .form-note { color: $text-warning; height: auto; display: none; }
    SchemaForm .form-note.has-note { display: block; }
    SchemaForm .form-empty { color: $text-muted; }
    SchemaForm Collapsible { height: auto; padding-left: 1; }
    SchemaForm .json-field { height: auto; min-height: 4; max-height: 12; }
    SchemaForm Select { width: 1fr; }
    SchemaForm SelectionList { height: auto; max-height: 10; }
    SchemaForm Switch { width: auto; }
    """

    class Changed(Message):
        """The user changed a value (not posted for ``set_arguments``)."""

        def __init__(self, form: "SchemaForm", key: str) -> None:
            super().__init__()
            self.form = form
            self.key = key

        @property
        def control(self) -> "SchemaForm":
            return self.form

    def __init__(self, form: FormSpec, values: dict[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = form
        self.values: dict[str, Any] = dict(values) if values is not None else default_values(form)
        self._specs = {spec.key: spec for spec in form.fields()}
        self._editors: dict[str, Widget] = {}
        self._errors: dict[str, Static] = {}
        self._issues: dict[str, list[str]] = {}  # whole-form issues, until the field is edited
        self._touched: set[str] = set()  # fields edited since the form was filled

    # -- public API ------------------------------------------------------
    def get_values(self) -> dict[str, Any]:
        return dict(self.values)

    def get_arguments(self) -> dict[str, Any]:
        """The arguments to send; raises FormValueError if a JSON field does not parse."""
        return values_to_arguments(self.spec, self.values)

    async def set_arguments(self, arguments: dict[str, Any]) -> None:
        """Show these arguments (anything the form cannot show is kept and sent back as is)."""
        await self.set_values(arguments_to_values(self.spec, arguments))

    async def set_values(self, values: dict[str, Any]) -> None:
        self.values = dict(values)
        self._issues.clear()
        self._touched.clear()
        if self.is_mounted:
            with self.prevent(Input.Changed, Switch.Changed, Select.Changed, SelectionList.SelectedChanged, TextArea.Changed, ListEditor.Changed):
                for key, editor in self._editors.items():
                    await self._show_value(self._specs[key], editor, self.values.get(key))
            self._refresh_messages()

    def show_issues(self, issues: Iterable[Issue]) -> None:
        """Put whole-schema validation issues next to their fields."""
        self._issues = issues_by_field(self.spec, list(issues))
        self._refresh_messages()

    def message_for(self, key: str) -> str | None:
        """The message shown under a field right now (None when it is fine)."""
        spec = self._specs.get(key)
        if spec is None:
            return None
        own = validate_field(spec, self.values.get(key)) if spec.kind != "object" else None
        if own == "required" and key not in self._touched:
            own = None  # do not nag about fields the user has not got to yet
        if own:
            return own  # the field's own wording; the schema's says the same thing less kindly
        issues = self._issues.get(key, [])
        return "; ".join(issues) if issues else None

    # -- building --------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static("", classes="form-note", id="form-extras")
        root = self.spec.root
        if root.kind == "object":
            if not root.children:
                yield Static("This tool declares no arguments. Anything else can be sent from the JSON view.", classes="form-empty")
            for child in root.children:
                yield from self._field(child)
            yield self._error_label(root)
        else:
            yield from self._field(root)

    def _field(self, spec: FieldSpec) -> Iterable[Widget]:
        if spec.kind == "object":
            parts: list[Widget] = []
            if spec.description:
                parts.append(Static(spec.description, classes="field-description", markup=False))
            if not spec.required:
                parts.append(Static("optional: sent only when something in it is filled in", classes="field-description"))
            for child in spec.children:
                parts.extend(self._field(child))
            parts.append(self._error_label(spec))
            title = escape(spec.label) + (" *" if spec.required else "")
            yield Collapsible(*parts, title=title, collapsed=False, classes="field object-field")
            return
        parts = [Static(field_label(spec), classes="field-label")]
        if spec.description:
            parts.append(Static(spec.description, classes="field-description", markup=False))
        if spec.kind == "json" and spec.note:
            parts.append(Static(f"edited as JSON: {spec.note}", classes="field-note", markup=False))
        editor = self._editor(spec, self.values.get(spec.key, empty_value(spec)))
        editor.field_key = spec.key  # type: ignore[attr-defined]
        self._editors[spec.key] = editor
        parts.append(editor)
        parts.append(self._error_label(spec))
        yield Vertical(*parts, classes=f"field {spec.kind}-field")

    def _error_label(self, spec: FieldSpec) -> Static:
        label = Static("", classes="field-error", markup=False)
        self._errors[spec.key] = label
        return label

    def _editor(self, spec: FieldSpec, value: Any) -> Widget:
        if spec.kind in ("string", "number", "integer"):
            kind = {"string": "text"}.get(spec.kind, spec.kind)
            placeholder = str(spec.constraints.get("format") or spec.kind)
            return Input(value=value if isinstance(value, str) else "", type=kind, placeholder=placeholder, compact=True)
        if spec.kind == "boolean":
            if spec.required or spec.has_default:
                return Switch(value=bool(value))
            return Select([("true", True), ("false", False)], prompt=UNSET_PROMPT, value=value if isinstance(value, bool) else Select.NULL, compact=True)
        if spec.kind == "enum":
            options = [(Content(option.label), index) for index, option in enumerate(spec.options)]
            return Select(options, prompt=UNSET_PROMPT, value=self._option_index(spec, value), compact=True)
        if spec.kind == "array" and spec.item is not None and spec.item.kind == "enum":
            chosen = value if isinstance(value, list) else []
            selections = [(Content(o.label), i, any(_same(o.value, v) for v in chosen)) for i, o in enumerate(spec.item.options)]
            return SelectionList(*selections, compact=True)
        if spec.kind == "array" and spec.item is not None:
            return ListEditor(spec.item, value if isinstance(value, list) else [])
        editor = json_code_editor(
            value if isinstance(value, str) else "", soft_wrap=True,
            show_line_numbers=False, tab_behavior="focus", classes="json-field",
        )
        return editor

    @staticmethod
    def _option_index(spec: FieldSpec, value: Any) -> Any:
        if value is None:
            return Select.NULL
        for index, option in enumerate(spec.options):
            if _same(option.value, value):
                return index
        return Select.NULL

    async def _show_value(self, spec: FieldSpec, editor: Widget, value: Any) -> None:
        if isinstance(editor, Input):
            editor.value = value if isinstance(value, str) else ""
        elif isinstance(editor, Switch):
            editor.value = bool(value)
        elif isinstance(editor, Select):
            if spec.kind == "boolean":
                editor.value = value if isinstance(value, bool) else Select.NULL
            else:
                editor.value = self._option_index(spec, value)
        elif isinstance(editor, SelectionList):
            chosen = value if isinstance(value, list) else []
            editor.deselect_all()
            assert spec.item is not None
            for index, option in enumerate(spec.item.options):
                if any(_same(option.value, v) for v in chosen):
                    editor.select(index)
        elif isinstance(editor, ListEditor):
            await editor.set_items(value if isinstance(value, list) else [])
        elif isinstance(editor, TextArea):
            text = value if isinstance(value, str) else ""
            if editor.text != text:
                editor.load_text(text)

    def on_mount(self) -> None:
        self._refresh_messages()

    # -- user edits ------------------------------------------------------
    def _changed(self, key: str | None, value: Any) -> None:
        if key is None or key not in self._specs:
            return
        if _same(self.values.get(key), value) and type(self.values.get(key)) is type(value):
            return  # an echo of set_values, not an edit
        self.values[key] = value
        self._touched.add(key)
        self._issues.pop(key, None)
        self._refresh_message(key)
        self._refresh_extras()
        self.post_message(self.Changed(self, key))

    @on(Input.Changed)
    def _on_input(self, event: Input.Changed) -> None:
        key = getattr(event.input, "field_key", None)
        if key is not None:
            event.stop()
            self._changed(key, event.value)

    @on(Switch.Changed)
    def _on_switch(self, event: Switch.Changed) -> None:
        key = getattr(event.switch, "field_key", None)
        if key is not None:
            event.stop()
            self._changed(key, event.value)

    @on(Select.Changed)
    def _on_select(self, event: Select.Changed) -> None:
        key = getattr(event.select, "field_key", None)
        if key is None:
            return
        event.stop()
        spec = self._specs[key]
        if event.value is Select.NULL or event.value is None:
            value = None
        elif spec.kind == "boolean":
            value = event.value
        else:
            value = spec.options[event.value].value  # type: ignore[index]
        self._changed(key, value)

    @on(SelectionList.SelectedChanged)
    def _on_selection(self, event: SelectionList.SelectedChanged) -> None:
        key = getattr(event.selection_list, "field_key", None)
        if key is None:
            return
        event.stop()
        spec = self._specs[key]
        assert spec.item is not None
        now = [spec.item.options[i].value for i in event.selection_list.selected]
        before = self.values.get(key) if isinstance(self.values.get(key), list) else []
        kept = [v for v in before if any(_same(v, n) for n in now)]  # keep the user's order
        added = [n for n in now if not any(_same(n, v) for v in kept)]
        self._changed(key, kept + added)

    @on(ListEditor.Changed)
    def _on_list(self, event: ListEditor.Changed) -> None:
        key = getattr(event.editor, "field_key", None)
        if key is not None:
            event.stop()
            self._changed(key, list(event.editor.items))

    @on(TextArea.Changed)
    def _on_text_area(self, event: TextArea.Changed) -> None:
        key = getattr(event.text_area, "field_key", None)
        if key is not None:
            event.stop()
            self._changed(key, event.text_area.text)

    # -- messages --------------------------------------------------------
    def _refresh_messages(self) -> None:
        for key in self._errors:
            self._refresh_message(key)
        self._refresh_extras()

    def _refresh_message(self, key: str) -> None:
        label = self._errors.get(key)
        if label is None:
            return
        message = self.message_for(key)
        label.update(f"⚠ {message}" if message else "")
        label.set_class(bool(message), "has-error")

    def _refresh_extras(self) -> None:
        """Say which keys are sent although the form does not show them."""
        if not self.is_mounted:
            return
        kept = []
        for spec in self.spec.fields():
            extras = self.values.get(spec.key) if spec.kind == "object" else None
            if isinstance(extras, dict):
                prefix = "" if spec.key == "$" else spec.key[2:] + "."
                kept.extend(prefix + name for name in extras)
        note = self.query_one("#form-extras", Static)
        if kept:
            note.update(Text(f"Also sent, not shown in the form (edit in the JSON view): {', '.join(kept)}"))
        note.set_class(bool(kept), "has-note")


def _same(a: Any, b: Any) -> bool:
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):
        return False


__all__ = ["SchemaForm", "ListEditor", "FormValueError", "field_label"]
