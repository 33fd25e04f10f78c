"""The stdio transport against real child processes over real pipes."""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import anyio
import pytest
from waiting import until

from mcp_inspector.core.base.errors import ConnectionLost, RequestTimeout
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.session.events import LogMessage, ServerClosed, SessionState
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.transport.base import TransportError
from mcp_inspector.core.transport.stdio import StdioTransport

pytestmark = pytest.mark.anyio


def text_of(outcome) -> str:
    return outcome.result["content"][0]["text"]


def fd_target(pid: int, fd: int) -> str:
    return os.readlink(f"/proc/{pid}/fd/{fd}")


async def test_spawn_with_args_env_cwd_in_own_process_group(connect, raw_server, tmp_path) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("echo-env"), env={"INSPECTOR_TEST_VAR": "päss=1"}, cwd=str(tmp_path)) as c:
            pid = c.transport.pid
            assert os.getpgid(pid) == pid  # its own process group...
            assert os.getsid(pid) == pid  # ...and session, so no controlling terminal
            for fd in (0, 1, 2):  # stdin/stdout/stderr are pipes, never our terminal
                assert fd_target(pid, fd).startswith("pipe:"), fd_target(pid, fd)
            await c.session.list_tools()
            assert text_of(await c.session.call_tool("env", {"name": "INSPECTOR_TEST_VAR"})) == "päss=1"
            assert text_of(await c.session.call_tool("env", {"name": "PATH"})) == os.environ["PATH"]  # inherited
            assert os.path.realpath(text_of(await c.session.call_tool("cwd", {}))) == os.path.realpath(tmp_path)
            started = c.store.get(1)
            assert started.kind is Kind.EVENT and f"pid {pid}" in started.text
            assert c.transport.details["pid"] == pid and c.transport.details["cwd"] == str(tmp_path)
    assert c.session.state is SessionState.CLOSED


async def test_garbage_on_stdout_is_recorded_as_invalid_and_session_works(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("garbage-stdout")) as c:
            tools = await c.session.list_tools()
            assert {t["name"] for t in tools} == {"echo", "add", "slow"}
            assert text_of(await c.session.call_tool("echo", {"text": "still works"})) == "still works"
            invalid = [e for e in c.store if e.kind is Kind.INVALID]
            texts = [e.raw for e in invalid]
            assert b"Server starting..." in texts and b"INFO: handling request" in texts and b"{" in texts
            assert all(e.direction is Direction.IN and e.problem.startswith("not JSON") for e in invalid)
            assert c.store.kind_counts[Kind.RESPONSE] == 3  # initialize, tools/list, tools/call


async def test_split_writes_including_mid_utf8_are_reassembled(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("split-writes")) as c:
            assert c.session.instructions == "Raw fixture server ✓"
            await c.session.list_tools()
            text = "naïve café ✓ 😀 — done"
            assert text_of(await c.session.call_tool("echo", {"text": text})) == text
            assert not [e for e in c.store if e.kind is Kind.INVALID]


async def test_crlf_frames_and_blank_lines(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("crlf")) as c:
            await c.session.list_tools()
            assert text_of(await c.session.call_tool("add", {"a": 2, "b": 3})) == "5"
            incoming = [e for e in c.store if e.direction is Direction.IN]
            assert incoming and not [e for e in incoming if e.kind is Kind.INVALID]  # blank \r\n lines skipped
            assert all(not e.raw.endswith(b"\r") for e in incoming)


async def test_invalid_utf8_does_not_kill_the_connection(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("invalid-utf8")) as c:
            await until(lambda: c.of_type(LogMessage))
            garbage = next(e for e in c.store if e.raw == b"\xff\xfe garbage")
            assert garbage.kind is Kind.INVALID
            note = next(e for e in c.store if e.method == "notifications/message")
            assert note.kind is Kind.NOTIFICATION and "invalid UTF-8" in note.problem
            assert b"\xff\xfe" in note.raw  # the wire bytes are kept as they were
            assert c.of_type(LogMessage)[0].data == "bad \ufffd\ufffd bytes"
            assert await c.session.ping() == {}


async def test_50mb_result_arrives_intact(connect, raw_server) -> None:
    with anyio.fail_after(120):  # a hang guard only; the 50 MB frame's figures: bench/bench_ingest.py
        async with connect(raw_server("huge-result")) as c:
            await c.session.list_tools()
            outcome = await c.session.call_tool("huge", {"mb": 50}, timeout=100)
            text = text_of(outcome)
            assert len(text) == 50 * 1048576 and text.count("x") == len(text)
            assert len(outcome.request.reply.raw) > 50 * 1048576
            assert await c.session.ping() == {}


