"""core.query: jq expressions checked in-process, run in the child process, bounded."""

from __future__ import annotations

import json

import pytest

from mcp_inspector.core.query import FrameOutputs, QueryError, QuerySandbox, QueryStopped, check_expression
from mcp_inspector.core.query.expression import clean_error
from mcp_inspector.core.query.sandbox import batches

FRAMES = [
    b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":5}}',
    b'{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"items":[{"id":"a"},{"id":"b"}]}}}',
    b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo"}}',
    b"Loading... 100%",  # a line that is not JSON (an invalid frame)
    b"[1,2]",  # a batch: .method on an array is an error of the expression
]


@pytest.fixture(scope="module")
def sandbox():
    with QuerySandbox(cpu_limit=2) as box:
        yield box


def test_compile_errors_are_one_line_with_the_column():
    with pytest.raises(QueryError) as caught:
        check_expression('select(.method == "x"')
    message = str(caught.value)
    assert "\n" not in message and message.startswith("syntax error") and "(column" in message
    with pytest.raises(QueryError, match=r"^nope/1 is not defined \(column 1\)$"):
        check_expression("nope(1)")
    with pytest.raises(QueryError, match="line 2, column 3"):
        check_expression(".a\n| bogus")
    with pytest.raises(QueryError, match="empty query"):
        check_expression("   ")
    # a trailing comment does not eat the wrapper the matcher adds, and definitions work
    assert check_expression(".method # the method") == ".method # the method"
    assert check_expression("def m: .method; m") == "def m: .method; m"
    assert clean_error("jq: error (at <unknown>): Cannot index array with string") == "Cannot index array with string"


def test_a_frame_matches_when_an_output_is_neither_false_nor_null(sandbox):
    assert sandbox.match('select(.method == "notifications/progress")', FRAMES) == [1, 0, 0, -1, -1]
    assert sandbox.match('.method == "tools/call"', FRAMES) == [0, 0, 1, -1, -1]  # false is no match
    assert sandbox.match(".params.progress", FRAMES) == [1, 0, 0, -1, -1]  # null is no match
    assert sandbox.match(".result.structuredContent.items[]? | .id", FRAMES) == [0, 1, 0, -1, -1]
    assert sandbox.match("false, null, 0", FRAMES[:1]) == [1]  # a later output counts (0 is not false)
    assert sandbox.match("empty", FRAMES[:1]) == [0]


def test_outputs_of_a_projection_and_errors_after_them(sandbox):
    found = sandbox.outputs(".result.structuredContent.items[] | .id", FRAMES[1:2])[0]
    assert found == FrameOutputs(outputs=['"a"', '"b"'], cut=None, error=None)
    assert found.values() == ["a", "b"] and found.matched
    failed = sandbox.outputs('1, 2, error("boom")', FRAMES[:1])[0]
    assert failed.outputs == ["1", "2"] and failed.error == "boom"
    not_json = sandbox.outputs(".", [b"Loading... 100%"])[0]
    assert not_json.outputs == [] and not_json.error.startswith("parse error")
    # one result queried by member, from its frame's bytes
    result = sandbox.value_outputs(".structuredContent.items | length", FRAMES[1], member="result")
    assert result.outputs == ["2"]


def test_endless_outputs_are_cut_by_count_and_bytes(sandbox):
    counted = sandbox.value_outputs("repeat(1)", "null", max_outputs=5)
    assert counted.outputs == ["1"] * 5 and counted.cut == "count"
    ranged = sandbox.value_outputs("range(1e12)", "null", max_outputs=3)
    assert ranged.outputs == ["0", "1", "2"] and ranged.cut == "count"
    sized = sandbox.value_outputs('repeat("xxxxxxxxxx")', "null", max_bytes=100)
    assert sized.cut == "bytes" and sum(len(text) for text in sized.outputs) == 100
    assert sandbox.match("repeat(1)", FRAMES[:1]) == [1]  # the matcher stops at the first output


def test_a_query_that_never_yields_is_stopped_and_the_next_one_runs():
    # its own sandbox with a limit of 0.5 s: the stop is the same at 2 s, only 4x the CPU burnt
    with QuerySandbox(cpu_limit=0.5) as sandbox:
        with pytest.raises(QueryStopped, match="more than 0.5 s of CPU"):
            sandbox.match("last(range(1e12))", FRAMES)
        with pytest.raises(QueryStopped, match="CPU|memory"):
            sandbox.value_outputs("[range(1e12)]", "null")
        assert sandbox.match(".id == 4", FRAMES) == [0, 0, 1, -1, -1]  # a fresh child took over


def test_close_from_another_thread_stops_a_running_query():
    import threading

    box = QuerySandbox(cpu_limit=60)
    box.match(".", FRAMES[:1])  # the child is up
    caught: list[BaseException] = []

    def run() -> None:
        try:
            box.match("last(range(1e12))", FRAMES[:1])
        except QueryStopped as exc:
            caught.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    box.close()
    worker.join(timeout=30)
    assert not worker.is_alive() and caught and "stopped" in str(caught[0])


def test_the_child_sees_none_of_our_environment(monkeypatch):
    monkeypatch.setenv("MCP_INSPECTOR_BEARER_TOKEN", "sekrit")
    with QuerySandbox() as box:
        assert (
            "MCP_INSPECTOR_BEARER_TOKEN" not in box.value_outputs("$ENV | keys", "null").values()[0]
        )  # (Python sets LC_CTYPE)


def test_batches_keep_order_and_bounds():
    frames = [b"x" * 10] * 7 + [b"y" * 100] + [b"z"]
    grouped = list(batches(frames, max_frames=3, max_bytes=50))
    assert [len(group) for group in grouped] == [3, 3, 1, 1, 1]
    assert [frame for group in grouped for frame in group] == frames


def test_many_frames_in_few_round_trips(sandbox):
    frames = [json.dumps({"jsonrpc": "2.0", "id": n, "result": {"n": n}}).encode() for n in range(5000)]
    codes = sandbox.match(".result.n % 1000 == 0", frames)
    assert [n for n, code in enumerate(codes) if code == 1] == [0, 1000, 2000, 3000, 4000]
