"""TrafficLog against real servers over real pipes, and over programmatically filled stores."""

from __future__ import annotations

import asyncio
import itertools
import sys
import time

import pytest
from textual import events
from textual.widgets import Input
from traffic_apps import LogApp, fixed_time, frame, sample_store, screen_text, send_key

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.stdio import StdioTransport
from mcp_inspector.tui.pilot_steps import shown_notifications, wait_for
from mcp_inspector.tui.screens.traffic.frame_detail import FrameDetailScreen
from mcp_inspector.tui.text.traffic_text import PREVIEW_BYTES
from mcp_inspector.tui.widgets.views.traffic.filter import TrafficFilter
from mcp_inspector.tui.widgets.views.traffic.log import TrafficLog

pytestmark = pytest.mark.anyio

DEMO = [sys.executable, "-m", "mcp_inspector.demo"]


class DecodeCountingBytes(bytes):
    """Real bytes that note the size of every decode of themselves or of a slice of themselves."""

    decoded: list[int]

    def __new__(cls, data: bytes, decoded: list[int] | None = None):
        self = super().__new__(cls, data)
        self.decoded = [] if decoded is None else decoded
        return self

    def decode(self, *args, **kwargs):
        self.decoded.append(len(self))
        return super().decode(*args, **kwargs)

    def __getitem__(self, key):
        part = super().__getitem__(key)
        return DecodeCountingBytes(part, self.decoded) if isinstance(key, slice) else part


def visible_lines(log: TrafficLog) -> list[str]:
    return [log.render_line(y).text.rstrip() for y in range(log.scrollable_content_region.height)]


async def test_live_session_lines_appear_with_latency(tmp_path):
    store = TrafficStore(spill_dir=tmp_path)
    app = LogApp(store)
    async with (
        app.run_test(size=(160, 30)) as pilot,
        McpSession(StdioTransport(DEMO), store=store, timeout=20) as session,
    ):  # auto era: server/discover first, so the seqs are longer
        await session.initialize()
        await session.list_tools()
        await session.call_tool("echo", {"message": "hello from the log"})
        log = app.query_one(TrafficLog)
        await wait_for(pilot, lambda: log.row_count == len(store) and len(store) >= 7)
        await wait_for(pilot, lambda: "hello from the l" in screen_text(app), what="the rows drawn")
        text = screen_text(app)
    assert "→ req" in text and "initialize" in text and "tools/list" in text and "tools/call" in text
    assert "notifications/initialized" in text
    # responses carry the request they answer and the latency
    response_lines = [line for line in text.splitlines() if "← resp" in line]
    assert response_lines and all("↩ #" in line and " ms" in line for line in response_lines)
    assert "hello from the l" in text


async def test_invalid_frames_and_stderr_are_shown(raw_server, tmp_path):
    store = TrafficStore(spill_dir=tmp_path)
    app = LogApp(store)
    async with app.run_test(size=(140, 40)) as pilot:
        command = raw_server("garbage-stdout", "stderr-chatter")
        async with McpSession(StdioTransport(command), store=store, timeout=20) as session:
            await session.initialize()
            await session.ping()
            log = app.query_one(TrafficLog)
            await wait_for(pilot, lambda: store.kind_counts[Kind.STDERR] >= 2 and log.row_count == len(store))
            await wait_for(pilot, lambda: "raw-server: received" in screen_text(app), what="the rows drawn")
            text = screen_text(app)
    assert "INVALID" in text and "Server starting..." in text
    assert "✗" in text  # the invalid-frame marker with the reason
    assert "stderr" in text and "raw-server: received" in text


