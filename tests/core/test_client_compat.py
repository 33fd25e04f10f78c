"""client-compat: each client's documented limits, from the table in core/checks/client_compat.py."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from mcp_inspector.core.checks.client_compat import CLIENTS, client_findings
from mcp_inspector.core.checks.client_schema import MAX_NODES, SCHEMA_RULES
from mcp_inspector.core.checks.surface import tool_findings


def tool(name: str) -> dict:
    return {"name": name, "description": "d", "inputSchema": {"type": "object"}}


def clients(findings) -> set[str]:
    return {c.client for c in CLIENTS for f in findings if f.spec.startswith(c.client)}


def test_every_client_row_has_a_source_url():
    assert {c.client.split(" ")[0] for c in CLIENTS} >= {"Claude", "OpenAI", "Gemini", "VS", "Cursor"}
    assert all(c.source.startswith("https://") for c in CLIENTS)


def test_short_plain_names_and_dots_draw_nothing():
    assert client_findings([tool("add"), tool("lookup.code"), tool("get-tiny_image")]) == []


def test_a_long_name_is_refused_by_the_model_apis_and_filtered_by_cursor():
    found = client_findings([tool("x" * 65)])
    assert clients(found) == {"Claude (Anthropic Messages API)", "OpenAI function calling",
                              "Gemini function declarations", "Cursor"}  # fmt: skip
    assert all(f.rule == "client-compat" and f.severity.value == "warning" for f in found)
    assert clients(client_findings([tool("x" * 59)])) == {"Cursor"}  # 59 + a server name > 60


def test_gemini_wants_a_letter_or_underscore_first_and_vs_code_at_most_128_tools():
    assert clients(client_findings([tool("1st-tool")])) == {"Gemini function declarations"}
    many = [tool(f"t{i}") for i in range(129)]
    assert clients(client_findings(many)) == {"VS Code / GitHub Copilot"}
    assert any(f.rule == "client-compat" for f in tool_findings(many))  # wired into the surface rules


def test_gemini_refuses_argument_names_outside_its_pattern():
    def with_args(*names):
        return {
            "name": "t",
            "description": "d",
            "inputSchema": {"type": "object", "properties": {n: {} for n in names}},
        }

    assert client_findings([with_args("path", "dryRun", "_private", "max_tokens")]) == []
    (found,) = client_findings([with_args("file-path", "2nd", "ok", "x" * 65)])
    assert found.rule == "client-compat" and found.severity.value == "warning"
    assert found.spec.startswith("Gemini function declarations: https://cloud.google.com/vertex-ai/")
    assert found.evidence == f"t.file-path, t.2nd, t.{'x' * 65}" and found.where == "tool t"
    assert client_findings([{"name": "t", "inputSchema": {"properties": ["not", "an", "object"]}}]) == []


# -- schema keywords and shapes (core/checks/client_schema.py), on the fixture's schemas ----------
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "servers" / "check"))
import client_schemas  # noqa: E402 - the fixture server's schemas (tests/servers/check/client_schemas.py)


def schema_rule_ids(findings) -> set[str]:
    return {r.id for r in SCHEMA_RULES for f in findings if f.message.startswith(f"{r.client}: {r.short}:")}


@pytest.mark.parametrize("name", sorted(client_schemas.SCHEMAS))
def test_each_fixture_schema_draws_what_its_clients_do(name):
    schema, expected = client_schemas.SCHEMAS[name]
    found = client_findings([client_schemas.tool(name, schema)])
    assert schema_rule_ids(found) == expected and len(found) == len(expected), found
    for f in found:
        (rule,) = [r for r in SCHEMA_RULES if f.message.startswith(f"{r.client}: {r.short}:")]
        assert f.rule == "client-compat" and f.severity == rule.severity and f.where == f"tool {name}"
        assert f.spec == f"{rule.client}: " + " and ".join(rule.sources) and f.hint == rule.hint
        assert f.evidence.startswith(f"{name}: ")


def test_every_schema_rule_has_a_fixture_and_a_source_url():
    drawn = set().union(*(expected for _schema, expected in client_schemas.SCHEMAS.values()))
    assert drawn == {r.id for r in SCHEMA_RULES}
    assert all(url.startswith("https://") for r in SCHEMA_RULES for url in r.sources)
    # refusals are warnings, rewrites and some-hosts-only are infos; no client documents a rejection
    assert {r.id for r in SCHEMA_RULES if r.severity.value == "warning"} == {
        "top-level-combinator", "array-without-items", "recursive-ref",
    }  # fmt: skip


def test_a_rich_but_compatible_schema_draws_nothing():
    assert client_findings([client_schemas.tool("compatible", client_schemas.COMPATIBLE)]) == []


def test_the_evidence_locates_each_trouble():
    by_rule = {}
    for name, (schema, _expected) in client_schemas.SCHEMAS.items():
        for f in client_findings([client_schemas.tool(name, schema)]):
            by_rule[next(iter(schema_rule_ids([f])))] = f.evidence
    assert by_rule["array-without-items"] == "an_array_without_items: /properties/tags"
    assert by_rule["recursive-ref"] == "a_recursive_ref: #/$defs/Node"
    assert by_rule["type-list"] == "a_type_list: /properties/note (string/null)"
    assert by_rule["gemini-parameters"] == "a_const: const"
    assert by_rule["gpt4-stripped"] == "a_max_length: maxLength"
    assert by_rule["openai-strict"] == "an_open_object: additionalProperties that is not false at /properties/labels"


def test_copilot_judges_items_by_javascript_truth_and_only_where_it_walks():
    def array(**items):
        return client_schemas.tool("t", {"type": "object", "properties": {"xs": {"type": "array", **items}}})

    assert schema_rule_ids(client_findings([array(items=None)])) == {"array-without-items"}
    assert schema_rule_ids(client_findings([array(items=False)])) == {"array-without-items"}
    assert schema_rule_ids(client_findings([array(items={})])) == set()  # {} is truthy in JavaScript
    in_defs = {"type": "object", "properties": {}, "$defs": {"Xs": {"type": "array"}}}
    assert client_findings([client_schemas.tool("t", in_defs)]) == []  # Copilot does not walk $defs


def test_one_finding_per_client_trouble_names_the_tools():
    tools = [
        client_schemas.tool(f"t{i}", {"type": "object", "properties": {"xs": {"type": "array"}}}) for i in range(7)
    ]
    (found,) = client_findings(tools)
    assert found.message.endswith("(7 tools: t0, t1, t2, t3, t4, and 2 more)") and found.where == "tool t0"


def test_a_hostile_schema_is_walked_within_bounds():
    deep: dict = {"type": "array"}
    for _ in range(50_000):  # far deeper than Python's recursion limit
        deep = {"type": "object", "properties": {"x": deep}}
    wide = {"type": "object", "properties": {f"p{i}": {"type": "array"} for i in range(MAX_NODES * 2)}}
    started = time.monotonic()
    found = client_findings([client_schemas.tool("deep", deep), client_schemas.tool("wide", wide)])
    assert time.monotonic() - started < 5
    assert schema_rule_ids(found) == {"array-without-items"}  # the wide one, within MAX_NODES nodes
    assert found[0].evidence.startswith("wide: /properties/p0, /properties/p1")


def test_recursion_is_a_ref_back_into_itself_not_a_shared_definition():
    def recursive(schema):
        return schema_rule_ids(client_findings([client_schemas.tool("t", schema)])) == {"recursive-ref"}

    defs = {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}, "additionalProperties": False}}
    mutual = {
        **defs,
        "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "additionalProperties": False},
    }
    shared = {**defs, "B": {"type": "string"}}
    root = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "again": {"$ref": "#/$defs/B"}}}
    assert recursive({**root, "$defs": mutual})
    assert not recursive({**root, "$defs": shared})
    assert recursive({"type": "object", "properties": {"self": {"$ref": "#"}}})
