"""Against the reference server, @modelcontextprotocol/server-everything (Node).

Found by the ``server_everything`` fixture in tests/conftest.py: skipped when it is
not installed, but a failure in CI (CI=true).
"""

from __future__ import annotations

import json

import anyio
import pytest
from waiting import until

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.session.events import ListChanged, SessionState
from mcp_inspector.core.session.results import decode_block_bytes
from mcp_inspector.core.traffic.entry import Direction

pytestmark = [pytest.mark.anyio, pytest.mark.everything]


async def assert_links_are_right(c) -> None:
    """Every request we sent has exactly its own response, linked both ways."""
    await until(lambda: not (c.session.connection.pending))  # a list_changed refetch may still be in flight
    store = c.store
    requests = [e for e in store if e.direction is Direction.OUT and e.kind is Kind.REQUEST]
    assert requests
    for request in requests:
        assert request.reply_seq is not None, f"no reply linked to {request.method} (seq {request.seq})"
        reply = store.get(request.reply_seq)
        assert reply.kind in (Kind.RESPONSE, Kind.ERROR) and reply.direction is Direction.IN
        assert reply.reply_to == request.seq and reply.msg_id == request.msg_id
        assert reply.latency_ms is not None and reply.latency_ms >= 0 and not reply.late
    assert not [e for e in store if e.kind is Kind.INVALID]


async def test_initialize_and_every_list(connect, server_everything) -> None:
    with anyio.fail_after(30):
        async with connect(server_everything, timeout=20) as c:
            s = c.session
            assert s.state is SessionState.READY
            assert s.protocol_version == "2025-11-25"
            assert s.server_info.get("name") and s.server_info.get("version")
            assert {"tools", "prompts", "resources", "logging"} <= set(s.capabilities)
            assert isinstance(s.instructions, str) and s.instructions

            tools = await s.list_tools()
            names = {t["name"] for t in tools}
            assert {
                "echo",
                "get-sum",
                "get-tiny-image",
                "get-structured-content",
                "trigger-long-running-operation",
            } <= names
            prompts = await s.list_prompts()
            assert "simple-prompt" in {p["name"] for p in prompts}
            resources = await s.list_resources()
            templates = await s.list_resource_templates()
            assert resources and all(isinstance(r.get("uri"), str) for r in resources)
            assert templates and all(isinstance(t.get("uriTemplate"), str) for t in templates)

            # Pagination: every page was requested, each with the cursor the previous page gave.
            for method, key in (("resources/list", "resources"), ("resources/templates/list", "resourceTemplates")):
                sent = [json.loads(e.raw) for e in c.store if e.direction is Direction.OUT and e.method == method]
                replies = [
                    json.loads(c.store.get(e.reply_seq).raw)["result"]
                    for e in c.store
                    if e.direction is Direction.OUT and e.method == method
                ]
                assert "cursor" not in (sent[0].get("params") or {})
                for previous, request in zip(replies, sent[1:], strict=False):  # the last reply has no next page
                    assert request["params"]["cursor"] == previous["nextCursor"]
                assert "nextCursor" not in replies[-1] or replies[-1]["nextCursor"] is None
                total = sum(len(r[key]) for r in replies)
                assert total == len(s.lists["resources" if key == "resources" else "resource_templates"])
            kinds = {e.kind for e in c.of_type(ListChanged)}
            assert kinds == {"tools", "prompts", "resources", "resource_templates"}
            await assert_links_are_right(c)


async def test_tools_resources_prompts_logging(connect, server_everything) -> None:
    with anyio.fail_after(40):
        async with connect(server_everything, timeout=20) as c:
            s = c.session
            await s.list_tools()

            echo = await s.call_tool("echo", {"message": "héllo ✓"})
            assert not echo.is_error and "héllo ✓" in echo.result["content"][0]["text"]

            # Progress: routed to this call by its token, with a timeout that progress keeps resetting.
            seen: list[float] = []
            long_run = await s.call_tool(
                "trigger-long-running-operation",
                {"duration": 1, "steps": 4},
                timeout=0.6,
                reset_on_progress=True,
                max_total=15,
                on_progress=lambda p: seen.append(p.progress.progress),
            )
            assert not long_run.is_error and "completed" in long_run.result["content"][0]["text"].lower()
            assert seen == [1.0, 2.0, 3.0, 4.0]
            assert long_run.request.progress.total == 4
            progress = [e for e in c.store if e.method == "notifications/progress"]
            assert len(progress) == 4 and all(e.reply_to == long_run.request.entry.seq for e in progress)

            # Structured content, validated against the tool's (draft-07) outputSchema.
            weather = await s.call_tool("get-structured-content", {"location": "Chicago"})
            schema = s.tool("get-structured-content")["outputSchema"]
            assert weather.view.output_schema == schema and weather.view.has_structured
            assert weather.view.structured_issues == []
            assert set(schema["required"]) <= set(weather.view.structured)

            image = await s.call_tool("get-tiny-image", {})
            blocks = [b for b in image.view.blocks if b.type == "image"]
            assert len(blocks) == 1 and blocks[0].problem is None and blocks[0].mime_type == "image/png"
            assert decode_block_bytes(blocks[0].block).startswith(b"\x89PNG\r\n\x1a\n")
            assert blocks[0].size == len(decode_block_bytes(blocks[0].block))

            resources = await s.list_resources()
            uri = resources[0]["uri"]
            read = await s.read_resource(uri)
            assert read["contents"][0]["uri"] == uri
            assert read["contents"][0].get("text") or read["contents"][0].get("blob")

            simple = await s.get_prompt("simple-prompt")
            assert simple["messages"][0]["role"] == "user"
            prompt_names = {p["name"]: p for p in await s.list_prompts()}
            if "args-prompt" in prompt_names:
                args = await s.get_prompt("args-prompt", {"city": "Paris", "state": "IDF"})
                assert "Paris" in json.dumps(args)

            assert await s.set_log_level("debug") == {}
            assert await s.ping() == {}
            assert c.store.method_counts["logging/setLevel"] == 1
            await assert_links_are_right(c)
