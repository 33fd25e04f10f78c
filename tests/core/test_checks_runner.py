"""The check's runner over a real stdio server: the whole run is bounded by its budget; the surface
rules' pieces (patterns through RE2, the token estimate) on their own."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from conftest import run_async

from mcp_inspector.core.checks.live import LiveChecker
from mcp_inspector.core.checks.model import Severity
from mcp_inspector.core.checks.probes import CheckOptions
from mcp_inspector.core.checks.regex_syntax import pattern_problem
from mcp_inspector.core.checks.runner import run_check
from mcp_inspector.core.checks.surface import estimate_tokens, schema_problems, tool_findings
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.stdio import StdioTransport

FIXTURES = Path(__file__).resolve().parents[1] / "servers" / "check"
SLOW = """
import sys, time
sys.path.insert(0, {fixtures!r})
from base import Server, run

class Slow(Server):
    def handle(self, msg_id, method, params):
        if method != "initialize":
            time.sleep(0.4)
        super().handle(msg_id, method, params)

run(Slow)
"""


def test_the_whole_check_stops_at_its_budget_and_says_what_was_not_run(tmp_path):
    import mcp_types.methods  # noqa: F401 - its import (up to 2 s on a loaded machine) is not the probes' time

    script = tmp_path / "slow.py"
    script.write_text(SLOW.format(fixtures=str(FIXTURES)))

    async def body():
        store = TrafficStore()
        live = LiveChecker(store)
        store.add_listener(live)
        transport = StdioTransport([sys.executable, str(script)])
        async with McpSession(transport, store=store, timeout=5, era="legacy") as session:
            await session.initialize()
            started = time.perf_counter()
            report = await run_check(session, live, CheckOptions(timeout=5), budget=1.0)
            return report, time.perf_counter() - started

    report, seconds = run_async(body, timeout=60)
    assert seconds < 3, seconds  # eight listings alone would take 3.2 s
    assert any("time budget (1 s) ran out" in note for note in report.notes), report.notes


def test_server_patterns_go_through_re2_broken_is_an_error_ecma_only_a_warning():
    assert pattern_problem("^[A-Z0-9]{2,8}$") is None
    text, severity = pattern_problem("^[a-z")
    assert "is not a regular expression" in text and severity is None
    text, severity = pattern_problem("^(?=.*[0-9]).+$")
    assert "RE2" in text and severity is Severity.WARNING
    started = time.perf_counter()
    assert pattern_problem("^(a+)+$") is None  # compiled by RE2: linear, whatever it is matched against
    assert time.perf_counter() - started < 1


def test_schema_problems_follow_the_declared_dialect():
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": {"type": 3}}}
    assert any("at properties/a/type" in problem for problem, _ in schema_problems(draft7))
    assert schema_problems({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x$"}}}) == []


def test_token_estimate_and_the_biggest_tools_are_named():
    assert estimate_tokens("hello world") == 4  # 5 letters: 2 tokens each; the space is free
    assert estimate_tokens('{"a":1}') == 7  # braces, quotes and the colon: one each
    tools = [
        {"name": f"t{i}", "description": "word " * (200 * i), "inputSchema": {"type": "object"}} for i in range(1, 4)
    ]
    (finding,) = [f for f in tool_findings(tools, token_budget=100) if f.rule == "tool-list-tokens"]
    assert finding.message.index("t3 (") < finding.message.index("t2 (")
    assert finding.extra["tokenMethod"] == "estimate"


def test_a_huge_tool_list_is_judged_in_bounded_time_and_says_what_was_not_validated():
    from mcp_inspector.core.checks.surface import MAX_VALIDATED

    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}
    tools = [{"name": f"t{i}", "description": "d", "inputSchema": schema} for i in range(MAX_VALIDATED + 5)]
    found = tool_findings(tools)
    (note,) = [f for f in found if f.rule == "input-schema-invalid"]
    assert note.severity is Severity.INFO and f"past the first {MAX_VALIDATED:,}" in note.message
    assert len([f for f in found if f.rule == "input-schema-required"]) == len(tools)  # cheap: every tool
