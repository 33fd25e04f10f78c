"""The official conformance suite's server scenarios and ``mcp-inspector check`` on the same
server-everything over Streamable HTTP: they agree on its transport defects.

The suite (``conformance server --url URL --spec-version 2025-11-25``) fails two checks that are
real defects: ``localhost-host-rebinding-rejected`` (a request with Host/Origin evil.example.com
is served with 200) and ``server-session-terminated-returns-404`` (a terminated session id gets
400). The check reports both (``http-origin``, ``http-session-unknown``) and no other error. The
suite's other failures are scenarios bound to the SDK's conformance fixture server (tools named
``test_*``, prompts and resources server-everything does not have): listed here, so that a new
kind of failure is seen.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import run_suite
from http_fixtures import start_everything

pytestmark = pytest.mark.slow

#: the suite's check id -> the check's rule that judges the same thing
SAME_DEFECT = {
    "localhost-host-rebinding-rejected": "http-origin",
    "server-session-terminated-returns-404": "http-session-unknown",
}
#: scenarios that need the SDK's conformance fixture server (its tool, prompt and resource names)
FIXTURE_BOUND = {
    "completion-complete",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    "prompts-get-embedded-resource",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-with-image",
    "resources-read-binary",
    "resources-read-text",
    "resources-templates-read",
    "tools-call-audio",
    "tools-call-elicitation",
    "tools-call-embedded-resource",
    "tools-call-image",
    "tools-call-mixed-content",
    "tools-call-sampling",
    "tools-call-with-logging",
    "tools-call-with-progress",
}


#: the suite names each result folder "<scenario>-<ISO time>", seconds and all: 2026-11-28T07-21-20
TIMESTAMP = re.compile(r"-\d{4}-\d{2}-\d{2}T[\d-]*(?:\.\d+)?Z?$")


def suite_failures(url: str) -> dict[str, tuple[str, str]]:
    """check id -> (scenario, error message) of every FAILURE of the server suite."""
    with tempfile.TemporaryDirectory(prefix="mcpi-server-suite-") as out:
        command = [str(run_suite.NODE), str(run_suite.suite_entry()), "server", "--url", url]
        command += ["--spec-version", "2025-11-25", "-o", out]
        subprocess.run(command, capture_output=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})
        failed = {}
        runs = sorted(Path(out).glob("*/checks.json"))
        assert runs, "the suite wrote no results"
        for path in runs:
            scenario = TIMESTAMP.sub("", path.parent.name.removeprefix("server-"))
            for check in json.loads(path.read_text()):
                if check.get("status") == "FAILURE":
                    failed[check["id"]] = (scenario, check.get("errorMessage") or "")
        return failed


def test_the_check_reports_what_the_server_suite_reports_on_server_everything_http(server_everything):
    missing = run_suite.installed()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"conformance suite not runnable in CI: {missing}")
        pytest.skip(f"conformance suite not runnable: {missing}")
    server = start_everything(server_everything, "streamableHttp")
    try:
        failed = suite_failures(server.url)
        check = [sys.executable, "-m", "mcp_inspector", "check", "--json", "--url", server.url]
        result = subprocess.run(check, capture_output=True, text=True, timeout=180, cwd=run_suite.REPO)
    finally:
        server.stop()
    assert "Traceback" not in result.stderr, result.stderr
    document = json.loads(result.stdout)
    errors = {f["rule"] for f in document["findings"] if f["severity"] == "error"}

    # the suite: its transport failures are the two defects, the rest are fixture-bound scenarios
    unexplained = {cid: why for cid, why in failed.items() if cid not in SAME_DEFECT and why[0] not in FIXTURE_BOUND}
    assert unexplained == {}, unexplained
    assert set(SAME_DEFECT) <= set(failed), failed
    assert "got 200" in failed["localhost-host-rebinding-rejected"][1]
    assert "got 400" in failed["server-session-terminated-returns-404"][1]
    # the check: the same two, and nothing else at error
    assert errors == set(SAME_DEFECT.values()), document["findings"]
    assert result.returncode == 8
