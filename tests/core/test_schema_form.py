"""The form engine against real schemas: the demo server's tools (fetched over a real
session), server-everything's draft-07 schemas, and hypothesis-generated values."""

from __future__ import annotations

import json
import string

import pytest
from conftest import demo_server_command, run_async
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_inspector.core.schema.form import (
    EMPTY,
    FormValueError,
    arguments_to_values,
    build_form,
    check_arguments,
    default_values,
    issues_by_field,
    validate_field,
    values_to_arguments,
)
from mcp_inspector.core.schema.validation import validate
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.transport.stdio import StdioTransport

# Copied verbatim from @modelcontextprotocol/server-everything's tools/list (draft-07, zod-generated).
EVERYTHING = {
    "get-annotated-message": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "messageType": {
                "type": "string",
                "enum": ["error", "success", "debug"],
                "description": "Type of message to demonstrate different annotation patterns",
            },
            "includeImage": {"default": False, "description": "Whether to include an example image", "type": "boolean"},
        },
        "required": ["messageType"],
    },
    "get-env": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {}},
    "get-resource-links": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "count": {
                "default": 3,
                "description": "Number of resource links to return (1-10)",
                "type": "number",
                "minimum": 1,
                "maximum": 10,
            }
        },
    },
    "get-resource-reference": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "resourceType": {"default": "Text", "type": "string", "enum": ["Text", "Blob"]},
            "resourceId": {"default": 1, "description": "ID of the text resource to fetch", "type": "number"},
        },
    },
    "get-sum": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "a": {"type": "number", "description": "First number"},
            "b": {"type": "number", "description": "Second number"},
        },
        "required": ["a", "b"],
    },
    "gzip-file-as-resource": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "name": {"default": "README.md.gz", "type": "string", "description": "Name of the output file"},
            "data": {
                "default": "https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md",
                "type": "string",
                "format": "uri",
                "description": "URL or data URI of the file content to compress",
            },
            "outputType": {
                "default": "resourceLink",
                "description": "How the resulting gzipped file should be returned.",
                "type": "string",
                "enum": ["resourceLink", "resource"],
            },
        },
    },
    "trigger-long-running-operation": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "duration": {"default": 10, "description": "Duration of the operation in seconds", "type": "number"},
            "steps": {"default": 5, "description": "Number of steps in the operation", "type": "number"},
        },
    },
}

# Features no form can show: each must fall back to JSON for its subtree only.
FALLBACKS = {
    "type": "object",
    "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}},
    "properties": {
        "name": {"type": "string"},
        "point": {"$ref": "https://example.com/point.json"},
        "shape": {"type": "string", "not": {"const": "circle"}},
        "rows": {
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "if": {"required": ["a"]},
            "then": {"required": ["b"]},
        },
        "anything": {},
    },
    "required": ["name"],
}


@pytest.fixture(scope="module")
def demo_tools() -> dict[str, dict]:
    async def fetch() -> list[dict]:
        async with McpSession(StdioTransport(demo_server_command()), timeout=10) as session:
            await session.initialize()
            return await session.list_tools()

    return {tool["name"]: tool for tool in run_async(fetch)}


def fields_by_key(form):
    return {spec.key: spec for spec in form.fields()}


# -- building -------------------------------------------------------------------------


def test_create_ticket_form_covers_every_kind(demo_tools):
    form = build_form(demo_tools["create_ticket"]["inputSchema"])
    fields = fields_by_key(form)
    kinds = {key: spec.kind for key, spec in fields.items()}
    assert kinds == {
        "$": "object",
        "$.title": "string",
        "$.description": "string",
        "$.priority": "enum",
        "$.tags": "array",
        "$.assignee": "object",
        "$.assignee.name": "string",
        "$.assignee.email": "string",
        "$.due": "string",
        "$.estimate_hours": "number",
        "$.count": "integer",
        "$.notify": "boolean",
        "$.labels": "array",
    }
    assert fields["$.title"].required and not fields["$.description"].required
    assert fields["$.assignee.name"].required and not fields["$.assignee"].required
    assert fields["$.title"].constraints == {"minLength": 3, "maxLength": 80}
    assert fields["$.title"].label == "Title" and fields["$.title"].description == "One-line summary."
    assert [o.value for o in fields["$.priority"].options] == ["low", "medium", "high", "urgent"]
    assert fields["$.priority"].default == "medium"
    assert fields["$.tags"].item.kind == "string" and fields["$.labels"].item.kind == "enum"
    assert fields["$.due"].constraints["format"] == "date"
    assert fields["$.count"].constraints == {"minimum": 1, "maximum": 100}
    assert form.fallback_notes == []


