"""A stdout line our own shutdown cuts short is not reported as the server's invalid output.

Issue 19 item 16: a server still writing when we stop it (a flood at shutdown) leaves an
unterminated last line; it was counted as the server's invalid stdout line (a warning, and
``invalidFrames`` in ``--report``): a false finding. The server below writes half a line after
stdin EOF and then sleeps (default signal handling), so our SIGTERM is what cuts the line,
deterministically. The line is still recorded, raw, with the reason.
"""

from __future__ import annotations

import json
import sys

from cli_helpers import cli, record_lines

HALF_LINE_AT_EOF = r"""
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message.get("method") == "initialize":
        info = {"name": "s", "version": "1"}
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
    elif message.get("method") == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    else:
        error = {"code": -32601, "message": "no"}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
# stdin is at EOF: a flood in progress, caught mid-line by our SIGTERM
sys.stdout.write('{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "cut')
sys.stdout.flush()
time.sleep(3600)
"""


def test_a_line_cut_by_our_shutdown_is_recorded_but_not_reported_as_invalid(tmp_path):
    report, record = tmp_path / "report.json", tmp_path / "session.jsonl"
    result = cli(
        "--report", report, "--record", record, "tools", "--", sys.executable, "-c", HALF_LINE_AT_EOF, early_start=False
    )
    assert result.returncode == 0, result.stderr
    assert "echo" in result.stdout
    document = json.loads(report.read_text())
    assert document["invalidFrames"] == 0 and document["examples"] == [], document
    assert "invalid" not in result.stderr.lower(), result.stderr
    [torn] = [r for r in record_lines(record) if r.get("dir") == "in" and r.get("kind") == "invalid"]
    assert torn["raw"].endswith('"data": "cut')
    assert "stopped by us" in torn["problem"]
