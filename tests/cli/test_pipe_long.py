"""``pipe`` over many messages: memory stays bounded, output stays prompt and exact.

The bounded-memory tests run the real pipe body in-process (real runner, session,
stdio transport and server; stdin is a real file descriptor, stdout a real file)
so the traffic store and the pipe's own bookkeeping can be inspected afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import raw

from mcp_inspector.cli import pipe as pipe_module
from mcp_inspector.cli.pipe import Pipe
from mcp_inspector.cli.runner import PIPE_STORE_CAP, RunOptions, run
from mcp_inspector.core.config.servers import ServerSpec


def call(msg_id, a=1, b=2) -> bytes:
    return (
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": msg_id,
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": a, "b": b}},
            }
        ).encode()
        + b"\n"
    )


def run_pipe_in_process(tmp_path: Path, stdin: bytes, *modes: str) -> tuple[int, Pipe, list[dict]]:
    """Run the pipe body on ``stdin`` against the raw server; (exit code, the Pipe, printed frames)."""
    source = tmp_path / "stdin.jsonl"
    source.write_bytes(stdin)
    printed = tmp_path / "stdout.jsonl"
    pipes: list[Pipe] = []
    with open(source, "rb") as fin, open(printed, "wb") as fout:

        async def body(session, ctx):
            pipe = Pipe(session, ctx, stdin=fin.fileno(), stdout=fout)
            pipes.append(pipe)
            return await pipe.run()

        code = run(ServerSpec("raw", raw(*modes)), RunOptions(timeout=30, handshake=False), body)
    return code, pipes[0], [json.loads(line) for line in printed.read_bytes().splitlines()]


def test_a_long_pipe_keeps_a_bounded_store_and_prints_every_reply(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the store's spill file goes here
    calls = PIPE_STORE_CAP // 2 + 1000  # two entries per call: well past the cap and its slack
    code, pipe, out = run_pipe_in_process(tmp_path, b"".join(call(i, i, 1) for i in range(1, calls + 1)))
    assert code == 0
    assert [frame["id"] for frame in out] == ["mcp-inspector-initialize", *range(1, calls + 1)]
    assert out[-1]["result"]["content"][0]["text"] == str(calls + 1)
    store = pipe.ctx.store
    assert store.total >= 2 * calls
    assert len(store) <= PIPE_STORE_CAP + PIPE_STORE_CAP // 10  # held in memory: bounded, not every frame
    # every frame went to stdout: what left memory is not also written to a spill file (bench_pipe: ~50 us a call)
    assert store.session_file is None and store.dropped == store.total - len(store)
    assert not list((tmp_path / "state").rglob("spill-*"))


def test_the_reused_id_warning_remembers_a_bounded_window(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(pipe_module, "SEEN_IDS", 50)
    stdin = b"".join(call(i) for i in range(1, 121)) + call(119) + call(3) + call("119")
    code, pipe, out = run_pipe_in_process(tmp_path, stdin)
    assert code == 0
    assert len(out) == 1 + 123
    assert len(pipe.sent_ids) <= 50 and len(pipe.sent_order) <= 50
    err = capsys.readouterr().err
    assert "input line 121 reuses id 119" in err  # recent: warned
    assert "reuses id 3" not in err  # long gone from the window
    assert 'reuses id "119"' not in err  # a string id is not the number


def test_frames_print_as_their_bytes_and_invalid_utf8_as_replacement(tmp_path):
    code, _, out = run_pipe_in_process(tmp_path, call(1), "invalid-utf8")
    assert code == 0
    invalid = [frame for frame in out if "invalid" in frame]
    assert invalid and invalid[0]["invalid"] == "\ufffd\ufffd garbage"
    logged = [frame for frame in out if frame.get("method") == "notifications/message"]
    assert logged and "\ufffd\ufffd" in json.dumps(logged[0], ensure_ascii=False)
    assert out[0]["result"]["instructions"] == "Raw fixture server ✓"  # non-ASCII UTF-8, as sent
    assert out[-1]["id"] == 1


@pytest.mark.timeout(30)
def test_an_interactive_pipe_prints_each_reply_before_the_next_line_is_typed():
    """stdin stays open: each reply must reach stdout while pipe waits for more input."""
    env = {k: v for k, v in os.environ.items() if k != "MCP_INSPECTOR_NO_EARLY_START"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_inspector", "pipe", "--", *raw()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        for i in (1, 2, 3):
            proc.stdin.write(call(i, i, 10))
            proc.stdin.flush()
            if i == 1:  # the handshake is done on the first input line
                assert json.loads(proc.stdout.readline())["id"] == "mcp-inspector-initialize"
            reply = json.loads(proc.stdout.readline())
            assert reply["id"] == i and reply["result"]["content"][0]["text"] == str(i + 10)
        proc.stdin.close()
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
