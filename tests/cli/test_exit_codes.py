"""Every exit code, with one clear error line and never a traceback."""

from __future__ import annotations

import json
import sys

from cli_helpers import assert_no_traceback, cli, raw, record_lines


def test_is_error_result_exits_1():
    result = cli("call", "echo", "text=x", "--", *raw("is-error"))
    assert result.returncode == 1
    assert result.stdout.startswith("ERROR: the tool reported a failure (isError: true)\nbad")
    as_json = cli("call", "echo", "text=x", "--json", "--", *raw("is-error"))
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["isError"] is True


def test_json_rpc_error_exits_2_and_json_prints_the_error_object():
    result = cli("call", "no_such_tool", "--json", "--", *raw())
    assert result.returncode == 2
    assert json.loads(result.stdout) == {"code": -32602, "message": "Unknown tool: no_such_tool"}
    assert (
        "error: tools/call no_such_tool failed: JSON-RPC error -32602 (Invalid params): Unknown tool: no_such_tool"
        in result.stderr
    )
    unknown_resource = cli("read", "demo://nope")
    assert unknown_resource.returncode == 2 and "resources/read failed: JSON-RPC error" in unknown_resource.stderr
    assert_no_traceback(unknown_resource)


def test_url_elicitation_required_exits_2_and_lists_each_url_on_stderr():
    result = cli("call", "signin", "--", *raw("url-required"))
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0] == (
        "mcp-inspector: error: tools/call signin failed: JSON-RPC error -32042 "
        "(URL elicitation required): Sign in first"
    )
    assert lines[1:] == [
        "the server needs these 2 URLs opened and completed in a browser first, then the same call again:",
        "  https://auth.example/start   (opens a page on auth.example)",
        "    Sign in to Example",
        "  https://pay.example/approve   (opens a page on pay.example)",
        "    Approve the payment",
    ]
    as_json = cli("call", "signin", "--json", "--", *raw("url-required"))
    assert as_json.returncode == 2 and json.loads(as_json.stdout)["code"] == -32042
    assert "https://pay.example/approve" in as_json.stderr
    assert_no_traceback(as_json)


def test_crash_during_call_exits_3_with_the_stderr_tail_and_the_record_survives(record):
    result = cli("call", "echo", "text=x", "--record", record, "--", *raw("crash-on-call"))
    assert result.returncode == 3
    lines = result.stderr.splitlines()
    assert "mcp-inspector: error: the server exited with code 3 during tools/call echo" in lines
    assert "  fatal: boom" in lines
    assert_no_traceback(result)
    from mcp_inspector.core.traffic.loading import load_session

    entries = list(load_session(record).store)
    assert any(e.kind == "stderr" and e.raw == b"fatal: boom" for e in entries)
    assert entries[-1].kind == "event" and (entries[-1].meta or {}).get("exit_code") == 3


def test_killed_by_signal_exits_3():
    result = cli("call", "echo", "--", *raw("die-by-signal"))
    assert result.returncode == 3
    assert "the server was killed by signal 9 (SIGKILL) during tools/call echo" in result.stderr


def test_timeout_exits_4_and_cancels(record):
    result = cli("call", "echo", "text=x", "--timeout", "0.5", "--record", record, "--", *raw("never-answer"))
    assert result.returncode == 4
    assert (
        "tools/call timed out: no response within the timeout of 0.5 s (notifications/cancelled was sent)"
        in result.stderr
    )
    records = record_lines(record)
    call = next(r for r in records if r.get("method") == "tools/call")
    cancelled = [r for r in records if r.get("method") == "notifications/cancelled"]
    assert len(cancelled) == 1 and json.loads(cancelled[0]["raw"])["params"]["requestId"] == call["id"]
    fast = cli("tools", "--timeout", "0.3", "--", "sh", "-c", "cat >/dev/null")  # never answers, exits on EOF
    assert fast.returncode == 4 and "the handshake timed out" in fast.stderr


def test_usage_errors_exit_64(tmp_path):
    bad_pair = cli("call", "echo", "novalue")
    assert bad_pair.returncode == 64 and "expected key=value, got 'novalue'" in bad_pair.stderr
    bad_args = cli("call", "echo", "--args", "[1]")
    assert bad_args.returncode == 64 and "--args must be a JSON object" in bad_args.stderr
    missing_file = cli("call", "echo", "message=@/no/such/file.json")
    assert missing_file.returncode == 64 and "file not found: /no/such/file.json" in missing_file.stderr
    missing_config = cli("--config", tmp_path / "missing.json", "tools")
    assert missing_config.returncode == 64 and "config file not found" in missing_config.stderr
    bad_option = cli("tools", "--frobnicate")
    assert bad_option.returncode == 64 and "unknown option --frobnicate" in bad_option.stderr
    stray = cli("tools", "python", "server.py")
    assert stray.returncode == 64 and "put the server command after --" in stray.stderr
    bad_timeout = cli("ping", "--timeout", "soon")
    assert bad_timeout.returncode == 64
    url = cli("--url", "ftp://localhost:1234/mcp", "tools")
    assert url.returncode == 64 and "--url must start with http:// or https://" in url.stderr
    for result in (bad_pair, bad_args, missing_file, missing_config, bad_option, stray, bad_timeout, url):
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert result.stderr.startswith("mcp-inspector: error: ")


def test_command_not_found_exits_3():
    for command in ("tools", "call"):
        result = (
            cli(command, "x", "--", "definitely-not-a-command-xyz")
            if command == "call"
            else cli(command, "--", "definitely-not-a-command-xyz")
        )
        assert result.returncode == 3
        assert (
            result.stderr
            == "mcp-inspector: error: cannot start the server: command not found: definitely-not-a-command-xyz\n"
        )


def test_server_failing_at_start_and_bad_handshake_exit_3():
    started = cli("call", "echo", "--", *raw("exit-on-start"))
    assert started.returncode == 3
    assert "the server exited with code 1 during initialize" in started.stderr
    assert "  cannot start: missing API_KEY" in started.stderr
    version = cli("info", "--", *raw("unsupported-version"))
    assert (
        version.returncode == 3 and "handshake failed: the server chose protocol version '1999-01-01'" in version.stderr
    )


def test_open_missing_session_file_is_a_usage_error(tmp_path):
    result = cli("--open", tmp_path / "nope.jsonl")
    assert result.returncode == 64 and "session file not found" in result.stderr


def test_open_a_file_that_is_not_a_session_is_a_usage_error(tmp_path):
    bogus = tmp_path / "notes.jsonl"
    bogus.write_text("hello\n")
    result = cli("--open", bogus)
    assert result.returncode == 64
    assert "is not an mcp-inspector session file" in result.stderr and "Traceback" not in result.stderr


def test_interrupt_exits_130_without_traceback():
    import signal
    import subprocess

    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_inspector", "call", "slow", "seconds=20", "--progress", "--", *raw()],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        first = process.stderr.readline()  # the first progress line: the call is in flight
        assert b"progress" in first
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130
    assert err.decode().splitlines()[-1] == "mcp-inspector: error: interrupted"
    assert b"Traceback" not in err


def test_closed_stdout_is_not_an_error():
    """``mcp-inspector call ... | head -0``: the reader is gone before we print."""
    import subprocess

    for args in (["call", "echo", "message=hi"], ["tools"]):
        process = subprocess.Popen(
            [sys.executable, "-m", "mcp_inspector", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        process.stdout.close()
        _, err = process.communicate(timeout=30)
        assert process.returncode == 0, err
        assert b"error" not in err and b"Traceback" not in err
