"""Values (what the widgets hold, a flat dict keyed by JSON path) to ``tools/call`` arguments and
back, losslessly, and which values the form holds without showing them."""

from __future__ import annotations

import json
from typing import Any

from ...base.json_text import JsonTextError, loads_strict
from ..validation import json_path
from .spec import (
    EMPTY,
    ENTRIES,
    MAX_NESTING,
    MISSING,
    NULL,
    OMIT,
    TEXT_KINDS,
    FieldSpec,
    FormSpec,
    FormValueError,
    format_scalar,
    is_number,
    key_allowed,
    parse_scalar,
    subform,
)

# -- values <-> arguments -------------------------------------------------------------


def empty_value(spec: FieldSpec) -> Any:
    """What a field holds when nothing is entered."""
    if spec.kind in TEXT_KINDS or spec.kind == "json":
        return ""
    if spec.kind in ("array", "list", "tuple"):
        return []
    if spec.kind == "object":
        return {}
    if spec.kind == "variant":
        return {"choice": None, "values": {}}
    return None  # boolean (unset), enum (nothing chosen), nested (not opened)


def empty_values(root: FieldSpec) -> dict[str, Any]:
    """Every static field of a (sub-)form holding nothing."""
    values: dict[str, Any] = {}
    for spec in root.walk():
        values[spec.key] = empty_value(spec)
        if spec.has_entries:
            values[spec.key + ENTRIES] = []
    return values


def default_values(form: FormSpec | FieldSpec, _depth: int = 0) -> dict[str, Any]:
    """The values of a fresh form: schema defaults where given, empty elsewhere."""
    root = form.root if isinstance(form, FormSpec) else form
    values = empty_values(root)
    _defaults_into(root, values, _depth)
    return values


def _defaults_into(spec: FieldSpec, values: dict[str, Any], depth: int) -> None:
    if spec.kind in ("object", "tuple"):
        if spec.required:  # an optional object is sent once the user fills it: its defaults are only hints
            for child in spec.children:
                _defaults_into(child, values, depth)
            if spec.kind == "object":  # a required field's default no field can show (an empty string...) is still sent
                for child in spec.children:
                    if (
                        child.required
                        and child.has_default
                        and child.kind not in ("object", "tuple")
                        and _to_value(child, child.default) is MISSING
                        and not (child.default is None and child.nullable)
                        and not (child.kind == "string" and child.default == "")
                    ):
                        values.setdefault(spec.key, {})[child.name] = child.default
        if spec.has_default:
            if spec.kind == "object" and isinstance(spec.default, dict):
                _arguments_into(spec, spec.default, values)
            elif spec.kind == "tuple" and isinstance(spec.default, list):
                _tuple_into(spec, spec.default, values)
        return
    if spec.has_default:
        if spec.default is None and spec.nullable:
            values[spec.key + NULL] = True
            return
        if _empty_string_into(spec, spec.default, values):
            return
        shown = _to_value(spec, spec.default)
        if shown is not MISSING:
            values[spec.key] = shown
            return
    if spec.const is not MISSING:
        values[spec.key] = spec.const
    elif spec.kind == "boolean" and spec.required:
        values[spec.key] = False
    elif spec.kind == "variant" and spec.required and spec.choices and depth < MAX_NESTING:
        values[spec.key] = {"choice": 0, "values": default_values(subform(spec, 0), depth + 1)}
    elif spec.kind == "array" and spec.required and spec.item is not None and spec.item.has_default:
        low = spec.constraints.get("minItems")
        item = _item_value(spec.item, spec.item.default)
        unique = spec.constraints.get("uniqueItems") is True
        if isinstance(low, int) and 0 < low <= (1 if unique else 20) and item is not MISSING:
            values[spec.key] = [item] * low
    elif spec.kind == "list" and depth < MAX_NESTING:
        low = spec.constraints.get("minItems")
        if spec.required and isinstance(low, int) and 0 < low <= 20:
            item = subform(spec)
            values[spec.key] = [default_values(item, depth + 1) for _ in range(low)]


