"""RpcConnection over an in-process fake transport: correlation, timeouts,
cancellation, progress, late replies and server-to-client requests."""

from __future__ import annotations

import json
import math
import time
from typing import Any

import anyio
import pytest
from waiting import until

from mcp_inspector.core.base import jsonrpc
from mcp_inspector.core.base.errors import (
    ConnectionLost,
    ProtocolViolation,
    RequestCancelled,
    RequestTimeout,
    RpcError,
)
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.protocol.rpc import RpcConnection
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.loading import load_session
from mcp_inspector.core.traffic.recording import SessionWriter
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.base import Closed, Received, Transport

pytestmark = pytest.mark.anyio


class FakeTransport(Transport):
    """Plays the server side in-process: tests read what was sent and feed replies."""

    kind = "fake"

    def __init__(self) -> None:
        self.sink = None
        self.sent: list[dict] = []
        self._out_send, self._out_receive = anyio.create_memory_object_stream[dict](10_000)
        self.closed = False

    async def start(self, task_group, sink) -> None:
        self.sink = sink

    async def send(self, data: bytes, meta: dict | None = None) -> None:
        message = json.loads(data)
        self.sent.append(message)
        await self._out_send.send(message)

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.sink(Closed("closed by us", expected=True))

    # -- test side ---------------------------------------------------
    async def next_sent(self, timeout: float = 30.0) -> dict:  # a hang guard
        with anyio.fail_after(timeout):
            return await self._out_receive.receive()

    def feed(self, message: Any) -> None:
        raw = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.sink(Received(raw))

    def reply(self, msg_id: Any, result: dict) -> None:
        self.feed(jsonrpc.response(msg_id, result))

    def progress(self, token: Any, value: float, total: float | None = None, message: str | None = None) -> None:
        params: dict[str, Any] = {"progressToken": token, "progress": value}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        self.feed(jsonrpc.notification("notifications/progress", params))

    def cancellations(self) -> list[dict]:
        return [m["params"] for m in self.sent if m.get("method") == "notifications/cancelled"]


class Harness:
    def __init__(self, connection: RpcConnection, transport: FakeTransport, tg) -> None:
        self.connection = connection
        self.transport = transport
        self.store = connection.store
        self.tg = tg


def harness_factory(store: TrafficStore | None = None, default_timeout: float | None = 10.0):
    class _Ctx:
        async def __aenter__(self) -> Harness:
            self._tg = anyio.create_task_group()
            await self._tg.__aenter__()
            self._scope = anyio.fail_after(60)  # a hang guard
            transport = FakeTransport()
            connection = RpcConnection(
                transport, store if store is not None else TrafficStore(), default_timeout=default_timeout
            )
            await connection.start(self._tg)
            return Harness(connection, transport, self._tg)

        async def __aexit__(self, *exc: Any) -> bool | None:
            self._tg.cancel_scope.cancel()
            return await self._tg.__aexit__(*exc)

    return _Ctx()


async def test_many_requests_in_flight_answered_out_of_order() -> None:
    async with harness_factory() as h:
        pendings = [await h.connection.send_request("echo", {"n": i}) for i in range(50)]
        sent = [await h.transport.next_sent() for _ in range(50)]
        assert len({m["id"] for m in sent}) == 50
        for message in reversed(sent):  # answer newest first
            h.transport.reply(message["id"], {"n": message["params"]["n"]})
        results = [await p.wait() for p in pendings]
        assert [r["n"] for r in results] == list(range(50))
        assert h.connection.by_id == {}
        for p in pendings:
            assert p.reply is not None and p.entry is not None
            assert p.reply.reply_to == p.entry.seq and p.entry.reply_seq == p.reply.seq
            assert p.reply.latency_ms is not None and p.reply.latency_ms >= 0


async def test_second_request_while_first_in_flight_is_not_blocked() -> None:
    async with harness_factory() as h:
        slow = await h.connection.send_request("tools/call", {"name": "slow"})
        first = await h.transport.next_sent()
        result: dict = {}

        async def ping() -> None:
            result["ping"] = await h.connection.request("ping")

        h.tg.start_soon(ping)
        second = await h.transport.next_sent()
        assert second["method"] == "ping" and second["id"] != first["id"]
        h.transport.reply(second["id"], {})
        await until(lambda: not ("ping" not in result))
        assert not slow.done  # still waiting, independently
        h.transport.reply(first["id"], {"content": []})
        assert await slow.wait() == {"content": []}