def test_every_demo_tool_builds_and_its_defaults_validate(demo_tools):
    for name, tool in demo_tools.items():
        form = build_form(tool["inputSchema"])
        arguments = values_to_arguments(form, default_values(form))
        required = form.root.schema.get("required", [])
        if not required:  # nothing to fill in: the defaults alone must be valid
            assert validate(tool["inputSchema"], arguments) == [], name


def test_everything_draft07_schemas():
    for name, schema in EVERYTHING.items():
        form = build_form(schema)
        assert form.root.kind == "object", name
        assert form.fallback_notes == [], name
        arguments = values_to_arguments(form, default_values(form))
        if not schema.get("required"):
            assert validate(schema, arguments) == [], name
    form = build_form(EVERYTHING["gzip-file-as-resource"])
    assert values_to_arguments(form, default_values(form)) == {
        "name": "README.md.gz",
        "data": "https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md",
        "outputType": "resourceLink",
    }
    form = build_form(EVERYTHING["trigger-long-running-operation"])
    assert values_to_arguments(form, default_values(form)) == {"duration": 10, "steps": 5}


def test_unsupported_subtrees_fall_back_to_json_with_a_reason():
    form = build_form(FALLBACKS)
    fields = fields_by_key(form)
    assert fields["$.name"].kind == "string"
    notes = dict(form.fallback_notes)
    assert set(notes) == {"$.point", "$.shape", "$.rows", "$.anything"}
    assert notes["$.point"] == "remote $ref not fetched: https://example.com/point.json"
    assert "`not`" in notes["$.shape"] and "if/then/else" in notes["$.rows"]
    assert notes["$.anything"] == "any JSON value is accepted"
    assert fields["$.point"].schema == {"$ref": "https://example.com/point.json"}  # carries its sub-schema
    values = default_values(form)
    values["$.name"] = "n"
    values["$.rows"] = '{"a": 1}'
    values["$.shape"] = '"square"'
    assert values_to_arguments(form, values) == {"name": "n", "shape": "square", "rows": {"a": 1}}
    values["$.rows"] = "[{"
    with pytest.raises(FormValueError) as caught:
        values_to_arguments(form, values)
    assert caught.value.key == "$.rows"
    assert validate_field(fields["$.rows"], "[{").startswith("invalid JSON")
    assert validate_field(fields["$.rows"], '{"a": "x", "b": 1}') == "'x' is not of type 'integer'"
    assert validate_field(fields["$.rows"], '{"a": 1}') == "'b' is a required property"


def test_root_that_is_not_an_object_schema_is_one_json_field():
    form = build_form({"oneOf": [{"type": "object"}, {"type": "object", "properties": {"a": {}}}]})
    assert form.root.kind == "json" and form.root.note == "the input schema is not an object schema"
    values = arguments_to_values(form, {"z": [1, 2]})
    assert values_to_arguments(form, values) == {"z": [1, 2]}
    assert build_form(None).root.kind == "object"  # no inputSchema: an empty object form


