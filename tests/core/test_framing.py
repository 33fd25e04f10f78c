"""LineFramer: newline framing on bytes, whatever way the bytes are chopped up."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_inspector.core.base.framing import MAX_LINE_BYTES, LineFramer, OverlongLine, is_blank


def feed_all(framer: LineFramer, chunks: list[bytes]) -> list[bytes]:
    lines: list[bytes] = []
    for chunk in chunks:
        lines.extend(framer.feed(chunk))
    return lines


def test_whole_lines_in_one_chunk() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"a":1}\n{"b":2}\n') == [b'{"a":1}', b'{"b":2}']
    assert framer.pending_size == 0
    assert framer.flush() is None


def test_split_writes_byte_by_byte_rejoin_exactly() -> None:
    frame = json.dumps({"jsonrpc": "2.0", "method": "x", "params": {"t": "héllo ✓ 😀"}}, ensure_ascii=False).encode()
    data = frame + b"\n" + frame + b"\n"
    framer = LineFramer()
    lines = feed_all(framer, [data[i : i + 1] for i in range(len(data))])
    assert lines == [frame, frame]
    assert json.loads(lines[0])["params"]["t"] == "héllo ✓ 😀"


def test_split_inside_a_multibyte_character() -> None:
    frame = '{"text":"✓"}'.encode()
    cut = frame.index("✓".encode()) + 1  # between the first and second byte of U+2713
    framer = LineFramer()
    assert framer.feed(frame[:cut]) == []
    assert framer.pending_size == cut
    assert framer.feed(frame[cut:] + b"\n") == [frame]
    assert json.loads(frame)["text"] == "✓"


def test_crlf_endings_are_stripped_but_inner_cr_kept() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"a":"x\\r"}\r\n{"b":2}\r\n') == [b'{"a":"x\\r"}', b'{"b":2}']
    # CR and LF arriving in different chunks.
    assert framer.feed(b'{"c":3}\r') == []
    assert framer.feed(b"\n") == [b'{"c":3}']


def test_empty_lines_come_out_blank_and_are_recognised() -> None:
    framer = LineFramer()
    lines = framer.feed(b'\n\r\n  \n{"a":1}\n\n')
    assert lines == [b"", b"", b"  ", b'{"a":1}', b""]
    assert [is_blank(line) for line in lines] == [True, True, True, False, True]


def test_unterminated_tail_is_returned_by_flush() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"a":1}\n{"b":') == [b'{"a":1}']
    assert framer.feed(b"2}") == []
    assert framer.pending_size == len(b'{"b":2}')
    assert framer.flush() == b'{"b":2}'
    assert framer.flush() is None
    assert framer.pending_size == 0


def test_unterminated_tail_with_cr_is_trimmed() -> None:
    framer = LineFramer()
    framer.feed(b'{"z":0}\r')
    assert framer.flush() == b'{"z":0}'


def test_50mb_line_in_64k_chunks_is_linear() -> None:
    """A 50 MB line fed 64 KiB at a time must not be re-scanned or re-joined per chunk.

    The proof counts the work, not wall time: until the newline comes, each chunk is held as
    it was fed (the same object, one list entry per chunk: nothing copied or joined), so the
    line is joined once at the end. Figures for a 50 MB frame: bench/bench_ingest.py.
    """
    size = 50 * 1024 * 1024
    payload = b'{"jsonrpc":"2.0","id":1,"result":{"text":"' + b"x" * size + b'"}}'
    data = payload + b"\n" + b'{"next":true}\n'
    chunk = 64 * 1024
    framer = LineFramer()
    lines: list[bytes] = []
    view = memoryview(data)
    fed: list[bytes] = []
    for i in range(0, len(data), chunk):
        piece = bytes(view[i : i + chunk])
        out = framer.feed(piece)
        lines.extend(out)
        if not out:  # no newline yet: the chunk is held as is, the earlier ones untouched
            fed.append(piece)
            assert len(framer._pending) == len(fed) and framer._pending[-1] is piece
            assert framer.pending_size == sum(map(len, fed)) == i + len(piece)
    assert len(fed) == len(payload) // chunk  # every chunk before the newline was held without a join
    assert len(lines) == 2
    assert len(lines[0]) == len(payload) and lines[0] == payload
    assert lines[1] == b'{"next":true}'
    assert framer.max_held == len(fed) * chunk


_line = st.text(alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(_line, max_size=12),
    crlf=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=30),
)
def test_any_chunking_gives_the_same_lines(lines: list[str], crlf: bool, cuts: list[int]) -> None:
    ending = b"\r\n" if crlf else b"\n"
    data = b"".join(line.encode() + ending for line in lines)
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    framer = LineFramer()
    got: list[bytes] = []
    for start, end in itertools.pairwise(points):
        got.extend(framer.feed(data[start:end]))
    assert got == [line.encode() for line in lines]
    assert framer.flush() is None


# -- the line cap -------------------------------------------------------------


def test_default_cap_is_well_above_the_results_we_support() -> None:
    assert LineFramer().max_line == MAX_LINE_BYTES >= 4 * 50 * 1024 * 1024


def test_a_line_over_the_cap_keeps_its_head_and_size_and_bounded_memory() -> None:
    cap, head = 1 << 20, 4096
    framer = LineFramer(max_line=cap, head=head)
    line = b'{"jsonrpc":"2.0","id":7,"result":"' + b"x" * (10 << 20) + b'"}'
    out: list[bytes] = []
    chunk = 64 * 1024
    for i in range(0, len(line), chunk):
        out.extend(framer.feed(line[i : i + chunk]))
        assert framer.pending_size <= cap
    assert out == [] and framer.discarding and framer.pending_size == head
    out.extend(framer.feed(b'\r\n{"next":1}\n'))
    assert len(out) == 2
    over, after = out
    assert type(over) is OverlongLine and over.size == len(line) and over == line[:head]
    assert after == b'{"next":1}' and type(after) is bytes
    assert framer.max_held <= cap and framer.pending_size == 0 and not framer.discarding


def test_one_chunk_holding_a_whole_over_long_line_and_more() -> None:
    framer = LineFramer(max_line=100, head=10)
    out = framer.feed(b"a" * 50 + b"\n" + b"b" * 500 + b"\n" + b"c" * 20 + b"\n" + b"d" * 300)
    assert out[0] == b"a" * 50 and out[2] == b"c" * 20
    assert type(out[1]) is OverlongLine and out[1] == b"b" * 10 and out[1].size == 500
    tail = framer.flush()
    assert type(tail) is OverlongLine and tail.size == 300 and tail == b"d" * 10
    assert framer.flush() is None and framer.max_held <= 100


def test_a_line_exactly_at_the_cap_is_whole() -> None:
    framer = LineFramer(max_line=100, head=10)
    assert framer.feed(b"x" * 60) == []
    assert framer.feed(b"y" * 40 + b"\n") == [b"x" * 60 + b"y" * 40]
    assert type(framer.feed(b"z" * 101 + b"\n")[0]) is OverlongLine


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=0, max_value=300), max_size=8),
    cuts=st.lists(st.integers(min_value=0, max_value=3000), max_size=30),
    cap=st.integers(min_value=1, max_value=200),
)
def test_capped_framing_is_the_same_however_chunked(sizes: list[int], cuts: list[int], cap: int) -> None:
    lines = [bytes([97 + i % 26]) * size for i, size in enumerate(sizes)]
    data = b"".join(line + b"\n" for line in lines)
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    framer = LineFramer(max_line=cap, head=16)
    got: list[bytes] = []
    for start, end in itertools.pairwise(points):
        got.extend(framer.feed(data[start:end]))
        assert framer.pending_size <= cap
    assert len(got) == len(lines)
    for line, out in zip(lines, got, strict=True):
        if len(line) > cap:
            assert type(out) is OverlongLine and out.size == len(line) and out == line[: min(16, cap)]
        else:
            assert type(out) is bytes and out == line
