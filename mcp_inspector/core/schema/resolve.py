"""Pure helpers that make real-world JSON Schemas usable by a form, one node at a time.

Why: other inspectors give up and show a raw JSON box for a whole tool as soon as its
schema uses ``$ref``, ``oneOf``, ``allOf`` or an array of objects. The form engine walks
the schema itself and, at each node, asks these helpers to first normalise the node
(``deref`` -> ``merge_all_of`` -> ``nullable``), then to classify it (``enum_options``,
``multi_select_options``, ``variants``), and ``understood`` tells it when only *that
subtree* must fall back to JSON, with the reason to show.

Everything is lazy: a ``$ref`` is followed only when a caller descends into it, so a
recursive schema (a tree node whose children are nodes) costs nothing until the user
expands it. Nothing here does I/O: a remote ``$ref`` is reported, never fetched (the
MCP spec forbids dereferencing network references). Schemas are never mutated; new
dicts are returned.
"""

from __future__ import annotations

import datetime as _dt
import ipaddress
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from .validation import validate

MAX_REF_CHAIN = 32

# Keywords that only describe a value: when two schemas are combined the first one's win.
ANNOTATIONS = (
    "title", "description", "default", "examples", "$comment", "readOnly", "writeOnly", "deprecated",
    "enumNames",
)
_DIALECTS = {
    "json-schema.org/draft/2020-12/schema": "2020-12",
    "json-schema.org/draft/2019-09/schema": "2019-09",
    "json-schema.org/draft-07/schema": "draft-07",
    "json-schema.org/draft-06/schema": "draft-06",
    "json-schema.org/draft-04/schema": "draft-04",
    "json-schema.org/draft-03/schema": "draft-03",
}
_DIALECT_URIS = {
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft-07": "http://json-schema.org/draft-07/schema#",
    "draft-06": "http://json-schema.org/draft-06/schema#",
    "draft-04": "http://json-schema.org/draft-04/schema#",
}
# Dialects where a $ref's sibling keywords are ignored by validators (draft-07 and older).
_REF_OVERRIDES_SIBLINGS = frozenset({"draft-07", "draft-06", "draft-04", "draft-03"})
_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
_SAFE_INTEGER = 2**53 - 1  # zod emits +-Number.MAX_SAFE_INTEGER for "any integer": not a real limit
# The node keywords a form cannot represent, with the reason shown to the user.
_NOT_UNDERSTOOD = {
    "if": "it uses if/then/else (a conditional schema)",
    "then": "it uses if/then/else (a conditional schema)",
    "else": "it uses if/then/else (a conditional schema)",
    "not": "it uses `not` (a value that must NOT match a schema)",
    "dependentSchemas": "it uses dependentSchemas (a schema that applies only when a property is present)",
    "$dynamicRef": "it uses $dynamicRef",
    "$recursiveRef": "it uses $recursiveRef",
}


# -- dialect ------------------------------------------------------------------------


def dialect(schema: Any) -> str:
    """The JSON Schema dialect a root schema declares with ``$schema``.

    ``"2020-12"`` when there is none: MCP 2025-11-25 made it the default. An unknown
    URI gives ``"unknown"``, so the caller can say so instead of guessing.
    """
    uri = schema.get("$schema") if isinstance(schema, dict) else None
    if not isinstance(uri, str):
        return "2020-12"
    key = uri.strip().split("://", 1)[-1].rstrip("#")
    return _DIALECTS.get(key, "unknown")


def dialect_uri(name: str) -> str:
    """The canonical ``$schema`` URI of a dialect name from ``dialect()`` (2020-12 if unknown)."""
    return _DIALECT_URIS.get(name, _DIALECT_URIS["2020-12"])


# -- $ref ----------------------------------------------------------------------------


