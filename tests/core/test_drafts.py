"""Draft persistence: survives a restart, writes atomically, shrugs off a corrupt file."""

from __future__ import annotations

import json
import os

from mcp_inspector.core.config.drafts import DraftStore, default_drafts_path


def test_default_path_follows_xdg_state_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_drafts_path() == tmp_path / "mcp-inspector" / "drafts.json"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_drafts_path() == tmp_path / "home" / ".local" / "state" / "mcp-inspector" / "drafts.json"


def test_drafts_survive_a_new_store(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    store = DraftStore()
    assert store.get("demo", "echo") is None and store.warning is None
    store.put("demo", "echo", {"message": "hi"})
    store.put("demo", "add", {"a": 1, "b": 2})
    store.put("other", "echo", {"message": "elsewhere"})
    again = DraftStore()  # a restart of the app
    assert again.get("demo", "echo") == {"message": "hi"}
    assert again.get("other", "echo") == {"message": "elsewhere"}
    assert again.tools_with_drafts("demo") == ["add", "echo"]
    again.delete("demo", "echo")
    assert DraftStore().get("demo", "echo") is None
    assert DraftStore().get("demo", "add") == {"a": 1, "b": 2}
    data = json.loads((tmp_path / "mcp-inspector" / "drafts.json").read_text())
    assert data["version"] == 1 and set(data["drafts"]) == {"demo", "other"}
    leftovers = [p for p in (tmp_path / "mcp-inspector").iterdir() if p.name != "drafts.json"]
    assert leftovers == []  # no temp files left behind


def test_two_stores_do_not_wipe_each_other(tmp_path):
    path = tmp_path / "drafts.json"
    first, second = DraftStore(path), DraftStore(path)
    first.put("s", "a", {"x": 1})
    second.put("s", "b", {"y": 2})
    fresh = DraftStore(path)
    assert fresh.get("s", "a") == {"x": 1} and fresh.get("s", "b") == {"y": 2}
    assert second.get("s", "a") == {"x": 1}  # picked up on its write


def test_corrupt_file_starts_empty_and_says_so(tmp_path):
    path = tmp_path / "drafts.json"
    path.write_text("{not json", encoding="utf-8")
    store = DraftStore(path)
    assert store.get("s", "t") is None
    assert store.warning is not None and "corrupt" in store.warning and str(path) in store.warning
    assert (tmp_path / "drafts.json.corrupt").read_text() == "{not json"  # kept for the curious
    store.put("s", "t", {"ok": True})
    assert DraftStore(path).get("s", "t") == {"ok": True}
    assert DraftStore(path).warning is None


def test_wrong_shape_is_corrupt_too(tmp_path):
    path = tmp_path / "drafts.json"
    path.write_text(json.dumps({"version": 1, "drafts": ["nope"]}), encoding="utf-8")
    store = DraftStore(path)
    assert "corrupt" in store.warning and store.get("s", "t") is None


def test_unreadable_file_is_reported(tmp_path):
    path = tmp_path / "drafts.json"
    path.mkdir()  # a directory where the file should be: reading fails with an OSError
    store = DraftStore(path)
    assert store.warning is not None and "cannot read" in store.warning
    assert store.get("s", "t") is None
    assert os.path.isdir(path)


def test_deep_or_non_utf8_or_nan_file_is_corrupt_not_a_crash(tmp_path):
    """Any bytes on disk: never RecursionError or UnicodeDecodeError out of the constructor (the TUI would die)."""
    path = tmp_path / "drafts.json"
    contents = [
        b'{"version": 1, "drafts": {"s": {"t": {"arguments": {"x": ' + b"[" * 5000 + b"]" * 5000 + b"}}}}}",
        '{"version": 1, "drafts": {"s": {"t": {"arguments": {"x": "caf\xe9"}}}}}'.encode("latin-1"),
        b'{"version": 1, "drafts": {"s": {"t": {"arguments": {"x": NaN}}}}}',
    ]
    for content in contents:
        path.write_bytes(content)
        store = DraftStore(path)
        assert store.warning is not None and "corrupt" in store.warning, content[:40]
        assert store.get("s", "t") is None
        assert (tmp_path / "drafts.json.corrupt").read_bytes() == content
        store.put("s", "t", {"ok": True})  # and the store works on
        assert DraftStore(path).get("s", "t") == {"ok": True}
        path.unlink()


def test_a_utf8_bom_is_fine(tmp_path):
    path = tmp_path / "drafts.json"
    path.write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"version": 1, "drafts": {"s": {"t": {"arguments": {"a": 1}}}}}).encode()
    )
    store = DraftStore(path)
    assert store.warning is None and store.get("s", "t") == {"a": 1}
