"""``FormBody``: the fields of one (sub-)form, mirroring a values dict as the user types.

The values dict (see ``core.schema.form``) is the source of truth and is shared by
reference with whoever owns it (``SchemaForm`` for the whole form, a list item, a
variant...). Widget events update it; ``set_values`` updates it first and then the
widgets, so a late ``Changed`` event from a programmatic update finds nothing new and
is ignored (no echo loops).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, Collapsible, Input, Select, SelectionList, Static, Switch, TextArea

from .....core.schema.form import (
    EMPTY,
    ENTRIES,
    NULL,
    OMIT,
    FieldSpec,
    empty_value,
    holds_default,
    issues_by_field,
    issues_under,
    may_default,
    validate_field,
    variant_issues,
)
from .....core.schema.validation import Issue, json_path
from ...toggles import StateCheckbox
from .base import EditorChanged
from .composites import EntriesField
from .editors import COMPOSITE_KINDS, EMPTY_KEY, make_editor, option_index, same, show_empty_flag
from .labels import field_label, object_title, type_hint
from .list_editor import ListEditor
from .sections import MOUNT_AT_ONCE, LazySection, sections


class FormBody(Vertical):
    """The fields of one form or sub-form (``root`` is its FieldSpec, ``values`` its values)."""

    BINDINGS = [
        Binding(
            EMPTY_KEY,
            "toggle_empty_string",
            'Send ""',
            id="send-empty-string",
            show=False,
            tooltip="In an empty text field: send an empty string rather than leaving the field out",
        ),
    ]
    DEFAULT_CSS = """
    FormBody { height: auto; }
    FormBody .field { height: auto; margin-bottom: 1; }
    FormBody .field-head { height: auto; }
    FormBody .field-head .field-label { width: 1fr; }
    FormBody .field-label { height: auto; }
    FormBody .null-box { width: auto; }
    FormBody .field-description { color: $text-muted; height: auto; }
    FormBody .field-error { color: $text-error; height: auto; display: none; }
    FormBody .field-error.has-error { display: block; }
    FormBody .field-note { color: $text-warning; height: auto; }
    FormBody .form-empty { color: $text-muted; }
    FormBody Collapsible { height: auto; padding-left: 1; }
    FormBody .json-field { height: auto; min-height: 4; max-height: 12; }
    FormBody Select { width: 1fr; }
    FormBody SelectionList { height: auto; max-height: 10; }
    FormBody Switch { width: auto; }
    FormBody .fixed-value { height: auto; color: $text-accent; }
    FormBody .field-default { height: auto; color: $text-muted; text-style: italic; display: none; }
    FormBody .field-default.-default { display: block; }
    FormBody Input.-empty-string > .input--placeholder { color: $text-accent; text-style: italic; }
    """

    class Changed(Message):
        """The user changed the value at ``key`` (of this body's values)."""

        def __init__(self, body: FormBody, key: str) -> None:
            super().__init__()
            self.body = body
            self.key = key

        @property
        def control(self) -> FormBody:
            return self.body

    def __init__(self, root: FieldSpec, values: dict[str, Any], *, top: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.root = root
        self.values = values
        self.top = top
        self._specs = {spec.key: spec for spec in root.walk()}
        self.editors: dict[str, Widget] = {}
        self._errors: dict[str, Static] = {}
        self._null_boxes: dict[str, Checkbox] = {}
        self._issues: dict[str, list[str]] = {}  # whole-form issues, until the field is edited
        self._touched: set[str] = set()  # fields edited since the form was filled
        self._tail: Widget | None = None
        #: None: no default marks (a sub-form); else whether untouched schema defaults are sent (SchemaForm)
        self.defaults_sent: bool | None = None
        self._default_marks: dict[str, Static] = {}

    # -- building --------------------------------------------------------
    def compose(self) -> ComposeResult:
        root = self.root
        if root.kind in ("object", "tuple") and not (root.nullable and not self.top):
            members = list(self._members(root, limit=MOUNT_AT_ONCE))
            yield from members
            self._tail = self._error_label(root)
            yield self._tail
        elif root.kind in ("object", "tuple"):
            yield self._null_box(root)
            yield from self._members(root)
            yield self._error_label(root)
        else:
            yield from self.field_widgets(root, bare=not self.top)

    def _members(self, spec: FieldSpec, limit: int | None = None) -> Iterable[Widget]:
        if self.top and spec is self.root and not spec.children and not spec.has_entries:
            yield Static(
                "This tool declares no arguments. Anything else can be sent from the JSON view.", classes="form-empty"
            )
        children = spec.children
        rest: list[FieldSpec] = []
        if limit is not None and len(children) > limit:
            children, rest = children[:limit], list(children[limit:])
        for child in children:
            yield from self.field_widgets(child)
        if rest:  # the rest waits, folded, until opened
            yield from sections(self, rest, limit + 1)  # type: ignore[operator]  # limit is set when there is a rest
        if spec.has_entries:
            key = spec.key + ENTRIES
            editor = EntriesField(spec, self.values.setdefault(key, []), FormBody)
            editor.field_key = key  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
            self.editors[key] = editor
            yield editor

    def field_widgets(self, spec: FieldSpec, bare: bool = False) -> Iterable[Widget]:
        if spec.kind in ("object", "tuple"):
            parts: list[Widget] = []
            if spec.nullable:
                parts.append(self._null_box(spec))
            if spec.description:
                parts.append(Static(spec.description, classes="field-description", markup=False))
            if not spec.required:
                parts.append(
                    Static("optional: sent only when something in it is filled in", classes="field-description")
                )
            if spec.hints:
                parts.append(Static(" · ".join(spec.hints), classes="field-description", markup=False))
            parts.extend(self._members(spec))
            parts.append(self._error_label(spec))
            yield Collapsible(*parts, title=object_title(spec), collapsed=False, classes="field object-field")
            return
        parts = []
        if not bare:
            text = field_label(spec)
            if spec.description:  # one widget for both: big forms mount faster
                text.append("\n" + spec.description, style="not bold")
            label = Static(text, classes="field-label")
            parts.append(Horizontal(label, self._null_box(spec), classes="field-head") if spec.nullable else label)
        elif spec.nullable:
            parts.append(self._null_box(spec))
        elif spec.hints and spec.kind not in COMPOSITE_KINDS:
            parts.append(Static(type_hint(spec), classes="field-description", markup=False))
        if spec.kind == "json" and spec.note:
            parts.append(Static(f"edited as JSON: {spec.note}", classes="field-note", markup=False))
        editor = make_editor(
            spec,
            self.values.get(spec.key, empty_value(spec)),
            FormBody,
            empty_flagged=bool(self.values.get(spec.key + EMPTY)),
        )
        editor.field_key = spec.key  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
        editor.disabled = bool(self.values.get(spec.key + NULL))
        self.editors[spec.key] = editor
        parts.append(editor)
        if self.defaults_sent is not None and may_default(spec):
            self._default_marks[spec.key] = mark = Static("", classes="field-default", markup=False)
            parts.append(mark)
        parts.append(self._error_label(spec))
        yield Vertical(*parts, classes=f"field {spec.kind}-field")

    def _null_box(self, spec: FieldSpec) -> Checkbox:
        box = StateCheckbox(
            "null",
            value=bool(self.values.get(spec.key + NULL)),
            compact=True,
            classes="null-box",
            tooltip="send null for this field",
        )
        box.null_key = spec.key  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
        self._null_boxes[spec.key] = box
        return box

    def _error_label(self, spec: FieldSpec) -> Static:
        label = Static("", classes="field-error", markup=False)
        self._errors[spec.key] = label
        return label

    def _show_empty_flag(self, spec: FieldSpec, editor: Input) -> None:
        show_empty_flag(spec, editor, bool(self.values.get(spec.key + EMPTY)))

    def on_mount(self) -> None:
        self._refresh_messages()

    @property
    def fully_mounted(self) -> bool:
        return not any(not section.opened for section in self.query(LazySection) if section.body is self)

    # -- public API ------------------------------------------------------
    async def set_values(self, values: dict[str, Any]) -> None:
        """Show new values (same form): the widgets follow without posting changes."""
        self.values = values
        self._issues.clear()
        self._touched.clear()
        if not self.is_mounted:
            return
        with self.prevent(
            Input.Changed,
            Switch.Changed,
            Select.Changed,
            SelectionList.SelectedChanged,
            TextArea.Changed,
            ListEditor.Changed,
            Checkbox.Changed,
            EditorChanged,
        ):
            for key, box in self._null_boxes.items():
                box.value = bool(values.get(key + NULL))
            for key, editor in self.editors.items():
                spec = self._specs.get(key)
                if key.endswith(ENTRIES) and spec is None:
                    await editor.set_value(values.setdefault(key, []))  # type: ignore[attr-defined]  # the composite editors have it; editors is typed dict[str, Widget]
                    continue
                if spec is not None:
                    await self._show_value(spec, editor, values.get(key, empty_value(spec)))
                    editor.disabled = bool(values.get(key + NULL))
        self._refresh_messages()

    def show_issues(self, issues: list[Issue]) -> None:
        """Whole-schema issues (paths relative to this body's root) next to their fields."""
        composite = [key for key, spec in self._specs.items() if spec.kind in COMPOSITE_KINDS]
        # issues inside an entry's value go to that entry (its own sub-form), not to the object
        entry_paths = [
            spec.key + json_path([pair[0]])[1:]
            for spec in self._specs.values()
            if spec.has_entries
            for pair in self.values.get(spec.key + ENTRIES) or []
            if isinstance(pair[0], str)
        ]
        routed = composite + entry_paths
        own = [
            i
            for i in issues
            if not any(
                i.path.startswith(k + ".")
                or i.path.startswith(k + "[")
                or (i.path == k and i.message.endswith("is a required property"))
                for k in routed
            )
        ]
        self._issues = issues_by_field(self.root, own)
        for key, editor in self.editors.items():
            if key.endswith(ENTRIES) and key not in self._specs:
                editor.show_issues(issues_under(key[: -len(ENTRIES)], issues))  # type: ignore[attr-defined]  # the composite editors have it; editors is typed dict[str, Widget]
        for key in composite:
            editor = self.editors.get(key)
            if editor is not None:
                editor.show_issues(issues_under(key, issues))  # type: ignore[attr-defined]  # the composite editors have it; editors is typed dict[str, Widget]
                if self._specs[key].kind == "variant" and key in self._issues:
                    precise = variant_issues(self._specs[key], self.values.get(key))
                    if precise:
                        self._issues[key] = ["does not match the chosen alternative: see below"]
        self._refresh_messages()

    def message_for(self, key: str) -> str | None:
        """The message shown under a field right now (None when it is fine)."""
        spec = self._specs.get(key)
        if spec is None:
            return None
        if self.values.get(key + NULL):
            own = None
        else:
            own = (
                validate_field(spec, self.values.get(key), bool(self.values.get(key + EMPTY)))
                if spec.kind not in ("object", "tuple")
                else None
            )
        if own == "required" and key not in self._touched:
            own = None  # do not nag about fields the user has not got to yet
        if own:
            return self._required_hint(
                spec, own
            )  # the field's own wording; the schema's says the same thing less kindly
        issues = self._issues.get(key, [])
        return self._required_hint(spec, "; ".join(issues)) if issues else None

    @staticmethod
    def _required_hint(spec: FieldSpec, message: str) -> str:
        if spec.kind == "string" and message == "required" and validate_field(spec, "", empty=True) is None:
            return f'required ({EMPTY_KEY} sends "")'  # only where "" would do
        return message

    async def _show_value(self, spec: FieldSpec, editor: Widget, value: Any) -> None:
        if isinstance(editor, Input):
            editor.value = value if isinstance(value, str) else ""
            self._show_empty_flag(spec, editor)
        elif isinstance(editor, Switch):
            editor.value = bool(value)
        elif isinstance(editor, Select):
            if spec.kind == "boolean":
                editor.value = value if isinstance(value, bool) else Select.NULL
            else:
                editor.value = option_index(spec, value)
        elif isinstance(editor, SelectionList):
            chosen = value if isinstance(value, list) else []
            editor.deselect_all()
            assert spec.item is not None
            for index, option in enumerate(spec.item.options):
                if any(same(option.value, v) for v in chosen):
                    editor.select(index)
        elif isinstance(editor, ListEditor):
            await editor.set_items(value if isinstance(value, list) else [])
        elif isinstance(editor, TextArea):
            text = value if isinstance(value, str) else ""
            if editor.text != text:
                editor.load_text(text)
        elif hasattr(editor, "set_value"):
            await editor.set_value(value)

    # -- user edits ------------------------------------------------------
    def _mine(self, widget: Widget) -> str | None:
        key = getattr(widget, "field_key", None)
        return key if key is not None and self.editors.get(key) is widget else None

    def _changed(self, key: str, value: Any, force: bool = False) -> None:
        if not force and same(self.values.get(key), value) and type(self.values.get(key)) is type(value):
            return  # an echo of set_values, not an edit
        self.values[key] = value
        self.values.pop(key + OMIT, None)  # edited: a required part is sent again
        if self.values.pop(key + EMPTY, None):  # typing replaces an explicit ""
            editor = self.editors.get(key)
            if isinstance(editor, Input):
                self._show_empty_flag(self._specs[key], editor)
        self._touched.add(key)
        self._issues.pop(key, None)
        self.refresh_message(key)
        self.post_message(self.Changed(self, key))

    def action_toggle_empty_string(self) -> None:
        """Flip an empty string field between sending "" and being left out."""
        focused = self.screen.focused if self.is_attached else None
        key = self._mine(focused) if isinstance(focused, Input) else None
        spec = self._specs.get(key) if key is not None else None
        if spec is None or spec.kind != "string":
            self.notify(f'{EMPTY_KEY} sends "" from an empty text field of the form', severity="warning")
            return
        if focused.value:  # type: ignore[union-attr]  # a text field had the focus (checked above)
            self.notify(f"Clear the field first: {EMPTY_KEY} then sends an empty string", severity="warning")
            return
        if self.values.pop(key + EMPTY, None) is None:
            self.values[key + EMPTY] = True
        self._show_empty_flag(spec, focused)  # type: ignore[arg-type]  # a text field had the focus (checked above)
        self._touched.add(key)
        self._issues.pop(key, None)
        self.refresh_message(key)
        self.post_message(self.Changed(self, key))

    @on(Input.Changed)
    def _on_input(self, event: Input.Changed) -> None:
        key = self._mine(event.input)
        if key is not None:
            event.stop()
            self._changed(key, event.value)

    @on(Switch.Changed)
    def _on_switch(self, event: Switch.Changed) -> None:
        key = self._mine(event.switch)
        if key is not None:
            event.stop()
            self._changed(key, event.value)

    @on(Checkbox.Changed)
    def _on_null(self, event: Checkbox.Changed) -> None:
        key = getattr(event.checkbox, "null_key", None)
        if key is None or self._null_boxes.get(key) is not event.checkbox:
            return
        event.stop()
        if event.value:
            self.values[key + NULL] = True
        else:
            self.values.pop(key + NULL, None)
        editor = self.editors.get(key)
        if editor is not None:
            editor.disabled = event.value
        self._touched.add(key)
        self.refresh_message(key)
        self.post_message(self.Changed(self, key))

    @on(Select.Changed)
    def _on_select(self, event: Select.Changed) -> None:
        key = self._mine(event.select)
        if key is None:
            return
        event.stop()
        spec = self._specs[key]
        if event.value is Select.NULL or event.value is None:
            value = None
        elif spec.kind == "boolean":
            value = event.value
        else:
            value = spec.options[event.value].value
        self._changed(key, value)

    @on(SelectionList.SelectedChanged)
    def _on_selection(self, event: SelectionList.SelectedChanged) -> None:
        key = self._mine(event.selection_list)
        if key is None:
            return
        event.stop()
        spec = self._specs[key]
        assert spec.item is not None
        now = [spec.item.options[i].value for i in event.selection_list.selected]
        before = self.values.get(key) if isinstance(self.values.get(key), list) else []
        kept = [v for v in before if any(same(v, n) for n in now)]  # keep the user's order
        added = [n for n in now if not any(same(n, v) for v in kept)]
        self._changed(key, kept + added)

    @on(ListEditor.Changed)
    def _on_list(self, event: ListEditor.Changed) -> None:
        key = self._mine(event.editor)
        if key is not None:
            event.stop()
            self._changed(key, list(event.editor.items))

    @on(EditorChanged)
    def _on_composite(self, event: EditorChanged) -> None:
        key = self._mine(event.editor)
        if key is not None:
            event.stop()
            self._changed(key, event.editor.value, force=True)  # type: ignore[attr-defined]  # the editor posting a change is a field with a value

    @on(TextArea.Changed)
    def _on_text_area(self, event: TextArea.Changed) -> None:
        key = self._mine(event.text_area)
        if key is not None:
            event.stop()
            self._changed(key, event.text_area.text)

    # -- messages --------------------------------------------------------
    def refresh_messages(self) -> None:
        self._refresh_messages()

    def _refresh_messages(self) -> None:
        for key in self._errors:
            self.refresh_message(key)

    def refresh_message(self, key: str) -> None:
        mark = self._default_marks.get(key)
        if mark is not None:
            default = holds_default(self._specs[key], self.values)
            mark.update(f"schema default: {'sent' if self.defaults_sent else 'not sent'}" if default else "")
            mark.set_class(default, "-default")
        label = self._errors.get(key)
        if label is None:
            return
        message = self.message_for(key)
        label.update(f"⚠ {message}" if message else "")
        label.set_class(bool(message), "has-error")
