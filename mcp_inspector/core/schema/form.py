"""A tool's ``inputSchema`` as a tree of form fields, with no UI in it.

The UI renders a ``FormSpec`` and keeps *values* (what the widgets hold: raw
text for typed-in scalars, bools, enum values, lists); this module turns
values into ``tools/call`` arguments and back. The round trip JSON -> form ->
JSON never loses anything: a value the form cannot show faithfully (an unknown
key, a wrong type, an empty string in an optional field...) is kept as an
*extra* of its object and sent back unchanged.

Real servers' schemas are handled node by node with ``schema_resolve``: local
``$ref`` (followed lazily: a recursive reference becomes a ``nested`` field
built only when the user opens it), ``allOf`` merged, ``oneOf``/``anyOf`` as a
``variant`` field (one sub-form per alternative), nullable types (an explicit
null choice), titled and legacy enums, multi-selects, arrays of anything
(``list``: one sub-form per item), tuples (``prefixItems``) and free-form
object parts (``additionalProperties``/``patternProperties``: key/value
entries). Only a subtree the form really cannot show (if/then/else, ``not``, a
broken or remote ``$ref``...) becomes a ``kind="json"`` field, with a note.

Values are a flat dict keyed by each field's JSON path (``$.assignee.name``,
the same paths ``validation.validate`` reports). An object field's own entry
holds its extras (a dict of keys the form does not show). Dynamic parts hold
*sub-values*: dicts of the same shape for a sub-form whose root key is ``$``
(list items, the chosen variant, map entries, an opened nested field), built
with ``subform(spec, which)``. Extra keys: ``key + NULL`` is True when a
nullable field is explicitly null; ``key + EMPTY`` is True when an empty string
field sends ``""`` rather than nothing; ``key + ENTRIES`` holds an object's free-form
entries as ``[name, sub-values]`` pairs.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..protocol.json_text import JsonTextError, loads_strict
from .resolve import (
    check_format,
    describe_constraints,
    enum_options,
    multi_select_options,
    normalize,
    understood,
    variants,
)
from .validation import Issue, is_multiple_of, json_path, validate

KINDS = ("string", "number", "integer", "boolean", "enum", "object", "array", "list", "tuple", "variant", "nested", "json")
TEXT_KINDS = ("string", "number", "integer")  # typed into a text input
PRIMITIVE_KINDS = ("string", "number", "integer", "boolean", "enum")
CONSTRAINT_KEYS = (
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems",
    "minProperties", "maxProperties",
)
NULL = "#null"  # values[key + NULL] is True when a nullable field is explicitly null
ENTRIES = "{}"  # values[key + ENTRIES]: an object's free-form entries, [[name, sub-values], ...]
EMPTY = "#empty"  # values[key + EMPTY]: an empty string field sends "" (without it, empty means "not sent")
OMIT = "#omit"  # values[key + OMIT]: a required object/list the loaded arguments lacked stays out until filled
MAX_NESTING = 24  # sub-forms built for defaults stop here (recursive schemas)
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


@dataclass(frozen=True, slots=True)
class VariantChoice:
    """One alternative of a ``variant`` field (its sub-form is built on demand)."""

    title: str
    schema: Any
    discriminator: tuple[str, Any] | None = None


@dataclass(slots=True)
class FieldSpec:
    """One node of the form. ``key`` is its JSON path; primitive array items use ``[]``."""

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
    const: Any = MISSING  # a fixed value (kind "enum" with one option)
    examples: list[Any] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)  # constraints in words, shown beside the field
    choices: list[VariantChoice] = field(default_factory=list)  # kind "variant"
    item_schema: Any = None  # kind "list": the items' schema
    entry_schema: Any = MISSING  # objects with a free-form part: the entries' value schema
    key_pattern: str | None = None  # the entries' names must match it
    closed_items: bool = False  # kind "tuple": no items beyond the prefix
    deprecated: bool = False
    doc: Any = field(default=None, repr=False)  # the whole schema document ($ref resolves in it)
    refs: tuple = field(default=(), repr=False)  # $refs entered on the way here (recursion guard)
    subs: dict = field(default_factory=dict, repr=False)  # sub-forms built so far

    @property
    def label(self) -> str:
        return self.title or self.name or "value"

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING

    @property
    def has_entries(self) -> bool:
        return self.kind == "object" and self.entry_schema is not MISSING

    def walk(self) -> Iterator["FieldSpec"]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(slots=True)
class FormSpec:
    schema: Any
    root: FieldSpec

    def fields(self) -> Iterator[FieldSpec]:
        """Every static field, depth first (sub-forms of lists, variants... are not included)."""
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
    root = _build(schema, "", "$", True, schema, ("#",))
    if root.kind != "object":
        reason = root.note if root.kind == "json" and root.note else "the input schema is not an object schema"
        root = _json_field(schema, "", "$", True, reason, schema)
    return FormSpec(schema, root)


def subform(spec: FieldSpec, which: int | None = None) -> FieldSpec:
    """The root (key ``$``) of a sub-form: a list item, variant ``which``, a map entry, a nested field.

    Built on first use and cached, so a recursive schema grows only as deep as the user opens it.
    """
    cache_key = which if spec.kind == "variant" else spec.kind
    found = spec.subs.get(cache_key)
    if found is not None:
        return found
    if spec.kind == "list":
        schema = spec.item_schema
    elif spec.kind == "variant":
        assert which is not None
        schema = spec.choices[which].schema
    elif spec.kind == "nested":
        schema = spec.schema
    elif spec.has_entries:
        schema = spec.entry_schema
    else:
        raise ValueError(f"{spec.key} ({spec.kind}) has no sub-form")
    own = _own_refs(schema)  # built one level at a time, on demand: recursion is fine here
    refs = tuple(ref for ref in spec.refs if ref not in own)
    built = _build(schema, "", "$", True, spec.doc, refs)
    spec.subs[cache_key] = built
    return built


def _context(doc: Any) -> dict[str, Any]:
    return {k: doc[k] for k in ("$schema", "$defs", "definitions") if isinstance(doc, dict) and k in doc}


def _own_refs(schema: Any) -> list[str]:
    """The $refs this node follows at once: its own, and that of an Optional[$ref] member."""
    if not isinstance(schema, dict):
        return []
    found = [schema["$ref"]] if isinstance(schema.get("$ref"), str) else []
    for key in ("anyOf", "oneOf"):
        members = schema.get(key)
        if isinstance(members, list) and len(members) == 2:
            for member in members:
                if isinstance(member, dict) and isinstance(member.get("$ref"), str):
                    others = [m for m in members if m is not member]
                    if others and isinstance(others[0], dict) and others[0].get("type") == "null":
                        found.append(member["$ref"])
    return found


def _text(schema: dict, key: str) -> str | None:
    value = schema.get(key)
    return value if isinstance(value, str) and value else None


def _build(schema: Any, name: str, key: str, required: bool, doc: Any, refs: tuple) -> FieldSpec:
    if schema is True or schema == {}:
        return _json_field(schema, name, key, required, "any JSON value is accepted", doc)
    if not isinstance(schema, dict):
        reason = "the schema is `false`: no value is allowed" if schema is False else "the schema is not an object"
        return _json_field(schema, name, key, required, reason, doc)
    entered = _own_refs(schema)
    if any(ref in refs for ref in entered):  # recursion: open it on demand
        spec = _base(schema, name, key, required, doc, refs + tuple(entered))
        spec.kind = "nested"
        spec.title = spec.title or entered[0].rsplit("/", 1)[-1] or None
        return spec
    refs = refs + tuple(entered)
    ok, reason = understood(schema, doc)
    if not ok:
        return _json_field(schema, name, key, required, reason, doc)
    inner, is_nullable, problems = normalize(doc, schema)
    if problems:
        return _json_field(schema, name, key, required, "; ".join(problems), doc)
    if not isinstance(inner, dict):
        return _json_field(inner, name, key, required, "any JSON value is accepted", doc)
    spec = _base(inner, name, key, required, doc, refs)
    spec.nullable = is_nullable
    if "const" in inner and "enum" not in inner:
        spec.kind, spec.const = "enum", inner["const"]
        spec.options = [EnumOption(inner["const"], _label(inner["const"]))]
        return spec
    options = enum_options(inner)
    if options is not None:
        spec.kind = "enum"
        spec.options = [EnumOption(value, label) for value, label in options]
        if len(options) == 1:  # a one-value enum is a constant (often a variant's discriminator)
            spec.const = options[0][0]
        return spec
    multi = multi_select_options(inner)
    if multi is not None:
        item = _base(inner.get("items") if isinstance(inner.get("items"), dict) else {}, "", key + "[]", True, doc, refs)
        item.kind, item.options = "enum", [EnumOption(value, label) for value, label in multi]
        spec.kind, spec.item = "array", item
        return spec
    choices = variants(doc, inner)
    if choices:
        spec.kind = "variant"
        spec.choices = [VariantChoice(c.title, c.schema, c.discriminator) for c in choices]
        return spec
    types = inner.get("type")
    if types is None:
        if any(k in inner for k in ("properties", "additionalProperties", "patternProperties", "required")):
            types = "object"
        elif any(k in inner for k in ("items", "prefixItems")):
            types = "array"
    if isinstance(types, list) and len(types) == 1:
        types = types[0]
    if types in ("string", "number", "integer", "boolean"):
        spec.kind = types
    elif types == "object":
        _build_object(spec, inner)
    elif types == "array":
        _build_array(spec, inner)
    else:
        spec.note = "no type is declared, so any JSON value is accepted" if types is None else f"type {types!r} is not supported"
    return spec


def _base(schema: dict, name: str, key: str, required: bool, doc: Any, refs: tuple) -> FieldSpec:
    examples = schema.get("examples")
    return FieldSpec(
        kind="json", name=name, key=key, schema=schema,
        title=_text(schema, "title"), description=_text(schema, "description"),
        required=required, default=schema.get("default", MISSING),
        constraints={k: schema[k] for k in CONSTRAINT_KEYS if k in schema},
        examples=list(examples) if isinstance(examples, list) else [],
        hints=describe_constraints(schema), deprecated=schema.get("deprecated") is True,
        context=_context(doc), doc=doc, refs=refs,
    )


def _json_field(schema: Any, name: str, key: str, required: bool, note: str, doc: Any = None) -> FieldSpec:
    info = schema if isinstance(schema, dict) else {}
    return FieldSpec(
        kind="json", name=name, key=key, schema=schema,
        title=_text(info, "title"), description=_text(info, "description"),
        required=required, default=info.get("default", MISSING), note=note,
        context=_context(doc), doc=doc,
    )


def _label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _build_object(spec: FieldSpec, schema: dict) -> None:
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        spec.note = "`properties` is not an object"
        return
    required = schema.get("required", [])
    required = {name for name in required if isinstance(name, str)} if isinstance(required, list) else set()
    spec.kind = "object"
    for prop, sub in properties.items():
        if isinstance(sub, dict) and sub.get("readOnly") is True:
            continue  # the server sets it: not an input
        spec.children.append(_build(sub, prop, spec.key + json_path([prop])[1:], prop in required, spec.doc, spec.refs))
    patterns = schema.get("patternProperties")
    additional = schema.get("additionalProperties", MISSING)
    names = schema.get("propertyNames")
    if isinstance(patterns, dict) and patterns:
        if len(patterns) == 1:
            spec.key_pattern, spec.entry_schema = next(iter(patterns.items()))
        else:
            spec.entry_schema = {"anyOf": list(patterns.values())}
    elif isinstance(additional, dict) or additional is True:
        spec.entry_schema = additional
    elif additional is MISSING and not properties and spec.key != "$":
        spec.entry_schema = True  # a free-form object: any keys, any values (not at the root: no arguments)
    if spec.key_pattern is None and isinstance(names, dict) and isinstance(names.get("pattern"), str):
        spec.key_pattern = names["pattern"]


def _is_primitive_item(schema: Any, doc: Any) -> FieldSpec | None:
    """The item spec when an array's items are plain scalars (one text input each), else None."""
    if not isinstance(schema, dict) or not understood(schema, doc)[0]:
        return None
    inner, is_nullable, problems = normalize(doc, schema)
    if problems or is_nullable or not isinstance(inner, dict):
        return None
    if any(k in inner for k in ("oneOf", "anyOf")) and enum_options(inner) is None:
        return None
    if enum_options(inner) is None and inner.get("type") not in ("string", "number", "integer", "boolean"):
        return None
    if "const" in inner and "enum" not in inner:
        return None
    return inner


