"""Issue 9's CLI, checked again (the audit): a task tool's result against its outputSchema,
task results printed exactly as sent (both eras), the server-output counts (too-long lines
apart; 100,000 log lines on stdout), the capabilities over Streamable HTTP and the legacy SSE
transport, --log-level on every command, and the usage errors of tasks and read. Real
subprocess CLI runs against the demo, server-everything and the raw fixture servers."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import REPO_ROOT, assert_no_traceback, cli, raw, record_lines

DEMO = ["--", sys.executable, "-m", "mcp_inspector.demo"]
SERVERS = REPO_ROOT / "tests" / "servers"
MODERN_RAW = ["--", sys.executable, str(SERVERS / "modern_raw_server.py")]
HOSTILE = ["--", sys.executable, str(SERVERS / "hostile_surface_server.py")]
BAD_TASK = ["call", "long_job", "outcome=bad_output", "steps=1", "duration_seconds=0"]


# -- exit 5 for a task tool's result -----------------------------------------------------


def test_a_task_result_that_violates_the_output_schema_exits_5(record):
    human = cli(*BAD_TASK, "--record", record, *DEMO)
    assert human.returncode == 5, human.stderr
    assert "outputSchema: INVALID" in human.stdout and "$.steps: '1' is not of type 'integer'" in human.stdout
    assert "the call ran as task" in human.stderr
    methods = [r.get("method") for r in record_lines(record) if r.get("dir") == "out"]
    assert "tasks/result" in methods  # the result came by the task, not by the call's reply
    as_json = cli(*BAD_TASK, "--json", *DEMO)
    assert as_json.returncode == 5, as_json.stderr
    assert json.loads(as_json.stdout)["structuredContent"] == {"steps": "1", "note": None}
    assert "structuredContent does not match the outputSchema: $.steps" in as_json.stderr
    queried = cli(*BAD_TASK, "--query", ".structuredContent.steps", *DEMO)
    assert queried.returncode == 5 and queried.stdout == "1\n", queried.stderr
    assert_no_traceback(queried)
    # the same tool ending well is valid: 0
    assert cli("call", "long_job", "steps=1", "duration_seconds=0", *DEMO).returncode == 0


# -- task results exactly as the server sent them -----------------------------------------


def test_call_json_of_a_modern_task_prints_the_result_as_sent(record):
    # the server writes "\u00e9" (json.dumps' ASCII escape): a re-serialization would print é
    result = cli("call", "research", "topic=é", "--json", "--record", record, *MODERN_RAW)
    assert result.returncode == 0, result.stderr
    from mcp_inspector.core.base.jsonrpc import raw_member

    last_get = [r for r in record_lines(record) if r.get("method") == "tasks/get" and r.get("dir") == "out"][-1]
    reply = next(r for r in record_lines(record) if r.get("reply_to") == last_get["seq"])
    exact = raw_member(raw_member(reply["raw"].encode(), "result").encode(), "result")
    assert result.stdout == exact + "\n"
    assert "Report on \\u00e9" in result.stdout


def test_tasks_result_json_prints_the_result_as_sent():
    result = cli("tasks", "result", "accented", "--json", *HOSTILE)
    assert result.returncode == 0, result.stderr
    assert result.stdout == '{"content": [{"type": "text", "text": "caf\\u00e9"}], "isError": false}\n'
    human = cli("tasks", "result", "accented", *HOSTILE)
    assert human.returncode == 0 and human.stdout.strip() == "café"


# -- what the server writes that is not JSON-RPC -------------------------------------------


def test_a_line_over_the_frame_cap_is_counted_as_too_long(tmp_path):
    report = tmp_path / "report.json"
    result = cli("call", "echo", "text=" + "x" * 3000, "--max-frame-size", "1K", "--report", report, "--", *raw())
    assert result.returncode == 3, result.stderr  # the reply was cut: a protocol error
    document = json.loads(report.read_text())
    assert document["invalidFrames"] == document["tooLong"] == 1 and document["notJson"] == 0
    assert "the server wrote 1 invalid stdout line (1 too long)" in result.stderr
    assert_no_traceback(result)


NOISY = """\
import os, sys
out = sys.stdout
for i in range(100_000):
    out.write(f"2026-11-24 INFO noisy server, log line {i}\\n")
