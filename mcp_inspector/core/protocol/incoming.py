"""The server's requests waiting for the client's answer, bounded.

A server may ask the client (``elicitation/create``, ``sampling/createMessage``,
``roots/list``...) while its handler runs, a person may be at a form for minutes. At most
``MAX_WAITING_SERVER_REQUESTS`` wait at once per connection; a request beyond them is answered
at once with the JSON-RPC error ``TOO_MANY_WAITING`` and counted (``refused``), so a server
that floods requests costs bounded memory and work, and the user sees how many were refused:
a note in the traffic store when refusing starts and another with the count when it stops,
and the handler's ``mcp_refused(method)`` hook (the TUI's queue counts them on its modal).
``ping`` never waits (it is answered at once), so it is not counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..traffic.store import TrafficStore
from .raw import IncomingRequest

#: server requests being answered at once (per connection); more are refused with an error
MAX_WAITING_SERVER_REQUESTS = 100
#: the JSON-RPC error (implementation-defined server error range) a refused request gets
TOO_MANY_WAITING = -32000


class WaitingRequests:
    """The server requests whose handler runs, by id key (``rpc.id_key``), at most ``cap``."""

    def __init__(self, store: TrafficStore, cap: int = MAX_WAITING_SERVER_REQUESTS) -> None:
        self.store = store
        self.cap = cap
        self.refused = 0  # requests refused over the connection's life
        self._burst = 0  # refused since the list was last below the cap
        self._by_key: dict[tuple[bool, Any], IncomingRequest] = {}

    def __len__(self) -> int:
        return len(self._by_key)

    def __iter__(self) -> Iterator[IncomingRequest]:
        return iter(list(self._by_key.values()))

    def get(self, key: tuple[bool, Any]) -> IncomingRequest | None:
        return self._by_key.get(key)

    def full(self) -> bool:
        return len(self._by_key) >= self.cap

    def add(self, key: tuple[bool, Any], incoming: IncomingRequest) -> None:
        """Register a request whose handler is about to run (a request reusing the id of one
        still waiting takes its place: the older one is answered but no longer listed)."""
        self._by_key[key] = incoming

    def pop(self, key: tuple[bool, Any]) -> IncomingRequest | None:
        incoming = self._by_key.pop(key, None)
        self._ended()
        return incoming

    def done(self, key: tuple[bool, Any], incoming: IncomingRequest) -> None:
        """The handler of ``incoming`` ended (answered, failed or cancelled)."""
        if self._by_key.get(key) is incoming:
            del self._by_key[key]
        self._ended()

    def refuse(self, method: str, handler: Any) -> tuple[int, str]:
        """Count a request refused because ``cap`` already wait; the error (code, message) to answer it with."""
        self.refused += 1
        self._burst += 1
        if self._burst == 1:
            self.store.note(
                f"{self.cap} server requests already wait for an answer: more are refused with error "
                f"{TOO_MANY_WAITING} until fewer wait",
                server_requests_refused=True,
            )
        hook = getattr(handler, "mcp_refused", None)
        if callable(hook):
            try:
                hook(method)
            except Exception as exc:  # a hook's bug must not stop the reader
                self.store.note(f"error in a refusal hook: {exc.__class__.__name__}: {exc}", listener_error=True)
        return TOO_MANY_WAITING, (
            f"Too many requests waiting for an answer ({self.cap}): {method} refused; ask again once fewer wait"
        )

    def _ended(self) -> None:
        if self._burst and not self.full():
            self.store.note(
                f"{self._burst} server request{'s' if self._burst != 1 else ''} refused while "
                f"{self.cap} waited for an answer",
                server_requests_refused=True,
                refused=self._burst,
            )
            self._burst = 0
