"""The frame path against a real misbehaving server over real pipes: line caps,
deep frames, replies racing their request, duplicate replies, batches after
2025-06-18, early server requests, and a clean exit when a detached grandchild
holds the pipes (tests/servers/frame_path_server.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import anyio
import pytest
from conftest import PYTHON, SERVERS_DIR
from waiting import until

from mcp_inspector.core.base.errors import ConnectionLost, ProtocolViolation
from mcp_inspector.core.base.framing import OVERLONG_HEAD
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.transport.stdio import MAX_STDERR_LINE_BYTES, StdioTransport

pytestmark = pytest.mark.anyio

SERVER = SERVERS_DIR / "frame_path_server.py"
MiB = 1 << 20


def command(*flags: str) -> list[str]:
    return [PYTHON, str(SERVER), *flags]


@asynccontextmanager
async def session(*flags: str, version: str = "2025-11-25", **transport_options):
    transport = StdioTransport(command(*flags), **transport_options)
    async with McpSession(transport, protocol_version=version) as s:
        await s.initialize()
        yield s, transport


def text_of(outcome) -> str:
    return outcome.result["content"][0]["text"]


async def test_a_line_over_the_cap_is_recorded_too_long_and_the_next_frame_is_answered() -> None:
    with anyio.fail_after(60):
        async with session(max_line_bytes=MiB) as (s, transport):
            outcome = await s.call_tool("long", {"bytes": 10 * 1024 * 1024})
            assert text_of(outcome) == "after long"
            [invalid] = [e for e in s.store if e.kind is Kind.INVALID]
            assert invalid.problem == f"too long: {10 * 1024 * 1024} bytes (cap {MiB})"
            assert invalid.raw == b"x" * OVERLONG_HEAD
            assert invalid.meta == {"truncated": True, "size": 10 * 1024 * 1024, "cap": MiB}
            # Memory stayed bounded: the framer never held more than the cap.
            assert transport.stdout_framer.max_held <= MiB
            assert text_of(await s.call_tool("echo", {"text": "still"})) == "still"


async def test_a_reply_over_the_cap_fails_its_request_at_once_and_is_linked() -> None:
    with anyio.fail_after(60):
        async with session(max_line_bytes=MiB) as (s, transport):
            with pytest.raises(ProtocolViolation, match="too long: "):
                await s.connection.request(
                    "tools/call", {"name": "huge", "arguments": {"bytes": 3 * MiB}}, timeout=None
                )
            request = next(e for e in s.store if e.method == "tools/call")
            reply = next(e for e in s.store if e.kind is Kind.INVALID)
            assert reply.reply_to == request.seq and request.reply_seq == reply.seq
            assert reply.meta["truncated"] and reply.meta["size"] > 3 * MiB
            assert transport.stdout_framer.max_held <= MiB
            assert text_of(await s.call_tool("echo", {"text": "next"})) == "next"


async def test_a_long_stderr_line_is_cut_and_not_quoted_whole() -> None:
    with anyio.fail_after(60):
        async with session() as (s, transport):
            assert text_of(await s.call_tool("long", {"bytes": 5 * MiB, "stream": "stderr"})) == "after long"
            await until(lambda: any(e.kind is Kind.STDERR for e in s.store))
            [line] = [e for e in s.store if e.kind is Kind.STDERR]
            assert len(line.raw) == OVERLONG_HEAD
            assert line.meta == {"truncated": True, "size": 5 * MiB, "cap": MAX_STDERR_LINE_BYTES}
            assert transport.stderr_framer.max_held <= MAX_STDERR_LINE_BYTES
            assert all(len(text) < 1000 for text in transport.stderr_tail)
            # A crash right after a 3 MB stderr line: the error quotes it cut.
            with pytest.raises(ConnectionLost) as caught:
                await s.call_tool("crash", {"bytes": 3 * MiB})
            assert caught.value.exit_code == 3
            assert len(str(caught.value)) < 2000
            assert caught.value.stderr_tail and all(len(t) < 1000 for t in caught.value.stderr_tail)


async def test_a_frame_nested_1000_deep_is_invalid_and_the_session_goes_on() -> None:
    with anyio.fail_after(30):
        async with session() as (s, _):
            assert text_of(await s.call_tool("deep", {"depth": 1000})) == "after deep"
            [deep] = [e for e in s.store if e.kind is Kind.INVALID]
            assert deep.raw == b"[" * 1000 and deep.problem == "nested deeper than 128 levels"
            assert text_of(await s.call_tool("echo", {"text": "after"})) == "after"


@pytest.mark.parametrize("id_last", [False, True], ids=["id first", "id after the result"])
async def test_a_reply_too_deep_to_parse_fails_its_request_at_once_and_is_linked(id_last: bool) -> None:
    """Issue 19 item 15: only the depth is wrong, so the frame has no parsed id; its top level is
    scanned for one, and the request fails now (a ProtocolViolation), not at its timeout."""
    with anyio.fail_after(60):
        async with session() as (s, _):
            with pytest.raises(ProtocolViolation, match="nested deeper than 128 levels"):
                await s.connection.request(
                    "tools/call", {"name": "deep-reply", "arguments": {"depth": 1000, "id_last": id_last}}, timeout=None
                )
            request = next(e for e in s.store if e.method == "tools/call")
            reply = next(e for e in s.store if e.kind is Kind.INVALID)
            assert reply.reply_to == request.seq and request.reply_seq == reply.seq
            assert reply.msg_id == request.msg_id
            assert text_of(await s.call_tool("echo", {"text": "next"})) == "next"


async def test_a_reply_arriving_while_its_request_is_still_being_written_is_linked(tmp_path: Path) -> None:
    """The server answers a 4 MB request from its first bytes and reads the rest only
    once the test has seen the reply: the client's write is blocked the whole time."""
    go = tmp_path / "go"
    with anyio.fail_after(60):
        async with session("--go-file", str(go)) as (s, transport):
            sent: list = []

            async def send_big() -> None:
                sent.append(
                    await s.connection.send_request(
                        "tools/call", {"name": "echo", "arguments": {"text": "y" * (4 * MiB)}}
                    )
                )

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(send_big)
                while not any(
                    e.kind is Kind.RESPONSE and e.direction is Direction.IN and b"early answer" in e.raw
                    for e in s.store
                ):
                    await anyio.sleep(0.01)
                assert not sent  # the write had not finished when the reply came
                go.touch()
            pending = sent[0]
            assert (await pending.wait())["content"][0]["text"] == "early answer"
            reply = pending.reply
            assert reply is not None and pending.entry is not None
            assert reply.reply_to == pending.entry.seq and pending.entry.reply_seq == reply.seq
            assert reply.latency_ms is not None and reply.problem is None
            assert text_of(await s.call_tool("echo", {"text": "z"})) == "z"


