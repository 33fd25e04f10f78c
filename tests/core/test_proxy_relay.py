"""The stdio proxy's tee into its recorder process (core/proxy/relay.py, sink.py): the forwarding
thread writes each chunk straight into the pipe, never waits for the recorder, and when the pipe
is full the records queue in order until the recorder catches up."""

from __future__ import annotations

import json
import os
import signal

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.proxy.recorder import HOST, SERVER
from mcp_inspector.core.proxy.relay import RecordPipe
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.loading import load_session


def _config(path) -> dict:
    return {"record": str(path), "name": "relay-test", "header": {"client": "proxy"}, "live": False, "quiet": True}


def _line(number: int, pad: int = 0) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": "n", "params": {"i": number, "pad": "x" * pad}}).encode() + b"\n"


def test_a_stopped_recorder_never_holds_the_tee_up_and_loses_nothing(tmp_path):
    record = tmp_path / "session.jsonl"
    pipe = RecordPipe(_config(record))
    os.kill(pipe.process.pid, signal.SIGSTOP)  # the recorder reads nothing from here on
    try:
        count = 600
        for number in range(count):  # ~3.6 MiB: more than the pipe holds
            pipe.put(HOST if number % 2 == 0 else SERVER, _line(number, pad=6000))
        assert pipe.queued_ever > 0  # the pipe filled up: the rest waited in the queue, the tee did not
        assert pipe.waited == 0
    finally:
        os.kill(pipe.process.pid, signal.SIGCONT)
    pipe.close()
    entries = [e for e in load_session(record).store.iter_all() if e.kind is Kind.NOTIFICATION]
    assert [json.loads(e.raw)["params"]["i"] for e in entries] == list(range(count))
    assert [e.direction for e in entries[:2]] == [Direction.OUT, Direction.IN]


def test_a_chunk_split_across_records_is_recorded_whole(tmp_path):
    record = tmp_path / "session.jsonl"
    pipe = RecordPipe(_config(record))
    line = _line(1)
    for byte in range(len(line)):  # one record per byte: the recorder joins them into the frame
        pipe.put(SERVER, line[byte : byte + 1])
    pipe.note("the end", done=True)
    pipe.close()
    entries = list(load_session(record).store.iter_all())
    assert [e.raw for e in entries if e.kind is Kind.NOTIFICATION] == [line.rstrip(b"\n")]
    assert any(e.kind is Kind.EVENT and e.meta and e.meta.get("done") for e in entries)
