"""McpSession's lists: the :class:`Lister` the session owns (``session.lister``).

Every page of tools, prompts, resources and resource templates is fetched, bounded (a server
paging for ever, looping its cursors or sending huge pages stops with the items so far and an
error), stored with what changed since the last listing (the first listing of a connection is
the baseline), and fetched again when the server says a list changed: one refetch at a time per
kind, plus at most one queued, however many ``list_changed`` notifications arrive.
"""

from __future__ import annotations

from typing import Any, Protocol

import anyio.abc

from ..base.errors import ConnectionLost, InspectorError, ProtocolViolation
from ..protocol.rpc import PendingRequest
from ..protocol.versions import LEGACY_VERSIONS
from ..traffic.store import TrafficStore
from ..transport.base import Transport
from . import modern
from .events import ListChanged, SessionEvent
from .tooldiff import ListDiff, diff_items

MAX_PAGES = 10_000
# A server that pages for ever with a fresh cursor each time (or sends huge pages) must not
# grow the client without bound: a list stops, with the items so far and an error, past
# MAX_ITEMS items or MAX_LIST_BYTES bytes of pages (as on the wire).
MAX_ITEMS = 100_000
MAX_LIST_BYTES = 256 << 20

# list kind -> (method, result key, capability that declares it, list_changed notification)
LISTS = {
    "tools": ("tools/list", "tools", "tools", "notifications/tools/list_changed"),
    "prompts": ("prompts/list", "prompts", "prompts", "notifications/prompts/list_changed"),
    "resources": ("resources/list", "resources", "resources", "notifications/resources/list_changed"),
    "resource_templates": (
        "resources/templates/list",
        "resourceTemplates",
        "resources",
        "notifications/resources/list_changed",
    ),
}
CHANGED = {
    notification: [k for k, v in LISTS.items() if v[3] == notification]
    for notification in {v[3] for v in LISTS.values()}
}


