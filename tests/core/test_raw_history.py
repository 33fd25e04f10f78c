"""The raw frame history file (core/config/raw_history.py): kept across runs, 0600, bounded,
a corrupt file set aside with a note."""

from __future__ import annotations

import json
import stat

from mcp_inspector.core.config.raw_history import MAX_FRAME_CHARS, PER_SERVER, SERVERS, RawHistory, default_history_path


def test_frames_are_kept_per_server_across_runs_in_a_private_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    history = RawHistory()
    assert history.path == tmp_path / "state" / "mcp-inspector" / "raw-frames.json" == default_history_path()
    assert history.add("demo", '{"jsonrpc":"2.0","id":"raw-1","method":"ping"}') is None
    assert history.add("demo", "not json", as_is=True) is None
    assert history.add("demo", "not json", as_is=True) is None  # twice in a row: kept once
    assert history.add("other", '{"jsonrpc":"2.0","method":"x"}') is None
    assert stat.S_IMODE(history.path.stat().st_mode) == 0o600
    again = RawHistory()
    assert [(f["text"], f["as_is"]) for f in again.frames("demo")] == [
        ('{"jsonrpc":"2.0","id":"raw-1","method":"ping"}', False),
        ("not json", True),
    ]
    assert len(again.frames("other")) == 1 and again.frames("nobody") == [] and again.warning is None


def test_the_history_stays_bounded(tmp_path):
    path = tmp_path / "raw.json"
    history = RawHistory(path)
    for n in range(PER_SERVER + 7):
        history.add("demo", f'{{"n": {n}}}')
    frames = RawHistory(path).frames("demo")
    assert (
        len(frames) == PER_SERVER
        and frames[0]["text"] == '{"n": 7}'
        and frames[-1]["text"] == f'{{"n": {PER_SERVER + 6}}}'
    )
    assert "longer than" in history.add("demo", "x" * (MAX_FRAME_CHARS + 1))
    for n in range(SERVERS + 3):
        history.add(f"server-{n}", "{}")
    servers = json.loads(path.read_text())["servers"]
    assert len(servers) == SERVERS and "demo" not in servers and "server-0" not in servers


def test_a_corrupt_file_is_set_aside_with_a_note_and_a_new_one_started(tmp_path):
    path = tmp_path / "raw.json"
    path.write_text('{"version": 1, "servers": [1, 2')
    history = RawHistory(path)
    assert history.frames("demo") == []
    assert history.warning.startswith(f"the raw frame history {path} is corrupt (")
    assert history.warning.endswith(f"starting with none (kept as {path}.corrupt)")
    assert (tmp_path / "raw.json.corrupt").read_text() == '{"version": 1, "servers": [1, 2'
    assert history.add("demo", "{}") is None
    assert RawHistory(path).frames("demo")[0]["text"] == "{}"


def test_odd_entries_are_skipped_not_fatal(tmp_path):
    path = tmp_path / "raw.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "servers": {
                    "demo": [{"text": "{}"}, {"text": 3}, "x", {"text": "[]", "as_is": True}],
                    "bad": "not a list",
                },
            }
        )
    )
    history = RawHistory(path)
    assert [f["text"] for f in history.frames("demo")] == ["{}", "[]"] and history.frames("bad") == []
    assert history.warning is None
