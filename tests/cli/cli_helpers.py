"""Helpers for CLI tests: run the real ``python -m mcp_inspector`` as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
RAW_SERVER = REPO_ROOT / "tests" / "servers" / "raw_server.py"


def raw(*modes: str, **options) -> list[str]:
    command = [sys.executable, str(RAW_SERVER)]
    if modes:
        command += ["--mode", ",".join(modes)]
    for name, value in options.items():
        command += [f"--{name.replace('_', '-')}", str(value)]
    return command


def cli(
    *args: str,
    input: str | bytes | None = None,
    timeout: float = 30,
    env: dict | None = None,
    cwd: str | Path | None = None,
    early_start: bool = True,
) -> subprocess.CompletedProcess:
    """Run the CLI; text output; never hangs (subprocess timeout)."""
    full_env = dict(os.environ)
    full_env.pop("MCP_INSPECTOR_NO_EARLY_START", None)
    if not early_start:
        full_env["MCP_INSPECTOR_NO_EARLY_START"] = "1"
    full_env.update(env or {})
    data = input.encode() if isinstance(input, str) else input
    result = subprocess.run(
        [sys.executable, "-m", "mcp_inspector", *map(str, args)],
        input=data if data is not None else b"",
        capture_output=True,
        timeout=timeout,
        env=full_env,
        cwd=cwd,
    )
    return subprocess.CompletedProcess(
        result.args,
        result.returncode,
        result.stdout.decode("utf-8", "replace"),
        result.stderr.decode("utf-8", "replace"),
    )


def assert_no_traceback(result: subprocess.CompletedProcess) -> None:
    """Our own errors never show a traceback (the server's stderr tail is indented, so allowed)."""
    assert not any(line.startswith("Traceback") for line in result.stderr.splitlines()), result.stderr


def record_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def recorded_reply(records: list[dict], method: str) -> dict:
    """The recorded response (or error) to the last request with ``method``."""
    request = [
        r for r in records if r.get("dir") == "out" and r.get("kind") == "request" and r.get("method") == method
    ][-1]
    return next(r for r in records if r.get("reply_to") == request["seq"] and r.get("dir") == "in")
