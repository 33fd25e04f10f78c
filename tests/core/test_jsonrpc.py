"""Classification of every frame kind from raw bytes, builders and raw_member."""

from __future__ import annotations

import json

import pytest

from mcp_inspector.core.base import jsonrpc
from mcp_inspector.core.base.jsonrpc import Kind, classify, classify_message, id_key, raw_member


def test_request() -> None:
    c = classify(b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"a"}}')
    assert (c.kind, c.method, c.id, c.has_id, c.problem) == (Kind.REQUEST, "tools/list", 7, True, None)
    assert c.message["params"] == {"cursor": "a"}


def test_request_with_string_id() -> None:
    c = classify(b'{"jsonrpc":"2.0","id":"abc","method":"ping"}')
    assert (c.kind, c.id) == (Kind.REQUEST, "abc")


def test_notification() -> None:
    c = classify(b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}')
    assert (c.kind, c.method, c.has_id, c.problem) == (Kind.NOTIFICATION, "notifications/progress", False, None)


def test_response() -> None:
    c = classify(b'{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}')
    assert (c.kind, c.id, c.method, c.problem) == (Kind.RESPONSE, 3, None, None)


def test_error_response() -> None:
    c = classify(b'{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found","data":{"m":"x"}}}')
    assert (c.kind, c.id, c.error_code, c.problem) == (Kind.ERROR, 4, -32601, None)