async def test_string_and_integer_ids_are_not_confused() -> None:
    async with harness_factory() as h:
        as_int = await h.connection.send_request("a", msg_id=1)
        as_str = await h.connection.send_request("b", msg_id="1")
        h.transport.reply("1", {"which": "str"})
        h.transport.reply(1, {"which": "int"})
        assert (await as_int.wait())["which"] == "int"
        assert (await as_str.wait())["which"] == "str"


async def test_timeout_cleans_up_sends_cancelled_and_raises_clear_error() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("tools/call", {"name": "never"}, timeout=0.2, progress=True)
        started = time.perf_counter()
        with pytest.raises(RequestTimeout) as caught:
            await pending.wait()
        assert 0.15 < time.perf_counter() - started < 30  # not before its limit; the upper bound is loose
        message = str(caught.value)
        assert "tools/call timed out" in message and "0.2 s" in message and "notifications/cancelled" in message
        assert caught.value.hard_limit is False
        assert h.connection.by_id == {} and h.connection.by_token == {}
        assert h.connection.pending == []
        assert h.transport.cancellations() == [{"requestId": pending.id, "reason": "timeout"}]


async def test_reply_after_timeout_is_recorded_late_and_not_delivered() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("slow", timeout=0.1)
        with pytest.raises(RequestTimeout):
            await pending.wait()
        h.transport.reply(pending.id, {"too": "late"})
        late = h.store.get(h.store.last_seq)
        assert late.kind is Kind.RESPONSE and late.late is True
        assert "late" in late.problem and "timeout" in late.problem
        assert late.reply_to == pending.entry.seq and pending.entry.reply_seq == late.seq
        assert pending.result is None and isinstance(pending.error, RequestTimeout)
        assert h.connection.by_id == {}


async def test_progress_resets_the_timeout() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("work", timeout=0.3, reset_on_progress=True, progress=True)
        for i in range(8):  # 0.8 s of progress, well past the 0.3 s timeout
            await anyio.sleep(0.1)
            h.transport.progress(pending.id, i + 1, 10)
        h.transport.reply(pending.id, {"ok": True})
        assert await pending.wait() == {"ok": True}
        assert pending.elapsed > 0.7
        assert pending.progress_count == 8 and pending.progress.progress == 8 and pending.progress.total == 10


async def test_progress_does_not_reset_when_not_asked() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("work", timeout=0.3, progress=True)

        async def keep_progressing() -> None:
            for i in range(10):
                await anyio.sleep(0.1)
                h.transport.progress(pending.id, i)

        h.tg.start_soon(keep_progressing)
        with pytest.raises(RequestTimeout):
            await pending.wait()
        # the 0.3 s timeout fired while progress still kept coming (1 s of it): proved by order, not wall time
        assert pending.progress_count < 10 and pending.elapsed >= 0.3


async def test_reset_on_progress_stops_at_max_total() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request(
            "work", timeout=0.3, reset_on_progress=True, max_total=0.8, progress=True
        )

        async def keep_progressing() -> None:
            for i in range(40):
                await anyio.sleep(0.05)
                if pending.done:
                    return
                h.transport.progress(pending.id, i)

        h.tg.start_soon(keep_progressing)
        with pytest.raises(RequestTimeout) as caught:
            await pending.wait()
        assert caught.value.hard_limit is True
        assert "maximum total time of 0.8 s" in str(caught.value)
        assert 0.7 < pending.elapsed < 30  # not before the maximum; the upper bound is loose (hard_limit says which)
        assert h.connection.by_id == {}
        assert h.transport.cancellations()[-1]["requestId"] == pending.id


async def test_remaining_counts_down() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("x", timeout=5)
        first = pending.remaining()
        await anyio.sleep(0.05)
        assert 0 < pending.remaining() < first <= 5
        no_timeout = await h.connection.send_request("y", timeout=None)
        assert no_timeout.remaining() is None


