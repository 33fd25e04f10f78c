"""The main screen attached to a running proxy (``mcp-inspector attach``): the host's session, live, read-only.

A thread worker reads the proxy's feed (core/proxy/viewer.py) into a queue; a timer on the
screen moves what has come into the store (``load_entry``: the proxy's seqs and links kept),
at most ``BATCH`` entries a tick, so a flood never holds the event loop. The same
``ReplayBuilder`` that rebuilds a recording follows the entries: the server's facts and the
tool list as the host received it (a change shown as a diff). The live checks judge the
host's session as they would a recording. An HTTP proxy's exchanges go into the store's
``http_log`` (core/proxy/http_feed.py), for the HTTP view. Entries the viewer missed (it fell behind the
proxy's ring) are said in the timeline with their count. ctrl+e sends a frame into the host's
session (core/proxy/inject.py); the answers come back here, for ``inject_listeners``.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from textual import work

from ....core.proxy import http_feed
from ....core.proxy.http_feed import HttpOp
from ....core.proxy.viewer import Dropped, Ended, FeedEvent, Injected, LiveFeed
from ....core.session.tooldiff import diff_items
from ....core.traffic.entry import TrafficEntry
from ...messages import ConnectionStatus, ServerFacts
from ...server.replay import ReplayBuilder

TICK = 0.05  # seconds between two moves from the queue to the store
BATCH = 2000  # entries moved per tick at most
QUEUE_CAP = 200_000  # entries waiting for the screen; past it the reader waits (the proxy's ring then drops)


class AttachMixin:
    """Mixed into MainScreen: ``self.live_feed`` and its follower."""

    live_feed: LiveFeed | None
    _feed_queue: deque[FeedEvent]
    _feed_room: threading.Semaphore
    _feed_builder: ReplayBuilder
    _feed_lists: int
    _feed_missed: int
    _feed_ended: bool
    #: Called with each answer to a frame this viewer sent (screens/traffic/inject_frame.py).
    inject_listeners: list[Callable[[Injected], None]]

    def _start_attach(self) -> None:
        feed = self.live_feed
        assert feed is not None
        self._feed_queue = deque()
        self._feed_room = threading.Semaphore(QUEUE_CAP)
        self._feed_builder = ReplayBuilder()
        self._feed_lists = 0
        self._feed_missed = 0
        self._feed_ended = False
        self.inject_listeners = []
        server = str(feed.header.get("server") or "")
        self.checks_state.judge_recording(server)  # type: ignore[attr-defined]
        self.status_bar.status = self._attach_status("attached")  # type: ignore[attr-defined]
        self.set_interval(TICK, self._drain_feed, name="attach-feed")  # type: ignore[attr-defined]
        self._read_feed()

    def _attach_status(self, state: str) -> ConnectionStatus:
        header = self.live_feed.header if self.live_feed is not None else {}
        facts = self._feed_builder.replay.facts or ServerFacts()
        name = str(facts.server_info.get("name") or header.get("name") or "server")
        detail = f"proxy {header.get('name')} (pid {header.get('pid')}) · {state}"
        if self._feed_missed:
            detail += f" · {self._feed_missed} missed"
        return ConnectionStatus(
            "read-only",
            name,
            str(header.get("server") or ""),
            facts.protocol_version,
            detail=detail,
            era=facts.era,
            transport=str(header.get("transport") or ""),
        )

    @work(thread=True, group="attach", exit_on_error=False)
    def _read_feed(self) -> None:
        feed = self.live_feed
        assert feed is not None
        for event in feed.events():
            self._feed_room.acquire()
            self._feed_queue.append(event)
            if isinstance(event, Ended):
                return

    def _drain_feed(self) -> None:
        if self._feed_ended:
            return
        store = self.store  # type: ignore[attr-defined]
        builder = self._feed_builder
        moved = 0
        while self._feed_queue and moved < BATCH:
            event = self._feed_queue.popleft()
            self._feed_room.release()
            moved += 1
            if isinstance(event, TrafficEntry):
                store.load_entry(event)
                http_feed.link_entry(store.http_log, event)
                builder.feed(event)
            elif isinstance(event, HttpOp):  # an HTTP proxy's exchange: the HTTP view shows it
                http_feed.apply(store.http_log, event)
            elif isinstance(event, Injected):  # what became of a frame sent from here (ctrl+e)
                for listener in list(self.inject_listeners):
                    listener(event)
            elif isinstance(event, Dropped):
                self._feed_missed += event.count
                store.note(
                    f"this viewer fell behind: {event.count} entries of the session not shown", missed=event.count
                )
            elif isinstance(event, Ended):
                self._feed_ended = True
                state = "connection to the proxy lost" if event.lost else "the session ended"
                self.status_bar.status = self._attach_status(state)  # type: ignore[attr-defined]
                self.notify(state.capitalize() + ".", title="Attached proxy", timeout=6)  # type: ignore[attr-defined]
                break
        if not moved:
            return
        replay = builder.replay
        if replay.facts is not None and replay.facts != getattr(self, "facts", None):
            self.apply_facts(replay.facts)  # type: ignore[attr-defined]
        if len(replay.tool_lists) != self._feed_lists:
            lists = replay.tool_lists
            diff = diff_items(lists[-2], lists[-1]) if len(lists) >= 2 else None
            self.servers.show_tools(replay.tools, diff, announce=self._feed_lists > 0, cause="host")  # type: ignore[attr-defined]
            self._feed_lists = len(lists)
        if not self._feed_ended:
            self.status_bar.status = self._attach_status("attached")  # type: ignore[attr-defined]
