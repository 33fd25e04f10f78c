"""Which command lines start the server before the CLI's imports (cli/early.py), and that such a
start changes nothing a user sees: output, messages and exit codes are the normal route's."""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli, raw

from mcp_inspector.cli.early import early_command

SERVER = ["python", "server.py", "--flag"]


@pytest.mark.parametrize(
    "own",
    [
        ["tools"],
        ["--json", "info"],
        ["pipe", "-q"],
        ["call", "add", "a=1", "b=2", "--json"],
        ["call", "--timeout", "5", "add", "--args", '{"a": 1}', "--task"],
        ["read", "demo://notes/{id}", "id=3"],
        ["get", "summarize", "text=hi", "--record", "out.jsonl"],
    ],
)
def test_a_plain_stdio_command_starts_its_server_at_once(own):
    assert early_command([*own, "--", *SERVER]) == SERVER


@pytest.mark.parametrize(
    "own",
    [
        [],  # the TUI
        ["tools", "--cwd", "/tmp"],  # how the server starts: the normal route
        ["-e", "A=1", "tools"],
        ["tools", "prompts"],  # two commands: a usage error for the parser to say
        ["tools", "extra"],  # a quick command takes no words
        ["call", "add", "--unknown"],
        ["tasks", "get", "t1"],  # not a command started early
        ["call", "add", "--timeout"],  # an option without its value
        ["--config", "servers.json", "tools"],
    ],
)
def test_anything_else_takes_the_normal_route(own):
    assert early_command([*own, "--", *SERVER]) is None
    assert early_command(own) is None  # no server command at all


def test_call_started_early_agrees_with_the_normal_start():
    command = ("call", "echo", "text=hi", "--json", "--", *raw())
    fast, full = cli(*command), cli(*command, early_start=False)
    assert fast.returncode == full.returncode == 0, (fast.stderr, full.stderr)
    assert json.loads(fast.stdout) == json.loads(full.stdout)


def test_a_server_that_cannot_run_gets_the_normal_message_and_exit_code(tmp_path):
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o600)  # not executable
    fast = cli("call", "echo", "--", str(script))
    full = cli("call", "echo", "--", str(script), early_start=False)
    assert fast.returncode == full.returncode == 3
    assert fast.stderr == full.stderr == f"mcp-inspector: error: cannot start the server: permission denied: {script}\n"
