"""snapshot and diff against two versions of a real SDK server (tests/servers/versioned_server.py)."""

from __future__ import annotations

import json
import os
import stat
import sys

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
