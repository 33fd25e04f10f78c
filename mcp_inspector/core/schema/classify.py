"""Classifying a normalised schema node: which alternatives a ``oneOf``/``anyOf`` offers (and which
one a value matches), and whether the form can show the subtree at all (``understood``), with the
reason when it cannot. Normalising comes first (``resolve``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from .resolve import (
    ANNOTATIONS,
    MAX_REF_CHAIN,
    NOT_UNDERSTOOD,
    canonical_json,
    combine_schemas,
    const_of,
    deref,
    enum_options,
    is_null_schema,
    is_schema,
    merge_all_of,
    nullable,
    schema_label,
    type_list,
    type_text,
)
from .validation import validate

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
    context: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


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
    key = (
        "oneOf" if isinstance(schema.get("oneOf"), list) else "anyOf" if isinstance(schema.get("anyOf"), list) else None
    )
    context = {k: root[k] for k in ("$schema", "$defs", "definitions") if isinstance(root, dict) and k in root}
    if key is None:
        types = [name for name in type_list(schema.get("type")) if name != "null"]
        if len(types) < 2:
            return []
        return [Variant(name, {**schema, "type": name}, None, (), context) for name in types]
    shared = {k: v for k, v in schema.items() if k not in (key, *ANNOTATIONS)}
    found: list[tuple[str | None, Any, list[str], Any]] = []
    for member in schema[key]:
        if is_null_schema(member):
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
                resolved, shared_problems = combine_schemas(resolved, shared)
                problems.extend(shared_problems)
        found.append((ref_name, resolved, problems, member))
    discriminator = _discriminator(schema, [resolved for _, resolved, _, _ in found])
    out = []
    for index, (ref_name, resolved, problems, _member) in enumerate(found):
        disc = None
        if discriminator is not None:
            disc = (discriminator, const_of(resolved["properties"][discriminator])[1])
        title = resolved.get("title") if isinstance(resolved, dict) else None
        if not (isinstance(title, str) and title):
            if disc is not None:
                title = schema_label(disc[1])
            elif ref_name:
                title = ref_name
            elif isinstance(resolved, dict) and type_list(resolved.get("type")):
                title = type_text(resolved.get("type"))
            else:
                title = f"option {index + 1}"
        out.append(Variant(title, resolved, disc, tuple(problems), context))
    return out


def _discriminator(union: dict[str, Any], members: list[Any]) -> str | None:
    if len(members) < 2 or not all(isinstance(m, dict) and isinstance(m.get("properties"), dict) for m in members):
        return None
    candidates = list(members[0]["properties"])
    hint = union.get("discriminator")
    if isinstance(hint, dict) and isinstance(hint.get("propertyName"), str):
        candidates.insert(0, hint["propertyName"])
    for name in candidates:
        values = []
        for member in members:
            is_const, value = const_of(member["properties"].get(name))
            if not is_const:
                break
            values.append(canonical_json(value))
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
        wanted = canonical_json(value[discriminator[0]])
        for index, choice in enumerate(choices):
            if choice.discriminator is not None and canonical_json(choice.discriminator[1]) == wanted:
                return index
        return None
    for index, choice in enumerate(choices):
        if choice.problems or not is_schema(choice.schema):
            continue
        schema = choice.schema if isinstance(choice.schema, bool) else {**choice.context, **choice.schema}
        if not validate(schema, value):
            return index
    return None


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
    for keyword, reason in NOT_UNDERSTOOD.items():
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
