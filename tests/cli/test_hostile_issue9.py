"""Issue 9's CLI commands used as a hostile user or a CI script would: bad arguments, garbage
completions, a flooding subscription, an unsubscribe never answered, Ctrl-C. Real servers over
real pipes (tests/servers/hostile_surface_server.py, the demo)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import REPO_ROOT, assert_no_traceback, cli
from waiting import until_sync

HOSTILE = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "hostile_surface_server.py")]
DEMO = [sys.executable, "-m", "mcp_inspector.demo"]


def hostile(log: Path) -> list[str]:
    return [*HOSTILE, "--log", str(log)]


def test_an_empty_task_id_is_a_usage_error():
    for action in ("get", "result", "cancel"):
        result = cli("tasks", action, "", "--", *DEMO)
        assert result.returncode == 64, (action, result.stderr)
        assert "task id is empty" in result.stderr
        assert_no_traceback(result)


def test_completion_values_that_are_not_strings_or_break_lines(tmp_path):
    result = cli("complete", "--prompt", "p", "a", "nonstr", "--", *hostile(tmp_path / "log"))
    assert result.returncode == 0, result.stderr
    # one value a line: the string with a newline is printed as JSON, not as two lines
    assert result.stdout.splitlines() == ["1", "null", '{"a": 1}', '"two\\nlines"', "true"]
    assert "4 of the 5 values are not a string" in result.stderr
    as_json = cli("complete", "--prompt", "p", "a", "nonstr", "--json", "--", *hostile(tmp_path / "log"))
    assert json.loads(as_json.stdout)["completion"]["values"][3] == "two\nlines"
    assert "not a string" in as_json.stderr  # --json warns too


def test_a_malformed_completion_warns_in_json_mode_too(tmp_path):
    result = cli("complete", "--prompt", "p", "a", "notlist", "--json", "--", *hostile(tmp_path / "log"))
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"completion": {"values": "not a list"}}
    assert "no completion.values array" in result.stderr


@pytest.mark.slow
def test_a_million_completion_values(tmp_path):
    result = cli(
        "complete", "--prompt", "p", "a", "huge", "--", *hostile(tmp_path / "log"), timeout=120
    )  # a hang guard
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1_000_001 and lines[-1] == "(total: 1000000)"
    assert "the server sent 1000000 values; the spec allows at most 100" in result.stderr


def test_a_flooding_subscription_keeps_up_or_says_it_drops(tmp_path):
    """The server sends updates as fast as the pipe takes them: the output keeps up (batched
    writes), and anything it could not take is counted on stderr; the JSON lines stay valid."""
    log = tmp_path / "log"
    result = cli("subscribe", "flood://x", "--for", "2", "--json", "--", *hostile(log), timeout=30)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(json.loads(line) == {"uri": "flood://x"} for line in lines)
    printed = int(result.stderr.split(" updates of flood://x")[0].rsplit(" ", 1)[-1])
    assert printed == len(lines)
    dropped = 0
    if "not printed" in result.stderr:
        dropped = int(result.stderr.split(" more update")[0].rsplit(" ", 1)[-1])
    # before the batched output, ~600 updates a second were printed and ~40,000 silently lost
    assert len(lines) > 10 * max(dropped, 1000), (len(lines), dropped)
    assert log.read_text().splitlines()[-1] == "unsubscribe flood://x"


def test_an_unanswered_unsubscribe_is_said_and_ctrl_c_does_not_wait_long(tmp_path):
    log = tmp_path / "log"
    command = [sys.executable, "-m", "mcp_inspector", "subscribe", "stuck-unsub://x", "--", *hostile(log)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
    said = []
    try:
        for line in process.stderr:  # "subscribed to ..." once the subscribe's answer is read
            said.append(line)
            if b"subscribed to stuck-unsub://x" in line:
                break
        process.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        _, stderr = process.communicate(timeout=60)
        elapsed = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
    text = b"".join(said).decode() + stderr.decode()
    assert process.returncode == 130, text
    assert "unsubscribe stuck-unsub://x" in log.read_text()
    assert "resources/unsubscribe stuck-unsub://x got no answer within 1 s" in text
    assert "0 updates of stuck-unsub://x" in text  # the summary is said after Ctrl-C too
    # the limit is 1 s (said above; it waited 5 s before): not before it (less a hair), a loose upper bound
    assert 0.9 <= elapsed < 30, elapsed
    assert "Traceback" not in text


def test_ctrl_c_during_a_task_call_cancels_the_task(tmp_path):
    log = tmp_path / "log"
    command = [sys.executable, "-m", "mcp_inspector", "call", "never_ends", "--", *hostile(log)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        until_sync(lambda: log.exists() and "tasks/get t-1" in log.read_text())
        process.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        _, stderr = process.communicate(timeout=60)
        elapsed = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr.decode()
    assert "tasks/cancel t-1" in log.read_text().splitlines()
    assert elapsed < 30, elapsed  # a loose bound: Ctrl-C does not wait for the task (tasks/cancel sent, above)


def test_a_uri_with_an_invalid_expression_is_a_usage_error():
    """{+}, {a b}, {}, {a:0} and the reserved operators are not RFC 6570: refused before connecting
    (they were expanded into a URI that was then read, or named a variable 'a b')."""
    for uri in ("demo://x{+}", "demo://x{a b}", "demo://x{}", "demo://x{a:0}", "demo://x{=a}"):
        result = cli("read", uri, "a=1", "--", *DEMO)
        assert result.returncode == 64, (uri, result.stderr)
        assert "is not an RFC 6570 expression" in result.stderr
        assert_no_traceback(result)
    good = cli("read", "demo://files{/path*}{#section}", 'path=["docs","guide.md"]', "--", *DEMO)
    assert good.returncode == 0, good.stderr
    assert "reading demo://files/docs/guide.md" in good.stderr


def test_a_malformed_task_result_is_warned_about(tmp_path):
    for extra in ((), ("--json",)):
        result = cli("tasks", "result", "malformed", *extra, "--", *hostile(tmp_path / "log"))
        assert result.returncode == 1, result.stderr  # isError (not a boolean, but set): as call does
        assert "malformed result: `content` must be an array, got str" in result.stderr
        assert "malformed result: `isError` must be a boolean" in result.stderr
        assert_no_traceback(result)


def test_malformed_tasks_are_protocol_errors(tmp_path):
    for command in (
        ("tasks", "get", "malformed"),
        ("tasks", "cancel", "malformed"),
        ("call", "bad_poll"),
        ("call", "bad_task"),
    ):
        result = cli(*command, "--json", "--", *hostile(tmp_path / "log"))
        assert result.returncode == 3, (command, result.stderr)
        assert "protocol error" in result.stderr and "taskId" in result.stderr
        assert result.stdout == ""
        assert_no_traceback(result)
    listed = cli("tasks", "list", "--json", "--", *hostile(tmp_path / "log"), "--bad-list")
    assert listed.returncode == 3 and "nextCursor must be a string" in listed.stderr


def test_malformed_updates_are_not_printed_as_updates(tmp_path):
    """An update whose uri is a number was printed as 'updated 5' / {"uri": 5}; one whose params
    is not an object is an invalid frame (warned); a good one is printed with all its params."""
    for extra in ((), ("--json",)):
        result = cli("subscribe", "odd://x", "--for", "1", *extra, "--", *hostile(tmp_path / "log"))
        assert result.returncode == 0, result.stderr
        assert "uri is not a string (5)" in result.stderr
        assert "1 update of odd://x" in result.stderr
        lines = result.stdout.splitlines()
        assert len(lines) == 1
        if extra:
            assert json.loads(lines[0]) == {"uri": "odd://x", "extra": [1, 2]}
        else:
            assert lines[0].endswith(" updated odd://x")


def test_a_stdout_nobody_reads_does_not_stall_subscribe(tmp_path):
    """stdout is a pipe never read: --for still ends the command (the updates go to stdout from a
    thread; the event loop never blocks on it), what could not be written is said. It hung until
    the pipe was read before. burst://x sends 12,000 updates before the subscribe's answer, so
    more than the 10,000 buffered are dropped however fast the machine reads (flood://x sent
    too few within --for 1 on a loaded machine: nothing was dropped, nothing said). --for
    bounds the subscribe too: 3 s to read the 12,000 (8,000 a second on a loaded CI run)."""
    stderr_path = tmp_path / "stderr"
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mcp_inspector",
                "subscribe",
                "burst://x",
                "--for",
                "3",
                "--",
                *hostile(tmp_path / "log"),
            ],
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        try:
            code = process.wait(timeout=60)  # a hang guard: it hung until the pipe was read before
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            process.stdout.close()
    text = stderr_path.read_text()
    assert code == 0, text
    assert "not written: stdout was not read for 2 s (given up)" in text
    assert "not printed: they came faster than stdout took them" in text
    assert (tmp_path / "log").read_text().splitlines()[-1] == "unsubscribe burst://x"


def test_subscribe_to_a_template_is_a_usage_error():
    """The demo took demo://notes/{note_id} as a note named '{note_id}': subscribed, never updated."""
    result = cli("subscribe", "demo://notes/{note_id}", "--for", "0.5", "--", *DEMO)
    assert result.returncode == 64, result.stderr
    assert "is a URI template, not a resource" in result.stderr
    assert "subscribed" not in result.stderr