def resolve_ref(root: Any, ref: Any) -> tuple[Any, str | None]:
    """The subschema a ``$ref`` points at inside ``root``: ``(schema, None)`` or ``(None, problem)``.

    Only local references are followed: ``#``, JSON pointers such as ``#/$defs/X`` or
    ``#/definitions/X`` (with ``~0``/``~1`` and percent escapes), plain-name anchors
    (``#name`` via ``$anchor``, or a draft-07 ``$id: "#name"``), and absolute references
    whose base is the root's own ``$id``. Anything else is remote: reported, never fetched.
    """
    if not isinstance(ref, str):
        return None, f"$ref is not a string: {json.dumps(ref)[:80]}"
    base, hash_sign, fragment = ref.partition("#")
    if base:
        own_id = root.get("$id") if isinstance(root, dict) else None
        if not (isinstance(own_id, str) and own_id.partition("#")[0] == base):
            return None, f"remote $ref not fetched: {ref}"
    fragment = unquote(fragment)
    if not fragment:
        return root, None
    if not fragment.startswith("/"):
        found = _find_anchor(root, fragment)
        return (found, None) if found is not None else (None, f"$ref target not found: {ref}")
    node = root
    for raw_part in fragment[1:].split("/"):
        part = raw_part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None, f"$ref target not found: {ref}"
    if not isinstance(node, (dict, bool)):
        return None, f"$ref does not point at a schema: {ref}"
    return node, None


def _find_anchor(node: Any, name: str, depth: int = 0) -> Any:
    if depth > 64:
        return None
    if isinstance(node, dict):
        if node.get("$anchor") == name or node.get("$id") == f"#{name}":
            return node
        children = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        found = _find_anchor(child, name, depth + 1)
        if found is not None:
            return found
    return None


def deref(root: Any, schema: Any, depth: int = MAX_REF_CHAIN) -> tuple[Any, str | None]:
    """``schema`` with its ``$ref`` chain followed: ``(schema without $ref, problem | None)``.

    Only this node is resolved (a ``$ref`` inside its properties is left for when the
    caller descends), so recursive schemas are never expanded eagerly. Siblings of
    ``$ref`` are combined with the target as 2020-12 says (both apply; the sibling's
    title/description/default win, bounds are tightened). In draft-07 and older,
    validators ignore siblings, so only annotation siblings are kept. A chain longer than
    ``depth`` hops, a cycle, a missing or remote target returns the schema unchanged with
    the problem, so the caller can fall back to JSON for this subtree.
    """
    if not isinstance(schema, dict) or "$ref" not in schema:
        return schema, None
    keep_all_siblings = dialect(root) not in _REF_OVERRIDES_SIBLINGS
    current = schema
    seen: list[str] = []
    layers: list[dict] = []  # siblings of each $ref, outermost first
    while isinstance(current, dict) and "$ref" in current:
        ref = current["$ref"]
        if ref in seen:
            return schema, "$ref cycle: " + " -> ".join([*seen, str(ref)])
        if len(seen) >= depth:
            return schema, f"$ref chain longer than {depth} steps"
        seen.append(ref)
        target, problem = resolve_ref(root, ref)
        if problem:
            return schema, problem
        siblings = {k: v for k, v in current.items() if k != "$ref" and (keep_all_siblings or k in ANNOTATIONS)}
        layers.append(siblings)
        current = target
    if current is False:
        return False, None
    result: Any = dict(current) if isinstance(current, dict) else {}
    conflicts: list[str] = []
    for siblings in reversed(layers):  # innermost first, so the outermost annotations end up winning
        result, found = _combine(siblings, result)
        conflicts.extend(found)
    if conflicts:
        return schema, f"$ref {seen[0]} and its sibling keywords contradict: {conflicts[0]}"
    return result, None


# -- allOf ---------------------------------------------------------------------------


