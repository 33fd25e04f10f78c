"""The transport interface shared by stdio, Streamable HTTP, legacy HTTP+SSE and
the stateless 2026-07-28 era.

A transport is started with a task group and a *sink*: a plain callback that
receives events in wire order. ``send`` takes one serialised message plus
optional per-message metadata (an HTTP transport uses it for headers such as
``Mcp-Method``; stdio ignores it). Events may carry ``meta`` too (HTTP status,
headers, SSE event id), which the traffic store keeps beside each frame.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio.abc

from ..base.errors import InspectorError


@dataclass(slots=True)
class Received:
    """One frame from the server, bytes exactly as received.

    ``problem`` is set when the transport could not deliver the frame whole (a line
    over the size cap: ``raw`` is then only its head); the frame is invalid.
    """

    raw: bytes
    meta: dict[str, Any] | None = None
    problem: str | None = None


#: The problem of a stdout line cut off because we stopped the server (a signal at shutdown) while
#: it was writing it: recorded, raw, but not the server's fault (``meta["torn_by_shutdown"]``).
TORN_BY_SHUTDOWN = "cut off: the server was stopped by us (a signal at shutdown) while writing this line"


@dataclass(slots=True)
class StderrLine:
    """One line the server wrote to stderr (stdio only); ``meta`` says if it was cut."""

    raw: bytes
    meta: dict[str, Any] | None = None


@dataclass(slots=True)
class Note:
    """Something the transport observed that is not a frame (process started, HTTP status...)."""

    text: str
    meta: dict[str, Any] | None = None


@dataclass(slots=True)
class Closed:
    """The connection is gone; no more events follow."""

    reason: str
    exit_code: int | None = None
    signal: int | None = None
    stderr_tail: list[str] = field(default_factory=list)
    expected: bool = False  # True when we closed it ourselves


@dataclass(slots=True)
class Undelivered:
    """A message that will get no JSON-RPC reply through this transport, and why.

    An HTTP transport reports it when a POST fails without a JSON-RPC body (a 500
    with an HTML page, a refused connection, a stream cut before the reply and not
    resumable). ``msg_id`` is the id of the request it carried (None for a
    notification or a response); ``meta`` has ``status`` (the HTTP status, when
    there was one) and ``exchange`` (the id of the exchange in the HttpLog).
    """

    msg_id: Any
    reason: str
    meta: dict[str, Any] | None = None


TransportEvent = Received | StderrLine | Note | Closed | Undelivered
Sink = Callable[[TransportEvent], None]


class TransportError(Exception):
    """The transport could not start or send (command not found, pipe closed...)."""


#: How a TransportError (and the request it failed) begins when the OAuth flow failed: the rest
#: says what the flow found wrong; callers show it as it is, without naming the request.
AUTH_FAILED = "authorization failed: "


class AuthHookError(InspectorError):
    """What an :class:`AuthHook` raises when it cannot authorize a request (``core/auth``'s
    ``AuthError`` is one); the transport turns it into a TransportError. Defined here so the
    transport does not import the auth layer above it."""


class Transport(ABC):
    """Moves whole messages to and from one server."""

    #: A short label for the UI: "stdio", "http", "sse".
    kind: str = "?"

    @abstractmethod
    async def start(self, task_group: anyio.abc.TaskGroup, sink: Sink) -> None:
        """Connect (spawn, open streams) and start delivering events to ``sink``."""

    @abstractmethod
    async def send(self, data: bytes, meta: dict[str, Any] | None = None) -> None:
        """Send one serialised message. Raises TransportError if it cannot."""

    @abstractmethod
    async def close(self) -> None:
        """Shut down gracefully, escalating as the spec says; idempotent."""

    #: Called (no arguments) when the server says the session is gone (HTTP 404 on a
    #: request carrying ``Mcp-Session-Id``): the session re-initializes. Set by the session.
    on_session_expired: Callable[[], None] | None = None

    #: Called (no arguments) at ``close``: True while the server still has work of ours in flight
    #: (a request unanswered, cancelled or timed out; a request of its own being answered).
    #: A transport may close an idle server sooner. Set by the connection.
    work_in_flight: Callable[[], bool] | None = None

    def set_protocol_version(self, version: str | None) -> None:  # noqa: B027 optional: only HTTP sends it
        """The protocol revision the session settled on (HTTP sends it as a header)."""

    async def cancel_request(self, msg_id: Any) -> str | None:
        """Cancel a request in flight the transport's own way, if it has one.

        Returns what was done (for the log) when the transport cancelled it itself,
        e.g. a 2026-07-28 HTTP transport closes the request's response stream; None
        means the caller sends ``notifications/cancelled`` as usual.
        """
        return None

    async def abandon_request(self, msg_id: Any) -> None:  # noqa: B027 optional: only HTTP holds a stream
        """The caller gave up on a request (cancelled, timed out) and has told the server
        (``notifications/cancelled``): what the transport still holds open for it alone (an HTTP
        response stream) can go. Nothing by default."""

    @property
    def description(self) -> str:
        """What we are connected to, for humans."""
        return self.kind

    @property
    def details(self) -> dict[str, Any]:
        """Facts worth showing (pid, URL, session id...)."""
        return {}