def _build_array(spec: FieldSpec, schema: dict) -> None:
    prefix = schema.get("prefixItems")
    items = schema.get("items", MISSING)
    if not isinstance(prefix, list) and isinstance(items, list):  # draft-07 tuple
        prefix, items = items, schema.get("additionalItems", MISSING)
    if isinstance(prefix, list):
        spec.kind = "tuple"
        spec.closed_items = items is False
        spec.children = [
            _build(sub, str(index), f"{spec.key}[{index}]", isinstance(schema.get("minItems"), int) and index < schema["minItems"], spec.doc, spec.refs)
            for index, sub in enumerate(prefix)
        ]
        return
    if items is MISSING or items is True or items == {}:
        items = True
    primitive = _is_primitive_item(items, spec.doc)
    if primitive is not None:
        spec.kind = "array"
        spec.item = _build(items, "", spec.key + "[]", True, spec.doc, spec.refs)
        return
    spec.kind, spec.item_schema = "list", items


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
        if spec.kind == "number" and not _is_number(value):
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
                parsed = [json.dumps(_list_item_out(spec, v), sort_keys=True) for v in items]
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
        pattern = c.get("pattern")
        if isinstance(pattern, str):
            try:
                if re.search(pattern, value) is None:
                    return f"must match the pattern {pattern}"
            except re.error:
                pass  # a broken pattern is the schema's problem; validate() reports it
        return check_format(c.get("format"), value)
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
        if _num(step) and step > 0 and not is_multiple_of(value, step):
            return f"must be a multiple of {step}"
    return None