class PaginationError(ProtocolViolation):
    def __init__(self, message: str, items: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.items = items


class ListingSession(Protocol):
    """What listing needs of the session (mcp_session.py imports this module)."""

    @property
    def store(self) -> TrafficStore: ...
    @property
    def transport(self) -> Transport: ...
    @property
    def capabilities(self) -> dict[str, Any]: ...
    @property
    def era(self) -> str | None: ...
    @property
    def protocol_version(self) -> str | None: ...
    @property
    def task_group(self) -> anyio.abc.TaskGroup | None: ...

    def emit(self, event: SessionEvent) -> None: ...
    async def begin_request(
        self, method: str, params: dict[str, Any] | None = None, **options: Any
    ) -> PendingRequest: ...
    async def finish_request(self, pending: PendingRequest) -> dict[str, Any]: ...


class Lister:
    """The session's lists (``lists``: kind -> items, ``excluded_tools``), fetched and refetched."""

    def __init__(self, session: ListingSession) -> None:
        self.session = session
        self.lists: dict[str, list[dict[str, Any]]] = {}
        self.excluded_tools: dict[str, str] = {}  # 2026-07-28 HTTP: tools left out of lists["tools"], and why
        # list kind -> "running" (a refetch is under way) or "again" (another is due after it)
        self._refresh: dict[str, str] = {}
        # list kind -> whether a list_changed arrived while its first listing runs
        self._first_listing: dict[str, bool] = {}

    def supports(self, kind: str) -> bool:
        """Whether the server declared the capability behind a list kind."""
        return LISTS[kind][2] in self.session.capabilities

    async def list_all(self, kind: str, *, cause: str = "refresh") -> list[dict[str, Any]]:
        """Fetch every page of a list, update our copy and emit ListChanged.

        The first listing of a kind is the baseline (cause "initial", nothing marked). A
        ``list_changed`` that arrives while it is being fetched (server-everything announces one
        then) refetches once, still as the baseline, and emits one ListChanged.
        """
        method, key, _, _ = LISTS[kind]
        before = self.lists.get(kind)
        first = before is None and kind not in self._first_listing
        if first:
            self._first_listing[kind] = False
        try:
            while True:
                try:
                    items = await self.paginate(method, key)
                except PaginationError as exc:
                    self._store_list(kind, exc.items, before, cause, str(exc))
                    raise
                if not (first and self._first_listing.get(kind)):
                    break
                self._first_listing[kind] = False
                first = False  # once: a server announcing changes forever gets the second listing
                self.session.store.note(
                    f"{LISTS[kind][3]} arrived during the first {method}: listed again (the baseline)"
                )
        finally:
            if before is None:
                self._first_listing.pop(kind, None)
        self._store_list(kind, items, before, cause, None)
        return self.lists[kind]

    @property
    def refreshing(self) -> bool:
        """Whether a refetch after a list_changed runs or is queued, for any kind."""
        return bool(self._refresh)

    def changed(self, kind: str) -> None:
        """A list_changed for ``kind``: noted when its first listing runs (it then lists once
        more), else a refetch is scheduled."""
        if kind in self._first_listing:
            self._first_listing[kind] = True
        else:
            self._schedule_refresh(kind)

    def _store_list(
        self, kind: str, items: list[dict[str, Any]], before: list[dict[str, Any]] | None, cause: str, error: str | None
    ) -> None:
        session = self.session
        if kind == "tools" and session.era == "modern" and session.transport.kind == "http":
            items, self.excluded_tools = modern.split_excluded(items)
            for name, reason in self.excluded_tools.items():
                session.store.note(f"tool {name!r} excluded from the list: {reason}", excluded_tool=name)
        self.lists[kind] = items
        diff = diff_items(before or [], items) if before is not None else ListDiff(added=list(items))
        # the first list of a connection is the baseline, whatever asked for it (a list_changed refetch too)
        session.emit(ListChanged(kind, items, diff, "initial" if before is None else cause, error))

    async def paginate(self, method: str, key: str) -> list[dict[str, Any]]:
        """Every page of ``method``'s ``key`` array (bounded: PaginationError with the items so far)."""
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        size = 0
        for pages in range(1, MAX_PAGES + 1):
            params = {"cursor": cursor} if cursor is not None else None
            pending = await self.session.begin_request(method, params)
            result = await self.session.finish_request(pending)
            page = result.get(key)
            if not isinstance(page, list):
                raise PaginationError(f"{method} result has no `{key}` array", items)
            items.extend(item for item in page if isinstance(item, dict))
            cursor = result.get("nextCursor")
            if cursor is None or (cursor == "" and self.session.protocol_version in LEGACY_VERSIONS):
                return items
            size += len(pending.reply.raw) if pending.reply is not None else 0
            if len(items) >= MAX_ITEMS or size >= MAX_LIST_BYTES:
                what = f"{len(items):,} items" if len(items) >= MAX_ITEMS else f"{size / (1 << 20):,.0f} MB"
                raise PaginationError(
                    f"{method}: stopped after {pages:,} pages and {what}, the server still "
                    f"sends a nextCursor (the list keeps the first {len(items):,} items)",
                    items,
                )
            if not isinstance(cursor, str):
                raise PaginationError(f"{method}: nextCursor must be a string, got {cursor!r}", items)
            if cursor in seen:
                raise PaginationError(
                    f"{method}: cursor loop, the server returned cursor {cursor!r} twice (stopped after "
                    f"{len(seen) + 1} pages)",
                    items,
                )
            seen.add(cursor)
        raise PaginationError(f"{method}: more than {MAX_PAGES} pages, stopped", items)

    def _schedule_refresh(self, kind: str) -> None:
        """Coalesce bursts: one refetch runs at a time, plus at most one queued."""
        if kind in self._refresh:
            self._refresh[kind] = "again"
            return
        self._refresh[kind] = "running"
        assert self.session.task_group is not None
        self.session.task_group.start_soon(self._refresh_loop, kind)

    async def _refresh_loop(self, kind: str) -> None:
        try:
            while True:
                self._refresh[kind] = "running"
                try:
                    await self.list_all(kind, cause="notification")
                except ConnectionLost:
                    return
                except InspectorError:
                    pass  # the ListChanged event (or the log) already carries the failure
                if self._refresh[kind] != "again":
                    return
        finally:
            self._refresh.pop(kind, None)
