"""The rules of the modern era as pure functions: malformed InputRequiredResults,
resultType judgement, the era a version implies, the _meta merge, and the reserved
_meta keys matching mcp_types'."""

from __future__ import annotations

import pytest

from mcp_inspector.core.base.errors import ProtocolViolation
from mcp_inspector.core.session import era, modern
from mcp_inspector.core.session.mrtr import MrtrError, _parse


@pytest.mark.parametrize(
    "result, message",
    [
        ({"resultType": "input_required"}, "neither inputRequests nor requestState"),
        ({"resultType": "input_required", "inputRequests": []}, "inputRequests must be an object"),
        ({"resultType": "input_required", "requestState": 7}, "requestState must be a string"),
        (
            {"resultType": "input_required", "inputRequests": {"k": "elicitation/create"}},
            "'k' is not a {method, params} object",
        ),
        ({"resultType": "input_required", "inputRequests": {"k": {"method": "tools/call"}}}, "asks for 'tools/call'"),
        (
            {"resultType": "input_required", "inputRequests": {"k": {"method": "roots/list", "params": [1]}}},
            "params that are not an object",
        ),
        (
            {"resultType": "input_required", "inputRequests": {str(n): {"method": "roots/list"} for n in range(65)}},
            "asked for 65 inputs in one round (more than 64)",
        ),
    ],
)
def test_a_malformed_input_required_result_is_a_clear_error(result, message):
    with pytest.raises(MrtrError) as caught:
        _parse("tools/call", result)
    assert message in str(caught.value)


def test_a_well_formed_input_required_result():
    requests, state = _parse(
        "prompts/get",
        {"resultType": "input_required", "requestState": "opaque", "inputRequests": {"r": {"method": "roots/list"}}},
    )
    assert requests == {"r": {"method": "roots/list"}} and state == "opaque"


def test_result_types():
    assert modern.check_result_type("tools/list", {}) is None  # absent means complete
    assert modern.check_result_type("tools/list", {"resultType": "complete"}) is None
    assert "tasks" in modern.check_result_type("tools/call", {"resultType": "task"})
    with pytest.raises(ProtocolViolation, match="'mystery'"):
        modern.check_result_type("tools/call", {"resultType": "mystery"})
    with pytest.raises(ProtocolViolation, match="allows only on"):
        modern.check_result_type("tools/list", {"resultType": "input_required"})
    with pytest.raises(ProtocolViolation, match="not a string"):
        modern.check_result_type("tools/list", {"resultType": 3})


@pytest.mark.parametrize(
    "asked, version, expected",
    [
        ("auto", None, ("auto", "", None)),
        ("auto", "2026-07-28", ("modern", "protocol version 2026-07-28 was asked for (a modern revision)", None)),
        ("auto", "2025-06-18", ("legacy", "protocol version 2025-06-18 was asked for (a legacy revision)", None)),
        ("legacy", None, ("legacy", "--era legacy", None)),
        ("modern", "2026-07-28", ("modern", "--era modern", None)),
    ],
)
def test_the_era_a_request_implies(asked, version, expected):
    assert era.resolve(asked, version) == expected


@pytest.mark.parametrize(
    "asked, version, message",
    [
        ("legacy", "2026-07-28", "--era legacy contradicts protocol version 2026-07-28 (a modern revision"),
        ("modern", "2025-11-25", "--era modern contradicts protocol version 2025-11-25 (a legacy revision"),
        ("modern", "1999-01-01", "not a revision mcp-inspector knows"),
        ("sideways", None, "unknown era 'sideways'"),
    ],
)
def test_contradictions_are_reported(asked, version, message):
    assert message in era.resolve(asked, version)[2]


def test_meta_is_added_without_touching_the_callers_params_or_keys():
    params = {"name": "x", "_meta": {"progressToken": 4, modern.LOG_LEVEL_KEY: "debug"}}
    meta = modern.request_meta("2026-07-28", {"roots": {}}, {"name": "c", "version": "1"}, "error")
    merged = modern.add_request_meta(params, meta)
    assert params == {"name": "x", "_meta": {"progressToken": 4, modern.LOG_LEVEL_KEY: "debug"}}
    assert merged["_meta"] == {
        modern.PROTOCOL_VERSION_KEY: "2026-07-28",
        modern.CLIENT_CAPABILITIES_KEY: {"roots": {}},
        modern.CLIENT_INFO_KEY: {"name": "c", "version": "1"},
        modern.LOG_LEVEL_KEY: "debug",
        "progressToken": 4,
    }
    assert modern.add_request_meta(None, meta) == {"_meta": meta}


def test_the_reserved_keys_are_the_sdk_types_keys():
    from mcp_types import _types

    assert modern.PROTOCOL_VERSION_KEY == _types.PROTOCOL_VERSION_META_KEY
    assert modern.CLIENT_INFO_KEY == _types.CLIENT_INFO_META_KEY
    assert modern.CLIENT_CAPABILITIES_KEY == _types.CLIENT_CAPABILITIES_META_KEY
    assert modern.LOG_LEVEL_KEY == _types.LOG_LEVEL_META_KEY
    assert modern.SERVER_INFO_KEY == _types.SERVER_INFO_META_KEY
