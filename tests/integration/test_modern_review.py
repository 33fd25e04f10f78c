"""Review of the 2026-07-28 era against the spec, over real pipes: each test pins a
deviation that was fixed (the spec line is in its docstring)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import PYTHON, SERVERS_DIR, raw_server_command
from waiting import until

from mcp_inspector.core.base.errors import (
    ConnectError,
    InputDeclined,
    ProtocolViolation,
    RequestCancelled,
    RpcError,
)
from mcp_inspector.core.session.answers import build_handlers
from mcp_inspector.core.session.events import SessionState
from mcp_inspector.core.traffic.entry import Direction, Kind

pytestmark = pytest.mark.anyio
MODERN = [PYTHON, str(SERVERS_DIR / "modern_raw_server.py")]
TASKS_EXT = {"io.modelcontextprotocol/tasks": {}}  # always declared (core/session/tasks.py)


def sent_methods(store) -> list[str]:
    return [json.loads(e.raw).get("method") for e in store if e.direction is Direction.OUT]


def legacy_server(tmp_path: Path, discover_reply: str) -> list[str]:
    """A legacy server that answers server/discover with ``discover_reply`` (``ID`` is
    replaced by the request's id), then does the 2025-06-18 handshake and tools/list."""
    script = tmp_path / "legacy_odd_discover.py"
    script.write_text(
        textwrap.dedent(f"""
        import json, sys
        REPLY = {discover_reply!r}
        for line in sys.stdin:
            msg = json.loads(line)
            if msg.get("method") == "server/discover":
                sys.stdout.write(REPLY.replace("ID", json.dumps(msg["id"])) + "\\n"); sys.stdout.flush()
                continue
            if msg.get("method") == "initialize":
                out = {{"jsonrpc": "2.0", "id": msg["id"], "result": {{"protocolVersion": "2025-06-18",
                       "capabilities": {{"tools": {{}}}}, "serverInfo": {{"name": "odd", "version": "1"}}}}}}
            elif "id" in msg and "method" in msg:
                out = {{"jsonrpc": "2.0", "id": msg["id"], "result": {{"tools": []}}}}
            else:
                continue
            sys.stdout.write(json.dumps(out) + "\\n"); sys.stdout.flush()
    """)
    )
    return [sys.executable, str(script)]


MALFORMED = [
    '{"jsonrpc": "2.0", "id": ID, "result": null}',
    '{"jsonrpc": "2.0", "id": ID, "result": []}',
    '{"jsonrpc": "2.0", "id": ID, "error": {"code": -32600}}',
    '{"jsonrpc": "2.0", "id": ID, "error": {"code": "Server not initialized", "message": "x"}}',
]


@pytest.mark.parametrize("reply", MALFORMED)
async def test_a_malformed_reply_to_the_probe_means_legacy(connect, tmp_path, reply):
    """stdio.mdx §Backward Compatibility: "The server returns any other error, or does not
    respond within a reasonable timeout: the server is legacy. Fall back to the initialize
    handshake." A reply that is neither a DiscoverResult nor a modern error is such an
    error; it used to fail the connect with a ProtocolViolation."""
    async with connect(legacy_server(tmp_path, reply), era="auto") as c:
        s = c.session
        assert s.era == "legacy" and s.protocol_version == "2025-06-18"
        assert "malformed reply" in s.era_reason and "fell back to initialize" in s.era_reason
        assert sent_methods(c.store)[:3] == ["server/discover", "initialize", "notifications/initialized"]
        assert await s.list_tools() == []


async def test_era_modern_and_a_malformed_probe_reply_is_a_connect_error(connect, tmp_path):
    async with connect(legacy_server(tmp_path, MALFORMED[0]), era="modern", initialize=False) as c:
        with pytest.raises(ConnectError, match="--era modern: server/discover failed.*not an object"):
            await c.session.initialize()
        assert "initialize" not in sent_methods(c.store)


async def test_a_discover_result_of_the_wrong_result_type_leaves_no_modern_session(connect, tmp_path):
    """basic/index.mdx §ResultType: input_required only on the MRTR methods, an unknown
    value is invalid. The connect fails with a ConnectError, and the session does not
    claim to be modern (it used to be left era "modern", protocol 2026-07-28, FAILED)."""
    reply = (
        '{"jsonrpc": "2.0", "id": ID, "result": {"resultType": "input_required", '
        '"supportedVersions": ["2026-07-28"], "capabilities": {}}}'
    )
    async with connect(legacy_server(tmp_path, reply), era="auto", initialize=False) as c:
        with pytest.raises(ConnectError, match="server/discover.*input_required"):
            await c.session.initialize()
        s = c.session
        assert s.state is SessionState.FAILED
        assert s.era is None and s.protocol_version is None and s.request_meta() is None


def tool_calls(store) -> list[dict]:
    return [
        json.loads(e.raw)
        for e in store
        if e.direction is Direction.OUT and e.kind is Kind.REQUEST and e.method == "tools/call"
    ]


async def ada(params, entry):
    return {"action": "accept", "content": {"name": "Ada"}}


async def test_a_declined_sampling_input_ends_the_call_without_blaming_the_server(connect):
    """client/sampling.mdx §Error Handling: "If an error occurs or the user declines the
    sampling request, the client does not need to replay the initial call". The server
    did nothing wrong, so this is not a ProtocolViolation (the CLI said "protocol error",
    exit 3 "broke the protocol"); the headless ``--sampling decline`` policy is used."""
    handlers = {"elicitation/create": ada, **build_handlers(sampling="decline")}
    async with connect(MODERN, era="auto", handlers=handlers) as c:
        with pytest.raises(InputDeclined) as caught:
            await c.session.call_tool("wizard", {})
        assert not isinstance(caught.value, ProtocolViolation)
        error = caught.value
        assert (error.method, error.key, error.input_method) == ("tools/call", "poem", "sampling/createMessage")
        assert "User rejected sampling request" in str(error) and "not retried" in str(error)
        assert len(tool_calls(c.store)) == 2  # the round that asked for the poem was the last
        assert (await c.session.call_tool("echo", {"text": "on"})).result["content"][0]["text"] == "on"


async def test_a_roots_handler_that_refuses_ends_the_call_the_same_way(connect):
    async def refuse(params, entry):
        raise RpcError(-32603, "the user would not share roots")

    async with connect(MODERN, era="auto", handlers={"roots/list": refuse}) as c:
        with pytest.raises(InputDeclined, match="roots/list input request 'roots'.*would not share"):
            await c.session.call_tool("roots", {})
        assert len(tool_calls(c.store)) == 1


def reply_to_first_call(store):
    first = next(e for e in store if e.direction is Direction.OUT and e.method == "tools/call")
    return next(e for e in store if e.direction is Direction.IN and e.reply_to == first.seq)


async def test_an_input_request_for_an_undeclared_capability_is_flagged(connect):
    """mrtr.mdx §Server Requirements: "Servers MUST NOT send an inputRequests that the
    client has not declared support for in its capabilities." Without an elicitation
    handler the client declares nothing; the elicitation is still declined (so the call
    can end), but the InputRequiredResult is marked as breaking the rule."""
    async with connect(MODERN, era="auto") as c:
        outcome = await c.session.call_tool("wizard", {})
        assert outcome.result["content"][0]["text"] == "no name (decline)"
        reply = reply_to_first_call(c.store)
        assert reply.problem is not None
        assert "'who' asks for elicitation/create, but the client did not declare elicitation" in reply.problem
        assert any(e.kind is Kind.EVENT and b"MUST NOT ask for an undeclared capability" in e.raw for e in c.store)


async def test_a_url_mode_elicitation_when_only_form_was_declared_is_flagged(connect):
    """client/elicitation.mdx §Capabilities: "Servers MUST NOT send elicitation requests
    with modes that are not supported by the client." mcp-inspector declares
    ``elicitation: {form: {}}``; the headless policy declines URL mode."""
    async with connect(MODERN, era="auto", handlers=build_handlers(elicitation="defaults")) as c:
        outcome = await c.session.call_tool("open_url", {})
        assert outcome.result["content"][0]["text"] == "url: decline"
        meta = tool_calls(c.store)[0]["params"]["_meta"]
        assert meta["io.modelcontextprotocol/clientCapabilities"] == {
            "elicitation": {"form": {}},
            "extensions": TASKS_EXT,
        }
        reply = reply_to_first_call(c.store)
        assert reply.problem is not None and "URL-mode elicitation/create" in reply.problem


async def test_a_declared_input_request_is_not_flagged(connect):
    async with connect(MODERN, era="auto", handlers={"elicitation/create": ada}) as c:
        outcome = await c.session.call_tool("slow_retry", {})
        assert outcome.result["content"][0]["text"] == "late"
        assert reply_to_first_call(c.store).problem is None


async def test_an_acknowledgment_that_leaves_things_out_is_noted(connect):
    """subscriptions.mdx §Acknowledgment: "The client SHOULD check the acknowledged filter
    against what it requested and handle any unsupported types gracefully." What the
    server left out (a list change, a subscribed URI) is said, not silently lost."""
    async with connect(MODERN + ["--mode", "ack-none"], era="auto") as c:
        s = c.session
        await until(lambda: s.subscription_ack is not None)
        assert s.subscription_ack == {}
        await s.subscribe("memo://one")
        await until(lambda: sum(b"did not acknowledge" in e.raw for e in c.store if e.kind is Kind.EVENT) == 2)
        notes = [e.raw.decode() for e in c.store if e.kind is Kind.EVENT and b"did not acknowledge" in e.raw]
        assert "toolsListChanged" in notes[0] and "memo://one" not in notes[0]
        assert "toolsListChanged, resourceSubscriptions memo://one" in notes[1]
    async with connect(MODERN, era="auto") as c:  # everything honoured: nothing to say
        await until(lambda: c.session.subscription_ack is not None)
        await c.session.subscribe("memo://one")
        await until(
            lambda: c.session.subscription_ack == {"toolsListChanged": True, "resourceSubscriptions": ["memo://one"]}
        )
        assert not any(e.kind is Kind.EVENT and b"did not acknowledge" in e.raw for e in c.store)


async def test_a_subscription_id_that_is_not_a_json_rpc_id_is_not_ours(connect):
    """subscriptions.mdx: the subscriptionId "is the JSON-RPC ID of the subscriptions/listen
    request" (a string or an integer). 3.0 used to match the listen request 3 (Python's
    3.0 == 3), and drove a refresh."""
    async with connect(MODERN + ["--mode", "float-tag"], era="auto") as c:
        s = c.session
        await s.list_tools()
        await until(lambda: s.subscription_ack is not None)
        await s.call_tool("add_tool", {"name": "stray"})
        stray = [e for e in c.store if e.method == "notifications/tools/list_changed"]
        assert len(stray) == 1 and "not tagged with the subscriptionId" in (stray[0].problem or "")
        await s.ping()
        assert [e.method for e in c.store if e.direction is Direction.OUT].count("tools/list") == 1


async def test_a_server_cancelling_anything_but_a_listen_stream_is_flagged(connect):
    """cancellation.mdx: a server "MUST send notifications/cancelled referencing a
    subscriptions/listen request ID when it tears down that subscription stream ...
    Servers MUST NOT send notifications/cancelled for any other purpose." """
    async with connect(MODERN, era="auto") as c:
        s = c.session
        await until(lambda: s.subscription_ack is not None)
        outcome = await s.call_tool("cancel_other", {})
        assert outcome.result["content"][0]["text"] == "answered anyway"
        cancelled = [e for e in c.store if e.direction is Direction.IN and e.method == "notifications/cancelled"]
        assert len(cancelled) == 1 and "references no subscriptions/listen stream" in (cancelled[0].problem or "")
        # A real teardown of the listen stream is not flagged.
        await s.call_tool("cancel_listen", {})
        await until(
            lambda: (
                len([e for e in c.store if e.direction is Direction.IN and e.method == "notifications/cancelled"]) == 2
            )
        )
        teardown = [e for e in c.store if e.direction is Direction.IN and e.method == "notifications/cancelled"][1]
        assert teardown.problem is None


async def test_a_task_result_to_a_raw_tools_call_is_shown_with_its_note_and_not_flagged(connect):
    """basic/index.mdx §ResultType: an extension's resultType is valid when the client
    advertised the extension. The client always declares io.modelcontextprotocol/tasks
    (core/session/tasks.py), so a task result to a tools/call sent raw (the composer) is
    shown as it came with its note, and the reply is not marked."""
    async with connect(MODERN, era="auto") as c:
        result = await c.session.request("tools/call", {"name": "long", "arguments": {}})
        assert result["resultType"] == "task"
        assert (
            json.loads(c.store.get(max(e.seq for e in c.store if e.method == "tools/call")).raw)["params"]["_meta"][
                "io.modelcontextprotocol/clientCapabilities"
            ]["extensions"]
            == TASKS_EXT
        )
        reply = next(e for e in c.store if e.direction is Direction.IN and b'"resultType": "task"' in e.raw)
        assert reply.problem is None
        assert any(e.kind is Kind.EVENT and b"follow it with tasks/get" in e.raw for e in c.store)


async def test_a_modern_server_too_slow_for_the_probe_is_found_by_its_initialize_error(connect):
    """versioning.mdx §Backward Compatibility: "a recognized modern JSON-RPC error (such as
    UnsupportedProtocolVersionError) identifies a modern server: the client retries with a
    supported version rather than falling back." A server still starting misses the short
    probe; its -32022 to initialize (what the official SDK answers) used to end the
    connect with that error."""
    async with connect(MODERN + ["--mode", "slow-start"], era="auto", discover_timeout=0.3) as c:
        s = c.session
        assert s.era == "modern" and s.protocol_version == "2026-07-28"
        assert "no answer within 0.3 s" in s.era_reason and "-32022" in s.era_reason
        assert s.server_info["name"] == "modern-raw-server"
        assert sent_methods(c.store)[:3] == ["server/discover", "initialize", "server/discover"]
        assert "notifications/initialized" not in sent_methods(c.store)
        assert (await s.call_tool("echo", {"text": "up"})).result["content"][0]["text"] == "up"


async def test_an_initialize_rejected_with_minus_32022_keeps_the_asked_legacy_version(connect):
    """With a legacy protocol version asked for, the era is not switched: a clear error."""
    async with connect(
        MODERN + ["--mode", "slow-start"], era="auto", protocol_version="2025-11-25", initialize=False
    ) as c:
        with pytest.raises(RpcError, match="-32022"):
            await c.session.initialize()
        assert sent_methods(c.store) == ["initialize"]


async def test_an_answers_file_sends_only_the_fields_of_the_form_asked(connect, tmp_path):
    """elicitation.mdx / schema ElicitResult.content: "The submitted form data ... Contains
    values matching the requested schema", each a string, number, boolean or string[].
    A ``--elicitation @FILE`` key the form does not have (an answer meant for another
    form, or an object) used to be sent as content too."""
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"name": "Ada", "api_token": {"secret": "s3cr3t"}, "age": 36}))
    poem = tmp_path / "poem.json"
    poem.write_text(json.dumps({"text": "roses"}))
    said: list[str] = []
    handlers = build_handlers(elicitation=f"@{answers}", sampling=f"@{poem}", report=said.append)
    async with connect(MODERN, era="auto", handlers=handlers) as c:
        outcome = await c.session.call_tool("wizard", {})
        assert outcome.result["content"][0]["text"] == "Ada: roses"
        retry = tool_calls(c.store)[1]
        assert retry["params"]["inputResponses"] == {"who": {"action": "accept", "content": {"name": "Ada"}}}
        assert b"s3cr3t" not in b"".join(e.raw for e in c.store if e.direction is Direction.OUT)
        assert said == ["elicitation/create: answers not in this requestedSchema were left out: age, api_token"]


