"""Every tool of the schema corpus (real servers + hand-written hard cases) becomes a form.

No whole-form fallback anywhere; in the hand-written file, exactly the subtrees no form
can show fall back to JSON, each with its reason; and what the forms build validates.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_inspector.core.schema.form import (
    all_fallbacks,
    arguments_to_values,
    build_form,
    default_values,
    subform,
    switch_variant,
    values_to_arguments,
)
from mcp_inspector.core.schema.validation import validate

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "schemas"
TOOLS = [
    (f"{path.stem}:{tool['name']}", tool)
    for path in sorted(CORPUS.glob("*.json"))
    for tool in json.loads(path.read_text(encoding="utf-8"))["tools"]
]
HARD = {label.split(":", 1)[1]: tool["inputSchema"] for label, tool in TOOLS if label.startswith("hand_written_hard:")}


@pytest.mark.parametrize(("label", "tool"), TOOLS, ids=[label for label, _ in TOOLS])
def test_every_tool_renders_as_fields(label, tool):
    schema = tool["inputSchema"]
    form = build_form(schema)
    assert form.root.kind == "object", f"{label}: whole-form fallback ({form.root.note})"
    if not label.startswith("hand_written_hard:"):
        # real servers: nothing falls back, not even inside list items or variants
        assert all_fallbacks(form) == [], label
    # the defaults are a valid start whenever nothing is required (allOf members included)
    arguments = values_to_arguments(form, default_values(form))
    if not any(child.required for child in form.root.children):
        assert validate(schema, arguments) == [], (label, arguments)
    # and they survive a trip through the form
    assert values_to_arguments(form, arguments_to_values(form, arguments)) == arguments


def test_real_servers_render_every_field_kind_they_use():
    kinds = set()
    for label, tool in TOOLS:
        if not label.startswith("hand_written_hard:"):
            kinds |= {spec.kind for spec in build_form(tool["inputSchema"]).fields()}
    assert {"string", "number", "integer", "boolean", "enum", "object", "array", "list"} <= kinds


def test_hand_written_fallbacks_are_exactly_the_unshowable_subtrees_with_reasons():
    found = {}
    for name, schema in HARD.items():
        for key, note in all_fallbacks(build_form(schema)):
            found[f"{name}{key[1:]}"] = note
    assert found == {
        "ref_chains_and_broken_refs.cycle": "$ref cycle: #/$defs/loop1 -> #/$defs/loop2 -> #/$defs/loop1",
        "ref_chains_and_broken_refs.missing": "$ref target not found: #/$defs/Nope",
        "ref_chains_and_broken_refs.remote": "remote $ref not fetched: https://example.com/schemas/address.json",
        "ref_chains_and_broken_refs.remote_fragment": "remote $ref not fetched: https://example.com/schemas/common.json#/$defs/Id",
        "all_of_conflicts.mode": 'allOf cannot be merged: conflicting const: "fast" and "slow"',
        "all_of_conflicts.weird": "allOf cannot be merged: types conflict: string and integer",
        "conditional_and_not.payment": "it uses if/then/else (a conditional schema)",
        "conditional_and_not.not_admin": "it uses `not` (a value that must NOT match a schema)",
        "conditional_and_not.billing": (
            "it uses dependentSchemas (a schema that applies only when a property is present)"
        ),
        "conditional_and_not.dynamic": "it uses $dynamicRef",
    }


def kinds(schema) -> dict[str, str]:
    return {spec.key: spec.kind for spec in build_form(schema).fields()}


def test_refs_defs_and_draft07_definitions_become_fields():
    assert kinds(HARD["local_ref_defs"]) == {
        "$": "object",
        "$.home": "object",
        "$.home.city": "string",
        "$.home.country": "string",
        "$.work": "object",
        "$.work.city": "string",
        "$.work.country": "string",
        "$.slashed": "string",
        "$.percent": "integer",
        "$.tilde": "boolean",
    }
    form = build_form(HARD["local_ref_defs"])
    home, work, percent = form.field("$.home"), form.field("$.work"), form.field("$.percent")
    assert home.required and home.description == "Where you live" and work.title == "Work address"
    assert percent.default == 50 and percent.hints == ["≥ 0", "≤ 100"]
    draft07 = build_form(HARD["draft07_definitions"])
    assert [o.value for o in draft07.field("$.ticket.priority").options] == ["low", "normal", "high"]
    assert values_to_arguments(draft07, default_values(draft07)) == {
        "ticket": {"priority": "normal"},
        "fallback_priority": "normal",
    }


def test_recursion_is_expanded_on_demand():
    form = build_form(HARD["recursive_tree"])
    children = form.field("$.root.children")
    assert children.kind == "list" and form.field("$.same_again").kind == "nested"
    node = subform(children)  # one level, built when the user adds an item
    assert [(s.key, s.kind) for s in node.walk()] == [("$", "object"), ("$.label", "string"), ("$.children", "list")]
    assert subform(node.children[1]) is not node  # the next level is another, lazily built, spec
    tree = {
        "root": {"label": "a", "children": [{"label": "b", "children": [{"label": "c", "children": []}]}]},
        "same_again": {"root": {"label": "x"}},
    }
    values = arguments_to_values(form, tree)
    assert values["$"] == {}  # nothing left over as an extra: it is all in the form
    assert values_to_arguments(form, values) == tree
    assert validate(HARD["recursive_tree"], tree) == []


def test_all_of_is_merged_into_one_object():
    form = build_form(HARD["all_of_merge"])
    assert kinds(HARD["all_of_merge"]) == {
        "$": "object",
        "$.limit": "integer",
        "$.name": "string",
        "$.age": "integer",
        "$.email": "string",
        "$.reason": "string",
    }
    assert form.field("$.limit").hints == ["≥ 5", "≤ 50", "multiple of 5"]
    assert form.field("$.name").required and form.field("$.email").required
    assert form.field("$.age").constraints == {"minimum": 0, "maximum": 150}


def test_discriminated_variants_pick_the_matching_alternative():
    schema = HARD["one_of_discriminated"]
    form = build_form(schema)
    shape, pet, contact, scalar = (form.field(k) for k in ("$.shape", "$.pet", "$.contact", "$.scalar_union"))
    assert [(c.title, c.discriminator) for c in shape.choices] == [
        ("Circle", ("type", "circle")),
        ("Square", ("type", "square")),
    ]
    assert [c.title for c in pet.choices] == ["cat", "dog"] and [c.title for c in contact.choices] == [
        "By email",
        "By phone",
    ]
    assert [c.title for c in scalar.choices] == ["string", "integer"]
    # a required variant starts on its first alternative, discriminator filled in
    assert values_to_arguments(form, default_values(form)) == {"shape": {"type": "circle"}}
    data = {
        "shape": {"type": "square", "side": 2},
        "pet": {"kind": "dog", "breed": "x"},
        "contact": {"phone": "+33 123456"},
        "scalar_union": 7,
    }
    values = arguments_to_values(form, data)
    assert [values[k]["choice"] for k in ("$.shape", "$.pet", "$.contact", "$.scalar_union")] == [1, 1, 1, 1]
    assert values_to_arguments(form, values) == data and validate(schema, data) == []
    # switching keeps what both alternatives share and sets the new discriminator
    switched = switch_variant(pet, values["$.pet"], 0)
    values["$.pet"] = switched
    assert values_to_arguments(form, values)["pet"] == {"kind": "cat"}
    values["$.scalar_union"] = switch_variant(scalar, values["$.scalar_union"], 0)
    assert values_to_arguments(form, values)["scalar_union"] == "7"  # the typed text carries over


def test_every_way_of_saying_nullable_offers_null():
    schema = HARD["nullables"]
    form = build_form(schema)
    nullable = {spec.key for spec in form.fields() if spec.nullable}
    assert nullable == {
        "$.any_of_null",
        "$.one_of_null",
        "$.type_list",
        "$.type_list_number",
        "$.enum_with_null",
        "$.optional_ref",
    }
    assert form.field("$.multi_type").kind == "variant"  # two real types: a choice, not "nullable"
    data = {
        "any_of_null": None,
        "one_of_null": 3,
        "type_list": None,
        "enum_with_null": None,
        "optional_ref": None,
        "multi_type": "x",
    }
    values = arguments_to_values(form, data)
    assert values["$.any_of_null#null"] and values["$.optional_ref#null"] and values["$"] == {}
    assert values_to_arguments(form, values) == data and validate(schema, data) == []


def test_enums_const_and_annotations():
    form = build_form(HARD["enums"])
    labels = {spec.key: [o.label for o in spec.options] for spec in form.fields() if spec.kind == "enum"}
    assert labels == {
        "$.plain": ["small", "medium", "large"],
        "$.numbers": ["1", "2", "3"],
        "$.titled_one_of": ["Red", "Green", "#00f"],
        "$.titled_any_of": ["One", "Two"],
        "$.legacy_enum_names": ["Small", "Medium", "Large"],
        "$.fixed": ["v1"],
    }
    assert form.field("$.fixed").const == "v1"
    assert values_to_arguments(form, default_values(form)) == {"plain": "medium", "fixed": "v1"}
    notes = build_form(HARD["annotations"])
    assert "$.id" not in {spec.key for spec in notes.fields()}  # readOnly: the server sets it
    assert notes.field("$.name").examples == ["Ada", "Grace"] and notes.field("$.old").deprecated
    assert values_to_arguments(notes, default_values(notes)) == {"name": "Ada", "version": 2, "count": 3}
    assert values_to_arguments(notes, arguments_to_values(notes, {"id": "srv-1"})) == {"id": "srv-1"}  # still kept


def test_arrays_multi_selects_tuples_and_lists_of_lists():
    schema = HARD["arrays"]
    form = build_form(schema)
    assert {k: v for k, v in kinds(schema).items()} == {
        "$": "object",
        "$.tags": "array",
        "$.titled_tags": "array",
        "$.people": "list",
        "$.matrix": "list",
        "$.point": "tuple",
        "$.point[0]": "number",
        "$.point[1]": "number",
        "$.point[2]": "string",
        "$.contains_one": "array",
    }
    assert [o.label for o in form.field("$.titled_tags").item.options] == ["Urgent", "Soon"]
    assert subform(form.field("$.matrix")).kind == "array"
    assert form.field("$.point[0]").required and not form.field("$.point[2]").required  # minItems: 2
    data = {
        "tags": ["bug", "docs"],
        "titled_tags": ["p2"],
        "people": [{"name": "Ada", "age": 36}, {"name": "Bo"}],
        "matrix": [[1, 2], [3.5, 4]],
        "point": [1, 2.5, "here"],
        "contains_one": [0, 5],
    }
    values = arguments_to_values(form, data)
    assert values["$"] == {} and len(values["$.people"]) == 2
    assert values_to_arguments(form, values) == data and validate(schema, data) == []
    values["$.point[2]"] = ""
    assert values_to_arguments(form, values)["point"] == [1, 2.5]


def test_maps_become_name_value_entries():
    schema = HARD["maps"]
    form = build_form(schema)
    env, scores, headers = form.field("$.env"), form.field("$.scores"), form.field("$.headers")
    assert env.has_entries and env.key_pattern == "^[A-Z_][A-Z0-9_]*$" and subform(env).kind == "string"
    assert scores.has_entries and subform(scores).kind == "object"
    assert headers.key_pattern == "^X-" and not form.field("$.closed").has_entries
    data = {
        "env": {"HOME": "/root", "bad-name": "kept"},
        "scores": {"ada": {"value": 1.5}},
        "headers": {"X-Trace": "1"},
    }
    values = arguments_to_values(form, data)
    assert values["$.env{}"] == [["HOME", {"$": "/root"}]] and values["$.env"] == {"bad-name": "kept"}
    assert values_to_arguments(form, values) == data


def test_draft07_tuples_and_dependencies():
    schema = HARD["draft07_style"]
    form = build_form(schema)
    assert kinds(schema) == {
        "$": "object",
        "$.pair": "tuple",
        "$.pair[0]": "string",
        "$.pair[1]": "integer",
        "$.card": "string",
        "$.cvv": "string",
    }
    data = {"pair": ["a", 1], "card": "4111", "cvv": "123"}
    assert values_to_arguments(form, arguments_to_values(form, data)) == data
    assert validate(schema, {"cvv": "123"})  # dependencies are enforced by validation on send
