"""A tiny JSON Schema checker for the subset the demo's own tool schemas use.

``jsonschema`` would cost ~100 ms of import time for a handful of keywords, and
the demo must start fast, so tool arguments are checked here instead.
Supported: type, enum, const, required, properties, additionalProperties,
items, min/maxLength, minimum/maximum (and exclusive), min/maxItems,
uniqueItems and the formats email, date and date-time.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is_type(value: object, name: str) -> bool:
    actual = _json_type(value)
    if name == "number":
        return actual in ("integer", "number")
    if name == "integer":
        return actual == "integer" or (actual == "number" and float(value).is_integer())
    return actual == name


def _format_ok(value: str, fmt: str) -> bool:
    try:
        if fmt == "email":
            return bool(_EMAIL.match(value))
        if fmt == "date":
            return bool(_DATE.match(value)) and bool(date.fromisoformat(value))
        if fmt == "date-time":
            return "T" in value.upper() and bool(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        return False
    return True  # unknown formats are annotations only


def _same_json(a: object, b: object) -> bool:
    return _json_type(a) == _json_type(b) and a == b


def validate(instance: object, schema: object, path: str = "$") -> list[str]:
    """Return human-readable problems (empty list means valid)."""
    errors: list[str] = []
    _check(instance, schema, path, errors)
    return errors


def _check(value: object, schema: object, path: str, errors: list[str]) -> None:
    if schema is False:
        errors.append(f"{path}: no value is allowed here")
        return
    if not isinstance(schema, dict):
        return
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not any(_is_type(value, n) for n in names):
            errors.append(f"{path}: expected {' or '.join(names)}, got {_json_type(value)}")
            return
    if "enum" in schema and not any(_same_json(value, e) for e in schema["enum"]):
        errors.append(f"{path}: {json.dumps(value)} is not one of {json.dumps(schema['enum'])}")
    if "const" in schema and not _same_json(value, schema["const"]):
        errors.append(f"{path}: must be {json.dumps(schema['const'])}")
    if isinstance(value, str):
        _check_string(value, schema, path, errors)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_number(value, schema, path, errors)
    elif isinstance(value, list):
        _check_array(value, schema, path, errors)
    elif isinstance(value, dict):
        _check_object(value, schema, path, errors)


def _check_string(value: str, schema: dict, path: str, errors: list[str]) -> None:
    if "minLength" in schema and len(value) < schema["minLength"]:
        errors.append(f"{path}: must be at least {schema['minLength']} characters")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        errors.append(f"{path}: must be at most {schema['maxLength']} characters")
    if "format" in schema and not _format_ok(value, schema["format"]):
        errors.append(f"{path}: {value!r} is not a valid {schema['format']}")


def _check_number(value: float, schema: dict, path: str, errors: list[str]) -> None:
    if "minimum" in schema and value < schema["minimum"]:
        errors.append(f"{path}: must be >= {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        errors.append(f"{path}: must be <= {schema['maximum']}")
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        errors.append(f"{path}: must be > {schema['exclusiveMinimum']}")
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        errors.append(f"{path}: must be < {schema['exclusiveMaximum']}")


def _check_array(value: list, schema: dict, path: str, errors: list[str]) -> None:
    if "minItems" in schema and len(value) < schema["minItems"]:
        errors.append(f"{path}: needs at least {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append(f"{path}: allows at most {schema['maxItems']} items")
    if schema.get("uniqueItems"):
        seen = [json.dumps(v, sort_keys=True) for v in value]
        if len(set(seen)) != len(seen):
            errors.append(f"{path}: items must be unique")
    if "items" in schema:
        for index, item in enumerate(value):
            _check(item, schema["items"], f"{path}[{index}]", errors)


def _check_object(value: dict, schema: dict, path: str, errors: list[str]) -> None:
    for name in schema.get("required", []):
        if name not in value:
            errors.append(f"{path}: missing required property {name!r}")
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            _check(item, properties[name], f"{path}.{name}", errors)
        elif extra is False:
            errors.append(f"{path}: unexpected property {name!r}")
        elif isinstance(extra, dict):
            _check(item, extra, f"{path}.{name}", errors)


def with_defaults(arguments: dict, schema: dict) -> dict:
    """Copy of ``arguments`` with top-level ``default`` values filled in."""
    filled = dict(arguments)
    for name, prop in schema.get("properties", {}).items():
        if name not in filled and isinstance(prop, dict) and "default" in prop:
            filled[name] = prop["default"]
    return filled
