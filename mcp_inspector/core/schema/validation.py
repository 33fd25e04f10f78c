"""JSON Schema validation for tool arguments and structured output.

The dialect is the one the schema declares (``$schema``); 2020-12 is the
default since MCP 2025-11-25. References are resolved only inside the schema:
a network ``$ref`` is never fetched (the spec forbids it), it is reported.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True, slots=True)
class Issue:
    """One validation problem, located by a JSON path such as ``$.assignee.email``."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class _NoRemoteRefs(Exception):
    pass


def _retrieve(uri: str):
    raise _NoRemoteRefs(f"remote $ref not fetched: {uri}")


def is_multiple_of(value: Any, step: Any) -> bool:
    """``multipleOf``, exact for decimals: 0.3 is a multiple of 0.05 (in floats 0.3 / 0.05 is 5.999...).

    Both numbers are taken as the decimals they print as (what was typed, what JSON carries).
    The form's field check and the send check both use this, so they always agree.
    """
    from fractions import Fraction  # (with decimal: ~3 ms at import; only multipleOf needs it)

    try:
        ratio = Fraction(str(value)) / Fraction(str(step))
    except (ValueError, ZeroDivisionError, OverflowError):  # inf, nan, a zero step: no verdict
        return True
    return ratio.denominator == 1


def _multiple_of(validator, step, instance, schema):
    if not validator.is_type(instance, "number") or not validator.is_type(step, "number"):
        return
    if not is_multiple_of(instance, step):
        from jsonschema.exceptions import ValidationError

        yield ValidationError(f"{instance!r} is not a multiple of {step}")


_EXTENDED: dict[tuple[Any, ...], type] = {}
_CHECKERS: dict[type, Any] = {}


def _validator_for(schema_text: str):
    import jsonschema
    import jsonschema.validators
    from referencing import Registry

    from . import regex_keywords, schema_check

    schema = json.loads(schema_text)
    cls = (
        jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        if isinstance(schema, dict)
        else jsonschema.Draft202012Validator
    )
    checker = _CHECKERS.get(cls)
    if checker is None:  # format "regex" (every pattern in check_schema, too) by our bounded engine
        checker = _CHECKERS[cls] = regex_keywords.format_checker(cls.FORMAT_CHECKER)
    schema_check.check_schema(cls, schema, checker)  # on a skeleton: one subschema per shape
    keywords = regex_keywords.keywords_for(cls, schema)
    key = (cls, tuple(sorted(keywords)))
    extended = _EXTENDED.get(key)
    if extended is None:
        extended = _EXTENDED[key] = jsonschema.validators.extend(cls, {"multipleOf": _multiple_of, **keywords})
    return extended(schema, registry=Registry(retrieve=_retrieve), format_checker=checker)


# -- fast accept -------------------------------------------------------------------
# Tool schemas are mostly "an object with typed properties and a required list", and
# jsonschema spends ~15 us walking even that. For such schemas we compile a plain
# predicate that only ever says "certainly valid": when it says no (or the schema uses
# any keyword outside the subset below) the full validator runs and reports the
# issues, so results are identical. It is used only after the real validator was
# built, i.e. after check_schema passed.

_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
)
_DIALECTS = frozenset(
    f"{base}{suffix}"
    for base in (
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-04/schema",
    )
    for suffix in ("", "#")
)
# Stricter than every draft's type checker (e.g. 1.0 is not accepted as "integer"), never looser.
_TYPE_TESTS = {
    "string": lambda v: type(v) is str,
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) is int or type(v) is float,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
}


def _always(value: Any) -> bool:
    return True


def _compile_fast(schema: Any, root: bool = False):
    """A predicate true only for instances the schema certainly accepts, or None."""
    if schema is True:
        return _always
    if type(schema) is not dict:
        return None
    checks = []
    properties: dict[str, Any] = {}
    additional: Any = _always
    for key, value in schema.items():
        if key in _ANNOTATIONS or (root and key == "$schema" and type(value) is str and value in _DIALECTS):
            continue
        if key == "type":
            names = [value] if type(value) is str else value
            if type(names) is not list or not names or any(name not in _TYPE_TESTS for name in names):
                return None
            tests = tuple(_TYPE_TESTS[name] for name in names)
            checks.append(tests[0] if len(tests) == 1 else _any_of(tests))
        elif key == "properties":
            if type(value) is not dict:
                return None
            for name, sub in value.items():
                compiled = _compile_fast(sub)
                if compiled is None:
                    return None
                properties[name] = compiled
        elif key == "required":
            if type(value) is not list or any(type(name) is not str for name in value):
                return None
            checks.append(_has_keys(tuple(value)))
        elif key == "additionalProperties":
            additional = _compile_fast(value)
            if additional is None:
                return None
        elif key == "items":
            item_check = _compile_fast(value)
            if item_check is None:
                return None
            checks.append(_each_item(item_check))
        elif key == "enum":
            if type(value) is not list:
                return None
            strings = frozenset(member for member in value if type(member) is str)
            checks.append(lambda v, strings=strings: type(v) is str and v in strings)
        else:
            return None
    if properties or additional is not _always:
        checks.append(_object_check(properties, additional))
    if not checks:
        return _always
    return checks[0] if len(checks) == 1 else _all_of(tuple(checks))


