"""Multi Round-Trip Requests over real pipes against tests/servers/modern_raw_server.py:
the retries (new ids, the original params, inputResponses under the same keys,
requestState echoed unchanged), the grouping meta on each retry's entry, the
InputRequested events, declining without a handler, and the bounds."""

from __future__ import annotations

import json

import anyio
import pytest
from conftest import PYTHON, SERVERS_DIR
from waiting import until

from mcp_inspector.core.base.errors import ProtocolViolation, RequestCancelled
from mcp_inspector.core.session.events import InputRequested
from mcp_inspector.core.session.mrtr import MAX_ROUNDS, MrtrError
from mcp_inspector.core.traffic.entry import Direction, Kind

pytestmark = pytest.mark.anyio
MODERN = [PYTHON, str(SERVERS_DIR / "modern_raw_server.py")]


async def elicit(params, entry):
    assert params["message"] == "Your name?"
    return {"action": "accept", "content": {"name": "Ada"}}


async def sample(params, entry):
    return {"role": "assistant", "content": {"type": "text", "text": "roses are red"}, "model": "test"}


def calls(store) -> list:
    return [e for e in store if e.direction is Direction.OUT and e.kind is Kind.REQUEST and e.method == "tools/call"]


def results(store) -> dict:
    return {
        json.loads(e.raw)["id"]: json.loads(e.raw)["result"]
        for e in store
        if e.direction is Direction.IN and e.kind is Kind.RESPONSE
    }


async def test_two_rounds_of_input_then_the_result(connect):
    handlers = {"elicitation/create": elicit, "sampling/createMessage": sample}
    async with connect(MODERN, era="auto", handlers=handlers) as c:
        outcome = await c.session.call_tool("wizard", {"style": "short"})
        assert outcome.result["content"][0]["text"] == "Ada: roses are red"
        assert not outcome.is_error
        entries = calls(c.store)
        assert len(entries) == 3 and [p.entry for p in outcome.rounds] == entries
        assert outcome.request is outcome.rounds[0]
        frames = [json.loads(e.raw) for e in entries]
        ids = [f["id"] for f in frames]
        assert len(set(ids)) == 3
        for frame in frames:  # the original params every time
            assert frame["params"]["name"] == "wizard" and frame["params"]["arguments"] == {"style": "short"}
        assert "inputResponses" not in frames[0]["params"] and "requestState" not in frames[0]["params"]
        replies = results(c.store)
        first, second = replies[ids[0]], replies[ids[1]]
        assert frames[1]["params"]["inputResponses"] == {"who": {"action": "accept", "content": {"name": "Ada"}}}
        assert frames[1]["params"]["requestState"] == first["requestState"]
        assert set(frames[2]["params"]["inputResponses"]) == {"poem"}
        assert frames[2]["params"]["requestState"] == second["requestState"]
        # Each retry's entry is grouped under the first request.
        assert entries[0].meta is None
        assert [e.meta for e in entries[1:]] == [{"mrtr": {"first": entries[0].seq, "round": n}} for n in (1, 2)]
        events = c.of_type(InputRequested)
        assert [(e.round, list(e.requests), e.first_seq) for e in events] == [
            (1, ["who"], entries[0].seq),
            (2, ["poem"], entries[0].seq),
        ]
        # Every retry carries the modern _meta too (the server checks it).
        assert all("io.modelcontextprotocol/protocolVersion" in f["params"]["_meta"] for f in frames)


async def test_begin_and_finish_keep_working_for_the_tui(connect):
    handlers = {"elicitation/create": elicit, "sampling/createMessage": sample}
    async with connect(MODERN, era="auto", handlers=handlers) as c:
        pending = await c.session.begin_tool_call("wizard", {})
        outcome = await c.session.finish_tool_call(pending)
        assert outcome.request is pending and len(outcome.rounds) == 3
        assert outcome.result["content"][0]["text"] == "Ada: roses are red"


async def test_without_an_elicitation_handler_the_input_is_declined(connect):
    async with connect(MODERN, era="auto") as c:
        outcome = await c.session.call_tool("wizard", {})
        assert outcome.result["content"][0]["text"] == "no name (decline)"
        retry = json.loads(calls(c.store)[1].raw)
        assert retry["params"]["inputResponses"] == {"who": {"action": "decline"}}
        assert any(e.kind is Kind.EVENT and b"declined" in e.raw for e in c.store)


