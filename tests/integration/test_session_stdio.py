"""McpSession over real pipes: handshake, pagination, list_changed, progress,
cancellation, server-to-client requests, odd frames, tool results."""

from __future__ import annotations

import json
import sys

import anyio
import pytest
from waiting import until

from mcp_inspector.core.base.errors import ConnectError, RequestCancelled, RequestTimeout, RpcError
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.session.events import ListChanged, LogMessage, SessionState, StateChanged
from mcp_inspector.core.session.listing import PaginationError
from mcp_inspector.core.traffic.entry import Direction

pytestmark = pytest.mark.anyio

# A server that always picks 2024-11-05, whatever the client proposes.
OLD_SERVER = r"""
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        result = {"protocolVersion": "2024-11-05", "capabilities": {}, "serverInfo": {"name": "old", "version": "0.1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
    elif "id" in msg and "method" in msg:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {}}), flush=True)
"""


def sent_messages(store, method: str) -> list[dict]:
    return [json.loads(e.raw) for e in store if e.direction is Direction.OUT and e.method == method]


def text_of(outcome) -> str:
    return outcome.result["content"][0]["text"]


async def test_handshake_proposes_latest_and_keeps_what_the_server_said(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server()) as c:
            s = c.session
            init = sent_messages(c.store, "initialize")[0]["params"]
            assert init["protocolVersion"] == "2025-11-25"
            assert init["clientInfo"]["name"] == "mcp-inspector"
            assert s.protocol_version == "2025-11-25"
            assert s.server_info == {"name": "raw-server", "version": "1.0.0"}
            assert s.capabilities == {"tools": {"listChanged": True}}
            assert s.instructions == "Raw fixture server ✓"
            assert s.initialize_result["serverInfo"]["name"] == "raw-server"
            assert s.state is SessionState.READY
            outgoing = [e.method for e in c.store if e.direction is Direction.OUT]
            assert outgoing[:2] == ["initialize", "notifications/initialized"]
            states = [e.state for e in c.of_type(StateChanged)]
            assert states == [SessionState.CONNECTING, SessionState.INITIALIZING, SessionState.READY]


async def test_an_older_version_picked_by_the_server_is_accepted(connect) -> None:
    with anyio.fail_after(60):
        async with connect([sys.executable, "-c", OLD_SERVER]) as c:
            assert sent_messages(c.store, "initialize")[0]["params"]["protocolVersion"] == "2025-11-25"
            assert c.session.protocol_version == "2024-11-05"
            assert c.session.server_info["name"] == "old" and c.session.instructions is None
            assert await c.session.ping() == {}


async def test_proposing_an_older_version_negotiates_it(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server(), protocol_version="2025-03-26") as c:
            assert sent_messages(c.store, "initialize")[0]["params"]["protocolVersion"] == "2025-03-26"
            assert c.session.protocol_version == "2025-03-26"


async def test_unsupported_version_fails_clearly(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("unsupported-version"), initialize=False) as c:
            with pytest.raises(ConnectError) as caught:
                await c.session.initialize()
            message = str(caught.value)
            assert "'1999-01-01'" in message and "does not support" in message and "2025-11-25" in message
            assert c.session.state is SessionState.FAILED and c.session.protocol_version is None
            assert sent_messages(c.store, "notifications/initialized") == []


async def test_2000_tools_in_pages_are_all_fetched(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("paged-tools", tools=2000, page_size=100)) as c:
            tools = await c.session.list_tools()
            assert [t["name"] for t in tools] == [f"tool_{i:04d}" for i in range(2000)]
            requests = sent_messages(c.store, "tools/list")
            assert len(requests) == 20
            assert "params" not in requests[0] and requests[1]["params"] == {"cursor": "page-100"}
            event = c.of_type(ListChanged)[-1]
            assert event.kind == "tools" and event.cause == "initial" and len(event.diff.added) == 2000
            assert text_of(await c.session.call_tool("tool_1999", {})) == "tool_1999"
            assert c.session.tool("tool_0500")["description"] == "Generated tool 500"


async def test_cursor_loop_is_detected(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("cursor-loop")) as c:
            with pytest.raises(PaginationError, match="cursor loop") as caught:
                await c.session.list_tools()
            assert len(sent_messages(c.store, "tools/list")) == 2
            assert len(caught.value.items) == 6  # what was fetched is kept
            event = c.of_type(ListChanged)[-1]
            assert "cursor loop" in event.error and len(event.items) == 6