async def test_filter_by_method_direction_kind_and_text():
    store = sample_store()
    app = LogApp(store, time_format=fixed_time)
    async with app.run_test(size=(120, 30)) as pilot:
        log = app.query_one(TrafficLog)
        await wait_for(pilot, lambda: log.row_count == len(store), what="the log filled")

        def shown() -> list[int]:
            return [log.seq_at(row) for row in range(log.row_count)]

        log.set_filter(TrafficFilter(methods="tools/*"))
        assert shown() == [e.seq for e in store if e.method and e.method.startswith("tools/")]
        log.set_filter(TrafficFilter(directions=frozenset({Direction.OUT})))
        assert shown() and all(store.get(seq).direction is Direction.OUT for seq in shown())
        log.set_filter(TrafficFilter(kinds=frozenset({Kind.ERROR, Kind.INVALID})))
        assert [store.get(seq).kind for seq in shown()] == [Kind.ERROR, Kind.INVALID]
        log.set_filter(TrafficFilter(text="DISK LOW"))  # case-insensitive substring of the raw frame
        assert [store.get(seq).method for seq in shown()] == ["notifications/message"]
        log.set_filter(TrafficFilter(text=r'"id":[34],', regex=True))
        assert len(shown()) == 4  # request + reply for ids 3 and 4
        log.set_filter(TrafficFilter(show_stderr=False))
        assert all(store.get(seq).kind is not Kind.STDERR for seq in shown())
        assert log.row_count == len(store) - 1

        # new entries are matched incrementally
        log.set_filter(TrafficFilter(methods="notifications/message"))
        before = log.row_count
        store.append(
            Direction.IN,
            Kind.NOTIFICATION,
            frame({"jsonrpc": "2.0", "method": "notifications/message"}),
            method="notifications/message",
        )
        store.append(
            Direction.OUT,
            Kind.REQUEST,
            frame({"jsonrpc": "2.0", "id": 99, "method": "ping"}),
            method="ping",
            msg_id=99,
            has_id=True,
        )
        await wait_for(pilot, lambda: log.row_count == before + 1, what="the new notification matched")
        log.sync()  # what the poll does: both new entries are looked at now, the ping is not matched
        assert log.row_count == before + 1
        log.set_filter(None)
        assert log.row_count == len(store) and log.index_size == 0


async def test_filter_bar_applies_to_the_log():
    store = sample_store()
    app = LogApp(store, panel=True, time_format=fixed_time)
    async with app.run_test(size=(140, 30)) as pilot:
        log = app.query_one(TrafficLog)
        await pilot.click("#filter-methods")
        await pilot.press(*"tools/call")
        filtered = lambda: log.current_filter is not None and log.current_filter.methods == "tools/call"  # noqa: E731 - a one-line function, kept beside its use
        await wait_for(pilot, filtered, what="the debounced filter")
        assert {store.get(log.seq_at(r)).method for r in range(log.row_count)} == {"tools/call"}
        await pilot.click("#filter-dir-out")  # hide outgoing: no tools/call requests left
        await wait_for(pilot, lambda: log.row_count == 0, what="outgoing hidden")
        await pilot.click("#filter-dir-out")
        app.query_one("#filter-methods", Input).value = ""
        await pilot.click("#filter-kind-stderr")
        await wait_for(pilot, lambda: log.row_count == len(store) - 1, what="stderr hidden, methods cleared")


async def test_jump_between_request_and_response():
    store = sample_store()
    app = LogApp(store, time_format=fixed_time)
    async with app.run_test(size=(120, 30)) as pilot:
        log = app.query_one(TrafficLog)
        await wait_for(pilot, lambda: log.row_count == len(store), what="the log filled")
        request = next(e for e in store if e.method == "tools/call")
        assert log.move_cursor_to_seq(request.seq)
        await pilot.press("j")
        assert log.cursor_entry.seq == request.reply_seq
        assert log.cursor_entry.kind is Kind.RESPONSE
        await pilot.press("j")
        assert log.cursor_entry.seq == request.seq
        # an entry without a link says so and stays put
        stderr = next(e for e in store if e.kind is Kind.STDERR)
        log.move_cursor_to_seq(stderr.seq)
        await pilot.press("j")
        await wait_for(pilot, lambda: any("no linked" in n.message for n in shown_notifications(app)), what="the note")
        assert log.cursor_entry.seq == stderr.seq
        # jumping to an entry the filter hides is refused with a message
        log.set_filter(TrafficFilter(kinds=frozenset({Kind.REQUEST})))
        log.move_cursor_to_seq(request.seq)
        await pilot.press("j")
        await wait_for(pilot, lambda: any("hidden by the filter" in n.message for n in shown_notifications(app)))
        assert log.cursor_entry.seq == request.seq


async def test_enter_opens_detail_with_pretty_and_raw():
    store = sample_store()
    app = LogApp(store, time_format=fixed_time)
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(TrafficLog)
        request = next(e for e in store if e.method == "tools/call")
        log.move_cursor_to_seq(request.seq)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FrameDetailScreen))
        screen = app.screen
        pretty = screen.query_one("#frame-pretty").text
        raw = screen.query_one("#frame-raw").text
        assert raw == request.text
        assert '\n  "method": "tools/call",' in pretty
        assert f"#{request.seq}" in str(screen.query_one("#frame-header").render())
        await pilot.press("j")  # to the response, and the log follows
        await wait_for(pilot, lambda: screen.seq == request.reply_seq, what="the response")
        assert '"result"' in screen.query_one("#frame-pretty").text
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, FrameDetailScreen))
        assert log.cursor_entry.seq == request.reply_seq
    assert app.selected == [request.seq]