def test_a_server_that_dies_while_subscribed(tmp_path):
    for extra in ((), ("--json",)):
        result = cli("subscribe", "die://x", *extra, "--", *hostile(tmp_path / "log"))
        assert result.returncode == 3, result.stderr
        assert "the server exited with code 7" in result.stderr and "dying now" in result.stderr
        assert len(result.stdout.splitlines()) == 1
        if extra:
            assert json.loads(result.stdout) == {"uri": "die://x"}
        assert_no_traceback(result)


def test_ctrl_c_when_tasks_cancel_is_never_answered(tmp_path):
    """The tasks/cancel sent on Ctrl-C gets no answer: exit 130 all the same, within the
    session's cancel limit (core/session/task_model.py CANCEL_LIMIT, 2 s)."""
    log = tmp_path / "log"
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_inspector", "call", "stuck_cancel", "--", *hostile(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        until_sync(lambda: log.exists() and "tasks/get stuck" in log.read_text())
        process.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        _, stderr = process.communicate(timeout=60)
        elapsed = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr.decode()
    assert "tasks/cancel stuck" in log.read_text().splitlines()
    assert 1.9 <= elapsed < 30, (
        elapsed
    )  # waited out CANCEL_LIMIT (2 s, less a hair: timed after the signal), not for ever; the upper bound is loose


