"""The surface classifier: schema rules ($ref, allOf, anyOf), and properties under hypothesis."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_inspector.core.surface.diff import diff
from mcp_inspector.core.surface.snapshot import build


def surface(*tools):
    return build(
        server_info={"name": "s", "version": "1"},
        protocol_version="2025-11-25",
        era="legacy",
        capabilities={"tools": {}},
        instructions=None,
        lists={"tools": list(tools)},
    )


def tool(schema, name="t", **extra):
    return {"name": name, "inputSchema": schema, **extra}


def kinds(old_schema, new_schema):
    return {(c.kind, c.path) for c in diff(surface(tool(old_schema)), surface(tool(new_schema)))}


def test_ref_and_defs_are_followed():
    old = {"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}, "$defs": {"P": {"enum": ["a", "b"]}}}
    new = {"type": "object", "properties": {"p": {"$ref": "#/$defs/Q"}}, "$defs": {"Q": {"enum": ["a"]}}}
    assert kinds(old, new) == {("breaking", "/tools/t/inputSchema/properties/p/enum")}
    renamed = {"type": "object", "properties": {"p": {"$ref": "#/$defs/Q"}}, "$defs": {"Q": {"enum": ["a", "b"]}}}
    assert kinds(old, renamed) == set()


def test_all_of_is_merged_before_comparing():
    old = {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}
    new = {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"required": ["a"]}]}
    assert kinds(old, new) == {("breaking", "/tools/t/inputSchema/properties/a")}


def test_undecidable_changes_are_unknown_never_compatible():
    old = {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}
    new = {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}, {"type": "null"}]}}}
    assert {kind for kind, _ in kinds(old, new)} == {"unknown"}
    dangling = {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}
    assert {kind for kind, _ in kinds(old, dangling)} == {"unknown"}
    pattern = kinds({"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "^b"})
    assert pattern == {("unknown", "/tools/t/inputSchema/pattern")}


def test_annotation_hints_and_output_schema():
    old = tool(
        {"type": "object"},
        annotations={"readOnlyHint": True, "destructiveHint": False},
        outputSchema={"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
    )
    new = tool(
        {"type": "object"},
        annotations={"destructiveHint": True},
        outputSchema={"type": "object", "properties": {"x": {"type": "string"}}},
    )
    found = {(c.kind, c.path) for c in diff(surface(old), surface(new))}
    assert found == {
        ("breaking", "/tools/t/annotations/readOnlyHint"),
        ("breaking", "/tools/t/annotations/destructiveHint"),
        ("breaking", "/tools/t/outputSchema/properties/x"),
    }


def test_hints_compare_by_effective_value():
    def hints(old, new):
        changes = diff(surface(tool({}, annotations=old)), surface(tool({}, annotations=new)))
        return {(c.kind, c.path.rsplit("/", 1)[1]) for c in changes}

    # absent destructiveHint means true, absent openWorldHint means true: spelling them out is cosmetic
    assert hints({}, {"destructiveHint": True, "openWorldHint": True}) == {
        ("cosmetic", "destructiveHint"),
        ("cosmetic", "openWorldHint"),
    }
    assert hints({}, {"destructiveHint": False, "readOnlyHint": True}) == {
        ("compatible", "destructiveHint"),
        ("compatible", "readOnlyHint"),
    }
    assert hints({"destructiveHint": False, "idempotentHint": True}, {}) == {
        ("breaking", "destructiveHint"),
        ("breaking", "idempotentHint"),
    }


def test_task_support_compares_by_effective_value():
    """Absent execution.taskSupport means "forbidden" (schema.ts): server-filesystem 2026.8.31
    spells it out on every tool, which is no change to a client."""

    def support(old, new):
        changes = diff(surface(tool({}, **old)), surface(tool({}, **new)))
        return {(c.kind, c.path.split("/t/", 1)[1]) for c in changes}

    forbidden, optional, required = (
        {"execution": {"taskSupport": word}} for word in ("forbidden", "optional", "required")
    )
    assert support({}, forbidden) == support({"execution": {}}, forbidden) == {("cosmetic", "execution/taskSupport")}
    assert support(forbidden, optional) == support(required, optional) == {("compatible", "execution/taskSupport")}
    assert support(optional, required) == support(optional, {}) == {("breaking", "execution/taskSupport")}
    assert support(forbidden, required) == {("breaking", "execution/taskSupport")}
    assert support({}, {"execution": {"taskSupport": "someday"}}) == {("unknown", "execution/taskSupport")}
    assert support({}, {"execution": {"other": 1}}) == {("unknown", "execution")}
    assert support({}, {"execution": "yes"}) == {("unknown", "execution")}


def test_additional_properties_false_and_bounds():
    found = kinds(
        {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9}}},
        {
            "type": "object",
            "additionalProperties": False,
            "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 10}},
        },
    )
    assert found == {
        ("breaking", "/tools/t/inputSchema/additionalProperties"),
        ("breaking", "/tools/t/inputSchema/properties/n/minimum"),
        ("compatible", "/tools/t/inputSchema/properties/n/maximum"),
    }


leaf = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "number", "boolean"])}),
    st.fixed_dictionaries({"enum": st.lists(st.integers(0, 5), min_size=1, max_size=4, unique=True)}),
    st.fixed_dictionaries({"type": st.just("integer"), "minimum": st.integers(-3, 3)}),
)
schemas = st.recursive(
    leaf,
    lambda inner: st.dictionaries(st.sampled_from("abcde"), inner, max_size=4).flatmap(
        lambda props: st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.just(props),
                "required": st.lists(st.sampled_from(sorted(props) or ["a"]), unique=True, max_size=len(props)),
            }
        )
    ),
    max_leaves=12,
)


def shuffled(value, rng):
    if isinstance(value, dict):
        items = [(key, shuffled(item, rng)) for key, item in value.items()]
        rng.shuffle(items)
        return dict(items)
    if isinstance(value, list):
        items = [shuffled(item, rng) for item in value]
        if all(isinstance(item, str) for item in items):  # a required list: its order means nothing
            rng.shuffle(items)
        return items
    return value


@settings(max_examples=150, deadline=None)
@given(schemas, schemas, st.integers(0, 2**32))
def test_self_diff_is_empty_and_order_does_not_matter(old, new, seed):
    rng = random.Random(seed)
    assert diff(surface(tool(old)), surface(tool(old))) == []
    assert diff(surface(tool(old)), surface(tool(shuffled(old, rng)))) == []
    expected = diff(surface(tool(old), tool(new, name="u")), surface(tool(new), tool(old, name="u")))
    reordered = diff(
        surface(tool(shuffled(old, rng), name="u"), tool(shuffled(old, rng))),  # another tool order, key order
        surface(tool(shuffled(old, rng), name="u"), tool(shuffled(new, rng))),
    )
    again = diff(surface(tool(old), tool(old, name="u")), surface(tool(new), tool(old, name="u")))
    assert reordered == again
    assert expected == diff(surface(tool(new, name="u"), tool(old)), surface(tool(old, name="u"), tool(new)))