def merge_all_of(root: Any, schema: Any, _depth: int = 0) -> tuple[Any, list[str]]:
    """``schema`` with its ``allOf`` merged into one schema: ``(merged, problems)``.

    Members are dereferenced (and their own ``allOf`` merged) first. Properties and
    required lists are unioned, types intersected (``number`` & ``integer`` is
    ``integer``), bounds tightened, enums intersected, patterns and-ed. A property
    defined by two members becomes ``{"allOf": [a, b]}``, merged when the caller
    descends. Contradictions (different ``const``, disjoint types, nothing left in an
    enum) and what cannot be merged are reported; the caller should then fall back to
    JSON for this subtree. Without ``allOf`` the schema comes back as it is.
    """
    if not isinstance(schema, dict) or "allOf" not in schema:
        return schema, []
    members = schema["allOf"]
    problems: list[str] = []
    if not isinstance(members, list):
        return schema, ["allOf is not a list"]
    if _depth > MAX_REF_CHAIN:
        return schema, [f"allOf nested more than {MAX_REF_CHAIN} deep (an allOf that includes itself?)"]
    merged: Any = {k: v for k, v in schema.items() if k != "allOf"}
    for index, member in enumerate(members):
        member, problem = deref(root, member)
        if problem:
            problems.append(f"allOf member {index + 1}: {problem}")
            continue
        if member is True:
            continue
        if member is False:
            problems.append(f"allOf member {index + 1} is `false`: no value is valid")
            continue
        if not isinstance(member, dict):
            problems.append(f"allOf member {index + 1} is not a schema")
            continue
        member, inner = merge_all_of(root, member, _depth + 1)
        problems.extend(inner)
        merged, found = _combine(merged, member)
        problems.extend(found)
    return merged, problems


def _combine(a: dict, b: dict) -> tuple[dict, list[str]]:
    """Both schemas at once (their conjunction) as one dict; a's annotations win."""
    problems: list[str] = []
    out = dict(a)
    for key, value in b.items():
        if key not in out:
            out[key] = value
            continue
        mine = out[key]
        if key in ANNOTATIONS or key in ("$schema", "$id", "$defs", "definitions", "$anchor"):
            continue  # first wins
        if _same(mine, value):
            continue
        if key == "type":
            types = _intersect_types(mine, value)
            if not types:
                problems.append(f"types conflict: {_type_text(mine)} and {_type_text(value)}")
            else:
                out[key] = types[0] if len(types) == 1 else types
        elif key == "properties" and isinstance(mine, dict) and isinstance(value, dict):
            props = dict(mine)
            for name, sub in value.items():
                props[name] = sub if name not in props or _same(props[name], sub) else {"allOf": [props[name], sub]}
            out[key] = props
        elif key == "required" and isinstance(mine, list) and isinstance(value, list):
            out[key] = mine + [name for name in value if name not in mine]
        elif key in _LOWER_BOUNDS and _is_number(mine) and _is_number(value):
            out[key] = max(mine, value)
        elif key in _UPPER_BOUNDS and _is_number(mine) and _is_number(value):
            out[key] = min(mine, value)
        elif key == "multipleOf" and _is_number(mine) and _is_number(value):
            combined = _common_multiple(mine, value)
            if combined is None:
                problems.append(f"cannot combine multipleOf {_num(mine)} and {_num(value)}")
            else:
                out[key] = combined
        elif key == "pattern" and isinstance(mine, str) and isinstance(value, str):
            out[key] = f"^(?=[\\s\\S]*?(?:{mine}))(?=[\\s\\S]*?(?:{value}))"
        elif key == "uniqueItems":
            out[key] = bool(mine) or bool(value)
        elif key == "enum" and isinstance(mine, list) and isinstance(value, list):
            common = [item for item in mine if any(_same(item, other) for other in value)]
            if not common:
                problems.append("enums have no value in common")
            out[key] = common
        elif key == "const":
            problems.append(f"conflicting const: {json.dumps(mine)} and {json.dumps(value)}")
        elif key == "additionalProperties" and (mine is False or value is False):
            out[key] = False
        elif key in ("items", "additionalProperties", "contains", "propertyNames") and _is_schema(mine) and _is_schema(value):
            out[key] = {"allOf": [mine, value]}
        elif key == "format":
            problems.append(f"conflicting formats: {mine} and {value}")
        else:
            problems.append(f"cannot merge two different `{key}`")
    if "const" in out and "enum" in out and isinstance(out["enum"], list):
        if not any(_same(out["const"], item) for item in out["enum"]):
            problems.append(f"const {json.dumps(out['const'])} is not in the enum")
    for side, other in ((a, b), (b, a)):
        if side.get("additionalProperties") is False and isinstance(other.get("properties"), dict):
            extra = [name for name in other["properties"] if name not in (side.get("properties") or {})]
            if extra:
                problems.append(
                    "a member has additionalProperties: false, so validation rejects "
                    + ", ".join(extra[:5]) + " from another member"
                )
                break
    return out, problems


