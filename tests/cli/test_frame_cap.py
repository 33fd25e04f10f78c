"""--max-frame-size: the line cap is the user's to set, for the server's frames and pipe's input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cli_helpers import assert_no_traceback, cli

SERVER = [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "frame_path_server.py")]


def test_a_frame_over_the_cap_is_recorded_as_too_long_and_the_session_goes_on(tmp_path):
    record = tmp_path / "run.jsonl"
    result = cli(
        "--record", str(record), "--max-frame-size", "1M", "call", "long", "bytes=3000000", "--json", "--", *SERVER
    )
    assert result.returncode == 0, result.stderr
    assert_no_traceback(result)
    assert json.loads(result.stdout)["content"][0]["text"] == "after long"
    entries = [json.loads(line) for line in record.read_text().splitlines()[1:]]
    long = [e for e in entries if (e.get("problem") or "").startswith("too long")]
    assert len(long) == 1 and long[0]["problem"] == f"too long: 3000000 bytes (cap {1 << 20})"


def test_the_default_cap_reads_the_same_frame_whole(tmp_path):
    record = tmp_path / "run.jsonl"
    result = cli("--record", str(record), "call", "long", "bytes=3000000", "--json", "--", *SERVER)
    assert result.returncode == 0, result.stderr
    assert not any("too long" in line for line in record.read_text().splitlines())


def test_pipe_skips_an_input_line_over_the_cap_and_sends_the_rest():
    long_line = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "x" * 10_000}},
        }
    )
    short = json.dumps(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}}
    )
    result = cli("pipe", "--max-frame-size", "4K", "--", *SERVER, input=long_line + "\n" + short + "\n")
    assert result.returncode == 64
    assert_no_traceback(result)
    assert f"input line 1 skipped: too long: {len(long_line)} bytes (cap 4096)" in result.stderr
    replies = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r.get("id") for r in replies if r.get("id") != "mcp-inspector-initialize"] == [2]


def test_bad_sizes_are_usage_errors():
    for size, message in (("12", "must be at least 1K"), ("2Q", "not a size"), ("0M", "must be at least 1K")):
        result = cli("tools", "--max-frame-size", size, "--", *SERVER)
        assert result.returncode == 64 and message in result.stderr, (size, result.stderr)
        assert_no_traceback(result)
