"""Untouched schema defaults: which fields hold their ``default``, and the arguments without them.

A fresh form shows each field's schema ``default`` (so the user sees what the server would
assume). Whether those values are *sent* is the user's choice: left out, the server's own
default handling is what runs (what a model-driven client does when it has no opinion);
sent, the call is explicit. Only optional fields are ever left out (a required field is
required even when it has a default), and only static fields: those of the top-level
object and of the objects nested in it, not list items, variants or free-form entries.
"""

from __future__ import annotations

from typing import Any

from ...base.json_text import same_json as same_json  # re-exported: form/__init__.py
from .spec import EMPTY, NULL, FieldSpec, FormSpec
from .values import default_values, empty_value, sub_arguments


def may_default(spec: FieldSpec) -> bool:
    """A field whose schema default may be left out: optional, with a default."""
    return spec.has_default and not spec.required and spec.kind not in ("object", "tuple")


def holds_default(spec: FieldSpec, values: dict[str, Any]) -> bool:
    """The field sends exactly its schema default now."""
    if not may_default(spec):
        return False
    present, value = sub_arguments(spec, values)
    return present and same_json(value, spec.default)


def strip_defaults(form: FormSpec, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``arguments`` without the optional fields that hold their default, and those fields' paths."""
    left_out: list[str] = []
    if form.root.kind != "object":
        return arguments, left_out
    return _strip(form.root, arguments, left_out), left_out


def _strip(spec: FieldSpec, arguments: dict[str, Any], left_out: list[str]) -> dict[str, Any]:
    out = dict(arguments)
    for child in spec.children:
        if child.name not in out:
            continue
        value = out[child.name]
        if may_default(child) and same_json(value, child.default):
            del out[child.name]
            left_out.append(child.key)
        elif child.kind == "object" and isinstance(value, dict):
            out[child.name] = _strip(child, value, left_out)
    return out


def fill_defaults(form: FormSpec, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the schema default shown in each optional field left empty (no null, no "")."""
    fresh = default_values(form)
    filled = dict(values)
    for spec in form.fields():
        key = spec.key
        if not may_default(spec) or key not in fresh or filled.get(key + NULL) or filled.get(key + EMPTY):
            continue
        if _blank(filled.get(key), spec) and not _blank(fresh[key], spec):
            filled[key] = fresh[key]
            if fresh.get(key + NULL):
                filled[key + NULL] = True
    return filled


def _blank(value: Any, spec: FieldSpec) -> bool:
    return value is None or value == empty_value(spec)
