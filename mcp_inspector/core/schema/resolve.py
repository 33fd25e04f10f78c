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

This module normalises (and reads enums); ``classify`` holds the variants and ``understood``,
``formats`` the constraint phrases and the ``format`` checks.
"""

from __future__ import annotations

import json
import math
from typing import Any
from urllib.parse import unquote

from .formats import ALL_PATTERNS, is_number, num_text

MAX_REF_CHAIN = 32

# Keywords that only describe a value: when two schemas are combined the first one's win.
ANNOTATIONS = (
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "readOnly",
    "writeOnly",
    "deprecated",
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
# The node keywords a form cannot represent, with the reason shown to the user.
NOT_UNDERSTOOD = {
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
    layers: list[dict[str, Any]] = []  # siblings of each $ref, outermost first
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
        result, found = combine_schemas(siblings, result)
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
        merged, found = combine_schemas(merged, member)
        problems.extend(found)
    return merged, problems


def combine_schemas(a: dict[str, Any], b: dict) -> tuple[dict, list[str]]:
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
                problems.append(f"types conflict: {type_text(mine)} and {type_text(value)}")
            else:
                out[key] = types[0] if len(types) == 1 else types
        elif key == "properties" and isinstance(mine, dict) and isinstance(value, dict):
            props = dict(mine)
            for name, sub in value.items():
                props[name] = sub if name not in props or _same(props[name], sub) else {"allOf": [props[name], sub]}
            out[key] = props
        elif key == "required" and isinstance(mine, list) and isinstance(value, list):
            out[key] = mine + [name for name in value if name not in mine]
        elif key in _LOWER_BOUNDS and is_number(mine) and is_number(value):
            out[key] = max(mine, value)
        elif key in _UPPER_BOUNDS and is_number(mine) and is_number(value):
            out[key] = min(mine, value)
        elif key == "multipleOf" and is_number(mine) and is_number(value):
            combined = _common_multiple(mine, value)
            if combined is None:
                problems.append(f"cannot combine multipleOf {num_text(mine)} and {num_text(value)}")
            else:
                out[key] = combined
        elif key == "pattern" and isinstance(mine, str) and isinstance(value, str):
            patterns = out.get(ALL_PATTERNS) or [mine]
            out[ALL_PATTERNS] = patterns if value in patterns else [*patterns, value]
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
        elif (
            key in ("items", "additionalProperties", "contains", "propertyNames")
            and is_schema(mine)
            and is_schema(value)
        ):
            out[key] = {"allOf": [mine, value]}
        elif key == "format":
            problems.append(f"conflicting formats: {mine} and {value}")
        else:
            problems.append(f"cannot merge two different `{key}`")
    if (
        "const" in out
        and "enum" in out
        and isinstance(out["enum"], list)
        and not any(_same(out["const"], item) for item in out["enum"])
    ):
        problems.append(f"const {json.dumps(out['const'])} is not in the enum")
    for side, other in ((a, b), (b, a)):
        if side.get("additionalProperties") is False and isinstance(other.get("properties"), dict):
            extra = [name for name in other["properties"] if name not in (side.get("properties") or {})]
            if extra:
                problems.append(
                    "a member has additionalProperties: false, so validation rejects "
                    + ", ".join(extra[:5])
                    + " from another member"
                )
                break
    return out, problems


def _same(a: Any, b: Any) -> bool:
    return a == b and type(a) is type(b) if not isinstance(a, (dict, list)) else canonical_json(a) == canonical_json(b)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def is_schema(value: Any) -> bool:
    return isinstance(value, (dict, bool))


def type_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def type_text(value: Any) -> str:
    return " | ".join(type_list(value)) or json.dumps(value)


def _intersect_types(a: Any, b: Any) -> list[str]:
    left, right = type_list(a), type_list(b)
    out: list[str] = []
    for name in left:
        if name in right:
            out.append(name)
        elif name == "number" and "integer" in right or name == "integer" and "number" in right:
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


def is_null_schema(schema: Any) -> bool:
    return (
        isinstance(schema, dict)
        and (
            schema.get("type") == "null"
            or schema.get("type") == ["null"]
            or ("const" in schema and schema["const"] is None)
        )
        and not any(key in schema for key in ("properties", "items", "oneOf", "anyOf", "allOf", "$ref"))
    )


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
    choices = enum_options(schema) if "enum" in schema or "oneOf" in schema or "anyOf" in schema else None
    if (choices is not None and not any(value is None for value, _ in choices)) or (
        "const" in schema and schema["const"] is not None
    ):
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
        if not isinstance(members, list) or not any(is_null_schema(member) for member in members):
            continue
        rest_members = [member for member in members if not is_null_schema(member)]
        if not rest_members:
            continue
        found = True
        del inner[key]
        if len(rest_members) == 1 and isinstance(rest_members[0], dict):
            inner, _ = combine_schemas(inner, rest_members[0])
        else:
            inner[key] = rest_members
    if found and "default" in inner and inner["default"] is None:
        del inner["default"]
    return (inner, True) if found else (schema, False)


# -- enums ---------------------------------------------------------------------------


def schema_label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def const_of(member: Any) -> tuple[bool, Any]:
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
            return list(zip(enum, names, strict=True))
        return [(value, schema_label(value)) for value in enum]
    for key in ("oneOf", "anyOf"):
        members = schema.get(key)
        if not isinstance(members, list) or not members:
            continue
        options = []
        for member in members:
            is_const, value = const_of(member)
            if not is_const:
                return None
            title = member.get("title")
            options.append((value, title if isinstance(title, str) and title else schema_label(value)))
        return options
    return None


def multi_select_options(schema: Any) -> list[tuple[Any, str]] | None:
    """The choices of a multi-select: an array whose ``items`` is an enum (plain or titled).

    Returns ``[(value, label)]``, or None when the schema is not such an array.
    """
    if not isinstance(schema, dict):
        return None
    if "array" not in type_list(schema.get("type")) and not (schema.get("type") is None and "items" in schema):
        return None
    return enum_options(schema.get("items"))


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
