"""Session files: write as it happens, read back exactly, survive a torn last line."""

from __future__ import annotations

import json

import pytest

from mcp_inspector.core.protocol.jsonrpc import Kind
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.loading import SessionFileError, iter_session, load_session
from mcp_inspector.core.traffic.recording import SessionWriter
from mcp_inspector.core.traffic.store import TrafficStore


def record_sample(path) -> TrafficStore:
    store = TrafficStore(clock=iter(range(1000, 2000)).__next__)
    writer = SessionWriter(path, {"server": "raw", "command": ["python", "x.py"]})
    store.attach_recorder(writer)
    request = store.append(
        Direction.OUT, Kind.REQUEST, b'{"jsonrpc":"2.0","id":1,"method":"ping"}', method="ping", msg_id=1, has_id=True
    )
    store.append(Direction.IN, Kind.INVALID, b"\xff\xfe garbage", problem="not JSON: x")
    store.append(Direction.IN, Kind.STDERR, "warn ✓".encode())
    store.append(
        Direction.IN,
        Kind.NOTIFICATION,
        b'{"jsonrpc":"2.0","method":"m","params":{"d":"bad \xff"}}',
        method="m",
        problem="invalid UTF-8 (bytes replaced with U+FFFD)",
    )
    reply = store.append(
        Direction.IN,
        Kind.RESPONSE,
        b'{"jsonrpc":"2.0","id":1,"result":{}}',
        msg_id=1,
        has_id=True,
        reply_to=request.seq,
        latency_ms=3.25,
        late=True,
        problem="late: timeout",
    )
    request.reply_seq = reply.seq  # as RpcConnection does once the reply is appended
    store.append(
        Direction.IN,
        Kind.ERROR,
        b'{"jsonrpc":"2.0","id":"s","error":{"code":-1,"message":"m"}}',
        msg_id="s",
        has_id=True,
        error_code=-1,
    )
    store.append(
        Direction.IN,
        Kind.INVALID,
        b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
        msg_id=True,
        has_id=True,
        method="ping",
    )
    store.note("process exited", exit_code=3)
    writer.close()
    return store


def test_round_trip_is_exact(tmp_path) -> None:
    path = tmp_path / "session.jsonl"
    original = record_sample(path)
    loaded = load_session(path)
    assert loaded.header["format"] == "mcp-inspector-session" and loaded.header["server"] == "raw"
    assert loaded.header["command"] == ["python", "x.py"]
    assert loaded.skipped_lines == []
    fields = (
        "seq",
        "ts",
        "direction",
        "kind",
        "raw",
        "method",
        "msg_id",
        "has_id",
        "problem",
        "error_code",
        "reply_to",
        "reply_seq",
        "latency_ms",
        "late",
        "meta",
    )
    for a, b in zip(original, loaded.store, strict=True):
        assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]
    assert loaded.store.kind_counts == original.kind_counts
    assert loaded.store.get(1).reply_seq == 5


def test_invalid_utf8_is_kept_as_raw_b64(tmp_path) -> None:
    path = tmp_path / "session.jsonl"
    record_sample(path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    garbage = lines[1]
    assert "raw" not in garbage and "raw_b64" in garbage
    assert lines[2]["raw"] == "warn ✓"  # valid UTF-8 stays readable text
    assert load_session(path).store.get(2).raw == b"\xff\xfe garbage"
    assert load_session(path).store.get(4).raw.endswith(b'"bad \xff"}}')


def test_a_torn_last_line_is_skipped(tmp_path) -> None:
    path = tmp_path / "session.jsonl"
    record_sample(path)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"seq": 9, "ts": 1.0, "dir": "in", "kind": "resp')  # the inspector died mid-write
    loaded = load_session(path)
    assert loaded.skipped_lines == [10]
    assert loaded.store.last_seq == 8 and len(loaded.store) == 8


def test_an_unreadable_middle_line_keeps_later_seqs(tmp_path) -> None:
    path = tmp_path / "session.jsonl"
    record_sample(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = "not json at all"  # entry seq 3
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = load_session(path)
    assert loaded.skipped_lines == [4]
    assert [e.seq for e in loaded.store] == list(range(1, 9))
    assert loaded.store.get(4).method == "m"


def test_entries_are_flushed_as_they_are_written(tmp_path) -> None:
    path = tmp_path / "live.jsonl"
    store = TrafficStore()
    writer = SessionWriter(path)
    store.attach_recorder(writer)
    store.append(Direction.OUT, Kind.REQUEST, b"{}", method="ping")
    # Not closed: a crash now must still leave the entry on disk.
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2
    header, entries = iter_session(path)
    assert [e.method for _, e in entries] == ["ping"]
    writer.close()


def test_not_a_session_file(tmp_path) -> None:
    other = tmp_path / "other.jsonl"
    other.write_text('{"hello": 1}\n', encoding="utf-8")
    with pytest.raises(SessionFileError, match="not an mcp-inspector session file"):
        load_session(other)
    text = tmp_path / "text.txt"
    text.write_text("hello\n", encoding="utf-8")
    with pytest.raises(SessionFileError, match="first line is not JSON"):
        load_session(text)
    with pytest.raises(SessionFileError, match="cannot open"):
        load_session(tmp_path / "missing.jsonl")
