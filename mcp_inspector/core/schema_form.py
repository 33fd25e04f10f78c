"""A tool's ``inputSchema`` as a tree of form fields, with no UI in it.

The UI renders a ``FormSpec`` and keeps *values* (what the widgets hold: raw
text for typed-in scalars, bools, enum values, lists); this module turns
values into ``tools/call`` arguments and back. The round trip JSON -> form ->
JSON never loses anything: a value the form cannot show faithfully (an unknown
key, a wrong type, an empty string in an optional field...) is kept as an
*extra* of its object and sent back unchanged.

Schema features the form does not handle yet ($ref, oneOf, allOf, arrays of
objects...) become a ``kind="json"`` field carrying the sub-schema, so only
that subtree is edited as raw JSON; the engine can grow new kinds later
without changing the tree's shape.

Values are a flat dict keyed by each field's JSON path (``$.assignee.name``,
the same paths ``validation.validate`` reports). An object field's own entry
holds its extras (a dict of keys the form does not show).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from .validation import Issue, json_path, validate

KINDS = ("string", "number", "integer", "boolean", "enum", "object", "array", "json")
TEXT_KINDS = ("string", "number", "integer")  # typed into a text input
PRIMITIVE_KINDS = ("string", "number", "integer", "boolean", "enum")
CONSTRAINT_KEYS = (
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems",
)
# Keywords the form cannot represent: any of them sends the subtree to the JSON editor.
UNSUPPORTED_KEYWORDS = (
    "$ref", "$dynamicRef", "oneOf", "anyOf", "allOf", "not", "if", "then", "else",
    "patternProperties", "dependentSchemas", "dependentRequired", "dependencies",
    "prefixItems", "contains", "unevaluatedProperties", "unevaluatedItems", "propertyNames",
)
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_REQUIRED_MESSAGE = re.compile(r"^'(?P<name>.+)' is a required property$")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FormValueError(ValueError):
    """A value the form holds cannot become JSON (e.g. a JSON subtree that does not parse)."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        self.message = message
        super().__init__(f"{key}: {message}")


@dataclass(frozen=True, slots=True)
class EnumOption:
    value: Any
    label: str


@dataclass(slots=True)
class FieldSpec:
    """One node of the form. ``key`` is its JSON path; array items use ``[]``."""

    kind: str
    name: str
    key: str
    schema: Any
    title: str | None = None
    description: str | None = None
    required: bool = False
    default: Any = MISSING
    options: list[EnumOption] = field(default_factory=list)
    constraints: dict[str, Any] = field(default_factory=dict)
    children: list["FieldSpec"] = field(default_factory=list)
    item: "FieldSpec | None" = None
    nullable: bool = False
    note: str | None = None  # why a subtree fell back to JSON
    context: dict[str, Any] = field(default_factory=dict)  # the root's $schema/$defs, so a subtree's $ref resolves

    @property
    def label(self) -> str:
        return self.title or self.name or "value"

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING

    def walk(self) -> Iterator["FieldSpec"]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(slots=True)
class FormSpec:
    schema: Any
    root: FieldSpec

    def fields(self) -> Iterator[FieldSpec]:
        """Every field, depth first (array item specs are not included)."""
        return self.root.walk()

    def field(self, key: str) -> FieldSpec | None:
        for spec in self.fields():
            if spec.key == key:
                return spec
        return None

    @property
    def fallback_notes(self) -> list[tuple[str, str]]:
        return [(spec.key, spec.note) for spec in self.fields() if spec.kind == "json" and spec.note]


# -- building -------------------------------------------------------------------


def build_form(schema: Any) -> FormSpec:
    """The form for a tool's ``inputSchema`` (the root is an object, or JSON when it cannot be)."""
    if schema is None:
        schema = {"type": "object"}
    root = _build(schema, "", "$", required=True)
    context = {k: schema[k] for k in ("$schema", "$defs", "definitions") if isinstance(schema, dict) and k in schema}
    for spec in root.walk():
        if spec.kind == "json" and spec is not root:
            spec.context = context
    if root.kind != "object":
        if root.kind != "json":
            root = _json_field(schema, "", "$", True, "the input schema is not an object schema")
    return FormSpec(schema, root)


