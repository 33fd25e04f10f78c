"""``subscriptions/listen`` (2026-07-28, ``basic/patterns/subscriptions.mdx``).

In the modern era the server sends list_changed and resources/updated only on a
long-lived ``subscriptions/listen`` request the client opens, each notification
tagged with ``_meta["io.modelcontextprotocol/subscriptionId"]`` (the listen
request's id). The first message is ``notifications/subscriptions/acknowledged``
with the subset the server honours. The stream ends with a result (graceful),
``notifications/cancelled`` from the server (stdio) or a transport failure; while
the session is ready it is reopened with a backoff.

The tasks extension adds ``taskIds`` to the filter (``notifications/tasks`` for those
tasks): a task being followed joins an already-open stream (tasks.py still polls).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Protocol

import anyio
import anyio.abc

from ..base.errors import ConnectionLost, InspectorError, RequestCancelled, RpcError
from ..base.jsonrpc import id_key, valid_id
from ..protocol.rpc import PendingRequest, RpcConnection
from ..traffic.entry import TrafficEntry
from ..traffic.store import TrafficStore
from ..transport.base import Closed
from .events import SessionState
from .modern import SUBSCRIPTION_ID_KEY

ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
FIRST_DELAY = 0.5  # seconds before reopening a stream that ended
MAX_DELAY = 30.0
STEADY = 60.0  # a stream that lived this long resets the backoff
REMEMBERED_IDS = 64
# filter field -> (capability, what declares it)
LIST_FILTERS = {"toolsListChanged": "tools", "promptsListChanged": "prompts", "resourcesListChanged": "resources"}


class ListeningSession(Protocol):
    """What the listen stream needs of the session (mcp_session.py imports this module)."""

    subscription_ack: dict[str, Any] | None

    @property
    def store(self) -> TrafficStore: ...
    @property
    def connection(self) -> RpcConnection: ...
    @property
    def capabilities(self) -> dict[str, Any]: ...
    @property
    def state(self) -> SessionState: ...
    @property
    def closed(self) -> Closed | None: ...
    @property
    def task_group(self) -> anyio.abc.TaskGroup | None: ...


class Subscriptions:
    """The session's one listen stream: what it asks for, its acknowledgment, reopening."""

    def __init__(self, session: ListeningSession) -> None:
        self.session = session
        self.uris: list[str] = []
        self.task_ids: list[str] = []  # tasks followed now (the tasks extension's taskIds)
        self.pending: PendingRequest | None = None
        self.ack: dict[str, Any] | None = None
        self._running = False
        self._reopen = False
        self._requested: dict[str, Any] = {}  # the filter the open stream asked for
        self._changed: anyio.Event | None = None  # set when the stream, its ack or the filter changes
        self._hears_close = False
        # keys of the listen ids we opened, newest last (a late frame of an old stream is ours too)
        self._ids: OrderedDict[Any, None] = OrderedDict()

    def wanted(self) -> dict[str, Any]:
        """The filter: list changes the server declared ``listChanged`` for, plus the
        resource URIs the caller subscribed to."""
        caps = self.session.capabilities
        notifications: dict[str, Any] = {}
        for name, capability in LIST_FILTERS.items():
            declared = caps.get(capability)
            if isinstance(declared, dict) and declared.get("listChanged") is True:
                notifications[name] = True
        if self.uris:
            notifications["resourceSubscriptions"] = list(self.uris)
        if self.task_ids:
            notifications["taskIds"] = list(self.task_ids)
        return notifications

    def start(self) -> None:
        """Open the stream (in the background) if there is anything to listen for."""
        if self._running or not self.wanted():
            return
        assert self.session.task_group is not None
        self._running = True
        self.session.task_group.start_soon(self._run)

    async def acknowledgment_for(self, uri: str) -> dict[str, Any] | None:
        """The acknowledged filter of a stream that asked for ``uri`` (an older stream's does not
        count), as soon as it comes; None once ``uri`` is no longer asked for or the session closed.
        Waits on events, not time: the caller bounds the wait."""
        if not self._hears_close:
            self._hears_close = True
            self.session.connection.add_close_listener(lambda _event: self._signal())
        while True:
            if self.session.closed is not None or uri not in self.uris:
                return None
            if self.ack is not None and uri in (self._requested.get("resourceSubscriptions") or ()):
                return self.ack
            if self._changed is None:
                self._changed = anyio.Event()
            await self._changed.wait()

    def _signal(self) -> None:
        """Wake whoever waits in ``acknowledgment_for`` to look again."""
        changed, self._changed = self._changed, None
        if changed is not None:
            changed.set()

    async def update(self) -> None:
        """The filter changed (a resource subscription): reopen the stream with it."""
        self._signal()
        if not self._running:
            self.start()
            return
        pending = self.pending
        if pending is not None and not pending.done:
            self._reopen = True
            await pending.cancel("re-opened with a new filter")

    async def watch_task(self, task_id: str) -> bool:
        """Ask for ``notifications/tasks`` about a task on the open stream (reopened with it);
        False when no stream runs (none is opened only for this: polling goes on anyway)."""
        if not self._running or task_id in self.task_ids:
            return False
        self.task_ids.append(task_id)
        await self.update()
        return True

    async def unwatch_task(self, task_id: str) -> None:
        if task_id in self.task_ids:
            self.task_ids.remove(task_id)
            if self._running:
                await self.update()

    async def _run(self) -> None:
        session = self.session
        delay = FIRST_DELAY
        try:
            while session.state is SessionState.READY and session.closed is None:
                notifications = self.wanted()
                if not notifications:
                    return
                self.ack = None
                session.subscription_ack = None
                self._reopen = False
                self._requested = notifications
                self._signal()
                try:
                    pending = await session.connection.send_request(
                        "subscriptions/listen", {"notifications": notifications}, timeout=None
                    )
                except ConnectionLost:
                    return
                self.pending = pending
                self._ids[id_key(pending.id)] = None
                while len(self._ids) > REMEMBERED_IDS:
                    self._ids.popitem(last=False)
                try:
                    await pending.wait()
                    ending = "the server ended it with a result"
                except ConnectionLost:
                    return
                except RequestCancelled as exc:
                    if self._reopen:
                        delay = FIRST_DELAY
                        continue
                    ending = exc.reason
                except RpcError as exc:
                    session.store.note(
                        f"subscriptions/listen failed: {exc}; list changes will not be seen live (not reopened)",
                        subscription=True,
                    )
                    return
                except InspectorError as exc:
                    ending = str(exc)
                finally:
                    self.pending = None
                if session.state is not SessionState.READY or session.closed is not None:
                    return
                if pending.elapsed >= STEADY:  # it ran fine for a while: start the backoff over
                    delay = FIRST_DELAY
                seq = pending.entry.seq if pending.entry is not None else "?"
                session.store.note(
                    f"the subscriptions/listen stream #{seq} ended ({ending}): reopening in {delay:g} s",
                    subscription=True,
                )
                await anyio.sleep(delay)
                delay = min(delay * 2, MAX_DELAY)
        except Exception as exc:  # a bug here must not take the session down with it
            session.store.note(f"subscriptions/listen stopped: {exc.__class__.__name__}: {exc}", subscription=True)
        finally:
            self._running = False
            self._signal()

    def route(self, method: str, params: dict[str, Any] | None, entry: TrafficEntry) -> str | None:
        """Where a notification belongs in the modern era: "listen" when it is tagged
        with a listen stream's id, "acknowledged" for the acknowledgment, None otherwise."""
        meta = params.get("_meta") if params is not None else None
        tagged = meta.get(SUBSCRIPTION_ID_KEY) if isinstance(meta, dict) else None
        pending = self.pending
        current = pending is not None and not pending.done
        if method == "notifications/cancelled" and params is not None:
            request_id = params.get("requestId")
            if current and pending is not None and self._same(request_id, pending.id):
                reason = params.get("reason")
                self.session.connection.release(
                    pending,
                    RequestCancelled(
                        "subscriptions/listen",
                        f"the server cancelled it{': ' + reason if isinstance(reason, str) else ''}",
                    ),
                )
                return "listen"
            return "listen" if self._known(request_id) else None  # a late one for a stream that already ended
        if not self._known(tagged):
            return None
        if method == ACKNOWLEDGED:
            # Only the open stream's acknowledgment counts (a late one of an old stream does not).
            if current and pending is not None and self._same(tagged, pending.id):
                honoured = params.get("notifications") if params is not None else None
                self.ack = honoured if isinstance(honoured, dict) else {}
                self.session.subscription_ack = self.ack
                self._check_ack(self.ack)
                self._signal()
            return "acknowledged"
        return "listen"

    def _known(self, msg_id: Any) -> bool:
        """One of our listen ids (a JSON-RPC id: a string or an integer, never true or 1.0)."""
        return valid_id(msg_id) and id_key(msg_id) in self._ids

    @staticmethod
    def _same(a: Any, b: Any) -> bool:
        return valid_id(a) and valid_id(b) and id_key(a) == id_key(b)

    def _check_ack(self, honoured: dict[str, Any]) -> None:
        """What was asked for and not honoured is noted (subscriptions.mdx: the client SHOULD
        check the acknowledged filter against what it requested)."""
        missing: list[str] = []
        for name, value in self._requested.items():
            if name in ("resourceSubscriptions", "taskIds"):
                got = honoured.get(name)
                kept = set(got) if isinstance(got, list) and all(isinstance(u, str) for u in got) else set()
                missing += [f"{name} {uri}" for uri in value if uri not in kept]
            elif honoured.get(name) is not True:
                missing.append(name)
        if missing:
            self.session.store.note(
                "subscriptions/listen: the server did not acknowledge "
                + ", ".join(missing)
                + " (those notifications will not come)",
                subscription=True,
                not_honoured=missing,
            )
