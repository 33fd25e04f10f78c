"""HTTP exchanges in session files (issue 24): a recording of a remote server, opened later
(``load_session``: ``--open``, ``check --open``), has the HTTP exchanges the live session's
``HttpLog`` had, linked to the same frames; no secret header in the file; a crafted file's bad
``http`` lines are skipped and counted."""

from __future__ import annotations

import json

import pytest
from cli_helpers import assert_no_traceback, cli, raw

from mcp_inspector.cli.runner import RunOptions, run
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.traffic.export import export_json, export_session
from mcp_inspector.core.traffic.http_log import HttpExchange, HttpLog
from mcp_inspector.core.traffic.loading import iter_session, load_session
from mcp_inspector.core.traffic.recording import entry_to_record, record_line
from mcp_inspector.core.traffic.store import TrafficStore

TOKEN = "s3cret-bearer-of-the-user-0123456789"
API_KEY = "k3y-of-the-user-9876543210abcdef"


def exchange_view(exchange: HttpExchange) -> dict:
    """Everything the HTTP view shows of an exchange (times to the microsecond)."""
    return {
        "id": exchange.id,
        "method": exchange.method,
        "url": exchange.url,
        "request_headers": exchange.request_headers,
        "rpc": (exchange.rpc_method, exchange.rpc_id),
        "request_size": exchange.request_size,
        "status": (exchange.status, exchange.reason),
        "response_headers": exchange.response_headers,
        "content_type": exchange.content_type,
        "response_size": exchange.response_size,
        "events": [(e.event, e.id, e.size, e.retry, round(e.at, 6)) for e in exchange.events],
        "event_count": exchange.event_count,
        "frame_seqs": exchange.frame_seqs,
        "sent_seq": exchange.sent_seq,
        "state": (exchange.state, exchange.error),
        "note": exchange.note,
        "resumes": exchange.resumes,
        "started": round(exchange.started, 6),
        "headers_ms": None if exchange.headers_ms is None else round(exchange.headers_ms, 3),
        "total_ms": None if exchange.total_ms is None else round(exchange.total_ms, 3),
    }


def log_view(log: HttpLog) -> list[dict]:
    return [exchange_view(exchange) for exchange in log.exchanges]


def run_session(url: str, transport: str, record: str | None) -> TrafficStore:
    """A CLI session (the runner every CLI command uses), recorded to ``record`` if given: tools/list,
    then a tool call whose progress and log notifications come on the reply's SSE stream."""
    stores: list[TrafficStore] = []

    async def body(session, context) -> int:
        await session.list_tools()
        await session.call_tool("progress_and_log", {"steps": 2}, progress=True)
        return 0

    spec = ServerSpec(
        name="remote",
        url=url,
        transport=transport,
        headers={"Authorization": f"Bearer {TOKEN}", "X-Api-Key": API_KEY},
        era="legacy",
        no_auth=True,
    )
    assert run(spec, RunOptions(record=record, quiet=True, on_store=stores.append), body) == 0
    return stores[0]


def record_live(path, url: str, transport: str) -> HttpLog:
    """``run_session`` recorded to ``path``: its live HttpLog."""
    return run_session(url, transport, str(path)).http_log


@pytest.mark.parametrize(
    ("fixture", "transport"), [("sdk_http_stateful_url", "streamable-http"), ("sdk_http_sse_url", "sse")]
)
def test_a_recorded_http_session_opens_with_the_exchanges_the_live_one_had(tmp_path, request, fixture, transport):
    record = tmp_path / "remote.jsonl"
    live = record_live(record, request.getfixturevalue(fixture), transport)
    text = record.read_text()
    assert TOKEN not in text and API_KEY not in text  # masked in the headers, scrubbed everywhere

    loaded = load_session(record)
    assert loaded.skipped == 0, loaded.describe_skipped()
    opened = loaded.store.http_log
    assert len(live) >= 3
    assert log_view(opened) == log_view(live)
    # and what they say, for a reader of this test: the tool call's exchange carried its request
    # and, on SSE, the progress notifications and the reply
    call = next(e for e in opened.exchanges if e.rpc_method == "tools/call") if transport != "sse" else None
    entries = {entry.seq: entry for entry in loaded.store.iter_all()}
    if call is not None:
        assert call.status == 200 and call.state == "done" and call.event_count >= 3
        carried = [entries[seq].method for seq in call.frame_seqs]
        assert carried[0] == "tools/call" and carried.count("notifications/progress") == 2
        assert loaded.store.exchange_of(entries[call.sent_seq]) == call.id
    else:  # legacy HTTP+SSE: the replies come on the GET stream's events
        stream = next(e for e in opened.exchanges if e.method == "GET")
        assert stream.events[0].event == "endpoint"
        assert any(entries[seq].method == "notifications/progress" for seq in stream.frame_seqs)
    # query reads the same file: the http lines are neither frames nor unreadable lines
    header, lines = iter_session(record)
    assert all(entry is not None for _, entry in lines)


