"""Answering a server request (a person at an elicitation form) does not count against the
timeout of the call that is waiting for that answer (legacy era: the server asks in the middle
of our tools/call and cannot reply before we answer)."""

import anyio
import pytest
from conftest import demo_server_command

from mcp_inspector.core.base.errors import RequestTimeout
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.transport.stdio import StdioTransport

pytestmark = pytest.mark.anyio


def slow_answer(seconds: float):
    async def answer(params, entry):
        await anyio.sleep(seconds)
        return {"action": "accept", "content": {"name": "Ada"}}

    return answer


async def call_with(answer_seconds: float, timeout: float, **options):
    session = McpSession(
        StdioTransport(demo_server_command()),
        era="legacy",
        timeout=timeout,
        init_timeout=10,
        handlers={"elicitation/create": slow_answer(answer_seconds)},
    )
    async with session:
        await session.initialize()
        try:
            return await session.call_tool("ask_the_client", {"kind": "elicitation"}, **options)
        except RequestTimeout as exc:  # returned: raised, the session's task group would wrap it
            return exc


async def test_a_slow_answer_does_not_time_out_the_call_waiting_for_it():
    outcome = await call_with(answer_seconds=1.5, timeout=0.8)
    assert not isinstance(outcome, RequestTimeout), outcome
    assert not outcome.is_error, outcome.result


async def test_the_hard_maximum_still_applies_while_answering():
    outcome = await call_with(answer_seconds=3.0, timeout=0.8, max_total=1.0)
    assert isinstance(outcome, RequestTimeout) and outcome.hard_limit
