"""The roots the TUI tells each server (``roots/list``), kept per server for this run.

The inspector never makes roots up: a server's roots are the ones the user gave, at start
(``--root PATH``, repeatable, or the config entry's ``"roots"``: ``ServerSpec.roots``) or in
the Roots editor (screens/dialogs/roots_editor.py), and with none ``roots/list`` is answered with an
empty list. The capability is declared either way, so roots set later reach the server: in
the legacy era the client sends ``notifications/roots/list_changed`` and the server asks
again; the 2026-07-28 era has no such notification, so the new roots are what the next
``roots/list`` input request gets. (server-filesystem keeps the folders it was started
with on an empty list; told a root, it narrows its allowed folders to the roots.)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...core.config.servers import ServerSpec
from ...core.session.answers import live_roots_handler
from ...core.session.mcp_session import McpSession


def root_problem(path: str) -> str | None:
    """Why a root may not work ("does not exist", "is not a directory"), or None."""
    if os.path.isdir(path):
        return None
    return "is not a directory" if os.path.exists(path) else "does not exist"


@dataclass(frozen=True)
class RootsOf:
    """One server's roots and where they came from."""

    paths: tuple[str, ...]
    source: str  # "start" (--root or the config entry) or "editor"


class RootsBook:
    """Each server's roots by ``ServerSpec.key``: the spec's own until edited, then the edit."""

    def __init__(self) -> None:
        self._edited: dict[str, tuple[str, ...]] = {}

    def of(self, spec: ServerSpec | None) -> RootsOf:
        if spec is None:
            return RootsOf((), "start")
        if spec.key in self._edited:
            return RootsOf(self._edited[spec.key], "editor")
        return RootsOf(tuple(spec.roots), "start")

    def paths(self, spec: ServerSpec | None) -> list[str]:
        return list(self.of(spec).paths)

    def set(self, spec: ServerSpec, paths: list[str]) -> bool:
        """Keep ``paths`` as this server's roots; True when they differ from before."""
        before = self.of(spec).paths
        self._edited[spec.key] = tuple(paths)
        return tuple(paths) != before


def asking_spec(connection: Any) -> ServerSpec | None:
    """The server a ``roots/list`` comes from when the handler cannot tell: during a switch
    (F7, tui/server/switching.py) the one being switched to (server-filesystem asks right after its
    handshake, before the switch completes), else the current one."""
    return getattr(connection, "switching_to", None) or getattr(connection, "spec", None)


def roots_answer(book: Callable[[], RootsBook], spec: Callable[[], ServerSpec | None]):
    """The ``roots/list`` handler: the roots of ``spec()`` (the server asking) at the time it asks.
    ``handler.for_spec(spec)`` is the same handler bound to one server (connection.bound_handlers)."""
    handler = live_roots_handler(lambda: book().paths(spec()))
    handler.for_spec = lambda bound: live_roots_handler(lambda: book().paths(bound))  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
    return handler


async def announce_change(session: McpSession | None) -> str:
    """After an edit: tell the connected server, and say what happens, in one sentence."""
    if session is None:
        return "Not connected: the server gets these roots when it asks (roots/list)."
    if getattr(session, "era", None) == "modern":
        return (
            "2026-07-28 has no roots/list_changed notification: the server gets these roots "
            "the next time it asks (a roots/list input request)."
        )
    await session.connection.notify("notifications/roots/list_changed")
    return "Sent notifications/roots/list_changed: the server asks roots/list again when it wants them."


def declared_capabilities(session: McpSession | None) -> dict[str, Any] | None:
    """What the client declares to this session (initialize, or every 2026-07-28 request's _meta)."""
    if session is None:
        return None
    try:
        caps = session.client_capabilities()
    except Exception:  # noqa: BLE001 - the overview must not break on a session's report
        return None
    return caps if isinstance(caps, dict) else None
