"""A huge inputSchema is checked once, quickly, and its repeated issues are said once (issue 19,
item 14): core/schema/schema_check.py's skeleton gives jsonschema's verdict; the form routes
issues to fields without a loop over every field per issue; validation.ready/prepare."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import jsonschema.validators
import pytest

from mcp_inspector.cli.output.repeats import summarized
from mcp_inspector.core.schema import schema_check, validation
from mcp_inspector.core.schema.form import build_form
from mcp_inspector.core.schema.form.check import issues_by_field
from mcp_inspector.core.schema.validation import Issue, validate

CORPUS = sorted((Path(__file__).resolve().parent.parent / "fixtures" / "schemas").glob("*.json"))


def wide(count: int) -> dict:
    return {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "description": f"field {i}"} for i in range(count)},
        "required": [f"p{i}" for i in range(count)],
    }


def corpus_schemas() -> list[dict]:
    return [tool["inputSchema"] for path in CORPUS for tool in json.loads(path.read_text())["tools"]]


def verdict(check, schema) -> str | None:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        check(cls, schema)
    except jsonschema.SchemaError as exc:
        return exc.message
    return None


def theirs(cls, schema):
    cls.check_schema(schema)


def ours(cls, schema):
    schema_check.check_schema(cls, schema, cls.FORMAT_CHECKER)


# One defect each, put into the 37th of 60 properties (the other 59 alike), or into the root.
DEFECTS = [
    ("type", "strin"),
    ("description", 5),
    ("title", ["x"]),
    ("required", ["a", "a"]),
    ("required", ["a", 1]),
    ("minLength", -1),
    ("pattern", "("),
    ("$defs", {"x": {"type": 5}}),
    ("properties", {"x": {"enum": "not a list"}}),
    ("dependentSchemas", {"x": {"minimum": "0"}}),
]


@pytest.mark.parametrize(("keyword", "value"), DEFECTS)
def test_the_skeleton_finds_a_defect_hidden_among_repeated_shapes(keyword, value):
    schema = wide(60)
    schema["properties"]["p36"] = {"type": "string", keyword: value}
    assert verdict(theirs, schema) is not None
    assert verdict(ours, schema) == verdict(theirs, schema)
    root = {**wide(60), keyword: value}
    assert verdict(ours, root) == verdict(theirs, root)


def test_the_skeleton_agrees_on_every_corpus_schema_and_on_each_with_a_defect():
    schemas = corpus_schemas()
    assert len(schemas) > 50
    for schema in schemas:
        assert verdict(ours, schema) == verdict(theirs, schema)
        for keyword, value in DEFECTS[:4]:
            broken = copy.deepcopy(schema)
            properties = broken.get("properties") or {}
            for name in list(properties)[-1:]:
                if isinstance(properties[name], dict):
                    properties[name][keyword] = value
            assert verdict(ours, broken) == verdict(theirs, broken)


def test_draft_04_required_must_not_be_empty_and_stays_so():
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "properties": {"a": {}}, "required": []}
    assert verdict(ours, schema) == verdict(theirs, schema) == "[] should be non-empty"


def test_a_20000_property_schema_is_checked_on_one_subschema_per_shape():
    schema = wide(20_000)
    reduced = schema_check.skeleton(schema)
    assert reduced == {
        "type": "object",
        "properties": {"p0": {"type": "string", "description": ""}},
        "required": ["p0"],
    }
    issues = validate(schema, {})
    assert len(issues) == 20_000 and issues[0] == Issue("$", "'p0' is a required property")


def test_a_large_schema_is_ready_only_once_prepared():
    small, large = wide(10), wide(3_000)
    assert validation.ready(small)
    assert not validation.ready(large)
    validation.prepare(large)
    assert validation.ready(large)
    assert validation.ready(json.loads(json.dumps(large)))  # an equal schema: once per schema text


@pytest.mark.timeout(60)
def test_issues_of_a_20000_field_form_go_to_their_fields():
    """Each issue's owner is found by looking its path's prefixes up (it was a loop over every
    field per issue: 400 million steps for 20,000 fields sent empty)."""
    form = build_form(wide(20_000))
    issues = [Issue("$", f"'p{i}' is a required property") for i in range(20_000)]
    issues.append(Issue("$.p7", "7 is not of type 'string'"))
    issues.append(Issue("$.p7.deeper[0]", "nested"))
    by_field = issues_by_field(form, issues)
    assert len(by_field) == 20_000
    assert by_field["$.p7"] == ["required", "7 is not of type 'string'", "nested"]
    assert by_field["$.p19999"] == ["required"]
    assert issues_by_field(form, [Issue("$.nowhere", "x")]) == {"$": ["x"]}


def test_repeated_warnings_are_said_once_with_a_count():
    lines = [f"argument $: 'p{i}' is a required property (sending anyway)" for i in range(10_000)]
    lines.insert(5, "argument $.x: 'y' is not of type 'integer' (sending anyway)")
    assert summarized(lines) == [
        "argument $: 'p0' is a required property (sending anyway)",
        "argument $: 'p1' is a required property (sending anyway)",
        "argument $: 'p2' is a required property (sending anyway)",
        "argument $.x: 'y' is not of type 'integer' (sending anyway)",
        "…and 9,997 more like this (argument $: … is a required property (sending anyway))",
    ]
    assert summarized(["a", "b"]) == ["a", "b"]