async def test_list_changed_refetches_and_reports_the_diff(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("list-changed")) as c:
            await c.session.list_tools()
            assert text_of(await c.session.call_tool("mutate", {})) == "mutated"
            await until(lambda: [e for e in c.of_type(ListChanged) if e.cause == "notification"])
            event = [e for e in c.of_type(ListChanged) if e.cause == "notification"][0]
            assert event.kind == "tools"
            assert [t["name"] for t in event.diff.added] == ["new_tool"]
            assert [t["name"] for t in event.diff.removed] == ["echo"]
            assert [(ch.name, ch.fields) for ch in event.diff.changed] == [("add", ["description", "inputSchema"])]
            assert "Add three numbers" in event.diff.changed[0].field_diff("description")
            assert c.session.tool("echo") is None and c.session.tool("new_tool") is not None
            assert {t["name"] for t in c.session.lists["tools"]} == {"add", "slow", "mutate", "new_tool"}
            # The argument check uses the new schema.
            assert [i.message for i in c.session.check_arguments("add", {"a": 1, "b": 2})] == [
                "'c' is a required property"
            ]


async def test_many_calls_in_flight_answer_out_of_order(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server()) as c:
            await c.session.list_tools()
            durations = [0.6, 0.1, 0.4, 0.2]
            pendings = [await c.session.begin_tool_call("slow", {"seconds": d}) for d in durations]
            assert await c.session.ping() == {}  # not blocked by four calls in flight
            outcomes = [await c.session.finish_tool_call(p) for p in pendings]
            assert [text_of(o) for o in outcomes] == [f"slept {d}" for d in durations]
            reply_order = sorted(pendings, key=lambda p: p.reply.seq)
            assert [p.params["arguments"]["seconds"] for p in reply_order] == sorted(durations)


async def test_progress_over_pipes_resets_timeout(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server()) as c:
            await c.session.list_tools()
            seen: list[float] = []
            outcome = await c.session.call_tool(
                "slow",
                {"seconds": 1.0},
                timeout=0.4,
                reset_on_progress=True,
                on_progress=lambda p: seen.append(p.progress.progress),
            )
            assert text_of(outcome) == "slept 1.0"
            assert outcome.elapsed_ms > 900
            assert seen == sorted(seen) and len(seen) >= 5
            progress_entries = [e for e in c.store if e.method == "notifications/progress"]
            assert progress_entries and all(e.reply_to == outcome.request.entry.seq for e in progress_entries)


async def test_progress_with_hard_maximum_over_pipes(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server()) as c:
            # the server works for 30 s: a timeout (not its result) proves the limit fired first
            pending = await c.session.begin_tool_call(
                "slow", {"seconds": 30}, timeout=0.4, reset_on_progress=True, max_total=1.0
            )
            with pytest.raises(RequestTimeout) as caught:
                await pending.wait()
            assert caught.value.hard_limit and pending.result is None
            assert 0.9 < pending.elapsed < 30  # not before the hard maximum; the upper bound is loose
            assert pending.progress_count >= 2  # progress kept resetting the 0.4 s timeout past 1 s


async def test_cancel_a_running_call(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server()) as c:
            pending = await c.session.begin_tool_call("slow", {"seconds": 5})
            # sent: the server reads the call before the cancellation that follows it on the same pipe
            await pending.cancel("user pressed Esc")
            with pytest.raises(RequestCancelled, match="user pressed Esc"):
                await pending.wait()
            await until(lambda: any(e.text == f"cancelled {pending.id}" for e in c.store if e.kind is Kind.STDERR))
            cancel = sent_messages(c.store, "notifications/cancelled")
            assert cancel == [
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": pending.id, "reason": "user pressed Esc"},
                }
            ]
            assert await c.session.ping() == {}


async def test_server_to_client_requests(connect, raw_server) -> None:
    async def roots(params, entry):
        return {"roots": [{"uri": "file:///work", "name": "work"}]}

    with anyio.fail_after(60):
        async with connect(raw_server("server-requests"), handlers={"roots/list": roots}) as c:
            init = sent_messages(c.store, "initialize")[0]["params"]
            assert init["capabilities"] == {"roots": {"listChanged": True}, "tasks": {}}
            answers = json.loads(text_of(await c.session.call_tool("ask", {})))
            assert answers["ping"]["result"] == {}
            assert answers["roots"]["result"] == {"roots": [{"uri": "file:///work", "name": "work"}]}
            assert answers["custom"]["error"]["code"] == -32601
            incoming = [e for e in c.store if e.direction is Direction.IN and e.kind is Kind.REQUEST]
            assert [e.method for e in incoming] == ["ping", "roots/list", "custom/thing"]
            assert all(c.store.get(e.reply_seq).reply_to == e.seq for e in incoming)


