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
from typing import Protocol

from ....core.proxy import http_feed
from ....core.proxy.http_feed import HttpOp
from ....core.proxy.viewer import Dropped, Ended, FeedEvent, Injected, LiveFeed
from ....core.session.tooldiff import diff_items
from ....core.traffic.entry import TrafficEntry
from ....core.traffic.store import TrafficStore
from ...messages import ConnectionStatus, ServerFacts
from ...server.replay import ReplayBuilder
from ...widgets.status_bar import StatusBar
from .checks_state import ChecksState
from .host import ScreenHost
from .server_state import Servers

TICK = 0.05  # seconds between two moves from the queue to the store
BATCH = 2000  # entries moved per tick at most
QUEUE_CAP = 200_000  # entries waiting for the screen; past it the reader waits (the proxy's ring then drops)


class AttachHost(ScreenHost, Protocol):
    """What following a proxy needs of the main screen."""

    @property
    def store(self) -> TrafficStore: ...
    @property
    def status_bar(self) -> StatusBar: ...
    @property
    def facts(self) -> ServerFacts | None: ...

    def apply_facts(self, facts: ServerFacts) -> None: ...


class AttachFollower:
    """The main screen attached to a proxy (``main.attach``): the feed's reader and what it moved."""

    def __init__(self, host: AttachHost, feed: LiveFeed, checks: ChecksState, servers: Servers) -> None:
        self.host = host
        self.feed = feed
        self.checks = checks  # judges the host's session as a recording
        self.servers = servers  # shows the host's tool lists
        self._queue: deque[FeedEvent] = deque()
        self._room = threading.Semaphore(QUEUE_CAP)
        self._builder = ReplayBuilder()
        self._lists = 0
        self.missed = 0  # entries the viewer fell behind by
        self.ended = False
        #: Called with each answer to a frame this viewer sent (screens/traffic/inject_frame.py).
        self.inject_listeners: list[Callable[[Injected], None]] = []

    def start(self) -> None:
        host = self.host
        self.checks.judge_recording(str(self.feed.header.get("server") or ""))
        host.status_bar.status = self._status("attached")
        host.set_interval(TICK, self._drain, name="attach-feed")
        host.run_worker(self._read, thread=True, group="attach", exit_on_error=False)

    def _status(self, state: str) -> ConnectionStatus:
        header = self.feed.header
        facts = self._builder.replay.facts or ServerFacts()
        name = str(facts.server_info.get("name") or header.get("name") or "server")
        detail = f"proxy {header.get('name')} (pid {header.get('pid')}) · {state}"
        if self.missed:
            detail += f" · {self.missed} missed"
        return ConnectionStatus(
            "read-only",
            name,
            str(header.get("server") or ""),
            facts.protocol_version,
            detail=detail,
            era=facts.era,
            transport=str(header.get("transport") or ""),
        )

    def _read(self) -> None:
        """In a thread: the feed's events into the queue, waiting while it is full."""
        for event in self.feed.events():
            self._room.acquire()
            self._queue.append(event)
            if isinstance(event, Ended):
                return

    def _drain(self) -> None:
        if self.ended:
            return
        host = self.host
        store = host.store
        builder = self._builder
        moved = 0
        while self._queue and moved < BATCH:
            event = self._queue.popleft()
            self._room.release()
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
                self.missed += event.count
                store.note(
                    f"this viewer fell behind: {event.count} entries of the session not shown", missed=event.count
                )
            elif isinstance(event, Ended):
                self.ended = True
                state = "connection to the proxy lost" if event.lost else "the session ended"
                host.status_bar.status = self._status(state)
                host.notify(state.capitalize() + ".", title="Attached proxy", timeout=6)
                break
        if not moved:
            return
        replay = builder.replay
        if replay.facts is not None and replay.facts != host.facts:
            host.apply_facts(replay.facts)
        if len(replay.tool_lists) != self._lists:
            lists = replay.tool_lists
            diff = diff_items(lists[-2], lists[-1]) if len(lists) >= 2 else None
            self.servers.show_tools(replay.tools, diff, announce=self._lists > 0, cause="host")
            self._lists = len(lists)
        if not self.ended:
            host.status_bar.status = self._status("attached")