def arguments_to_values(form: FormSpec, arguments: Any) -> dict[str, Any]:
    """What the form shows for some arguments; anything it cannot show is kept as an extra."""
    values = empty_values(form.root)
    if form.root.kind == "json":
        values["$"] = _json_text(arguments)
        return values
    if isinstance(arguments, dict):
        _arguments_into(form.root, arguments, values)
    return values


def sub_values(root: FieldSpec, argument: Any) -> dict[str, Any] | Any:
    """The sub-values of a sub-form that send exactly ``argument``, or MISSING."""
    values = empty_values(root)
    if root.nullable and argument is None:
        values[root.key + NULL] = True
        return values
    if root.kind == "object":
        if not isinstance(argument, dict):
            return MISSING
        _arguments_into(root, argument, values)
    elif root.kind == "tuple":
        if not isinstance(argument, list):
            return MISSING
        _tuple_into(root, argument, values)
    else:
        shown = _to_value(root, argument)
        if shown is MISSING and not _empty_string_into(root, argument, values):
            return MISSING
        if shown is not MISSING:
            values[root.key] = shown
    try:
        present, out = node_out(root, values)
    except FormValueError:
        return MISSING
    return values if present and _same(out, argument) else MISSING


def _arguments_into(spec: FieldSpec, arguments: dict[str, Any], values: dict[str, Any]) -> None:
    by_name = {child.name: child for child in spec.children}
    extras: dict[str, Any] = {}
    entries: list[list[Any]] = []
    for name, argument in arguments.items():
        child = by_name.get(name)
        if child is None:
            if spec.has_entries and key_allowed(spec, name):
                sub = sub_values(subform(spec), argument)
                if sub is not MISSING:
                    entries.append([name, sub])
                    continue
            extras[name] = argument
            continue
        if argument is None and child.nullable:
            values[child.key + NULL] = True
            continue
        if child.kind in ("object", "tuple"):
            if isinstance(argument, dict if child.kind == "object" else list):
                if child.kind == "object":
                    _arguments_into(child, argument, values)
                    out = _object_out(child, values, force=child.required)
                else:
                    _tuple_into(child, argument, values)
                    out = _tuple_out(child, values)[1]
                if _same(out, argument):
                    continue
                for grandchild in child.walk():  # cannot reproduce it: keep it whole instead
                    values[grandchild.key] = empty_value(grandchild)
                    if grandchild.has_entries:
                        values[grandchild.key + ENTRIES] = []
                    values.pop(grandchild.key + NULL, None)
                    values.pop(grandchild.key + EMPTY, None)
            extras[name] = argument
            continue
        shown = _to_value(child, argument)
        if shown is MISSING and not _empty_string_into(child, argument, values):
            extras[name] = argument
        elif shown is not MISSING:
            values[child.key] = shown
    values[spec.key] = extras
    if spec.has_entries:
        values[spec.key + ENTRIES] = entries
    for (
        child
    ) in spec.children:  # keep "absent" absent (and an extra unshadowed): a required object or list is sent empty
        if (
            child.required
            and (child.name not in arguments or child.name in extras)
            and child.kind in ("object", "tuple", "array", "list")
        ):
            values[child.key + OMIT] = True


def _tuple_into(spec: FieldSpec, arguments: list[Any], values: dict[str, Any]) -> None:
    for child, argument in zip(spec.children, arguments, strict=False):  # a short or long list fills what it has
        if argument is None and child.nullable:
            values[child.key + NULL] = True
            continue
        sub = sub_values(child, argument) if child.kind in ("object", "tuple") else MISSING
        if child.kind in ("object", "tuple"):
            if sub is not MISSING:
                for key, value in sub.items():  # sub-values are keyed from "$": move them under the child
                    values[child.key + key[1:]] = value
            continue
        shown = _to_value(child, argument)
        if shown is not MISSING:
            values[child.key] = shown
        else:
            _empty_string_into(child, argument, values)
    values[spec.key] = list(arguments[len(spec.children) :])


