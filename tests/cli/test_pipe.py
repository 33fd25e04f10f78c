"""``pipe``: stdin JSON-RPC in order, every server frame out as a JSON line, failures don't stop the rest."""

from __future__ import annotations

import json

from cli_helpers import assert_no_traceback, cli, raw


def lines(*messages) -> str:
    return "".join((m if isinstance(m, str) else json.dumps(m)) + "\n" for m in messages)


def request(msg_id, method, params=None):
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def frames(stdout: str) -> list:
    return [json.loads(line) for line in stdout.splitlines()]


INITIALIZE = request(
    1,
    "initialize",
    {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
)


def test_pipe_mix_with_own_handshake_failures_do_not_stop_the_rest():
    stdin = lines(
        request(1, "tools/list"),
        "this is not json",
        request(2, "tools/call", {"name": "no_such_tool", "arguments": {}}),
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        "",
        request("three", "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}),
        [request(9, "ping")],
        request(4, "ping"),
        request(1, "ping"),
    )
    result = cli("pipe", "--", *raw(), input=stdin)
    assert_no_traceback(result)
    out = frames(result.stdout)
    assert [frame["id"] for frame in out] == ["mcp-inspector-initialize", 1, 2, "three", 4, 1]
    assert out[0]["result"]["serverInfo"]["name"] == "raw-server"
    assert [tool["name"] for tool in out[1]["result"]["tools"]] == ["echo", "add", "slow"]
    assert out[2]["error"]["code"] == -32602
    assert out[3]["result"]["content"][0]["text"] == "5"
    assert out[4] == {"jsonrpc": "2.0", "id": 4, "result": {}}
    assert "input line 2 skipped: not JSON" in result.stderr
    assert "input line 7 skipped: JSON-RPC batches are not part of MCP" in result.stderr
    assert "warning: input line 9 reuses id 1" in result.stderr
    assert result.returncode == 64  # the first failure: an invalid input line


def test_pipe_uses_the_inputs_own_initialize(record):
    stdin = lines(INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}, request(2, "ping"))
    result = cli("pipe", "--record", record, "--", *raw(), input=stdin)
    assert result.returncode == 0, result.stderr
    out = frames(result.stdout)
    assert [frame["id"] for frame in out] == [1, 2]
    assert out[0]["result"]["protocolVersion"] == "2025-06-18"  # the version the input proposed
    sent = [
        json.loads(line)["raw"] for line in record.read_text().splitlines()[1:] if json.loads(line).get("dir") == "out"
    ]
    assert sent == [
        lines(m).strip()
        for m in (INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}, request(2, "ping"))
    ]


def test_pipe_prints_notifications_and_invalid_server_frames_in_order():
    result = cli("pipe", "--", *raw("garbage-stdout"), "--flood-on-start", "2", input=lines(request(1, "ping")))
    assert result.returncode == 0, result.stderr
    out = frames(result.stdout)
    assert out[0] == {"invalid": "Server starting...", "problem": out[0]["problem"]}
    assert out[0]["problem"].startswith("not JSON")
    kinds = [frame.get("id", frame.get("method", "invalid" if "invalid" in frame else "?")) for frame in out]
    assert "mcp-inspector-initialize" in kinds and kinds[-1] in (1, "invalid")
    assert kinds.count("notifications/message") == 2
    assert kinds.index("mcp-inspector-initialize") < kinds.index("notifications/message") < kinds.index(1)


def test_pipe_timeout_does_not_stop_the_rest(record):
    stdin = lines(request(1, "tools/call", {"name": "echo", "arguments": {"text": "x"}}), request(2, "ping"))
    result = cli("pipe", "--timeout", "0.5", "--record", record, "--", *raw("never-answer"), input=stdin)
    assert result.returncode == 4
    assert "input line 1: tools/call timed out" in result.stderr
    assert frames(result.stdout)[-1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert '"notifications/cancelled"' in record.read_text()


def test_pipe_empty_input_still_shakes_hands_and_exits():
    result = cli("pipe", input="")
    assert result.returncode == 0
    out = frames(result.stdout)
    assert len(out) == 1 and out[0]["id"] == "mcp-inspector-initialize"


def test_pipe_server_death_exits_3_with_stderr_tail():
    stdin = lines(request(1, "tools/call", {"name": "echo", "arguments": {}}), request(2, "ping"))
    result = cli("pipe", "--", *raw("crash-on-call"), input=stdin)
    assert result.returncode == 3
    assert "the server exited with code 3" in result.stderr and "  fatal: boom" in result.stderr
    assert_no_traceback(result)


def test_pipe_wraps_every_frame_it_cannot_print_as_json():
    # A frame too deep to parse (1,000 "[" without their "]") is not JSON a reader could take:
    # it comes out wrapped like any other unparsable frame, and the reply still follows.
    import sys
    from pathlib import Path

    server = Path(__file__).resolve().parents[1] / "servers" / "frame_path_server.py"
    call = request(2, "tools/call", {"name": "deep", "arguments": {"depth": 1000}})
    result = cli("pipe", "--", sys.executable, str(server), input=lines(call))
    assert result.returncode == 0, result.stderr
    assert_no_traceback(result)
    out = frames(result.stdout)  # every line parses
    deep = next(frame for frame in out if "invalid" in frame)
    assert deep["invalid"] == "[" * 1000 and "nested deeper than 128 levels" in deep["problem"]
    assert out[-1]["id"] == 2 and out[-1]["result"]["content"][0]["text"] == "after deep"
