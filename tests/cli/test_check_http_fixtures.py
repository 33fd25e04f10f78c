"""The Streamable HTTP check fixtures (tests/servers/check_http/, raw HTTP servers on 127.0.0.1,
one defect each) each draw their rule with ``check --url``; the clean one draws nothing at
warning or error. The rule a fixture draws is in its docstring: "(draws RULE)"."""

from __future__ import annotations

import json
import re
import selectors
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cli_helpers import assert_no_traceback, cli

from mcp_inspector.core.checks.catalog import RULES
from mcp_inspector.core.checks.probes_http import guessable

FIXTURE_DIR = Path(__file__).resolve().parents[1] / "servers" / "check_http"
START_LIMIT = 20.0  # seconds for a fixture to print its port


def fixtures() -> dict[str, str | None]:
    found = {}
    for path in sorted(FIXTURE_DIR.glob("*.py")):
        if path.stem == "http_base":
            continue
        head = path.read_text(encoding="utf-8").split('"""')[1]
        match = re.search(r"\(draws ([a-z0-9-]+)\)", head)
        found[path.stem] = match.group(1) if match else None
    return found


FIXTURES = fixtures()


@contextmanager
def serving(name: str) -> Iterator[str]:
    """The fixture running on 127.0.0.1 (its URL), stopped at the end."""
    process = subprocess.Popen(
        [sys.executable, str(FIXTURE_DIR / f"{name}.py")], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            assert selector.select(START_LIMIT), f"{name} printed no port in {START_LIMIT} s"
        line = process.stdout.readline().decode()
        assert line.startswith("PORT "), (line, process.stderr.read1(4096) if process.poll() is not None else b"")
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        process.kill()
        process.wait(10)


def test_every_http_rule_has_a_fixture_and_there_is_a_clean_one():
    http_rules = {rule_id for rule_id, rule in RULES.items() if rule.group == "http"}
    assert set(FIXTURES.values()) - {None} == http_rules
    assert None in FIXTURES.values()


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_http_fixture_draws_its_rule(name):
    rule = FIXTURES[name]
    with serving(name) as url:
        result = cli("check", "--json", "--url", url, timeout=120)
    assert_no_traceback(result)
    document = json.loads(result.stdout)
    serious = [f for f in document["findings"] if f["severity"] in ("error", "warning")]
    if rule is None:
        assert serious == [], serious
        assert result.returncode == 0
        return
    drawn = [f for f in document["findings"] if f["rule"] == rule]
    assert drawn, document["findings"]
    assert {f["rule"] for f in serious} == {rule}, serious
    assert all(isinstance(f.get("exchange"), int) for f in drawn), drawn  # each names its HTTP exchange
    assert result.returncode == (8 if document["summary"]["error"] else 0)


def test_session_ids_guessable_short_few_characters_or_sequential():
    assert guessable(["0f3c9a1e-8b7d-4e2a-9c55-1d2e3f4a5b6c", "5a2b3c4d-9e8f-4a1b-8c2d-3e4f5a6b7c8d"]) is None
    assert "characters" in guessable(["42"])
    assert "distinct" in guessable(["aaaaaaaaaaaaaaaaaaaaaaaaaaaaab"])
    assert "sequential" in guessable(["mcp-session-00000007", "mcp-session-00000008"])
    assert guessable(["mcp-session-00000007", "other-session-00000008"]) is None
