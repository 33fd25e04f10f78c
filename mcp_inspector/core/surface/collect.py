"""The connected server's surface: every page of every list it declares, as a snapshot document.
The CLI (``snapshot``, ``diff`` against a live server) and the TUI ("compare with a snapshot")
both make it here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..base import jsonrpc
from ..base.errors import RpcError
from . import snapshot

#: the session's list kinds -> the snapshot's keys
KINDS = (
    ("tools", "tools"),
    ("prompts", "prompts"),
    ("resources", "resources"),
    ("resource_templates", "resourceTemplates"),
)


class ListingSession(Protocol):
    """What the collection needs of a connected session (core/session's McpSession)."""

    server_info: Any
    protocol_version: Any
    era: Any
    capabilities: Any
    instructions: Any
    lists: dict[str, list[dict[str, Any]]]

    def supports(self, kind: str) -> bool: ...

    async def list_all(self, kind: str, *, cause: str = ...) -> list[dict[str, Any]]: ...


async def collect(
    session: ListingSession,
    note: Callable[[str], None],
    *,
    reuse: bool = False,
    step: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The snapshot document. A kind the server does not declare is empty; a list request that
    fails is recorded as empty with a ``note`` (as is a server without resources/templates/list).
    ``reuse``: a kind the session has listed already is taken as it has it (the TUI keeps its
    lists current on list_changed), not fetched again. ``step`` is told each request's method."""
    lists: dict[str, list[Any]] = {}
    for kind, key in KINDS:
        if not session.supports(kind):
            lists[key] = []
            continue
        if reuse and kind in session.lists:
            lists[key] = list(session.lists[kind])
            continue
        method = "resources/templates/list" if kind == "resource_templates" else f"{kind}/list"
        if step is not None:
            step(method)
        try:
            lists[key] = await session.list_all(kind)
        except RpcError as exc:
            if kind == "resource_templates" and exc.code == jsonrpc.METHOD_NOT_FOUND:
                note("the server does not implement resources/templates/list")
            else:
                note(f"{method} failed ({exc}); recorded as empty")
            lists[key] = []
    return snapshot.build(
        server_info=session.server_info,
        protocol_version=session.protocol_version,
        era=session.era,
        capabilities=session.capabilities,
        instructions=session.instructions,
        lists=lists,
    )