def test_subscribe_call_follows_a_task_tool_and_names_its_option():
    """--call of a tool that must run as a task (the demo's long_job) failed with -32601
    'requires task augmentation': it is called as call does (tool list, task followed)."""
    result = cli(
        "subscribe",
        "demo://readme",
        "--for",
        "1.5",
        "--call",
        "long_job",
        "--call-args",
        '{"duration_seconds": 0.3}',
        "--",
        *DEMO,
    )
    assert result.returncode == 0, result.stderr
    assert "called long_job: long_job finished 5 steps" in result.stderr
    bad = cli("subscribe", "demo://readme", "--call", "touch_resource", "--call-args", "[1]", "--", *DEMO)
    assert bad.returncode == 64
    assert "--call-args must be a JSON object" in bad.stderr


def test_a_server_that_pages_for_ever_stops_with_a_clear_error():
    server = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "resources_server.py"), "--endless"]
    result = cli("resources", "--", *server, timeout=120)
    assert result.returncode == 3, result.stderr  # a protocol error
    assert "still sends a nextCursor" in result.stderr and "stopped after" in result.stderr
    assert_no_traceback(result)


def test_malformed_read_contents_are_warned_about():
    server = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "resources_server.py")]
    result = cli("read", "res://odd", "--", *server)
    assert result.returncode == 0, result.stderr  # as call: the result is printed, its problems said
    assert "malformed result: contents[0]: `text` must be a string" in result.stderr
    assert "malformed result: contents[1]: `blob` is not valid base64" in result.stderr
    assert "malformed result: contents[2]: a content item needs a string `uri`" in result.stderr
    not_a_list = cli("read", "res://bad", "--json", "--", *server)
    assert json.loads(not_a_list.stdout) == {"contents": "not an array"}
    assert "malformed result: `contents` must be an array, got str" in not_a_list.stderr
    assert_no_traceback(result)


def test_a_textual_blob_that_is_utf8_is_printed_as_text():
    """text/* and JSON sent as base64 blobs print as text (JSON pretty), said to be blobs; a
    text/plain blob that is not UTF-8 stays a size."""
    server = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "resources_server.py")]
    result = cli("read", "res://textblobs", "--", *server)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert (
        "[resource] res://textblobs#md  (text/markdown)  [base64 blob, 26 bytes of UTF-8 text]\n# Blob title\n\ncafé "
        "*text*" in out
    )
    assert '(application/json)  [base64 blob, 25 bytes of UTF-8 text]\n{\n  "from": "blob",' in out
    assert "[resource] res://textblobs#latin1  (text/plain)  [blob, 4 bytes]" in out
    assert_no_traceback(result)


def test_resources_show_size_annotations_and_icons():
    server = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "resources_server.py")]
    lines = cli("resources", "--", *server).stdout.splitlines()
    assert "  res://bin  bin  (application/octet-stream, 300 bytes)" in lines
    assert "  res://icon  icon  [for user, priority 0.5, modified 2026-01-02T03:04:05Z, 1 icon]" in lines