async def test_an_input_the_client_cannot_answer_is_a_clear_error(connect):
    async with connect(MODERN, era="auto", handlers={"elicitation/create": elicit}) as c:
        with pytest.raises(MrtrError, match="asked for sampling/createMessage.*did not declare"):
            await c.session.call_tool("wizard", {})
        assert len(calls(c.store)) == 2  # no third request was sent


async def test_roots_are_asked_through_mrtr(connect):
    async def roots(params, entry):
        return {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}

    async with connect(MODERN, era="auto", handlers={"roots/list": roots}) as c:
        outcome = await c.session.call_tool("roots", {})
        assert outcome.result["content"][0]["text"] == "2 roots"
        meta = json.loads(calls(c.store)[0].raw)["params"]["_meta"]
        assert meta["io.modelcontextprotocol/clientCapabilities"] == {
            "roots": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        }


async def test_endless_input_required_stops_after_the_bound(connect):
    async with connect(MODERN + ["--mode", "endless"], era="auto") as c:
        with pytest.raises(ProtocolViolation, match=f"still asked for input after {MAX_ROUNDS} rounds"):
            await c.session.call_tool("wizard", {})
        entries = calls(c.store)
        assert len(entries) == MAX_ROUNDS + 1
        states = [json.loads(e.raw)["params"].get("requestState") for e in entries]
        assert states[0] is None and len(set(states[1:])) == 1
        # A requestState alone: no inputResponses are sent.
        assert all("inputResponses" not in json.loads(e.raw)["params"] for e in entries)


async def test_cancelling_the_first_request_stops_the_rounds(connect):
    first = []

    async def cancel_while_asked(params, entry):
        await first[0].cancel("the user closed the dialog")
        return {"action": "accept", "content": {"name": "Ada"}}

    async with connect(MODERN, era="auto", handlers={"elicitation/create": cancel_while_asked}) as c:
        first.append(await c.session.begin_tool_call("wizard", {}))
        with pytest.raises(RequestCancelled, match="the user closed the dialog"):
            await c.session.finish_tool_call(first[0])
        assert len(calls(c.store)) == 1  # no retry was sent
        # The session goes on.
        assert (await c.session.call_tool("echo", {"text": "still"})).result["content"][0]["text"] == "still"


async def test_cancelling_reaches_the_retry_in_flight(connect):
    """Cancelling the first request while its retry is in flight cancels the retry
    (notifications/cancelled names the retry's id)."""
    async with connect(MODERN, era="auto", handlers={"elicitation/create": elicit}) as c:
        pending = await c.session.begin_tool_call("slow_retry", {})
        async with anyio.create_task_group() as tg:
            failures = []

            async def finish():
                try:
                    await c.session.finish_tool_call(pending)
                except RequestCancelled as exc:
                    failures.append(exc)

            tg.start_soon(finish)
            await until(lambda: not (len(calls(c.store)) < 2))
            assert pending.successor is not None
            await pending.cancel("enough")
        assert len(failures) == 1
        retry_id = json.loads(calls(c.store)[1].raw)["id"]
        cancelled = [
            json.loads(e.raw) for e in c.store if e.direction is Direction.OUT and e.method == "notifications/cancelled"
        ]
        assert [m["params"]["requestId"] for m in cancelled] == [retry_id]


async def test_prompts_get_and_resources_read_answer_input_requests_too(connect):
    async with connect(MODERN, era="auto", handlers={"elicitation/create": elicit}) as c:
        prompt = await c.session.get_prompt("greet", {"tone": "warm"})
        assert prompt["messages"][0]["content"]["text"] == "hello Ada"
        read = await c.session.read_resource("memo://ask")
        assert read["contents"][0]["text"] == "hello Ada"
        sent = [
            json.loads(e.raw)
            for e in c.store
            if e.direction is Direction.OUT and e.kind is Kind.REQUEST and e.method in ("prompts/get", "resources/read")
        ]
        assert [(m["method"], "inputResponses" in m["params"]) for m in sent] == [
            ("prompts/get", False),
            ("prompts/get", True),
            ("resources/read", False),
            ("resources/read", True),
        ]
        assert sent[1]["params"]["arguments"] == {"tone": "warm"} and sent[3]["params"]["uri"] == "memo://ask"
        assert len(c.of_type(InputRequested)) == 2
        # begin_request/finish_request (the CLI's read and get) do the same.
        pending = await c.session.begin_request("resources/read", {"uri": "memo://ask"})
        assert (await c.session.finish_request(pending))["contents"][0]["text"] == "hello Ada"
        assert pending.successor is not None and pending.successor.done