def test_error_response_with_null_id_is_valid() -> None:
    c = classify(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')
    assert (c.kind, c.id, c.has_id, c.error_code) == (Kind.ERROR, None, True, -32700)


def test_batch_is_recognised_and_members_classify_on_their_own() -> None:
    c = classify(b'[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":{}},5]')
    assert c.kind is Kind.BATCH
    assert [classify_message(m).kind for m in c.message] == [Kind.NOTIFICATION, Kind.RESPONSE, Kind.INVALID]


def test_empty_batch_is_invalid() -> None:
    c = classify(b"[]")
    assert c.kind is Kind.INVALID and "empty batch" in c.problem


@pytest.mark.parametrize(
    "raw, problem_part",
    [
        (b"Server starting...", "not JSON"),
        (b'{"jsonrpc":"2.0","id":1,', "not JSON"),
        (b'{"jsonrpc":"1.0","method":"x"}', 'jsonrpc must be "2.0"'),
        (b'{"id":1,"method":"x"}', 'jsonrpc must be "2.0"'),
        (b'{"jsonrpc":2.0,"id":1,"result":{}}', 'jsonrpc must be "2.0"'),
        (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', "id must be a string or an integer, got true"),
        (b'{"jsonrpc":"2.0","id":1.5,"result":{}}', "got 1.5"),
        (b'{"jsonrpc":"2.0","id":null,"result":{}}', "got null"),
        (b'{"jsonrpc":"2.0","id":[1],"method":"x"}', "id must be a string or an integer"),
        (b'{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}', "both result and error"),
        (b'{"jsonrpc":"2.0","id":1,"method":"x","result":{}}', "cannot carry result or error"),
        (b'{"jsonrpc":"2.0","id":1,"method":5}', "method must be a string"),
        (b'{"jsonrpc":"2.0","id":1,"method":"x","params":3}', "params must be an object"),
        (b'{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}', "integer code"),
        (b'{"jsonrpc":"2.0","id":1,"error":{"code":true,"message":"m"}}', "integer code"),
        (b'{"jsonrpc":"2.0","id":1,"error":{"code":1}}', "error.message must be a string"),
        (b'{"jsonrpc":"2.0","id":1}', "neither a request"),
        (b"42", "not a JSON object (int)"),
        (b'"hello"', "not a JSON object (str)"),
        (b"null", "not a JSON object (NoneType)"),
    ],
)
def test_invalid_frames_say_why(raw: bytes, problem_part: str) -> None:
    c = classify(raw)
    assert c.kind is Kind.INVALID
    assert problem_part in c.problem, c.problem


def test_invalid_frame_keeps_what_it_could_read() -> None:
    c = classify(b'{"jsonrpc":"2.0","id":true,"method":"ping"}')
    assert (c.method, c.id, c.has_id) == ("ping", True, True)
    c = classify(b'{"jsonrpc":"2.0","id":1.5,"result":{}}')
    assert (c.method, c.id) == (None, 1.5)


def test_unknown_envelope_fields_are_noted_but_valid() -> None:
    c = classify(b'{"jsonrpc":"2.0","method":"notifications/message","params":{},"extra":"field","x-unknown":{}}')
    assert c.kind is Kind.NOTIFICATION
    assert c.problem == "unknown envelope fields: extra, x-unknown"
    c = classify(b'{"jsonrpc":"2.0","id":1,"result":{},"trace":1}')
    assert c.kind is Kind.RESPONSE and "trace" in c.problem


def test_invalid_utf8_is_replaced_and_noted_not_fatal() -> None:
    c = classify(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"bad \xff\xfe bytes"}}')
    assert c.kind is Kind.NOTIFICATION
    assert "invalid UTF-8" in c.problem
    assert "\ufffd" in c.message["params"]["data"]
    garbage = classify(b"\xff\xfe garbage")
    assert garbage.kind is Kind.INVALID and "not JSON" in garbage.problem


def test_ids_1_and_string_1_are_distinct_keys() -> None:
    assert id_key(1) != id_key("1")
    assert jsonrpc.valid_id(0) and jsonrpc.valid_id("") and not jsonrpc.valid_id(True) and not jsonrpc.valid_id(1.0)


def test_builders_round_trip_through_classify() -> None:
    frames = [
        (jsonrpc.request(1, "ping"), Kind.REQUEST),
        (jsonrpc.notification("notifications/initialized"), Kind.NOTIFICATION),
        (jsonrpc.response(1, {}), Kind.RESPONSE),
        (jsonrpc.error_response(None, jsonrpc.PARSE_ERROR, "Parse error", {"at": 3}), Kind.ERROR),
    ]
    for message, kind in frames:
        raw = jsonrpc.dumps(message)
        assert b"\n" not in raw
        assert classify(raw).kind is kind
    assert jsonrpc.dumps({"t": "✓"}) == '{"t":"✓"}'.encode()


def test_raw_member_returns_exact_text() -> None:
    raw = b'{ "jsonrpc" : "2.0", "id":1 , "result" :  {"n": 1.50, "e": 1E3, "s":"a\\u00e9", "l":[ 1 ,2 ]} , "z":0}'
    assert raw_member(raw, "result") == '{"n": 1.50, "e": 1E3, "s":"a\\u00e9", "l":[ 1 ,2 ]}'
    assert raw_member(raw, "id") == "1"
    assert raw_member(raw, "jsonrpc") == '"2.0"'
    assert raw_member(raw, "z") == "0"
    assert raw_member(raw, "missing") is None
    assert json.loads(raw_member(raw, "result")) == json.loads(raw)["result"]


def test_raw_member_of_a_non_object_is_none() -> None:
    assert raw_member(b"[1,2]", "result") is None
    assert raw_member(b"  42", "result") is None
    assert raw_member(b"", "result") is None


def test_raw_member_keys_with_escapes_and_nested_same_name() -> None:
    raw = b'{"a":{"result":"inner"},"res\\u0075lt":[1, 2]}'
    assert raw_member(raw, "result") == "[1, 2]"


@pytest.mark.parametrize("raw", [b'{"a"', b"{x}", b'{"a":1', b'{"a":1 "result":2}', b'{"result"'])
def test_raw_member_of_a_malformed_frame_is_none_not_an_exception(raw: bytes) -> None:
    assert raw_member(raw, "result") is None


def test_shallow_members_finds_top_level_members_at_any_depth_without_parsing() -> None:
    from mcp_inspector.core.base.jsonrpc import SHALLOW_TOKEN_BUDGET, shallow_members

    deep = b"[{" * 50_000 + b"}]" * 50_000
    assert shallow_members(b'{"jsonrpc":"2.0","id":7,"result":' + deep + b"}", ("id", "method")) == {"id": "7"}
    tail = b'{"result":' + deep + b', "id" : "a,}\\"" }'
    assert shallow_members(tail, ("id",)) == {"id": '"a,}\\""'}
    # a nested "id" is not the top-level one; a request's method is seen; a head cut short still gives the id
    assert shallow_members(b'{"result":{"id":1},"x":2}', ("id",)) == {}
    assert shallow_members(b'{"method":"m","id":3,"params":[[[', ("id", "method")) == {"method": '"m"', "id": "3"}
    assert shallow_members(b'[{"id":1}]', ("id",)) == {}
    # past the token budget nothing is claimed (a hostile frame cannot hold the loop for seconds)
    assert shallow_members(b'{"id":1,"r":' + b"[1," * (SHALLOW_TOKEN_BUDGET // 2 + 1), ("id",)) == {}
