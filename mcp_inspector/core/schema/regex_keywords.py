"""jsonschema's keywords that match a regular expression, re-done on ``server_regex``.

jsonschema matches ``pattern``, ``patternProperties`` (and through them ``propertyNames``,
``additionalProperties`` and ``unevaluatedProperties``) and ``format: regex`` with Python's
``re``, which backtracks without bound on a hostile pattern. ``extend`` (jsonschema's public
extension point, ``jsonschema.validators.extend``) gives a validator class whose keywords go
through ``server_regex.search`` instead; the messages are jsonschema's own.

A pattern that could not be checked passes (as if it matched; under ``not`` that is a failure)
and is noted: ``collecting_notes`` gathers the notes of one validation for the caller to show.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from . import server_regex
from .server_regex import Unchecked

_NOTES: ContextVar[dict[str, None] | None] = ContextVar("mcp_inspector_pattern_notes", default=None)


@contextmanager
def collecting_notes() -> Iterator[list[str]]:
    """Within the block, every unchecked pattern is noted once; the list is filled on exit."""
    notes: dict[str, None] = {}
    token = _NOTES.set(notes)
    out: list[str] = []
    try:
        yield out
    finally:
        _NOTES.reset(token)
        out.extend(notes)


def _verdict(pattern: Any, text: str) -> bool:
    """True when ``text`` matches or the pattern could not be checked (noted)."""
    if not isinstance(pattern, str):
        return True
    verdict = server_regex.search(pattern, text)
    if isinstance(verdict, Unchecked):
        notes = _NOTES.get()
        if notes is not None:
            notes[str(verdict)] = None
        return True
    return verdict


def _error(message: str):
    from jsonschema.exceptions import ValidationError

    return ValidationError(message)


def pattern(validator, patrn, instance, schema):
    if validator.is_type(instance, "string") and not _verdict(patrn, instance):
        yield _error(f"{instance!r} does not match {patrn!r}")


def pattern_properties(validator, patterns, instance, schema):
    if not validator.is_type(instance, "object") or not isinstance(patterns, dict):
        return
    for patrn, subschema in patterns.items():
        for key, value in instance.items():
            if _checked_match(patrn, key):
                yield from validator.descend(value, subschema, path=key, schema_path=patrn)


def _checked_match(patrn: str, key: str) -> bool:
    """A key the pattern certainly matches (an unchecked pattern applies to no key, and is noted)."""
    verdict = server_regex.search(patrn, key) if isinstance(patrn, str) else False
    if isinstance(verdict, Unchecked):
        _verdict(patrn, key)
        return False
    return verdict


def _extras(instance: dict[str, Any], schema: dict) -> list[str]:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    patterns = schema.get("patternProperties")
    patterns = list(patterns) if isinstance(patterns, dict) else []
    # A key an unchecked pattern might cover is not called extra: no false error, and a note.
    return [key for key in instance if key not in properties and not any(_verdict(patrn, key) for patrn in patterns)]


def additional_properties(validator, additional, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    extras = _extras(instance, schema)
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield _error(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            yield _error(f"Additional properties are not allowed ({_extras_message(sorted(extras, key=str))})")


def _extras_message(extras: list[Any]) -> str:
    verb = "was" if len(extras) == 1 else "were"
    return f"{', '.join(repr(extra) for extra in extras)} {verb} unexpected"


def unevaluated_properties(validator, unevaluated, instance, schema):
    """jsonschema's, with patternProperties matched here. A ``$ref`` met while looking for what
    was evaluated counts every key as evaluated (resolving it needs jsonschema's private resolver):
    an unevaluated key may then go unreported, never a valid one reported."""
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema)
    bad = []
    for key in instance:
        if key not in evaluated and next(validator.descend(instance[key], unevaluated, path=key), None) is not None:
            bad.append(key)
    if not bad:
        return
    if unevaluated is False:
        yield _error(f"Unevaluated properties are not allowed ({_extras_message(sorted(bad, key=str))})")
    else:
        yield _error(
            "Unevaluated properties are not valid under the given schema "
            f"({_extras_message(bad).replace('unexpected', 'unevaluated and invalid')})"
        )


def _valid(validator, instance: Any, subschema: Any) -> bool:
    return next(validator.descend(instance, subschema), None) is None


def _evaluated_keys(validator, instance: dict[str, Any], schema: Any) -> set[str]:
    if not isinstance(schema, dict):
        return set()
    if "$ref" in schema or "$dynamicRef" in schema:
        return set(instance)
    keys: set[str] = set()
    properties = schema.get("properties")
    if isinstance(properties, dict):
        keys |= properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if (subschema := schema.get(keyword)) is not None:
            keys |= {key for key, value in instance.items() if _valid(validator, value, subschema)}
    patterns = schema.get("patternProperties")
    if isinstance(patterns, dict):
        keys |= {key for key in instance if any(_verdict(patrn, key) for patrn in patterns)}
    dependent = schema.get("dependentSchemas")
    if isinstance(dependent, dict):
        for name, subschema in dependent.items():
            if name in instance:
                keys |= _evaluated_keys(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword) or []:
            if _valid(validator, instance, subschema):
                keys |= _evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if _valid(validator, instance, schema["if"]):
            keys |= _evaluated_keys(validator, instance, schema["if"])
            if "then" in schema:
                keys |= _evaluated_keys(validator, instance, schema["then"])
        elif "else" in schema:
            keys |= _evaluated_keys(validator, instance, schema["else"])
    return keys


def _has_key(document: Any, name: str) -> bool:
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if name in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def regex_format(instance: object) -> bool:
    """``format: regex`` (also what check_schema applies to every ``pattern``): our engine's verdict."""
    return not isinstance(instance, str) or server_regex.is_regex(instance)


def format_checker(base):
    """``base`` (a jsonschema FormatChecker) with ``regex`` checked by ``server_regex``."""
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    checker.checkers = {**base.checkers, "regex": (regex_format, ())}
    return checker


def keywords_for(cls, schema: Any) -> dict[str, Any]:
    """The keyword functions to put in place of ``cls``'s for validating ``schema``."""
    ours = {"pattern": pattern, "patternProperties": pattern_properties, "additionalProperties": additional_properties}
    if "unevaluatedProperties" in cls.VALIDATORS and _has_key(schema, "patternProperties"):
        ours["unevaluatedProperties"] = unevaluated_properties
    return {name: function for name, function in ours.items() if name in cls.VALIDATORS}