async def test_bad_frames_are_classified_and_the_session_goes_on(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("bad-frames")) as c:
            assert await c.session.ping() == {}
            await until(
                lambda: any(b"x-unknown" in e.raw for e in c.store)
            )  # the frame with unknown fields is the last bad one sent
            incoming = [e for e in c.store if e.direction is Direction.IN and e.kind not in (Kind.STDERR, Kind.EVENT)]
            problems = {e.raw: (e.kind, e.problem) for e in incoming}
            assert problems[b'{"jsonrpc":"2.0","id":true,"method":"ping"}'][0] is Kind.INVALID
            assert "got true" in problems[b'{"jsonrpc":"2.0","id":true,"method":"ping"}'][1]
            assert "got 1.5" in problems[b'{"jsonrpc":"2.0","id":1.5,"result":{}}'][1]
            both = next(e for e in incoming if e.msg_id == 999999)
            assert both.kind is Kind.INVALID and "both result and error" in both.problem
            v1 = next(e for e in incoming if b'"1.0"' in e.raw)
            assert v1.kind is Kind.INVALID and 'jsonrpc must be "2.0"' in v1.problem
            assert [e.kind for e in incoming if e.raw.startswith(b"[")] == [Kind.BATCH]
            assert problems[b"42"] == (Kind.INVALID, "not a JSON object (int)")
            extra = next(e for e in incoming if b"x-unknown" in e.raw)
            assert extra.kind is Kind.NOTIFICATION and extra.problem == "unknown envelope fields: extra, x-unknown"
            # The invalid `id: true` ping is not answered as if it were valid.
            assert not [e for e in c.store if e.direction is Direction.OUT and e.msg_id is True]
            assert await c.session.ping() == {}


async def test_is_error_is_a_result_not_an_exception(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("is-error")) as c:
            await c.session.list_tools()
            outcome = await c.session.call_tool("echo", {"text": "x"})
            assert outcome.is_error and text_of(outcome) == "bad"


async def test_unknown_tool_is_an_rpc_error(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server()) as c:
            with pytest.raises(RpcError) as caught:
                await c.session.call_tool("nope", {})
            assert caught.value.code == -32602 and "Unknown tool: nope" in caught.value.message


async def test_structured_output_is_validated(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("structured")) as c:
            await c.session.list_tools()
            paris = await c.session.call_tool("weather", {"city": "Paris"})
            assert paris.view.structured == {"city": "Paris", "temperature": 21.5, "conditions": "sunny"}
            assert paris.view.structured_issues == []
            london = await c.session.call_tool("weather", {"city": "London"})
            assert [(i.path, i.message) for i in london.view.structured_issues] == [
                ("$", "'temperature' is a required property")
            ]
            wrong_args = await c.session.call_tool("weather", {"town": "Paris"})
            assert [i.message for i in wrong_args.argument_issues] == ["'city' is a required property"]


async def test_sdk_server_end_to_end(connect, sdk_server) -> None:
    """A well-behaved server built on the official SDK, which answers concurrently."""
    with anyio.fail_after(30):
        async with connect(sdk_server) as c:
            s = c.session
            assert s.server_info["name"] == "sdk-fixture"
            assert {"tools", "prompts", "resources", "logging"} <= set(s.capabilities)
            assert {t["name"] for t in await s.list_tools()} >= {
                "add",
                "greet",
                "progress_task",
                "log_messages",
                "fail",
            }
            assert [p["name"] for p in await s.list_prompts()] == ["review_code"]
            assert [r["uri"] for r in await s.list_resources()] == ["info://server"]
            assert [t["uriTemplate"] for t in await s.list_resource_templates()] == ["greeting://{name}"]

            added = await s.call_tool("add", {"a": 2, "b": 3})
            assert added.view.structured == {"sum": 5} and added.view.structured_issues == []

            # Three calls in flight, answered in order of their length, not of sending.
            steps = (6, 1, 3)
            pendings = [await s.begin_tool_call("progress_task", {"steps": n, "delay": 0.08}) for n in steps]
            outcomes = [await s.finish_tool_call(p) for p in pendings]
            assert [text_of(o) for o in outcomes] == [f"done {n} steps" for n in steps]
            assert [p.progress_count for p in pendings] == list(steps)
            assert pendings[1].reply.seq < pendings[2].reply.seq < pendings[0].reply.seq

            failed = await s.call_tool("fail", {"message": "nope"})
            assert failed.is_error and "nope" in text_of(failed)

            assert await s.set_log_level("warning") == {}
            logged = await s.call_tool("log_messages", {})
            assert text_of(logged) == "logged 2"
            assert [(e.level, e.data) for e in c.of_type(LogMessage)] == [
                ("warning", "warning message"),
                ("error", "error message"),
            ]
            assert (await s.read_resource("greeting://Ada"))["contents"][0]["text"] == "Hello, Ada!"
            prompt = await s.get_prompt("review_code", {"code": "x = 1"})
            assert "x = 1" in prompt["messages"][0]["content"]["text"]