@pytest.mark.slow
async def test_100k_notification_burst_is_fully_recorded(connect, raw_server) -> None:
    count = 100_000
    with anyio.fail_after(120):  # a hang guard only
        async with connect(raw_server("flood")) as c:
            await c.session.list_tools()
            started = time.perf_counter()
            outcome = await c.session.call_tool("flood", {"count": count}, timeout=100)
            elapsed = time.perf_counter() - started
            assert text_of(outcome) == f"flooded {count}"
            notes = [e for e in c.store if e.method == "notifications/message"]
            assert len(notes) == count == c.store.method_counts["notifications/message"]
            assert json.loads(notes[0].raw)["params"]["data"] == "message 0"
            assert json.loads(notes[-1].raw)["params"]["data"] == f"message {count - 1}"
            logs = c.of_type(LogMessage)
            assert len(logs) == count and logs[-1].data == f"message {count - 1}"
            print(f"{count} notifications in {elapsed:.2f} s")
            assert await c.session.ping() == {}  # still answering after the burst


async def test_crash_mid_call_fails_the_call_at_once(connect, raw_server) -> None:
    with anyio.fail_after(60):  # a hang guard, below the call's timeout: the crash ends the call, not the timeout
        async with connect(raw_server("crash-on-call")) as c:
            await c.session.list_tools()
            with pytest.raises(ConnectionLost) as caught:  # not RequestTimeout
                await c.session.call_tool("echo", {"text": "x"}, timeout=300)
            error = caught.value
            assert error.exit_code == 3 and error.signal is None
            assert "exited with code 3" in str(error)
            assert "fatal: boom" in error.stderr_tail and "RuntimeError: simulated crash" in error.stderr_tail
            assert "fatal: boom" in str(error)
            closed = c.of_type(ServerClosed)
            assert len(closed) == 1 and closed[0].closed.exit_code == 3 and not closed[0].closed.expected
            assert c.session.state is SessionState.CLOSED
            assert c.session.connection.by_id == {}
            stderr = [e.text for e in c.store if e.kind is Kind.STDERR]
            assert "fatal: boom" in stderr
            with pytest.raises(ConnectionLost):
                await c.session.ping()


async def test_killed_by_signal_is_reported_as_such(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("die-by-signal")) as c:
            await c.session.list_tools()
            with pytest.raises(ConnectionLost) as caught:
                await c.session.call_tool("echo", {"text": "x"})
            assert caught.value.signal == signal.SIGKILL and caught.value.exit_code is None
            assert "killed by signal 9 (SIGKILL)" in str(caught.value)


async def test_exit_on_start_fails_the_handshake_with_stderr(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("exit-on-start"), initialize=False) as c:
            with pytest.raises(ConnectionLost) as caught:
                await c.session.initialize()
            assert caught.value.exit_code == 1
            assert "cannot start: missing API_KEY" in str(caught.value)


async def test_request_never_answered_times_out_and_server_is_told(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("never-answer")) as c:
            await c.session.list_tools()
            pending = await c.session.begin_tool_call("echo", {"text": "x"}, timeout=0.4)
            with pytest.raises(RequestTimeout, match="tools/call timed out"):
                await c.session.finish_tool_call(pending)
            assert 0.3 < pending.elapsed < 30  # not before its limit; the upper bound is loose (a loaded machine)
            assert c.session.connection.by_id == {}
            await until(
                lambda: any(e.text == f"cancelled {pending.id}" for e in c.store if e.kind is Kind.STDERR), timeout=30
            )  # the server logs each cancellation it receives to stderr
            assert await c.session.ping() == {}


async def test_late_answer_after_timeout_is_marked_late(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("late-answer", delay=0.6)) as c:
            pending = await c.session.begin_tool_call("echo", {"text": "x"}, timeout=0.2)
            with pytest.raises(RequestTimeout):
                await pending.wait()
            await until(lambda: pending.entry.reply_seq is not None)
            late = c.store.get(pending.entry.reply_seq)
            assert late.late and late.kind is Kind.RESPONSE and late.reply_to == pending.entry.seq
            assert late.latency_ms > 500
            assert pending.result is None


async def test_server_ignoring_eof_and_sigterm_is_killed_and_reaped(raw_server) -> None:
    transport = StdioTransport(raw_server("no-exit-on-eof"), close_grace=0.3, idle_close_grace=0.3, term_grace=0.3)
    with anyio.fail_after(60):
        async with McpSession(transport) as session:
            await session.initialize()
            pid = transport.pid
            started = time.perf_counter()
            await session.close()
            elapsed = time.perf_counter() - started
    # waited for EOF (0.3 s), then SIGTERM (ignored, 0.3 s), then SIGKILL; the upper bound is loose
    assert 0.6 <= elapsed < 30
    assert transport.returncode == -signal.SIGKILL
    assert session.closed is not None and session.closed.expected and session.closed.signal == signal.SIGKILL
    with pytest.raises(ChildProcessError):  # already reaped: no zombie left for anyone
        os.waitpid(pid, os.WNOHANG)
    assert not os.path.exists(f"/proc/{pid}")


