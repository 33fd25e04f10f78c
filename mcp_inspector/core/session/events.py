"""Events the session emits to its listeners (the TUI turns them into messages).

They describe meaning (the tool list changed, the server exited); the frames
themselves are in the traffic store, which views poll on a timer instead of
receiving one event per frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..transport.base import Closed
from .tooldiff import ListDiff


class SessionState(StrEnum):
    IDLE = "idle"
    CONNECTING = "connecting"
    INITIALIZING = "initializing"
    READY = "ready"
    CLOSED = "closed"
    FAILED = "failed"


@dataclass(slots=True)
class StateChanged:
    state: SessionState
    detail: str = ""


@dataclass(slots=True)
class ListChanged:
    """A list was (re)fetched. ``kind`` is tools, prompts, resources or resource_templates."""

    kind: str
    items: list[dict[str, Any]]
    diff: ListDiff
    cause: str  # "initial", "notification" or "refresh"
    error: str | None = None  # set when the refetch failed part-way


@dataclass(slots=True)
class LogMessage:
    level: str
    logger: str | None
    data: Any
    seq: int


@dataclass(slots=True)
class ResourceUpdated:
    uri: str
    seq: int


@dataclass(slots=True)
class ServerClosed:
    closed: Closed
    stderr_tail: list[str] = field(default_factory=list)


@dataclass(slots=True)
class InputRequested:
    """A modern server answered with an InputRequiredResult (MRTR): round ``round`` of the
    request whose first frame is ``first_seq``; ``requests`` is ``{key: {method, params}}``."""

    round: int
    requests: dict[str, Any]
    first_seq: int | None


@dataclass(slots=True)
class TaskUpdated:
    """A task's state as last seen: at creation, from a ``tasks/get`` poll, from a status
    notification (``notifications/tasks/status`` in 2025-11-25, ``notifications/tasks`` with
    the 2026-07-28 tasks extension), at its result, or after ``tasks/cancel``.

    ``task`` is the Task object as the server sent it (``taskId``, ``status``,
    ``statusMessage``, ``pollInterval``/``pollIntervalMs``...); ``first_seq`` is the traffic
    entry of the request that created the task (the ``tools/call``), when known."""

    task: dict[str, Any]
    first_seq: int | None
    source: str  # "created" | "poll" | "notification" | "result" | "cancel" | "list"


#: The notification ElicitationCompleted stands for (url_elicitation.py handles it; the session
#: knows the name without loading that module).
ELICITATION_COMPLETE = "notifications/elicitation/complete"


@dataclass(slots=True)
class ElicitationCompleted:
    """The server sent ``notifications/elicitation/complete``: the URL elicitation
    ``elicitation_id`` (of a ``-32042`` error or a URL-mode request) is done."""

    elicitation_id: str
    seq: int


SessionEvent = (
    StateChanged
    | ListChanged
    | LogMessage
    | ResourceUpdated
    | ServerClosed
    | InputRequested
    | TaskUpdated
    | ElicitationCompleted
)
