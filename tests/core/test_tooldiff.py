"""diff_items: what a list_changed actually changed."""

from __future__ import annotations

from mcp_inspector.core.session.tooldiff import diff_items, item_key


def tool(name: str, description: str = "d", **extra) -> dict:
    return {"name": name, "description": description, "inputSchema": {"type": "object"}, **extra}


def test_added_removed_changed() -> None:
    before = [tool("echo"), tool("add", "Add two numbers"), tool("same")]
    after_add = tool("add", "Add three numbers")
    after_add["inputSchema"] = {"type": "object", "required": ["a", "b", "c"]}
    after = [tool("same"), after_add, tool("new_tool")]
    diff = diff_items(before, after)
    assert [t["name"] for t in diff.added] == ["new_tool"]
    assert [t["name"] for t in diff.removed] == ["echo"]
    assert len(diff.changed) == 1
    change = diff.changed[0]
    assert change.name == "add" and change.fields == ["description", "inputSchema"]
    assert change.before["description"] == "Add two numbers" and change.after["description"] == "Add three numbers"
    assert change.describe() == "add: description, inputSchema changed"
    assert not diff.empty
    assert diff.summary() == "added new_tool; removed echo; changed add: description, inputSchema changed"


def test_field_diff_is_a_readable_unified_diff() -> None:
    before = [tool("add", inputSchema={"type": "object", "required": ["a", "b"]})]
    after = [tool("add", inputSchema={"type": "object", "required": ["a", "b", "c"]})]
    change = diff_items(before, after).changed[0]
    text = change.field_diff("inputSchema")
    lines = text.splitlines()
    assert lines[0] == "--- inputSchema (before)" and lines[1] == "+++ inputSchema (after)"
    assert '+    "c"' in lines
    assert any(line.startswith("-") and '"b"' in line for line in lines[2:])
    description = diff_items([tool("t", "old")], [tool("t", "new")]).changed[0].field_diff("description")
    assert "-old" in description.splitlines() and "+new" in description.splitlines()


def test_unknown_fields_are_compared_too() -> None:
    change = diff_items([tool("t", vendorX=1)], [tool("t", vendorX=2)]).changed[0]
    assert change.fields == ["vendorX"]


def test_identical_lists_are_empty() -> None:
    diff = diff_items([tool("a"), tool("b")], [tool("b"), tool("a")])
    assert diff.empty and diff.summary() == "no changes"


def test_duplicates_are_reported() -> None:
    assert diff_items([], [tool("a"), tool("a"), tool("b")]).duplicates == ["a"]


def test_resources_and_templates_are_keyed_by_uri() -> None:
    assert item_key({"uri": "file:///a", "name": "A"}) == "file:///a"  # a resource name is only a label
    assert item_key({"name": "echo", "inputSchema": {}}) == "echo"
    assert item_key({"uri": "file:///a"}) == "file:///a"
    assert item_key({"uriTemplate": "greeting://{name}"}) == "greeting://{name}"
    before = [{"uri": "file:///a", "mimeType": "text/plain"}]
    after = [{"uri": "file:///a", "mimeType": "text/markdown"}, {"uri": "file:///b"}]
    diff = diff_items(before, after)
    assert [r["uri"] for r in diff.added] == ["file:///b"]
    assert diff.changed[0].fields == ["mimeType"]


def test_resources_sharing_a_name_stay_distinct_and_renames_show() -> None:
    before = [{"uri": "file:///a/README.md", "name": "README.md"}, {"uri": "file:///b/README.md", "name": "README.md"}]
    after = [{"uri": "file:///a/README.md", "name": "README.md"}, {"uri": "file:///b/README.md", "name": "b-readme"}]
    diff = diff_items(before, after)
    assert diff.added == [] and diff.removed == [] and diff.duplicates == []
    assert [(c.name, c.fields) for c in diff.changed] == [("file:///b/README.md", ["name"])]
