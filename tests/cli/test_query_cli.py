"""--query on call, read, get and the listings, against the demo; `query` over a recording."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_no_traceback, cli


def test_call_query_prints_outputs_one_a_line_strings_raw():
    result = cli(
        "call", "weather_report", "city=Oslo", "--query", ".structuredContent | .city, .humidity_percent, {conditions}"
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Oslo" and lines[1] == "61"  # a string raw (jq -r), a number as JSON
    assert json.loads(lines[2]) == {"conditions": json.loads(lines[2])["conditions"]} and lines[2].startswith(
        '{"conditions":'
    )
    as_json = cli("call", "weather_report", "city=Oslo", "--query", ".structuredContent.city", "--json")
    assert as_json.returncode == 0 and as_json.stdout == '"Oslo"\n'  # --json: strings quoted too (jq -c)


def test_call_query_runs_on_the_result_as_received_and_keeps_the_exit_code():
    echoed = cli("call", "echo", "message=hi there", "--query", ".content[0].text")
    assert echoed.returncode == 0 and echoed.stdout == "hi there\n"
    failing = cli("call", "failing_tool", "reason=disk full", "--query", ".isError")
    assert failing.returncode == 1 and failing.stdout == "true\n"  # isError still exits 1


def test_read_get_and_listings_take_a_query():
    read = cli("read", "demo://readme", "--query", ".contents[0] | .uri, .mimeType")
    assert read.returncode == 0 and read.stdout.splitlines() == ["demo://readme", "text/markdown"]
    got = cli("get", "explain_error", "error=x", "language=python", "--query", ".messages[] | .role")
    assert got.returncode == 0 and set(got.stdout.split()) == {"user"}
    tools = cli("tools", "--query", '.tools[] | select(.name == "add") | .inputSchema.required')
    assert tools.returncode == 0 and json.loads(tools.stdout) == ["a", "b"]
    info = cli("info", "--query", ".serverInfo.name")
    assert info.returncode == 0 and info.stdout == "mcp-inspector-demo\n"


def test_a_bad_expression_is_a_usage_error_before_connecting(tmp_path):
    marker = tmp_path / "started"
    server = ["sh", "-c", f"touch {marker}; sleep 5"]
    result = cli("call", "echo", "message=x", "--query", ".content[0].text |", "--", *server)
    assert result.returncode == 64
    assert result.stderr.strip().splitlines() == [
        "mcp-inspector: error: --query: syntax error, unexpected end of file (column 18)"
    ]
    assert not marker.exists()  # the server was never started
    elsewhere = cli("ping", "--query", ".")
    assert elsewhere.returncode == 64 and "--query goes with call" in elsewhere.stderr


def test_an_error_of_the_expression_on_the_result_exits_6_after_what_it_printed():
    result = cli("call", "echo", "message=hi", "--query", ".content[0].text, (.content | .x)")
    assert result.returncode == 7 and result.stdout == "hi\n"
    assert "query: Cannot index array with string" in result.stderr
    assert_no_traceback(result)


@pytest.fixture(scope="module")
def recording(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("query") / "run.jsonl"
    made = cli("--record", path, "call", "long_running_task", "duration_seconds=0.3", "steps=3")
    assert made.returncode == 0, made.stderr
    return path


def test_query_over_a_recording(recording):
    progress = cli("query", recording, 'select(.method == "notifications/progress") | .params.progress')
    assert progress.returncode == 0, progress.stderr
    assert progress.stdout.splitlines() == ["1", "2", "3"]
    sent = cli("query", recording, ".method", "--direction", "out")
    assert sent.stdout.splitlines()[-1] == "tools/call" and "notifications/progress" not in sent.stdout
    counted = cli("query", recording, '.method == "notifications/progress"', "--count")
    assert counted.returncode == 0 and counted.stdout == "3\n"
    frames = cli("query", recording, '.method == "tools/call"', "--frames")
    [line] = frames.stdout.splitlines()
    assert json.loads(line)["params"]["name"] == "long_running_task"
    missing = cli("query", recording, ".result.content[]")  # most frames have no result: said once
    assert missing.returncode == 0 and "Finished 3 steps" in missing.stdout
    assert missing.stderr.count("\n") == 1 and "a ? skips what is missing" in missing.stderr


def test_query_on_bad_files_and_expressions(tmp_path, recording):
    not_session = tmp_path / "notes.txt"
    not_session.write_text("hello\n")
    for path, said in (
        (tmp_path / "nope.jsonl", "cannot open"),
        (not_session, "not an mcp-inspector session file"),
        (tmp_path, "is a directory"),
    ):
        result = cli("query", path, ".")
        assert result.returncode == 64 and said in result.stderr, result.stderr
        assert len(result.stderr.splitlines()) == 1
    bad = cli("query", recording, "select(")
    assert bad.returncode == 64 and "query: syntax error" in bad.stderr
    crafted = tmp_path / "crafted.jsonl"
    lines = recording.read_text().splitlines()
    crafted.write_text("\n".join([lines[0], "{not json", '{"seq": "x"}', *lines[1:]]) + "\n")
    result = cli("query", crafted, '.method == "tools/call"', "--count")
    assert result.returncode == 0 and result.stdout == "1\n"
    assert "2 unreadable lines skipped (first: line 2)" in result.stderr
    assert_no_traceback(result)