# Plain loops, not all()/any() over generators: these run on every tools/call.
def _all_of(checks: tuple[Any, ...]):
    def check(value: Any) -> bool:
        return all(test(value) for test in checks)

    return check


def _any_of(tests: tuple[Any, ...]):
    def check(value: Any) -> bool:
        return any(test(value) for test in tests)

    return check


def _has_keys(required: tuple[Any, ...]):
    def check(value: Any) -> bool:
        if type(value) is not dict:
            return True
        return all(name in value for name in required)

    return check


def _each_item(item_check):
    def check(value: Any) -> bool:
        if type(value) is not list:
            return True
        return all(item_check(item) for item in value)

    return check


def _object_check(properties: dict[str, Any], additional: Any):
    def check(value: Any) -> bool:
        if type(value) is not dict:
            return True
        for name, item in value.items():
            test = properties.get(name, additional)
            if not test(item):
                return False
        return True

    return check


@lru_cache(maxsize=512)
def _compiled_for(schema_text: str):
    """(jsonschema validator, fast-accept predicate or None) for a schema; raises if it is invalid."""
    validator = _validator_for(schema_text)
    try:
        fast = _compile_fast(json.loads(schema_text), root=True)
    except Exception:  # an odd but valid schema: the full validator handles it
        fast = None
    return validator, fast


_BY_REPR: dict[str, tuple[Any, ...]] = {}


def _compiled(schema: Any) -> tuple[Any, ...]:
    """``_compiled_for`` keyed by repr first: for JSON values equal reprs mean equal
    documents, and repr costs half of the canonical json.dumps, on every call."""
    key = repr(schema)
    hit = _BY_REPR.get(key)
    if hit is None:
        hit = _compiled_for(json.dumps(schema, sort_keys=True))
        if len(_BY_REPR) >= 512:
            _BY_REPR.clear()
        _BY_REPR[key] = hit
    return hit


# A schema whose repr is shorter compiles in milliseconds; a longer one (a 20,000-property
# inputSchema is ~1 MB) is compiled by ``prepare`` in a worker thread before it is used on an
# event loop.
SMALL_SCHEMA = 20_000


def ready(schema: Any) -> bool:
    """``check(schema, value)`` now costs only the walk of the value: the schema is compiled
    already (once per schema text), trivial, or small enough to compile at once."""
    if schema is None or isinstance(schema, bool) or schema == {}:
        return True
    key = repr(schema)
    return len(key) < SMALL_SCHEMA or key in _BY_REPR


def prepare(schema: Any) -> None:
    """Check and compile ``schema`` now (e.g. in a worker thread), so ``check`` finds it ready;
    a broken schema is left for ``check`` to report."""
    if ready(schema):
        return
    with contextlib.suppress(Exception):
        _compiled(schema)


def json_path(parts) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


@dataclass(frozen=True, slots=True)
class Verdict:
    """What validation found: ``issues``, and ``unchecked`` patterns (why each was not matched:
    beyond the bounded regex engine, or too costly for the text), which are not issues but must
    be shown."""

    issues: list[Issue]
    unchecked: list[str]


def validate(schema: Any, instance: Any) -> list[Issue]:
    """Validate ``instance``; a broken schema is itself reported as an issue. Unchecked patterns
    are left out: a caller that shows results to the user calls ``check``."""
    return check(schema, instance).issues


def check(schema: Any, instance: Any) -> Verdict:
    """``validate`` with the patterns that could not be checked."""
    if schema is None:
        return Verdict([], [])
    if schema is True or schema == {}:
        return Verdict([], [])
    if schema is False:
        return Verdict([Issue("$", "the schema is `false`: no value is valid")], [])
    try:
        validator, fast = _compiled(schema)
    except Exception as exc:  # SchemaError, unresolvable dialect...
        return Verdict([Issue("$", f"the schema itself is invalid: {_first_line(exc)}")], [])
    if fast is not None and fast(instance):
        return Verdict([], [])
    from .regex_keywords import collecting_notes

    with collecting_notes() as unchecked:
        try:
            errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
        except Exception as exc:  # unresolvable (e.g. remote) $ref
            return Verdict([Issue("$", f"cannot validate: {_first_line(_root_cause(exc))}")], [])
    return Verdict([Issue(json_path(error.absolute_path), error.message) for error in errors], unchecked)


def _root_cause(exc: BaseException) -> BaseException:
    """Our "remote $ref not fetched" reason, if it is what broke validation (jsonschema wraps it twice)."""
    seen = exc
    for _ in range(10):
        if isinstance(seen, _NoRemoteRefs):
            return seen
        seen = seen.__cause__ or seen.__context__
        if seen is None:
            break
    return exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else exc.__class__.__name__
