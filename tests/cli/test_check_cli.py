"""``mcp-inspector check``: the CLI face of the rule engine (real servers over real pipes)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from cli_helpers import REPO_ROOT, assert_no_traceback, cli, raw

from mcp_inspector.core.checks.catalog import RULES


def test_the_demo_server_draws_no_error_or_warning():
    result = cli("check", "--json", timeout=90)
    assert result.returncode == 0, result.stdout + result.stderr
    document = json.loads(result.stdout)
    assert document["summary"]["error"] == 0 and document["summary"]["warning"] == 0, document["findings"]
    assert document["era"] == "legacy" and document["server"]["name"] == "mcp-inspector-demo"


def test_stdout_garbage_is_an_error_exit_8_with_the_line_quoted():
    result = cli("check", "--", *raw("garbage-stdout"), timeout=90)
    assert_no_traceback(result)
    assert result.returncode == 8, result.stdout + result.stderr
    assert "Errors (" in result.stdout and "stdout-not-jsonrpc" in result.stdout
    assert "evidence: Server starting..." in result.stdout and "before the handshake" in result.stdout
    assert "fix: Write logs and banners to stderr" in result.stdout


def test_json_shape_is_the_issues():
    result = cli("check", "--json", "--", *raw("garbage-stdout"), timeout=90)
    document = json.loads(result.stdout)
    assert set(document) == {"server", "era", "findings", "summary"}
    assert set(document["summary"]) == {"error", "warning", "info"}
    finding = document["findings"][0]
    assert {"rule", "severity", "message", "where", "hint", "spec", "evidence"} <= set(finding)
    assert finding["rule"] == "stdout-not-jsonrpc" and finding["severity"] == "error"
    assert finding["seq"] >= 1 and finding["where"] == f"frame #{finding['seq']}"


def test_ignore_leaves_a_rule_out_and_the_exit_follows():
    result = cli("check", "--ignore", "stdout-not-jsonrpc", "--json", "--", *raw("garbage-stdout"), timeout=90)
    document = json.loads(result.stdout)
    assert all(f["rule"] != "stdout-not-jsonrpc" for f in document["findings"])
    assert result.returncode == (8 if document["summary"]["error"] else 0)


def test_an_unknown_rule_id_is_a_usage_error():
    result = cli("check", "--ignore", "no-such-rule", timeout=30)
    assert result.returncode == 64 and "unknown rule id to ignore: no-such-rule" in result.stderr


def test_junit_has_one_case_per_rule_and_fails_the_errors(tmp_path):
    path = tmp_path / "check.xml"
    result = cli("check", "--junit", str(path), "--", *raw("garbage-stdout"), timeout=90)
    assert result.returncode == 8
    suite = ET.parse(path).getroot().find("testsuite")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert set(cases) == set(RULES)
    assert cases["stdout-not-jsonrpc"].find("failure") is not None
    assert cases["ping"].find("failure") is None
    planned = [rule.id for rule in RULES.values() if not rule.implemented]  # judged by nobody yet: skipped
    assert all(cases[rule_id].find("skipped") is not None for rule_id in planned)
    assert int(suite.get("failures")) >= 1


def test_check_open_judges_a_recording_with_the_live_rules(tmp_path):
    record = tmp_path / "s.jsonl"
    first = cli("--record", str(record), "tools", "--", *raw("garbage-stdout"), timeout=60)
    assert first.returncode == 0, first.stderr
    result = cli("check", "--open", str(record), "--json", timeout=60)
    assert result.returncode == 8, result.stdout + result.stderr
    document = json.loads(result.stdout)
    assert {f["rule"] for f in document["findings"]} == {"stdout-not-jsonrpc"}
    assert "note: a recording: only the live rules are judged" in result.stderr


FIXTURES = REPO_ROOT / "tests" / "servers" / "check"


def fixture(name: str) -> list[str]:
    return ["python3", str(FIXTURES / f"{name}.py")]


@pytest.mark.slow
def test_strict_fails_on_a_warning():
    plain = cli("check", "--", *fixture("no_description"), timeout=90)
    assert plain.returncode == 0 and "tool-description" in plain.stdout
    strict = cli("check", "--strict", "--", *fixture("no_description"), timeout=90)
    assert strict.returncode == 8


def test_a_config_entrys_ignore_list(tmp_path):
    config = tmp_path / "mcp.json"
    # the fixture's pattern keyword also draws a client-compat info (GitHub Copilot strips it for GPT-4 models)
    ignore = ["stdout-not-jsonrpc", "client-compat"]
    entry = {"command": "python3", "args": [str(FIXTURES / "stdout_banner.py")], "ignore": ignore}
    config.write_text(json.dumps({"mcpServers": {"banner": entry}}))
    result = cli("check", "--json", "--config", str(config), "--server", "banner", timeout=90)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["findings"] == []
    config.write_text(json.dumps({"mcpServers": {"banner": {**entry, "ignore": ["no-such-rule"]}}}))
    assert cli("check", "--config", str(config), "--server", "banner", timeout=30).returncode == 64


def test_token_budget_sets_what_the_tool_list_may_take():
    result = cli("check", "--json", "--token-budget", "50", "--", *fixture("clean"), timeout=90)
    (finding,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "tool-list-tokens"]
    assert "over the budget of 50" in finding["message"] and "estimate" in finding["evidence"]
    assert "no tokenizer is available offline" in finding["evidence"]
    assert result.returncode == 0  # a warning


@pytest.mark.slow
def test_era_both_checks_each_era_the_server_speaks():
    result = cli("check", "--json", "--era", "both", "--", *fixture("dual_era_mismatch"), timeout=120)
    document = json.loads(result.stdout)
    assert document["era"] == "both" and {f.get("era") for f in document["findings"]} >= {"both"}
    (mismatch,) = [f for f in document["findings"] if f["rule"] == "era-mismatch"]
    assert "only in 2026-07-28: modern_only" in mismatch["message"]
    legacy_only = cli("check", "--json", "--era", "both", "--", *fixture("clean"), timeout=120)
    document = json.loads(legacy_only.stdout)
    assert legacy_only.returncode == 0 and document["era"] == "legacy"
    assert "does not speak the modern era (not checked there): it answered server/discover" in legacy_only.stderr
    assert "error:" not in legacy_only.stderr  # the refused handshake is the note, not an error line


def test_era_both_goes_with_check_snapshot_and_diff_only():
    result = cli("tools", "--era", "both", timeout=30)
    assert result.returncode == 64 and "--era both goes with the check, snapshot and diff commands" in result.stderr


def test_a_request_left_unanswered_is_a_finding_bounded_by_the_timeout():
    result = cli("check", "--json", "--timeout", "1", "--", *raw("never-answer"), timeout=120)
    assert_no_traceback(result)
    assert result.returncode == 8, result.stderr
    (finding,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "unknown-tool"]
    assert (
        finding["severity"] == "error" and "no answer to tools/call of an unknown tool within 1 s" in finding["message"]
    )


def test_a_server_that_never_answers_keeps_the_timeout_exit_code():
    silent = ["python3", "-c", "import sys, time; sys.stdin.read(); time.sleep(30)"]
    result = cli("check", "--timeout", "1", "--", *silent, timeout=60)
    assert_no_traceback(result)
    assert result.returncode in (3, 4), result.stderr


def test_over_streamable_http_findings_name_their_http_exchange(sdk_http_stateful_url):
    result = cli("check", "--json", "--era", "legacy", "--url", sdk_http_stateful_url, timeout=120)
    assert_no_traceback(result)
    document = json.loads(result.stdout)
    assert document["summary"]["error"] == 0, document["findings"]
    about_frames = [f for f in document["findings"] if "seq" in f]
    assert about_frames and all(isinstance(f.get("exchange"), int) for f in about_frames), about_frames
    assert not any(f["rule"] in ("malformed-input", "exit-on-eof", "stdout-not-jsonrpc") for f in document["findings"])


def test_record_and_report_go_with_check_and_the_recording_is_judged_the_same(tmp_path):
    record, report = tmp_path / "c.jsonl", tmp_path / "r.json"
    result = cli(
        "--record", str(record), "--report", str(report), "check", "--json", "--", *fixture("stdout_banner"), timeout=90
    )
    assert result.returncode == 8
    assert json.loads(report.read_text())["exitCode"] == 8 and json.loads(report.read_text())["notJson"] == 1
    live = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "stdout-not-jsonrpc"]
    again = cli("check", "--open", str(record), timeout=60)
    assert again.returncode == 8 and f"check of check-fixture 1.0.0 (recording {record}" in again.stdout
    assert f"[frame #{live[0]['seq']}]" in again.stdout  # the same frame, by the same number


def test_the_sdks_modern_http_server_draws_no_error(sdk_modern_http_url):
    result = cli("check", "--json", "--era", "modern", "--url", sdk_modern_http_url, timeout=120)
    assert_no_traceback(result)
    document = json.loads(result.stdout)
    assert document["era"] == "modern"
    assert document["summary"]["error"] == 0, document["findings"]
