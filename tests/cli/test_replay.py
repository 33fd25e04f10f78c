"""``replay``: a recording made against the demo server re-run against it and against a changed
build (tests/servers/changed_demo.py: the demo with one tool changed), through the real CLI."""

from __future__ import annotations

import json
import os
import select
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import REPO_ROOT, assert_no_traceback, cli, record_lines

DEMO = ["--", sys.executable, "-m", "mcp_inspector.demo"]
CHANGED = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "changed_demo.py"), "--change"]
DIFFERENCES = 6


def changed(what: str) -> list[str]:
    return ["--", *CHANGED, what]


@pytest.fixture
def add_recording(tmp_path: Path) -> Path:
    """tools/list and tools/call add a=1 b=2, recorded against the demo with --record."""
    path = tmp_path / "add.jsonl"
    made = cli("--record", path, "call", "add", "a=1", "b=2", *DEMO)
    assert made.returncode == 0, made.stderr
    return path


def test_replay_against_the_same_build_is_equal(add_recording):
    result = cli("replay", add_recording, *DEMO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["✓ tools/list", "✓ tools/call add", "replay: 2 requests: 2 equal"]


def test_one_tool_changed_in_behaviour_reports_exactly_that_change(add_recording):
    result = cli("replay", add_recording, *changed("add-result"))
    assert_no_traceback(result)
    assert result.returncode == DIFFERENCES, result.stderr
    assert result.stdout.splitlines() == [
        "✓ tools/list",
        "✗ tools/call add",
        '    .result.content[0].text: "3" → "4"',
        "    .result.structuredContent.sum: 3 → 4",
        "replay: 2 requests: 1 equal, 1 different",
    ]


def test_one_tool_changed_in_description_is_a_tool_list_difference(add_recording):
    result = cli("replay", add_recording, "--json", *changed("add-description"))
    assert result.returncode == DIFFERENCES, result.stderr
    report = json.loads(result.stdout)
    assert report["equal"] is False
    assert report["summary"] == {"equal": 1, "different": 1, "noResponse": 0, "unchecked": 0, "sent": 0}
    listing, call = report["requests"]
    assert (listing["method"], listing["status"], call["status"]) == ("tools/list", "different", "equal")
    assert listing["differences"] == [
        {
            "path": '.result.tools[] | select(.name == "add") | .description',
            "recorded": "Adds a and b. Returns the sum as text and as structured content.",
            "now": "Adds a and b, now with a better description.",
            "note": "tool add: description changed",
        }
    ]
    assert call["label"] == "tools/call add" and call["line"] > listing["line"]


def test_ignore_removes_a_difference_and_the_printed_path_is_usable(add_recording):
    result = cli(
        "replay",
        add_recording,
        "--ignore",
        ".result.content[0].text",
        "--ignore",
        ".result.structuredContent.sum",
        *changed("add-result"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # the path printed for a changed tool works as an --ignore path as it is
    path = '.result.tools[] | select(.name == "add") | .description'
    result = cli("replay", add_recording, "--ignore", path, *changed("add-description"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_update_rewrites_the_expectations_in_place(add_recording):
    before = record_lines(add_recording)
    updated = cli("replay", add_recording, "--update", *changed("add-result"))
    assert updated.returncode == 0, updated.stderr
    assert "1 expectation(s) updated" in updated.stderr
    assert stat.S_IMODE(os.stat(add_recording).st_mode) == 0o600
    after = record_lines(add_recording)
    assert len(after) == len(before)
    changed_lines = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed_lines) == 1  # only the recorded response of tools/call
    old, new = changed_lines[0]
    assert (new["seq"], new["reply_to"], new["id"]) == (old["seq"], old["reply_to"], old["id"])
    assert json.loads(new["raw"])["result"]["structuredContent"] == {"sum": 4}
    assert cli("replay", add_recording, *changed("add-result")).returncode == 0
    assert cli("replay", add_recording, *DEMO).returncode == DIFFERENCES  # the old build differs now


def test_server_requests_are_answered_as_recorded(tmp_path):
    reply = tmp_path / "reply.json"
    reply.write_text('{"text": "a recorded haiku"}')
    recording = tmp_path / "sampling.jsonl"
    made = cli("--record", recording, "call", "ask_the_client", "kind=sampling", "--sampling", f"@{reply}", *DEMO)
    assert made.returncode == 0, made.stderr
    # no --sampling now: the answer comes from the recording (the tool echoes it back in its result)
    result = cli("replay", recording, *DEMO)
    assert result.returncode == 0, result.stdout + result.stderr
    asked = [r for r in record_lines(recording) if r.get("method") == "sampling/createMessage"]
    assert len(asked) == 1


def test_a_server_request_without_a_recorded_answer_is_a_difference(tmp_path):
    plan = tmp_path / "plan.jsonl"
    plan.write_text('{"method": "tools/call", "params": {"name": "ask_the_client", "arguments": {"kind": "roots"}}}\n')
    result = cli("replay", plan, "--json", *DEMO)
    assert result.returncode == DIFFERENCES, result.stderr
    (step,) = json.loads(result.stdout)["requests"]
    assert step["differences"][0]["path"] == "(server request roots/list)"
    assert step["differences"][0]["note"] == "the server asked this and the recording has no answer"


def test_hand_written_plan_with_expectations_and_update(tmp_path):
    plan = tmp_path / "plan.jsonl"
    plan.write_text(
        "\n".join(
            [
                "# a hand-written check",
                '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, '
                '"b": 2}}}',
                '{"send": {"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}},'
                ' "expect": {"result": {"content": [{"type": "text", "text": "bye"}]}}}',
                '{"method": "ping"}',
                "",
            ]
        )
    )
    first = cli("replay", plan, *DEMO)
    assert first.returncode == DIFFERENCES
    assert first.stdout.splitlines() == [
        "? tools/call add  (no recorded response to compare with)",
        "✗ tools/call echo",
        '    .result.content[0].text: "bye" → "hi"',
        "? ping  (no recorded response to compare with)",
        "replay: 3 requests: 1 different, 2 without a recorded response",
    ]
    assert cli("replay", plan, "--update", *DEMO).returncode == 0
    lines = plan.read_text().splitlines()
    assert lines[0] == "# a hand-written check"
    assert json.loads(lines[1])["expect"] == {
        "result": {"content": [{"type": "text", "text": "4"}], "structuredContent": {"sum": 4}}
    }
    assert json.loads(lines[3]) == {"send": {"method": "ping"}, "expect": {"result": {}}}
    again = cli("replay", plan, *DEMO)
    assert again.returncode == 0 and again.stdout.splitlines()[-1] == "replay: 3 requests: 3 equal"


def test_a_response_that_never_comes_is_a_difference_and_the_run_goes_on(tmp_path):
    plan = tmp_path / "plan.jsonl"
    plan.write_text(
        '{"send": {"method": "tools/call", "params": {"name": "long_running_task", '
        '"arguments": {"duration_seconds": 30, "steps": 2}}}, "expect": {"result": {"content": []}}}\n'
        '{"send": {"method": "ping"}, "expect": {"result": {}}}\n'
    )
    result = cli("replay", plan, "--timeout", "1", *DEMO)
    assert result.returncode == DIFFERENCES, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "✗ tools/call long_running_task  (no response)"
    assert "no response within 1 s" in lines[1]
    assert lines[2:] == ["✓ ping", "replay: 2 requests: 1 equal, 1 without a response"]


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "is empty: nothing to replay"),
        ("hello\n", "line 1 is not JSON"),
        ('{"type": "header", "format": "something-else"}\n', "a header of another format"),
        ("[1, 2]\n", "line 1 is a JSON list"),
        ('{"jsonrpc": "2.0", "id": 1, "result": {}}\n', "is not a JSON-RPC request or notification"),
        ('{"method": "ping"}\n{"method": "pi', "line 2 is not JSON (torn"),
        ('{"send": {"method": "ping"}, "expect": 3}\n', '"expect" is a response'),
    ],
)
def test_files_that_cannot_be_replayed_are_one_line_usage_errors(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    result = cli("replay", path, *DEMO)
    assert_no_traceback(result)
    assert result.returncode == 64, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_huge_line_is_refused_without_reading_it_whole(tmp_path):
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as handle:
        handle.write(b'{"method": "ping"}\n{"method": "tools/call", "params": {"x": "')
        handle.write(b"a" * (3 << 20))
        handle.write(b'"}}\n')
    result = cli("replay", path, "--max-frame-size", "1M", *DEMO)
    assert result.returncode == 64
    assert "line 2 is longer than 2097152 bytes" in result.stderr


def test_a_torn_last_line_of_a_recording_is_skipped_with_a_note(add_recording):
    torn = len(add_recording.read_bytes().splitlines()) + 1
    with open(add_recording, "ab") as handle:
        handle.write(b'{"seq": 99, "ts": 1.0, "dir": "out", "kin')
    result = cli("replay", add_recording, *DEMO)
    assert result.returncode == 0, result.stderr
    assert f"skipped line {torn}: a torn last line" in result.stderr


def test_not_a_file_and_bad_ignore_paths_are_usage_errors(tmp_path, add_recording):
    assert "is a directory" in cli("replay", tmp_path, *DEMO).stderr
    assert "cannot open" in cli("replay", tmp_path / "missing.jsonl", *DEMO).stderr
    bad = cli("replay", add_recording, "--ignore", ".result[", *DEMO)
    assert bad.returncode == 64 and "is not a jq path" in bad.stderr
    assert "a path starts with '.'" in cli("replay", add_recording, "--ignore", "result", *DEMO).stderr
    assert "not a jq path" in cli("replay", add_recording, "--ignore", ".a + 1", *DEMO).stderr


# --ignore runs jq in the query sandbox: a path that loops is stopped, and signals work meanwhile
LOOPS_AT_ITS_CHECK = ".a | last(range(1e12))"
LOOPS_ON_A_RESULT = ".result.content[]? as $x | .result | last(range(1e12))"  # nothing to walk on tools/list


@pytest.mark.slow
def test_an_ignore_path_that_loops_at_its_check_is_a_usage_error(add_recording):
    result = cli("replay", add_recording, "--ignore", LOOPS_AT_ITS_CHECK, *DEMO, timeout=60)  # was: for ever
    assert_no_traceback(result)
    assert result.returncode == 64, result.stderr
    assert "could not be checked: the query ran for more than 2 s of CPU" in result.stderr


def test_an_ignore_path_that_loops_on_a_response_is_stopped(add_recording):
    result = cli("replay", add_recording, "--ignore", LOOPS_ON_A_RESULT, *DEMO, timeout=60)  # was: for ever
    assert_no_traceback(result)
    assert result.returncode == 7, result.stderr
    assert result.stdout.splitlines() == ["✓ tools/list"]
    assert "the query ran for more than 2 s of CPU" in result.stderr


def _tree_cpu(pid: int) -> float:
    """CPU seconds used by ``pid`` and its living descendants (Linux /proc)."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(child) for child in (task / "children").read_text().split())
        except (OSError, IndexError, ValueError):  # gone meanwhile
            continue
    return total


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_stop_signal_ends_a_replay_whose_ignore_path_loops(add_recording, signum, code):
    env = dict(os.environ, MCP_INSPECTOR_NO_EARLY_START="1")
    command = [sys.executable, "-m", "mcp_inspector", "replay", add_recording, "--ignore", LOOPS_ON_A_RESULT, *DEMO]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        assert process.stdout.readline() == "✓ tools/list\n".encode()  # the call's comparison comes next
        # the signal goes once the loop is running (0.5 s of CPU burnt since), wherever it runs
        start = _tree_cpu(process.pid)
        deadline = time.monotonic() + 60
        while _tree_cpu(process.pid) - start < 0.5 and process.poll() is None:
            assert time.monotonic() < deadline, "the loop never started"
            select.select([], [], [], 0.05)  # polling /proc: no event says "CPU used"
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=20)  # was: jq held the GIL in this process, no handler ran
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == code, stderr
    assert b"Traceback" not in stderr


def test_a_server_that_fails_to_start_is_exit_3(add_recording):
    result = cli("replay", add_recording, "--", sys.executable, "-c", "import sys; sys.exit(5)")
    assert_no_traceback(result)
    assert result.returncode == 3


def test_a_modern_mrtr_recording_replays_its_input_answers(tmp_path):
    """2026-07-28: the elicitation is an MRTR input round; the recorded inputResponses answer it again."""
    modern = ["--", sys.executable, str(REPO_ROOT / "tests" / "servers" / "sdk_modern_server.py")]
    answers = tmp_path / "answers.json"
    answers.write_text('{"name": "Ada"}')
    recording = tmp_path / "modern.jsonl"
    made = cli("--record", recording, "call", "ask_user", "--elicitation", f"@{answers}", *modern, timeout=60)
    assert made.returncode == 0 and "Hello, Ada!" in made.stdout, made.stderr
    result = cli("replay", recording, *modern, timeout=60)  # no --elicitation: declining would say "declined"
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["✓ tools/list", "✓ tools/call ask_user", "replay: 2 requests: 2 equal"]


def test_the_replay_declares_the_capabilities_the_recording_declared(add_recording, tmp_path):
    replayed = tmp_path / "replayed.jsonl"
    assert cli("--record", replayed, "replay", add_recording, *DEMO).returncode == 0

    def declared(path: Path) -> dict:
        request = next(r for r in record_lines(path) if r.get("method") == "initialize" and r.get("dir") == "out")
        return json.loads(request["raw"])["params"]["capabilities"]

    assert declared(replayed) == declared(add_recording)
    assert declared(replayed)["elicitation"] == {"form": {}, "url": {}}
