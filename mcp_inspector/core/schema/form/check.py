"""Validation for the form: one field's input as it is typed, and the whole arguments against the
schema with each issue routed to the field that owns it."""

from __future__ import annotations

import json
from typing import Any

from ...base.json_text import JsonTextError, loads_strict
from .. import server_regex
from ..formats import ALL_PATTERNS, check_format
from ..validation import Issue, is_multiple_of, json_path, validate
from .spec import (
    MISSING,
    REQUIRED_MESSAGE,
    TEXT_KINDS,
    FieldSpec,
    FormSpec,
    FormValueError,
    is_num,
    is_number,
    parse_scalar,
    subform,
)
from .values import list_item_out, node_out

# -- field-level validation ---------------------------------------------------------


def validate_field(spec: FieldSpec, raw: Any, empty: bool = False) -> str | None:
    """A message for one field's current input (raw text for text kinds), or None if fine.

    ``empty``: the field is flagged to send ``""`` (``key + EMPTY``), so an empty text is a value.
    """
    if spec.kind in TEXT_KINDS:
        text = raw if isinstance(raw, str) else ("" if raw is None else str(raw))
        if text == "" and empty and spec.kind == "string":
            return _constraint_message(spec, "")
        if text == "":
            return "required" if spec.required else None
        value = parse_scalar(spec.kind, text)
        if spec.kind == "integer" and not isinstance(value, int):
            return "must be an integer"
        if spec.kind == "number" and not is_number(value):
            return "must be a number"
        return _constraint_message(spec, value)
    if spec.kind == "json":
        text = raw if isinstance(raw, str) else ""
        if not text.strip():
            return "required" if spec.required else None
        try:
            value = loads_strict(text)
        except JsonTextError as exc:
            return f"invalid JSON: {exc}"
        schema = {**spec.context, "allOf": [spec.schema]} if spec.context else spec.schema
        issues = validate(schema, value)
        return issues[0].message if issues else None
    if spec.kind in ("enum", "boolean"):
        if raw is None or raw is MISSING:
            return "required" if spec.required else None
        return None
    if spec.kind in ("variant", "nested"):
        chosen = raw.get("choice") if spec.kind == "variant" and isinstance(raw, dict) else raw
        if chosen is None:
            return "required" if spec.required else None
        return None
    if spec.kind in ("array", "list"):
        items = raw if isinstance(raw, list) else []
        count = len(items)
        if not items and not spec.required:
            return None
        low, high = spec.constraints.get("minItems"), spec.constraints.get("maxItems")
        if isinstance(low, int) and count < low:
            return f"needs at least {low} item{'s' if low != 1 else ''}"
        if isinstance(high, int) and count > high:
            return f"allows at most {high} item{'s' if high != 1 else ''}"
        if spec.constraints.get("uniqueItems"):
            try:
                parsed = [json.dumps(list_item_out(spec, v), sort_keys=True) for v in items]
            except FormValueError:
                parsed = []
            if len(set(parsed)) != len(parsed):
                return "items must be unique"
        if spec.kind == "array" and spec.item is not None and spec.item.kind in TEXT_KINDS:
            for index, value in enumerate(items):
                if spec.item.kind == "string":  # an empty item is sent as "": check it like any text
                    message = _constraint_message(spec.item, value if isinstance(value, str) else str(value))
                else:
                    message = validate_field(spec.item, value)
                    message = "empty" if message == "required" else message
                if message:
                    return f"item {index + 1}: {message}"
        return None
    return None


def _constraint_message(spec: FieldSpec, value: Any) -> str | None:
    c = spec.constraints
    if isinstance(value, str):
        length = len(value)
        if isinstance(c.get("minLength"), int) and length < c["minLength"]:
            return f"at least {c['minLength']} characters (now {length})"
        if isinstance(c.get("maxLength"), int) and length > c["maxLength"]:
            return f"at most {c['maxLength']} characters (now {length})"
        unchecked = None
        for pattern in c.get(ALL_PATTERNS) or [c.get("pattern")]:
            if not isinstance(pattern, str):
                continue
            verdict = server_regex.search(pattern, value)  # bounded: this runs on every keystroke
            if verdict is False:
                return f"must match the pattern {pattern}"
            if isinstance(verdict, server_regex.Unchecked):
                unchecked = unchecked or str(verdict)
        return check_format(c.get("format"), value) or unchecked
    if is_number(value):
        if is_num(c.get("minimum")) and value < c["minimum"]:
            return f"must be ≥ {c['minimum']}"
        if is_num(c.get("maximum")) and value > c["maximum"]:
            return f"must be ≤ {c['maximum']}"
        if is_num(c.get("exclusiveMinimum")) and value <= c["exclusiveMinimum"]:
            return f"must be > {c['exclusiveMinimum']}"
        if is_num(c.get("exclusiveMaximum")) and value >= c["exclusiveMaximum"]:
            return f"must be < {c['exclusiveMaximum']}"
        step = c.get("multipleOf")
        if is_num(step) and step > 0 and not is_multiple_of(value, step):
            return f"must be a multiple of {step}"
    return None


# -- whole-form validation ------------------------------------------------------------


def check_arguments(form: FormSpec, arguments: Any) -> list[Issue]:
    """Validate arguments against the whole schema (the same check the send confirmation uses)."""
    return validate(form.schema, arguments)


def issues_by_field(form: FormSpec | FieldSpec, issues: list[Issue]) -> dict[str, list[str]]:
    """Put each issue on the deepest field it belongs to ("'x' is required" goes on field x)."""
    root = form.root if isinstance(form, FormSpec) else form
    keys = {spec.key for spec in root.walk()}
    by_field: dict[str, list[str]] = {}
    for issue in issues:
        path, message = issue.path, issue.message
        missing = REQUIRED_MESSAGE.match(message)
        if missing:
            candidate = path + json_path([missing.group("name")])[1:]
            if candidate in keys:
                path, message = candidate, "required"
        by_field.setdefault(_owner(path, keys), []).append(message)
    return by_field


def issues_under(key: str, issues: list[Issue]) -> list[Issue]:
    """The issues inside ``key`` (not on it), rebased so ``key`` is ``$``: for a sub-form."""
    out = []
    for issue in issues:
        if issue.path.startswith(key + ".") or issue.path.startswith(key + "["):
            out.append(Issue("$" + issue.path[len(key) :], issue.message))
        elif issue.path == key and REQUIRED_MESSAGE.match(issue.message):
            out.append(Issue("$", issue.message))
    return out


def _owner(path: str, keys: set[str]) -> str:
    """The longest key that is ``path`` or a prefix of it ending before a ``.`` or ``[``: the path's
    prefixes are looked up, longest first (a loop over every key for every issue was 2,000 x 2,000
    steps, 9 s on the event loop, for a 2,000-property form sent empty)."""
    candidate = path
    while candidate not in keys:
        cut = max(candidate.rfind("."), candidate.rfind("["))
        if cut <= 0:
            return "$"
        candidate = candidate[:cut]
    return candidate


def variant_issues(spec: FieldSpec, value: Any) -> list[Issue]:
    """Issues of a variant's current JSON against the chosen alternative only (precise, unlike oneOf's)."""
    choice = value.get("choice") if isinstance(value, dict) else None
    if choice is None or spec.kind != "variant":
        return []
    try:
        present, out = node_out(subform(spec, choice), value.get("values") or {})
    except FormValueError:
        return []
    if not present:
        return []
    schema = spec.choices[choice].schema
    if isinstance(schema, dict):
        schema = {**spec.context, **schema}
    return validate(schema, out)