def key_message(spec: FieldSpec, name: str) -> str | None:
    """A message for a free-form entry's name (its pattern), or None."""
    if spec.key_pattern is None:
        return None
    try:
        return None if re.search(spec.key_pattern, name) else f"the name must match {spec.key_pattern}"
    except re.error:
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


def issues_by_field(form: FormSpec | FieldSpec, issues: list[Issue]) -> dict[str, list[str]]:
    """Put each issue on the deepest field it belongs to ("'x' is required" goes on field x)."""
    root = form.root if isinstance(form, FormSpec) else form
    keys = {spec.key for spec in root.walk()}
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


def issues_under(key: str, issues: list[Issue]) -> list[Issue]:
    """The issues inside ``key`` (not on it), rebased so ``key`` is ``$``: for a sub-form."""
    out = []
    for issue in issues:
        if issue.path.startswith(key + ".") or issue.path.startswith(key + "["):
            out.append(Issue("$" + issue.path[len(key):], issue.message))
        elif issue.path == key and _REQUIRED_MESSAGE.match(issue.message):
            out.append(Issue("$", issue.message))
    return out


def _owner(path: str, keys: set[str]) -> str:
    best = "$"
    for key in keys:
        if (path == key or path.startswith(key + ".") or path.startswith(key + "[")) and len(key) > len(best):
            best = key
    return best


