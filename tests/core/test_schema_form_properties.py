"""Property tests of the form engine over generated schemas.

A small grammar generates schemas with what real servers send: constrained scalars,
formats, plain/titled/legacy enums, consts, nested and optional objects, lists of
anything, multi-selects, tuples, discriminated ``oneOf``, nullables, local ``$ref``,
``allOf`` and free-form maps. Then:

- a fresh form's defaults (schemas whose leaves all carry defaults) make valid arguments;
- a simulated user filling the form (every field within its constraints, any number of
  list items, any variant, null where allowed) makes valid arguments, and the per-field
  checks agree;
- JSON -> form -> JSON keeps the data, valid or not.
"""

from __future__ import annotations

import json
import math
import string

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mcp_inspector.core.schema.form import (
    ENTRIES,
    NULL,
    FieldSpec,
    arguments_to_values,
    build_form,
    default_values,
    empty_values,
    format_scalar,
    sub_arguments,
    subform,
    validate_field,
    values_to_arguments,
)
from mcp_inspector.core.schema.validation import validate

NAMES = ["a", "b", "c", "d", "e", "f"]
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


# -- leaf values within constraints (JSON values) -------------------------------------


def leaf_value(schema: dict, draw):
    """A JSON value that satisfies one leaf schema of the grammar below."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    if "oneOf" in schema:  # titled enum
        return draw(st.sampled_from([member["const"] for member in schema["oneOf"]]))
    kind = schema["type"] if isinstance(schema["type"], str) else schema["type"][0]
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "integer":
        step = schema.get("multipleOf", 1)
        low, high = schema.get("minimum", -1000), schema.get("maximum", 1000)
        return step * draw(st.integers(math.ceil(low / step), math.floor(high / step)))
    if kind == "number":
        if "multipleOf" in schema:
            return 0.5 * draw(st.integers(1, 200))
        low, high = schema.get("exclusiveMinimum", -1e6), schema.get("maximum", 1e6)
        return draw(
            st.floats(low, high, exclude_min="exclusiveMinimum" in schema, allow_nan=False, allow_infinity=False)
        )
    fmt = schema.get("format")
    if fmt == "date":
        return draw(st.dates()).isoformat()
    if fmt == "date-time":
        return draw(st.dates()).isoformat() + "T12:30:00Z"
    if fmt == "email":
        return draw(st.text(string.ascii_lowercase, min_size=1, max_size=6)) + "@example.com"
    if fmt == "uuid":
        return str(draw(st.uuids()))
    if fmt == "uri":
        return "https://example.com/" + draw(st.text(string.ascii_lowercase, max_size=6))
    low, high = schema.get("minLength", 0), schema.get("maxLength", 12)
    alphabet = string.ascii_lowercase if "pattern" in schema else string.ascii_letters + string.digits + " -_.é€"
    return draw(st.text(alphabet, min_size=low, max_size=high))


# -- schema grammar ---------------------------------------------------------------------


@st.composite
def leaf_schema(draw, with_default: bool):
    kind = draw(
        st.sampled_from(
            ["string", "integer", "number", "boolean", "enum", "titled", "legacy", "const", "format", "pattern"]
        )
    )
    if kind == "string":
        low = draw(st.integers(0, 3))
        schema = {"type": "string", "minLength": low, "maxLength": max(low, 1) + draw(st.integers(0, 8))}
    elif kind == "pattern":
        schema = {"type": "string", "pattern": "^[a-z]+$", "minLength": 1, "maxLength": 8}
    elif kind == "format":
        schema = {"type": "string", "format": draw(st.sampled_from(["date", "date-time", "email", "uuid", "uri"]))}
    elif kind == "integer":
        step = draw(st.sampled_from([1, 2, 5]))
        low = step * draw(st.integers(-20, 20))
        schema = {
            "type": "integer",
            "minimum": low,
            "maximum": low + step * draw(st.integers(0, 30)),
            "multipleOf": step,
        }
    elif kind == "number":
        schema = draw(
            st.sampled_from(
                [
                    {"type": "number", "exclusiveMinimum": 0, "maximum": 100},
                    {"type": "number", "multipleOf": 0.5, "minimum": 0},
                    {"type": "number"},
                ]
            )
        )
    elif kind == "boolean":
        schema = {"type": "boolean"}
    elif kind == "enum":
        schema = {
            "type": "string",
            "enum": draw(
                st.lists(st.sampled_from(["red", "green", "blue", "x y", "[b]"]), min_size=1, max_size=4, unique=True)
            ),
        }
    elif kind == "titled":
        values = draw(st.lists(st.sampled_from(["s", "m", "l", "xl"]), min_size=2, max_size=4, unique=True))
        schema = {"type": "string", "oneOf": [{"const": v, "title": v.upper()} for v in values]}
    elif kind == "legacy":
        schema = {"type": "string", "enum": ["p", "q"], "enumNames": ["Pee", "Queue"]}
    else:
        schema = {"const": draw(st.sampled_from(["v1", 2, True]))}
    if with_default and "const" not in schema:
        schema["default"] = leaf_value(schema, draw)
    if draw(st.booleans()):
        schema["description"] = "d"
    return schema


def object_of(children, draw, with_default):
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
    properties = {name: draw(children) for name in names}
    required = [name for name in names if draw(st.booleans())]
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if draw(st.integers(0, 3)) == 0:
        schema["additionalProperties"] = False
    return schema


@st.composite
def node_schema(draw, depth: int, with_default: bool):
    if depth <= 0:
        return draw(leaf_schema(with_default))
    children = node_schema(depth - 1, with_default)
    kind = draw(
        st.sampled_from(["leaf", "leaf", "object", "list", "multi", "tuple", "variant", "nullable", "map", "allof"])
    )
    if kind == "leaf":
        return draw(leaf_schema(with_default))
    if kind == "object":
        return object_of(children, draw, with_default)
    if kind == "list":
        low = draw(st.integers(0, 2))
        items = draw(children)
        schema = {"type": "array", "items": items, "minItems": low, "maxItems": low + draw(st.integers(0, 3))}
        titled = "oneOf" in items and all("const" in member for member in items["oneOf"])
        choices = len(items.get("enum") or (items["oneOf"] if titled else []) or [None] * ("const" in items))
        if choices:  # a list of choices is a multi-select: each value at most once
            schema.update(uniqueItems=True, minItems=min(low, choices), maxItems=min(schema["maxItems"], choices))
            if with_default:  # a multi-select's default is the schema's to give (the form never picks for the user)
                values = items.get("enum") or [m["const"] for m in items.get("oneOf", [])] or [items.get("const")]
                schema["default"] = values[: schema["minItems"]]
        return schema
    if kind == "multi":
        options = draw(st.lists(st.sampled_from(["x", "y", "z", "w"]), min_size=2, max_size=4, unique=True))
        items = (
            {"type": "string", "enum": options}
            if draw(st.booleans())
            else {"anyOf": [{"const": o, "title": o.upper()} for o in options]}
        )
        schema = {"type": "array", "items": items, "uniqueItems": True, "maxItems": len(options)}
        if with_default:
            schema["default"] = options[:1]
        return schema
    if kind == "tuple":
        prefix = [draw(leaf_schema(with_default)) for _ in range(draw(st.integers(1, 3)))]
        return {"type": "array", "prefixItems": prefix, "items": False, "minItems": len(prefix)}
    if kind == "variant":
        members = []
        for index in range(draw(st.integers(2, 3))):
            member = object_of(children, draw, with_default)
            member["properties"] = {"kind": {"const": f"v{index}"}, **{k: v for k, v in member["properties"].items()}}
            member["required"] = ["kind", *member.get("required", [])]
            member["title"] = f"Variant {index}"
            members.append(member)
        return {draw(st.sampled_from(["oneOf", "anyOf"])): members}
    if kind == "nullable":
        inner = draw(st.one_of(leaf_schema(with_default), st.just(None)))
        if inner is None:
            inner = object_of(children, draw, with_default)
        if "type" in inner and isinstance(inner["type"], str) and inner["type"] != "object" and draw(st.booleans()):
            return {**inner, "type": [inner["type"], "null"]}
        return {"anyOf": [inner, {"type": "null"}]}
    if kind == "map":
        return {
            "type": "object",
            "additionalProperties": draw(leaf_schema(with_default)),
            "propertyNames": {"pattern": "^[a-z]+$"},
        }
    # allOf: an object split in two members
    whole = object_of(children, draw, with_default)
    whole.pop("additionalProperties", None)
    names = list(whole["properties"])
    cut = draw(st.integers(0, len(names)))
    required = whole.get("required", [])
    first = {
        "type": "object",
        "properties": {n: whole["properties"][n] for n in names[:cut]},
        "required": [n for n in required if n in names[:cut]],
    }
    second = {
        "properties": {n: whole["properties"][n] for n in names[cut:]},
        "required": [n for n in required if n in names[cut:]],
    }
    return {"allOf": [first, second]}


def hoist_refs(schema, draw, defs: dict):
    """Move some object subschemas into $defs and point at them with $ref."""
    if isinstance(schema, list):
        return [hoist_refs(item, draw, defs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        key: (
            hoist_refs(value, draw, defs)
            if key in ("properties", "items", "prefixItems", "oneOf", "anyOf", "allOf", "additionalProperties")
            else value
        )
        for key, value in schema.items()
    }
    if "properties" in schema:
        out["properties"] = {name: hoist_refs(sub, draw, defs) for name, sub in schema["properties"].items()}
    if out.get("type") == "object" and "properties" in out and draw(st.integers(0, 2)) == 0:
        name = f"Def{len(defs)}"
        defs[name] = out
        return {"$ref": f"#/$defs/{name}"}
    return out


@st.composite
def tool_schema(draw, with_default: bool = False):
    root = object_of(node_schema(2, with_default), draw, with_default)
    root.pop("additionalProperties", None)
    defs: dict = {}
    properties = {name: hoist_refs(sub, draw, defs) for name, sub in root["properties"].items()}
    root["properties"] = properties
    if defs:
        root["$defs"] = defs
    if draw(st.booleans()):
        root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return root


# -- a simulated user ----------------------------------------------------------------------


def fill(root: FieldSpec, draw, depth: int = 0) -> dict:
    """Sub-values for a (sub-)form as a user could enter them: every filled field within its constraints."""
    values = empty_values(root)
    fill_spec(root, values, draw, depth, force=True)
    return values


def fill_spec(spec: FieldSpec, values: dict, draw, depth: int, force: bool = False) -> None:
    if spec.nullable and not force and draw(st.integers(0, 4)) == 0:
        values[spec.key + NULL] = True
        return
    if spec.kind in ("object", "tuple"):
        if not (force or spec.required or draw(st.booleans())):
            return
        for child in spec.children:
            if child.required or spec.kind == "tuple" or draw(st.booleans()):
                fill_spec(child, values, draw, depth, force=child.required or spec.kind == "tuple")
        if spec.has_entries and draw(st.booleans()):
            names = draw(st.lists(st.text(string.ascii_lowercase, min_size=1, max_size=4), max_size=3, unique=True))
            values[spec.key + ENTRIES] = [
                [name, fill(subform(spec), draw, depth + 1)]
                for name in names
                if name not in {c.name for c in spec.children}
            ]
        return
    if spec.kind in ("string", "integer", "number"):
        value = leaf_value(spec.schema, draw)
        while value == "":  # an empty input means "not sent": a user types something
            value = leaf_value(spec.schema, draw)
        values[spec.key] = format_scalar(value)
    elif spec.kind in ("boolean", "enum"):
        values[spec.key] = (
            leaf_value(spec.schema, draw)
            if spec.const is None or spec.kind == "boolean" or not spec.options
            else draw(st.sampled_from([o.value for o in spec.options]))
        )
    elif spec.kind == "array":
        low = spec.constraints.get("minItems", 0)
        high = spec.constraints.get("maxItems", low + 3)
        if spec.item.kind == "enum":
            values[spec.key] = draw(
                st.lists(
                    st.sampled_from([o.value for o in spec.item.options]), min_size=low, max_size=high, unique=True
                )
            )
        else:
            items = draw(st.lists(st.just(None), min_size=low, max_size=high))
            as_typed = (lambda v: v) if spec.item.kind == "boolean" else format_scalar  # a Switch holds a bool
            values[spec.key] = [as_typed(leaf_value(spec.item.schema, draw)) for _ in items]
    elif spec.kind == "list":
        low = spec.constraints.get("minItems", 0)
        high = spec.constraints.get("maxItems", low + 2)
        count = draw(st.integers(low, high if depth < 3 else low))
        values[spec.key] = [fill(subform(spec), draw, depth + 1) for _ in range(count)]
        if spec.constraints.get("uniqueItems"):  # a user would not enter the same item twice here
            sent = [json.dumps(sub_arguments(subform(spec), item), sort_keys=True) for item in values[spec.key]]
            assume(len(set(sent)) == len(sent))
    elif spec.kind == "variant":
        choice = draw(st.integers(0, len(spec.choices) - 1))
        values[spec.key] = {"choice": choice, "values": fill(subform(spec, choice), draw, depth + 1)}
    else:
        raise AssertionError(f"the grammar made a field the user cannot fill: {spec.key} {spec.kind} {spec.note}")


def check_fields_agree(root: FieldSpec, values: dict) -> None:
    for spec in root.walk():
        if (
            spec.kind in ("string", "integer", "number", "array", "list")
            and not values.get(spec.key + NULL)
            and values[spec.key] not in ("", [])
        ):  # empty: not sent (an optional parent left out)
            assert validate_field(spec, values[spec.key]) is None, (spec.key, values[spec.key])
        if spec.kind == "list":
            for item in values[spec.key]:
                check_fields_agree(subform(spec), item)
        elif spec.kind == "variant" and values[spec.key]["choice"] is not None:
            check_fields_agree(subform(spec, values[spec.key]["choice"]), values[spec.key]["values"])


# -- properties ---------------------------------------------------------------------------


@pytest.mark.slow
@SETTINGS
@given(schema=tool_schema(with_default=True))
def test_property_defaults_make_valid_arguments(schema):
    form = build_form(schema)
    assert form.root.kind == "object" and form.fallback_notes == [], json.dumps(schema)
    arguments = values_to_arguments(form, default_values(form))
    assert validate(schema, arguments) == [], (json.dumps(schema), arguments)
    assert values_to_arguments(form, arguments_to_values(form, arguments)) == arguments


@SETTINGS
@given(data=st.data())
def test_property_filled_forms_make_valid_arguments(data):
    schema = data.draw(tool_schema(), label="schema")
    form = build_form(schema)
    values = fill(form.root, data.draw)
    check_fields_agree(form.root, values)
    arguments = values_to_arguments(form, values)
    assert validate(schema, arguments) == [], (json.dumps(schema), arguments)
    # JSON -> form -> JSON keeps valid data exactly
    again = arguments_to_values(form, arguments)
    assert values_to_arguments(form, again) == arguments
    assert again["$"] == {}  # and shows all of it in the form, nothing left as an extra


JSONS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(NAMES + ["kind", "zz"]), children, max_size=3)
    ),
    max_leaves=10,
)


@SETTINGS
@given(data=st.data())
def test_property_any_json_survives_a_round_trip(data):
    schema = data.draw(tool_schema(), label="schema")
    form = build_form(schema)
    arguments = data.draw(
        st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=3), JSONS, max_size=6), label="arguments"
    )
    back = values_to_arguments(form, arguments_to_values(form, arguments))
    assert json.dumps(back, sort_keys=True) == json.dumps(arguments, sort_keys=True)


KEYWORDS = [
    "type",
    "properties",
    "items",
    "prefixItems",
    "required",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "additionalProperties",
    "patternProperties",
    "minItems",
    "default",
    "format",
    "title",
    "not",
    "nullable",
]
GARBAGE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from(["object", "array", "string", "null", "#", "#/$defs/a", "^x", "date"]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(KEYWORDS + ["a", "b"]), children, max_size=4)
    ),
    max_leaves=15,
)


@SETTINGS
@given(
    schema=st.one_of(
        GARBAGE,
        st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.dictionaries(st.sampled_from(NAMES), GARBAGE, max_size=4),
                "$defs": st.fixed_dictionaries({"a": GARBAGE}),
            }
        ),
    ),
    arguments=st.dictionaries(st.sampled_from(NAMES), JSONS, max_size=3),
)
def test_property_odd_schemas_never_crash_the_engine(schema, arguments):
    """Whatever a server sends as inputSchema, the engine builds something and round-trips data."""
    form = build_form(schema)
    default_values(form)
    back = values_to_arguments(form, arguments_to_values(form, arguments))
    assert json.dumps(back, sort_keys=True) == json.dumps(arguments, sort_keys=True)
    for spec in form.fields():
        for sub in [subform(spec)] if spec.kind in ("list", "nested") or spec.has_entries else []:
            default_values(sub)
