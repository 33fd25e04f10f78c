"""Tracing from the command line: OTEL_EXPORTER_OTLP_ENDPOINT / --otlp to a real OTLP receiver, a
plain run importing nothing of OpenTelemetry, and clear errors for a missing extra or a bad URL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from otlp_receiver import Receiver

from mcp_inspector.cli import exit_codes

REPO = Path(__file__).resolve().parents[2]
SDK_SERVER = REPO / "tests" / "servers" / "sdk_server.py"


def run(*argv: str, env: dict[str, str] | None = None, python: list[str] | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    full["PYTHONPATH"] = str(REPO)
    full.update(env or {})
    command = [sys.executable, *(python or ["-m", "mcp_inspector"]), *argv]
    return subprocess.run(command, capture_output=True, text=True, env=full, timeout=60)


def test_the_environment_variable_turns_tracing_on(receiver: Receiver, traced_server: list[str]) -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "TRACED_SERVER_OTLP": receiver.url}
    done = run("call", "add", "a=2", "b=3", "--", *traced_server, env=env)
    assert done.returncode == 0, done.stderr
    assert '"sum": 5' in done.stdout
    # the CLI flushes at exit: the client's span is there when the process has ended
    (client,) = [s for s in receiver.named("tools/call add") if s.service == "mcp-inspector"]
    (server,) = [s for s in receiver.named("tools/call add") if s.service == "traced-server"]
    assert (server.trace_id, server.parent_span_id) == (client.trace_id, client.span_id)
    assert "mcp.client.operation.duration" in receiver.metrics


def test_otlp_flag_exports_to_the_url_given(receiver: Receiver) -> None:
    done = run("--otlp", receiver.url, "tools", "--", sys.executable, str(SDK_SERVER))
    assert done.returncode == 0, done.stderr
    names = {s.name for s in receiver.spans}
    assert "tools/list" in names and {"/v1/traces", "/v1/metrics"} <= set(receiver.posts)


def test_a_plain_run_imports_no_opentelemetry() -> None:
    done = run("tools", "--", sys.executable, str(SDK_SERVER), python=["-X", "importtime", "-m", "mcp_inspector"])
    assert done.returncode == 0, done.stderr
    assert "import time:" in done.stderr  # importtime did report
    assert "opentelemetry" not in done.stderr


MISSING = (
    "import sys; sys.modules['opentelemetry'] = None; "  # as if the extra were not installed
    "from mcp_inspector.cli.main import main; sys.exit(main(sys.argv[1:]))"
)


def test_a_missing_extra_is_a_clear_error() -> None:
    done = run("--otlp", "http://127.0.0.1:9", "tools", "--", sys.executable, str(SDK_SERVER), python=["-c", MISSING])
    assert done.returncode == exit_codes.USAGE
    assert "pip install 'mcp-inspector[otel]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_url_that_is_not_http_is_refused() -> None:
    done = run("--otlp", "127.0.0.1:4318", "tools", "--", sys.executable, str(SDK_SERVER))
    assert done.returncode == exit_codes.USAGE
    assert "http:// or https:// URL" in done.stderr and "Traceback" not in done.stderr
