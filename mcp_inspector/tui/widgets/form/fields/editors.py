"""The editor of one field of a form, by its kind: a text input (with what to type as placeholder),
an on/off switch or a true/false/unset choice, a choice of the enum's options, a multi-select, a
list, a composite (list, variant, nested form) or, for anything else, JSON text."""

from __future__ import annotations

import json
from typing import Any, Literal

from rich.text import Text
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Select, Static

from .....core.schema.form.spec import MISSING as MISSING_CONST
from .....core.schema.form.spec import FieldSpec
from ...result.json_text import use_safe_json
from ...toggles import OnOffSwitch, StateSelectionList
from .base import FormInput, FormTextArea
from .composites import ListField, NestedField, VariantField
from .list_editor import ListEditor

UNSET_PROMPT = "(not set)"
EMPTY_KEY = "ctrl+delete"  # not ctrl+n: that is the app's replay, which must work from a form field too
EMPTY_PLACEHOLDER = f'""  empty string, sent ({EMPTY_KEY}: leave it out)'
COMPOSITE_KINDS = ("list", "variant", "nested")
FORMAT_HINTS = {
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDThh:mm:ssZ",
    "time": "hh:mm:ssZ",
    "email": "name@example.com",
    "uri": "https://…",
    "uuid": "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
}


def placeholder(spec: FieldSpec) -> str:
    """What an empty field shows: examples, the default, the format, else the kind."""
    if spec.examples:
        return "e.g. " + ", ".join(x if isinstance(x, str) else json.dumps(x) for x in spec.examples[:3])
    if spec.has_default and not isinstance(spec.default, (dict, list)):
        return f"default: {spec.default if isinstance(spec.default, str) else json.dumps(spec.default)}"
    fmt = spec.constraints.get("format")
    if isinstance(fmt, str):
        return FORMAT_HINTS.get(fmt, fmt)
    return spec.kind


def show_empty_flag(spec: FieldSpec, editor: Input, flagged: bool) -> None:
    """An empty string field says whether it sends "" (``flagged``) or nothing."""
    if spec.kind != "string":
        return
    editor.placeholder = EMPTY_PLACEHOLDER if flagged else placeholder(spec)
    editor.set_class(flagged, "-empty-string")


def make_editor(spec: FieldSpec, value: Any, body: type, *, empty_flagged: bool = False) -> Widget:
    """The editor for ``spec`` holding ``value``; ``body`` (the FormBody class) makes the sub-forms of a composite."""
    if spec.kind in ("string", "number", "integer"):
        kind: Literal["integer", "number", "text"] = (
            "text" if spec.kind == "string" else "integer" if spec.kind == "integer" else "number"
        )
        editor = FormInput(
            value=value if isinstance(value, str) else "",
            type=kind,
            placeholder=placeholder(spec),
            compact=True,
        )
        show_empty_flag(spec, editor, empty_flagged)
        return editor
    if spec.kind == "boolean":
        if spec.required or spec.has_default:
            return OnOffSwitch(value=bool(value))
        return Select(
            [("true", True), ("false", False)],
            prompt=UNSET_PROMPT,
            value=value if isinstance(value, bool) else Select.NULL,
            compact=True,
        )
    if spec.kind == "enum":
        if spec.const is not MISSING_CONST and spec.required:
            return Static(Text(f"= {spec.options[0].label}  (fixed)"), classes="fixed-value")
        options = [(Content(option.label), index) for index, option in enumerate(spec.options)]
        return Select(options, prompt=UNSET_PROMPT, value=option_index(spec, value), compact=True)
    if spec.kind == "array" and spec.item is not None and spec.item.kind == "enum":
        chosen = value if isinstance(value, list) else []
        selections = [
            (Content(o.label), i, any(same(o.value, v) for v in chosen)) for i, o in enumerate(spec.item.options)
        ]
        return StateSelectionList(*selections, compact=True)
    if spec.kind == "array" and spec.item is not None:
        return ListEditor(spec.item, value if isinstance(value, list) else [])
    if spec.kind in COMPOSITE_KINDS:
        cls = {"list": ListField, "variant": VariantField, "nested": NestedField}[spec.kind]
        return cls(spec, value, body)
    return use_safe_json(
        FormTextArea.code_editor(
            value if isinstance(value, str) else "",
            language=None,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            classes="json-field",
        )
    )


def option_index(spec: FieldSpec, value: Any) -> Any:
    """The index of the option holding ``value`` (the Select's value), else no choice."""
    if value is None:
        return Select.NULL
    for index, option in enumerate(spec.options):
        if same(option.value, value):
            return index
    return Select.NULL


def same(a: Any, b: Any) -> bool:
    """Equal as JSON (1 and 1.0, key order aside); False for what is not JSON."""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):
        return False
