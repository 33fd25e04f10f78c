"""core.config.cli_command: the "copy as CLI command" line must really run the call when pasted into a shell."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from cli_helpers import raw

from mcp_inspector.core.config.cli_command import call_command_line
from mcp_inspector.core.config.servers import ServerSpec, demo_spec, server_from_config


def run_in_shell(command_line: str, tmp_path: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the line with ``sh -c`` and an ``mcp-inspector`` on PATH that is this checkout's CLI
    (``env``: variables of the shell it is pasted into)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "mcp-inspector"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m mcp_inspector "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ, **(env or {}), PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run(
        ["sh", "-c", command_line],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )


def test_demo_call_line_runs_the_call(tmp_path):
    arguments = {"message": 'it\'s "quoted" $HOME `x` ünïcode'}
    line = call_command_line(demo_spec(), "echo", arguments)
    assert line.startswith("mcp-inspector call echo --args ") and line.endswith("--demo")
    result = run_in_shell(line, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == arguments["message"] + "\n"


def test_command_line_spec_with_env_and_cwd(tmp_path):
    spec = ServerSpec(
        "raw", raw("echo-env"), env={"GREETING": "hello world; rm -rf /"}, cwd=str(tmp_path), source="command line"
    )
    line = call_command_line(spec, "env", {"name": "GREETING"})
    # the value (often a secret: it goes to the clipboard and a toast) comes from the shell, not the line
    assert ' -e GREETING="$GREETING"' in line and "hello world" not in line
    assert f" --cwd {shlex.quote(str(tmp_path))}" in line and " -- " in line
    result = run_in_shell(line, tmp_path, env={"GREETING": "hello world; rm -rf /"})
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello world; rm -rf /\n"


def test_config_spec_uses_config_and_server_and_only_extra_env(tmp_path):
    command = raw("echo-env")
    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "my server": {"command": command[0], "args": command[1:], "env": {"SECRET": "from-config"}}
                }
            }
        )
    )
    spec = server_from_config(config, "my server").with_overrides(env={"EXTRA": "added"})
    line = call_command_line(spec, "env", {"name": "EXTRA"})
    assert f"--config {shlex.quote(str(config))} --server 'my server'" in line
    assert "SECRET" not in line  # already in the config file: not repeated (nor leaked)
    assert '-e EXTRA="$EXTRA"' in line and "added" not in line and " -- " not in line
    result = run_in_shell(line, tmp_path, env={"EXTRA": "added"})
    assert result.returncode == 0, result.stderr
    assert result.stdout == "added\n"


def test_env_values_never_appear_in_the_line(tmp_path):
    """Secrets from -e, the TUI's ``KEY=value cmd`` or a config's env stay out of the copied line."""
    secret = "sk-live-0123456789abcdef"
    spec = ServerSpec("raw", raw("echo-env"), env={"API_KEY": secret, "odd-name": secret}, source="command line")
    line = call_command_line(spec, "env", {"name": "API_KEY"})
    assert secret not in line
    assert ' -e API_KEY="$API_KEY"' in line and " -e 'odd-name=<value of odd-name>'" in line
    assert secret not in repr(spec)  # nor in any message or log that shows the spec
    result = run_in_shell(line, tmp_path, env={"API_KEY": secret})
    assert result.returncode == 0, result.stderr
    # The server got the value (it echoes it), and the CLI masks it as a secret the user gave.
    assert result.stdout == secret[:4] + "\u2022\u2022\u2022\n"


def test_config_that_vanished_is_spelled_out_without_config_options(tmp_path):
    command = raw("echo-env")
    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps({"mcpServers": {"s": {"command": command[0], "args": command[1:], "env": {"TOKEN": "t0k"}}}})
    )
    spec = server_from_config(config, "s")
    config.unlink()
    line = call_command_line(spec, "env", {"name": "TOKEN"})
    assert "--config" not in line and "t0k" not in line and ' -e TOKEN="$TOKEN"' in line and " -- " in line
    result = run_in_shell(line, tmp_path, env={"TOKEN": "t0k"})
    assert result.returncode == 0, result.stderr
    assert result.stdout == "t0k\n"
