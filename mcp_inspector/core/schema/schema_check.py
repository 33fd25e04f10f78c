"""Is a server's schema a valid schema? jsonschema's ``check_schema``, on a skeleton of it.

Why: ``check_schema`` validates every subschema against the metaschema, ~0.25 ms each here
(``$dynamicRef`` lookups and URL joins for each): a 20,000-property ``inputSchema`` took 5 s
idle and 11-19 s on a loaded machine, before the call was sent. Generated schemas repeat one
shape: ``{"type": "string", "description": "field 17"}`` twenty thousand times.

The metaschema judges each value of ``properties``, ``$defs``, ``definitions`` and
``dependentSchemas`` alike whatever its name (``additionalProperties: {$dynamicRef: #meta}``),
and only asks that ``description``, ``title`` and ``$comment`` be strings and ``required`` an
array of unique strings. So the skeleton keeps one value of each distinct shape in those maps,
after putting "" for those strings, and one name of such a ``required``; every other
keyword (``pattern``, ``enum``, ``required``, ``patternProperties`` whose names are regexes...) is
kept as it is. A schema the skeleton fails is invalid, and one it passes is valid: the same
verdict, on as many subschemas as there are shapes. The validator itself is built on the whole
schema (validation.py), once per schema text.
"""

from __future__ import annotations

from typing import Any

_NAMED_SCHEMAS = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})
_TEXTS = frozenset({"description", "title", "$comment"})


def skeleton(node: Any) -> Any:
    """``node`` with repeated subschemas of name-blind maps left out (see the module docstring)."""
    if isinstance(node, list):
        return [skeleton(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _TEXTS and isinstance(value, str):
            out[key] = ""
        elif key == "required" and _distinct_names(value):
            out[key] = value[:1]  # a string array of unique items (non-empty, for draft-04) stays one
        elif key in _NAMED_SCHEMAS and isinstance(value, dict):
            shapes: dict[str, tuple[str, Any]] = {}
            for name, sub in value.items():
                reduced = skeleton(sub)
                shapes.setdefault(repr(reduced), (name, reduced))  # equal reprs: equal JSON
            out[key] = dict(shapes.values())
        else:
            out[key] = skeleton(value)
    return out


def _distinct_names(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) > 1
        and all(isinstance(name, str) for name in value)
        and len(set(value)) == len(value)
    )


def check_schema(cls: Any, schema: Any, format_checker: Any) -> None:
    """``cls.check_schema(schema)`` with the same verdict, on the skeleton; raises SchemaError."""
    try:
        reduced = skeleton(schema)
    except RecursionError:  # too deep to walk here: jsonschema says what it says of the whole
        reduced = schema
    cls.check_schema(reduced, format_checker=format_checker)