async def test_well_behaved_server_exits_on_eof_without_signals(raw_server) -> None:
    # both graces long: how long the server takes to exit on EOF is what is tested (a loaded machine may need > 0.2 s)
    transport = StdioTransport(raw_server(), close_grace=30, idle_close_grace=30)
    with anyio.fail_after(60):
        async with McpSession(transport) as session:
            await session.initialize()
            pid = transport.pid
            started = time.perf_counter()
    assert time.perf_counter() - started < 30  # returned when the server exited, not when the 30 s grace ended
    assert transport.returncode == 0 and session.closed.exit_code == 0 and session.closed.expected
    assert not os.path.exists(f"/proc/{pid}")


AFTER_EOF = r"""
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
        sys.stdout.flush()
    # any other request stays unanswered: it is in flight until we close
time.sleep(float(sys.argv[1]))  # stdin is at EOF: linger, then exit 0
"""


async def test_an_idle_server_that_ignores_eof_is_not_waited_for_the_whole_grace() -> None:
    """Nothing of ours in flight: the short grace, then SIGTERM (server-everything ignores EOF once the
    client declared roots; a 2 s wait made a cold `tools` 2.8x a minimal client's time)."""
    transport = StdioTransport([sys.executable, "-c", AFTER_EOF, "3600"], close_grace=30)
    with anyio.fail_after(20):  # the 30 s grace would run past this
        async with McpSession(transport, era="legacy") as session:
            await session.initialize()
    assert session.closed is not None and session.closed.expected
    assert session.closed.signal == signal.SIGTERM and transport.returncode == -signal.SIGTERM


async def test_a_server_with_a_request_in_flight_gets_the_whole_grace() -> None:
    """A request unanswered: the server may still be at it, so it gets ``close_grace`` to exit itself."""
    transport = StdioTransport([sys.executable, "-c", AFTER_EOF, "0.5"], close_grace=30, idle_close_grace=0)
    with anyio.fail_after(40):
        async with McpSession(transport, era="legacy") as session:
            await session.initialize()

            async def ask() -> None:
                with pytest.raises(ConnectionLost):
                    await session.connection.request("tools/list", {}, timeout=None)

            async with anyio.create_task_group() as group:
                group.start_soon(ask)
                while not session.connection.pending:
                    await anyio.sleep(0.01)
                assert session.connection.work_in_flight()
                await session.close()
    assert session.closed is not None and session.closed.exit_code == 0  # exited by itself, not SIGTERMed


@pytest.mark.parametrize(
    "command, message",
    [
        (["definitely-not-a-command-xyz"], "command not found: definitely-not-a-command-xyz"),
        (["/nonexistent/dir/server"], "command not found: /nonexistent/dir/server"),
    ],
)
async def test_missing_command_gives_a_clear_transport_error(command, message) -> None:
    with anyio.fail_after(60):
        session = McpSession(StdioTransport(command))
        with pytest.raises(TransportError) as caught:
            async with session:
                pass
    assert str(caught.value) == message
    assert session.state is SessionState.FAILED


async def test_not_executable_and_bad_cwd_are_clear(tmp_path) -> None:
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\n")
    with anyio.fail_after(60):
        with pytest.raises(TransportError, match="permission denied"):
            async with McpSession(StdioTransport([str(script)])):
                pass
        with pytest.raises(TransportError, match="working directory does not exist"):
            async with McpSession(StdioTransport([sys.executable], cwd=str(tmp_path / "nope"))):
                pass
    with pytest.raises(TransportError, match="no server command"):
        StdioTransport([])


async def test_stderr_is_captured_line_by_line(connect, raw_server) -> None:
    with anyio.fail_after(60):
        async with connect(raw_server("stderr-chatter")) as c:
            await c.session.ping()
            await until(lambda: any(b"received ping" in e.raw for e in c.store if e.kind is Kind.STDERR))
            lines = [e.text for e in c.store if e.kind is Kind.STDERR]
            assert "raw-server: received initialize id=1" in lines
            assert any(line.startswith("raw-server: received notifications/initialized") for line in lines)
            assert list(c.transport.stderr_tail) == lines[-50:]  # the tail kept for error messages


