"""TrafficStore: seq numbers, memory cap with a spill file, links, counters, listeners."""

from __future__ import annotations

import pytest

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.traffic.entry import Direction, TrafficEntry
from mcp_inspector.core.traffic.loading import load_session
from mcp_inspector.core.traffic.recording import SessionWriter
from mcp_inspector.core.traffic.store import TrafficStore


def fill(store: TrafficStore, count: int) -> list[TrafficEntry]:
    entries = []
    for i in range(count):
        kind = Kind.REQUEST if i % 2 == 0 else Kind.NOTIFICATION
        method = "tools/call" if i % 2 == 0 else "notifications/message"
        entries.append(
            store.append(Direction.OUT, kind, f'{{"n":{i}}}'.encode(), method=method, msg_id=i, has_id=i % 2 == 0)
        )
    return entries


def test_seq_numbers_start_at_one_and_increase() -> None:
    store = TrafficStore()
    assert (store.first_seq, store.last_seq, store.total, len(store)) == (1, 0, 0, 0)
    entries = fill(store, 5)
    assert [e.seq for e in entries] == [1, 2, 3, 4, 5]
    assert (store.first_seq, store.last_seq, store.total, len(store)) == (1, 5, 5, 5)
    assert store.get(3) is entries[2] and store.at(2) is entries[2]
    assert store.get(0) is None and store.get(6) is None
    assert [e.seq for e in store.since(3)] == [4, 5]
    assert [e.seq for e in store.since(0)] == [1, 2, 3, 4, 5]
    assert store.since(5) == []
    assert [e.seq for e in store] == [1, 2, 3, 4, 5]


def test_clock_and_explicit_ts() -> None:
    store = TrafficStore(clock=lambda: 1000.0)
    assert store.append(Direction.IN, Kind.STDERR, b"x").ts == 1000.0
    assert store.append(Direction.IN, Kind.STDERR, b"y", ts=5.0).ts == 5.0
    assert store.now() == 1000.0


def test_counters_and_version() -> None:
    store = TrafficStore()
    version = store.version
    fill(store, 6)
    store.append(Direction.IN, Kind.STDERR, b"warning")
    store.note("server started", pid=42)
    assert store.version == version + 8
    assert store.kind_counts[Kind.REQUEST] == 3 and store.kind_counts["notification"] == 3
    assert store.kind_counts[Kind.STDERR] == 1 and store.kind_counts[Kind.EVENT] == 1
    assert store.method_counts == {"tools/call": 3, "notifications/message": 3}
    note = store.get(store.last_seq)
    assert note.direction is Direction.LOCAL and note.meta == {"pid": 42} and note.text == "server started"


def test_link_ties_request_and_reply_both_ways() -> None:
    store = TrafficStore()
    request = store.append(Direction.OUT, Kind.REQUEST, b"{}", method="ping", msg_id=1, has_id=True)
    reply = store.append(Direction.IN, Kind.RESPONSE, b"{}", msg_id=1, has_id=True)
    version = store.version
    store.link(request, reply, 12.5)
    assert (reply.reply_to, request.reply_seq, reply.latency_ms) == (request.seq, reply.seq, 12.5)
    assert store.version == version + 1


def test_listeners_see_every_entry_and_can_be_removed() -> None:
    store = TrafficStore()
    seen: list[int] = []
    remove = store.add_listener(lambda e: seen.append(e.seq))
    fill(store, 3)
    remove()
    fill(store, 2)
    assert seen == [1, 2, 3]


def test_cap_must_be_sensible() -> None:
    with pytest.raises(ValueError):
        TrafficStore(cap=5)


def test_eviction_keeps_memory_bounded_and_spills_old_entries(tmp_path) -> None:
    store = TrafficStore(cap=10, spill_dir=tmp_path)
    entries = fill(store, 100)
    assert 10 <= len(store) <= 11
    assert store.total == 100 and store.last_seq == 100
    assert store.first_seq == 100 - len(store) + 1
    assert store.get(1) is None and store.get(100) is entries[-1]
    assert store.at(0).seq == store.first_seq
    assert [e.seq for e in store.since(95)] == [96, 97, 98, 99, 100]
    assert [e.seq for e in store.since(1)][0] == store.first_seq  # since() only returns what is in memory
    assert store.kind_counts[Kind.REQUEST] == 50  # counters cover evicted entries too
    assert store.session_file is not None and store.session_file.parent == tmp_path
    assert oct(store.session_file.stat().st_mode & 0o777) == "0o600"
    spilled = load_session(store.session_file)
    assert [e.seq for e in spilled.store] == list(range(1, store.first_seq))
    assert [e.raw for e in spilled.store] == [e.raw for e in entries[: store.first_seq - 1]]
    assert spilled.skipped_lines == []
    # evicted entries are read back from the spill file, by seq or all in order
    assert store.fetch(1).raw == entries[0].raw and store.fetch(1).seq == 1
    assert store.fetch(100) is entries[-1] and store.fetch(101) is None
    assert [(e.seq, e.raw) for e in store.iter_all()] == [(e.seq, e.raw) for e in entries]
    spill = store.session_file
    store.close()
    assert not spill.exists()  # the store's own spill file goes with it
    assert store.fetch(1) is None
    store.close()  # twice is fine