async def test_a_cancel_while_a_retry_is_being_written_reaches_that_retry(connect):
    """cancellation.mdx: a client cancelling a request stops it (stdio: notifications/cancelled
    for the request in flight). A cancel that came while an MRTR retry was still being
    written (a large retry in a full pipe) found no retry to cancel yet and was lost: the
    call went on to its result."""
    first = []

    async def answer_then_cancel_soon(params, entry):
        async def cancel_later():
            # the retry is in the store once it is being written: 300 KB into a pipe the server
            # does not read for 1.5 s (stall-after-input), so its write is still stuck
            await until(lambda: len(tool_calls(c.store)) == 2, what="the retry being written")
            await first[0].cancel("the user pressed cancel")

        c.session.task_group.start_soon(cancel_later)
        return {"action": "accept", "content": {"name": "Ada"}}

    handlers = {"elicitation/create": answer_then_cancel_soon}
    async with connect(MODERN + ["--mode", "stall-after-input"], era="auto", handlers=handlers) as c:
        # slow_retry: one round of input, then the result
        first.append(await c.session.begin_tool_call("slow_retry", {"pad": "x" * 300_000}))
        with pytest.raises(RequestCancelled, match="the user pressed cancel"):
            await c.session.finish_tool_call(first[0])
        calls = tool_calls(c.store)
        assert len(calls) == 2  # the retry was sent, then cancelled
        cancelled = [
            json.loads(e.raw) for e in c.store if e.direction is Direction.OUT and e.method == "notifications/cancelled"
        ]
        assert [n["params"]["requestId"] for n in cancelled] == [calls[1]["id"]]


