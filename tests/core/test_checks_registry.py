"""The rule registry: ids as the issue fixes them, each with its severity, why, fix and source."""

from __future__ import annotations

import re
from pathlib import Path

from mcp_inspector.core.checks.catalog import GROUPS, RULES, finding
from mcp_inspector.core.checks.docs import SCHEMA_END, SCHEMA_START, rules_table, schema_table, table_in
from mcp_inspector.core.checks.model import RuleKind, Severity

ISSUE_IDS = {
    "stdout-not-jsonrpc", "exit-on-eof", "startup-slow", "malformed-input",
    "initialize-version", "lifecycle", "ping", "schema-violation", "response-id", "unknown-method",
    "unknown-tool", "capability-unimplemented", "list-changed-undeclared",
    "tool-name-format", "tool-name-duplicate", "tool-description", "input-schema-type",
    "input-schema-invalid", "input-schema-required", "output-schema-invalid", "tool-annotations",
    "list-unstable", "pagination", "tool-list-tokens", "client-compat", "structured-content",
    "resource-read", "uri-template", "content", "completion",
    "http-notification-status", "http-get", "http-origin", "http-session-id", "http-session-unknown",
    "http-content-type",
}  # fmt: skip


def test_every_rule_id_of_the_issue_is_registered():
    assert set(RULES) >= ISSUE_IDS


def test_each_rule_is_complete_and_its_id_is_kebab_case():
    for rule_id, rule in RULES.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule_id)
        assert rule.id == rule_id and isinstance(rule.severity, Severity) and isinstance(rule.kind, RuleKind)
        assert rule.title and rule.why and rule.fix and rule.source, rule_id
        assert rule.group in GROUPS


def test_a_finding_takes_the_rules_hint_and_source_unless_given():
    made = finding("ping", "no answer")
    assert made.severity is Severity.ERROR and made.hint == RULES["ping"].fix and made.spec == RULES["ping"].source
    milder = finding("ping", "not empty", severity=Severity.WARNING, hint="own")
    assert milder.severity is Severity.WARNING and milder.hint == "own"


def test_the_docs_rule_table_is_the_registrys():
    page = (Path(__file__).resolve().parents[2] / "docs" / "checks.md").read_text(encoding="utf-8")
    assert table_in(page) == rules_table(), "run: python scripts/check_rules_table.py"
    assert table_in(page, SCHEMA_START, SCHEMA_END) == schema_table(), "run: python scripts/check_rules_table.py"
    for rule_id in RULES:
        assert f"| `{rule_id}` |" in page


def test_a_rule_whose_source_quotes_a_must_is_an_error():
    # the severity policy: error = breaks a MUST of the negotiated revision
    musts = {rule_id for rule_id, rule in RULES.items() if " MUST " in f" {rule.source} "}
    assert "http-protocol-version" in musts  # 2025-11-25 transports: the server MUST respond 400
    assert {rule_id for rule_id in musts if RULES[rule_id].severity is not Severity.ERROR} == set()
