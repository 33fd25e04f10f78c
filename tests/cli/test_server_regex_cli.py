"""A server's regular expressions never hang the CLI (issue 19, item 1).

``^(a+)+$`` against ``"a" * 34 + "!"`` ran for ever in Python's ``re`` with the GIL held: a call
whose outputSchema, propertyNames or patternProperties held it, or ``--elicitation defaults`` on
a requestedSchema with it, never ended and ignored ctrl+c. Every server pattern now goes through
RE2 (core/schema/server_regex.py). A real server over real pipes (tests/servers/regex_server.py);
each test is bounded (the CLI's subprocess timeout; the stuck process is the CLI, not pytest).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import REPO_ROOT, assert_no_traceback, cli
from waiting import until_sync

SERVER = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "regex_server.py")]
EVIL = "^(a+)+$"
EVIL_TEXT = "a" * 34 + "!"

pytestmark = pytest.mark.timeout(90)


def test_an_output_schema_pattern_that_backtracks_for_ever_is_a_verdict():
    result = cli("call", "evil_output", "--", *SERVER, timeout=30)
    assert result.returncode == 5, result.stderr  # the outputSchema's verdict: not matched
    assert f"$.v: '{EVIL_TEXT}' does not match '{EVIL}'" in result.stdout
    assert_no_traceback(result)


def test_property_names_and_pattern_properties_that_backtrack_for_ever():
    result = cli("call", "evil_names", "--", *SERVER, timeout=30)
    assert result.returncode == 5, result.stderr
    assert f"'{EVIL_TEXT}' does not match '{EVIL}'" in result.stdout  # propertyNames
    # additionalProperties: false with patternProperties: the key matches no pattern
    assert f"'{EVIL_TEXT}' does not match any of the regexes: '{EVIL}'" in result.stdout


def test_an_input_schema_pattern_is_checked_before_the_call():
    result = cli("call", "evil_input", f"q={EVIL_TEXT}", "--", *SERVER, timeout=30)
    assert result.returncode == 0, result.stderr
    assert f"argument $.q: '{EVIL_TEXT}' does not match '{EVIL}' (sending anyway)" in result.stderr
    assert result.stdout.strip() == "ok"


def test_elicitation_defaults_against_a_pattern_that_backtracks_for_ever(tmp_path):
    log = tmp_path / "log"
    result = cli("call", "ask", "--elicitation", "defaults", "--", *SERVER, "--log", str(log), timeout=30)
    assert result.returncode == 0, result.stderr
    assert f"$.name: '{EVIL_TEXT}' does not match '{EVIL}'); declined" in result.stderr
    assert json.loads(log.read_text().splitlines()[-1].removeprefix("elicitation answer ")) == {"action": "decline"}


def test_a_pattern_beyond_re2_is_said_to_be_unchecked_never_passed_silently():
    result = cli("call", "backref_output", "--", *SERVER, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "outputSchema: valid (not every pattern checked)" in result.stdout
    assert "note: pattern '^(a)\\\\1$' not checked: a backreference (\\1) is beyond" in result.stdout
    as_json = cli("call", "backref_output", "--json", "--", *SERVER, timeout=30)
    assert as_json.returncode == 0
    assert "outputSchema: pattern '^(a)\\\\1$' not checked" in as_json.stderr


def test_ctrl_c_is_answered_at_once_while_a_server_pattern_is_being_matched(tmp_path: Path):
    """The server asks (elicitation/create with the evil pattern and default) and never answers the
    call. SIGINT right after it asked: it was ignored for ever while ``re`` held the GIL; now the
    check takes microseconds and ctrl+c ends the CLI (exit 130) at once."""
    log = tmp_path / "log"
    command = [
        sys.executable,
        "-m",
        "mcp_inspector",
        "call",
        "ask_then_hang",
        "--elicitation",
        "defaults",
        "--",
        *SERVER,
        "--log",
        str(log),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        until_sync(lambda: log.exists() and "tools/call ask_then_hang" in log.read_text())
        process.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        _, stderr = process.communicate(timeout=30)
        elapsed = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, stderr.decode()
    assert elapsed < 10, elapsed  # a loose bound for a loaded machine: it was never
    assert "Traceback" not in stderr.decode()