def _build(schema: Any, name: str, key: str, required: bool) -> FieldSpec:
    if schema is True or schema == {}:
        return _json_field(schema, name, key, required, "any JSON value is accepted")
    if not isinstance(schema, dict):
        return _json_field(schema, name, key, required, "the schema is not an object")
    schema, nullable = _unwrap_optional(schema)
    unsupported = [k for k in UNSUPPORTED_KEYWORDS if k in schema]
    labelled = _titled_options(schema)
    if labelled is not None:
        unsupported = [k for k in unsupported if k != "oneOf"]
    if unsupported:
        return _json_field(schema, name, key, required, f"uses {', '.join(unsupported)}, which the form does not support yet")
    types = schema.get("type")
    if isinstance(types, list):
        others = [t for t in types if t != "null"]
        nullable = nullable or len(others) < len(types)
        if len(others) != 1:
            return _json_field(schema, name, key, required, f"accepts several types ({', '.join(map(str, types))})")
        types = others[0]
    spec = FieldSpec(
        kind="json", name=name, key=key, schema=schema,
        title=schema.get("title") if isinstance(schema.get("title"), str) else None,
        description=schema.get("description") if isinstance(schema.get("description"), str) else None,
        required=required, default=schema.get("default", MISSING), nullable=nullable,
        constraints={k: schema[k] for k in CONSTRAINT_KEYS if k in schema},
    )
    if labelled is not None or "enum" in schema or "const" in schema:
        options = labelled if labelled is not None else _enum_options(schema)
        if options is None:
            spec.note = "the enum is not a list"
            return spec
        spec.kind, spec.options = "enum", options
        return spec
    if types is None and "properties" in schema:
        types = "object"
    if types in ("string", "number", "integer", "boolean"):
        spec.kind = types
    elif types == "object":
        _build_object(spec, schema)
    elif types == "array":
        _build_array(spec, schema)
    else:
        spec.note = "no type is declared" if types is None else f"type {types!r} is not supported"
    return spec


def _json_field(schema: Any, name: str, key: str, required: bool, note: str) -> FieldSpec:
    info = schema if isinstance(schema, dict) else {}
    return FieldSpec(
        kind="json", name=name, key=key, schema=schema,
        title=info.get("title") if isinstance(info.get("title"), str) else None,
        description=info.get("description") if isinstance(info.get("description"), str) else None,
        required=required, default=info.get("default", MISSING), note=note,
    )