out.flush()
os.execv(sys.executable, [sys.executable, sys.argv[1]])
"""

MEASURE = """\
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True)
sys.stdout.buffer.write(done.stdout)
sys.stderr.buffer.write(done.stderr)
print("MAXRSS", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(done.returncode)
"""


def test_a_server_printing_100000_log_lines_on_stdout(tmp_path):
    noisy, measure, report = tmp_path / "noisy.py", tmp_path / "measure.py", tmp_path / "report.json"
    noisy.write_text(NOISY)
    measure.write_text(MEASURE)
    import subprocess

    done = subprocess.run(
        [
            sys.executable,
            str(measure),
            sys.executable,
            "-m",
            "mcp_inspector",
            "tools",
            "--json",
            "--report",
            str(report),
            "--",
            sys.executable,
            str(noisy),
            str(SERVERS / "raw_server.py"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert [tool["name"] for tool in json.loads(done.stdout)["tools"]][:2] == ["echo", "add"]
    document = json.loads(report.read_text())
    assert document["invalidFrames"] == document["notJson"] == 100_000
    lines = done.stderr.splitlines()
    assert len([line for line in lines if "the server wrote a stdout line that is not JSON" in line]) == 10
    assert any("wrote 100000 invalid stdout lines (100000 not JSON) (99990 not shown)" in line for line in lines)
    max_rss_kb = int(lines[-1].split()[1])  # the largest child: the CLI (the server is smaller)
    assert max_rss_kb < 400_000, max_rss_kb  # about 70 MB measured; the store caps what it keeps


# -- the same capabilities (and tools) over every transport --------------------------------


@pytest.mark.everything
@pytest.mark.parametrize("which", ["everything_http_url", "everything_sse_url"])
def test_tools_over_http_and_sse_list_what_stdio_lists(which, request, record):
    url = request.getfixturevalue(which)
    result = cli("tools", "--json", "--record", record, "--url", url, timeout=60)
    assert result.returncode == 0, result.stderr
    names = [tool["name"] for tool in json.loads(result.stdout)["tools"]]
    assert len(names) == 17 and {"get-roots-list", "trigger-sampling-request", "simulate-research-query"} <= set(names)
    initialize = next(r for r in record_lines(record) if r.get("method") == "initialize" and r.get("dir") == "out")
    declared = json.loads(initialize["raw"])["params"]["capabilities"]
    assert declared == {
        "roots": {"listChanged": True},
        "sampling": {"tools": {}},
        "elicitation": {"form": {}, "url": {}},
        "tasks": {},
    }


@pytest.mark.everything
@pytest.mark.parametrize("which", ["everything_http_url", "everything_sse_url"])
def test_subscribe_over_http_and_sse(which, request):
    url = request.getfixturevalue(which)
    uri = "demo://resource/static/document/architecture.md"
    result = cli(
        "subscribe", uri, "--call", "toggle-subscriber-updates", "--count", "1", "--json", "--url", url, timeout=90
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"uri": uri}
    assert "1 update of" in result.stderr


# -- --log-level on every command ----------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["info"],
        ["tools"],
        ["resources"],
        ["templates"],
        ["prompts"],
        ["ping"],
        ["read", "demo://readme"],
        ["get", "summarize", "text=hi"],
        ["complete", "--prompt", "code_review", "language", "py"],
        ["subscribe", "demo://clock", "--count", "1"],
        ["tasks"],
        ["call", "emit_logs", "count=5"],
    ],
)
def test_log_level_goes_with_every_command(command, record):
    result = cli(*command, "--log-level", "warning", "--record", record, *DEMO)
    assert result.returncode == 0, result.stderr
    set_level = [
        json.loads(r["raw"])["params"]
        for r in record_lines(record)
        if r.get("method") == "logging/setLevel" and r.get("dir") == "out"
    ]
    assert set_level == [{"level": "warning"}]
    if command[0] == "call":  # the demo's logs at warning and above, on stderr
        assert "[warning] demo.emit_logs:" in result.stderr and "[info]" not in result.stderr


# -- usage errors --------------------------------------------------------------------------


def test_tasks_usage_errors_say_what_is_wrong():
    missing = cli("tasks", "result", *DEMO)
    assert missing.returncode == 64
    assert missing.stderr.strip() == (
        "mcp-inspector: error: tasks result needs a task ID: mcp-inspector tasks result ID "
        "(mcp-inspector tasks lists them)"
    )
    extra = cli("tasks", "list", "t-1", *DEMO)
    assert extra.returncode == 64 and "tasks list takes no ID (got 't-1')" in extra.stderr


def test_read_of_a_uri_with_an_unmatched_brace_is_a_usage_error():
    for uri, brace in (("demo://notes/{note_id", "{"), ("demo://notes/note_id}", "}"), ("demo://x{a}}", "}")):
        result = cli("read", uri, "note_id=todo", *DEMO)
        assert result.returncode == 64, (uri, result.stderr)
        assert f"{uri} has an unmatched {brace}" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_report_and_log_level_are_refused_where_no_server_runs(tmp_path):
    session = tmp_path / "s.jsonl"
    assert cli("--record", session, "ping", *DEMO).returncode == 0
    report = tmp_path / "report.json"
    for command in (
        ("query", session, ".method", "--report", report),
        ("query", session, ".method", "--log-level", "info"),
        ("auth", "status", "--report", report),
    ):
        result = cli(*command)
        assert result.returncode == 64, (command, result.stderr)
        assert f"--report and --log-level go with a command that runs a server, not {command[0]}" in result.stderr
    assert not report.exists()


# -- tasks result in the 2026-07-28 era waits for the task ------------------------------


@pytest.fixture
def modern_http_url():
    import subprocess

    process = subprocess.Popen(
        [sys.executable, str(SERVERS / "modern_raw_server.py"), "--http"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    assert line.startswith("PORT "), line
    try:
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        process.kill()
        process.wait()


def start_research(url: str, **arguments) -> str:
    """A tools/call of research sent by hand (not by the CLI, which would follow the task):
    the task it starts goes on in the server, for another session to look at."""
    import urllib.request

    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    }
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "research", "arguments": arguments, "_meta": meta},
        }
    ).encode()
    request = urllib.request.Request(
        url,
        body,
        {
            "Content-Type": "application/json",
            "MCP-Protocol-Version": "2026-07-28",
            "Accept": "application/json, text/event-stream",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "research",
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        result = json.loads(response.read())["result"]
    assert result["resultType"] == "task" and result["status"] == "working"
    return result["taskId"]


@pytest.mark.slow
def test_tasks_result_of_a_modern_task_waits_for_its_end(modern_http_url):
    # the server's task moves on at each tasks/get: working first, completed on the next poll
    done = start_research(modern_http_url, topic="tides")
    result = cli("tasks", "result", done, "--progress", "--url", modern_http_url)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Report on tides\n"
    assert f"task {done} working: Gathering sources" in result.stderr
    # one that never ends: --timeout bounds the wait (exit 4), and the task is not cancelled
    never = start_research(modern_http_url, topic="x", never=True)
    waited = cli("tasks", "result", never, "--timeout", "0.5", "--url", modern_http_url)
    assert waited.returncode == 4, waited.stderr
    assert f"task {never} was still 'working' after the --timeout of 0.5 s (not cancelled" in waited.stderr
    state = cli("tasks", "get", never, "--json", "--url", modern_http_url)
    assert state.returncode == 0 and json.loads(state.stdout)["status"] == "working"
    # cancelled by another client: no result, exit 2 as a legacy tasks/result's error (130 is our Ctrl-C)
    cancelled = cli("tasks", "cancel", never, "--url", modern_http_url)
    assert cancelled.returncode == 0 and " cancelled" in cancelled.stdout, cancelled.stderr
    gone = cli("tasks", "result", never, "--url", modern_http_url)
    assert gone.returncode == 2, gone.stderr
    assert f"(task {never}) was cancelled" in gone.stderr
    # one waiting for input the client that created it must give: said, exit 3
    asking = start_research(modern_http_url, topic="x", ask=True)
    stuck = cli("tasks", "result", asking, "--url", modern_http_url)
    assert stuck.returncode == 3 and f"task {asking} is input_required" in stuck.stderr
    assert_no_traceback(stuck)


@pytest.mark.slow
def test_frames_read_only_by_leniency_are_warned_and_counted_apart(tmp_path):
    report = tmp_path / "report.json"
    # a bare NaN (Python's json.dumps writes it; JSON.parse throws): used, but said
    nan = cli("call", "ratio", "a=1", "b=0", "--json", "--report", report, "--", *raw("nan"))
    assert nan.returncode == 0, nan.stderr
    assert nan.stdout.strip() == '{"content":[{"type":"text","text":"nan"}],"structuredContent":{"ratio":NaN}}'
    assert "the server wrote a stdout line that is not strict JSON, read anyway (NaN is not JSON" in nan.stderr
    assert (
        "the server wrote 1 stdout line that is not strict JSON (read anyway): strict clients may reject them"
        in nan.stderr
    )
    document = json.loads(report.read_text())
    assert (document["invalidFrames"], document["notStrictJson"]) == (0, 1)
    assert document["examples"][0]["text"].endswith('"structuredContent":{"ratio":NaN}}}')
    # invalid UTF-8 in a notification, after a line that is not JSON at all: one of each
    utf8 = cli("call", "echo", "text=hi", "--report", report, "--", *raw("invalid-utf8"))
    assert utf8.returncode == 0, utf8.stderr
    document = json.loads(report.read_text())
    assert (document["invalidFrames"], document["notJson"], document["notStrictJson"]) == (1, 1, 1)
    assert "(invalid UTF-8 (bytes replaced with U+FFFD))" in utf8.stderr
    clean = cli("call", "ratio", "a=1", "b=2", "--", *raw("nan"))
    assert clean.returncode == 0 and "warning" not in clean.stderr
    quiet = cli("call", "ratio", "a=1", "b=0", "-q", "--", *raw("nan"))
    assert quiet.stderr == ""


def test_a_commands_own_option_before_the_command_says_so():
    for words, owner in (
        (["--for", "1", "subscribe", "demo://clock"], "--for is an option of subscribe"),
        (["--count=2", "subscribe", "demo://clock"], "--count is an option of subscribe, watch and query"),
        (["--prompt", "code_review", "complete", "language", "py"], "--prompt is an option of complete"),
        (["--task", "call", "long_job"], "--task is an option of call"),
    ):
        result = cli(*words, *DEMO)
        assert result.returncode == 64, (words, result.stderr)
        assert (
            result.stderr
            == f"mcp-inspector: error: {owner}: put it after the command (see mcp-inspector COMMAND --help)\n"
        )
    # after the command, and as a value, they are what they are
    assert cli("complete", "--prompt", "code_review", "language", "py", *DEMO).stdout.splitlines()[0] == "python"
    assert cli("call", "echo", "message=--for", "--json", *DEMO).returncode == 0


# -- subscribe over Streamable HTTP when the server dies ------------------------------------


def subscribe_then_stop(server, uri: str, *extra: str, tmp_path: Path) -> tuple[int, str]:
    """Run subscribe against ``server`` (a RunningServer), stop the server once subscribed;
    (the exit code, stderr)."""
    import subprocess

    err = tmp_path / "stderr"
    with err.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "mcp_inspector", "subscribe", uri, "--url", server.url, *extra],
            stdout=subprocess.PIPE,
            stderr=sink,
        )
        try:
            for _ in range(1200):  # at most a minute, for the subscription to be made
                if "subscribed to" in err.read_text():
                    break
                time.sleep(0.05)
            server.stop()
            process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            server.stop()
    return process.returncode, err.read_text()


@pytest.mark.everything
def test_subscribe_over_streamable_http_ends_when_the_server_is_gone(server_everything, tmp_path):
    # legacy: the updates ride the standalone GET stream; once the server is unreachable it is
    # given up, and with it any update: exit 3 (it waited for ever before)
    from http_fixtures import start_everything

    uri = "demo://resource/static/document/architecture.md"
    code, text = subscribe_then_stop(start_everything(server_everything, "streamableHttp"), uri, tmp_path=tmp_path)
    assert code == 3, text
    assert "no update can arrive any more: standalone SSE stream: cannot connect to" in text
    assert f"0 updates of {uri}" in text
    assert "Traceback" not in text


def test_subscribe_modern_over_http_ends_when_the_server_is_gone(tmp_path):
    # 2026-07-28: the session reopens the broken listen stream for ever; a round trip while it
    # is down finds the server gone: exit 3
    from http_fixtures import start_sdk_http_server

    code, text = subscribe_then_stop(start_sdk_http_server(), "info://server", "--era", "modern", tmp_path=tmp_path)
    assert code == 3, text
    assert "the subscriptions/listen stream is down and the server cannot be reached" in text
    assert "Traceback" not in text


def test_subscribe_for_bounds_an_unanswered_subscribe(tmp_path):
    # hang://x is never answered: --for 1 ends it (exit 4), not the 60 s default timeout
    result = cli("subscribe", "hang://x", "--for", "1", *HOSTILE, timeout=30)
    assert result.returncode == 4, result.stderr
    assert "resources/subscribe timed out: no response within the timeout of 1 s" in result.stderr
    assert_no_traceback(result)