async def test_copy_frame_and_copy_as_cli_command():
    store = sample_store()
    spec = ServerSpec("demo", [sys.executable, "-m", "mcp_inspector.demo"])
    app = LogApp(store, server_spec=spec)
    async with app.run_test(size=(120, 30)) as pilot:
        log = app.query_one(TrafficLog)
        request = next(e for e in store if e.method == "tools/call")
        log.move_cursor_to_seq(request.seq)
        await pilot.press("c")
        assert app.clipboard == request.text
        # copy-as-CLI on something that is not a tools/call leaves the clipboard alone
        log.move_cursor_to_seq(request.reply_seq)
        await pilot.press("C")
        await wait_for(pilot, lambda: any("not a tools/call" in n.message for n in shown_notifications(app)))
        assert app.clipboard == request.text
        log.move_cursor_to_seq(request.seq)
        await pilot.press("C")
        await wait_for(pilot, lambda: app.clipboard != request.text, what="the command line copied")
        try:
            from mcp_inspector.core.config.cli_command import call_command_line
        except ImportError:
            assert any("not available" in n.message for n in shown_notifications(app))
            pytest.skip("mcp_inspector.core.config.cli_command is not written yet")
        assert app.clipboard == call_command_line(spec, "echo", {"text": "hello"})
        assert "echo" in app.clipboard


async def test_tail_mode_follows_and_turns_off_when_moving_up():
    store = TrafficStore(cap=10_000)
    for i in range(100):
        store.append(Direction.IN, Kind.STDERR, f"line {i}".encode())
    app = LogApp(store)
    async with app.run_test(size=(100, 20)) as pilot:
        log = app.query_one(TrafficLog)
        await wait_for(pilot, lambda: log.cursor_entry is not None and log.max_scroll_y > 0, what="the log laid out")
        await wait_for(pilot, lambda: log.scroll_y == log.max_scroll_y, what="the log at its end")
        assert log.tail and log.cursor_entry.seq == store.last_seq
        for i in range(50):
            store.append(Direction.IN, Kind.STDERR, f"more {i}".encode())
        await wait_for(pilot, lambda: log.virtual_size.height == 150)
        await wait_for(pilot, lambda: log.cursor_entry.seq == store.last_seq and log.scroll_y == log.max_scroll_y)
        assert "more 49" in visible_lines(log)[-1]

        await pilot.press("up")
        assert not log.tail
        held, held_scroll = log.cursor_entry.seq, log.scroll_y
        for i in range(50):
            store.append(Direction.IN, Kind.STDERR, f"later {i}".encode())
        await wait_for(pilot, lambda: log.virtual_size.height == 200)
        assert log.cursor_entry.seq == held and log.scroll_y == held_scroll < log.max_scroll_y

        await pilot.press("end")
        await wait_for(pilot, lambda: log.scroll_y == log.max_scroll_y, what="scrolled to the end")
        assert log.tail and log.cursor_entry.seq == store.last_seq

        await pilot.press("home")
        assert not log.tail and log.cursor_row == 0 and log.scroll_y == 0
        await pilot.press("end")
        # the mouse wheel scrolling up also stops following
        await wait_for(pilot, lambda: log.tail and log.scroll_y == log.max_scroll_y, what="following again")
        bottom = log.scroll_y
        log.post_message(events.MouseScrollUp(log, 1, 1, 0, 0, 0, False, False, False))
        await wait_for(pilot, lambda: not log.tail and log.scroll_y < bottom, what="the wheel scrolled up")


