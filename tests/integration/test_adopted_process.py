"""A server started before the event loop (the CLI's early start) is driven by the same transport."""

from __future__ import annotations

import os
import subprocess

import anyio
import pytest
from conftest import raw_server_command

from mcp_inspector.core.base.errors import ConnectionLost
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.started import StartedServer
from mcp_inspector.core.transport.stdio import StdioTransport


def _popen(command: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )


def test_adopted_process_handshake_call_stderr_and_clean_exit():
    command = raw_server_command("stderr-chatter")
    popen = _popen(command)

    async def body():
        transport = StdioTransport(command, started=StartedServer(popen, None))
        async with McpSession(transport) as session:
            await session.initialize()
            outcome = await session.call_tool("add", {"a": 2, "b": 3})
            assert outcome.result["content"][0]["text"] == "5"
            await anyio.sleep(0.1)
        return session.store

    store = anyio.run(body)
    assert popen.poll() == 0, "closing stdin lets the server exit on its own"
    assert store.kind_counts[Kind.STDERR] >= 2
    assert any(e.kind is Kind.EVENT and (e.meta or {}).get("closed") for e in store)


def test_adopted_process_crash_fails_the_call_at_once():
    command = raw_server_command("crash-on-call")
    popen = _popen(command)

    async def body():
        async with McpSession(StdioTransport(command, started=StartedServer(popen, None)), timeout=30) as session:
            await session.initialize()
            with anyio.fail_after(30):
                with pytest.raises(ConnectionLost) as caught:
                    await session.call_tool("echo", {"text": "x"})
            return caught.value

    error = anyio.run(body)
    assert error.exit_code == 3
    assert any("boom" in line for line in error.stderr_tail)


def test_adopted_process_that_ignores_eof_is_killed_and_reaped():
    command = raw_server_command("no-exit-on-eof")
    popen = _popen(command)

    async def body():
        transport = StdioTransport(command, started=StartedServer(popen, None), close_grace=0.3, term_grace=0.3)
        async with McpSession(transport) as session:
            await session.initialize()

    anyio.run(body)
    assert popen.poll() is not None
    with pytest.raises(ProcessLookupError):
        os.kill(popen.pid, 0)