def _empty_string_into(spec: FieldSpec, argument: Any, values: dict[str, Any]) -> bool:
    """Show an explicit ``""`` in a string field (flagged, so it is sent back)."""
    if spec.kind != "string" or argument != "" or not isinstance(argument, str):
        return False
    values[spec.key] = ""
    values[spec.key + EMPTY] = True
    return True


def _to_value(spec: FieldSpec, argument: Any) -> Any:
    """The field value that sends exactly ``argument`` back, or MISSING if there is none."""
    if spec.kind == "json":
        shown = _json_text(argument)
    elif spec.kind == "array":
        if not isinstance(argument, list) or spec.item is None:
            return MISSING
        shown = []
        for item in argument:
            value = _item_value(spec.item, item)
            if value is MISSING:
                return MISSING
            shown.append(value)
    elif spec.kind == "list":
        if not isinstance(argument, list):
            return MISSING
        item = subform(spec)
        shown = []
        for element in argument:
            sub = sub_values(item, element)
            if sub is MISSING:
                return MISSING
            shown.append(sub)
    elif spec.kind == "variant":
        shown = _variant_value(spec, argument)
        if shown is MISSING:
            return MISSING
    elif spec.kind == "nested":
        shown = sub_values(subform(spec), argument)
        if shown is MISSING:
            return MISSING
    else:
        shown = _item_value(spec, argument)
        if shown is MISSING:
            return MISSING
    try:
        present, out = _field_out(spec, shown)
    except FormValueError:
        return MISSING
    return shown if present and _same(out, argument) else MISSING


def _variant_value(spec: FieldSpec, argument: Any) -> Any:
    from ..classify import Variant, pick_variant

    context = spec.context
    picked = pick_variant([Variant(c.title, c.schema, c.discriminator, (), context) for c in spec.choices], argument)
    order = ([picked] if picked is not None else []) + [i for i in range(len(spec.choices)) if i != picked]
    for index in order:
        sub = sub_values(subform(spec, index), argument)
        if sub is not MISSING:
            return {"choice": index, "values": sub}
    return MISSING


def switch_variant(spec: FieldSpec, value: Any, choice: int | None) -> dict[str, Any]:
    """The value after the user picks another alternative: its defaults, plus what carries over.

    Properties both alternatives have keep what was entered (the discriminator is the new one's).
    """
    if choice is None:
        return {"choice": None, "values": {}}
    new_root = subform(spec, choice)
    fresh = default_values(new_root, 1)
    old_choice = value.get("choice") if isinstance(value, dict) else None
    if old_choice is None or old_choice == choice:
        return {"choice": choice, "values": fresh}
    old_root = subform(spec, old_choice)
    if old_root.kind in TEXT_KINDS and new_root.kind in TEXT_KINDS:  # "7" typed as a number stays "7" as text
        text = (value.get("values") or {}).get("$", "")
        return {"choice": choice, "values": {**fresh, "$": text if isinstance(text, str) else ""}}
    try:
        present, old = node_out(old_root, value.get("values") or {})
        _, new = node_out(new_root, fresh)
    except FormValueError:
        return {"choice": choice, "values": fresh}
    if present and new_root.kind == "object" and isinstance(old, dict) and isinstance(new, dict):
        names = {child.name for child in new_root.children}
        disc = spec.choices[choice].discriminator
        carried = {k: v for k, v in old.items() if k in names and not (disc and k == disc[0])}
        merged = sub_values(new_root, {**new, **carried})
        if merged is not MISSING:
            return {"choice": choice, "values": merged}
    elif present and not isinstance(old, (dict, list)):
        carried = sub_values(new_root, old)
        if carried is not MISSING:
            return {"choice": choice, "values": carried}
    return {"choice": choice, "values": fresh}


def _item_value(spec: FieldSpec, argument: Any) -> Any:
    if spec.kind == "string":
        return argument if isinstance(argument, str) else MISSING
    if spec.kind in ("number", "integer"):
        return format_scalar(argument) if is_number(argument) else MISSING
    if spec.kind == "boolean":
        return argument if isinstance(argument, bool) else MISSING
    if spec.kind == "enum":
        return argument if any(_same(o.value, argument) for o in spec.options) and argument is not None else MISSING
    return MISSING


