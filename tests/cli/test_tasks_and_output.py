"""The CLI and tasks (call follows a task; the tasks command), the outputSchema exit code,
and what the server writes that is not JSON-RPC (warnings, --report). Real servers:
server-everything (simulate-research-query runs as a task), the demo, raw_server.py."""

from __future__ import annotations

import json
import sys

import pytest
from cli_helpers import REPO_ROOT, assert_no_traceback, cli, raw, record_lines

DEMO = ["--", sys.executable, "-m", "mcp_inspector.demo"]


# -- tasks -------------------------------------------------------------------------------


@pytest.mark.everything
def test_call_a_task_tool_waits_for_its_result(server_everything, record):
    result = cli(
        "call",
        "simulate-research-query",
        "topic=x",
        "--progress",
        "--json",
        "--record",
        record,
        "--",
        *server_everything,
        timeout=90,
    )
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    records = record_lines(record)
    call = next(r for r in records if r.get("method") == "tools/call")
    assert "task" in json.loads(call["raw"])["params"]  # the tool requires a task: asked for one
    # --json prints the tasks/result result exactly as it came
    from mcp_inspector.core.base.jsonrpc import raw_member

    request = [r for r in records if r.get("method") == "tasks/result" and r.get("dir") == "out"][-1]
    reply = next(r for r in records if r.get("reply_to") == request["seq"] and r.get("dir") == "in")
    assert result.stdout.rstrip("\n") == raw_member(reply["raw"].encode(), "result")
    assert "Research Report" in json.loads(result.stdout)["content"][0]["text"]
    # task status lines on stderr (--progress), ending with completed
    statuses = [line for line in result.stderr.splitlines() if line.startswith("task ")]
    assert statuses and "working" in statuses[0] and " completed" in statuses[-1]
    assert "the call ran as task" in result.stderr


@pytest.mark.everything
def test_a_task_past_the_timeout_is_cancelled_and_exits_4(server_everything, record):
    result = cli(
        "call",
        "simulate-research-query",
        "topic=x",
        "--timeout",
        "1.5",
        "--record",
        record,
        "--",
        *server_everything,
        timeout=60,
    )
    assert_no_traceback(result)
    assert result.returncode == 4, result.stderr
    assert any(r.get("method") == "tasks/cancel" for r in record_lines(record))


@pytest.mark.everything
def test_no_task_sends_a_plain_call(server_everything, record):
    result = cli(
        "call",
        "simulate-research-query",
        "topic=x",
        "--no-task",
        "--record",
        record,
        "--",
        *server_everything,
        timeout=60,
    )
    call = next(r for r in record_lines(record) if r.get("method") == "tools/call")
    assert "task" not in json.loads(call["raw"])["params"]
    assert result.returncode in (1, 2)  # the server refuses it (requires task augmentation)
    assert "task" in (result.stdout + result.stderr).lower()