def test_optional_types_titled_enums_and_const():
    form = build_form(
        {
            "type": "object",
            "properties": {
                "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None, "title": "Maybe"},
                "nullable": {"type": ["string", "null"]},
                "size": {
                    "type": "string",
                    "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
                },
                "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
                "fixed": {"const": 3},
            },
        }
    )
    fields = fields_by_key(form)
    assert fields["$.maybe"].kind == "integer" and fields["$.maybe"].nullable and fields["$.maybe"].title == "Maybe"
    assert fields["$.nullable"].kind == "string" and fields["$.nullable"].nullable
    assert [(o.value, o.label) for o in fields["$.size"].options] == [("s", "Small"), ("l", "Large")]
    assert [o.label for o in fields["$.legacy"].options] == ["Alpha", "Beta"]
    assert [o.value for o in fields["$.fixed"].options] == [3]
    # null cannot be typed in, but it survives a round trip
    values = arguments_to_values(form, {"maybe": None})
    assert values["$.maybe"] == "" and values_to_arguments(form, values) == {"maybe": None}


# -- field validation -----------------------------------------------------------------


def test_validate_field_messages(demo_tools):
    fields = fields_by_key(build_form(demo_tools["create_ticket"]["inputSchema"]))
    title, count, hours = fields["$.title"], fields["$.count"], fields["$.estimate_hours"]
    assert validate_field(title, "") == "required"
    assert validate_field(title, "ab") == "at least 3 characters (now 2)"
    assert validate_field(title, "x" * 81) == "at most 80 characters (now 81)"
    assert validate_field(title, "abc") is None
    assert validate_field(count, "") is None  # optional
    assert validate_field(count, "2.5") == "must be an integer"
    assert validate_field(count, "abc") == "must be an integer"
    assert validate_field(count, "0") == "must be ≥ 1"
    assert validate_field(count, "101") == "must be ≤ 100"
    assert validate_field(count, " 42 ") is None
    assert validate_field(hours, "1e3") is None and validate_field(hours, "1e4") == "must be ≤ 1000"
    assert validate_field(hours, "-0.5") == "must be ≥ 0"
    assert validate_field(hours, "1_0") == "must be a number"
    assert validate_field(fields["$.due"], "2026-02-30") == "no such date"
    assert validate_field(fields["$.due"], "2026-02-28") is None
    assert validate_field(fields["$.assignee.email"], "nobody") == "not an email address (name@example.com)"
    assert validate_field(fields["$.tags"], ["a", "a"]) == "items must be unique"
    assert validate_field(fields["$.priority"], None) is None


def test_pattern_multiple_of_and_array_sizes():
    form = build_form(
        {
            "type": "object",
            "properties": {
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "step": {"type": "number", "multipleOf": 0.5, "exclusiveMinimum": 0},
                "ports": {
                    "type": "array",
                    "items": {"type": "integer", "maximum": 65535},
                    "minItems": 1,
                    "maxItems": 2,
                },
            },
            "required": ["ports"],
        }
    )
    fields = fields_by_key(form)
    assert validate_field(fields["$.code"], "abc") == "must match the pattern ^[A-Z]{3}$"
    assert validate_field(fields["$.code"], "ABC") is None
    assert validate_field(fields["$.step"], "0.75") == "must be a multiple of 0.5"
    assert validate_field(fields["$.step"], "0") == "must be > 0"
    assert validate_field(fields["$.ports"], []) == "needs at least 1 item"
    assert validate_field(fields["$.ports"], ["1", "2", "3"]) == "allows at most 2 items"
    assert validate_field(fields["$.ports"], ["80", "70000"]) == "item 2: must be ≤ 65535"
    assert values_to_arguments(form, {**default_values(form), "$.ports": ["80", "443"]}) == {"ports": [80, 443]}


def test_whole_form_issues_land_on_fields(demo_tools):
    form = build_form(demo_tools["create_ticket"]["inputSchema"])
    arguments = {"assignee": {"email": "x"}, "count": 0, "tags": ["a", 1], "priority": "meh"}
    by_field = issues_by_field(form, check_arguments(form, arguments))
    assert by_field["$.title"] == ["required"]
    assert by_field["$.assignee.name"] == ["required"]
    assert by_field["$.assignee.email"] == ["'x' is not a 'email'"]
    assert by_field["$.count"] == ["0 is less than the minimum of 1"]
    assert by_field["$.tags"] == ["1 is not of type 'string'"]
    assert "is not one of" in by_field["$.priority"][0]


# -- values <-> arguments ---------------------------------------------------------------