def values_to_arguments(form: FormSpec, values: dict[str, Any]) -> dict[str, Any]:
    """The ``arguments`` object: empty optional fields are left out, extras are kept."""
    if form.root.kind == "json":
        present, value = _field_out(form.root, values.get("$", ""))
        if not present:
            return {}
        if not isinstance(value, dict):
            raise FormValueError("$", "the arguments must be a JSON object")
        return value
    return _object_out(form.root, values, force=True)


def sub_arguments(root: FieldSpec, values: dict[str, Any]) -> tuple[bool, Any]:
    """(is anything sent, the JSON) of a sub-form's values."""
    return node_out(root, values)


def node_out(spec: FieldSpec, values: dict[str, Any]) -> tuple[bool, Any]:
    if spec.nullable and values.get(spec.key + NULL):
        return True, None
    omit = bool(values.get(spec.key + OMIT))
    if spec.kind == "object":
        out = _object_out(spec, values, force=spec.required and not omit)
        return out is not None, out
    if spec.kind == "tuple":
        present, out = _tuple_out(spec, values)
        return (False, None) if omit and _blank(out) else (present, out)
    value = values.get(spec.key, empty_value(spec))
    if spec.kind == "string" and values.get(spec.key + EMPTY) and value in ("", None):
        return True, ""
    present, out = _field_out(spec, value)
    return (False, None) if omit and _blank(out) else (present, out)


def _object_out(spec: FieldSpec, values: dict[str, Any], force: bool = False) -> dict[str, Any] | None:
    """An object's arguments; an optional object is left out until something in it is filled."""
    if spec.nullable and values.get(spec.key + NULL):
        return None  # the caller sends null (see node_out)
    out: dict[str, Any] = {}
    filled = False
    for child in spec.children:
        if child.nullable and values.get(child.key + NULL):
            out[child.name] = None
            filled = True
            continue
        if child.kind == "object":
            sub = _object_out(child, values, force=child.required and not values.get(child.key + OMIT))
            if sub is not None:
                out[child.name] = sub
                filled = filled or bool(sub) or not child.required
            continue
        present, value = node_out(child, values)
        if present:
            out[child.name] = value
            filled = filled or not _blank(value)  # a required list/tuple is sent empty, but that alone fills nothing
    if spec.has_entries:
        entry = subform(spec)
        for pair in values.get(spec.key + ENTRIES) or []:
            name, sub = pair[0], pair[1]
            present, value = node_out(entry, sub)
            if present and isinstance(name, str):
                out[name] = value
                filled = True
    extras = values.get(spec.key)
    if isinstance(extras, dict) and extras:
        filled = True
        for name, value in extras.items():
            out.setdefault(name, value)
    return out if filled or force else None


def _blank(value: Any) -> bool:
    return isinstance(value, list) and all(item is None or item == "" for item in value)


def _tuple_out(spec: FieldSpec, values: dict[str, Any]) -> tuple[bool, Any]:
    """A tuple's items up to the last one filled; a gap cannot be skipped (null, or "" for text).

    Once something in it is filled, its required positions are always sent. With nothing
    filled it is not sent (a required one is then reported missing), except that a
    required tuple with no required positions is sent as ``[]``.
    """
    outs = [node_out(child, values) for child in spec.children]
    last = max((index for index, (present, _) in enumerate(outs) if present), default=-1)
    extra = values.get(spec.key)
    has_extra = isinstance(extra, list) and bool(extra)
    if last < 0 and not has_extra and any(child.required for child in spec.children):
        return False, None  # nothing filled: missing (and reported so), not [null, ""]
    if last >= 0 or spec.required:
        last = max([last] + [index for index, child in enumerate(spec.children) if child.required])
    items = [
        value if present else ("" if child.kind == "string" else None)
        for (present, value), child in zip(outs[: last + 1], spec.children, strict=False)  # up to the last filled
    ]
    if has_extra:
        items = items + [None] * (len(spec.children) - len(items)) + list(extra)
    if not items and not spec.required:
        return False, None
    return True, items