def test_the_cli_records_the_exchanges_with_its_h_headers_masked(tmp_path, sdk_http_stateful_url):
    record = tmp_path / "tools.jsonl"
    result = cli(
        "tools",
        "--record",
        record,
        "--url",
        sdk_http_stateful_url,
        "-H",
        f"Authorization: Bearer {TOKEN}",
        "-H",
        f"X-Api-Key: {API_KEY}",
        "--era",
        "legacy",
    )
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    text = record.read_text()
    assert TOKEN not in text and API_KEY not in text
    http_lines = [json.loads(line) for line in text.splitlines() if '"type": "http"' in line]
    assert {line["op"] for line in http_lines} >= {"begin", "response", "event", "finish"}
    log = load_session(record).store.http_log
    posts = [e for e in log.exchanges if e.method == "POST"]
    assert [e.rpc_method for e in posts][:3] == ["initialize", "notifications/initialized", "tools/list"]
    assert all(e.status in (200, 202) for e in posts)
    assert posts[0].header("authorization", response=False) not in (None, f"Bearer {TOKEN}")
    query = cli("query", record, ".method // empty", "--count")
    assert query.returncode == 0 and "unreadable" not in query.stderr, query.stderr
    replay = cli("replay", record, "--url", sdk_http_stateful_url, "--era", "legacy")
    assert_no_traceback(replay)
    assert replay.returncode == 0, replay.stdout + replay.stderr  # was: "line 3 is not a session entry"


def _crafted(tmp_path, lines: list[str]):
    path = tmp_path / "crafted.jsonl"
    header = {"type": "header", "format": "mcp-inspector-session", "version": 1, "started": 1.0}
    path.write_text("\n".join([json.dumps(header), *lines]))
    return path


def _http(op: str, exchange, at=1.0, **fields) -> str:
    return json.dumps({"type": "http", "op": op, "exchange": exchange, "at": at, **fields})


def _get(exchange, at=1.0, **fields) -> str:
    return _http("begin", exchange, at, **{"method": "GET", "url": "u", "headers": [], "size": 0, **fields})


def test_a_crafted_file_with_bad_http_lines_opens_with_them_skipped(tmp_path):
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    frame = json.dumps(
        {"seq": 1, "ts": 2.0, "dir": "out", "kind": "request", "raw": json.dumps(ping), "method": "ping", "id": 1}
    )
    reply = json.dumps(
        {"seq": 2, "ts": 2.5, "dir": "in", "kind": "response", "raw": '{"jsonrpc":"2.0","id":1,"result":{}}'}
        | {"id": 1, "reply_to": 1, "meta": {"exchange": 7}}
    )
    json_headers = [["content-type", "application/json"]]
    good = [
        json.dumps(
            {"type": "http", "op": "begin", "exchange": 7, "at": 2.1, "method": "POST", "url": "http://127.0.0.1/mcp"}
            | {"headers": json_headers, "size": 40, "frame": 1, "rpc_method": "ping", "rpc_id": 1}
        ),
        _http("response", 7, 2.2, status=200, reason="OK", headers=[["content-type", "text/event-stream"]]),
        _http("event", 7, 2.3, event="message", id="e1", size=30, retry=None),
    ]
    bad = [
        _http("explode", 7),
        _get(-1),
        _get(8).replace('"at": 1.0', '"at": 1e999'),
        _get(8, headers=[["a"]]),
        _get(8, headers="x"),
        _http("response", 7, status="200", reason="OK", headers=[]),
        _http("event", 7, event=5, size=1),
        _get(9, at=99999999999999999999999),
        _get(9, rpc_id={"no": 1}),
        _http("finish", True),
        '{"type": "http"',  # torn
    ]
    harmless = [_http("finish", 12345, 3.0, error=None), _get(7, 9.0, url="again")]  # about nothing: ignored
    finish = _http("finish", 7, 2.4, error=None)
    path = _crafted(tmp_path, [frame, *good, bad[0], bad[1], reply, *bad[2:-1], *harmless, finish, bad[-1]])
    loaded = load_session(path)
    assert loaded.skipped == len(bad), loaded.describe_skipped()
    reasons = list(loaded.reasons.values())
    assert reasons[0] == "http op 'explode' is not known" and "'at' is not a time" in reasons[7]
    assert "line 6" in loaded.describe_skipped()
    assert [entry.seq for entry in loaded.store.iter_all()] == [1, 2]  # no placeholders for http lines
    (exchange,) = loaded.store.http_log.exchanges
    assert (exchange.id, exchange.method, exchange.status, exchange.state) == (7, "POST", 200, "done")
    assert exchange.frame_seqs == [1, 2] and exchange.sent_seq == 1 and exchange.rpc_method == "ping"
    assert [(e.event, e.id) for e in exchange.events] == [("message", "e1")]
    assert loaded.store.exchange_of(loaded.store.get(1)) == 7
    # the other readers: query counts the bad lines as unreadable, never a traceback
    result = cli("query", path, ".method // empty")
    assert_no_traceback(result)
    assert result.stdout.split() == ["ping"]
    check = cli("check", "--open", path)
    assert_no_traceback(check)


