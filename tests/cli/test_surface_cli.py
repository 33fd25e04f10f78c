"""snapshot and diff against two versions of a real SDK server (tests/servers/versioned_server.py)."""

from __future__ import annotations

import json
import os
import stat
import sys

import pytest
from cli_helpers import REPO_ROOT, assert_no_traceback, cli

SERVER = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "versioned_server.py"), "--version"]


def snapshot(tmp_path, version: str):
    path = tmp_path / f"v{version}.json"
    result = cli("snapshot", "-o", path, "--", *SERVER, version)
    assert result.returncode == 0, result.stderr
    return path


def test_snapshot_is_canonical_private_and_repeatable(tmp_path):
    first = snapshot(tmp_path, "1")
    text = first.read_text()
    document = json.loads(text)
    assert stat.S_IMODE(os.stat(first).st_mode) == 0o600
    assert document["serverInfo"] == {"name": "versioned-fixture", "version": "1.0.0"}
    assert [tool["name"] for tool in document["tools"]] == ["convert", "delete_all", "describe", "search"]
    assert document["resourceTemplates"][0]["uriTemplate"] == "item://{id}"
    assert text == json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    again = cli("snapshot", "--", *SERVER, "1")  # to stdout, byte for byte the same
    assert again.returncode == 0 and again.stdout == text


def test_diff_of_two_versions_is_classified(tmp_path):
    old, new = snapshot(tmp_path, "1"), snapshot(tmp_path, "2")
    result = cli("diff", old, new, "--json")
    assert result.returncode == 9, result.stderr
    changes = {(c["kind"], c["path"]) for c in json.loads(result.stdout)["changes"]}
    assert changes == {
        ("breaking", "/prompts/summarise/arguments/style/required"),
        ("breaking", "/tools/convert/inputSchema/properties/unit/enum"),
        ("breaking", "/tools/delete_all"),
        ("breaking", "/tools/search/inputSchema/properties/limit/minimum"),
        ("breaking", "/tools/search/inputSchema/properties/scope"),
        ("unknown", "/resources/info:~1~1v1"),
        ("compatible", "/resources/info:~1~1v2"),
        ("compatible", "/tools/convert/inputSchema/properties/value/type"),
        ("compatible", "/tools/ping_me"),
        ("cosmetic", "/serverInfo"),
        ("cosmetic", "/tools/convert/description"),
        ("cosmetic", "/tools/describe/description"),
    }
    text = cli("diff", old, new)
    assert text.returncode == 9
    assert text.stdout.index("breaking (5):") < text.stdout.index("changed, impact unknown (1):")
    assert "  /tools/delete_all: tool delete_all removed" in text.stdout


def test_diff_against_a_live_server_and_fail_on(tmp_path):
    old = snapshot(tmp_path, "1")
    same = cli("diff", old, "--", *SERVER, "1")
    assert (same.returncode, same.stdout.strip()) == (0, "no changes"), same.stderr
    live = cli("diff", old, "--json", "--", *SERVER, "2")
    assert live.returncode == 9
    assert {"kind": "breaking", "path": "/tools/delete_all", "message": "tool delete_all removed"} in json.loads(
        live.stdout
    )["changes"]
    # only compatible and cosmetic changes: exit 0, unless --fail-on compatible
    document = json.loads(old.read_text())
    document["tools"].append({"name": "extra", "inputSchema": {"type": "object"}})
    document["serverInfo"]["version"] = "1.1.0"
    grown = tmp_path / "grown.json"
    grown.write_text(json.dumps(document))
    assert cli("diff", old, grown).returncode == 0
    assert cli("diff", old, grown, "--fail-on", "compatible").returncode == 9


def test_diff_bad_files_are_usage_errors(tmp_path):
    good = snapshot(tmp_path, "1")
    bad = tmp_path / "bad.json"
    for content in (b"{not json", b'{"tools": []}', b"\xff\xfe", b'{"snapshotFormat": 1, "tools": {}}'):
        bad.write_bytes(content)
        result = cli("diff", good, bad)
        assert result.returncode == 64, (content, result.stdout)
        assert "bad.json" in result.stderr
        assert_no_traceback(result)
    missing = cli("diff", tmp_path / "missing.json", good)
    assert missing.returncode == 64 and "no such snapshot file" in missing.stderr
    both = cli("diff", good, good, "--", *SERVER, "1")
    assert both.returncode == 64


# -- snapshot --era both (snapshotFormat 2) ------------------------------------------------


@pytest.fixture(scope="module")
def sdk_both(tmp_path_factory):
    """The SDK fixture in both eras (the SDK's stdio serving speaks each), one real run each."""
    path = tmp_path_factory.mktemp("eras") / "v1-both.json"
    result = cli("snapshot", "--era", "both", "-o", path, "--", *SERVER, "1")
    assert result.returncode == 0, result.stderr
    return path