def _field_out(spec: FieldSpec, value: Any) -> tuple[bool, Any]:
    """(is it sent, the JSON value) for one non-object field's value."""
    if spec.kind in TEXT_KINDS:
        text = value if isinstance(value, str) else ("" if value is None else str(value))
        if text == "":
            return False, None  # empty means "not sent"; an explicit "" survives as an extra
        return True, parse_scalar(spec.kind, text)
    if spec.kind in ("boolean", "enum"):
        return (value is not None and value is not MISSING), value
    if spec.kind in ("array", "list"):
        items = value if isinstance(value, list) else []
        if not items and not spec.required:
            return False, None
        return True, [list_item_out(spec, item) for item in items]
    if spec.kind == "variant":
        choice = value.get("choice") if isinstance(value, dict) else None
        if choice is None or not 0 <= choice < len(spec.choices):
            return False, None
        return node_out(subform(spec, choice), value.get("values") or {})
    if spec.kind == "nested":
        if not isinstance(value, dict):
            return False, None
        return node_out(subform(spec), value)
    if spec.kind == "json":
        text = value if isinstance(value, str) else ""
        if not text.strip():
            return False, None
        try:
            return True, loads_strict(text)
        except JsonTextError as exc:
            raise FormValueError(spec.key, f"invalid JSON: {exc}") from None
    return False, None


def list_item_out(spec: FieldSpec, value: Any) -> Any:
    if spec.kind == "list":
        present, out = node_out(subform(spec), value if isinstance(value, dict) else {})
        return out if present else None
    assert spec.item is not None
    return _item_out(spec.item, value)


def _item_out(spec: FieldSpec, value: Any) -> Any:
    if spec.kind in TEXT_KINDS:
        return parse_scalar(spec.kind, value if isinstance(value, str) else str(value))
    return value


def _json_text(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _same(a: Any, b: Any) -> bool:
    """JSON equality (1 != 1.0 != True here, unlike Python's ==)."""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):
        return False


def hidden_values(root: FieldSpec, values: dict[str, Any], depth: int = MAX_NESTING) -> list[str]:
    """Where values the form does not show are sent: ``owner.extra``, ``point[2:]``...

    Looks into list items, the chosen variant, free-form entries and opened nested parts
    too (``items[1].colour``), not only the static fields.
    """
    found: list[str] = []
    _collect_hidden(root, values, "", depth, found)
    return found


def _collect_hidden(root: FieldSpec, values: dict[str, Any], prefix: str, depth: int, found: list[str]) -> None:
    if not isinstance(values, dict):
        return
    for spec in root.walk():
        if values.get(spec.key + NULL):
            continue
        path = (prefix + spec.key[1:]).lstrip(".")
        extras = values.get(spec.key) if spec.kind in ("object", "tuple") else None
        if isinstance(extras, dict):
            found.extend(f"{path}.{name}" if path else name for name in extras)
        elif isinstance(extras, list) and extras:
            found.append(f"{path}[{len(spec.children)}:]")
        if depth <= 0:
            continue
        value = values.get(spec.key)
        if spec.kind == "list" and isinstance(value, list):
            for index, item in enumerate(value):
                _collect_hidden(subform(spec), item, f"{prefix}{spec.key[1:]}[{index}]", depth - 1, found)
        elif (
            spec.kind == "variant"
            and isinstance(value, dict)
            and isinstance(value.get("choice"), int)
            and 0 <= value["choice"] < len(spec.choices)
        ):
            _collect_hidden(
                subform(spec, value["choice"]), value.get("values") or {}, prefix + spec.key[1:], depth - 1, found
            )
        elif spec.kind == "nested" and isinstance(value, dict):
            _collect_hidden(subform(spec), value, prefix + spec.key[1:], depth - 1, found)
        if spec.has_entries:
            for pair in values.get(spec.key + ENTRIES) or []:
                if isinstance(pair[0], str):
                    _collect_hidden(
                        subform(spec), pair[1], prefix + spec.key[1:] + json_path([pair[0]])[1:], depth - 1, found
                    )