async def test_a_call_cancelled_before_its_input_is_asked_asks_nobody(connect):
    """A call cancelled once its InputRequiredResult was in, but before the input was
    gathered, used to put the elicitation to the user anyway (then drop the answer)."""

    asked = []

    async def elicit(params, entry):
        asked.append(params)
        return {"action": "accept", "content": {"name": "Ada"}}

    async with connect(MODERN, era="auto", handlers={"elicitation/create": elicit}) as c:
        first = await c.session.begin_tool_call("slow_retry", {})
        await until(lambda: first.done)
        await first.cancel("the user closed the call")
        with pytest.raises(RequestCancelled, match="the user closed the call"):
            await c.session.finish_tool_call(first)
        assert asked == [] and len(tool_calls(c.store)) == 1


async def test_a_tool_enabled_sampling_without_sampling_tools_declared_is_flagged(connect, tmp_path):
    """client/sampling.mdx: "Servers MUST NOT send tool-enabled sampling requests to Clients
    that have not declared support for tool use via the sampling.tools capability."
    mcp-inspector declares ``sampling: {}``."""
    answer = tmp_path / "plan.json"
    answer.write_text(json.dumps({"text": "step one"}))
    async with connect(MODERN, era="auto", handlers=build_handlers(sampling=f"@{answer}")) as c:
        outcome = await c.session.call_tool("sample_with_tools", {})
        assert outcome.result["content"][0]["text"] == "step one"
        assert tool_calls(c.store)[0]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] == {
            "sampling": {},
            "extensions": TASKS_EXT,
        }
        reply = reply_to_first_call(c.store)
        assert "tool-enabled sampling/createMessage, but the client did not declare sampling.tools" in (
            reply.problem or ""
        )
    async with connect(
        MODERN, era="auto", handlers={"elicitation/create": ada, **build_handlers(sampling=f"@{answer}")}
    ) as c:
        await c.session.call_tool("wizard", {})  # a plain sampling request: nothing to flag
        assert all(
            e.problem is None
            for e in c.store
            if e.direction is Direction.IN and e.method is None and e.kind is Kind.RESPONSE
        )


