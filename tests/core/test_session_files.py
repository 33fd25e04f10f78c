"""Session files are data from outside: crafted lines are skipped and counted, the load
is bounded by the file (never by what a seq says), a loaded store pages evicted
entries back from the file instead of copying it, and files are created 0600."""

from __future__ import annotations

import json
import os
import stat

import pytest

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.loading import LoadCancelled, SessionFileError, load_session, read_header
from mcp_inspector.core.traffic.recording import SessionWriter
from mcp_inspector.core.traffic.store import TrafficStore

HEADER = {"type": "header", "format": "mcp-inspector-session", "version": 1}


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # where a spill file would go


def write(path, *lines) -> None:
    with open(path, "wb") as handle:
        for line in (HEADER, *lines):
            handle.write(
                line if isinstance(line, bytes) else (json.dumps(line) if not isinstance(line, str) else line).encode()
            )
            handle.write(b"\n")


def entry(seq, raw="x", **fields) -> dict:
    return {"seq": seq, "ts": 1.0 + seq, "dir": "in", "kind": "stderr", "raw": raw, **fields}


def request(seq, n=1) -> dict:
    return {
        "seq": seq,
        "ts": 1.0,
        "dir": "out",
        "kind": "request",
        "method": "ping",
        "id": n,
        "raw": json.dumps({"jsonrpc": "2.0", "id": n, "method": "ping"}),
    }


def response(seq, reply_to, n=1) -> dict:
    return {
        "seq": seq,
        "ts": 2.0,
        "dir": "in",
        "kind": "response",
        "id": n,
        "reply_to": reply_to,
        "raw": json.dumps({"jsonrpc": "2.0", "id": n, "result": {}}),
    }


def test_a_jump_in_seqs_is_renumbered_not_filled(tmp_path) -> None:
    path = tmp_path / "jump.jsonl"
    write(path, entry(1), entry(100_001), request(100_002), response(100_003, 100_002))
    loaded = load_session(path, cap=10)
    # the old loader made 100,000 placeholders here (and a spill file for them)
    assert loaded.store.total == 4 and [e.seq for e in loaded.store] == [1, 2, 3, 4]
    assert loaded.store.get(4).reply_to == 3 and loaded.store.get(3).reply_seq == 4  # the link survives renumbering
    assert not (tmp_path / "state").exists()
    # 10**12: the old loader looped 10**12 times; now it is the same two entries
    write(path, entry(1), entry(10**12), request(10**12 + 1), response(10**12 + 2, 10**12 + 1))
    loaded = load_session(path)
    assert [e.seq for e in loaded.store] == [1, 2, 3, 4] and loaded.store.get(3).reply_seq == 4
    # a first entry far out is just where the seqs start
    write(path, entry(10**12), entry(10**12 + 1))
    assert [e.seq for e in load_session(path).store] == [10**12, 10**12 + 1]


def test_every_bad_line_is_skipped_counted_and_said(tmp_path) -> None:
    path = tmp_path / "bad.jsonl"
    bad = [
        '"just a string"',  # line 3
        "[1, 2]",
        "null",
        json.dumps(entry(3, raw=5)),  # raw of the wrong type
        json.dumps(entry(3, method=5)),
        json.dumps(entry(3, meta=[1])),
        json.dumps(entry(3, late="yes")),
        json.dumps({**entry(3), "seq": "3"}),
        json.dumps({**entry(3), "seq": True}),
        json.dumps({**entry(3), "seq": -3}),
        json.dumps({**entry(3), "ts": "now"}),
        json.dumps({**entry(3), "ts": 10**400}),
        json.dumps({**entry(3), "dir": "sideways"}),
        json.dumps({**entry(3), "reply_to": {"a": 1}}),
        json.dumps({**entry(3), "raw": None, "raw_b64": "!!not base64!!"}),
        '{"seq": 3, "ts": 1.0, "dir": "in", "kind": "stderr", "raw": "x", "meta": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"seq": 3, "ts": NaN, "dir": "in", "kind": "stderr", "raw": "x"}',
        b'{"seq": 3, "ts": 1.0, "dir": "in", "kind": "stderr", "raw": "\xff\xfe"}',  # not UTF-8
        "{torn",
    ]
    write(path, request(1), entry(2), *bad, response(3, 1), entry(4))
    loaded = load_session(path)
    assert loaded.skipped == len(bad)
    assert loaded.skipped_lines == list(range(4, 4 + len(bad)))
    assert all(loaded.reasons[n] for n in loaded.skipped_lines)
    assert "not an object" in loaded.reasons[4] and "nested deeper" in loaded.reasons[19]
    assert "not UTF-8" in loaded.reasons[21]
    # the seqs the file gives follow on, so no placeholder is kept, and the reply is linked
    assert [e.seq for e in loaded.store] == [1, 2, 3, 4] and loaded.store.get(1).reply_seq == 3
    text = loaded.describe_skipped()
    assert text.startswith(f"{len(bad)} unreadable lines skipped (lines 4, 5, 6, 7, 8, …)") and "line 4:" in text


