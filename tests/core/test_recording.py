"""Session files: write as it happens, read back exactly, survive a torn last line."""

from __future__ import annotations

import json

import pytest

from mcp_inspector.core.base.jsonrpc import Kind
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


# -- changes after an entry was written: annotation lines (issue 19, item 8) ---------------


def _ping(store: TrafficStore, n: int):
    return store.append(
        Direction.OUT,
        Kind.REQUEST,
        b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' % n,
        method="ping",
        msg_id=n,
        has_id=True,
    )


def test_a_flag_or_link_after_writing_reaches_the_recording_and_is_read_back(tmp_path) -> None:
    path = tmp_path / "s.jsonl"
    store = TrafficStore(cap=10)
    writer = SessionWriter(path)
    store.attach_recorder(writer)
    request = _ping(store, 1)
    reply = store.append(Direction.IN, Kind.RESPONSE, b'{"jsonrpc":"2.0","id":1,"result":{}}', msg_id=1, has_id=True)
    version = store.version
    store.flag(request, "found later")  # what the screen shows from now on...
    store.link(request, reply, 12.5)
    assert store.version == version + 2
    annotations = [r for r in map(json.loads, path.read_text().splitlines()) if r.get("type") == "annotation"]
    assert annotations == [  # ...the recording has too
        {"type": "annotation", "seq": request.seq, "problem": "found later"},
        {"type": "annotation", "seq": reply.seq, "reply_to": request.seq, "latency_ms": 12.5},
    ]
    for n in range(2, 40):  # both leave memory: read back from the recording, annotations folded in
        _ping(store, n)
    assert store.get(request.seq) is None
    assert store.fetch(request.seq).problem == "found later"
    assert (store.fetch(reply.seq).reply_to, store.fetch(reply.seq).latency_ms) == (request.seq, 12.5)
    writer.close()

    for cap in (1_000, 10):  # --open, held in memory or read back from the file
        loaded = load_session(path, cap=cap)
        assert loaded.skipped == 0
        assert loaded.store.fetch(request.seq).problem == "found later"
        assert loaded.store.fetch(reply.seq).latency_ms == 12.5
        assert loaded.store.fetch(request.seq + 1).reply_to == request.seq
        assert [e.problem for e in loaded.store.iter_all()][0] == "found later"
    _, lines = iter_session(path)  # query: no line unreadable, each entry once
    assert [entry.seq for _, entry in lines] == list(range(1, 41))


def test_a_flag_on_an_entry_already_spilled_reaches_the_spill_file(tmp_path) -> None:
    store = TrafficStore(cap=10, spill_dir=tmp_path)
    first = _ping(store, 1)
    for n in range(2, 40):
        _ping(store, n)
    assert store.get(first.seq) is None and store.fetch(first.seq).problem is None
    store.flag(first, "found after it left memory")
    assert store.fetch(first.seq).problem == "found after it left memory"
    assert [e.problem for e in store.iter_all()][0] == "found after it left memory"
    store.close()