def test_http_lines_are_bounded_by_the_logs_cap(tmp_path):
    lines = [
        json.dumps(
            {
                "type": "http",
                "op": "begin",
                "exchange": n,
                "at": 1.0,
                "method": "GET",
                "url": "u",
                "headers": [],
                "size": 0,
            }
        )
        for n in range(1, HttpLog().cap + 1001)
    ]
    loaded = load_session(_crafted(tmp_path, lines))
    log = loaded.store.http_log
    assert len(log) == log.cap and log.dropped == 1000 and log.exchanges[0].id == 1001
    assert loaded.skipped == 0


def test_an_older_file_without_http_lines_opens_without_an_http_log(tmp_path):
    meta = {"exchange": 3}
    frame = json.dumps({"seq": 1, "ts": 2.0, "dir": "in", "kind": "notification", "raw": "{}", "meta": meta})
    loaded = load_session(_crafted(tmp_path, [frame]))
    assert loaded.skipped == 0 and loaded.store.total == 1
    assert len(loaded.store.http_log) == 0


def run_unrecorded(url: str, transport: str) -> TrafficStore:
    """The session of ``record_live``, not recorded: what a user exports afterwards has only memory."""
    return run_session(url, transport, None)


@pytest.mark.parametrize(
    ("fixture", "transport"), [("sdk_http_stateful_url", "streamable-http"), ("sdk_http_sse_url", "sse")]
)
def test_an_export_carries_the_exchanges_and_opens_with_them(tmp_path, request, fixture, transport):
    store = run_unrecorded(request.getfixturevalue(fixture), transport)
    live = store.http_log
    assert len(live) >= 3
    path = export_session(store, tmp_path / "export.jsonl").path
    text = path.read_text()
    assert TOKEN not in text and API_KEY not in text
    loaded = load_session(path)
    assert loaded.skipped == 0, loaded.describe_skipped()
    assert log_view(loaded.store.http_log) == log_view(live)
    assert [(e.seq, e.raw) for e in loaded.store] == [(e.seq, e.raw) for e in store]
    # the JSON array: the same records, as items with "type": "http" among the entries
    items = json.loads(export_json(store, tmp_path / "export.json").path.read_text())
    http_items = [item for item in items if item.get("type") == "http"]
    assert [json.loads(line) for line in text.splitlines() if '"type": "http"' in line] == http_items
    assert len(items) - len(http_items) == len(store) and TOKEN not in json.dumps(items)
    assert f"and {len(live)} HTTP exchanges written" in export_json(store, tmp_path / "again.json").describe()


def test_a_stdio_export_has_no_http_lines(tmp_path):
    stores: list[TrafficStore] = []

    async def body(session, context) -> int:
        await session.list_tools()
        return 0

    assert run(ServerSpec("raw", raw()), RunOptions(quiet=True, on_store=stores.append), body) == 0
    store = stores[0]
    result = export_session(store, tmp_path / "stdio.jsonl")
    path = result.path
    assert result.exchanges == 0 and "HTTP" not in result.describe()
    lines = path.read_text().splitlines()
    assert store.http_log_if_any is None  # the export made none either
    # byte for byte the file of before: the header, then one line per entry
    assert lines[1:] == [record_line(entry_to_record(entry)) for entry in store]
    assert len(json.loads(export_json(store, tmp_path / "stdio.json").path.read_text())) == len(store)