def test_unreadable_lines_keep_their_place_when_the_seqs_say_so(tmp_path) -> None:
    path = tmp_path / "holes.jsonl"
    write(path, request(1), "garbage", "more garbage", response(4, 1), "{}", entry(6))
    loaded = load_session(path)
    assert [e.seq for e in loaded.store] == [1, 2, 3, 4, 5, 6]
    assert loaded.store.get(2).raw.startswith(b"(unreadable: line 3 of the session file")
    assert loaded.store.get(1).reply_seq == 4 and loaded.store.get(6).raw == b"x"


def test_an_overlong_line_is_skipped_without_holding_it(tmp_path) -> None:
    path = tmp_path / "long.jsonl"
    write(path, entry(1), entry(2, raw="y" * 100_000), entry(3))
    loaded = load_session(path, max_line=1000)
    assert loaded.skipped_lines == [3] and "longer than 1000 bytes" in loaded.reasons[3]
    assert [e.raw for e in loaded.store] == [
        b"x",
        b"(unreadable: line 3 of the session file: the line is longer than 1000 bytes)",
        b"x",
    ]


@pytest.mark.parametrize(
    "first, reason",
    [
        (b"[" * 5000 + b"]" * 5000, "nested deeper than 128"),
        (b'["mcp-inspector-session"]', "no mcp-inspector-session header"),
        (b'{"format": "mcp-inspector-session", "x": "\xff"}', "not UTF-8"),
        (b'{"format": "mcp-inspector-session", "n": NaN}', "NaN"),
        (b"", "is empty"),
    ],
    ids=["deep", "array", "not-utf8", "nan", "empty"],
)
def test_a_bad_header_is_one_line(tmp_path, first, reason) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(first + (b"\n" if first else b""))
    with pytest.raises(SessionFileError, match=reason) as caught:
        read_header(path)
    assert "\n" not in str(caught.value)


def test_not_a_regular_file(tmp_path) -> None:
    with pytest.raises(SessionFileError, match="is a directory"):
        read_header(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(SessionFileError, match="not a regular file"):  # not a wait for a writer
        read_header(fifo)
    with pytest.raises(SessionFileError, match="cannot read /proc/self/mem"):
        read_header("/proc/self/mem")
    huge = tmp_path / "huge.jsonl"
    huge.write_bytes(b"{" + b" " * (2 << 20) + b"}\n")
    with pytest.raises(SessionFileError, match="first line is over"):
        read_header(huge)


def test_a_loaded_store_pages_from_the_file_and_copies_nothing(tmp_path) -> None:
    path = tmp_path / "big.jsonl"
    lines = []
    for seq in range(1, 200, 2):
        lines += [request(seq, seq), response(seq + 1, seq, seq)]
    write(path, *lines, "broken", entry(202))
    loaded = load_session(path, cap=10)
    store = loaded.store
    assert len(store) <= 11 and store.total == 202 and store.session_file == path
    assert not (tmp_path / "state").exists()  # no spill file: the entries are in the file already
    first = store.fetch(1)
    assert first.seq == 1 and first.method == "ping" and store.fetch(2).reply_to == 1
    all_entries = list(store.iter_all())
    assert [e.seq for e in all_entries] == list(range(1, 203))
    assert all_entries[200].raw.startswith(b"(unreadable: line 202")
    assert all_entries[201].raw == b"x" and store.fetch(201).raw.startswith(b"(unreadable: line 202")
    loaded.store.close()
    assert path.exists()  # the opened file is never removed


def test_the_pages_keep_renumbered_links(tmp_path) -> None:
    path = tmp_path / "jump.jsonl"
    lines = (
        [request(1), response(2, 1)]
        + [entry(10**9 + i) for i in range(20)]
        + [request(2 * 10**9, 7), response(2 * 10**9 + 1, 2 * 10**9, 7)]
    )
    write(path, *lines)
    store = load_session(path, cap=10).store
    everything = list(store.iter_all())
    assert [e.seq for e in everything] == list(range(1, 25))
    assert everything[1].reply_to == 1 and everything[23].reply_to == 23


def test_a_cancelled_load_stops(tmp_path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, *[entry(i) for i in range(1, 100)])
    with pytest.raises(LoadCancelled):
        load_session(path, cancelled=lambda: True)


def test_files_are_created_private_and_no_directory_is_made(tmp_path) -> None:
    os.umask(0o022)
    writer = SessionWriter(tmp_path / "rec.jsonl")
    writer.close()
    assert stat.S_IMODE((tmp_path / "rec.jsonl").stat().st_mode) == 0o600
    with pytest.raises(FileNotFoundError):
        SessionWriter(tmp_path / "missing" / "rec.jsonl")
    assert not (tmp_path / "missing").exists()
    store = TrafficStore(cap=10, spill_dir=tmp_path / "spill")
    for _ in range(30):
        store.append(Direction.IN, Kind.STDERR, b"x")
    assert stat.S_IMODE(store.session_file.stat().st_mode) == 0o600
    store.close()
