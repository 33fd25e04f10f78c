"""Forms for ``elicitation/create`` requests, built by the same engine as tool forms.

Why: a server asking the user for input sends a ``requestedSchema`` that MCP restricts
to a flat object of primitives, single-select enums (plain, titled ``oneOf`` of
``const``+``title``, legacy ``enumNames``) and multi-selects (an array of such enums),
with defaults (2025-11-25). ``build_elicitation_form`` checks that restriction, so a
client can decline what it cannot show, and ``elicitation_content`` turns the filled
form into the ``content`` of an ``ElicitResult``: ``{name: string|number|boolean|string[]}``.
"""

from __future__ import annotations

from typing import Any

from .form import FieldSpec, FormSpec, build_form, values_to_arguments
from .validation import Issue, Verdict, check, validate

ACTIONS = ("accept", "decline", "cancel")


class ElicitationSchemaError(ValueError):
    """The ``requestedSchema`` is not one MCP allows for elicitation (the reasons are in ``problems``)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def _field_problem(spec: FieldSpec) -> str | None:
    if spec.kind in ("string", "number", "integer", "boolean"):
        return None
    if spec.kind == "enum":
        return None
    if spec.kind == "array" and spec.item is not None and spec.item.kind == "enum":
        if all(isinstance(option.value, str) for option in spec.item.options):
            return None
        return f"{spec.name}: a multi-select must offer strings"
    if spec.kind == "json" and spec.note:
        return f"{spec.name}: {spec.note}"
    return f"{spec.name}: {spec.kind} fields are not allowed (only primitives, enums and multi-selects of strings)"


def build_elicitation_form(requested_schema: Any) -> FormSpec:
    """The form for an ``elicitation/create`` ``requestedSchema``; raises ElicitationSchemaError if it is not flat."""
    if not isinstance(requested_schema, dict):
        raise ElicitationSchemaError(["requestedSchema is not an object"])
    if requested_schema.get("type") != "object":
        raise ElicitationSchemaError(["requestedSchema must have type: object"])
    form = build_form(requested_schema)
    if form.root.kind != "object":
        raise ElicitationSchemaError([form.root.note or "requestedSchema cannot be shown as a form"])
    problems = [problem for child in form.root.children if (problem := _field_problem(child)) is not None]
    if form.root.has_entries:
        problems.append("free-form properties (additionalProperties/patternProperties) are not allowed")
    if problems:
        raise ElicitationSchemaError(problems)
    return form


def elicitation_content(form: FormSpec, values: dict[str, Any]) -> dict[str, Any]:
    """The ``content`` of an accepted ``ElicitResult``: each filled field as string, number, boolean or string[].

    Raises FormValueError when the values cannot become JSON and ValueError when a value
    is not one of the allowed types (a schema default of the wrong type, say).
    """
    content = values_to_arguments(form, values)
    for name, value in content.items():
        if isinstance(value, (str, bool)) or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            continue
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            continue
        raise ValueError(f"{name}: an elicitation answer must be a string, number, boolean or list of strings")
    return content


def elicitation_issues(form: FormSpec, content: dict[str, Any]) -> list[Issue]:
    """What is wrong with ``content`` for the ``requestedSchema`` (empty when it can be sent)."""
    return validate(form.schema, content)


def elicitation_check(form: FormSpec, content: dict[str, Any]) -> Verdict:
    """``elicitation_issues`` with the patterns that could not be checked (to be said)."""
    return check(form.schema, content)


def elicit_result(action: str, content: dict[str, Any] | None = None) -> dict[str, Any]:
    """An ``ElicitResult``: ``content`` only goes with ``accept``."""
    if action not in ACTIONS:
        raise ValueError(f"unknown elicitation action {action!r} (expected one of {', '.join(ACTIONS)})")
    return {"action": action, "content": content or {}} if action == "accept" else {"action": action}