async def test_a_duplicate_reply_is_flagged_as_such() -> None:
    with anyio.fail_after(30):
        async with session() as (s, _):
            assert text_of(await s.call_tool("dup", {})) == "dup"
            await s.ping()  # the duplicate was written before the ping's answer
            first, second = [
                e for e in s.store if e.kind is Kind.RESPONSE and e.direction is Direction.IN and b'"dup"' in e.raw
            ]
            request = next(e for e in s.store if e.method == "tools/call")
            assert first.reply_to == request.seq and first.problem is None
            assert second.problem == f"duplicate of #{first.seq}: the request was already answered"
            assert second.reply_to == request.seq and request.reply_seq == first.seq


@pytest.mark.parametrize("version, flagged", [("2025-11-25", True), ("2025-06-18", True), ("2025-03-26", False)])
async def test_a_batch_is_flagged_under_versions_without_batching(version: str, flagged: bool) -> None:
    with anyio.fail_after(30):
        async with session(version=version) as (s, _):
            assert s.protocol_version == version
            assert text_of(await s.call_tool("batch", {})) == "batched"
            [batch] = [e for e in s.store if e.kind is Kind.BATCH]
            if flagged:
                assert batch.problem == f"a batch, but batching was removed in 2025-06-18 (negotiated {version})"
            else:
                assert batch.problem is None


async def test_a_server_request_before_initialized_is_flagged_but_ping_is_not() -> None:
    with anyio.fail_after(30):
        async with session("--early-request") as (s, _):
            await s.ping()
            await until(lambda: any(e.direction is Direction.OUT and e.msg_id == "p" for e in s.store))
            early = next(e for e in s.store if e.method == "roots/list")
            ping = next(e for e in s.store if e.direction is Direction.IN and e.method == "ping")
            assert early.problem == "sent before initialization (the client had not sent notifications/initialized)"
            assert ping.problem is None
            initialized = next(e for e in s.store if e.method == "notifications/initialized")
            assert early.seq < initialized.seq


@pytest.mark.parametrize("early_start", [True, False])
def test_cli_exits_without_a_traceback_when_a_detached_grandchild_holds_the_pipes(
    tmp_path: Path, early_start: bool
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    env = dict(os.environ)
    env.pop("MCP_INSPECTOR_NO_EARLY_START", None)
    if not early_start:
        env["MCP_INSPECTOR_NO_EARLY_START"] = "1"
    try:
        result = subprocess.run(
            [sys.executable, "-m", "mcp_inspector", "tools", "--", *command("--detach", str(pid_file))],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    finally:
        if pid_file.exists():
            with suppress(ProcessLookupError, ValueError):
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert pid_file.exists()  # the grandchild really was there
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("long(")
    assert "Traceback" not in result.stderr and "Event loop is closed" not in result.stderr, result.stderr


async def test_a_raw_handshake_sets_the_version_and_the_initialized_state() -> None:
    """pipe and the raw composer send initialize themselves: the connection still learns both."""
    with anyio.fail_after(30):
        async with McpSession(StdioTransport(command("--early-request"))) as s:
            connection = s.connection
            _, pending = await connection.send_raw(
                b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
            )
            assert (await pending.wait())["protocolVersion"] == "2025-06-18"
            assert connection.protocol_version == "2025-06-18" and s.protocol_version is None
            await connection.send_raw(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
            assert connection.initialized
            _, pending = await connection.send_raw(
                b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"batch"}}'
            )
            await pending.wait()
            [batch] = [e for e in s.store if e.kind is Kind.BATCH]
            assert batch.problem == "a batch, but batching was removed in 2025-06-18 (negotiated 2025-06-18)"
            early = next(e for e in s.store if e.method == "roots/list")
            assert early.problem.startswith("sent before initialization")
