"""A 10,000-property inputSchema through the CLI (issue 19, item 14): the call is checked once and
sent at once, and the 10,000 "required" warnings are said as three and a count (they were 10,000
lines). A real server over real pipes (tests/servers/big_schema_server.py)."""

from __future__ import annotations

import sys

from cli_helpers import REPO_ROOT, assert_no_traceback, cli

SERVER = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "big_schema_server.py"), "--properties", "10000"]


def test_ten_thousand_missing_arguments_are_four_warning_lines():
    result = cli("call", "wide", "--", *SERVER, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    warnings = [line for line in result.stderr.splitlines() if line.startswith("mcp-inspector: warning:")]
    assert warnings == [
        "mcp-inspector: warning: argument $: 'p0' is a required property (sending anyway)",
        "mcp-inspector: warning: argument $: 'p1' is a required property (sending anyway)",
        "mcp-inspector: warning: argument $: 'p2' is a required property (sending anyway)",
        "mcp-inspector: warning: …and 9,997 more like this (argument $: … is a required property (sending anyway))",
    ]
    assert_no_traceback(result)