def _same(a: Any, b: Any) -> bool:
    return a == b and type(a) is type(b) if not isinstance(a, (dict, list)) else _canonical(a) == _canonical(b)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_schema(value: Any) -> bool:
    return isinstance(value, (dict, bool))


def _type_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def _type_text(value: Any) -> str:
    return " | ".join(_type_list(value)) or json.dumps(value)


def _intersect_types(a: Any, b: Any) -> list[str]:
    left, right = _type_list(a), _type_list(b)
    out: list[str] = []
    for name in left:
        if name in right:
            out.append(name)
        elif name == "number" and "integer" in right:
            out.append("integer")
        elif name == "integer" and "number" in right:
            out.append("integer")
    return list(dict.fromkeys(out))


def _common_multiple(a: float, b: float) -> float | None:
    if a <= 0 or b <= 0:
        return None
    if float(a).is_integer() and float(b).is_integer():
        return math.lcm(int(a), int(b))
    big, small = max(a, b), min(a, b)
    ratio = big / small
    if abs(ratio - round(ratio)) < 1e-9:
        return big
    return None


# -- nullable ------------------------------------------------------------------------


def _is_null_schema(schema: Any) -> bool:
    return isinstance(schema, dict) and (
        schema.get("type") == "null" or schema.get("type") == ["null"] or ("const" in schema and schema["const"] is None)
    ) and not any(key in schema for key in ("properties", "items", "oneOf", "anyOf", "allOf", "$ref"))


def nullable(schema: Any) -> tuple[Any, bool]:
    """``(inner_schema, is_nullable)``: the schema with its "or null" part taken off.

    Recognises ``type: [T, "null"]``, ``anyOf``/``oneOf`` with a ``{"type": "null"}``
    member (how pydantic writes ``Optional[T]``), an ``enum`` containing null and the
    OpenAPI ``nullable: true``. The inner schema keeps the outer title, description and
    default (a ``default: null`` is dropped from it: the inner schema cannot be null).
    A lone remaining member replaces the union; several stay as a smaller union.
    """
    if not isinstance(schema, dict):
        return schema, False
    inner = dict(schema)
    found = False
    enum = schema.get("enum")
    choices = enum_options(schema) if "enum" in schema or "oneOf" in schema or "anyOf" in schema else None
    if (choices is not None and not any(value is None for value, _ in choices)) or ("const" in schema and schema["const"] is not None):
        # `type: [string, null]` with an enum (or const) that has no null: null is not actually allowed
        types = inner.get("type")
        if isinstance(types, list) and "null" in types:
            rest = [name for name in types if name != "null"]
            if rest:
                inner["type"] = rest[0] if len(rest) == 1 else rest
                return inner, False
    if inner.pop("nullable", False) is True:
        found = True
    types = inner.get("type")
    if isinstance(types, list) and "null" in types:
        rest = [name for name in types if name != "null"]
        if rest:
            found = True
            inner["type"] = rest[0] if len(rest) == 1 else rest
    if isinstance(inner.get("enum"), list) and any(item is None for item in inner["enum"]):
        rest_enum = [item for item in inner["enum"] if item is not None]
        if rest_enum:
            found = True
            inner["enum"] = rest_enum
    for key in ("anyOf", "oneOf"):
        members = inner.get(key)
        if not isinstance(members, list) or not any(_is_null_schema(member) for member in members):
            continue
        rest_members = [member for member in members if not _is_null_schema(member)]
        if not rest_members:
            continue
        found = True
        del inner[key]
        if len(rest_members) == 1 and isinstance(rest_members[0], dict):
            inner, _ = _combine(inner, rest_members[0])
        else:
            inner[key] = rest_members
    if found and "default" in inner and inner["default"] is None:
        del inner["default"]
    return (inner, True) if found else (schema, False)