def test_two_stores_spilling_at_once_use_different_files(tmp_path) -> None:
    first, second = TrafficStore(cap=10, spill_dir=tmp_path), TrafficStore(cap=10, spill_dir=tmp_path)
    fill(first, 30)
    fill(second, 30)
    assert first.session_file != second.session_file
    assert len(list(load_session(first.session_file).store)) == first.first_seq - 1
    assert len(list(load_session(second.session_file).store)) == second.first_seq - 1
    first.close()
    second.close()
    assert list(tmp_path.iterdir()) == []


def test_a_recorder_replaces_the_spill_file(tmp_path) -> None:
    store = TrafficStore(cap=10, spill_dir=tmp_path / "spill")
    writer = SessionWriter(tmp_path / "rec.jsonl")
    store.attach_recorder(writer)
    entries = fill(store, 50)
    assert store.fetch(1).raw == entries[0].raw  # read back from the recording
    assert [e.raw for e in store.iter_all()] == [e.raw for e in entries]
    writer.close()
    store.close()
    assert store.session_file == tmp_path / "rec.jsonl" and store.session_file.exists()  # a recording stays
    assert not (tmp_path / "spill").exists()
    assert [e.seq for e in load_session(tmp_path / "rec.jsonl").store] == list(range(1, 51))


def test_load_entry_keeps_seq_numbers_and_relinks() -> None:
    store = TrafficStore()
    store.load_entry(TrafficEntry(5, 1.0, Direction.OUT, Kind.REQUEST, b"{}", method="ping", msg_id=1, has_id=True))
    store.load_entry(TrafficEntry(6, 2.0, Direction.IN, Kind.RESPONSE, b"{}", msg_id=1, has_id=True, reply_to=5))
    assert store.first_seq == 5 and store.last_seq == 6 and store.base_seq == 5
    assert store.get(5).reply_seq == 6


def test_load_entry_never_fills_a_gap_in_seqs() -> None:
    # The loader keeps the places of unreadable lines; the store itself keeps seqs dense, whatever it is given.
    store = TrafficStore()
    store.load_entry(TrafficEntry(1, 1.0, Direction.IN, Kind.STDERR, b"a"))
    store.load_entry(TrafficEntry(10**12, 2.0, Direction.IN, Kind.STDERR, b"b"))
    assert [e.seq for e in store] == [1, 2] and store.total == 2


def test_a_reply_is_linked_only_to_a_request() -> None:
    store = TrafficStore()
    store.load_entry(TrafficEntry(1, 1.0, Direction.IN, Kind.STDERR, b"a"))
    store.load_entry(TrafficEntry(2, 2.0, Direction.IN, Kind.RESPONSE, b"{}", reply_to=1))
    assert store.get(1).reply_seq is None


def test_adopt_takes_over_entries_counters_and_the_file(tmp_path) -> None:
    loaded = TrafficStore(cap=10, spill_dir=tmp_path)
    entries = fill(loaded, 30)
    spill = loaded.session_file
    app = TrafficStore(cap=10)
    app.adopt(loaded)
    assert app.total == 30 and app.first_seq == entries[-len(app)].seq and app.kind_counts[Kind.REQUEST] == 15
    assert app.fetch(1).raw == entries[0].raw
    assert len(loaded) == 0
    loaded.close()
    assert spill.exists()  # it is the adopting store's now
    app.close()
    assert not spill.exists()
    with pytest.raises(ValueError):
        app.adopt(TrafficStore())


def test_the_spill_file_stops_at_its_limit_and_says_so_once(tmp_path) -> None:
    """A server flooding for hours must not fill the disk: past spill_limit, evicted entries are dropped, counted
    and said once in the timeline; what was spilled before stays readable."""
    store = TrafficStore(cap=10, spill_dir=tmp_path, spill_limit=2_000)
    entries = []
    while not store.dropped:
        entries += fill(store, 1)
    notes = [e for e in store if e.meta and e.meta.get("spill_full")]  # in memory: just said
    assert len(notes) == 1 and "--record" in notes[0].raw.decode()
    size = store.session_file.stat().st_size
    assert 2_000 <= size < 2_000 + 100  # the limit, passed by the last line written at most
    assert store.fetch(1).raw == entries[0].raw  # what was spilled is still read back
    more = fill(store, 500)
    assert store.session_file.stat().st_size == size  # nothing more written
    assert store.dropped > 400
    assert sum(1 for e in store.iter_all() if e.meta and e.meta.get("spill_full")) <= 1  # said once
    assert store.fetch(more[-1].seq) is more[-1]
    store.close()