def variant_issues(spec: FieldSpec, value: Any) -> list[Issue]:
    """Issues of a variant's current JSON against the chosen alternative only (precise, unlike oneOf's)."""
    choice = value.get("choice") if isinstance(value, dict) else None
    if choice is None or spec.kind != "variant":
        return []
    try:
        present, out = _node_out(subform(spec, choice), value.get("values") or {})
    except FormValueError:
        return []
    if not present:
        return []
    schema = spec.choices[choice].schema
    if isinstance(schema, dict):
        schema = {**spec.context, **schema}
    return validate(schema, out)


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
                    if child.required and child.has_default and child.kind not in ("object", "tuple") and _to_value(child, child.default) is MISSING \
                            and not (child.default is None and child.nullable) and not (child.kind == "string" and child.default == ""):
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
        present, out = _node_out(root, values)
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
            if spec.has_entries and key_message(spec, name) is None:
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
    for child in spec.children:  # keep "absent" absent (and an extra unshadowed): a required object or list is sent empty
        if child.required and (child.name not in arguments or child.name in extras) and child.kind in ("object", "tuple", "array", "list"):
            values[child.key + OMIT] = True


def _tuple_into(spec: FieldSpec, arguments: list, values: dict[str, Any]) -> None:
    for child, argument in zip(spec.children, arguments):
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
    values[spec.key] = list(arguments[len(spec.children):])


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
    from .resolve import Variant, pick_variant

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
        present, old = _node_out(old_root, value.get("values") or {})
        _, new = _node_out(new_root, fresh)
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


def sub_arguments(root: FieldSpec, values: dict[str, Any]) -> tuple[bool, Any]:
    """(is anything sent, the JSON) of a sub-form's values."""
    return _node_out(root, values)