async def test_an_elicitation_handler_that_opens_urls_can_declare_url_mode(connect):
    """client/elicitation.mdx §Capabilities: a client declares the modes it supports
    (``{"form": {}, "url": {}}``), and servers MUST NOT send other modes. The declaration
    followed only the handler's presence (always form only), so a handler able to open
    URLs (the TUI's) could not say so; it now carries ``mcp_capability``."""

    async def visit(params, entry):
        return {"action": "accept"}  # URL mode: no content

    visit.mcp_capability = {"form": {}, "url": {}}
    async with connect(MODERN, era="auto", handlers={"elicitation/create": visit}) as c:
        outcome = await c.session.call_tool("open_url", {})
        assert outcome.result["content"][0]["text"] == "url: accept"
        caps = tool_calls(c.store)[0]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
        assert caps == {"elicitation": {"form": {}, "url": {}}, "extensions": TASKS_EXT}
        assert reply_to_first_call(c.store).problem is None  # declared: nothing to flag
    async with connect(raw_server_command(), era="legacy", handlers={"elicitation/create": visit}) as c:  # legacy too
        initialize = json.loads(next(e for e in c.store if e.method == "initialize").raw)
        assert initialize["params"]["capabilities"] == {"elicitation": {"form": {}, "url": {}}, "tasks": {}}
