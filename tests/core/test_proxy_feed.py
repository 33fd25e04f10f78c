"""The proxy's live feed (core/proxy/feed.py, viewer.py): a Unix socket in a private directory,
late viewers from the start, a viewer that stops reading never holding the publisher up."""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest
from waiting import until_sync

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.proxy.feed import FeedError, FeedPublisher, checked_dir
from mcp_inspector.core.proxy.viewer import Dropped, Ended, FeedReader, find_proxy, running_proxies
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore


@pytest.fixture
def run_dir(tmp_path):
    directory = tmp_path / "run"
    directory.mkdir(mode=0o700)
    return directory / "mcp-inspector"


def publish(publisher: FeedPublisher, count: int, start: int = 0) -> TrafficStore:
    store = TrafficStore(spill=False)
    store.add_listener(publisher)
    for number in range(start, start + count):
        store.append(Direction.IN, Kind.NOTIFICATION, b'{"jsonrpc":"2.0","method":"n","params":{"i":%d}}' % number)
    return store


def test_the_directory_and_socket_are_private(run_dir):
    publisher = FeedPublisher("demo", {"server": "srv"}, directory=run_dir)
    try:
        assert os.stat(run_dir).st_mode & 0o777 == 0o700
        assert os.stat(publisher.path).st_mode & 0o777 == 0o600
        assert publisher.path == run_dir / "demo.sock"
    finally:
        publisher.close()
    assert not publisher.path.exists()


def test_a_directory_open_to_others_or_not_ours_or_a_link_is_refused(tmp_path):
    open_dir = tmp_path / "open"
    open_dir.mkdir(mode=0o700)
    os.chmod(open_dir, 0o755)
    with pytest.raises(FeedError, match="open to other users"):
        FeedPublisher("demo", {}, directory=open_dir)
    assert os.stat(open_dir).st_mode & 0o777 == 0o755  # refused, never repaired
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    with pytest.raises(FeedError, match="not a directory"):
        checked_dir(link)
    if os.getuid() == 0:  # only root can make a directory another user owns
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o700)
        os.chown(theirs, 65534, 65534)
        with pytest.raises(FeedError, match="another user"):
            checked_dir(theirs)


def test_two_proxies_with_one_name_and_a_stale_socket(run_dir):
    first = FeedPublisher("same", {}, directory=run_dir)
    second = FeedPublisher("same", {}, directory=run_dir)
    try:
        assert (first.name, second.name) == ("same", "same-2")
        assert sorted(p.name for p in running_proxies(run_dir)) == ["same", "same-2"]
        assert find_proxy("same-2", run_dir).path == second.path
        with pytest.raises(FeedError, match="2 proxies are running"):
            find_proxy(None, run_dir)
    finally:
        first.close()
        second.close()
    # a socket whose proxy is gone (killed: never removed) is replaced, not counted
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(os.fspath(run_dir / "same.sock"))
    stale.close()
    assert running_proxies(run_dir) == []
    third = FeedPublisher("same", {}, directory=run_dir)
    try:
        assert third.name == "same"
    finally:
        third.close()


def test_a_late_viewer_gets_the_session_from_its_start_then_live(run_dir):
    publisher = FeedPublisher("late", {"server": "srv"}, directory=run_dir)
    try:
        store = publish(publisher, 50)
        reader = FeedReader(publisher.path)
        assert reader.header["server"] == "srv" and reader.header["pid"] == os.getpid()
        events = reader.events()
        seen = [next(events) for _ in range(50)]
        assert [e.seq for e in seen] == list(range(1, 51))
        assert seen[0].raw == store.get(1).raw
        store.append(Direction.OUT, Kind.REQUEST, b'{"jsonrpc":"2.0","id":1,"method":"ping"}', method="ping")
        live = next(events)
        assert live.method == "ping" and live.direction is Direction.OUT
    finally:
        publisher.close()
    assert isinstance(next(events), Ended)
    reader.close()