def _node_out(spec: FieldSpec, values: dict[str, Any]) -> tuple[bool, Any]:
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
        return None  # the caller sends null (see _node_out)
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
        present, value = _node_out(child, values)
        if present:
            out[child.name] = value
            filled = filled or not _blank(value)  # a required list/tuple is sent empty, but that alone fills nothing
    if spec.has_entries:
        entry = subform(spec)
        for pair in values.get(spec.key + ENTRIES) or []:
            name, sub = pair[0], pair[1]
            present, value = _node_out(entry, sub)
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
    outs = [_node_out(child, values) for child in spec.children]
    last = max((index for index, (present, _) in enumerate(outs) if present), default=-1)
    extra = values.get(spec.key)
    has_extra = isinstance(extra, list) and bool(extra)
    if last < 0 and not has_extra and any(child.required for child in spec.children):
        return False, None  # nothing filled: missing (and reported so), not [null, ""]
    if last >= 0 or spec.required:
        last = max([last] + [index for index, child in enumerate(spec.children) if child.required])
    items = [value if present else ("" if child.kind == "string" else None)
             for (present, value), child in zip(outs[: last + 1], spec.children)]
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
        return True, [_list_item_out(spec, item) for item in items]
    if spec.kind == "variant":
        choice = value.get("choice") if isinstance(value, dict) else None
        if choice is None or not 0 <= choice < len(spec.choices):
            return False, None
        return _node_out(subform(spec, choice), value.get("values") or {})
    if spec.kind == "nested":
        if not isinstance(value, dict):
            return False, None
        return _node_out(subform(spec), value)
    if spec.kind == "json":
        text = value if isinstance(value, str) else ""
        if not text.strip():
            return False, None
        try:
            return True, loads_strict(text)
        except JsonTextError as exc:
            raise FormValueError(spec.key, f"invalid JSON: {exc}") from None
    return False, None


def _list_item_out(spec: FieldSpec, value: Any) -> Any:
    if spec.kind == "list":
        present, out = _node_out(subform(spec), value if isinstance(value, dict) else {})
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


# -- looking inside sub-forms -------------------------------------------------------------


def all_fallbacks(form: FormSpec | FieldSpec, depth: int = 4) -> list[tuple[str, str]]:
    """Every JSON-fallback subtree with its reason, looking into sub-forms ``depth`` levels deep.

    Sub-form paths read ``$.people[].name`` (list item), ``$.shape|Circle.radius`` (variant),
    ``$.env{}`` (map entry), ``$.root>.label`` (opened nested field).
    """
    root = form.root if isinstance(form, FormSpec) else form
    found: list[tuple[str, str]] = []
    _collect_fallbacks(root, "", depth, found)
    return found


def _collect_fallbacks(root: FieldSpec, prefix: str, depth: int, found: list) -> None:
    for spec in root.walk():
        where = prefix + spec.key[1:] if prefix else spec.key
        if spec.kind == "json" and spec.note:
            found.append((where, spec.note))
        if depth <= 0:
            continue
        if spec.kind == "list":
            _collect_fallbacks(subform(spec), where + "[]", depth - 1, found)
        elif spec.kind == "variant":
            for index, choice in enumerate(spec.choices):
                _collect_fallbacks(subform(spec, index), f"{where}|{choice.title}", depth - 1, found)
        elif spec.kind == "nested":
            _collect_fallbacks(subform(spec), where + ">", depth - 1, found)
        if spec.has_entries:
            _collect_fallbacks(subform(spec), where + "{}", depth - 1, found)


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
        elif spec.kind == "variant" and isinstance(value, dict) and isinstance(value.get("choice"), int) \
                and 0 <= value["choice"] < len(spec.choices):
            _collect_hidden(subform(spec, value["choice"]), value.get("values") or {}, prefix + spec.key[1:], depth - 1, found)
        elif spec.kind == "nested" and isinstance(value, dict):
            _collect_hidden(subform(spec), value, prefix + spec.key[1:], depth - 1, found)
        if spec.has_entries:
            for pair in values.get(spec.key + ENTRIES) or []:
                if isinstance(pair[0], str):
                    _collect_hidden(subform(spec), pair[1], prefix + spec.key[1:] + json_path([pair[0]])[1:], depth - 1, found)
