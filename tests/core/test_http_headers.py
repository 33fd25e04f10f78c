"""The header mirrors of 2026-07-28 Streamable HTTP, from the spec's own examples
(streamable-http.mdx §Value Encoding, §Custom Headers) and the conformance suite's
http-custom-headers / http-invalid-tool-headers tool definitions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_inspector.core.transport.http_headers import (
    body_protocol_version,
    decode_header_value,
    encode_header_value,
    invalid_header_reason,
    standard_headers,
    tool_param_headers,
)


@pytest.mark.parametrize(
    "value, expected",
    [
        ("us-west1", "us-west1"),
        ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ("us west 1", "us west 1"),  # inner spaces are fine
        ("", ""),
    ],
)
def test_encoding_examples_from_the_spec(value, expected):
    assert encode_header_value(value) == expected


@pytest.mark.parametrize(
    "value", ["\n", "trailing newline\n", "\tindented", " us-west1", "us-west1 ", "a\r\nb", "nul\x00", "del\x7f", "é"]
)
def test_unsafe_values_are_encoded(value):
    encoded = encode_header_value(value)
    assert encoded.startswith("=?base64?") and encoded.endswith("?=")
    assert decode_header_value(encoded) == value


@given(st.text())
def test_encoding_round_trips_and_is_always_a_safe_header(value):
    encoded = encode_header_value(value.encode("utf-8", "surrogatepass").decode("utf-8", "replace"))
    assert all(0x20 <= ord(ch) <= 0x7E for ch in encoded)
    assert encoded == encoded.strip()
    assert decode_header_value(encoded) == value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def test_standard_headers_for_tools_call_resources_read_and_others():
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_weather", "arguments": {}}}
    assert standard_headers(call, "2026-07-28") == {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "get_weather",
    }
    read = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "resources/read",
        "params": {"uri": "file:///projects/myapp/config.json"},
    }
    assert standard_headers(read, "2026-07-28")["Mcp-Name"] == "file:///projects/myapp/config.json"
    prompt = {"jsonrpc": "2.0", "id": 3, "method": "prompts/get", "params": {"name": "code_review"}}
    assert standard_headers(prompt, "2026-07-28")["Mcp-Name"] == "code_review"
    listing = {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}
    assert standard_headers(listing, "2026-07-28") == {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert standard_headers(note, None) == {"Mcp-Method": "notifications/initialized"}
    response = {"jsonrpc": "2.0", "id": 5, "result": {}}
    assert standard_headers(response, "2025-11-25") == {"MCP-Protocol-Version": "2025-11-25"}


def test_tasks_methods_name_the_task_id():
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"taskId": "task-42"}}
        assert standard_headers(message, "2026-07-28")["Mcp-Name"] == "task-42"


def test_a_name_outside_the_safe_set_uses_the_sentinel():
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "météo"}}
    name = standard_headers(call, "2026-07-28")["Mcp-Name"]
    assert name.startswith("=?base64?") and decode_header_value(name) == "météo"


def test_missing_or_non_string_name_gives_no_name_header():
    assert "Mcp-Name" not in standard_headers({"method": "tools/call", "params": {"name": 7}}, "2026-07-28")
    assert "Mcp-Name" not in standard_headers({"method": "tools/call"}, "2026-07-28")


def test_body_protocol_version():
    message = {"method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}
    assert body_protocol_version(message) == "2026-07-28"
    assert body_protocol_version({"method": "initialize", "params": {"protocolVersion": "2025-11-25"}}) is None
    assert body_protocol_version([1]) is None


EXECUTE_SQL = {
    "name": "execute_sql",
    "inputSchema": {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
        },
        "required": ["region", "query"],
    },
}


def test_the_spec_example_mirrors_region():
    assert invalid_header_reason(EXECUTE_SQL) is None
    headers = tool_param_headers(EXECUTE_SQL, {"region": "us-west1", "query": "SELECT * FROM users"})
    assert headers == {"Mcp-Param-Region": "us-west1"}


CUSTOM = {
    "name": "test_custom_headers",
    "inputSchema": {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            "debug": {"type": "boolean", "x-mcp-header": "Debug"},
            "empty_val": {"type": "string", "x-mcp-header": "EmptyVal"},
            "method_val": {"type": "string", "x-mcp-header": "Method"},
            "float_val": {"type": "number"},
            "non_ascii_val": {"type": "string", "x-mcp-header": "NonAscii"},
            "whitespace_val": {"type": "string", "x-mcp-header": "Whitespace"},
            "internal_space_val": {"type": "string", "x-mcp-header": "InternalSpace"},
            "crlf_val": {"type": "string", "x-mcp-header": "CrLf"},
            "tab_val": {"type": "string", "x-mcp-header": "Tab"},
            "query": {"type": "string"},
        },
    },
}


def test_conformance_custom_headers_values():
    assert invalid_header_reason(CUSTOM) is None
    headers = tool_param_headers(
        CUSTOM,
        {
            "region": "us-west1",
            "priority": 42,
            "verbose": False,
            "debug": True,
            "empty_val": "",
            "method_val": "test-method",
            "float_val": 3.14159,
            "non_ascii_val": "Hello, 世界",
            "whitespace_val": " padded ",
            "internal_space_val": "us west 1",
            "crlf_val": "line1\r\nline2",
            "tab_val": "\tindented",
            "query": "SELECT * FROM users",
        },
    )
    assert headers == {
        "Mcp-Param-Region": "us-west1",
        "Mcp-Param-Priority": "42",
        "Mcp-Param-Verbose": "false",
        "Mcp-Param-Debug": "true",
        "Mcp-Param-EmptyVal": "",
        "Mcp-Param-Method": "test-method",
        "Mcp-Param-NonAscii": "=?base64?SGVsbG8sIOS4lueVjA==?=",
        "Mcp-Param-Whitespace": "=?base64?IHBhZGRlZCA=?=",
        "Mcp-Param-InternalSpace": "us west 1",
        "Mcp-Param-CrLf": encode_header_value("line1\r\nline2"),
        "Mcp-Param-Tab": encode_header_value("\tindented"),
    }


def test_null_and_absent_values_are_omitted():
    headers = tool_param_headers(CUSTOM, {"region": "us-east1", "priority": 1, "verbose": None, "query": "SELECT 1"})
    assert headers == {"Mcp-Param-Region": "us-east1", "Mcp-Param-Priority": "1"}
    assert tool_param_headers(CUSTOM, None) == {}


def test_an_integer_sent_as_float_is_its_decimal_form_and_a_fraction_is_not_mirrored():
    assert tool_param_headers(CUSTOM, {"priority": 42.0}) == {"Mcp-Param-Priority": "42"}
    assert tool_param_headers(CUSTOM, {"priority": 4.5}) == {}
    assert tool_param_headers(CUSTOM, {"priority": -7}) == {"Mcp-Param-Priority": "-7"}


def test_nested_properties_are_read_at_their_exact_path():
    tool = {
        "name": "t",
        "inputSchema": {
            "type": "object",
            "properties": {
                "target": {"type": "object", "properties": {"tenant": {"type": "string", "x-mcp-header": "Tenant"}}},
            },
        },
    }
    assert invalid_header_reason(tool) is None
    assert tool_param_headers(tool, {"target": {"tenant": "acme"}}) == {"Mcp-Param-Tenant": "acme"}
    assert tool_param_headers(tool, {"tenant": "acme"}) == {}
    assert tool_param_headers(tool, {"target": "acme"}) == {}


def _tool(prop: dict, **more: dict) -> dict:
    return {"name": "t", "inputSchema": {"type": "object", "properties": {"value": prop, **more}}}


@pytest.mark.parametrize(
    "tool, words",
    [
        (_tool({"type": "string", "x-mcp-header": ""}), "empty"),
        (_tool({"type": "object", "x-mcp-header": "Data"}), "type object"),
        (_tool({"type": "array", "items": {"type": "string"}, "x-mcp-header": "Items"}), "type array"),
        (_tool({"type": "null", "x-mcp-header": "Nil"}), "type null"),
        (_tool({"type": "number", "x-mcp-header": "Num"}), "type number"),
        (_tool({"x-mcp-header": "Untyped"}), 'no "type"'),
        (
            _tool({"type": "string", "x-mcp-header": "Region"}, other={"type": "string", "x-mcp-header": "Region"}),
            "repeats",
        ),
        (
            _tool({"type": "string", "x-mcp-header": "MyField"}, other={"type": "string", "x-mcp-header": "myfield"}),
            "repeats",
        ),
        (_tool({"type": "string", "x-mcp-header": "My Region"}), "not a valid header name"),
        (_tool({"type": "string", "x-mcp-header": "Region:Primary"}), "not a valid header name"),
        (_tool({"type": "string", "x-mcp-header": "Région"}), "not a valid header name"),
        (_tool({"type": "string", "x-mcp-header": "Region\t1"}), "control character"),
        (_tool({"type": "string", "x-mcp-header": "Region\n"}), "control character"),
        (_tool({"type": "string", "x-mcp-header": 5}), "not a string"),
        (_tool({"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}), "not reachable"),
        (_tool({"oneOf": [{"type": "string", "x-mcp-header": "Choice"}]}), "not reachable"),
        (
            {
                "name": "t",
                "inputSchema": {
                    "type": "object",
                    "$defs": {"r": {"type": "string", "x-mcp-header": "R"}},
                    "properties": {"r": {"$ref": "#/$defs/r"}},
                },
            },
            "not reachable",
        ),
        ({"name": "t", "inputSchema": {"type": "object", "x-mcp-header": "Root"}}, "not reachable"),
        (
            {
                "name": "t",
                "inputSchema": {"type": "object", "if": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}},
            },
            "not reachable",
        ),
    ],
)
def test_invalid_annotations_are_reported(tool, words):
    reason = invalid_header_reason(tool)
    assert reason is not None and words in reason, reason


def test_annotation_lookalikes_in_data_and_property_names_are_not_annotations():
    tool = {
        "name": "t",
        "inputSchema": {
            "type": "object",
            "properties": {
                "x-mcp-header": {"type": "string"},
                "mode": {"type": "string", "default": {"x-mcp-header": "no"}, "enum": [{"x-mcp-header": 1}]},
            },
        },
    }
    assert invalid_header_reason(tool) is None
    assert tool_param_headers(tool, {"x-mcp-header": "v"}) == {}


def test_nullable_primitive_is_allowed_and_tools_without_schemas_are_valid():
    assert invalid_header_reason(_tool({"type": ["string", "null"], "x-mcp-header": "Maybe"})) is None
    assert invalid_header_reason(_tool({"type": ["string", "integer"], "x-mcp-header": "Mixed"})) is not None
    assert invalid_header_reason({"name": "t"}) is None
    assert invalid_header_reason({"name": "t", "inputSchema": "junk"}) is None