def test_a_viewer_that_stops_reading_never_holds_the_publisher(run_dir):
    publisher = FeedPublisher("slow", {}, directory=run_dir, ring_entries=1000)
    try:
        reader = FeedReader(publisher.path)  # connected, reading nothing
        until_sync(lambda: publisher.viewers == 1, what="the viewer")
        started = time.monotonic()
        done = threading.Event()
        total = 50_000

        def flood() -> None:
            publish(publisher, total)
            done.set()

        threading.Thread(target=flood, daemon=True).start()
        until_sync(done.is_set, what="the flood to be published while the viewer reads nothing")
        assert time.monotonic() - started < 25
        publisher.close(drain=0)
        got = dropped = 0
        for event in reader.events():
            if isinstance(event, Dropped):
                dropped += event.count
            elif isinstance(event, Ended):
                break
            else:
                got += 1
        assert dropped > 0 and got + dropped == total  # every line either shown or counted
        assert publisher.dropped == dropped
    finally:
        publisher.close(drain=0)
        reader.close()


def test_http_exchange_lines_are_checked_and_played_into_the_viewers_http_log(run_dir):
    from mcp_inspector.core.proxy import http_feed
    from mcp_inspector.core.proxy.http_feed import HttpOp

    publisher = FeedPublisher("web", {"server": "http"}, directory=run_dir)
    reader = FeedReader(publisher.path)
    try:
        good = http_feed.begin(7, "POST", "http://127.0.0.1:1/mcp?key=k", [("Authorization", "Bearer tok-123456")], 40)
        publisher.publish_record(good)
        publisher.publish_record({"type": "http", "op": "response", "exchange": 7, "at": 1.0, "status": "200"})
        publisher.publish_record({"type": "http", "op": "explode", "exchange": 7, "at": 1.0})
        publisher.publish_record(http_feed.response(8, 200, "OK", []))  # never begun here: ignored
        publisher.publish_record(http_feed.response(7, 200, "OK", [("content-type", "application/json")]))
        publisher.publish_record(http_feed.finish(7))
        ops = []
        for event in reader.events():
            ops.append(event)
            if isinstance(event, HttpOp) and event.op == "finish":
                break
        assert [op.op for op in ops] == ["begin", "response", "response", "finish"] and reader.skipped == 2
        store = TrafficStore(spill=False)
        for op in ops:
            http_feed.apply(store.http_log, op)
        (exchange,) = store.http_log.exchanges
        assert (exchange.id, exchange.status, exchange.state, exchange.content_type) == (
            7,
            200,
            "done",
            "application/json",
        )
        assert "tok-123456" not in str(exchange.request_headers)
        entry = store.append(
            Direction.OUT, Kind.REQUEST, b"{}", method="ping", msg_id=1, has_id=True, meta={"exchange": 7}
        )
        http_feed.link_entry(store.http_log, entry)
        assert exchange.sent_seq == entry.seq and exchange.rpc_method == "ping" and store.exchange_of(entry) == 7
    finally:
        reader.close()
        publisher.close(drain=0)


def test_a_frame_from_a_viewer_to_a_proxy_that_takes_none_is_refused_to_that_viewer_alone(run_dir):
    """An HTTP proxy (no ``on_inject``) refuses; a line that is not an inject is refused; only the
    viewer that sent it hears of it; a proxy that takes frames gets the viewer's text as it was."""
    from mcp_inspector.core.proxy.viewer import Injected

    publisher = FeedPublisher("web", {"server": "http"}, directory=run_dir)
    sender, other = FeedReader(publisher.path), FeedReader(publisher.path)
    try:
        tag = sender.send('{"jsonrpc":"2.0","id":1,"method":"ping"}')
        answer = next(event for event in sender.events() if isinstance(event, Injected))
        assert answer.tag == tag and "only a stdio proxy" in answer.refused
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:  # a line that is not an inject
            raw.connect(os.fspath(publisher.path))
            raw.sendall(b'{"type": "something else"}\n')
            lines = raw.makefile("rb")
            said = next(line for line in lines if b'"injected"' in line)
            assert b"refused" in said
        taken = []
        publisher.on_inject = lambda viewer, tag, text: taken.append((tag, text))
        second = sender.send('{"jsonrpc":"2.0","method":"notifications/x"}')
        until_sync(lambda: taken, what="the frame handed to the proxy")
        assert taken == [(second, '{"jsonrpc":"2.0","method":"notifications/x"}')]
        publish(publisher, 1)  # the other viewer sees the feed, never the first one's answers
        seen = next(iter(other.events()))
        assert not isinstance(seen, Injected) and seen.kind is Kind.NOTIFICATION
    finally:
        sender.close()
        other.close()
        publisher.close(drain=0)
