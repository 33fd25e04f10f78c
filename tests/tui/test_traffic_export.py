"""Exporting the in-memory timeline: session JSONL (re-openable) and a JSON array; the log's export keys."""

from __future__ import annotations

import json

import pytest
from traffic_apps import LogApp, sample_store

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.export import export_json, export_session
from mcp_inspector.core.traffic.loading import load_session
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.tui.pilot_steps import shown_notifications, wait_for

pytestmark = pytest.mark.anyio


def test_session_export_round_trips_through_load_session(tmp_path):
    store = sample_store()
    store.append(Direction.IN, Kind.INVALID, b"\xff\xfe not utf-8", problem="invalid UTF-8")
    result = export_session(store, tmp_path / "s.jsonl", {"server": "demo"})
    assert result.entries == len(store) and result.evicted == 0
    loaded = load_session(result.path)
    assert loaded.header["server"] == "demo" and loaded.skipped_lines == []
    assert [(e.seq, e.kind, e.raw, e.method) for e in loaded.store] == [(e.seq, e.kind, e.raw, e.method) for e in store]
    request = next(e for e in loaded.store if e.method == "tools/call")
    assert request.reply_seq is not None and loaded.store.get(request.reply_seq).latency_ms == 7.9


def test_export_includes_entries_that_left_memory(tmp_path):
    store = TrafficStore(cap=10, spill_dir=tmp_path / "spill")
    for i in range(40):
        store.append(Direction.IN, Kind.STDERR, f"line {i}".encode())
    result = export_session(store, tmp_path / "s.jsonl")
    assert result.entries == 40 and result.evicted == 0  # read back from the spill file
    assert [e.raw for e in load_session(result.path).store] == [f"line {i}".encode() for i in range(40)]
    assert len(json.loads(export_json(store, tmp_path / "s.json").path.read_text())) == 40
    store.close()


def test_export_notes_entries_that_cannot_be_read_back(tmp_path):
    store = TrafficStore(cap=10, spill_dir=tmp_path / "spill")
    store.attach_recorder(lambda entry: None)  # a recorder that keeps nothing we can read back
    for i in range(40):
        store.append(Direction.IN, Kind.STDERR, f"line {i}".encode())
    result = export_session(store, tmp_path / "s.jsonl")
    header = json.loads((tmp_path / "s.jsonl").read_text().splitlines()[0])
    assert result.evicted == 40 - len(store) > 0
    assert header["evicted"] == result.evicted
    assert "not included" in result.describe()
    store.close()


def test_exports_are_created_private_and_a_deep_frame_does_not_break_them(tmp_path):
    store = sample_store()
    deep = b'{"jsonrpc":"2.0","method":"m","params":' + b"[" * 5000 + b"]" * 5000 + b"}"
    store.append(Direction.IN, Kind.NOTIFICATION, deep, method="m")
    for result in (export_session(store, tmp_path / "s.jsonl"), export_json(store, tmp_path / "s.json")):
        assert oct(result.path.stat().st_mode & 0o777) == "0o600"
    items = json.loads((tmp_path / "s.json").read_text())
    assert items[-1]["raw"] == deep.decode()  # kept as text, not parsed (json.loads raised RecursionError)


def test_json_export_parses_frames_for_people(tmp_path):
    store = sample_store()
    result = export_json(store, tmp_path / "s.json")
    items = json.loads(result.path.read_text())
    assert len(items) == len(store)
    request = next(item for item in items if item.get("method") == "tools/call")
    assert request["message"]["params"]["name"] == "echo"
    invalid = next(item for item in items if item["kind"] == "invalid")
    assert invalid["raw"] == "Loading... 100%"


async def test_export_keys_write_files_in_a_thread_and_notify(tmp_path):
    store = sample_store()
    app = LogApp(store, export_dir=tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("e")
        await pilot.pause()
        assert not app.exports  # a single key asks where first (screens/dialogs/save_as.py)
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.exports) == 1)
        await pilot.press("E", "enter")
        await wait_for(pilot, lambda: len(app.exports) == 2)
        session, array = (message.result for message in app.exports)
        assert session.path.parent == tmp_path and session.path.suffix == ".jsonl"
        assert load_session(session.path).store.total == store.total
        assert len(json.loads(array.path.read_text())) == len(store)
        assert any(str(session.path) in n.message for n in shown_notifications(app))


async def test_export_failure_is_reported_not_raised(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    app = LogApp(sample_store(), export_dir=blocker / "sub")  # the save-as check passes (a folder made when writing)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("e", "enter")
        await wait_for(pilot, lambda: len(app.exports) == 1)
        await wait_for(
            pilot, lambda: any("Export failed" in n.message for n in shown_notifications(app)), what="the note"
        )
        assert app.exports[0].result is None and app.exports[0].error
