"""``call`` of a task tool on tests/servers/hostile_tasks_server.py (real pipes): hostile poll
intervals, a task that disappears, a tasks/result that errors, an unknown status, a server
that ignores tasks/cancel: each a clear line and its exit code, never a traceback."""

from __future__ import annotations

import sys

import pytest
from cli_helpers import REPO_ROOT, assert_no_traceback, cli

SERVER = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "hostile_tasks_server.py")]


@pytest.mark.parametrize(
    "tool", ["poll_zero", "poll_negative", "poll_huge", "poll_string", "poll_bigint", "poll_infinity"]
)
def test_hostile_poll_intervals_still_give_the_result(tool):
    result = cli("--progress", "call", tool, "--", *SERVER)
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr  # a 400-digit pollInterval was exit 70, an OverflowError
    assert result.stdout.strip() == f"done {tool}"
    assert f"task {tool}-1 completed" in result.stderr


@pytest.mark.parametrize(
    "tool, code, words",
    [
        ("vanishes", 2, "JSON-RPC error -32602 (Invalid params): Task not found: vanishes-1"),
        ("result_error", 2, "JSON-RPC error -32603 (Internal error): result store broken"),
        ("unknown_status", 3, "unknown status 'paused'"),
    ],
)
def test_broken_tasks_are_a_clear_error_and_exit_code(tool, code, words):
    result = cli("call", tool, "--", *SERVER)
    assert_no_traceback(result)
    assert result.returncode == code, result.stderr
    assert words in result.stderr


def test_a_server_that_ignores_tasks_cancel_is_said_so():
    result = cli("--progress", "--timeout", "1", "call", "ignores_cancel", "--", *SERVER)
    assert_no_traceback(result)
    assert result.returncode == 4, result.stderr
    assert "task ignores_cancel-1 still working after tasks/cancel: the server may go on running it" in result.stderr
    assert "(tasks/cancel was sent)" in result.stderr
