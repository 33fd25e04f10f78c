"""JSON Schema validation for tool arguments and structured output.

The dialect is the one the schema declares (``$schema``); 2020-12 is the
default since MCP 2025-11-25. References are resolved only inside the schema:
a network ``$ref`` is never fetched (the spec forbids it), it is reported.
"""

from __future__ import annotations

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


@lru_cache(maxsize=512)
def _validator_for(schema_text: str):
    import jsonschema
    import jsonschema.validators
    from referencing import Registry

    schema = json.loads(schema_text)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator) if isinstance(schema, dict) else jsonschema.Draft202012Validator
    cls.check_schema(schema)
    return cls(schema, registry=Registry(retrieve=_retrieve), format_checker=cls.FORMAT_CHECKER)


def json_path(parts) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def validate(schema: Any, instance: Any) -> list[Issue]:
    """Validate ``instance``; a broken schema is itself reported as an issue."""
    if schema is None:
        return []
    if schema is True or schema == {}:
        return []
    if schema is False:
        return [Issue("$", "the schema is `false`: no value is valid")]
    try:
        validator = _validator_for(json.dumps(schema, sort_keys=True))
    except Exception as exc:  # SchemaError, unresolvable dialect...
        return [Issue("$", f"the schema itself is invalid: {_first_line(exc)}")]
    try:
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    except Exception as exc:  # unresolvable (e.g. remote) $ref
        return [Issue("$", f"cannot validate: {_first_line(exc)}")]
    return [Issue(json_path(error.absolute_path), error.message) for error in errors]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else exc.__class__.__name__