# -- enums ---------------------------------------------------------------------------


def _label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _const_of(member: Any) -> tuple[bool, Any]:
    if not isinstance(member, dict):
        return False, None
    if "const" in member:
        return True, member["const"]
    enum = member.get("enum")
    if isinstance(enum, list) and len(enum) == 1:
        return True, enum[0]
    return False, None


def enum_options(schema: Any) -> list[tuple[Any, str]] | None:
    """The choices of a single-select field as ``[(value, label)]``, or None if it is not one.

    Understands a plain ``enum`` (labels from the legacy ``enumNames`` when it has one
    per value), and ``oneOf``/``anyOf`` whose members are all ``const`` (or one-value
    ``enum``) with an optional ``title`` — the titled enum of MCP 2025-11-25. A bare
    ``const`` is not a choice and gives None.
    """
    if not isinstance(schema, dict):
        return None
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        names = schema.get("enumNames")
        if isinstance(names, list) and len(names) == len(enum) and all(isinstance(n, str) for n in names):
            return list(zip(enum, names))
        return [(value, _label(value)) for value in enum]
    for key in ("oneOf", "anyOf"):
        members = schema.get(key)
        if not isinstance(members, list) or not members:
            continue
        options = []
        for member in members:
            is_const, value = _const_of(member)
            if not is_const:
                return None
            title = member.get("title")
            options.append((value, title if isinstance(title, str) and title else _label(value)))
        return options
    return None


def multi_select_options(schema: Any) -> list[tuple[Any, str]] | None:
    """The choices of a multi-select: an array whose ``items`` is an enum (plain or titled).

    Returns ``[(value, label)]``, or None when the schema is not such an array.
    """
    if not isinstance(schema, dict):
        return None
    if "array" not in _type_list(schema.get("type")) and not (schema.get("type") is None and "items" in schema):
        return None
    return enum_options(schema.get("items"))


