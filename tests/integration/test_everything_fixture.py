"""The server_everything fixture: skip locally when absent, but fail in CI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TARGET = "tests/integration/test_server_everything.py::test_initialize_and_every_list"


def run_pytest(**env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("CI", "MCP_SERVER_EVERYTHING")}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-m", "pytest", TARGET, "-q", "-rsf", "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_missing_server_everything_skips_with_a_reason() -> None:
    done = run_pytest(MCP_SERVER_EVERYTHING="/nonexistent/mcp-server-everything")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout
    assert "/nonexistent/mcp-server-everything" in done.stdout and "does not exist" in done.stdout


def test_missing_server_everything_fails_in_ci() -> None:
    done = run_pytest(MCP_SERVER_EVERYTHING="/nonexistent/mcp-server-everything", CI="true")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 error" in done.stdout or "1 failed" in done.stdout
    assert "required in CI" in done.stdout