async def test_pending_cancel_sends_cancelled_and_late_reply_is_marked() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("tools/call", {"name": "slow"})
        await pending.cancel("user pressed Esc")
        with pytest.raises(RequestCancelled, match="user pressed Esc"):
            await pending.wait()
        assert h.connection.by_id == {}
        assert h.transport.cancellations() == [{"requestId": pending.id, "reason": "user pressed Esc"}]
        h.transport.reply(pending.id, {"content": []})
        late = h.store.get(h.store.last_seq)
        assert late.late and late.reply_to == pending.entry.seq
        assert pending.result is None


async def test_task_cancellation_sends_the_same_notification() -> None:
    async with harness_factory() as h:
        outcome: dict = {}

        async def caller(scope_holder: dict) -> None:
            with anyio.CancelScope() as scope:
                scope_holder["scope"] = scope
                outcome["result"] = await h.connection.request("tools/call", {"name": "slow"})
            outcome["cancelled"] = scope.cancelled_caught

        holder: dict = {}
        h.tg.start_soon(caller, holder)
        request = await h.transport.next_sent()
        holder["scope"].cancel()
        cancel = await h.transport.next_sent()
        assert cancel["method"] == "notifications/cancelled"
        assert cancel["params"]["requestId"] == request["id"]
        assert h.connection.by_id == {}
        await anyio.sleep(0.01)
        assert outcome == {"cancelled": True}


async def test_initialize_is_never_cancelled_by_notification() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("initialize", {}, timeout=0.05)
        with pytest.raises(RequestTimeout):
            await pending.wait()
        assert h.transport.cancellations() == []


async def test_progress_is_routed_by_token_to_the_right_request() -> None:
    async with harness_factory() as h:
        seen: list[tuple[Any, float]] = []
        a = await h.connection.send_request("a", progress=True)
        b = await h.connection.send_request("b", on_progress=lambda p: seen.append((p.id, p.progress.progress)))
        sent_a, sent_b = await h.transport.next_sent(), await h.transport.next_sent()
        assert sent_a["params"]["_meta"]["progressToken"] == a.progress_token
        assert sent_b["params"]["_meta"]["progressToken"] == b.progress_token
        h.transport.progress(b.progress_token, 0.5, 1, "half")
        note = h.store.get(h.store.last_seq)
        assert note.reply_to == b.entry.seq
        assert b.progress.progress == 0.5 and b.progress.message == "half" and a.progress is None
        assert seen == [(b.id, 0.5)]
        h.transport.progress("no-such-token", 1)
        assert "no request in flight" in h.store.get(h.store.last_seq).problem


async def test_error_response_raises_rpc_error() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("tools/call")
        h.transport.feed(jsonrpc.error_response(pending.id, -32602, "Unknown tool: x", {"tool": "x"}))
        with pytest.raises(RpcError) as caught:
            await pending.wait()
        assert (caught.value.code, caught.value.message, caught.value.data) == (
            -32602,
            "Unknown tool: x",
            {"tool": "x"},
        )
        assert "Invalid params" in str(caught.value)
        assert pending.reply.kind is Kind.ERROR and pending.reply.error_code == -32602


async def test_invalid_answer_fails_the_request_with_a_protocol_violation() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("ping")
        h.transport.feed({"jsonrpc": "2.0", "id": pending.id, "result": {}, "error": {"code": 1, "message": "m"}})
        with pytest.raises(ProtocolViolation, match="both result and error"):
            await pending.wait()
        assert h.connection.by_id == {}
        assert pending.reply.reply_to == pending.entry.seq


async def test_non_object_result_is_a_protocol_violation() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("ping")
        h.transport.feed({"jsonrpc": "2.0", "id": pending.id, "result": [1, 2]})
        with pytest.raises(ProtocolViolation, match="not an object"):
            await pending.wait()


async def test_reply_to_unknown_id_is_noted() -> None:
    async with harness_factory() as h:
        h.transport.reply(12345, {})
        entry = h.store.get(h.store.last_seq)
        assert entry.problem == "reply to an id with no request in flight" and not entry.late