@pytest.mark.everything
def test_tasks_list_and_an_unknown_task(server_everything, record):
    listed = cli("tasks", "--json", "--record", record, "--", *server_everything, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == {"tasks": []}  # a fresh server process has none
    assert any(r.get("method") == "tasks/list" for r in record_lines(record))
    unknown = cli("tasks", "get", "no-such-task", "--", *server_everything, timeout=60)
    assert unknown.returncode == 2 and "tasks/get failed" in unknown.stderr
    assert_no_traceback(unknown)


def test_tasks_on_servers_without_tasks_list_is_a_note():
    legacy = cli("tasks", "--", *raw())
    assert legacy.returncode == 0 and legacy.stdout.strip() == "No tasks."
    assert "does not declare tasks.list" in legacy.stderr
    modern = cli("tasks", "--json", "--", sys.executable, str(REPO_ROOT / "tests" / "servers" / "modern_raw_server.py"))
    assert modern.returncode == 0 and json.loads(modern.stdout) == {"tasks": []}
    assert "extension has no tasks/list" in modern.stderr


def test_demo_task_answered_half_way_by_the_elicitation_policy(tmp_path, record):
    answers = tmp_path / "note.json"
    answers.write_text(json.dumps({"note": "from the file"}))
    result = cli(
        "call",
        "long_job",
        "ask=true",
        "steps=2",
        "duration_seconds=0.2",
        "--elicitation",
        f"@{answers}",
        "--progress",
        "--record",
        record,
        *DEMO,
    )
    assert result.returncode == 0, result.stderr
    assert "The client accepted" in result.stdout and "from the file" in result.stdout
    statuses = [line for line in result.stderr.splitlines() if line.startswith("task ")]
    assert any("input_required" in line for line in statuses) and " completed" in statuses[-1]
    methods = [r.get("method") for r in record_lines(record) if r.get("dir") == "out"]
    assert "tasks/result" in methods


@pytest.mark.parametrize(("outcome", "code"), [("tool_error", 1), ("protocol_error", 2)])
def test_demo_task_outcomes_keep_the_exit_codes(outcome, code):
    result = cli("call", "long_job", f"outcome={outcome}", "steps=1", "duration_seconds=0.1", *DEMO)
    assert result.returncode == code, result.stderr
    assert_no_traceback(result)


def test_demo_tasks_list_and_get_of_an_unknown_task(record):
    listed = cli("tasks", "--record", record, *DEMO)
    assert listed.returncode == 0 and listed.stdout.strip() == "No tasks."
    assert any(r.get("method") == "tasks/list" for r in record_lines(record))
    unknown = cli("tasks", "result", "nope", *DEMO)
    assert unknown.returncode == 2 and "tasks/result failed" in unknown.stderr


def test_tasks_arguments_are_checked():
    assert cli("tasks", "get", *DEMO).returncode == 64
    assert cli("tasks", "list", "abc", *DEMO).returncode == 64
    bad = cli("tasks", "frobnicate", "x", *DEMO)
    assert bad.returncode == 64 and "invalid choice" in bad.stderr


# -- exit codes: outputSchema and isError ------------------------------------------------


def test_output_schema_violation_exits_5_and_is_error_wins():
    broken = cli("call", "broken_structured_output", "--json", *DEMO)
    assert broken.returncode == 5
    assert "does not match the outputSchema" in broken.stderr
    json.loads(broken.stdout)  # still the exact result on stdout
    assert cli("call", "add", "a=1", "b=2", *DEMO).returncode == 0  # a valid one
    assert cli("call", "failing_tool", *DEMO).returncode == 1  # isError: 1, the schema is for success results
    help_text = cli("--help").stdout
    assert "5    call: the tool's structuredContent does not match its outputSchema" in help_text


# -- what the server writes on stdout that is not JSON-RPC -------------------------------


def test_junk_on_stdout_is_warned_counted_and_reported(tmp_path):
    report = tmp_path / "report.json"
    result = cli("call", "echo", "text=hi", "--json", "--report", report, "--", *raw("garbage-stdout"))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"content": [{"type": "text", "text": "hi"}]}  # stdout untouched
    warnings = [line for line in result.stderr.splitlines() if "that is not JSON" in line]
    assert warnings[0].endswith("'Server starting...'")
    document = json.loads(report.read_text())
    assert document["command"] == "call" and document["exitCode"] == 0
    assert document["invalidFrames"] == document["notJson"] >= 4 == len(warnings) - (document["invalidFrames"] - 4)
    assert f"the server wrote {document['invalidFrames']} invalid stdout lines" in result.stderr
    assert document["examples"][0]["text"] == "Server starting..."


def test_report_to_stderr_and_a_clean_server():
    clean = cli("ping", "--report", "-", *DEMO)
    assert clean.returncode == 0
    assert json.loads(clean.stderr.strip().splitlines()[-1]) == {
        "command": "ping",
        "exitCode": 0,
        "invalidFrames": 0,
        "notJson": 0,
        "tooLong": 0,
        "notStrictJson": 0,
        "examples": [],
    }
    assert "invalid" not in clean.stderr.replace('"invalidFrames"', "")


def test_many_invalid_frames_show_ten_then_a_count():
    # bad-frames sends a series of invalid JSON-RPC frames; a flood of junk shows 10 at most
    result = cli("tools", "--", *raw("garbage-stdout", "bad-frames"))
    shown = [
        line for line in result.stderr.splitlines() if line.startswith("mcp-inspector: warning: the server wrote a")
    ]
    summary = [line for line in result.stderr.splitlines() if "invalid stdout lines" in line]
    assert len(shown) <= 10 and summary
    count = int(summary[0].split("wrote ", 1)[1].split(" ", 1)[0])
    assert count >= len(shown) and ("not shown" in summary[0]) == (count > 10)


def test_quiet_silences_the_warnings_but_not_the_report(tmp_path):
    report = tmp_path / "r.json"
    result = cli("tools", "-q", "--report", report, "--", *raw("garbage-stdout"))
    assert result.returncode == 0 and result.stderr == ""
    assert json.loads(report.read_text())["invalidFrames"] >= 1


def test_report_carries_the_exit_code_of_a_failure(tmp_path):
    report = tmp_path / "r.json"
    result = cli("call", "echo", "text=x", "--report", report, "--", *raw("crash-on-call"))
    assert result.returncode == 3
    assert json.loads(report.read_text())["exitCode"] == 3
    missing_dir = cli("ping", "--report", tmp_path / "nope" / "r.json", *DEMO)
    assert missing_dir.returncode == 64 and "--report: the directory" in missing_dir.stderr


def test_task_flag_on_a_tool_that_allows_one(record):
    as_task = cli("call", "generate_report", "sections=1", "duration_seconds=0.1", "--task", "--record", record, *DEMO)
    assert as_task.returncode == 0, as_task.stderr
    assert "# Report" in as_task.stdout and "the call ran as task" in as_task.stderr
    call = next(r for r in record_lines(record) if r.get("method") == "tools/call")
    assert json.loads(call["raw"])["params"]["task"] == {}
    plain = cli("call", "generate_report", "sections=1", "duration_seconds=0.1", *DEMO)  # optional: plain by default
    assert plain.returncode == 0 and "ran as task" not in plain.stderr