# -- variants (oneOf / anyOf) ----------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One alternative of a union, ready to be shown as a choice and then as a sub-form.

    ``schema`` is the member dereferenced, its ``allOf`` merged and combined with the
    union's own sibling keywords (shared properties, ``type``). ``discriminator`` is
    ``(property, value)`` when a ``const`` property tells the variants apart.
    """

    title: str
    schema: Any
    discriminator: tuple[str, Any] | None = None
    problems: tuple[str, ...] = ()
    # What validating against ``schema`` needs from the root (its $defs/definitions/$schema).
    context: dict = field(default_factory=dict, repr=False, compare=False)


def variants(root: Any, schema: Any) -> list[Variant]:
    """The alternatives of a ``oneOf``/``anyOf`` (or of a multi-type ``type`` list).

    ``{"type": "null"}`` members are left out (``nullable()`` handles them). When one
    property is ``const`` (or a one-value ``enum``) in every object variant with a
    different value in each, it is the discriminator (an OpenAPI
    ``discriminator.propertyName`` is preferred when it qualifies). Titles come from the
    member's ``title``, else the discriminator value, else the ``$ref`` name, else the
    type. Returns ``[]`` when the schema is not a union. Call ``enum_options`` first: a
    union of constants is a select, not variants.
    """
    if not isinstance(schema, dict):
        return []
    key = "oneOf" if isinstance(schema.get("oneOf"), list) else "anyOf" if isinstance(schema.get("anyOf"), list) else None
    context = {k: root[k] for k in ("$schema", "$defs", "definitions") if isinstance(root, dict) and k in root}
    if key is None:
        types = [name for name in _type_list(schema.get("type")) if name != "null"]
        if len(types) < 2:
            return []
        return [Variant(name, {**schema, "type": name}, None, (), context) for name in types]
    shared = {k: v for k, v in schema.items() if k not in (key, *ANNOTATIONS)}
    found: list[tuple[str | None, Any, list[str], Any]] = []
    for member in schema[key]:
        if _is_null_schema(member):
            continue
        ref_name = None
        if isinstance(member, dict) and isinstance(member.get("$ref"), str):
            ref_name = unquote(member["$ref"].rsplit("/", 1)[-1]).replace("~1", "/").replace("~0", "~") or None
        resolved, problem = deref(root, member)
        problems = [problem] if problem else []
        if isinstance(resolved, dict) and not problem:
            resolved, merge_problems = merge_all_of(root, resolved)
            problems.extend(merge_problems)
            if shared:
                resolved, shared_problems = _combine(resolved, shared)
                problems.extend(shared_problems)
        found.append((ref_name, resolved, problems, member))
    discriminator = _discriminator(schema, [resolved for _, resolved, _, _ in found])
    out = []
    for index, (ref_name, resolved, problems, _member) in enumerate(found):
        disc = None
        if discriminator is not None:
            disc = (discriminator, _const_of(resolved["properties"][discriminator])[1])
        title = resolved.get("title") if isinstance(resolved, dict) else None
        if not (isinstance(title, str) and title):
            if disc is not None:
                title = _label(disc[1])
            elif ref_name:
                title = ref_name
            elif isinstance(resolved, dict) and _type_list(resolved.get("type")):
                title = _type_text(resolved.get("type"))
            else:
                title = f"option {index + 1}"
        out.append(Variant(title, resolved, disc, tuple(problems), context))
    return out


def _discriminator(union: dict, members: list[Any]) -> str | None:
    if len(members) < 2 or not all(isinstance(m, dict) and isinstance(m.get("properties"), dict) for m in members):
        return None
    candidates = list(members[0]["properties"])
    hint = union.get("discriminator")
    if isinstance(hint, dict) and isinstance(hint.get("propertyName"), str):
        candidates.insert(0, hint["propertyName"])
    for name in candidates:
        values = []
        for member in members:
            is_const, value = _const_of(member["properties"].get(name))
            if not is_const:
                break
            values.append(_canonical(value))
        else:
            if len(set(values)) == len(values):
                return name
    return None


def pick_variant(choices: list[Variant], value: Any) -> int | None:
    """The index of the variant existing data belongs to, or None when none fits.

    The discriminator decides when the data has it; otherwise the first variant the
    value validates against (with ``core.schema.validation.validate``) wins.
    """
    if not choices:
        return None
    discriminator = choices[0].discriminator
    if discriminator is not None and isinstance(value, dict) and discriminator[0] in value:
        wanted = _canonical(value[discriminator[0]])
        for index, choice in enumerate(choices):
            if choice.discriminator is not None and _canonical(choice.discriminator[1]) == wanted:
                return index
        return None
    for index, choice in enumerate(choices):
        if choice.problems or not _is_schema(choice.schema):
            continue
        schema = choice.schema if isinstance(choice.schema, bool) else {**choice.context, **choice.schema}
        if not validate(schema, value):
            return index
    return None


# -- constraints and formats ---------------------------------------------------------


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _count(low: Any, high: Any, noun: str, plural: str) -> str | None:
    low = low if _is_number(low) and low > 0 else None
    high = high if _is_number(high) else None
    if low is None and high is None:
        return None
    if low is not None and high is not None:
        if low == high:
            return f"exactly {_num(low)} {noun if low == 1 else plural}"
        return f"{_num(low)}–{_num(high)} {plural}"
    if low is not None:
        return f"at least {_num(low)} {noun if low == 1 else plural}"
    return f"at most {_num(high)} {noun if high == 1 else plural}"


def describe_constraints(schema: Any) -> list[str]:
    """The schema's validation keywords as short human phrases, for hints beside a field.

    E.g. ``["≥ 0", "< 100", "multiple of 5"]``, ``["3–80 characters", "matches ^[a-z]+$",
    "format: email"]``, ``["2–5 items", "unique items"]``. Bounds of ±(2**53-1) (zod's
    "any safe integer") are left out: they are noise, not limits.
    """
    if not isinstance(schema, dict):
        return []
    out: list[str] = []
    minimum, maximum = schema.get("minimum"), schema.get("maximum")
    exclusive_min, exclusive_max = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if exclusive_min is True and _is_number(minimum):  # draft-04 boolean form
        exclusive_min, minimum = minimum, None
    if exclusive_max is True and _is_number(maximum):
        exclusive_max, maximum = maximum, None
    for symbol, bound in (("≥", minimum), (">", exclusive_min), ("≤", maximum), ("<", exclusive_max)):
        if _is_number(bound) and abs(bound) < _SAFE_INTEGER:
            out.append(f"{symbol} {_num(bound)}")
    if _is_number(schema.get("multipleOf")):
        out.append(f"multiple of {_num(schema['multipleOf'])}")
    length = _count(schema.get("minLength"), schema.get("maxLength"), "character", "characters")
    if length:
        out.append(length)
    if isinstance(schema.get("pattern"), str):
        out.append(f"matches {schema['pattern']}")
    if isinstance(schema.get("format"), str):
        out.append(f"format: {schema['format']}")
    items = _count(schema.get("minItems"), schema.get("maxItems"), "item", "items")
    if items:
        out.append(items)
    if schema.get("uniqueItems") is True:
        out.append("unique items")
    entries = _count(schema.get("minProperties"), schema.get("maxProperties"), "entry", "entries")
    if entries:
        out.append(entries)
    return out


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2}(?:\.\d+)?)([Zz]|[+-]\d{2}:\d{2})?$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s.]+(\.[^@\s.]+)*$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]*$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_TIME = re.compile(r"^(\d{2}:\d{2}:\d{2}(?:\.\d+)?)([Zz]|[+-]\d{2}:\d{2})$")


def check_format(fmt: Any, value: Any) -> str | None:
    """A short message when ``value`` does not look like ``fmt``, else None (checked as the user types).

    Knows date, date-time, time, email, uri, uuid, ipv4 and ipv6; any other format, a
    non-string value or an empty string gives None (types and required-ness are checked
    elsewhere).
    """
    if not isinstance(value, str) or not value or not isinstance(fmt, str):
        return None
    if fmt == "date":
        if not _DATE.match(value):
            return "not a date: use YYYY-MM-DD"
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            return "no such date"
        return None
    if fmt == "date-time":
        match = _DATE_TIME.match(value)
        if not match:
            return "not a date-time: use YYYY-MM-DDThh:mm:ssZ"
        if not match.group(3):
            return "a date-time needs a time zone: Z or ±hh:mm"
        try:
            _dt.datetime.fromisoformat(f"{match.group(1)}T{match.group(2)}{_zone(match.group(3))}")
        except ValueError:
            return "no such date or time"
        return None
    if fmt == "time":
        match = _TIME.match(value)
        if not match:
            return "not a time: use hh:mm:ssZ or hh:mm:ss±hh:mm"
        try:
            _dt.time.fromisoformat(match.group(1))
        except ValueError:
            return "no such time"
        return None
    if fmt == "email":
        return None if _EMAIL.match(value) else "not an email address (name@example.com)"
    if fmt == "uri":
        return None if _URI.match(value) else "not a URI: it needs a scheme such as https: and no spaces"
    if fmt == "uuid":
        return None if _UUID.match(value) else "not a UUID (8-4-4-4-12 hex digits)"
    if fmt in ("ipv4", "ipv6"):
        try:
            address = ipaddress.ip_address(value)
        except ValueError:
            return f"not an {'IPv4' if fmt == 'ipv4' else 'IPv6'} address"
        return None if address.version == int(fmt[-1]) else f"not an {'IPv4' if fmt == 'ipv4' else 'IPv6'} address"
    return None


def _zone(text: str) -> str:
    return "+00:00" if text in ("Z", "z") else text


# -- understood ----------------------------------------------------------------------


def understood(schema: Any, root: Any = None, _depth: int = 0) -> tuple[bool, str]:
    """Whether a form can render this schema node: ``(True, "")`` or ``(False, reason)``.

    Checks this node only (after following its ``$ref`` and merging its ``allOf``), so the
    caller falls back to JSON for this subtree and keeps a form everywhere else. The
    reason completes "falls back to JSON for this part because ...". ``root`` is the
    document ``$ref`` resolves against (the schema itself when omitted).
    """
    root = schema if root is None else root
    if schema is False:
        return False, "the schema is `false`: no value is allowed"
    if not isinstance(schema, dict):
        return (True, "") if schema is True else (False, "it is not a JSON Schema object")
    resolved, problem = deref(root, schema)
    if problem:
        return False, problem
    if resolved is False:
        return False, "the schema is `false`: no value is allowed"
    resolved, problems = merge_all_of(root, resolved)
    if problems:
        return False, "allOf cannot be merged: " + "; ".join(problems)
    for keyword, reason in _NOT_UNDERSTOOD.items():
        if keyword in resolved:
            return False, reason
    dependencies = resolved.get("dependencies")
    if isinstance(dependencies, dict) and any(isinstance(v, (dict, bool)) for v in dependencies.values()):
        return False, "it uses schema dependencies (a schema that applies only when a property is present)"
    inner, is_nullable = nullable(resolved)
    if is_nullable and isinstance(inner, dict) and ("$ref" in inner or "allOf" in inner):
        if _depth >= MAX_REF_CHAIN:
            return False, f"nullable $ref chain longer than {MAX_REF_CHAIN} steps"
        return understood(inner, root, _depth + 1)  # Optional[SomeModel]: judge the model
    if enum_options(inner) is not None:
        return True, ""
    for key in ("oneOf", "anyOf"):
        if isinstance(inner.get(key), list):
            choices = variants(root, inner)
            if not choices:
                return False, f"{key} has no usable alternative"
            for choice in choices:
                if choice.problems:
                    return False, f"{key} alternative “{choice.title}”: {choice.problems[0]}"
                if choice.schema is False:
                    return False, f"{key} alternative “{choice.title}” is `false`"
    return True, ""


# -- all of the above, in the right order ------------------------------------------


def normalize(root: Any, schema: Any) -> tuple[Any, bool, list[str]]:
    """One node made ready to classify: ``(schema, is_nullable, problems)``.

    Runs ``deref`` -> ``merge_all_of`` -> ``nullable`` and repeats when the non-null part
    is itself a ``$ref`` or an ``allOf`` (pydantic's ``Optional[Model]``). With problems,
    the schema is the last one reached and the caller should fall back to JSON here.
    """
    is_nullable = False
    for _ in range(MAX_REF_CHAIN):
        resolved, problem = deref(root, schema)
        if problem:
            return schema, is_nullable, [problem]
        merged, problems = merge_all_of(root, resolved)
        if problems:
            return merged, is_nullable, problems
        inner, found = nullable(merged)
        is_nullable = is_nullable or found
        if not (found and isinstance(inner, dict) and ("$ref" in inner or "allOf" in inner)):
            return inner, is_nullable, []
        schema = inner
    return schema, is_nullable, [f"nullable $ref chain longer than {MAX_REF_CHAIN} steps"]
