"""The form tree: a schema node as a ``FieldSpec`` (kinds, constraints, sub-forms), and how typed-in
text maps to JSON scalars. See the package docstring for the values model."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import server_regex
from ..classify import understood, variants
from ..formats import ALL_PATTERNS, describe_constraints
from ..resolve import enum_options, multi_select_options, normalize
from ..validation import json_path

KINDS = (
    "string",
    "number",
    "integer",
    "boolean",
    "enum",
    "object",
    "array",
    "list",
    "tuple",
    "variant",
    "nested",
    "json",
)
TEXT_KINDS = ("string", "number", "integer")  # typed into a text input
PRIMITIVE_KINDS = ("string", "number", "integer", "boolean", "enum")
CONSTRAINT_KEYS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    ALL_PATTERNS,
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
)
NULL = "#null"  # values[key + NULL] is True when a nullable field is explicitly null
ENTRIES = "{}"  # values[key + ENTRIES]: an object's free-form entries, [[name, sub-values], ...]
EMPTY = "#empty"  # values[key + EMPTY]: an empty string field sends "" (without it, empty means "not sent")
OMIT = "#omit"  # values[key + OMIT]: a required object/list the loaded arguments lacked stays out until filled
MAX_NESTING = 24  # sub-forms built for defaults stop here (recursive schemas)
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
REQUIRED_MESSAGE = re.compile(r"^'(?P<name>.+)' is a required property$")


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
    children: list[FieldSpec] = field(default_factory=list)
    item: FieldSpec | None = None
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
    refs: tuple[Any, ...] = field(default=(), repr=False)  # $refs entered on the way here (recursion guard)
    subs: dict[str, Any] = field(default_factory=dict, repr=False)  # sub-forms built so far

    @property
    def label(self) -> str:
        return self.title or self.name or "value"

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING

    @property
    def has_entries(self) -> bool:
        return self.kind == "object" and self.entry_schema is not MISSING

    def walk(self) -> Iterator[FieldSpec]:
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


def _text(schema: dict[str, Any], key: str) -> str | None:
    value = schema.get(key)
    return value if isinstance(value, str) and value else None


def _build(schema: Any, name: str, key: str, required: bool, doc: Any, refs: tuple[Any, ...]) -> FieldSpec:
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
        item = _base(
            inner.get("items") if isinstance(inner.get("items"), dict) else {}, "", key + "[]", True, doc, refs
        )
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
        spec.note = (
            "no type is declared, so any JSON value is accepted"
            if types is None
            else f"type {types!r} is not supported"
        )
    return spec


def _base(schema: dict[str, Any], name: str, key: str, required: bool, doc: Any, refs: tuple[Any, ...]) -> FieldSpec:
    examples = schema.get("examples")
    return FieldSpec(
        kind="json",
        name=name,
        key=key,
        schema=schema,
        title=_text(schema, "title"),
        description=_text(schema, "description"),
        required=required,
        default=schema.get("default", MISSING),
        constraints={k: schema[k] for k in CONSTRAINT_KEYS if k in schema},
        examples=list(examples) if isinstance(examples, list) else [],
        hints=describe_constraints(schema),
        deprecated=schema.get("deprecated") is True,
        context=_context(doc),
        doc=doc,
        refs=refs,
    )


def _json_field(schema: Any, name: str, key: str, required: bool, note: str, doc: Any = None) -> FieldSpec:
    info = schema if isinstance(schema, dict) else {}
    return FieldSpec(
        kind="json",
        name=name,
        key=key,
        schema=schema,
        title=_text(info, "title"),
        description=_text(info, "description"),
        required=required,
        default=info.get("default", MISSING),
        note=note,
        context=_context(doc),
        doc=doc,
    )


def _label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _build_object(spec: FieldSpec, schema: dict[str, Any]) -> None:
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


def _build_array(spec: FieldSpec, schema: dict[str, Any]) -> None:
    prefix = schema.get("prefixItems")
    items = schema.get("items", MISSING)
    if not isinstance(prefix, list) and isinstance(items, list):  # draft-07 tuple
        prefix, items = items, schema.get("additionalItems", MISSING)
    if isinstance(prefix, list):
        spec.kind = "tuple"
        spec.closed_items = items is False
        spec.children = [
            _build(
                sub,
                str(index),
                f"{spec.key}[{index}]",
                isinstance(schema.get("minItems"), int) and index < schema["minItems"],
                spec.doc,
                spec.refs,
            )
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


def key_message(spec: FieldSpec, name: str) -> str | None:
    """A message for a free-form entry's name (its pattern, or why it was not checked), or None."""
    if spec.key_pattern is None:
        return None
    verdict = server_regex.search(spec.key_pattern, name)
    if isinstance(verdict, server_regex.Unchecked):
        return str(verdict)
    return None if verdict else f"the name must match {spec.key_pattern}"


def key_allowed(spec: FieldSpec, name: str) -> bool:
    """The name may be a free-form entry: its pattern matches it, or could not be checked."""
    return spec.key_pattern is None or server_regex.search(spec.key_pattern, name) is not False


def is_num(value: Any) -> bool:
    return is_number(value)


def is_number(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and (not isinstance(value, float) or math.isfinite(value))
    )


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


def _collect_fallbacks(root: FieldSpec, prefix: str, depth: int, found: list[Any]) -> None:
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