def test_defaults_and_empty_optional_fields(demo_tools):
    form = build_form(demo_tools["create_ticket"]["inputSchema"])
    values = default_values(form)
    assert values["$.priority"] == "medium" and values["$.count"] == "1" and values["$.notify"] is True
    assert values_to_arguments(form, values) == {"priority": "medium", "count": 1, "notify": True}
    values.update(
        {
            "$.title": "Broken login",
            "$.assignee.name": "Ada",
            "$.tags": ["web", "auth"],
            "$.labels": ["bug"],
            "$.estimate_hours": "2.5",
            "$.count": "3",
            "$.notify": False,
        }
    )
    arguments = values_to_arguments(form, values)
    assert arguments == {
        "title": "Broken login",
        "priority": "medium",
        "tags": ["web", "auth"],
        "assignee": {"name": "Ada"},
        "estimate_hours": 2.5,
        "count": 3,
        "notify": False,
        "labels": ["bug"],
    }
    assert validate(form.schema, arguments) == []


def test_round_trip_keeps_what_the_form_cannot_show(demo_tools):
    form = build_form(demo_tools["create_ticket"]["inputSchema"])
    arguments = {
        "title": "T",
        "unknown": {"deep": [1, None]},  # unknown key
        "count": "five",  # wrong type
        "description": "",  # explicit empty string in an optional field (shown, flagged)
        "tags": [],  # explicit empty list
        "priority": "someday",  # not in the enum
        "assignee": {"name": "A", "extra": True},  # unknown nested key
        "estimate_hours": 2.0,  # float that looks whole
        "notify": False,
    }
    values = arguments_to_values(form, arguments)
    assert values["$.title"] == "T" and values["$.assignee.name"] == "A"
    assert values["$.estimate_hours"] == "2.0" and values["$.count"] == ""
    assert values["$"] == {"unknown": {"deep": [1, None]}, "count": "five", "tags": [], "priority": "someday"}
    assert values["$.description"] == "" and values["$.description" + EMPTY] is True
    assert values["$.assignee"] == {"extra": True}
    back = values_to_arguments(form, values)
    assert json.dumps(back, sort_keys=True) == json.dumps(arguments, sort_keys=True)
    # a field filled in the form wins over the extra it replaces
    values["$.count"] = "4"
    assert values_to_arguments(form, values)["count"] == 4


# -- properties --------------------------------------------------------------------------

JSONS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=8,
)
TICKET_KEYS = [
    "title",
    "description",
    "priority",
    "tags",
    "assignee",
    "due",
    "estimate_hours",
    "count",
    "notify",
    "labels",
    "other",
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arguments=st.dictionaries(st.sampled_from(TICKET_KEYS) | st.text(max_size=3), JSONS, max_size=6))
def test_property_any_json_survives_a_round_trip(demo_tools, arguments):
    form = build_form(demo_tools["create_ticket"]["inputSchema"])
    back = values_to_arguments(form, arguments_to_values(form, arguments))
    assert json.dumps(back, sort_keys=True) == json.dumps(arguments, sort_keys=True)


def _valid_text(spec, draw):
    """A string that satisfies one text field's constraints."""
    c = spec.constraints
    if spec.kind == "integer":
        return str(draw(st.integers(c.get("minimum", -1000), c.get("maximum", 1000))))
    if spec.kind == "number":
        low, high = c.get("minimum", -1e6), c.get("maximum", 1e6)
        return repr(draw(st.floats(low, high, allow_nan=False, allow_infinity=False)))
    if c.get("format") == "date":
        return draw(st.dates()).isoformat()
    if c.get("format") == "email":
        return draw(st.text(string.ascii_lowercase, min_size=1, max_size=5)) + "@example.com"
    return draw(
        st.text(string.printable, min_size=max(c.get("minLength", 0), 1), max_size=min(c.get("maxLength", 20), 20))
    )


