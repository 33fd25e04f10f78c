"""``check --baseline SNAPSHOT``: the surface diff (issue 23) as findings of the server check, on
the real demo server over a real pipe, against snapshots the real ``snapshot`` command wrote."""

from __future__ import annotations

import json

from cli_helpers import assert_no_traceback, cli


def _snapshot(tmp_path):
    path = tmp_path / "demo.json"
    result = cli("snapshot", "-o", str(path), timeout=90)
    assert result.returncode == 0, result.stderr
    return path, json.loads(path.read_text())


def _surface_findings(document):
    return [f for f in document["findings"] if f["rule"] == "surface-breaking"]


def test_an_unchanged_server_passes_and_a_note_counts_the_changes(tmp_path):
    path, _ = _snapshot(tmp_path)
    result = cli("check", "--json", "--baseline", str(path), timeout=90)
    assert_no_traceback(result)
    assert result.returncode == 0, result.stdout + result.stderr
    assert _surface_findings(json.loads(result.stdout)) == []
    assert f"baseline {path}: 0 breaking, 0 of unknown impact, 0 compatible, 0 cosmetic" in result.stderr


def test_a_removed_tool_and_a_newly_required_argument_are_errors_exit_8(tmp_path):
    path, document = _snapshot(tmp_path)
    document["tools"].append({"name": "retired_tool", "inputSchema": {"type": "object"}})
    (add,) = [tool for tool in document["tools"] if tool["name"] == "add"]
    add["inputSchema"]["required"] = ["a"]  # the old version did not require b
    add["description"] = "an older wording"  # cosmetic: counted, not a finding
    old = tmp_path / "old.json"
    old.write_text(json.dumps(document))

    result = cli("check", "--json", "--baseline", str(old), timeout=90)
    assert_no_traceback(result)
    assert result.returncode == 8, result.stdout + result.stderr
    found = {(f["severity"], f["where"], f["message"]) for f in _surface_findings(json.loads(result.stdout))}
    assert found == {
        ("error", "/tools/add/inputSchema/properties/b", f"b made required (since {old})"),
        ("error", "/tools/retired_tool", f"tool retired_tool removed (since {old})"),
    }
    assert "2 breaking, 0 of unknown impact, 0 compatible, 1 cosmetic" in result.stderr

    ignored = cli("check", "--json", "--baseline", str(old), "--ignore", "surface-breaking", timeout=90)
    assert ignored.returncode == 0 and _surface_findings(json.loads(ignored.stdout)) == []


def test_a_bad_baseline_is_a_usage_error_before_any_server_starts(tmp_path):
    not_a_snapshot = tmp_path / "x.json"
    not_a_snapshot.write_text('{"tools": []}')
    for path, words in ((tmp_path / "missing.json", "no such snapshot file"), (not_a_snapshot, "not a snapshot")):
        result = cli("check", "--baseline", str(path), "--", "false")
        assert_no_traceback(result)
        assert result.returncode == 64 and words in result.stderr, result.stderr
    with_open = cli("check", "--baseline", str(not_a_snapshot), "--open", str(not_a_snapshot))
    assert with_open.returncode == 64 and "does not go with --open" in with_open.stderr


def test_a_two_era_baseline_is_checked_era_by_era_and_a_lost_era_breaks(tmp_path):
    """snapshot --era both's file: the demo (legacy only) against a baseline that recorded a
    tool since retired in the legacy era, and a modern era the demo does not speak."""
    _, legacy = _snapshot(tmp_path)
    legacy.pop("snapshotFormat")
    legacy["tools"].append({"name": "retired_tool", "inputSchema": {"type": "object"}})
    modern = dict(legacy, era="modern", protocolVersion="2026-07-28")
    baseline = tmp_path / "both.json"
    baseline.write_text(json.dumps({"snapshotFormat": 2, "eras": {"legacy": legacy, "modern": modern}}))

    result = cli("check", "--era", "both", "--json", "--baseline", str(baseline), timeout=90)
    assert_no_traceback(result)
    assert result.returncode == 8, result.stdout + result.stderr
    found = {(f["era"], f["where"], f["message"]) for f in _surface_findings(json.loads(result.stdout))}
    assert found == {
        ("legacy", "/eras/legacy/tools/retired_tool", f"tool retired_tool removed (since {baseline})"),
        (
            "modern",
            "/eras/modern",
            f"the modern era is no longer spoken (its clients cannot connect) (since {baseline})",
        ),
    }
    assert "not compared" not in result.stderr  # each era is compared in its own run
