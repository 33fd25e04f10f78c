"""The CLI on a flood of server requests (``tests/servers/request_flood_server.py``): it
answers (declines, or refuses beyond those allowed to wait at once: core/protocol/incoming.py)
and says so in a bounded number of warning lines, not one per request."""

from __future__ import annotations

import sys
from pathlib import Path

from cli_helpers import assert_no_traceback, cli

from mcp_inspector.cli.dispatch import ANSWER_WARNINGS

SERVER = [sys.executable, str(Path(__file__).resolve().parent.parent / "servers" / "request_flood_server.py")]
FLOOD = 1000


def test_the_cli_answers_a_flood_with_a_bounded_number_of_warnings():
    result = cli("tools", "--", *SERVER, "--flood-on-start", str(FLOOD), timeout=60)
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert "(2 tools)" in result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) <= ANSWER_WARNINGS + 2, lines[-5:]  # the first ones, "the rest are not shown", the refusal
    assert f"more than {ANSWER_WARNINGS} warnings about answers to the server" in result.stderr