@st.composite
def filled_values(draw, form):
    """Random values a user could enter: each field empty or holding a value within its constraints."""
    values = default_values(form)
    for spec in form.fields():
        fill = spec.required or draw(st.booleans())
        if spec.kind in ("string", "number", "integer"):
            values[spec.key] = _valid_text(spec, draw) if fill else ""
        elif spec.kind == "boolean":
            values[spec.key] = draw(st.booleans()) if fill else values[spec.key]
        elif spec.kind == "enum":
            values[spec.key] = draw(st.sampled_from([o.value for o in spec.options])) if fill else values[spec.key]
        elif spec.kind == "array" and fill:
            if spec.item.kind == "enum":
                values[spec.key] = draw(st.lists(st.sampled_from([o.value for o in spec.item.options]), unique=True))
            else:
                values[spec.key] = draw(
                    st.lists(st.text(string.ascii_letters, min_size=1, max_size=6), unique=True, max_size=4)
                )
    return values


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_property_valid_field_values_make_valid_arguments(demo_tools, data):
    for name in ("create_ticket", "long_running_task", "weather_report", "flood_notifications", "add"):
        schema = demo_tools[name]["inputSchema"]
        form = build_form(schema)
        values = data.draw(filled_values(form), label=name)
        for spec in form.fields():  # the field checks agree with the user's values...
            if spec.kind in ("string", "number", "integer", "array"):
                assert validate_field(spec, values[spec.key]) is None, (spec.key, values[spec.key])
        arguments = values_to_arguments(form, values)
        assert validate(schema, arguments) == [], (name, arguments)  # ...and so does the whole schema
        assert values_to_arguments(form, arguments_to_values(form, arguments)) == arguments


def test_a_required_tuple_left_empty_is_missing_not_null_and_empty_string():
    schema = {
        "type": "object",
        "properties": {"at": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "string"}], "minItems": 2}},
        "required": ["at"],
    }
    form = build_form(schema)
    values = default_values(form)
    arguments = values_to_arguments(form, values)
    assert arguments == {}
    assert issues_by_field(form, validate(schema, arguments)) == {"$.at": ["required"]}
    values["$.at[0]"] = "1.5"
    assert values_to_arguments(form, values) == {"at": [1.5, ""]}  # filled: the gap is sent, and the schema decides
    # a required tuple with no required positions is still sent empty
    loose = {
        "type": "object",
        "properties": {"at": {"type": "array", "prefixItems": [{"type": "number"}]}},
        "required": ["at"],
    }
    assert values_to_arguments(build_form(loose), default_values(build_form(loose))) == {"at": []}


def test_empty_strings_are_sent_only_when_flagged_and_round_trip_as_fields():
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "newText": {"type": "string"},
            "note": {"type": "string"},
            "code": {"type": "string", "minLength": 1},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "string"}]},
            "blank": {"type": "string", "default": ""},
        },
        "required": ["path", "newText", "blank"],
    }
    form = build_form(schema)
    values = default_values(form)
    assert values["$.blank" + EMPTY] is True  # a default "" is shown in its field, not kept aside
    assert values_to_arguments(form, values) == {"blank": ""}
    values["$.path"] = "a.txt"
    assert issues_by_field(form, validate(schema, values_to_arguments(form, values))) == {"$.newText": ["required"]}
    values["$.newText" + EMPTY] = True
    assert values_to_arguments(form, values) == {"path": "a.txt", "newText": "", "blank": ""}
    assert validate(schema, values_to_arguments(form, values)) == []
    assert validate_field(form.field("$.newText"), "") == "required"
    assert validate_field(form.field("$.newText"), "", empty=True) is None
    assert validate_field(form.field("$.code"), "", empty=True) == "at least 1 characters (now 0)"
    # typed text wins over the flag
    values["$.newText"] = "x"
    assert values_to_arguments(form, values)["newText"] == "x"
    # explicit "" in arguments (top level, optional, inside a tuple) come back as flagged fields
    arguments = {"path": "", "newText": "", "note": "", "pair": ["", "b"], "blank": ""}
    values = arguments_to_values(form, arguments)
    assert values["$"] == {}
    assert all(values[key + EMPTY] for key in ("$.path", "$.newText", "$.note", "$.pair[0]"))
    assert values_to_arguments(form, values) == arguments
