"""Elicitation forms (``elicitation/create``, MCP 2025-11-25) built by the tool-form engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_inspector.core.schema.elicitation_form import (
    ElicitationSchemaError,
    build_elicitation_form,
    elicit_result,
    elicitation_content,
    elicitation_issues,
)
from mcp_inspector.core.schema.form import arguments_to_values, default_values

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "schemas" / "hand_written_hard.json"
SCHEMAS = {tool["name"]: tool["inputSchema"] for tool in json.loads(CORPUS.read_text(encoding="utf-8"))["tools"]}


def test_flat_primitives_with_defaults_and_formats():
    form = build_elicitation_form(SCHEMAS["elicitation_flat_primitives"])
    kinds = {spec.name: spec.kind for spec in form.root.children}
    assert kinds == {
        "name": "string",
        "email": "string",
        "site": "string",
        "birthday": "string",
        "meeting": "string",
        "age": "integer",
        "score": "number",
        "subscribe": "boolean",
    }
    values = default_values(form)
    assert elicitation_content(form, values) == {"name": "guest", "score": 0.5, "subscribe": False}
    assert [i.message for i in elicitation_issues(form, elicitation_content(form, values))] == [
        "'email' is a required property"
    ]
    values.update({"$.email": "ada@example.com", "$.age": "36", "$.birthday": "1815-12-10"})
    content = elicitation_content(form, values)
    assert content == {
        "name": "guest",
        "email": "ada@example.com",
        "birthday": "1815-12-10",
        "age": 36,
        "score": 0.5,
        "subscribe": False,
    }
    assert elicitation_issues(form, content) == []


def test_single_and_multi_select_enums():
    single = build_elicitation_form(SCHEMAS["elicitation_single_select"])
    labels = {spec.name: [o.label for o in spec.options] for spec in single.root.children}
    assert labels == {"size": ["S", "M", "L"], "color": ["Red", "Green", "Blue"], "plan": ["Free", "Professional"]}
    assert elicitation_content(single, default_values(single)) == {"size": "M", "color": "g"}
    multi = build_elicitation_form(SCHEMAS["elicitation_multi_select"])
    assert [o.label for o in multi.field("$.days").item.options] == ["Monday", "Tuesday", "Wednesday"]
    values = default_values(multi)
    assert elicitation_content(multi, values) == {"toppings": ["cheese"], "days": ["mon", "wed"]}
    values["$.toppings"] = ["cheese", "ham", "olives", "basil"]
    content = elicitation_content(multi, values)
    assert [i.message for i in elicitation_issues(multi, content)][0].endswith("is too long")


def test_answers_round_trip_through_the_form():
    form = build_elicitation_form(SCHEMAS["elicitation_multi_select"])
    answer = {"toppings": ["ham"], "days": ["tue"]}
    assert elicitation_content(form, arguments_to_values(form, answer)) == answer


@pytest.mark.parametrize(
    "schema, reason",
    [
        (
            {"type": "object", "properties": {"who": {"type": "object", "properties": {"name": {"type": "string"}}}}},
            "who: object fields are not allowed",
        ),
        (
            {"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "object"}}}},
            "rows: list fields are not allowed",
        ),
        (
            {"type": "object", "properties": {"x": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}},
            "x: variant fields are not allowed",
        ),
        (
            {"type": "object", "properties": {"n": {"type": "array", "items": {"enum": [1, 2]}}}},
            "n: a multi-select must offer strings",
        ),
        ({"type": "object", "additionalProperties": {"type": "string"}}, "free-form properties"),
        ({"type": "string"}, "requestedSchema must have type: object"),
        ("nope", "requestedSchema is not an object"),
    ],
)
def test_schemas_mcp_does_not_allow_are_refused_with_reasons(schema, reason):
    with pytest.raises(ElicitationSchemaError) as caught:
        build_elicitation_form(schema)
    assert any(reason in problem for problem in caught.value.problems), caught.value.problems


def test_elicit_results():
    assert elicit_result("accept", {"a": 1}) == {"action": "accept", "content": {"a": 1}}
    assert elicit_result("decline") == {"action": "decline"} and elicit_result("cancel", {"x": 1}) == {
        "action": "cancel"
    }
    with pytest.raises(ValueError):
        elicit_result("maybe")
