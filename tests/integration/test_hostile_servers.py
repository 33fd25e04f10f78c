"""Servers that try hard to break the client: each case once crashed it, hung it or lost data."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import PYTHON, RAW_SERVER, run_async
from waiting import until

from mcp_inspector.core.base.errors import ConnectionLost
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.traffic.loading import load_session
from mcp_inspector.core.traffic.recording import SessionWriter
from mcp_inspector.core.transport.stdio import StdioTransport

# A tiny server skeleton: answers initialize, then runs the case's `behave(message)`.
SKELETON = """
import json, os, sys, time
def send(obj): sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
def answer(msg, result): send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
%s
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        info = {"name": "hostile", "version": "1"}
        answer(msg, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info})
    else:
        behave(msg)
"""


def server(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "hostile_server.py"
    script.write_text(SKELETON % textwrap.dedent(body))
    return [PYTHON, str(script)]


def test_lone_surrogates_in_method_and_id_are_recorded_and_answered(tmp_path):
    command = server(
        tmp_path,
        r"""
        def behave(msg):
            if msg.get("method") == "tools/list":
                sys.stdout.write('{"jsonrpc":"2.0","method":"notifications/\\ud800"}\n')
                sys.stdout.write('{"jsonrpc":"2.0","id":"\\udfff","method":"ping"}\n')
                answer(msg, {"tools": []})
            elif "result" in msg:
                print("got reply " + json.dumps(msg), file=sys.stderr, flush=True)
    """,
    )
    record = tmp_path / "session.jsonl"

    async def body():
        writer = SessionWriter(record)
        session = McpSession(StdioTransport(command))
        session.store.attach_recorder(writer)
        async with session:
            await session.initialize()
            assert await session.list_tools() == []
            await until(lambda: any(e.kind is Kind.STDERR and b"got reply" in e.raw for e in session.store))
        writer.close()
        return session.store

    store = run_async(body)
    replies = [e for e in store if e.kind is Kind.STDERR and b"got reply" in e.raw]
    assert b'"id": "\\udfff"' in replies[0].raw, "our ping reply echoes the id exactly (as a JSON escape)"
    loaded = load_session(record)
    assert not loaded.skipped_lines
    assert [e.method for e in loaded.store if e.kind is Kind.NOTIFICATION and e.direction.value == "in"] == [
        "notifications/\ud800"
    ]
    assert loaded.store.total == store.total


def test_a_server_that_stops_reading_cannot_hang_a_request(tmp_path):
    command = server(
        tmp_path,
        """
        def behave(msg):
            time.sleep(60)  # never reads stdin again
    """,
    )

    async def body():
        async with McpSession(
            StdioTransport(command, write_stall=1.0, close_grace=0.2, term_grace=0.2), timeout=1.0, era="legacy"
        ) as session:
            await session.initialize()
            await session.connection.notify("notifications/initialized")
            started = time.perf_counter()
            with pytest.raises(ConnectionLost, match="has not read its input"):
                await session.call_tool("big", {"blob": "x" * 2_000_000})
            return time.perf_counter() - started, session.store

    seconds, store = run_async(body, timeout=60)
    assert seconds < 30  # a loose bound: the stall detection ended the call, it did not hang
    assert any(e.problem == "not delivered" for e in store), "the failure is in the timeline (and any recording)"


def test_null_meta_in_a_raw_request_is_sent(tmp_path):
    command = server(
        tmp_path,
        """
        def behave(msg):
            if "id" in msg:
                answer(msg, {"tools": []})
    """,
    )

    async def body():
        async with McpSession(StdioTransport(command)) as session:
            await session.initialize()
            entry, pending = await session.connection.send_raw(
                b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":null}}'
            )
            return await pending.wait()

    assert run_async(body) == {"tools": []}


def test_a_failing_listener_does_not_stop_the_reader(tmp_path):
    command = server(
        tmp_path,
        """
        def behave(msg):
            if "id" in msg:
                answer(msg, {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]})
    """,
    )

    async def body():
        async with McpSession(StdioTransport(command)) as session:
            session.add_listener(lambda event: 1 / 0)
            session.store.add_listener(lambda entry: [][1])
            await session.initialize()
            tools = await session.list_tools()
            return tools, session.store

    tools, store = run_async(body)
    assert [t["name"] for t in tools] == ["a"]
    notes = [e.text for e in store if e.kind is Kind.EVENT and (e.meta or {}).get("listener_error")]
    assert any("ZeroDivisionError" in n for n in notes) and any("IndexError" in n for n in notes)


def cli(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mcp_inspector", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def test_cli_usage_error_after_an_early_start_leaves_no_server_running(tmp_path):
    pidfile = tmp_path / "pid"
    result = cli(
        "tools",
        "--record",
        "/proc/nope/x.jsonl",
        "--",
        "sh",
        "-c",
        f"echo $$ > {pidfile}; exec {PYTHON} {RAW_SERVER} --mode no-exit-on-eof",
    )
    assert result.returncode == 64, result.stderr
    deadline = time.time() + 5
    while not pidfile.exists() and time.time() < deadline:
        time.sleep(0.02)
    pid = int(pidfile.read_text())
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail("the early-started server was left running")


def test_cli_tools_survives_malformed_annotations(tmp_path):
    command = server(
        tmp_path,
        """
        def behave(msg):
            if "id" in msg:
                answer(msg, {"tools": [{"name": "odd", "inputSchema": {"type": "object"}, "annotations": "nope"}]})
    """,
    )
    result = cli("tools", "--", *command)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("odd()")


def test_cli_call_still_sends_when_the_schema_lookup_times_out(tmp_path):
    command = server(
        tmp_path,
        """
        def behave(msg):
            if msg.get("method") == "tools/call":
                answer(msg, {"content": [{"type": "text", "text": "called"}]})
    """,
    )
    result = cli("call", "anything", "--timeout", "1", "--", *command)
    assert result.returncode == 0, result.stderr
    assert "called" in result.stdout
    assert "warning" in result.stderr
