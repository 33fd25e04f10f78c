"""Untouched schema defaults: which optional fields hold theirs, the arguments without them, and
a form filled with them again (core/schema/form/defaults.py)."""

from __future__ import annotations

from mcp_inspector.core.schema.form import (
    arguments_to_values,
    build_form,
    default_values,
    fill_defaults,
    holds_default,
    same_json,
    strip_defaults,
    values_to_arguments,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "priority": {"type": "string", "enum": ["low", "medium", "high"], "default": "medium"},
        "count": {"type": "integer", "default": 1},
        "notify": {"type": "boolean", "default": True},
        "mode": {"type": "string", "default": "fast"},  # required: always sent
        "where": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "units": {"type": "string", "default": "metric"}},
            "required": ["city"],
        },
    },
    "required": ["title", "mode"],
}


def test_a_fresh_form_leaves_out_optional_defaults_but_never_a_required_one():
    form = build_form(SCHEMA)
    values = default_values(form)
    arguments = values_to_arguments(form, values)
    assert arguments == {"priority": "medium", "count": 1, "notify": True, "mode": "fast"}
    sent, left_out = strip_defaults(form, arguments)
    assert sent == {"mode": "fast"}
    assert left_out == ["$.priority", "$.count", "$.notify"]
    assert [s.key for s in form.fields() if holds_default(s, values)] == left_out


def test_a_changed_value_is_sent_and_nested_objects_are_stripped_too():
    form = build_form(SCHEMA)
    arguments = {
        "title": "t",
        "mode": "fast",
        "count": 2,
        "notify": False,
        "where": {"city": "Oslo", "units": "metric"},
    }
    sent, left_out = strip_defaults(form, arguments)
    assert sent == {"title": "t", "mode": "fast", "count": 2, "notify": False, "where": {"city": "Oslo"}}
    assert left_out == ["$.where.units"]


def test_json_equality_keeps_true_apart_from_1():
    assert same_json(1, 1.0) and same_json({"a": [1, "x"]}, {"a": [1.0, "x"]})
    assert not same_json(True, 1) and not same_json("1", 1) and not same_json([1], [1, 2])
    form = build_form(SCHEMA)
    assert strip_defaults(form, {"mode": "x", "count": True})[0] == {"mode": "x", "count": True}  # not the default 1


def test_arguments_without_defaults_fill_a_form_that_sends_the_same():
    form = build_form(SCHEMA)
    values = fill_defaults(form, arguments_to_values(form, {"title": "t", "mode": "fast"}))
    assert values_to_arguments(form, values) == {
        "title": "t",
        "mode": "fast",
        "priority": "medium",
        "count": 1,
        "notify": True,
    }
    assert strip_defaults(form, values_to_arguments(form, values))[0] == {"title": "t", "mode": "fast"}
    # a field explicitly emptied to "" keeps its "": fill only where nothing was given
    values = fill_defaults(form, arguments_to_values(form, {"title": "t", "mode": "fast", "priority": "high"}))
    assert values_to_arguments(form, values)["priority"] == "high"
