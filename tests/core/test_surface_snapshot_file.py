"""core/surface/snapshot.read_file: every file that is not a snapshot is a SnapshotError naming
the path and why (the CLI's diff/check --baseline and the TUI's compare read files here)."""

from __future__ import annotations

import pytest

from mcp_inspector.core.surface.snapshot import SnapshotError, build, dumps, read_file


def test_a_snapshot_reads_back_and_every_bad_file_says_why(tmp_path):
    good = tmp_path / "good.json"
    document = build(
        server_info={"name": "s"},
        protocol_version="2025-11-25",
        era="legacy",
        capabilities={},
        instructions=None,
        lists={},
    )
    good.write_text(dumps(document))
    assert read_file(good) == document
    (tmp_path / "latin1.json").write_bytes(b'{"snapshotFormat": 1, "x": "\xe9"}')
    (tmp_path / "list.json").write_text('{"snapshotFormat": 1, "tools": {}}')
    (tmp_path / "big.json").write_text(" " * 2048)
    (tmp_path / "folder").mkdir()
    (tmp_path / "deep.json").write_text("[" * 200_000 + "]" * 200_000)  # was an internal error (exit 70)
    cases = {
        "missing.json": "no such snapshot file: ",
        "latin1.json": "latin1.json is not UTF-8 text: not a snapshot",
        "list.json": "list.json: tools is not a list",
        "folder": "folder is a directory, not a snapshot file",
        "deep.json": "deep.json: nested too deeply to read: not a snapshot",
    }
    for name, words in cases.items():
        with pytest.raises(SnapshotError, match=words):
            read_file(tmp_path / name)
    with pytest.raises(SnapshotError, match="is over 0 MiB: not a snapshot"):
        read_file(tmp_path / "big.json", limit=1024)