TRAPS_SIGTERM = r"""
import signal, sys, time
def on_term(*args):
    sys.stderr.write("got SIGTERM\n")
    sys.stderr.flush()
signal.signal(signal.SIGTERM, on_term)
sys.stderr.write("ready\n")
sys.stderr.flush()
for line in sys.stdin:
    pass
sys.stderr.write("got EOF\n")
sys.stderr.flush()
while True:
    time.sleep(0.05)
"""


async def test_close_escalates_eof_then_sigterm_then_sigkill(connect) -> None:
    with anyio.fail_after(60):
        async with connect(
            [sys.executable, "-c", TRAPS_SIGTERM],
            initialize=False,
            close_grace=0.3,
            idle_close_grace=0.3,
            term_grace=0.3,
        ) as c:
            await until(lambda: any(e.text == "ready" for e in c.store if e.kind is Kind.STDERR))
            pid = c.transport.pid
    stderr = [e.text for e in c.store if e.kind is Kind.STDERR]
    assert stderr == ["ready", "got EOF", "got SIGTERM"]  # in that order, then SIGKILL
    assert c.transport.returncode == -signal.SIGKILL
    closed = c.session.closed
    assert closed.expected and closed.signal == signal.SIGKILL
    assert "killed by signal 9" in closed.reason
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


UNTERMINATED = r"""
import json, sys
msg = json.loads(sys.stdin.readline())
reply = {"jsonrpc": "2.0", "id": msg["id"], "result": {"protocolVersion": "2025-11-25", "capabilities": {},
         "serverInfo": {"name": "abrupt", "version": "1"}}}
sys.stdout.write(json.dumps(reply))  # no newline, then exit
sys.stdout.flush()
"""


async def test_unterminated_last_frame_is_still_delivered(connect) -> None:
    with anyio.fail_after(60):
        async with connect([sys.executable, "-c", UNTERMINATED], initialize=False) as c:
            result = await c.session.connection.request("initialize", {"protocolVersion": "2025-11-25"})
            assert result["serverInfo"]["name"] == "abrupt"
            reply = next(e for e in c.store if e.kind is Kind.RESPONSE)
            assert reply.meta == {"unterminated": True}
            closed = await c.session.wait_closed()  # an event: the server's exit wakes it
            assert closed is c.session.closed and closed.exit_code == 0
            assert await c.session.wait_closed() is closed  # already closed: at once


def process_alive(pid: int) -> bool:
    """True while the process exists and is not a zombie awaiting its (new) parent."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_exit_is_seen_even_when_a_grandchild_holds_stdout(connect) -> None:
    """`sh -c "helper & ..."`: the server dies, its helper keeps the pipes open."""
    script = 'sleep 30 & echo "child $!" >&2; read line; echo "dying" >&2; exit 3'
    with anyio.fail_after(60):  # a hang guard, below the ping's timeout: the exit ends the ping, not the timeout
        async with connect(["sh", "-c", script], initialize=False) as c:
            with pytest.raises(ConnectionLost) as caught:  # not RequestTimeout
                await c.session.ping(timeout=300)
            assert caught.value.exit_code == 3 and "dying" in caught.value.stderr_tail
            assert c.session.closed is not None and not c.session.closed.expected
            child = int(next(e.text for e in c.store if e.text.startswith("child ")).split()[1])
            assert process_alive(child)
    # Closing killed the whole process group; the signal is delivered asynchronously.
    deadline = time.perf_counter() + 30  # a hang guard: the kill is delivered asynchronously
    while process_alive(child) and time.perf_counter() < deadline:
        time.sleep(0.02)
    assert not process_alive(child)


def test_permission_denied_names_the_working_directory_not_the_command(tmp_path):
    """The TUI starts servers through the transport alone: its error must name what was denied."""
    import os
    import shutil
    import subprocess
    import sys

    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: every directory can be entered")
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
    else:
        prefix = []
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(0)
    script = (
        "import anyio\n"
        "from mcp_inspector.core.transport.stdio import StdioTransport\n"
        "from mcp_inspector.core.transport.base import TransportError\n"
        "async def main():\n"
        "    async with anyio.create_task_group() as tg:\n"
        f"        t = StdioTransport([{sys.executable!r}, '-c', 'pass'], cwd={str(closed)!r})\n"
        "        try:\n"
        "            await t.start(tg, lambda event: None)\n"
        "        except TransportError as exc:\n"
        "            print(exc)\n"
        "anyio.run(main)\n"
    )
    try:
        result = subprocess.run([*prefix, sys.executable, "-c", script], capture_output=True, text=True)
    finally:
        closed.chmod(0o755)
    assert result.stdout.strip() == f"permission denied: working directory {closed}", result.stderr
