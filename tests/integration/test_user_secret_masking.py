"""Secrets the user gave (``--bearer-token``, a secret ``-H`` value, a secret in the URL) are
masked wherever a server echoes them and we write it: the ``--record`` file, the ``--report``,
the output. (OAuth tokens already were: ``masking.remember_secret``.) A real HTTP server on
127.0.0.1 whose ``echo_headers`` tool answers the headers it received."""

from __future__ import annotations

import subprocess
import sys

from origin_servers import OriginServer

BEARER = "sk-live-bearer-0123456789"
API_KEY = "apikey-9876543210-zyxw"
URL_TOKEN = "urltoken-1111222233334444"


def test_a_server_echoing_the_users_secrets_has_them_masked_in_the_record_report_and_output(tmp_path):
    record, report = tmp_path / "session.jsonl", tmp_path / "report.md"
    with OriginServer() as server:
        result = subprocess.run(
            [sys.executable, "-m", "mcp_inspector", "--url", f"{server.url}/mcp?access_token={URL_TOKEN}"]
            + ["--transport", "streamable-http", "--bearer-token", BEARER, "-H", f"X-Api-Key: {API_KEY}"]
            + ["--record", str(record), "--report", str(report), "call", "echo_headers"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        echoed = [r for r in server.requests if r["headers"].get("x-api-key") == API_KEY]
    assert result.returncode == 0, result.stderr
    assert echoed and echoed[-1]["headers"]["authorization"] == f"Bearer {BEARER}"  # they were sent
    assert "x-api-key" in result.stdout and "sk-l" in result.stdout  # the echo is shown, masked
    written = {"stdout": result.stdout, "stderr": result.stderr, "record": record.read_text()}
    written["report"] = report.read_text()
    for where, text in written.items():
        for secret in (BEARER, API_KEY, URL_TOKEN):
            assert secret not in text, f"{secret} in the {where}"
    assert "echo_headers" in written["record"]


def test_a_stdio_server_echoing_a_secret_env_value_has_it_masked(tmp_path):
    """``-e API_TOKEN=...`` for a stdio server, which answers it back (raw_server.py's ``env`` tool)."""
    from conftest import raw_server_command

    record = tmp_path / "session.jsonl"
    secret = "env-secret-5555666677778888"
    result = subprocess.run(
        [sys.executable, "-m", "mcp_inspector", "-e", f"API_TOKEN={secret}", "--record", str(record)]
        + ["call", "env", "name=API_TOKEN", "--", *raw_server_command("echo-env")],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    assert "env-•••" in result.stdout
    for where, text in {"stdout": result.stdout, "stderr": result.stderr, "record": record.read_text()}.items():
        assert secret not in text, f"the secret in the {where}"
