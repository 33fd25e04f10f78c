"""App-level messages: what the connection worker tells the screen.

The connection worker never touches widgets; it posts these and the main
screen's handlers update the status bar, the tool list and the overview.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from ..core.protocol.rpc import PendingRequest
from ..core.session.events import ListChanged
from ..core.session.mcp_session import ToolCallOutcome


@dataclass
class ServerFacts:
    """What the server declared in ``initialize`` (live or read back from a recording)."""

    server_info: dict[str, Any] = field(default_factory=dict)
    protocol_version: str | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    instructions: str | None = None
    # How the connection runs (empty for a recording that does not say): stdio | http | sse
    transport: str = ""
    url: str | None = None  # masked
    era: str | None = None  # legacy | modern (None: not known, e.g. an older session file)
    era_reason: str | None = None  # one sentence: why this era
    http_session_id: str | None = None  # Mcp-Session-Id (legacy Streamable HTTP)
    cache_info: dict[str, Any] = field(default_factory=dict)  # ttlMs / cacheScope of discover and lists
    subscription_ack: dict[str, Any] | None = None  # what subscriptions/listen's acknowledgement honoured
    excluded_tools: dict[str, str] = field(default_factory=dict)  # name -> why it was dropped


def era_label(era: str | None, protocol_version: str | None) -> str:
    """``modern 2026-07-28`` / ``legacy 2025-11-25`` / ``protocol X`` when the era is not known."""
    if era:
        return f"{era} {protocol_version}" if protocol_version else era
    return f"protocol {protocol_version}" if protocol_version else ""


@dataclass
class ConnectionStatus:
    """Everything the status bar shows. ``state`` is one of STATES."""

    state: str = "idle"
    server: str = ""
    command: str = ""
    protocol_version: str | None = None
    pid: int | None = None
    exit_code: int | None = None
    signal: int | None = None
    detail: str = ""
    stderr_tail: list[str] = field(default_factory=list)
    in_flight: int = 0
    transport: str = ""  # stdio | http | sse (what the transport says it is)
    era: str | None = None  # legacy | modern, once the handshake settled it


# These are posted to the main screen and handled there; they do not bubble to the app.
STATES = ("idle", "connecting", "initializing", "connected", "exited", "failed", "disconnected", "read-only")


class ConnectionChanged(Message, bubble=False):
    """The connection moved to a new state (connecting, connected, exited...)."""

    def __init__(self, status: ConnectionStatus) -> None:
        super().__init__()
        self.status = status


class ServerReady(Message, bubble=False):
    """The handshake finished; ``facts`` is what the server declared."""

    def __init__(self, facts: ServerFacts) -> None:
        super().__init__()
        self.facts = facts


class InputRequested(Message, bubble=False):
    """An MRTR round: the server answered a request with ``input_required`` (modern era).

    ``first_seq`` is the traffic entry of the first request of the logical call,
    ``round`` counts from 1, ``requests`` is ``inputRequests`` ({key: {method, params}})."""

    def __init__(self, round: int, requests: dict[str, Any], first_seq: int | None, method: str | None = None) -> None:
        super().__init__()
        self.round = round
        self.requests = requests
        self.first_seq = first_seq
        self.method = method


class ToolsFetched(Message, bubble=False):
    """A tools/list (re)fetch finished: the initial list, a refresh or after list_changed."""

    def __init__(self, event: ListChanged) -> None:
        super().__init__()
        self.event = event


class ListFetched(Message, bubble=False):
    """A prompts, resources or resource-templates list was (re)fetched (tools: ToolsFetched)."""

    def __init__(self, event: ListChanged) -> None:
        super().__init__()
        self.event = event


class SessionNotice(Message, bubble=False):
    """Session events the views follow: ResourceUpdated, TaskUpdated, ElicitationCompleted.

    ``latest``: what gives the events queued while this message waited (the newest per task,
    per resource URI, per elicitation; tasks.py's other task events each), one list, taken once;
    handlers call :meth:`take_all`. The connection posts the next message only after that."""

    def __init__(self, event: Any, latest: Callable[[], list[Any]] | None = None) -> None:
        super().__init__()
        self.event = event
        self.latest = latest
        self.events: list[Any] = [event]

    def take_all(self) -> list[Any]:
        """The events to handle: the coalesced ones (taken once), else ``[event]``."""
        if self.latest is not None:
            self.events, self.latest = self.latest() or [self.event], None
        return self.events


class OpenResource(Message):
    """Show a resource in the Resources view (a resource_link or embedded resource in a
    result: bubbles up to the main screen). ``contents`` is an embedded resource's content,
    shown as it came; without it the view reads ``uri``."""

    def __init__(self, uri: str, contents: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.uri = uri
        self.contents = contents


class ConnectionProblem(Message, bubble=False):
    """Something worth a toast that is not a state change (a failed refetch...)."""

    def __init__(self, text: str, severity: str = "warning") -> None:
        super().__init__()
        self.text = text
        self.severity = severity


class CallStarted(Message, bubble=False):
    def __init__(self, pending: PendingRequest) -> None:
        super().__init__()
        self.pending = pending


class CallFinished(Message, bubble=False):
    def __init__(self, pending: PendingRequest, outcome: ToolCallOutcome) -> None:
        super().__init__()
        self.pending = pending
        self.outcome = outcome


class CallFailed(Message, bubble=False):
    def __init__(self, pending: PendingRequest | None, error: BaseException, elapsed_ms: float | None) -> None:
        super().__init__()
        self.pending = pending
        self.error = error
        self.elapsed_ms = elapsed_ms
