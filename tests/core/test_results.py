"""analyze_tool_result: every block type, unknown types degrade, isError, structured output."""

from __future__ import annotations

import base64

from mcp_inspector.core.session.results import analyze_tool_result, decode_block_bytes, describe_block

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
PNG_B64 = base64.b64encode(PNG).decode()
WEATHER = {
    "name": "weather",
    "outputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "temperature": {"type": "number"}},
        "required": ["city", "temperature"],
    },
}


def test_every_block_type_is_understood() -> None:
    result = {
        "content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
            {"type": "audio", "data": base64.b64encode(b"RIFF1234").decode(), "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a", "mimeType": "text/plain"},
            {"type": "resource", "resource": {"uri": "mem://t", "mimeType": "text/plain", "text": "inline"}},
            {
                "type": "resource",
                "resource": {
                    "uri": "mem://b",
                    "mimeType": "application/octet-stream",
                    "blob": base64.b64encode(b"\x00\x01\x02").decode(),
                },
            },
        ]
    }
    view = analyze_tool_result(result)
    assert [b.type for b in view.blocks] == ["text", "image", "audio", "resource_link", "resource", "resource"]
    assert [b.index for b in view.blocks] == [0, 1, 2, 3, 4, 5]
    assert all(b.problem is None for b in view.blocks), [b.problem for b in view.blocks]
    assert view.blocks[1].size == len(PNG) and view.blocks[1].mime_type == "image/png"
    assert view.blocks[2].size == 8 and view.blocks[2].mime_type == "audio/wav"
    assert view.blocks[3].mime_type == "text/plain"
    assert view.blocks[4].mime_type == "text/plain" and view.blocks[4].size is None
    assert view.blocks[5].size == 3
    assert decode_block_bytes(result["content"][1]) == PNG
    assert decode_block_bytes(result["content"][5]) == b"\x00\x01\x02"
    assert view.is_error is False and view.problems == [] and view.has_structured is False


def test_unknown_and_broken_blocks_degrade_alone() -> None:
    result = {
        "content": [
            {"type": "hologram", "data": "x"},
            "just a string",
            {"type": "text"},
            {"type": "image", "data": "%%% not base64", "mimeType": "image/png"},
            {"type": "image", "data": PNG_B64},
            {"type": "resource_link", "uri": "file:///x"},
            {"type": "resource", "resource": {"uri": "mem://x"}},
            {"type": "resource", "resource": "nope"},
            {"type": "text", "text": "still fine"},
        ]
    }
    blocks = analyze_tool_result(result).blocks
    assert [b.type for b in blocks] == [
        "unknown",
        "unknown",
        "text",
        "image",
        "image",
        "resource_link",
        "resource",
        "resource",
        "text",
    ]
    assert blocks[0].problem == "unknown content type 'hologram'" and blocks[0].block == {
        "type": "hologram",
        "data": "x",
    }
    assert "must be an object" in blocks[1].problem
    assert "string `text`" in blocks[2].problem
    assert "not valid base64" in blocks[3].problem
    assert "mimeType" in blocks[4].problem and blocks[4].size == len(PNG)
    assert "`uri` and `name`" in blocks[5].problem
    assert "`text` or `blob`" in blocks[6].problem
    assert "`resource` object" in blocks[7].problem
    assert blocks[8].problem is None
    assert describe_block(0, {"type": None}).type == "unknown"


def test_is_error_is_a_tool_failure_not_a_protocol_error() -> None:
    view = analyze_tool_result({"content": [{"type": "text", "text": "bad"}], "isError": True}, WEATHER)
    assert view.is_error is True
    assert view.structured_issues == []  # a failed call owes no structured output
    assert view.blocks[0].block["text"] == "bad"
    odd = analyze_tool_result({"content": [], "isError": "yes"})
    assert odd.is_error is True and "`isError` must be a boolean" in odd.problems


def test_result_shape_problems() -> None:
    assert analyze_tool_result({}).problems == ["the result has no `content` array"]
    assert analyze_tool_result({"content": {"type": "text"}}).problems == ["`content` must be an array, got dict"]


def test_structured_content_valid_against_output_schema() -> None:
    data = {"city": "Paris", "temperature": 21.5}
    view = analyze_tool_result({"content": [{"type": "text", "text": "{}"}], "structuredContent": data}, WEATHER)
    assert view.has_structured and view.structured == data and view.structured_issues == []
    assert view.output_schema == WEATHER["outputSchema"]


def test_structured_content_invalid_against_output_schema() -> None:
    view = analyze_tool_result({"content": [], "structuredContent": {"city": 5}}, WEATHER)
    messages = {(i.path, i.message) for i in view.structured_issues}
    assert ("$.city", "5 is not of type 'string'") in messages
    assert ("$", "'temperature' is a required property") in messages


def test_missing_structured_content_when_schema_declared() -> None:
    view = analyze_tool_result({"content": [{"type": "text", "text": "21.5"}]}, WEATHER)
    assert [i.message for i in view.structured_issues] == [
        "the tool declares an outputSchema but the result has no structuredContent"
    ]


def test_structured_content_without_schema_is_kept_unchecked() -> None:
    view = analyze_tool_result({"content": [], "structuredContent": {"any": "thing"}}, {"name": "t"})
    assert view.has_structured and view.structured == {"any": "thing"} and view.structured_issues == []
