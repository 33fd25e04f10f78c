"""JSON Schema validation: the declared dialect, 2020-12 by default, no network $ref."""

from __future__ import annotations

import socket

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_inspector.core.schema.validation import Issue, validate

DRAFT7 = "http://json-schema.org/draft-07/schema#"


def test_default_dialect_is_2020_12() -> None:
    schema = {"type": "array", "prefixItems": [{"type": "integer"}]}
    assert validate(schema, ["x"]) == [Issue("$[0]", "'x' is not of type 'integer'")]
    assert validate({**schema, "$schema": "https://json-schema.org/draft/2020-12/schema"}, ["x"]) != []


def test_draft_07_is_honoured_when_declared() -> None:
    # prefixItems means nothing in draft-07, and draft-07's array-form `items` is its tuple validation.
    assert validate({"$schema": DRAFT7, "type": "array", "prefixItems": [{"type": "integer"}]}, ["x"]) == []
    issues = validate({"$schema": DRAFT7, "type": "array", "items": [{"type": "integer"}]}, ["x"])
    assert [i.path for i in issues] == ["$[0]"]
    # `dependencies` is draft-07; 2020-12 ignores it.
    dependent = {"type": "object", "dependencies": {"a": ["b"]}}
    assert validate({"$schema": DRAFT7, **dependent}, {"a": 1}) != []
    assert validate(dependent, {"a": 1}) == []


def test_paths_point_at_the_bad_value() -> None:
    schema = {
        "type": "object",
        "properties": {
            "assignee": {"type": "object", "properties": {"email": {"type": "string", "format": "email"}}},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["title"],
    }
    issues = validate(schema, {"assignee": {"email": "not-an-email"}, "tags": ["ok", 3]})
    by_path = {i.path: i.message for i in issues}
    assert set(by_path) == {"$", "$.assignee.email", "$.tags[1]"}
    assert "'title' is a required property" in by_path["$"]
    assert "email" in by_path["$.assignee.email"]
    assert str(issues[0]).startswith(issues[0].path + ": ")


def test_local_refs_resolve() -> None:
    schema = {
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/point"}},
        "$defs": {"point": {"type": "object", "required": ["x"]}},
    }
    assert validate(schema, {"p": {"x": 1}}) == []
    assert [i.path for i in validate(schema, {"p": {}})] == ["$.p"]


def test_remote_ref_is_reported_and_never_fetched(monkeypatch) -> None:
    attempts: list[object] = []

    def no_network(*args, **kwargs):
        attempts.append(args)
        raise AssertionError("validation tried to open a network connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    issues = validate({"type": "object", "properties": {"a": {"$ref": "https://example.com/schemas/a.json"}}}, {"a": 1})
    assert issues == [Issue("$", "cannot validate: remote $ref not fetched: https://example.com/schemas/a.json")]
    assert attempts == []


def test_trivial_and_broken_schemas() -> None:
    assert validate(None, {"anything": 1}) == []
    assert validate(True, 5) == [] and validate({}, 5) == []
    assert validate(False, 5) == [Issue("$", "the schema is `false`: no value is valid")]
    broken = validate({"type": "nonsense"}, 1)
    assert len(broken) == 1 and broken[0].message.startswith("the schema itself is invalid")
    missing = validate({"$ref": "#/$defs/missing"}, 1)
    assert len(missing) == 1 and missing[0].message.startswith("cannot validate")


# -- validate() must agree with jsonschema itself, shortcuts or not ---------------------------

_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(-5, 5, allow_nan=False)
    | st.sampled_from(["", "a", "b", "1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
    max_leaves=8,
)
_types = st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array"])


def _schemas():
    leaf = st.one_of(
        st.just({}),
        st.just(True),
        st.builds(lambda t: {"type": t}, _types),
        st.builds(lambda ts: {"type": ts}, st.lists(_types, min_size=1, max_size=3, unique=True)),
        st.builds(lambda e: {"enum": e}, st.lists(st.sampled_from(["a", "b", 1, None, True]), min_size=1, max_size=3)),
        st.builds(lambda t: {"type": t, "description": "d", "default": None}, _types),
    )

    def extend(inner):
        props = st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
        return st.one_of(
            st.builds(
                lambda p, r: {"type": "object", "properties": p, "required": r},
                props,
                st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True),
            ),
            st.builds(lambda p, a: {"properties": p, "additionalProperties": a}, props, inner),
            st.builds(lambda i: {"type": "array", "items": i}, inner),
        )

    return st.recursive(leaf, extend, max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(schema=_schemas(), instance=_json, draft7=st.booleans())
def test_validate_agrees_with_jsonschema(schema, instance, draft7) -> None:
    if draft7 and isinstance(schema, dict):
        schema = {"$schema": DRAFT7, **schema}
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    expected = sorted(error.message for error in cls(schema).iter_errors(instance))
    assert sorted(issue.message for issue in validate(schema, instance)) == expected


def test_multiple_of_is_exact_for_decimals_and_agrees_with_the_field_check() -> None:
    from mcp_inspector.core.schema.form import build_form, validate_field

    schema = {
        "type": "object",
        "properties": {"p": {"type": "number", "multipleOf": 0.05}, "n": {"type": "integer", "multipleOf": 3}},
    }
    field = build_form(schema).field("$.p")
    for text, ok in (
        ("0.3", True),
        ("0.35", True),
        ("1.1", True),
        ("0.07", False),
        ("0.333", False),
        ("-0.15", True),
        ("7", True),
    ):
        assert (validate(schema, {"p": float(text)}) == []) is ok, text
        assert (validate_field(field, text) is None) is ok, text
    issues = validate(schema, {"p": 0.33})
    assert [(i.path, i.message) for i in issues] == [("$.p", "0.33 is not a multiple of 0.05")]
    assert validate(schema, {"n": 9}) == [] and validate(schema, {"n": 10}) != []
    # a multipleOf inside a draft-07 schema gets the same exact rule
    assert validate({"$schema": DRAFT7, **schema}, {"p": 0.3}) == []
    # huge and tiny numbers still get an answer
    assert validate(schema, {"p": 1e308}) == [] and validate(schema, {"p": 5e-324}) != []