def _unwrap_optional(schema: dict) -> tuple[dict, bool]:
    """``anyOf: [X, {type: null}]`` (pydantic's Optional[X]) is X that may be null."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list) or len(branches) != 2:
        return schema, False
    nulls = [b for b in branches if b == {"type": "null"}]
    others = [b for b in branches if b != {"type": "null"}]
    if len(nulls) != 1 or len(others) != 1 or not isinstance(others[0], dict):
        return schema, False
    merged = {k: v for k, v in schema.items() if k != "anyOf"}
    merged.update({k: v for k, v in others[0].items() if k not in merged})
    return merged, True


def _titled_options(schema: dict) -> list[EnumOption] | None:
    """``oneOf: [{const, title}, ...]``: an enum with labels (MCP's titled enums)."""
    branches = schema.get("oneOf")
    if not isinstance(branches, list) or not branches:
        return None
    options = []
    for branch in branches:
        if not isinstance(branch, dict) or "const" not in branch or set(branch) - {"const", "title", "description"}:
            return None
        options.append(EnumOption(branch["const"], str(branch.get("title") or _label(branch["const"]))))
    return options


def _enum_options(schema: dict) -> list[EnumOption] | None:
    values = [schema["const"]] if "const" in schema and "enum" not in schema else schema.get("enum")
    if not isinstance(values, list):
        return None
    names = schema.get("enumNames")
    if not (isinstance(names, list) and len(names) == len(values)):
        names = [None] * len(values)
    return [EnumOption(v, str(n) if n is not None else _label(v)) for v, n in zip(values, names)]


def _label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _build_object(spec: FieldSpec, schema: dict) -> None:
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        spec.note = "`properties` is not an object"
        return
    required = schema.get("required", [])
    required = set(required) if isinstance(required, list) else set()
    spec.kind = "object"
    spec.children = [_build(sub, prop, spec.key + json_path([prop])[1:], prop in required) for prop, sub in properties.items()]


def _build_array(spec: FieldSpec, schema: dict) -> None:
    items = schema.get("items", {})
    item = _build(items, "", spec.key + "[]", True) if isinstance(items, dict) else None
    if item is None or item.kind not in PRIMITIVE_KINDS:
        what = "arrays of objects" if item is not None and item.kind == "object" else "arrays of this kind of item"
        spec.note = f"{what} are edited as JSON for now"
        return
    spec.kind, spec.item = "array", item


# -- field-level validation ---------------------------------------------------------


def validate_field(spec: FieldSpec, raw: Any) -> str | None:
    """A message for one field's current input (raw text for text kinds), or None if fine."""
    if spec.kind in TEXT_KINDS:
        text = raw if isinstance(raw, str) else ("" if raw is None else str(raw))
        if text == "":
            return "required" if spec.required else None
        value = parse_scalar(spec.kind, text)
        if spec.kind == "integer" and not isinstance(value, int):
            return "must be an integer"
        if spec.kind == "number" and not _is_number(value):
            return "must be a number"
        return _constraint_message(spec, value)
    if spec.kind == "json":
        text = raw if isinstance(raw, str) else ""
        if not text.strip():
            return "required" if spec.required else None
        try:
            value = json.loads(text)
        except ValueError as exc:
            return f"invalid JSON: {exc}"
        schema = {**spec.context, "allOf": [spec.schema]} if spec.context else spec.schema
        issues = validate(schema, value)
        return issues[0].message if issues else None
    if spec.kind == "enum":
        if raw is None or raw is MISSING:
            return "required" if spec.required else None
        return None
    if spec.kind == "array":
        items = raw if isinstance(raw, list) else []
        count = len(items)
        if not items and not spec.required:
            return None
        low, high = spec.constraints.get("minItems"), spec.constraints.get("maxItems")
        if isinstance(low, int) and count < low:
            return f"needs at least {low} item{'s' if low != 1 else ''}"
        if isinstance(high, int) and count > high:
            return f"allows at most {high} item{'s' if high != 1 else ''}"
        if spec.constraints.get("uniqueItems") and spec.item is not None:
            parsed = [json.dumps(_item_out(spec.item, v), sort_keys=True) for v in items]
            if len(set(parsed)) != len(parsed):
                return "items must be unique"
        if spec.item is not None and spec.item.kind in TEXT_KINDS:
            for index, value in enumerate(items):
                message = validate_field(spec.item, value)
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
        pattern = c.get("pattern")
        if isinstance(pattern, str):
            try:
                if re.search(pattern, value) is None:
                    return f"must match the pattern {pattern}"
            except re.error:
                pass  # a broken pattern is the schema's problem; validate() reports it
        if isinstance(c.get("format"), str):
            issues = validate({"format": c["format"]}, value)
            if issues:
                return f"not a valid {c['format']}"
        return None
    if _is_number(value):
        if _num(c.get("minimum")) and value < c["minimum"]:
            return f"must be ≥ {c['minimum']}"
        if _num(c.get("maximum")) and value > c["maximum"]:
            return f"must be ≤ {c['maximum']}"
        if _num(c.get("exclusiveMinimum")) and value <= c["exclusiveMinimum"]:
            return f"must be > {c['exclusiveMinimum']}"
        if _num(c.get("exclusiveMaximum")) and value >= c["exclusiveMaximum"]:
            return f"must be < {c['exclusiveMaximum']}"
        step = c.get("multipleOf")
        if _num(step) and step > 0:
            quotient = value / step
            if not math.isfinite(quotient) or abs(quotient - round(quotient)) > 1e-9:
                return f"must be a multiple of {step}"
    return None


def _num(value: Any) -> bool:
    return _is_number(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and (not isinstance(value, float) or math.isfinite(value))


def parse_scalar(kind: str, text: str) -> Any:
    """Typed-in text as the JSON value it stands for; text that does not parse stays a string."""
    if kind == "string":
        return text
    stripped = text.strip()
    if re.fullmatch(r"[+-]?\d+", stripped):
        return int(stripped, 10)
    if not _FLOAT.fullmatch(stripped):
        return text
    number = float(stripped)
    return number if math.isfinite(number) else text


def format_scalar(value: Any) -> str:
    """The text a field shows for a JSON scalar (inverse of parse_scalar)."""
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value)


# -- whole-form validation ------------------------------------------------------------


def check_arguments(form: FormSpec, arguments: Any) -> list[Issue]:
    """Validate arguments against the whole schema (the same check the send confirmation uses)."""
    return validate(form.schema, arguments)


def issues_by_field(form: FormSpec, issues: list[Issue]) -> dict[str, list[str]]:
    """Put each issue on the deepest field it belongs to ("'x' is required" goes on field x)."""
    keys = {spec.key for spec in form.fields()}
    by_field: dict[str, list[str]] = {}
    for issue in issues:
        path, message = issue.path, issue.message
        missing = _REQUIRED_MESSAGE.match(message)
        if missing:
            candidate = path + json_path([missing.group("name")])[1:]
            if candidate in keys:
                path, message = candidate, "required"
        by_field.setdefault(_owner(path, keys), []).append(message)
    return by_field


def _owner(path: str, keys: set[str]) -> str:
    best = "$"
    for key in keys:
        if (path == key or path.startswith(key + ".") or path.startswith(key + "[")) and len(key) > len(best):
            best = key
    return best


# -- values <-> arguments -------------------------------------------------------------


def empty_value(spec: FieldSpec) -> Any:
    """What a field holds when nothing is entered."""
    if spec.kind in TEXT_KINDS or spec.kind == "json":
        return ""
    if spec.kind == "array":
        return []
    if spec.kind == "object":
        return {}
    return None  # boolean (unset), enum (nothing chosen)


def default_values(form: FormSpec) -> dict[str, Any]:
    """The values of a fresh form: schema defaults where given, empty elsewhere."""
    values: dict[str, Any] = {}
    _defaults_into(form.root, values)
    return values


def _defaults_into(spec: FieldSpec, values: dict[str, Any]) -> None:
    if spec.kind == "object":
        values[spec.key] = {}
        for child in spec.children:
            _defaults_into(child, values)
        if isinstance(spec.default, dict):
            _arguments_into(spec, spec.default, values)
        return
    values[spec.key] = empty_value(spec)
    if spec.has_default:
        shown = _to_value(spec, spec.default)
        if shown is not MISSING:
            values[spec.key] = shown
    elif spec.kind == "boolean" and spec.required:
        values[spec.key] = False


def arguments_to_values(form: FormSpec, arguments: Any) -> dict[str, Any]:
    """What the form shows for some arguments; anything it cannot show is kept as an extra."""
    values: dict[str, Any] = {}
    for spec in form.fields():
        values[spec.key] = empty_value(spec)
    if form.root.kind == "json":
        values["$"] = _json_text(arguments)
        return values
    if isinstance(arguments, dict):
        _arguments_into(form.root, arguments, values)
    return values


def _arguments_into(spec: FieldSpec, arguments: dict[str, Any], values: dict[str, Any]) -> None:
    by_name = {child.name: child for child in spec.children}
    extras: dict[str, Any] = {}
    for name, argument in arguments.items():
        child = by_name.get(name)
        if child is None:
            extras[name] = argument
            continue
        if child.kind == "object":
            if isinstance(argument, dict):
                _arguments_into(child, argument, values)
                if _same(_object_out(child, values, force=child.required), argument):
                    continue
                for grandchild in child.walk():  # cannot reproduce it: keep it whole instead
                    values[grandchild.key] = empty_value(grandchild)
            extras[name] = argument
            continue
        shown = _to_value(child, argument)
        if shown is MISSING:
            extras[name] = argument
        else:
            values[child.key] = shown
    values[spec.key] = extras


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
    else:
        shown = _item_value(spec, argument)
        if shown is MISSING:
            return MISSING
    present, out = _field_out(spec, shown)
    return shown if present and _same(out, argument) else MISSING


def _item_value(spec: FieldSpec, argument: Any) -> Any:
    if spec.kind == "string":
        return argument if isinstance(argument, str) else MISSING
    if spec.kind in ("number", "integer"):
        return format_scalar(argument) if _is_number(argument) else MISSING
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


def _object_out(spec: FieldSpec, values: dict[str, Any], force: bool = False) -> dict[str, Any] | None:
    """An object's arguments; an optional object is left out until something in it is filled."""
    out: dict[str, Any] = {}
    filled = False
    for child in spec.children:
        if child.kind == "object":
            sub = _object_out(child, values, force=child.required)
            if sub is not None:
                out[child.name] = sub
                filled = filled or bool(sub) or not child.required
            continue
        present, value = _field_out(child, values.get(child.key, empty_value(child)))
        if present:
            out[child.name] = value
            filled = True
    extras = values.get(spec.key)
    if isinstance(extras, dict) and extras:
        filled = True
        for name, value in extras.items():
            out.setdefault(name, value)
    return out if filled or force else None


def _field_out(spec: FieldSpec, value: Any) -> tuple[bool, Any]:
    """(is it sent, the JSON value) for one non-object field's value."""
    if spec.kind in TEXT_KINDS:
        text = value if isinstance(value, str) else ("" if value is None else str(value))
        if text == "":
            return False, None  # empty means "not sent"; an explicit "" survives as an extra
        return True, parse_scalar(spec.kind, text)
    if spec.kind in ("boolean", "enum"):
        return (value is not None and value is not MISSING), value
    if spec.kind == "array":
        items = value if isinstance(value, list) else []
        if not items and not spec.required:
            return False, None
        assert spec.item is not None
        return True, [_item_out(spec.item, item) for item in items]
    if spec.kind == "json":
        text = value if isinstance(value, str) else ""
        if not text.strip():
            return False, None
        try:
            return True, json.loads(text)
        except ValueError as exc:
            raise FormValueError(spec.key, f"invalid JSON: {exc}") from None
    return False, None


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