def big(store: TrafficStore, size: int, tag: int) -> TrafficEntry:
    """A response frame of exactly ``size`` raw bytes whose content says which one it is."""
    head = f'{{"jsonrpc":"2.0","id":{tag},"result":{{"text":"'.encode()
    return store.append(
        Direction.IN, Kind.RESPONSE, head + b"x" * (size - len(head) - 3) + b'"}}', msg_id=tag, has_id=True
    )


def test_a_byte_budget_pages_out_big_frames_and_keeps_the_newest(tmp_path) -> None:
    """Few entries but many bytes (a big resource read again and again): past mem_limit raw bytes, the oldest
    leave memory for the spill file and are read back whole; the frame just received always stays."""
    store = TrafficStore(cap=1_000, spill_dir=tmp_path, mem_limit=10_000)
    entries = fill(store, 3)
    for tag in range(10):
        entries.append(big(store, 3_000, tag))
        assert store.get(entries[-1].seq) is entries[-1]  # the newest is in memory
        assert store.held_bytes <= 10_000
        assert store.held_bytes == sum(len(e.raw) for e in store)
    assert store.first_seq > 4 and len(store) < 10 and store.total == 13
    for entry in entries[: store.first_seq - 1]:
        back = store.fetch(entry.seq)
        assert back is not entry and (back.seq, back.raw, back.kind) == (entry.seq, entry.raw, entry.kind)
    assert [(e.seq, e.raw) for e in store.iter_all()] == [(e.seq, e.raw) for e in entries]
    # one frame over the whole budget stays alone in memory until the next one arrives
    huge = big(store, 50_000, 99)
    assert list(store) == [huge] and store.held_bytes == 50_000
    after = store.note("after the huge one")
    assert list(store) == [after] and store.fetch(huge.seq).raw == huge.raw
    assert store.dropped == 0
    store.close()


def test_the_byte_budget_evicts_in_batches(tmp_path) -> None:
    """Like the count cap's tenth of slack: once over the budget, eviction goes down to nine tenths of it,
    so a stream of frames evicts once every few appends, not on each one."""
    store = TrafficStore(cap=1_000, spill_dir=tmp_path, mem_limit=10_000)
    evictions, first = 0, store.first_seq
    for tag in range(100):
        big(store, 500, tag)
        if store.first_seq != first:
            evictions, first = evictions + 1, store.first_seq
            assert store.held_bytes <= 9_000
        assert store.held_bytes <= 10_000
    assert 0 < evictions <= 100 // 2
    store.close()


def test_the_byte_budget_with_a_recorder_and_a_full_spill_file(tmp_path) -> None:
    store = TrafficStore(cap=1_000, spill_dir=tmp_path / "spill", mem_limit=10_000)
    writer = SessionWriter(tmp_path / "rec.jsonl")
    store.attach_recorder(writer)
    entries = [big(store, 4_000, tag) for tag in range(8)]
    assert store.first_seq > 1 and store.held_bytes <= 10_000
    assert store.fetch(1).raw == entries[0].raw  # read back from the recording: no spill file
    assert [e.raw for e in store.iter_all()] == [e.raw for e in entries]
    assert not (tmp_path / "spill").exists()
    writer.close()
    store.close()
    # the spill file's own limit still holds: past it, frames leaving memory are dropped, counted and said once
    store = TrafficStore(cap=1_000, spill_dir=tmp_path / "spill", mem_limit=10_000, spill_limit=20_000)
    said = []
    store.add_listener(lambda e: said.append(e) if e.meta and e.meta.get("spill_full") else None)
    for tag in range(30):
        newest = big(store, 4_000, tag)
        assert store.get(newest.seq) is newest
    assert store.dropped > 0 and store.held_bytes <= 10_000
    assert store.fetch(1).raw.startswith(b'{"jsonrpc":"2.0","id":0,')
    assert len(said) == 1 and "--record" in said[0].raw.decode()
    store.close()


def test_an_opened_session_file_and_adopt_keep_the_byte_budget(tmp_path) -> None:
    source = TrafficStore(cap=1_000, spill_dir=tmp_path / "spill")
    writer = SessionWriter(tmp_path / "s.jsonl")
    source.attach_recorder(writer)
    entries = [big(source, 5_000, tag) for tag in range(12)]
    writer.close()
    source.close()
    loaded = load_session(tmp_path / "s.jsonl", cap=1_000, mem_limit=12_000).store
    assert loaded.held_bytes <= 12_000 and loaded.get(12) is not None and loaded.first_seq > 1
    assert loaded.fetch(1).raw == entries[0].raw  # read back from the opened file, nothing copied
    assert not (tmp_path / "spill").exists()
    app = TrafficStore(cap=1_000, mem_limit=6_000)
    app.adopt(loaded)
    assert [e.seq for e in app] == [12] and app.held_bytes == 5_000 and loaded.held_bytes == 0
    assert [(e.seq, e.raw) for e in app.iter_all()] == [(e.seq, e.raw) for e in entries]
    app.close()
    assert (tmp_path / "s.jsonl").exists()


def test_mem_limit_must_be_positive() -> None:
    with pytest.raises(ValueError):
        TrafficStore(mem_limit=0)
