"""Tests for core.schema.resolve: the per-node helpers the schema form engine builds on.

Many cases come from the schema corpus (tests/fixtures/schemas/): the hand-written hard
cases and schemas captured from real servers, so the helpers are checked on what
servers really send.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_inspector.core.schema.classify import Variant, pick_variant, understood, variants
from mcp_inspector.core.schema.formats import check_format, describe_constraints
from mcp_inspector.core.schema.resolve import (
    deref,
    dialect,
    dialect_uri,
    enum_options,
    merge_all_of,
    multi_select_options,
    normalize,
    nullable,
    resolve_ref,
)

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "schemas"


def tool_schema(corpus: str, tool: str) -> dict:
    data = json.loads((CORPUS / f"{corpus}.json").read_text())
    return next(t["inputSchema"] for t in data["tools"] if t["name"] == tool)


def hard(tool: str) -> dict:
    return tool_schema("hand_written_hard", tool)


# -- dialect ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("https://json-schema.org/draft/2020-12/schema", "2020-12"),
        ("https://json-schema.org/draft/2019-09/schema#", "2019-09"),
        ("http://json-schema.org/draft-07/schema#", "draft-07"),
        ("http://json-schema.org/draft-07/schema", "draft-07"),
        ("https://json-schema.org/draft-07/schema#", "draft-07"),
        ("http://json-schema.org/draft-04/schema#", "draft-04"),
        ("https://example.com/my-meta-schema", "unknown"),
    ],
)
def test_dialect_from_schema_uri(uri, expected):
    assert dialect({"$schema": uri, "type": "object"}) == expected


def test_dialect_defaults_to_2020_12():
    assert dialect({"type": "object"}) == "2020-12"
    assert dialect({"$schema": 7}) == "2020-12"
    assert dialect(True) == "2020-12"
    assert dialect(hard("no_dialect")) == "2020-12"
    assert dialect(tool_schema("server-filesystem", "read_file")) == "draft-07"
    assert dialect_uri("draft-07") == "http://json-schema.org/draft-07/schema#"
    assert dialect_uri("unknown") == "https://json-schema.org/draft/2020-12/schema"


# -- resolve_ref --------------------------------------------------------------------


def test_resolve_ref_local_pointers_and_escapes():
    root = hard("local_ref_defs")
    assert resolve_ref(root, "#/$defs/Address") == (root["$defs"]["Address"], None)
    assert resolve_ref(root, "#/$defs/a~1b") == (root["$defs"]["a/b"], None)
    assert resolve_ref(root, "#/$defs/100%25") == (root["$defs"]["100%"], None)
    assert resolve_ref(root, "#/$defs/tilde~0name") == (root["$defs"]["tilde~name"], None)
    assert resolve_ref(root, "#") == (root, None)
    assert resolve_ref(root, "#/properties/home") == (root["properties"]["home"], None)


def test_resolve_ref_draft07_definitions_and_array_index():
    root = hard("draft07_definitions")
    assert resolve_ref(root, "#/definitions/Priority")[0]["enum"] == ["low", "normal", "high"]
    root = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert resolve_ref(root, "#/anyOf/1") == ({"type": "integer"}, None)
    assert resolve_ref(root, "#/anyOf/2")[1] == "$ref target not found: #/anyOf/2"


def test_resolve_ref_anchor_and_own_id():
    root = {
        "$id": "https://example.com/tool.json",
        "$defs": {"A": {"$anchor": "thing", "type": "string"}, "B": {"$id": "#legacy", "type": "integer"}},
    }
    assert resolve_ref(root, "#thing") == (root["$defs"]["A"], None)
    assert resolve_ref(root, "#legacy") == (root["$defs"]["B"], None)
    assert resolve_ref(root, "https://example.com/tool.json#/$defs/A") == (root["$defs"]["A"], None)
    assert resolve_ref(root, "#nope") == (None, "$ref target not found: #nope")


def test_resolve_ref_remote_is_reported_never_fetched():
    root = hard("ref_chains_and_broken_refs")
    for ref in (
        "https://example.com/schemas/address.json",
        "https://example.com/schemas/common.json#/$defs/Id",
        "other.json#/x",
    ):
        assert resolve_ref(root, ref) == (None, f"remote $ref not fetched: {ref}")


def test_resolve_ref_missing_and_non_schema_targets():
    root = hard("ref_chains_and_broken_refs")
    assert resolve_ref(root, "#/$defs/Nope") == (None, "$ref target not found: #/$defs/Nope")
    assert resolve_ref(root, "#/$schema")[1] == "$ref does not point at a schema: #/$schema"
    assert resolve_ref(root, 42)[1].startswith("$ref is not a string")


# -- deref ---------------------------------------------------------------------------


def test_deref_merges_siblings_outer_annotations_win():
    root = hard("local_ref_defs")
    home, problem = deref(root, root["properties"]["home"])
    assert problem is None
    assert "$ref" not in home
    assert home["description"] == "Where you live"
    assert home["title"] == "Address" and home["required"] == ["city"]
    work, _ = deref(root, root["properties"]["work"])
    assert work["title"] == "Work address"
    percent, _ = deref(root, root["properties"]["percent"])
    assert percent == {"type": "integer", "title": "Percent key", "minimum": 0, "maximum": 100, "default": 50}


def test_deref_follows_chains_and_keeps_each_layer():
    root = hard("ref_chains_and_broken_refs")
    chained, problem = deref(root, root["properties"]["chained"])
    assert problem is None
    assert chained == {"type": "string", "format": "email", "title": "B", "description": "A is B"}


def test_deref_cycle_missing_remote_return_schema_unchanged_with_problem():
    root = hard("ref_chains_and_broken_refs")
    props = root["properties"]
    assert deref(root, props["cycle"]) == (
        props["cycle"],
        "$ref cycle: #/$defs/loop1 -> #/$defs/loop2 -> #/$defs/loop1",
    )
    assert deref(root, props["missing"]) == (props["missing"], "$ref target not found: #/$defs/Nope")
    assert deref(root, props["remote"])[1] == "remote $ref not fetched: https://example.com/schemas/address.json"


def test_deref_chain_limit():
    root = {"$defs": {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(10)} | {"d10": {"type": "string"}}}
    assert deref(root, {"$ref": "#/$defs/d0"}) == ({"type": "string"}, None)
    assert deref(root, {"$ref": "#/$defs/d0"}, depth=5)[1] == "$ref chain longer than 5 steps"


def test_deref_recursion_is_not_expanded():
    root = hard("recursive_tree")
    node, problem = deref(root, root["properties"]["root"])
    assert problem is None
    assert node["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}  # left for the caller
    again, _ = deref(root, node["properties"]["children"]["items"])
    assert again == node
    whole, problem = deref(root, root["properties"]["same_again"])
    assert problem is None and whole["properties"]["root"] == {"$ref": "#/$defs/Node"}


def test_deref_draft07_ignores_non_annotation_siblings():
    root = {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"S": {"type": "string"}}}
    out, problem = deref(root, {"$ref": "#/definitions/S", "description": "kept", "maxLength": 3})
    assert problem is None and out == {"type": "string", "description": "kept"}
    root_2020 = {"$defs": {"S": {"type": "string"}}}
    out, _ = deref(root_2020, {"$ref": "#/$defs/S", "maxLength": 3})
    assert out == {"type": "string", "maxLength": 3}


def test_deref_sibling_contradiction_is_a_problem():
    root = {"$defs": {"N": {"type": "integer"}}}
    schema = {"$ref": "#/$defs/N", "type": "string"}
    out, problem = deref(root, schema)
    assert out is schema and "contradict" in problem and "types conflict" in problem


def test_deref_real_sdk_server_defs():
    root = tool_schema("sdk_server", "greet")
    person, problem = deref(root, root["properties"]["person"])
    assert problem is None and person["title"] == "Person"
    address, problem = deref(root, person["properties"]["address"])
    assert problem is None and address["properties"]["country"]["default"] == "FR"


def test_deref_leaves_plain_schemas_alone():
    schema = {"type": "string"}
    assert deref({}, schema) == (schema, None)
    assert deref({}, True) == (True, None)


# -- merge_all_of --------------------------------------------------------------------


def test_merge_all_of_unions_properties_and_required():
    root = hard("all_of_merge")
    merged, problems = merge_all_of(root, root)
    assert problems == []
    assert "allOf" not in merged
    assert list(merged["properties"]) == ["limit", "name", "age", "email", "reason"]  # the $ref member too
    assert merged["required"] == ["name", "email"]
    assert merged["properties"]["age"] == {
        "allOf": [{"type": "number", "minimum": 0}, {"type": "integer", "maximum": 150}]
    }
    age, problems = merge_all_of(root, merged["properties"]["age"])
    assert problems == [] and age == {"type": "integer", "minimum": 0, "maximum": 150}


def test_merge_all_of_tightens_constraints():
    root = hard("all_of_merge")
    limit, problems = merge_all_of(root, root["properties"]["limit"])
    assert problems == [] and limit == {"type": "integer", "minimum": 5, "maximum": 50, "multipleOf": 5}
    merged, problems = merge_all_of(
        {},
        {
            "allOf": [
                {"type": ["string", "null"], "minLength": 2, "enum": ["a", "bb", "ccc"], "multipleOf": 4},
                {
                    "type": "string",
                    "minLength": 3,
                    "maxLength": 9,
                    "enum": ["bb", "ccc", "dddd"],
                    "multipleOf": 6,
                    "uniqueItems": True,
                },
            ]
        },
    )
    assert problems == []
    assert merged == {
        "type": "string",
        "minLength": 3,
        "maxLength": 9,
        "enum": ["bb", "ccc"],
        "multipleOf": 12,
        "uniqueItems": True,
    }


def test_merge_all_of_patterns_are_both_enforced():
    merged, problems = merge_all_of({}, {"allOf": [{"pattern": "^a"}, {"pattern": "z$"}]})
    assert problems == []
    # Listed, not joined into one regex of lookaheads (beyond the bounded engine, server_regex.py):
    # a form field built from the merged schema checks both, and says both.
    from mcp_inspector.core.schema.form import build_form, validate_field
    from mcp_inspector.core.schema.formats import ALL_PATTERNS

    assert merged[ALL_PATTERNS] == ["^a", "z$"]
    spec = build_form({"type": "object", "properties": {"s": {"type": "string", **merged}}}).root.children[0]
    assert validate_field(spec, "abcz") is None
    assert validate_field(spec, "abc") == "must match the pattern z$"
    assert validate_field(spec, "bz") == "must match the pattern ^a"
    assert "matches ^a" in spec.hints and "matches z$" in spec.hints


def test_merge_all_of_reports_conflicts():
    root = hard("all_of_conflicts")
    _, problems = merge_all_of(root, root["properties"]["mode"])
    assert problems == ['conflicting const: "fast" and "slow"']
    _, problems = merge_all_of(root, root["properties"]["weird"])
    assert problems == ["types conflict: string and integer"]
    _, problems = merge_all_of({}, {"allOf": [{"enum": [1, 2]}, {"enum": [3]}]})
    assert problems == ["enums have no value in common"]
    _, problems = merge_all_of({}, {"allOf": [{"format": "email"}, {"format": "uri"}]})
    assert problems == ["conflicting formats: email and uri"]
    _, problems = merge_all_of({}, {"allOf": [{"oneOf": [{"type": "string"}]}, {"oneOf": [{"type": "integer"}]}]})
    assert problems == ["cannot merge two different `oneOf`"]
    _, problems = merge_all_of({}, {"allOf": [{"$ref": "#/$defs/Gone"}, False]})
    assert problems == [
        "allOf member 1: $ref target not found: #/$defs/Gone",
        "allOf member 2 is `false`: no value is valid",
    ]


def test_merge_all_of_warns_about_additional_properties_false():
    _, problems = merge_all_of(
        {},
        {
            "allOf": [
                {"properties": {"a": {}}, "additionalProperties": False},
                {"properties": {"b": {}}},
            ]
        },
    )
    assert problems == ["a member has additionalProperties: false, so validation rejects b from another member"]


def test_merge_all_of_self_including_allof_stops():
    root = {"$defs": {"X": {"allOf": [{"$ref": "#/$defs/X"}]}}}
    _, problems = merge_all_of(root, root["$defs"]["X"])
    assert problems and "nested more than" in problems[-1]


def test_merge_all_of_without_allof_is_identity():
    schema = {"type": "object"}
    assert merge_all_of({}, schema) == (schema, [])


# -- nullable ------------------------------------------------------------------------


def test_nullable_shapes_from_the_hard_corpus():
    props = hard("nullables")["properties"]
    assert nullable(props["any_of_null"]) == ({"type": "string", "maxLength": 20, "title": "Nickname"}, True)
    assert nullable(props["one_of_null"]) == ({"type": "integer", "minimum": 0}, True)
    assert nullable(props["type_list"]) == ({"type": "string", "format": "date"}, True)
    assert nullable(props["type_list_number"]) == ({"type": "number", "minimum": 0}, True)
    assert nullable(props["enum_with_null"]) == ({"type": "string", "enum": ["red", "green"]}, True)
    assert nullable(props["optional_ref"]) == ({"$ref": "#/$defs/Address"}, True)
    assert nullable(props["multi_type"]) == (props["multi_type"], False)


def test_nullable_real_git_server_optional_string():
    contains = tool_schema("mcp-server-git", "git_branch")["properties"]["contains"]
    inner, is_nullable = nullable(contains)
    assert is_nullable and inner["type"] == "string" and inner["title"] == "Contains"
    assert "default" not in inner


def test_nullable_keeps_other_members_as_a_union_and_openapi_flag():
    inner, is_nullable = nullable({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})
    assert is_nullable and inner == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert nullable({"type": "string", "nullable": True}) == ({"type": "string"}, True)
    assert nullable({"type": "string"}) == ({"type": "string"}, False)
    assert nullable({"type": ["null"]}) == ({"type": ["null"]}, False)  # only null: nothing else to edit
    assert nullable(True) == (True, False)


# -- enum_options / multi_select_options ---------------------------------------------


def test_enum_options_all_spellings():
    props = hard("enums")["properties"]
    assert enum_options(props["plain"]) == [("small", "small"), ("medium", "medium"), ("large", "large")]
    assert enum_options(props["numbers"]) == [(1, "1"), (2, "2"), (3, "3")]
    assert enum_options(props["titled_one_of"]) == [("#f00", "Red"), ("#0f0", "Green"), ("#00f", "#00f")]
    assert enum_options(props["titled_any_of"]) == [(1, "One"), (2, "Two")]
    assert enum_options(props["legacy_enum_names"]) == [("s", "Small"), ("m", "Medium"), ("l", "Large")]
    assert enum_options(props["fixed"]) is None
    assert enum_options({"type": "string"}) is None
    assert enum_options({"oneOf": [{"const": "a"}, {"type": "string"}]}) is None  # not all constants
    assert enum_options({"enum": ["a", "b"], "enumNames": ["A"]}) == [
        ("a", "a"),
        ("b", "b"),
    ]  # mismatched names ignored


def test_multi_select_options():
    props = hard("elicitation_multi_select")["properties"]
    assert multi_select_options(props["toppings"]) == [(v, v) for v in ("cheese", "ham", "olives", "basil")]
    assert multi_select_options(props["days"]) == [("mon", "Monday"), ("tue", "Tuesday"), ("wed", "Wednesday")]
    assert multi_select_options(hard("arrays")["properties"]["people"]) is None
    assert multi_select_options({"type": "string", "enum": ["a"]}) is None
    labels = tool_schema("server-github", "create_issue")["properties"]["labels"]
    assert multi_select_options(labels) is None  # array of free strings


# -- variants / pick_variant ---------------------------------------------------------


def test_variants_const_discriminator_inline_and_ref():
    root = hard("one_of_discriminated")
    shape = variants(root, root["properties"]["shape"])
    assert [(v.title, v.discriminator) for v in shape] == [
        ("Circle", ("type", "circle")),
        ("Square", ("type", "square")),
    ]
    assert shape[1].schema["properties"]["side"] == {"type": "number", "exclusiveMinimum": 0}
    assert pick_variant(shape, {"type": "square", "side": 2}) == 1
    assert pick_variant(shape, {"type": "circle"}) == 0  # the discriminator decides, even if incomplete
    assert pick_variant(shape, {"type": "hexagon"}) is None
    assert pick_variant(shape, {"radius": 1, "type": "circle"}) == 0


def test_variants_single_value_enum_discriminator_untitled():
    root = hard("one_of_discriminated")
    pet = variants(root, root["properties"]["pet"])
    assert [(v.title, v.discriminator) for v in pet] == [("cat", ("kind", "cat")), ("dog", ("kind", "dog"))]
    assert pick_variant(pet, {"kind": "dog", "breed": "collie"}) == 1


def test_variants_without_discriminator_pick_by_validation():
    root = hard("one_of_discriminated")
    contact = variants(root, root["properties"]["contact"])
    assert [(v.title, v.discriminator) for v in contact] == [("By email", None), ("By phone", None)]
    assert pick_variant(contact, {"phone": "+33 612345678"}) == 1
    assert pick_variant(contact, {"email": "a@b.example"}) == 0
    assert pick_variant(contact, {"fax": "1"}) is None
    scalar = variants(root, root["properties"]["scalar_union"])
    assert [v.title for v in scalar] == ["string", "integer"]
    assert pick_variant(scalar, 5) == 1 and pick_variant(scalar, "x") == 0 and pick_variant(scalar, 1.5) is None


def test_variants_real_github_review_comments():
    comments = tool_schema("server-github", "create_pull_request_review")["properties"]["comments"]
    choices = variants({}, comments["items"])
    assert len(choices) == 2 and all(v.discriminator is None for v in choices)
    assert pick_variant(choices, {"path": "a.py", "line": 3, "body": "nit"}) == 1
    assert pick_variant(choices, {"path": "a.py", "position": 3, "body": "nit"}) == 0


def test_variants_validation_sees_root_defs():
    root = {
        "$defs": {"Id": {"type": "integer"}},
        "properties": {
            "x": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"id": {"$ref": "#/$defs/Id"}},
                        "required": ["id"],
                        "additionalProperties": False,
                    },
                    {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
                ]
            }
        },
    }
    choices = variants(root, root["properties"]["x"])
    assert pick_variant(choices, {"id": 3}) == 0
    assert pick_variant(choices, {"id": "three", "name": "n"}) == 1


def test_variants_shared_siblings_and_titles_from_refs():
    root = {
        "$defs": {
            "Cat": {"properties": {"meow": {"type": "boolean"}}},
            "Dog": {"properties": {"bark": {"type": "boolean"}}},
        }
    }
    union = {
        "type": "object",
        "title": "Pet",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}, {"type": "null"}],
    }
    choices = variants(root, union)
    assert [v.title for v in choices] == ["Cat", "Dog"]  # the null member is nullable()'s business
    assert choices[0].schema == {
        "properties": {"meow": {"type": "boolean"}, "name": {"type": "string"}},
        "type": "object",
        "required": ["name"],
    }


def test_variants_of_multi_type_and_non_unions():
    multi = tool_schema("server-sequential-thinking", "sequentialthinking")["properties"]["isRevision"]
    choices = variants({}, multi)
    assert [v.title for v in choices] == ["boolean", "string"]
    assert pick_variant(choices, True) == 0 and pick_variant(choices, "yes") == 1
    assert variants({}, {"type": "string"}) == []
    assert variants({}, {"type": ["string", "null"]}) == []
    assert pick_variant([], {}) is None


def test_variants_report_member_problems():
    root = hard("ref_chains_and_broken_refs")
    choices = variants(root, {"oneOf": [{"$ref": "#/$defs/Nope"}, {"type": "string"}]})
    assert choices[0].problems == ("$ref target not found: #/$defs/Nope",) and choices[0].title == "Nope"
    assert pick_variant(choices, "x") == 1
    assert isinstance(choices[1], Variant)


# -- describe_constraints ------------------------------------------------------------


def test_describe_constraints_numbers():
    props = hard("constraints")["properties"]
    assert describe_constraints(props["count"]) == ["≥ 0", "≤ 10", "multiple of 2"]
    assert describe_constraints(props["ratio"]) == ["> 0", "< 1"]
    assert describe_constraints(props["price"]) == ["≥ 0", "multiple of 0.01"]
    assert describe_constraints(props["big"]) == []  # zod's safe-integer bounds are noise
    assert describe_constraints({"minimum": 1.0, "exclusiveMaximum": 100}) == ["≥ 1", "< 100"]
    assert describe_constraints({"minimum": 5, "exclusiveMinimum": True}) == ["> 5"]  # draft-04 style
    assert describe_constraints({"multipleOf": 5}) == ["multiple of 5"]


def test_describe_constraints_strings_arrays_objects():
    props = hard("constraints")["properties"]
    assert describe_constraints(props["slug"]) == ["3–80 characters", "matches ^[a-z]+(-[a-z]+)*$"]
    assert describe_constraints(props["email"]) == ["format: email"]
    assert describe_constraints({"minLength": 1}) == ["at least 1 character"]
    assert describe_constraints({"maxLength": 5}) == ["at most 5 characters"]
    assert describe_constraints({"minLength": 4, "maxLength": 4}) == ["exactly 4 characters"]
    assert describe_constraints({"minLength": 0}) == []
    assert describe_constraints({"minItems": 2, "maxItems": 5, "uniqueItems": True}) == ["2–5 items", "unique items"]
    assert describe_constraints({"maxItems": 1}) == ["at most 1 item"]
    assert describe_constraints({"minProperties": 1, "maxProperties": 3}) == ["1–3 entries"]
    assert describe_constraints({"type": "string"}) == []
    assert describe_constraints(True) == []


# -- check_format --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "value", "message"),
    [
        ("date", "2026-11-22", None),
        ("date", "2026-02-30", "no such date"),
        ("date", "22/11/2026", "not a date: use YYYY-MM-DD"),
        ("date-time", "2026-11-22T14:05:00Z", None),
        ("date-time", "2026-11-22t14:05:00.123+01:00", None),
        ("date-time", "2026-11-22T14:05:00", "a date-time needs a time zone: Z or ±hh:mm"),
        ("date-time", "2026-11-22T25:05:00Z", "no such date or time"),
        ("date-time", "2026-11-22", "not a date-time: use YYYY-MM-DDThh:mm:ssZ"),
        ("time", "14:05:00Z", None),
        ("time", "14:05", "not a time: use hh:mm:ssZ or hh:mm:ss±hh:mm"),
        ("email", "ada@example.com", None),
        ("email", "ada@", "not an email address (name@example.com)"),
        ("email", "ada example.com", "not an email address (name@example.com)"),
        ("email", "a@b..c", "not an email address (name@example.com)"),
        ("uri", "https://example.com/a?b=c", None),
        ("uri", "urn:isbn:0451450523", None),
        ("uri", "example.com", "not a URI: it needs a scheme such as https: and no spaces"),
        ("uri", "https://exa mple.com", "not a URI: it needs a scheme such as https: and no spaces"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000", None),
        ("uuid", "123e4567e89b12d3a456426614174000", "not a UUID (8-4-4-4-12 hex digits)"),
        ("ipv4", "127.0.0.1", None),
        ("ipv4", "::1", "not an IPv4 address"),
        ("ipv6", "::1", None),
        ("hostname", "anything goes", None),
    ],
)
def test_check_format(fmt, value, message):
    assert check_format(fmt, value) == message


def test_check_format_ignores_empty_and_non_strings():
    assert check_format("email", "") is None
    assert check_format("date", 20261122) is None
    assert check_format(None, "x") is None


def test_check_format_agrees_with_validator_on_accepted_values():
    """What check_format accepts, the jsonschema format checker accepts too (no false hints)."""
    from jsonschema import Draft202012Validator

    checker = Draft202012Validator.FORMAT_CHECKER
    for fmt, value in [
        ("date", "2026-11-22"),
        ("date-time", "2026-11-22T14:05:00Z"),
        ("email", "ada@example.com"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
        ("ipv4", "10.0.0.1"),
    ]:
        assert check_format(fmt, value) is None
        assert checker.conforms(value, fmt)


# -- understood ----------------------------------------------------------------------


def test_understood_falls_back_only_for_the_subtree():
    root = hard("conditional_and_not")
    verdicts = {name: understood(prop, root) for name, prop in root["properties"].items()}
    assert verdicts["title"] == (True, "")
    assert verdicts["count"] == (True, "")
    assert verdicts["payment"] == (False, "it uses if/then/else (a conditional schema)")
    assert verdicts["not_admin"] == (False, "it uses `not` (a value that must NOT match a schema)")
    assert verdicts["billing"][0] is False and "dependentSchemas" in verdicts["billing"][1]
    assert verdicts["dynamic"] == (False, "it uses $dynamicRef")
    assert understood(root) == (True, "")  # the form itself stays


def test_understood_refs_allof_unions():
    root = hard("ref_chains_and_broken_refs")
    props = root["properties"]
    assert understood(props["chained"], root) == (True, "")
    assert understood(props["remote"], root) == (
        False,
        "remote $ref not fetched: https://example.com/schemas/address.json",
    )
    assert understood(props["missing"], root) == (False, "$ref target not found: #/$defs/Nope")
    assert understood(props["cycle"], root)[1].startswith("$ref cycle")
    conflicts = hard("all_of_conflicts")
    assert understood(conflicts["properties"]["mode"], conflicts) == (
        False,
        'allOf cannot be merged: conflicting const: "fast" and "slow"',
    )
    assert understood(hard("all_of_merge")) == (True, "")
    shapes = hard("one_of_discriminated")
    assert all(understood(p, shapes) == (True, "") for p in shapes["properties"].values())
    bad_union = {"oneOf": [{"type": "string"}, {"$ref": "#/$defs/Nope"}]}
    assert understood(bad_union, root) == (False, "oneOf alternative “Nope”: $ref target not found: #/$defs/Nope")


def test_understood_nullable_ref_and_odd_values():
    root = hard("nullables")
    assert understood(root["properties"]["optional_ref"], root) == (True, "")
    assert understood({"anyOf": [{"$ref": "#/$defs/Gone"}, {"type": "null"}]}, root) == (
        False,
        "$ref target not found: #/$defs/Gone",
    )
    assert understood(False) == (False, "the schema is `false`: no value is allowed")
    assert understood(True) == (True, "")
    assert understood("string") == (False, "it is not a JSON Schema object")
    loop = {"$defs": {"X": {"anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}]}}}
    ok, reason = understood({"$ref": "#/$defs/X"}, loop)
    assert ok is False and "longer than" in reason
    assert understood({"dependencies": {"a": {"required": ["b"]}}})[0] is False
    assert understood(hard("draft07_style")) == (True, "")  # array-form dependencies are only validation


def test_understood_real_servers_everything_renders():
    for corpus, tool in [
        ("sdk_server", "greet"),
        ("server-memory", "create_entities"),
        ("server-filesystem", "edit_file"),
        ("server-github", "create_pull_request_review"),
        ("mcp-server-git", "git_branch"),
    ]:
        root = tool_schema(corpus, tool)
        assert understood(root) == (True, ""), (corpus, tool)
        for prop in root.get("properties", {}).values():
            assert understood(prop, root) == (True, ""), (corpus, tool, prop)


# -- normalize ----------------------------------------------------------------------


def test_normalize_runs_deref_merge_nullable_in_order():
    root = hard("nullables")
    assert normalize(root, root["properties"]["optional_ref"]) == (
        {"type": "object", "properties": {"city": {"type": "string"}}},
        True,
        [],
    )
    assert normalize(root, root["properties"]["type_list"]) == ({"type": "string", "format": "date"}, True, [])
    sdk = tool_schema("sdk_server", "greet")
    person, is_nullable, problems = normalize(sdk, sdk["properties"]["person"])
    assert person["title"] == "Person" and not is_nullable and problems == []
    merged = hard("all_of_merge")
    limit, _, problems = normalize(merged, merged["properties"]["limit"])
    assert limit["minimum"] == 5 and problems == []
    broken = hard("ref_chains_and_broken_refs")
    assert normalize(broken, broken["properties"]["missing"]) == (
        broken["properties"]["missing"],
        False,
        ["$ref target not found: #/$defs/Nope"],
    )
    loop = {"$defs": {"X": {"anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}]}}}
    _, is_nullable, problems = normalize(loop, {"$ref": "#/$defs/X"})
    assert is_nullable and problems and "longer than" in problems[0]


# -- robustness ----------------------------------------------------------------------


_KEYWORDS = [
    "type",
    "properties",
    "required",
    "items",
    "prefixItems",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "$ref",
    "$defs",
    "const",
    "enum",
    "enumNames",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "default",
    "title",
    "nullable",
    "additionalProperties",
    "minItems",
    "uniqueItems",
    "discriminator",
    "dependencies",
    "$schema",
]
_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-3, 3, allow_nan=False),
    st.text(max_size=4),
    st.sampled_from(
        [
            "string",
            "null",
            "integer",
            "number",
            "object",
            "array",
            "#",
            "#/$defs/a",
            "#/$defs/b",
            "https://example.com/x.json",
            "date",
            "email",
            "^a",
            "http://json-schema.org/draft-07/schema#",
        ]
    ),
)
_schemas = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(_KEYWORDS + ["a", "b"]), inner, max_size=5),
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(_schemas, _schemas)
def test_helpers_never_raise_on_arbitrary_json(schema, defs):
    """Whatever a server sends (even nonsense), the helpers answer and never raise."""
    root = {"$defs": {"a": defs, "b": {"$ref": "#/$defs/a"}}, "properties": {"x": schema}}
    for node in (schema, defs, root):
        ok, reason = understood(node, root)
        assert ok or reason
        normalize(root, node)
        resolved, _ = deref(root, node)
        merged, _ = merge_all_of(root, resolved)
        inner, _ = nullable(merged)
        enum_options(inner)
        multi_select_options(inner)
        describe_constraints(inner)
        choices = variants(root, inner)
        pick_variant(choices, {"a": 1})
        check_format(inner.get("format") if isinstance(inner, dict) else None, "2026-01-01")
