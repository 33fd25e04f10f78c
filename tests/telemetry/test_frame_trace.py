"""The traffic detail view's trace line: a frame's trace and span ids from its params._meta, and a
reply showing its request's."""

from __future__ import annotations

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.telemetry.api import frame_trace
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.tui.screens.traffic.frame_detail import describe_entry, trace_line

TRACE, SPAN = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
REQUEST = (
    b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","_meta":{"traceparent":"00-'
    + TRACE.encode()
    + b"-"
    + SPAN.encode()
    + b'-01"}}}'
)


def test_request_and_reply_show_the_trace() -> None:
    store = TrafficStore()
    request = store.append(Direction.OUT, Kind.REQUEST, REQUEST, method="tools/call", msg_id=7, has_id=True)
    reply = store.append(
        Direction.IN,
        Kind.RESPONSE,
        b'{"jsonrpc":"2.0","id":7,"result":{}}',
        msg_id=7,
        has_id=True,
        reply_to=request.seq,
    )
    assert trace_line(request, store) == f"trace {TRACE}  span {SPAN}"
    assert trace_line(reply, store) == f"trace {TRACE}  span {SPAN} (of #{request.seq})"
    assert f"trace {TRACE}" in describe_entry(request, store, str).plain


def test_frames_without_a_valid_traceparent_show_none() -> None:
    store = TrafficStore()
    plain = store.append(
        Direction.OUT, Kind.REQUEST, b'{"jsonrpc":"2.0","id":1,"method":"ping"}', msg_id=1, has_id=True
    )
    assert trace_line(plain, store) is None
    for bad in (b'"00-zz-00f067aa0ba902b7-01"', b'"00-' + b"0" * 32 + b'-00f067aa0ba902b7-01"', b"17", b'"x"'):
        raw = b'{"jsonrpc":"2.0","method":"n","params":{"_meta":{"traceparent":' + bad + b"}}}"
        assert frame_trace(raw) is None
    assert frame_trace(b"traceparent, not JSON {") is None
