"""Checks on the schema corpus itself (tests/fixtures/schemas/), and that the resolver
helpers never raise on any of its subschemas.

The corpus is what the form engine's tests stand on, so it must stay valid: every
schema valid for the dialect it declares, every tool named, the files small. It is
regenerated with ``scripts/collect_schemas.py`` (real servers) and edited by hand
(``hand_written_hard.json``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema.validators
import pytest

from mcp_inspector.core.schema.classify import pick_variant, understood, variants
from mcp_inspector.core.schema.formats import check_format, describe_constraints
from mcp_inspector.core.schema.resolve import (
    deref,
    dialect,
    enum_options,
    merge_all_of,
    multi_select_options,
    nullable,
)

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "schemas"
FILES = sorted(CORPUS.glob("*.json"))
REAL_SERVERS = {
    "demo",
    "sdk_server",
    "server-everything",
    "server-filesystem",
    "server-memory",
    "server-sequential-thinking",
}

# Keywords whose value is a schema, a list of schemas, or a map of name -> schema.
_SCHEMA_VALUED = (
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "items",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")


def subschemas(schema: Any, path: str = "#") -> Iterator[tuple[str, Any]]:
    """Every schema inside ``schema`` (itself included), with a JSON-pointer-ish path."""
    yield path, schema
    if not isinstance(schema, dict):
        return
    for key in _SCHEMA_VALUED:
        if isinstance(schema.get(key), (dict, bool)):
            yield from subschemas(schema[key], f"{path}/{key}")
    for key in _SCHEMA_LISTS:
        if isinstance(schema.get(key), list):
            for index, member in enumerate(schema[key]):
                yield from subschemas(member, f"{path}/{key}/{index}")
    for key in _SCHEMA_MAPS:
        if isinstance(schema.get(key), dict):
            for name, member in schema[key].items():
                if isinstance(member, (dict, bool)):
                    yield from subschemas(member, f"{path}/{key}/{name}")


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def all_tools() -> list[tuple[str, dict]]:
    return [(f"{path.stem}:{tool.get('name')}", tool) for path in FILES for tool in load(path)["tools"]]


def test_corpus_is_there_and_small():
    stems = {path.stem for path in FILES}
    assert stems >= REAL_SERVERS
    assert "hand_written_hard" in stems
    total = sum(path.stat().st_size for path in FILES)
    assert total < 300_000, f"corpus is {total} bytes"


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_corpus_file_shape(path):
    data = load(path)
    assert set(data) >= {"server", "version", "source", "tools"}
    assert all(isinstance(data[key], str) and data[key] for key in ("server", "version", "source"))
    assert isinstance(data["tools"], list) and data["tools"]
    names = [tool.get("name") for tool in data["tools"]]
    assert all(isinstance(name, str) and name for name in names)
    assert len(set(names)) == len(names), "tool names repeat"
    for tool in data["tools"]:
        schema = tool["inputSchema"]
        assert isinstance(schema, dict) and schema.get("type") == "object", tool["name"]


@pytest.mark.parametrize(("label", "tool"), all_tools(), ids=[label for label, _ in all_tools()])
def test_schema_is_valid_for_its_dialect(label, tool):
    schema = tool["inputSchema"]
    assert dialect(schema) != "unknown", f"{label}: unknown $schema {schema.get('$schema')}"
    validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator.check_schema(schema)


def test_resolver_helpers_never_raise_on_any_subschema():
    visited = 0
    for label, tool in all_tools():
        root = tool["inputSchema"]
        for path, sub in subschemas(root):
            visited += 1
            where = f"{label} {path}"
            ok, reason = understood(sub, root)
            assert isinstance(ok, bool) and isinstance(reason, str), where
            assert ok or reason, f"{where}: not understood without a reason"
            resolved, problem = deref(root, sub)
            assert problem is None or isinstance(problem, str), where
            merged, problems = merge_all_of(root, resolved)
            assert all(isinstance(p, str) for p in problems), where
            inner, is_nullable = nullable(merged)
            assert isinstance(is_nullable, bool), where
            enum_options(inner)
            multi_select_options(inner)
            for text in describe_constraints(inner):
                assert isinstance(text, str) and text, where
            choices = variants(root, inner)
            if choices:
                default = inner.get("default") if isinstance(inner, dict) else None
                index = pick_variant(choices, default)
                assert index is None or 0 <= index < len(choices), where
            if isinstance(inner, dict) and isinstance(inner.get("format"), str):
                for example in [
                    *(inner.get("examples") if isinstance(inner.get("examples"), list) else []),
                    inner.get("default"),
                ]:
                    check_format(inner["format"], example)
    assert visited > 500  # the walk really went through the corpus


def test_real_servers_need_no_json_fallback_anywhere():
    """Every subschema of every real server is understood: the form never has to give up."""
    for path in FILES:
        if path.stem == "hand_written_hard":
            continue
        for tool in load(path)["tools"]:
            root = tool["inputSchema"]
            for where, sub in subschemas(root):
                if isinstance(sub, bool):  # `additionalProperties: false` closes an object: not a field
                    continue
                assert understood(sub, root) == (True, ""), f"{path.stem}:{tool['name']} {where}"


def test_hard_cases_that_must_fall_back_are_exactly_the_expected_ones():
    """In the hand-written corpus, only the deliberately unrenderable subtrees fall back."""
    data = load(CORPUS / "hand_written_hard.json")
    not_understood = set()
    for tool in data["tools"]:
        root = tool["inputSchema"]
        for name, prop in (root.get("properties") or {}).items():
            if not understood(prop, root)[0]:
                not_understood.add(f"{tool['name']}.{name}")
        assert understood(root) == (True, ""), tool["name"]
    assert not_understood == {
        "ref_chains_and_broken_refs.cycle",
        "ref_chains_and_broken_refs.missing",
        "ref_chains_and_broken_refs.remote",
        "ref_chains_and_broken_refs.remote_fragment",
        "all_of_conflicts.mode",
        "all_of_conflicts.weird",
        "conditional_and_not.payment",
        "conditional_and_not.not_admin",
        "conditional_and_not.billing",
        "conditional_and_not.dynamic",
    }
