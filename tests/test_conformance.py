"""Schema checks of server frames against the negotiated MCP version (mcp-types)."""

from mcp_inspector.core.protocol.conformance import check_entry, check_result
from mcp_inspector.core.protocol.jsonrpc import Kind
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore


def _request_and_reply(store: TrafficStore, method: str, reply: bytes):
    request = store.append(Direction.OUT, Kind.REQUEST, b"{}", method=method, msg_id=1, has_id=True)
    response = store.append(Direction.IN, Kind.RESPONSE, reply, msg_id=1, has_id=True)
    store.link(request, response, 1.0)
    return response


def test_malformed_tool_result_is_reported_with_its_location():
    store = TrafficStore()
    response = _request_and_reply(store, "tools/call", b'{"jsonrpc":"2.0","id":1,"result":{"content":"not-a-list"}}')
    assert check_entry(response, "2025-11-25", store) == ["content: Input should be a valid list"]


def test_valid_tool_result_passes():
    store = TrafficStore()
    response = _request_and_reply(
        store, "tools/call", b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}'
    )
    assert check_entry(response, "2025-06-18", store) == []


def test_notification_with_wrong_field_types():
    store = TrafficStore()
    entry = store.append(
        Direction.IN,
        Kind.NOTIFICATION,
        b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":"a"}}',
        method="notifications/progress",
    )
    problems = check_entry(entry, "2025-11-25", store)
    assert any(p.startswith("progress:") for p in problems)
    assert any(p.startswith("progressToken:") for p in problems)


def test_unknown_notification_method_is_named():
    store = TrafficStore()
    entry = store.append(Direction.IN, Kind.NOTIFICATION, b'{"jsonrpc":"2.0","method":"custom/x"}', method="custom/x")
    assert check_entry(entry, "2025-11-25", store) == [
        "custom/x is not a server notification defined by MCP 2025-11-25"
    ]


def test_outgoing_frames_and_stderr_are_not_checked():
    store = TrafficStore()
    out = store.append(Direction.OUT, Kind.NOTIFICATION, b'{"jsonrpc":"2.0","method":"bogus"}', method="bogus")
    err = store.append(Direction.IN, Kind.STDERR, b"hello")
    assert check_entry(out, None, store) == [] and check_entry(err, None, store) == []


def test_check_result_for_older_version():
    assert check_result("tools/list", {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}, "2024-11-05") == []
    assert check_result("tools/list", {"tools": [{"inputSchema": {}}]}, "2025-11-25")