async def test_memory_stays_bounded_when_the_store_evicts(tmp_path):
    store = TrafficStore(cap=1000, spill_dir=tmp_path)
    app = LogApp(store)
    async with app.run_test(size=(100, 20)) as pilot:
        log = app.query_one(TrafficLog)
        log.set_filter(TrafficFilter(kinds=frozenset({Kind.NOTIFICATION})))
        raw = frame({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x"}})
        for chunk in range(100):
            for _ in range(1000):
                store.append(Direction.IN, Kind.NOTIFICATION, raw, method="notifications/message")
            if chunk % 10 == 0:
                log.sync()  # what its poll does, in between (the poll may also miss many evictions)
            assert len(store) <= 1100
        await wait_for(pilot, lambda: log.seq_at(log.row_count - 1) == store.last_seq)
        assert store.total == 100_000
        assert log.index_size == log.row_count <= len(store) <= 1100
        assert log.seq_at(0) >= store.first_seq
        assert len(log._cache) <= log.CACHE_SIZE
        assert "notifications/message" in visible_lines(log)[-1]
    store.close()


async def test_keys_stay_responsive_during_a_flood(tmp_path):
    """Keys pressed while a background task floods the store are each handled while the flood still runs.

    The proof is the order of events, not wall time: the flood keeps going (in small chunks, yielding
    to the loop) until the last key has been handled, and each key must be handled while entries keep
    arriving. Key-press latency figures: bench/bench_tui_flood.py.
    """
    store = TrafficStore(cap=50_000, spill_dir=tmp_path)
    app = LogApp(store)
    raw = frame({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "flood"}})
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(TrafficLog)
        stop = asyncio.Event()

        async def flood() -> None:  # 50 entries per 5 ms tick (10,000/s on an idle machine) until told to stop
            while not stop.is_set():
                for _ in range(50):
                    store.append(Direction.IN, Kind.NOTIFICATION, raw, method="notifications/message")
                await asyncio.sleep(0.005)

        task = asyncio.create_task(flood())
        await wait_for(pilot, lambda: store.total >= 500, what="the flood under way")
        handled_at = []  # store.total when each key was sent and when it had been handled
        for i in range(12):
            before = log.cursor_entry.seq if log.cursor_entry else None
            sent_at = store.total
            deadline = time.monotonic() + 60  # a hang guard only
            send_key(app, "up")
            while log.cursor_entry is None or log.cursor_entry.seq == before:
                assert time.monotonic() < deadline, f"key {i} not handled at all"
                await asyncio.sleep(0.001)
            assert not task.done(), "the flood ended before the key was handled"
            handled = store.total
            handled_at.append((sent_at, handled))
            while store.total == handled:  # the flood goes on before the next key
                await asyncio.sleep(0.001)
        stop.set()
        await asyncio.wait_for(task, 60)
        # the flood went on between the keys (they were handled during it, not after it)
        assert all(later > earlier for (_, earlier), (later, _) in itertools.pairwise(handled_at)), handled_at
        await wait_for(pilot, lambda: log.row_count == len(store) and log.seq_at(log.row_count - 1) == store.last_seq)
        assert not log.tail
    store.close()


async def test_set_store_switches_to_another_timeline():
    first, second = sample_store(), TrafficStore(cap=100)
    for i in range(3):
        second.append(Direction.IN, Kind.STDERR, f"other {i}".encode())
    app = LogApp(first)
    async with app.run_test(size=(100, 20)) as pilot:
        log = app.query_one(TrafficLog)
        await pilot.press("home")
        log.set_filter(TrafficFilter(kinds=frozenset({Kind.STDERR})))
        log.set_store(second)
        await wait_for(pilot, lambda: log.row_count == 3 and log.cursor_entry is second.get(3), what="the other store")
        assert log.tail
        assert "other 2" in visible_lines(log)[2]


async def test_hostile_text_and_huge_frames_stay_on_one_cheap_line():
    store = TrafficStore(cap=100)
    store.append(
        Direction.IN,
        Kind.NOTIFICATION,
        b'{"jsonrpc":"2.0","method":"evil\\u001b[31m\\nx"}',
        method="evil\x1b[31m\nx",
        problem="bad\ttab\x07",
    )
    huge_raw = DecodeCountingBytes(b'{"jsonrpc":"2.0","id":1,"result":{"text":"' + b"z" * (50 * 1024 * 1024) + b'"}}')
    store.append(Direction.IN, Kind.RESPONSE, huge_raw, msg_id=1, has_id=True)
    app = LogApp(store)
    async with app.run_test(size=(120, 10)) as pilot:
        log = app.query_one(TrafficLog)
        await wait_for(pilot, lambda: log.row_count == 2, what="the log filled")
        log._cache.clear()
        huge_raw.decoded.clear()
        lines = visible_lines(log)[:2]
        # a 50 MB frame costs a 400-byte slice, not a decode (figures: bench/bench_ingest.py)
        assert huge_raw.decoded and max(huge_raw.decoded) <= PREVIEW_BYTES, huge_raw.decoded
    assert "\x1b" not in lines[0] and "\n" not in lines[0] and "\x07" not in lines[0]
    assert "evil [31m x" in lines[0]
    assert lines[1].count("z") < 200