def test_snapshot_era_both_records_each_era_and_what_the_server_does_not_speak(tmp_path, sdk_both):
    document = json.loads(sdk_both.read_text())
    assert (document["snapshotFormat"], document["erasNotSpoken"]) == (2, [])
    assert {era: body["protocolVersion"] for era, body in document["eras"].items()} == {
        "legacy": "2025-11-25",
        "modern": "2026-07-28",
    }
    for body in document["eras"].values():
        assert [tool["name"] for tool in body["tools"]] == ["convert", "delete_all", "describe", "search"]
    # the demo server speaks the legacy era only: recorded as not speaking the modern one
    demo = tmp_path / "demo.json"
    result = cli("snapshot", "--era", "both", "-o", demo)
    assert result.returncode == 0, result.stderr
    # not an error of the command: one note, saying what was tried and what the server answered
    assert result.stderr.splitlines() == [
        "mcp-inspector: note: the server does not speak the modern era (listed in erasNotSpoken): it answered "
        "server/discover (protocol version 2026-07-28) with JSON-RPC error -32601 (Method not found): "
        "Method not found: server/discover"
    ]
    demo_document = json.loads(demo.read_text())
    assert (list(demo_document["eras"]), demo_document["erasNotSpoken"]) == (["legacy"], ["modern"])
    # the SDK server's surface against the demo's: the modern era is lost, which breaks
    lost = cli("diff", sdk_both, demo, "--json")
    assert lost.returncode == 9
    assert {
        "kind": "breaking",
        "path": "/eras/modern",
        "message": "the modern era is no longer spoken (its clients cannot connect)",
    } in json.loads(lost.stdout)["changes"]


def test_era_both_says_a_modern_only_server_refused_initialize_and_a_failure_is_an_error(tmp_path):
    modern_only = [sys.executable, REPO_ROOT / "tests" / "servers" / "modern_raw_server.py"]
    result = cli("snapshot", "--era", "both", "-o", tmp_path / "m.json", "--", *modern_only)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "mcp-inspector: note: the server does not speak the legacy era (listed in erasNotSpoken): it answered "
        "initialize (protocol version 2025-11-25) with JSON-RPC error -32601 (Method not found): Method not found: "
        "initialize (this server speaks only 2026-07-28; supported: 2026-07-28)"
    ]
    assert json.loads((tmp_path / "m.json").read_text())["erasNotSpoken"] == ["legacy"]
    # a crash and a timeout are errors of the command, never an era "not spoken"
    crashed = cli("snapshot", "--era", "both", "-o", tmp_path / "c.json", "--", "false")
    assert crashed.returncode == 3 and not (tmp_path / "c.json").exists()
    assert crashed.stderr.splitlines() == ["mcp-inspector: error: the server exited with code 1 during initialize"]
    silent = [sys.executable, "-c", "import sys; sys.stdin.read()"]  # reads, never answers
    timed_out = cli("snapshot", "--era", "both", "--timeout", "1", "--", *silent)
    assert (timed_out.returncode, timed_out.stderr.splitlines()) == (
        4,
        ["mcp-inspector: error: the handshake timed out: no answer to initialize within 1 s"],
    )
    checked = cli("check", "--era", "both", "--", "false")
    assert checked.returncode == 3 and "does not speak" not in checked.stderr + checked.stdout
    assert checked.stderr.splitlines() == ["mcp-inspector: error: the server exited with code 1 during initialize"]


def test_diff_compares_era_with_era_and_names_what_one_side_lacks(tmp_path, sdk_both):
    document = json.loads(sdk_both.read_text())
    document["eras"]["modern"]["tools"] = [t for t in document["eras"]["modern"]["tools"] if t["name"] != "delete_all"]
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(document))
    result = cli("diff", sdk_both, changed)
    assert result.returncode == 9, result.stderr
    assert result.stdout.splitlines() == ["breaking (1):", "  /eras/modern/tools/delete_all: tool delete_all removed"]
    # a one-era file (the plain snapshot) against the two-era one: legacy compared, modern named
    # (a two-era body is what snapshot --era legacy writes, less its snapshotFormat)
    one = tmp_path / "legacy.json"
    one.write_text(json.dumps(dict(json.loads(sdk_both.read_text())["eras"]["legacy"], snapshotFormat=1)))
    mixed = cli("diff", one, sdk_both, "--json")
    assert mixed.returncode == 0, mixed.stderr
    assert json.loads(mixed.stdout)["eras"] == {
        "compared": ["legacy"],
        "notCompared": [f"the modern era was not compared: only {sdk_both} records it ({one} has the legacy era only)"],
    }
    assert f"note: the modern era was not compared: only {sdk_both} records it" in mixed.stderr
    # the live side in both eras against the two-era file: nothing changed in either
    live = cli("diff", sdk_both, "--era", "both", "--", *SERVER, "1")
    assert (live.returncode, live.stdout.strip()) == (0, "no changes"), live.stderr


def test_a_crafted_two_era_file_is_a_usage_error_never_a_traceback(tmp_path, sdk_both):
    document = json.loads(sdk_both.read_text())
    cases = {
        "version.json": (dict(document, snapshotFormat=7), "snapshotFormat 7 is not one this mcp-inspector reads"),
        "missing.json": (
            dict(document, eras={"legacy": document["eras"]["legacy"]}),
            "the modern era is missing: neither in eras nor in erasNotSpoken",
        ),
    }
    for name, (content, words) in cases.items():
        (tmp_path / name).write_text(json.dumps(content))
        result = cli("diff", sdk_both, tmp_path / name)
        assert_no_traceback(result)
        assert result.returncode == 64 and f"{name}: {words}" in result.stderr, result.stderr
    baseline = cli("check", "--baseline", tmp_path / "missing.json", "--", "false")
    assert baseline.returncode == 64 and "the modern era is missing" in baseline.stderr, baseline.stderr
    both_files = cli("diff", sdk_both, sdk_both, "--era", "both")
    assert both_files.returncode == 64 and "--era both makes the live side" in both_files.stderr
    assert cli("info", "--era", "both").returncode == 64
    recorded = cli("snapshot", "--era", "both", "--record", tmp_path / "s.jsonl")
    assert recorded.returncode == 64 and "--record writes one session" in recorded.stderr
    assert not (tmp_path / "s.jsonl").exists()