async def test_batch_members_are_dispatched() -> None:
    async with harness_factory() as h:
        a = await h.connection.send_request("a")
        b = await h.connection.send_request("b")
        h.transport.feed([jsonrpc.response(b.id, {"v": "b"}), jsonrpc.response(a.id, {"v": "a"})])
        assert (await a.wait())["v"] == "a" and (await b.wait())["v"] == "b"
        assert h.store.get(h.store.last_seq).kind is Kind.BATCH


async def _server_asks(h: Harness, method: str, msg_id: Any = 1, params: dict | None = None) -> dict:
    h.transport.feed(jsonrpc.request(msg_id, method, params or {}))
    return await h.transport.next_sent()


async def test_server_requests_go_to_handlers_and_defaults() -> None:
    async with harness_factory() as h:
        calls: list[dict | None] = []

        async def roots(params, entry):
            calls.append(params)
            assert entry.kind is Kind.REQUEST and entry.direction is Direction.IN
            return {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}

        async def broken(params, entry):
            raise ValueError("handler bug")

        async def refuses(params, entry):
            raise RpcError(-32002, "no such thing", {"x": 1})

        h.connection.handlers["roots/list"] = roots
        h.connection.handlers["custom/broken"] = broken
        h.connection.handlers["custom/refuses"] = refuses

        answer = await _server_asks(h, "roots/list", 1, {"a": 1})
        assert answer == {"jsonrpc": "2.0", "id": 1, "result": {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}}
        assert calls == [{"a": 1}]
        request_entry = h.store.get(h.store.last_seq - 1)
        reply_entry = h.store.get(h.store.last_seq)
        assert request_entry.method == "roots/list" and reply_entry.direction is Direction.OUT
        assert reply_entry.reply_to == request_entry.seq and request_entry.reply_seq == reply_entry.seq

        assert (await _server_asks(h, "ping", "p1")) == {"jsonrpc": "2.0", "id": "p1", "result": {}}

        unknown = await _server_asks(h, "custom/unknown", 3)
        assert unknown["error"]["code"] == -32601 and "custom/unknown" in unknown["error"]["message"]

        crashed = await _server_asks(h, "custom/broken", 4)
        assert crashed["error"]["code"] == -32603 and "handler bug" in crashed["error"]["message"]
        assert h.store.get(h.store.last_seq).error_code == -32603

        refused = await _server_asks(h, "custom/refuses", 5)
        assert refused["error"] == {"code": -32002, "message": "no such thing", "data": {"x": 1}}

        # The connection survived the handler exception: our requests still work.
        pending = await h.connection.send_request("ping")
        sent = await h.transport.next_sent()
        h.transport.reply(sent["id"], {})
        assert await pending.wait() == {}


async def test_server_can_cancel_its_request_to_us() -> None:
    async with harness_factory() as h:
        started = anyio.Event()
        finished: list[str] = []

        async def slow(params, entry):
            started.set()
            try:
                await anyio.sleep(30)
            finally:
                finished.append("stopped")
            return {}

        h.connection.handlers["sampling/createMessage"] = slow
        h.transport.feed(jsonrpc.request(9, "sampling/createMessage", {}))
        with anyio.fail_after(30):  # a hang guard
            await started.wait()
        h.transport.feed(jsonrpc.notification("notifications/cancelled", {"requestId": 9}))
        await until(lambda: finished)
        await anyio.sleep(0.05)
        assert [m for m in h.transport.sent if m.get("id") == 9] == []  # no response after cancel


async def test_close_fails_pending_requests_at_once() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("tools/call", timeout=300)
        h.transport.sink(Closed("the server exited with code 3", exit_code=3, stderr_tail=["fatal: boom"]))
        with pytest.raises(ConnectionLost) as caught:  # not RequestTimeout: the close, not the 300 s timeout
            await pending.wait()
        assert caught.value.exit_code == 3 and caught.value.stderr_tail == ["fatal: boom"]
        assert "fatal: boom" in str(caught.value)
        assert h.connection.by_id == {}
        with pytest.raises(ConnectionLost):
            await h.connection.send_request("ping")
        closed = h.store.get(h.store.last_seq)
        assert closed.kind is Kind.EVENT and closed.meta["exit_code"] == 3


