"""``mcp-inspector proxy -- CMD``: bytes through unchanged both ways, every frame recorded, the
server's exit status, the host's signals and stdin EOF passed through (issue 24).

The host here is either the test itself (raw bytes over real pipes, so every byte can be
compared) or a client nobody here wrote: the ``mcp`` SDK's stdio client, against
server-everything, with and without the proxy. The server's own view comes from ``tee``
between the proxy and the server (or the peer's ``--log``).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from conftest import PYTHON, SERVERS_DIR
from waiting import until_sync

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.loading import load_session

PEER = [PYTHON, str(SERVERS_DIR / "proxy_peer.py")]
HOST_INPUT = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},'
    b'"clientInfo":{"name":"test-host","version":"9.1"}}}\n'
    b"not json from the host\n"
    b'{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"_meta":{"traceparent":'
    b'"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},"z":1,   "a":2}}\n'
    b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"s":"\\u00e9\xc3\xa9"}}'  # no newline: the last line
)


@pytest.fixture(autouse=True)
def _private_run_dir(tmp_path, monkeypatch):
    """Each proxy's live-view socket in the test's own directory."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))


def proxy_command(*own: str) -> list[str]:
    return [sys.executable, "-m", "mcp_inspector", "proxy", *own, "--"]


def run_host(command: list[str], data: bytes, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(command, input=data, capture_output=True, timeout=timeout, check=False)


def frames(path: Path, direction: Direction) -> list:
    loaded = load_session(path)
    return [e for e in loaded.store.iter_all() if e.direction is direction and e.kind not in (Kind.EVENT, Kind.STDERR)]


def test_bytes_pass_unchanged_both_ways_and_the_recording_has_every_frame(tmp_path):
    record = tmp_path / "session.jsonl"
    direct = run_host([*PEER, "--exit-code", "7", "--log", str(tmp_path / "direct.log")], HOST_INPUT)
    proxied = run_host(
        [*proxy_command("--record", str(record)), *PEER, "--exit-code", "7", "--log", str(tmp_path / "proxied.log")],
        HOST_INPUT,
    )
    assert proxied.returncode == direct.returncode == 7
    assert proxied.stdout == direct.stdout  # the host sees exactly what it saw without us
    assert (tmp_path / "proxied.log").read_bytes() == (tmp_path / "direct.log").read_bytes() == HOST_INPUT
    assert b"eof" in proxied.stderr  # the server's stderr reaches the host's, and its stdin ended
    # the recording: every frame both ways, byte for byte (line endings aside)
    sent = [e.raw for e in frames(record, Direction.OUT)]
    assert sent == [line.removesuffix(b"\r") for line in HOST_INPUT.split(b"\n")]
    received = frames(record, Direction.IN)
    assert [e.raw for e in received] == [line.removesuffix(b"\r") for line in direct.stdout.split(b"\n") if line]
    # non-JSON lines are forwarded and flagged
    kinds = {e.raw: e for e in frames(record, Direction.OUT) + received}
    assert kinds[b"not json from the host"].kind is Kind.INVALID
    assert kinds[b"this line is not JSON"].kind is Kind.INVALID and kinds[b"this line is not JSON"].problem
    assert kinds[b"\xff\xfe not utf-8"].kind is Kind.INVALID
    # replies are linked to the host's requests; the host's clientInfo is in the recording
    loaded = load_session(record)
    entries = list(loaded.store.iter_all())
    ping_reply = next(e for e in entries if e.direction is Direction.IN and e.msg_id == "x")
    assert loaded.store.fetch(ping_reply.reply_to).method == "tools/list"
    hello = next(e for e in entries if e.meta and "client_info" in e.meta)
    assert hello.meta["client_info"] == {"name": "test-host", "version": "9.1"}
    assert loaded.header["recorded_by"] == "mcp-inspector proxy"
    assert any(e.meta and e.meta.get("exit_code") == 7 for e in entries)
    # the recording is an ordinary session file: query reads it
    query = subprocess.run(
        [sys.executable, "-m", "mcp_inspector", "query", str(record), "--direction", "out", "--count", ".method"],
        capture_output=True,
        check=False,
    )
    assert query.returncode == 0 and query.stdout.strip() == b"3", (
        query.stderr
    )  # the non-JSON line is not a frame to jq


def _read_lines_until(process: subprocess.Popen, needle: bytes, got: bytearray) -> None:
    """Read the proxy's stdout (without blocking forever) until ``needle`` shows up."""
    assert process.stdout is not None
    fd = process.stdout.fileno()

    def seen() -> bool:
        if select.select([fd], [], [], 0.05)[0]:
            got.extend(os.read(fd, 1 << 16))
        return needle in got

    until_sync(seen, what=f"{needle!r} from the proxy")


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 42), (signal.SIGINT, 43)])
def test_a_signal_to_the_proxy_reaches_the_server_and_its_exit_code_comes_back(tmp_path, sig, code):
    record = tmp_path / "session.jsonl"
    process = subprocess.Popen(
        [*proxy_command("--record", str(record)), *PEER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    got = bytearray()
    try:
        _read_lines_until(process, b"notifications/split", got)
        process.send_signal(sig)
        # stdin stays open until the proxy has exited: closing it now (communicate) would race the
        # signal with the server's stdin EOF, and the server exits 0 on EOF (seen under load)
        _read_lines_until(process, f"got {signal.Signals(sig).name}".encode(), got)
        process.wait(timeout=30)
        process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == code
    notes = [e.text for e in load_session(record).store.iter_all() if e.kind is Kind.EVENT]
    assert f"passed {signal.Signals(sig).name} to the server" in notes


def test_the_server_killed_by_a_signal_kills_the_proxy_by_the_same_signal():
    result = run_host([*proxy_command(), "sh", "-c", "kill -KILL $$"], b"")
    assert result.returncode == -signal.SIGKILL


def test_a_host_that_stops_reading_mid_flood_ends_the_session(tmp_path):
    """The host closes its end of our stdout while the server floods: the server gets the broken
    pipe it would have got without us, and the proxy ends with it, the frames so far recorded."""
    record = tmp_path / "session.jsonl"
    process = subprocess.Popen(
        [*proxy_command("--record", str(record)), *PEER, "--flood", "1000000"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _read_lines_until(process, b'"n":1', bytearray())
        process.stdout.close()  # the host goes away mid-stream
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode != 0  # the server's own reaction to EPIPE (Python: BrokenPipeError, exit 1)
    assert b"BrokenPipeError" in err
    entries = list(load_session(record).store.iter_all())
    assert any(e.meta and e.meta.get("host_gone") for e in entries)
    assert sum(1 for e in entries if e.method == "notifications/progress") > 1


def test_a_flood_reaches_the_host_whole_and_every_frame_is_recorded(tmp_path):
    record = tmp_path / "session.jsonl"
    count = 20_000
    result = run_host([*proxy_command("--record", str(record)), *PEER, "--flood", str(count)], b"")
    assert result.returncode == 0
    assert result.stdout.count(b"notifications/progress") == count
    assert sum(1 for e in frames(record, Direction.IN) if e.method == "notifications/progress") == count


def test_usage_errors_are_one_line():
    result = run_host([sys.executable, "-m", "mcp_inspector", "proxy"], b"")
    assert result.returncode == 64 and b"give the server command after --" in result.stderr
    assert b"Traceback" not in result.stderr
    result = run_host([*proxy_command(), "/nonexistent/server"], b"")
    assert result.returncode == 3 and b"command not found" in result.stderr


# -- a real host nobody here wrote -------------------------------------------------------


async def _sdk_session(command: list[str]) -> dict:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        tools = await session.list_tools()
        echo = await session.call_tool("echo", {"message": "through the proxy"})
        add = await session.call_tool("get-sum", {"a": 2, "b": 40})
        prompts = await session.list_prompts()
        resources = await session.list_resources()
        return {
            "server": init.server_info.name,
            "tools": sorted(tool.name for tool in tools.tools),
            "echo": echo.model_dump(mode="json"),
            "sum": add.model_dump(mode="json"),
            "prompts": sorted(p.name for p in prompts.prompts),
            "resources": sorted(r.uri for r in resources.resources),
        }


def test_the_mcp_sdk_client_gets_the_same_results_through_the_proxy(tmp_path, server_everything):
    record = tmp_path / "session.jsonl"
    into, out = tmp_path / "server-in", tmp_path / "server-out"
    tee = f"tee {into} | {' '.join(server_everything)} | tee {out}"
    direct = anyio.run(_sdk_session, server_everything)
    proxied = anyio.run(_sdk_session, [*proxy_command("--record", str(record)), "sh", "-c", tee])
    assert proxied == direct
    until_sync(lambda: b"serverInfo" in out.read_bytes(), what="the server's output")
    # every frame, byte for byte, as the server itself read and wrote them
    until_sync(lambda: load_session(record).store.total > 0, what="the recording")
    sent = [e.raw for e in frames(record, Direction.OUT)]
    received = [e.raw for e in frames(record, Direction.IN)]
    assert sent == [line for line in into.read_bytes().split(b"\n") if line]
    assert received == [line for line in out.read_bytes().split(b"\n") if line][: len(received)]
    assert len(received) >= 6
    client = next(e for e in load_session(record).store.iter_all() if e.meta and "client_info" in e.meta)
    assert client.meta["client_info"]["name"] == "mcp"
    check = subprocess.run(
        [sys.executable, "-m", "mcp_inspector", "check", "--open", str(record)], capture_output=True, check=False
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_recording_replays_against_the_server(tmp_path, server_everything):
    """``replay`` reads a proxy's recording like any session file (the host's requests sent again)."""
    record = tmp_path / "session.jsonl"
    anyio.run(_sdk_session, [*proxy_command("--record", str(record)), *server_everything])
    result = subprocess.run(
        [sys.executable, "-m", "mcp_inspector", "replay", str(record), "--ignore", ".result", "--", *server_everything],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_recording_is_finished_when_the_proxy_itself_is_killed(tmp_path):
    """The recorder runs in a process of its own (core/proxy/relay.py) and each chunk is in its pipe
    before it is forwarded: a SIGKILL of the proxy the moment the host has its last reply loses no
    frame, and the recorder records what it was given and closes the file."""
    record = tmp_path / "session.jsonl"
    process = subprocess.Popen(
        [*proxy_command("--record", str(record)), *PEER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    count = 50
    try:
        process.stdin.write(b"".join(b'{"jsonrpc":"2.0","id":"k%d","method":"ping"}\n' % n for n in range(count)))
        process.stdin.flush()
        _read_lines_until(process, b'"id": "k%d"' % (count - 1), bytearray())
        process.kill()
        process.wait()
    finally:
        process.kill()

    def recorded() -> bool:
        try:
            entries = list(load_session(record).store.iter_all())
        except Exception:  # noqa: BLE001 - not written yet
            return False
        return any(e.direction is Direction.IN and e.msg_id == f"k{count - 1}" for e in entries)

    until_sync(recorded, what="the last ping's reply in the recording")
    pings = [e for e in load_session(record).store.iter_all() if e.method == "ping"]
    assert len(pings) == count
    assert all(ping.reply_seq is not None for ping in pings)
