"""The incremental SSE parser: WHATWG field rules, every line ending, chunk
boundaries anywhere, and bounded memory for an over-long event."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_inspector.core.transport.sse_events import SseEvent, SseParser


def parse(*chunks: bytes, **options) -> tuple[list[SseEvent], SseParser]:
    parser = SseParser(**options)
    events: list[SseEvent] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    return events, parser


def test_data_lines_join_with_newline_and_event_defaults_to_message():
    events, _ = parse(b"data: one\ndata:two\ndata:  three\n\n")
    assert [(e.event, e.data) for e in events] == [("message", b"one\ntwo\n three")]
    assert events[0].size == len(b"one\ntwo\n three")


def test_event_id_retry_fields():
    events, parser = parse(b"event: endpoint\nid: 7\nretry: 1500\ndata: /messages?s=1\n\n")
    assert events == [SseEvent("endpoint", b"/messages?s=1", "7", 1500, len(b"/messages?s=1"))]
    assert parser.last_event_id == "7" and parser.retry == 1500


def test_priming_event_is_dispatched_with_empty_data_and_sets_the_last_id():
    events, parser = parse(b"id: event-1\nretry: 500\ndata: \n\n")
    assert [(e.data, e.id, e.retry) for e in events] == [(b"", "event-1", 500)]
    assert parser.last_event_id == "event-1"


def test_a_block_without_data_dispatches_nothing_but_keeps_its_id_and_retry():
    events, parser = parse(b"id: 42\nretry: 10\n\n")
    assert events == [] and parser.last_event_id == "42" and parser.retry == 10


def test_ids_with_nul_and_non_digit_retry_are_ignored():
    events, parser = parse(b"id: ok\ndata: a\n\nid: b\x00ad\nretry: 1x\nretry: -5\ndata: b\n\n")
    assert [e.id for e in events] == ["ok", None]
    assert parser.last_event_id == "ok" and parser.retry is None


def test_comments_are_keep_alives():
    events, parser = parse(b": keep-alive\n:\n\ndata: x\n: in between\n\n")
    assert [e.data for e in events] == [b"x"] and parser.comments_seen == 3


def test_cr_lf_and_crlf_line_endings():
    for sep in (b"\n", b"\r", b"\r\n"):
        events, _ = parse(b"data: a" + sep + b"data: b" + sep + sep + b"data: c" + sep + sep)
        assert [e.data for e in events] == [b"a\nb", b"c"], sep


def test_crlf_split_across_chunks_is_one_line_end():
    events, _ = parse(b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n")
    assert [e.data for e in events] == [b"a\nb"]


def test_bom_at_start_is_skipped_even_split():
    events, _ = parse(b"\xef", b"\xbb", b"\xbfdata: x\n\n")
    assert [e.data for e in events] == [b"x"]
    events, _ = parse(b"data: \xef\xbb\xbfx\n\n")  # only at the very start
    assert [e.data for e in events] == [b"\xef\xbb\xbfx"]


def test_field_without_colon_and_unknown_fields():
    events, _ = parse(b"data\nfoo: bar\n\n")
    assert [e.data for e in events] == [b""]


def test_trailing_partial_event_is_discarded_at_eof():
    events, parser = parse(b'data: done\n\ndata: {"half":')
    assert [e.data for e in events] == [b"done"]
    assert parser.pending == len(b'data: {"half":')
    assert parser.finish() == len(b'data: {"half":')
    assert parser.pending == 0


def test_invalid_utf8_in_data_is_kept_as_bytes():
    events, _ = parse(b"data: \xff\xfe\n\n")
    assert events[0].data == b"\xff\xfe"


def test_over_long_event_gives_its_head_with_a_problem_and_parsing_goes_on():
    parser = SseParser(max_event_bytes=1000, head=100)
    events = []
    events += parser.feed(b"id: big\ndata: ")
    for _ in range(500):  # 500 KB of one data line, 1 KB per chunk
        events += parser.feed(b"x" * 1000)
        assert sum(len(p) for p in parser._line) <= 1000 + 64  # never more than the cap held
    events += parser.feed(b"\n\ndata: next\n\n")
    assert len(events) == 2
    big, nxt = events
    assert big.problem == "too long: 500000 bytes (cap 1000)"
    assert big.data == b"x" * 100 and big.size == 500_000 and big.id == "big"
    assert nxt.data == b"next" and nxt.problem is None


def test_over_long_event_made_of_many_lines_is_bounded_too():
    parser = SseParser(max_event_bytes=1000, head=100)
    events = []
    for _ in range(300):
        events += parser.feed(b"data: " + b"y" * 50 + b"\n")
        assert sum(len(p) for p in parser._data) <= 1000 + 51
    events += parser.feed(b"\n")
    assert len(events) == 1 and events[0].size == 300 * 50 + 299
    assert events[0].problem is not None and len(events[0].data) == 100


def test_an_event_exactly_at_the_cap_is_whole():
    events, _ = parse(b"data: " + b"z" * 1000 + b"\n\n", max_event_bytes=1000, head=10)
    assert events[0].problem is None and events[0].data == b"z" * 1000


# -- chunk boundaries anywhere -------------------------------------------------

_values = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00"), max_size=20)
_event = st.fixed_dictionaries(
    {
        "event": st.one_of(st.none(), st.sampled_from(["message", "endpoint", "ping"])),
        "id": st.one_of(st.none(), st.text(alphabet="abc123-", min_size=1, max_size=5)),
        "data": st.lists(_values, min_size=1, max_size=4),
        "comment": st.booleans(),
    }
)


def _serialise(events: list[dict], sep: bytes) -> bytes:
    out = b""
    for event in events:
        if event["comment"]:
            out += b": keep-alive" + sep
        if event["event"]:
            out += b"event: " + event["event"].encode() + sep
        if event["id"]:
            out += b"id: " + event["id"].encode() + sep
        for line in event["data"]:
            out += b"data: " + line.encode() + sep
        out += sep
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(_event, max_size=6), st.sampled_from([b"\n", b"\r", b"\r\n"]), st.booleans(), st.data())
def test_any_split_gives_the_same_events(events, sep, bom, data):
    stream = (b"\xef\xbb\xbf" if bom else b"") + _serialise(events, sep)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=12)))
    chunks = [stream[a:b] for a, b in itertools.pairwise([0, *cuts, len(stream)])]
    got, parser = parse(*chunks)
    expected = [
        ("message" if e["event"] is None else e["event"], "\n".join(e["data"]).encode(), e["id"]) for e in events
    ]
    assert [(e.event, e.data, e.id) for e in got] == expected
    ids = [e["id"] for e in events if e["id"]]
    assert parser.last_event_id == (ids[-1] if ids else None)
    assert parser.finish() == 0


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300), st.data())
def test_arbitrary_bytes_never_raise_and_split_does_not_matter(stream, data):
    whole, _ = parse(stream, max_event_bytes=64, head=16)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    chunks = [stream[a:b] for a, b in itertools.pairwise([0, *cuts, len(stream)])]
    split, _ = parse(*chunks, max_event_bytes=64, head=16)
    assert split == whole
    assert all(len(e.data) <= 64 for e in whole)