async def test_send_raw_correlates_a_well_formed_request() -> None:
    async with harness_factory() as h:
        entry, pending = await h.connection.send_raw(b'{"jsonrpc":"2.0","id":"raw-1","method":"ping"}')
        assert entry.kind is Kind.REQUEST and pending is not None
        h.transport.reply("raw-1", {})
        assert await pending.wait() == {}
        bad_entry, none = await h.connection.send_raw(b'{"jsonrpc":"2.0","id":true,"method":"x"}')
        assert none is None and bad_entry.kind is Kind.INVALID and "id must be" in bad_entry.problem
        _, again = await h.connection.send_raw(b'{"jsonrpc":"2.0","id":"raw-2","method":"ping"}')
        with pytest.raises(ValueError, match="already in flight"):
            await h.connection.send_raw(b'{"jsonrpc":"2.0","id":"raw-2","method":"ping"}')
        await again.cancel()


async def test_recorded_session_keeps_links_latency_and_late_flags(tmp_path) -> None:
    """The recorder sees each entry when it is appended, so links must be known by then."""
    store = TrafficStore()
    writer = SessionWriter(tmp_path / "s.jsonl", {"server": "fake"})
    store.attach_recorder(writer)
    async with harness_factory(store) as h:
        ok = await h.connection.send_request("tools/list", progress=True)
        h.transport.progress(ok.progress_token, 1)
        h.transport.reply(ok.id, {"tools": []})
        await ok.wait()
        late = await h.connection.send_request("slow", timeout=0.05)
        with pytest.raises(RequestTimeout):
            await late.wait()
        h.transport.reply(late.id, {})

        async def pong(params, entry):
            return {"roots": []}

        h.connection.handlers["roots/list"] = pong
        h.transport.feed(jsonrpc.request("srv-1", "roots/list", {}))
        await h.transport.next_sent()  # tools/list
        await h.transport.next_sent()  # slow
        await h.transport.next_sent()  # cancelled
        await h.transport.next_sent()  # our answer to roots/list
    writer.close()
    loaded = load_session(tmp_path / "s.jsonl")
    assert loaded.skipped_lines == []
    assert loaded.header["server"] == "fake"
    originals = list(store)
    copies = list(loaded.store)
    assert [e.seq for e in copies] == [e.seq for e in originals]
    for original, copy in zip(originals, copies, strict=True):
        assert (copy.kind, copy.direction, copy.raw, copy.reply_to, copy.late) == (
            original.kind,
            original.direction,
            original.raw,
            original.reply_to,
            original.late,
        ), original
        assert copy.reply_seq == original.reply_seq, original
        if original.latency_ms is not None:
            assert math.isclose(copy.latency_ms, original.latency_ms)
    replies = [e for e in copies if e.kind is Kind.RESPONSE]
    assert all(e.reply_to is not None and e.latency_ms is not None for e in replies)
    assert sum(e.late for e in copies) == 1
    progress = next(e for e in copies if e.method == "notifications/progress")
    assert progress.reply_to == ok.entry.seq


async def test_a_failing_notification_listener_does_not_break_the_connection() -> None:
    async with harness_factory() as h:

        def bad_listener(method, params, entry):
            raise RuntimeError("listener bug")

        h.connection.add_notification_listener(bad_listener)
        h.transport.feed(jsonrpc.notification("notifications/message", {"level": "info", "data": "x"}))
        note = h.store.get(h.store.last_seq)
        assert note.kind is Kind.EVENT and "listener bug" in note.text
        pending = await h.connection.send_request("ping")
        h.transport.reply(pending.id, {})
        assert await pending.wait() == {}


async def test_max_total_alone_is_a_hard_limit() -> None:
    async with harness_factory() as h:
        pending = await h.connection.send_request("work", timeout=None, max_total=0.2)
        with pytest.raises(RequestTimeout, match="maximum total time of 0.2 s") as caught:
            await pending.wait()
        assert caught.value.hard_limit and h.connection.by_id == {}


async def test_a_handler_returning_a_non_object_gives_internal_error() -> None:
    async with harness_factory() as h:

        async def forgetful(params, entry):
            return None

        h.connection.handlers["roots/list"] = forgetful
        answer = await _server_asks(h, "roots/list", 7)
        assert answer["error"]["code"] == -32603 and "returned NoneType" in answer["error"]["message"]
